"""Projector mode in Chromium: tables, code and the Merge forest's labels at least 1.5 times their
normal size; a table shown full screen fits the screen; a table's row selection still picks the
row the teacher clicks.

An ``st.dataframe`` draws its text on a canvas, so its size is read as the grid's own font (the
``--gdg-base-font-style`` it draws with) times the zoom the page applies to it, and as the
rendered height of its box. The other sizes are computed font sizes.
"""

from __future__ import annotations

import pytest
from conftest import DEFAULT_TIMEOUT_MS, open_app
from test_app_browser import PAGE_TITLES, no_cut_labels, no_exception, visit_every_page
from test_lesson_browser import font_px

try:
    from playwright.sync_api import expect
except ImportError:  # conftest.py skips these tests, or fails them when CI=true
    expect = None

pytestmark = [pytest.mark.browser, pytest.mark.timeout(180)]

IDLE = "[data-testid=stApp][data-test-script-state=notRunning]"
# A table's drawn text size in CSS pixels of the page, its rendered height, and whether its box
# stays inside its column (the zoom must not push it past the right edge).
TABLE_JS = """e => {
  const grid = e.querySelector('[data-testid=stDataFrame]');
  const font = getComputedStyle(grid.querySelector('canvas'))
    .getPropertyValue('--gdg-base-font-style');  // e.g. "400 14px"; the grid sets it
  const px = parseFloat((font.match(/([0-9.]+)px/) || [0, 'NaN'])[1]);
  const box = grid.getBoundingClientRect();
  const column = e.parentElement.getBoundingClientRect();
  return {font: px * (grid.currentCSSZoom ?? 1), height: box.height,
          inside: box.right <= column.right + 1};
}"""


def table(page, key: str | None = None) -> dict:
    """The table whose widget key is ``key``; without one, the page's first table (a table
    without row selection has no key class)."""
    frames = page.get_by_test_id("stMain").locator(".stElementContainer:has([data-testid=stDataFrame])")
    box = frames.first if key is None else page.locator(f".st-key-{key}")
    box.locator("canvas").first.wait_for()
    return box.evaluate(TABLE_JS)


def first_health_table(page) -> str:
    """The key of the first table of tokens of one kind on the Vocabulary health page."""
    keys = page.locator("[class*=st-key-health_table_]").first.get_attribute("class")
    return next(c for c in keys.split() if c.startswith("st-key-"))[len("st-key-"):]


def label_px(page) -> float:
    """The font size of the token tree's node labels (the chart is SVG: ui.forest.chart)."""
    text = page.locator(".st-key-forest_tree_chart svg text").filter(has_text="·the").first
    return float(text.evaluate("e => parseFloat(getComputedStyle(e).fontSize)"))


def test_projector_mode_enlarges_tables_code_and_the_forest(app):
    page = app.page
    tokens_code = app.main.get_by_test_id("stCode").locator("code").first

    def visit(title: str, *expected) -> None:
        app.go(title, *expected)
        no_exception(app)

    def open_token_ids() -> None:
        app.main.get_by_text("Token ids (", exact=False).first.click()
        tokens_code.wait_for()

    # -- normal sizes ---------------------------------------------------------------------------
    visit("Vocabulary health", page.locator("[class*=st-key-health_table_] canvas").first)
    key = first_health_table(page)
    normal_table, normal_summary = table(page, key), table(page)
    assert 12 <= normal_table["font"] <= 16, normal_table  # Streamlit's 0.875rem
    visit("Merge forest", page.locator(".st-key-forest_tree_chart svg text").first)
    normal_label = label_px(page)
    compare_cell = app.main.locator(".lesson-table td").first  # Compare's HTML summary table
    visit("Compare with GPT", compare_cell)
    normal_compare = font_px(compare_cell)
    visit("Tokens", app.main.locator(".bpe-tokens .t").first)
    open_token_ids()
    normal_code = font_px(tokens_code)

    app.sidebar.locator(".st-key-projector label").first.click()
    page.locator(".st-key-projector input[type=checkbox]:checked").wait_for(state="attached")
    page.locator(IDLE).wait_for(state="attached")

    # -- projector sizes ------------------------------------------------------------------------
    if not tokens_code.is_visible():
        open_token_ids()
    assert font_px(tokens_code) >= 1.5 * normal_code, (normal_code, font_px(tokens_code))
    visit("Compare with GPT", compare_cell)
    assert font_px(compare_cell) >= 1.5 * normal_compare, (normal_compare, font_px(compare_cell))
    visit("Merge forest", page.locator(".st-key-forest_tree_chart svg text").first)
    assert label_px(page) >= 1.5 * normal_label, (normal_label, label_px(page))
    visit("Vocabulary health", page.locator(f".st-key-{key} canvas"))
    for name, normal in ((key, normal_table), (None, normal_summary)):
        large = table(page, name)
        assert large["font"] >= 1.5 * normal["font"], (name, normal, large)
        assert large["height"] >= 1.5 * normal["height"], (name, normal, large)
        assert large["inside"], f"the enlarged table {name or 'Summary'} runs past its column"

    # -- full screen: the table fills the screen at its normal size, not 1.6 screens ------------
    frame = page.locator(f".st-key-{key}")
    frame.hover()
    frame.get_by_role("button", name="Fullscreen").click()
    close = frame.get_by_role("button", name="Close fullscreen")
    expect(close).to_be_visible()
    full = frame.get_by_test_id("stDataFrame").bounding_box()
    assert full["x"] + full["width"] <= page.viewport_size["width"] + 1, full
    close.click()
    expect(close).to_have_count(0)

    # -- the enlarged table still selects the row clicked ---------------------------------------
    # Row 3's id, as the grid gives it to screen readers (column 1 is "id"; column 0 the marker).
    row_id = page.locator(f".st-key-{key} #glide-cell-1-2").text_content().strip()
    grid = page.locator(f".st-key-{key} [data-testid=stDataFrame]")
    box, zoom = grid.bounding_box(), grid.evaluate("e => e.currentCSSZoom")
    # the row marker of the third row: header and rows are 35 px each before the zoom
    page.mouse.click(box["x"] + 16 * zoom, box["y"] + (35 + 2 * 35 + 17) * zoom)
    slug = key[len("health_table_"):]
    button = page.locator(f".st-key-health_open_{slug} button:visible")  # (a hidden copy too)
    expect(button).to_be_enabled()
    button.click()
    expect(page.locator(".st-key-forest_tree_chart")).to_contain_text(f"(id {row_id})")
    no_exception(app)


