"""The app in a real browser: what a user sees after the clicks and keys a user makes.

Each test gets a new Streamlit session (a new browser context) on one shared server; see
conftest.py. Expected numbers come from bpe_core itself: training is deterministic.
"""

from __future__ import annotations

import re

import pytest
from conftest import DEFAULT_TIMEOUT_MS, nav_here, nav_link, nav_titles, open_app

import bpe_core
from ui.kit.navigation import all_pages
from ui.kit.samples import load_samples

try:
    from playwright.sync_api import expect
except ImportError:  # conftest.py skips these tests, or fails them when CI=true
    expect = None

pytestmark = [pytest.mark.browser, pytest.mark.timeout(120)]

SAMPLES = load_samples()
PAGE_TITLES = [page.title for page in all_pages()]  # every page's title, as the sidebar lists them
ENGLISH = SAMPLES["English prose"]
HOSTILE = "<img src=x onerror=\"document.title='pwned'\"><script>document.title='pwned'</script>"


def trained(text: str, vocab_size: int = 512) -> bpe_core.RegexTokenizer:
    tok = bpe_core.RegexTokenizer()  # the sidebar's default: "Train: GPT-4 split"
    tok.train(text, vocab_size)
    return tok


def visit_every_page(app, check) -> list[str]:
    """Open every page through the sidebar, ending on "Start here"; ``check()`` on each."""
    titles = nav_titles(app.page)
    assert {"Start here", "Tokens", "Step through merges", "Merge forest"} <= set(titles)
    h1 = app.main.get_by_role("heading", level=1).first
    here = nav_here(app.page).inner_text().splitlines()[-1]
    for title in [*(t for t in titles if t != here), here]:
        before = h1.inner_text()
        app.go(title)
        expect(h1).not_to_have_text(before)  # every page has a title of its own
        app.wait_idle()
        check()
    if here != "Start here":
        app.go("Start here", app.main.get_by_role("heading", name="Start here"))
    return titles


def no_exception(app) -> None:
    expect(app.page.get_by_test_id("stException")).to_have_count(0)
    expect(app.page.get_by_test_id("stAlertContentError")).to_have_count(0)


def test_first_page_shows_the_sample_and_the_first_click_on_train_retrains(first_app):
    app, sidebar = first_app, first_app.sidebar
    expect(sidebar.get_by_role("combobox", name="Sample text")).to_have_value("English prose")
    expect(sidebar.get_by_label("Text", exact=True)).to_have_value(ENGLISH)
    tok = trained(ENGLISH)
    expect(app.metric("Tokens")).to_have_text(f"{len(tok.encode(ENGLISH)):,}")
    expect(app.main.get_by_role("heading", name=f"Merges ({tok.num_merges})")).to_be_visible()

    box = sidebar.get_by_label("Vocabulary size")
    box.fill("300")
    box.press("Enter")
    app.wait_idle(sidebar.get_by_text("press Train to train on them"))
    # The very first click on Train in the first session of a server must not be dropped.
    app.train(app.main.get_by_role("heading", name="Merges (44)"))
    small = trained(ENGLISH, 300)
    expect(app.metric("Tokens")).to_have_text(f"{len(small.encode(ENGLISH)):,}")
    assert len(small.encode(ENGLISH)) != len(tok.encode(ENGLISH))
    expect(app.main.get_by_text("Yours · GPT-4 split, vocabulary 300")).to_be_visible()
    expect(sidebar.get_by_text("press Train to train on them")).to_have_count(0)


def test_pasted_text_trained_and_shown_as_coloured_tokens(app):
    text = "hello hello world"
    app.set_text(text)
    app.wait_idle(app.sidebar.get_by_text("press Train to train on them"))
    app.train(app.main.get_by_role("heading", name=re.compile(r"^Merges \(\d+\)$")))
    tok = trained(text)
    expect(app.main.get_by_role("heading", name=f"Merges ({tok.num_merges})")).to_be_visible()

    app.go("Tokens", app.main.locator(".bpe-tokens .t").first)
    spans = app.main.locator(".bpe-tokens .t")
    expect(spans).to_have_count(len(tok.encode(text)))
    assert "".join(spans.all_inner_texts()) == text
    expect(app.sidebar.get_by_label("Text", exact=True)).to_have_value(text)


