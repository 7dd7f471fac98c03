"""The app's one list of pages and the sidebar navigation's HTML (ui/kit/navigation.py).

In a browser: tests/browser/test_a11y_browser.py (what a screen reader hears, axe on every page).
In a session: tests/pages/test_app.py (the sidebar links every other page and marks the first)."""

from pathlib import Path

from ui.kit.navigation import DEFAULT_PAGE, SECTIONS, all_pages, current_item, section_heading

ROOT = Path(__file__).resolve().parents[2]


def test_every_page_script_is_in_the_sidebar_once_under_its_section():
    listed = [page.path for page in all_pages()]
    scripts = sorted(f"pages/{p.name}" for p in (ROOT / "pages").glob("*.py"))
    assert sorted(listed) == scripts  # none missing, none twice
    assert len({page.title for page in all_pages()}) == len(listed)
    assert list(SECTIONS) == ["Learn", "Train and look", "Compare and exchange",
                              "Who pays for tokens"]
    assert DEFAULT_PAGE == SECTIONS["Learn"][0].path == "pages/overview.py"


def test_a_section_is_a_heading_and_the_page_on_screen_is_marked_current():
    assert section_heading("Learn") == '<h2 class="bpe-nav-section">Learn</h2>'
    here = current_item(SECTIONS["Compare and exchange"][1])  # "Export & import"
    assert here == ('<p class="bpe-nav-here" aria-current="page"><span class="bpe-nav-icon" '
                    'aria-hidden="true">💾</span><span>Export &amp; import</span></p>')


def test_names_are_escaped():
    assert section_heading("<img src=x onerror=alert(1)>") == (
        '<h2 class="bpe-nav-section">&lt;img src=x onerror=alert(1)&gt;</h2>')
    page = all_pages()[0]._replace(title='"><script>x</script>', icon="<b>")
    assert "<script>" not in current_item(page) and "<b>" not in current_item(page)