def test_projector_mode_enlarges_every_token_view_and_the_lessons_tables(app):
    """Each text-bearing view at 1.5 times its normal size or more: the front page's two token
    views (in a component's shadow root), Compare's four, the Chat page's, the stepping view's and
    the Lesson's tables (a grid normally, an HTML table in projector mode)."""
    page = app.page
    views = {  # page -> the views whose text size is measured (each drawn once it has a token)
        "Start here": "[data-view=yours] .bpe-tokens",
        "Compare with GPT": ".bpe-compare .bpe-tokens",
        "Chat tokens": ".bpe-tokens",
        "Step through merges": "[data-testid=bpe-steps] .tokens",
    }

    def sizes() -> dict[str, list[float]]:
        out = {}
        for title, selector in views.items():
            app.go(title, page.locator(f"{selector} span").first)
            no_exception(app)
            texts = page.locator(selector)
            out[title] = [font_px(texts.nth(i)) for i in range(texts.count())]
        return out

    normal = sizes()
    assert len(normal["Compare with GPT"]) == 4, normal  # yours and the three GPT presets
    app.go("Lesson: BPE step by step", app.main.get_by_test_id("stDataFrame").first)
    normal_lesson = table(page)["font"]  # its first step's first table: the text's characters

    app.sidebar.locator(".st-key-projector label").first.click()
    page.locator(".st-key-projector input[type=checkbox]:checked").wait_for(state="attached")
    page.locator(IDLE).wait_for(state="attached")

    lesson_cell = app.main.locator(".lesson-table.large td").first
    app.go("Lesson: BPE step by step", lesson_cell)
    assert font_px(lesson_cell) >= 1.5 * normal_lesson, (normal_lesson, font_px(lesson_cell))
    large = sizes()
    for title, before in normal.items():
        after = large[title]
        assert len(after) == len(before), (title, before, after)
        assert all(a >= 1.5 * b for a, b in zip(after, before)), (title, before, after)


@pytest.mark.parametrize("projector", [False, True], ids=["normal", "projector"])
def test_a_1024x768_projector_walk_cuts_no_label(browser, app_url, projector):
    """Every page on a classroom projector's 1024x768 screen, projector mode off and on: no text
    cut off with an ellipsis or clipped, no page that scrolls sideways."""
    context = browser.new_context(viewport={"width": 1024, "height": 768})
    context.set_default_timeout(DEFAULT_TIMEOUT_MS)
    try:
        app = open_app(context, app_url)
        if projector:
            app.sidebar.locator(".st-key-projector label").first.click()
            app.wait_idle(app.sidebar.locator(".st-key-projector input[type=checkbox]:checked"))
        cuts, sideways = {}, {}

        def check() -> None:
            no_exception(app)
            no_cut_labels(app, cuts, sideways)

        assert sorted(visit_every_page(app, check)) == sorted(PAGE_TITLES)
        assert cuts == {}, f"text cut at 1024x768 (projector {projector}): {cuts}"
        assert sideways == {}, f"pages that scroll sideways at 1024x768: {sideways}"
    finally:
        context.close()