def test_a_paste_longer_than_the_app_keeps_is_cut_and_the_cut_is_said(app):
    """Streamlit's box once refused, without a word, a change longer than its limit (200,000):
    the old text stayed. Now the app keeps the first 200,000 characters and says how many it cut."""
    app.set_text("word " * 50_000)  # 250,000 characters
    app.wait_idle(app.sidebar.get_by_text("press Train to train on them"))
    expect(app.sidebar.get_by_text(
        "Keeping the first 200,000 of 250,000 characters: the last 50,000 were cut.")).to_be_visible()
    expect(app.sidebar.get_by_test_id("stCode")).to_contain_text(
        "bpe-lab train my-text.txt --vocab-size=512 --pattern=gpt4 --out my-text.model")
    kept = app.sidebar.get_by_label("Text", exact=True).input_value()
    assert kept == ("word " * 50_000)[:200_000]


def test_hostile_text_is_shown_as_text_and_never_runs(app):
    app.set_text(HOSTILE)
    app.wait_idle(app.sidebar.get_by_text("press Train to train on them"))
    app.go("Tokens", app.main.locator(".bpe-tokens .t").first)
    spans = app.main.locator(".bpe-tokens .t")
    # Still the tokenizer trained on the English sample, until Train is pressed.
    expect(spans).to_have_count(len(trained(ENGLISH).encode(HOSTILE)))
    expect(app.main.locator(".bpe-tokens").first).to_have_text(HOSTILE)
    app.sidebar.get_by_role("button", name="Train", exact=True).click()
    expect(spans).to_have_count(len(trained(HOSTILE).encode(HOSTILE)))
    app.wait_idle()
    expect(app.main.locator(".bpe-tokens").first).to_have_text(HOSTILE)
    assert app.page.title() != "pwned"
    expect(app.page.locator("img[src=x]")).to_have_count(0)
    expect(app.page.locator(".bpe-tokens script, .bpe-tokens img")).to_have_count(0)
    expect(app.page.get_by_test_id("stSidebar").get_by_label("Text", exact=True)).to_have_value(
        HOSTILE
    )

    def harmless() -> None:
        no_exception(app)
        assert app.page.title() != "pwned"
        expect(app.page.locator("img[src=x]")).to_have_count(0)

    visit_every_page(app, harmless)  # every page shows the text or its tokens in some way
    assert app.page.title() != "pwned"


def test_step_slider_changes_the_token_count(app):
    app.go("Step through merges", app.main.get_by_role("slider", name="Merges applied (k)"))
    tok = trained(ENGLISH)
    counts = tok.step_through(ENGLISH, allowed_special="all").token_counts()
    n = tok.num_merges
    slider = app.main.get_by_role("slider", name="Merges applied (k)")
    tokens = app.metric("Tokens")
    step = app.metric("Step")
    expect(step).to_have_text(f"1 of {n}")  # the page opens at the first merge
    expect(tokens).to_have_text(f"{counts[1]:,}")

    slider.focus()
    slider.press("Home")
    expect(step).to_have_text(f"0 of {n}")
    expect(tokens).to_have_text(f"{counts[0]:,}")
    assert counts[0] == len(ENGLISH.encode("utf-8"))
    app.wait_idle()
    slider.press("ArrowRight")
    expect(step).to_have_text(f"1 of {n}")
    expect(tokens).to_have_text(f"{counts[1]:,}")
    app.wait_idle()
    slider.press("End")
    expect(step).to_have_text(f"{n} of {n}")
    expect(tokens).to_have_text(f"{counts[n]:,}")
    assert counts[n] == len(tok.encode(ENGLISH)) < counts[0]
    # The coloured text follows the slider too: drawn in the browser (ui/stepping/component.py).
    expect(app.main.get_by_test_id("bpe-steps").locator(".tokens span")).to_have_count(counts[n])


def test_merge_forest_draws_the_tree_of_the_token_picked(app):
    charts = app.main.get_by_test_id("stVegaLiteChart")
    app.go("Merge forest", charts.first.locator("svg, canvas").first)
    tok = trained(ENGLISH)
    tree = charts.first
    expect(tree.locator("svg, canvas").first).to_be_visible()
    expect(charts).to_have_count(2)  # the token's tree and the forest of the text
    # the default: the text's most used merged token with a short tree (ui.forest.trees.default_token)
    expect(tree).to_contain_text("·the (id 263)")
    assert tok.vocab[263] == b" the"
    token_id = 349
    assert tok.vocab[token_id] == b" tokenizer"

    box = app.main.get_by_role("textbox", name="Token id or text")
    box.fill(str(token_id))
    box.press("Enter")
    expect(tree).to_contain_text(f"·tokenizer (id {token_id})")
    app.wait_idle()
    expect(tree.locator("svg, canvas").first).to_be_visible()
    expect(app.main.get_by_text(f"“·tokenizer” ({token_id})")).to_be_visible()


