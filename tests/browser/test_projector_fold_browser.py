"""Projector mode on a classroom projector's 1024x768 screen (issue 45): each page's main view
starts on the first screen, and the page's text, inputs, select values and chart axis text are
at least 1.5 times their size with projector mode off.

One session on the shared server, one tab. Sizes are computed font sizes (the smallest of each
kind on the page); a chart's axis text is read from its SVG (``ui.kit.charts.sized``). Text in a
custom component's shadow root (the front page's box, the stepping view) is measured by
test_projector_browser.py.
"""

from __future__ import annotations

import json

import pytest
from conftest import DEFAULT_TIMEOUT_MS, open_app
from test_app_browser import PAGE_TITLES, no_exception

try:
    from playwright.sync_api import expect
except ImportError:  # conftest.py skips these tests, or fails them when CI=true
    expect = None

pytestmark = [pytest.mark.browser, pytest.mark.timeout(240)]

SCREEN = {"width": 1024, "height": 768}
# Each page's main view: the tokens, the tree, the table, the chart (the first match).
VIEWS = {
    "Start here": "[data-view=yours]",
    "Lesson: BPE step by step": "[data-testid=stMainBlockContainer] h2",
    "Classroom": ".st-key-room_open",
    "Check your BPE": "[data-testid=stMainBlockContainer] [data-testid=stRadio]",
    "Tokens": ".bpe-tokens .t",
    "Step through merges": "[data-testid=bpe-steps] .tokens span",
    "Merge forest": ".st-key-forest_tree_chart svg",
    "Variants of BPE": "[data-testid=stDataFrame], [data-testid=stVegaLiteChart]",
    "Superwords and fair merges": "[data-testid=stDataFrame]",
    "Compare with GPT": ".lesson-table",
    "Export & import": "[data-testid=stDownloadButton]",
    "Bytes & decoding": ".ch",
    "Chat tokens": ".bpe-tokens .t",
    "Language tax": "[data-testid=stVegaLiteChart]",
    "Numbers": "[data-testid=stVegaLiteChart]",
    "Vocabulary health": "[data-testid=stDataFrame]",
    "Report card": "[data-testid=stDataFrame], [data-testid=stVegaLiteChart]",
}
# The smallest computed font size of each kind of text in the main column (visible, with text
# in them), in CSS pixels; a kind the page does not show is left out.
KINDS = {
    "text": "p, li",
    "caption": "[data-testid=stCaptionContainer]",
    "label": "[data-testid=stWidgetLabel] p",
    "title": "h1",
    "header": "h2",
    "subheader": "h3",
    "input": "input[type=text]:not([role=combobox]), input[type=number], input[type=password]",
    "textarea": "textarea",
    "select": "[data-testid=stSelectbox] input[role=combobox]",  # its value is the input's
    "axis": "[data-testid=stVegaLiteChart] svg .role-axis-label text, "
            "[data-testid=stVegaLiteChart] svg .role-axis-title text",
}
SIZES_JS = """kinds => {
  const main = document.querySelector('[data-testid=stMainBlockContainer]');
  const own = e => ['INPUT', 'TEXTAREA'].includes(e.tagName) || !!e.textContent.trim();
  const out = {};
  for (const [kind, selector] of Object.entries(kinds)) {
    const sizes = [...main.querySelectorAll(selector)]
      .filter(e => e.getClientRects().length && own(e) && !e.closest('[hidden]'))
      .map(e => parseFloat(getComputedStyle(e).fontSize));
    if (sizes.length) out[kind] = Math.min(...sizes);
  }
  return out;
}"""
# What is cut: a select's value wider than its box, a table that scrolls sideways in its box.
CUT_JS = """() => {
  const main = document.querySelector('[data-testid=stMainBlockContainer]');
  const cut = [];
  for (const e of main.querySelectorAll('[data-testid=stSelectbox] input, .lesson-table-wrap'))
    if (e.getClientRects().length && e.scrollWidth > e.clientWidth + 1)
      cut.push((e.value || e.innerText || '').slice(0, 40));
  return cut;
}"""
# (Variants of BPE: the pages above now go from h1 to h2, and it keeps h3s under its h2)
NORMAL_PAGES = ("Check your BPE", "Step through merges", "Chat tokens", "Language tax",
                "Variants of BPE")


def view_top(app, title: str) -> float:
    view = app.page.locator(VIEWS[title]).first
    view.wait_for(state="attached")
    return view.evaluate("e => e.getBoundingClientRect().top")


def test_projector_mode_at_1024x768_shows_each_main_view_large(browser, app_url):
    context = browser.new_context(viewport=SCREEN)
    context.set_default_timeout(DEFAULT_TIMEOUT_MS)
    try:
        app = open_app(context, app_url)
        normal: dict[str, float] = {}
        for title in NORMAL_PAGES:  # Streamlit's sizes: each kind the same on every page
            app.go(title, app.page.locator(VIEWS[title]))
            for kind, px in app.page.evaluate(SIZES_JS, KINDS).items():
                normal[kind] = max(normal.get(kind, 0), px)
        assert set(normal) == set(KINDS), normal  # every kind measured with projector mode off

        app.sidebar.locator(".st-key-projector label").first.click()
        app.wait_idle(app.sidebar.locator(".st-key-projector input[type=checkbox]:checked"))
        low, small, cut, seen = {}, {}, {}, set()
        for title in [t for t in PAGE_TITLES if t != "Start here"] + ["Start here"]:
            app.go(title, app.page.locator(VIEWS[title]))
            no_exception(app)
            top = view_top(app, title)
            if top >= SCREEN["height"]:
                low[title] = round(top)
            if title == "Chat tokens":  # the messages, folded above the tokens
                app.main.get_by_text("The conversation and its format").click()
                app.main.locator("textarea").first.wait_for()
            sizes = app.page.evaluate(SIZES_JS, KINDS)
            seen |= set(sizes)
            under = {k: (px, normal[k]) for k, px in sizes.items() if px < 1.5 * normal[k] - 0.01}
            if under:
                small[title] = under
            if app.page.evaluate(CUT_JS):
                cut[title] = app.page.evaluate(CUT_JS)
        # the front page's two views beside each other, GPT-4o's on the first screen too
        yours = app.page.locator("[data-view=yours]").bounding_box()
        theirs = app.page.locator("[data-view=gpt-4o]").bounding_box()
        found = {"below the first screen": low, "under 1.5 times (projector, normal)": small,
                 "cut, or scrolling sideways": cut}
        assert found == {k: {} for k in found}, json.dumps(found, indent=1)
        assert theirs["x"] >= yours["x"] + yours["width"], (yours, theirs)
        assert theirs["y"] < SCREEN["height"], (yours, theirs)
        assert seen == set(KINDS), seen  # every kind measured in projector mode too
    finally:
        context.close()
