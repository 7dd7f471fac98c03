"""The "Who pays for tokens" pages in a real browser: the language tax's chart and the user's own
texts, the numbers' heatmaps, a token of the vocabulary-health lists opened in the merge forest,
and the report card."""

from __future__ import annotations

import pytest
from test_app_browser import ENGLISH, HOSTILE, no_exception, trained

from bpe_lab.who_pays.health import STEPPING_STONE, classify_tokens
from bpe_lab.who_pays.languages import load_parallel

try:
    from playwright.sync_api import expect
except ImportError:  # conftest.py skips these tests, or fails them when CI=true
    expect = None

pytestmark = [pytest.mark.browser, pytest.mark.timeout(180)]


def test_language_tax_draws_every_language_and_keeps_own_text_as_text(app):
    charts = app.main.get_by_test_id("stVegaLiteChart")
    app.go("Language tax", charts.first.locator("svg, canvas").first)
    no_exception(app)
    table = app.main.get_by_test_id("stDataFrame").first
    expect(table).to_be_visible()
    assert len(load_parallel()) >= 25
    app.main.get_by_text("Your own texts: measure them beside the story").click()
    box = app.main.get_by_role("textbox", name="Your texts")
    box.fill("name: mine\n" + HOSTILE)
    box.press("Control+Enter")
    app.wait_idle()
    no_exception(app)
    assert app.page.title() != "pwned"
    expect(app.page.locator("img[src=x]")).to_have_count(0)
    app.main.get_by_role("button", name="Train English-only vs all languages").click()
    app.wait_idle(app.main.get_by_text("English-only", exact=False).first)
    expect(charts).to_have_count(2)  # the tax, and the two trained tokenizers side by side
    no_exception(app)


def test_numbers_and_report_card_render(app):
    charts = app.main.get_by_test_id("stVegaLiteChart")
    app.go("Numbers", charts.first.locator("svg, canvas").first)
    no_exception(app)
    expect(app.main.get_by_text("GPT-4 (cl100k_base) writes every one of the numbers 0–999 as"
                                " one token.")).to_be_visible()
    app.go("Report card", charts.first.locator("svg, canvas").first)
    no_exception(app)
    expect(app.main.get_by_test_id("stDataFrame")).to_have_count(2)  # the card and the speeds
    expect(app.main.get_by_text("time for 1 TB", exact=True)).to_have_count(1)


def test_a_stepping_stone_opens_its_tree_in_the_merge_forest(app):
    tok = trained(ENGLISH)
    stones = [row.id for row in classify_tokens(tok, dict.fromkeys(tok.vocab, 0) | _counts(tok))
              if row.kind == STEPPING_STONE]
    assert stones  # the English sample trained at 512 has tokens later merges swallowed
    app.go("Vocabulary health", app.main.get_by_role("heading", name="Summary"))
    no_exception(app)
    search = app.main.get_by_role("textbox", name="Search by text or id")
    section = search.nth(_stepping_index(app))
    section.fill(str(stones[0]))
    section.press("Enter")
    app.wait_idle()
    tables = app.main.get_by_test_id("stDataFrame")
    table = tables.nth(_stepping_index(app) + 1)  # after the summary
    table.locator("canvas, [role=grid]").first.wait_for()
    table.scroll_into_view_if_needed()
    # select the first row: a click on its checkbox column (the grid draws on a canvas)
    box = table.bounding_box()
    app.page.mouse.click(box["x"] + 14, box["y"] + 53)
    app.wait_idle()
    button = app.main.get_by_role("button", name="Open its tree in the Merge forest")
    button.nth(_stepping_index(app)).click()
    heading = app.main.get_by_role("heading", name="Token tree")
    app.wait_idle(heading)
    no_exception(app)
    text = tok.vocab[stones[0]].decode("utf-8").replace(" ", "·")
    tree = app.main.get_by_test_id("stVegaLiteChart").first
    expect(tree).to_contain_text(f"{text} (id {stones[0]})")


def _counts(tok) -> dict[int, int]:
    counts: dict[int, int] = {}
    for i in tok.encode(ENGLISH):
        counts[i] = counts.get(i, 0) + 1
    return counts


def _stepping_index(app) -> int:
    """The place of the stepping-stone section among the sections that have a list (kinds with
    no token show a note instead of a search box and a table)."""
    headings = app.main.get_by_role("heading", level=2).all_inner_texts()
    listed = [h for h in headings if "(" in h and not h.endswith("(0)")]
    return next(i for i, h in enumerate(listed) if h.lower().startswith("stepping stone"))