def test_export_a_model_and_import_it_back(app, tmp_path):
    download_button = app.main.get_by_role("button", name=re.compile(r"Download minbpe \.model$"))
    app.go("Export & import", download_button)
    with app.page.expect_download() as info:
        download_button.click()
    download = info.value
    assert download.suggested_filename.endswith(".model")
    path = tmp_path / download.suggested_filename
    download.save_as(path)
    tok = bpe_core.load(str(path))
    assert tok.encode(ENGLISH) == trained(ENGLISH).encode(ENGLISH)

    kind = app.sidebar.get_by_role("combobox", name="Tokenizer")
    expect(kind).to_have_value("Train: GPT-4 split")
    upload = app.main.locator("[data-testid=stFileUploader] input[type=file]")
    expect(upload).to_have_count(1)  # the page's uploader, not the sidebar's text upload
    upload.set_input_files(path)
    expect(kind).to_have_value("Imported file")
    app.wait_idle(app.main.get_by_text("Every page now uses this tokenizer"))
    expect(app.sidebar.get_by_text("Using the imported tokenizer from")).to_be_visible()
    expect(app.sidebar).to_contain_text(path.name)
    expect(app.sidebar.get_by_role("button", name="Train", exact=True)).to_be_disabled()

    app.go("Tokens", app.main.locator(".bpe-tokens .t").first)
    expect(app.main.locator(".bpe-tokens .t")).to_have_count(len(tok.encode(ENGLISH)))
    expect(kind).to_have_value("Imported file")


def test_compare_shows_four_token_counts(app):
    heads = app.main.locator(".bpe-compare .bpe-head")
    app.go("Compare with GPT", heads.first)
    expected = {
        "Yours: GPT-4 split, vocabulary 512": len(trained(ENGLISH).encode(ENGLISH)),
        **{
            p["title"]: len(bpe_core.load_pretrained(name).encode(ENGLISH))
            for name, p in bpe_core.PRESETS.items()
        },
    }
    assert len(expected) == 4
    expect(heads).to_have_count(4)
    expect(heads).to_have_text(
        [re.compile(rf"^{re.escape(title)} · {n:,} tokens · ") for title, n in expected.items()]
    )
    expect(app.main.locator(".bpe-compare")).to_have_count(4)
    # the summary table, a row per tokenizer with its count (drawn as a bar)
    summary = app.main.locator("table").first
    for title, n in expected.items():
        expect(summary.locator("tr", has_text=title).locator("td").nth(1)).to_have_text(f"{n:,}")


def test_bytes_page_decodes_pasted_ids(app):
    tab = app.main.get_by_role("tab", name="Ids → text")
    app.go("Bytes & decoding", tab)
    tab.click()
    ids = trained(ENGLISH).encode("Tokens, “quoted” — ok")
    box = app.main.get_by_role("textbox", name="Token ids")
    box.fill(str(ids))
    box.press("Control+Enter")
    n_bytes = len("Tokens, “quoted” — ok".encode())
    expect(app.main.get_by_text(f"{len(ids)} ids → {n_bytes} bytes")).to_be_visible()
    expect(app.main.get_by_test_id("stCode").last).to_have_text("Tokens, “quoted” — ok")


# Text the page cuts: an element drawn with text-overflow: ellipsis (as Streamlit draws metric
# values, labels, page links, tabs and select values), or with overflow hidden and text of its own,
# whose text is wider than its box, and code that runs past the right edge of its block (st.code
# without wrap_lines scrolls sideways). Open shadow roots (the custom components) are searched too.
# Boxes 1 px wide are left out: the "Skip to main content" link is hidden that way on purpose.
CUT_LABELS_JS = """() => {
  const cut = [];
  const visit = (root) => {
    for (const el of root.querySelectorAll('*')) {
      if (el.shadowRoot) visit(el.shadowRoot);
      if (el.clientWidth <= 1 || !el.textContent.trim()) continue;
      const style = getComputedStyle(el);
      const code = el.tagName === 'PRE' && el.closest('[data-testid=stCode]');
      const clips = ['hidden', 'clip'].includes(style.overflowX)
        && [...el.childNodes].some(n => n.nodeType === Node.TEXT_NODE && n.textContent.trim());
      if (!code && !clips && style.textOverflow !== 'ellipsis') continue;
      if (el.scrollWidth > el.clientWidth + 1)
        cut.push(`${el.closest('[data-testid]')?.dataset.testid}: ${el.textContent.trim().slice(0, 60)}`);
    }
  };
  visit(document);
  return cut;
}"""
# The page scrolls sideways: the document, or Streamlit's main scroll box, is wider than the
# screen. Then what sticks out past the right edge is named: the outermost elements that do, other
# than those inside a box that scrolls or clips on its own (code, tables, charts, token views).
SIDEWAYS_JS = """() => {
  const main = document.querySelector('[data-testid=stMain]');
  const screen = document.documentElement.clientWidth;
  if (document.documentElement.scrollWidth <= screen + 1 && main.scrollWidth <= main.clientWidth + 1)
    return [];
  const inBox = el => {
    for (let a = el.parentElement; a && a !== main; a = a.parentElement)
      if (getComputedStyle(a).overflowX !== 'visible') return true;
    return false;
  };
  const out = el => el.getBoundingClientRect().width > 0 && el.getBoundingClientRect().right > screen + 1;
  const wide = [...main.querySelectorAll('*')].filter(el => out(el) && !inBox(el) && !out(el.parentElement));
  return [`${main.scrollWidth} px wide on a ${screen} px screen`, ...wide.slice(0, 5).map(el =>
    `${el.closest('[data-testid]')?.dataset.testid} to ${Math.round(el.getBoundingClientRect().right)} px`)];
}"""
WIDE = {"width": 1440, "height": 2200}
PHONE = {"width": 390, "height": 844}  # a phone held upright (an iPhone 12 to 15)


def no_cut_labels(app, cuts: dict, sideways: dict | None = None) -> None:
    """Record in ``cuts`` the page's cut text, and in ``sideways`` (if given) why it scrolls
    sideways, under the page's title."""
    here = nav_here(app.page).inner_text()
    title = here.splitlines()[-1]
    found = app.page.evaluate(CUT_LABELS_JS)
    if found:
        cuts[title] = found
    wide = app.page.evaluate(SIDEWAYS_JS) if sideways is not None else []
    if wide:
        sideways[title] = wide


@pytest.mark.parametrize("viewport", [WIDE, PHONE], ids=lambda v: f"{v['width']}px")
def test_every_page_opens_without_an_exception_or_a_cut_label(browser, app_url, viewport):
    """Every page in one session at this width (on a phone the sidebar opens for each link):
    no exception, no text cut off, no page that scrolls sideways."""
    context = browser.new_context(viewport=viewport)  # a phone's first visit, sidebar closed
    context.set_default_timeout(DEFAULT_TIMEOUT_MS)
    try:
        app = open_app(context, app_url)
        cuts, sideways = {}, {}

        def check():
            no_exception(app)
            no_cut_labels(app, cuts, sideways)

        titles = visit_every_page(app, check)
        width = viewport["width"]
        assert cuts == {}, f"text cut with an ellipsis at {width} px: {cuts}"
        assert sideways == {}, f"pages that scroll sideways at {width} px: {sideways}"
        # every page's link is shown, none folded under "View more"
        assert sorted(titles) == sorted(PAGE_TITLES)
        # Back on the first page in the same session: still the English sample, still trained.
        expect(app.main.get_by_role("heading", name="Merges (256)")).to_be_visible()
        count = f"{len(trained(ENGLISH).encode(ENGLISH)):,}"
        expect(app.main.get_by_text(count, exact=True).first).to_be_visible()
    finally:
        context.close()


# Chromium's own emulation of a phone's browser: its user agent says "Mobile".
PHONE_AGENT = ("Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) "
               "Chrome/131.0.0.0 Mobile Safari/537.36")


@pytest.mark.parametrize("mobile", [True, False], ids=["phone browser", "narrow desktop"])
def test_a_tap_on_a_page_closes_the_sidebar_on_a_phone_only(browser, app_url, mobile):
    """On a phone's browser a tap on a page in the sidebar closes the sidebar over the new page,
    as Streamlit's own navigation did; a desktop browser as narrow keeps it open, as it did."""
    agent = {"user_agent": PHONE_AGENT, "is_mobile": True, "has_touch": True} if mobile else {}
    context = browser.new_context(viewport=PHONE, **agent)
    context.set_default_timeout(DEFAULT_TIMEOUT_MS)
    try:
        app = open_app(context, app_url)
        sidebar = app.sidebar
        assert sidebar.get_attribute("data-collapsed") == "true"  # a narrow screen starts closed
        app.page.get_by_test_id("stExpandSidebarButton").click()
        expect(sidebar).to_have_attribute("data-collapsed", "false")
        nav_link(app.page, "Tokens").click()
        app.wait_idle(nav_here(app.page, "Tokens"))
        expect(sidebar).to_have_attribute("data-collapsed", "true" if mobile else "false")
        if mobile:  # and it opens again for the next page, which closes it again
            app.page.get_by_test_id("stExpandSidebarButton").click()
            expect(sidebar).to_have_attribute("data-collapsed", "false")
            nav_link(app.page, "Merge forest").click()
            app.wait_idle(nav_here(app.page, "Merge forest"))
            expect(sidebar).to_have_attribute("data-collapsed", "true")
    finally:
        context.close()
