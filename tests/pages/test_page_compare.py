"""AppTest tests for the Compare page: counts, coloured views, escaping, messages."""

from pathlib import Path

import pytest
from support import html_table, open_page

APP = str(Path(__file__).resolve().parents[2] / "app.py")
PRESET_TITLES = ["GPT-2", "GPT-4 (cl100k_base)", "GPT-4o (o200k_base)"]


@pytest.fixture
def at():
    return open_page("pages/compare.py")


def rows(app) -> dict[str, dict]:
    return {r["tokenizer"]: r for r in html_table(app, "tokenizer")}


def test_default_sample_compares_yours_and_the_three_gpt_tokenizers(at):
    table = rows(at)
    assert list(table) == ["Yours: GPT-4 split, vocabulary 512", *PRESET_TITLES]
    assert table["GPT-4 (cl100k_base)"]["vocabulary size"] == 100261
    # a 512-token vocabulary needs more tokens than any GPT vocabulary
    assert table["Yours: GPT-4 split, vocabulary 512"]["tokens"] > table["GPT-2"]["tokens"]
    views = [h.value for h in at.html if 'class="bpe-compare"' in h.value]
    assert len(views) == 4
    # the counts are drawn as bars in the table, the largest count a full bar
    summary = next(h.value for h in at.html if "<th>tokenizer</th>" in h.value)
    most = max(r["tokens"] for r in table.values())
    assert summary.count("linear-gradient") == 4
    assert f"100.0%, transparent 100.0%)\">{most:,}</td>" in summary
    assert html_table(at, "word")  # the words they disagree on


def test_first_visit_sends_no_chart_no_data_grid_and_one_stylesheet_for_the_views(at):
    """Work bound on the first visit (each kind of element costs the browser its scripts, each
    <style> a restyle of the page): the tables are HTML, the counts' bars in the summary, with no
    chart or data grid; the four views carry the token stylesheet once between them."""
    assert not at.get("vega_lite_chart") and not at.dataframe and not at.table
    views = [h.value for h in at.html if 'class="bpe-compare"' in h.value]
    assert len(views) == 4
    assert [v.count("<style>") for v in views] == [2, 0, 0, 0]


def test_known_counts_for_hello_world(at):
    at.text_area(key="text").set_value("hello world").run()
    assert not at.exception
    table = rows(at)
    assert table["GPT-4 (cl100k_base)"]["tokens"] == 2  # [15339, 1917]
    assert table["GPT-2"]["tokens"] == 2
    assert table["GPT-4 (cl100k_base)"]["bytes/token"] == 5.5


def test_the_seed_example_marks_gpt2s_extra_cuts(at):
    at.text_area(key="text").set_value("    hello world!!!").run()
    at.multiselect(key="compare_which").set_value(["GPT-2", "GPT-4 (cl100k_base)"]).run()
    assert not at.exception
    table = rows(at)
    assert [table[t]["tokens"] for t in ["GPT-2", "GPT-4 (cl100k_base)"]] == [6, 4]
    gpt2_view, gpt4_view = [h.value for h in at.html if 'class="bpe-compare"' in h.value]
    assert gpt2_view.count(" new") == 2 and gpt4_view.count(" new") == 0
    words = html_table(at, "word")
    assert words == [{"word": "····", "times": 1, "GPT-2": 4, "GPT-4 (cl100k_base)": 2,
                      "spread": 2}]
    at.selectbox(key="compare_marks").set_value("no marks").run()
    at.radio(key="compare_layout").set_value("Stacked").run()
    assert not at.exception
    assert all(" new" not in h.value for h in at.html)


def test_hostile_text_stays_escaped(at):
    hostile = "<script>alert(1)</script><img src=x onerror=alert(2)>"
    at.text_area(key="text").set_value(hostile).run()
    assert not at.exception
    views = [h.value for h in at.html if 'class="bpe-compare"' in h.value]
    assert len(views) == 4
    for body in views:
        assert "<script" not in body and "<img" not in body
        assert "&lt;" in body


def test_empty_text_gives_a_message(at):
    at.text_area(key="text").set_value("").run()
    assert not at.exception
    assert "The text is empty" in at.info[0].value
    assert not [h for h in at.html if "<th>tokenizer</th>" in h.value]


def test_without_a_tokenizer_of_your_own_the_presets_are_compared(at):
    at.selectbox(key="kind").set_value("Imported file").run()  # nothing imported yet
    assert not at.exception
    assert list(rows(at)) == PRESET_TITLES
    assert any("comparing the GPT tokenizers only" in i.value for i in at.info)


def test_a_preset_chosen_in_the_sidebar_is_not_listed_twice(at):
    at.selectbox(key="kind").set_value("Pretrained: GPT-2").run()
    assert not at.exception
    assert list(rows(at)) == PRESET_TITLES


def test_choosing_no_tokenizer_gives_a_message(at):
    at.multiselect(key="compare_which").set_value([]).run()
    assert not at.exception
    assert "Pick at least one tokenizer" in at.info[0].value


def test_first_visit_loads_each_preset_once(monkeypatch):
    """A fresh server: Compare's first visit reads and checks each preset's files once, and
    builds each preset's tokenizer once (later pages and sessions share them)."""
    import streamlit as st

    import bpe_core.pretrained as pretrained

    reads, copies = [], []
    real_gpt2, real_compact, real_load = (pretrained._load_gpt2, pretrained._load_compact,
                                          pretrained.load_pretrained)
    monkeypatch.setattr(pretrained, "_LOADED", {})  # as in a new process
    monkeypatch.setattr(pretrained, "_load_gpt2", lambda d: reads.append("gpt2") or real_gpt2(d))
    monkeypatch.setattr(pretrained, "_load_compact",
                        lambda name, d: reads.append(name) or real_compact(name, d))
    monkeypatch.setattr(pretrained, "load_pretrained",
                        lambda name, *a: copies.append(name) or real_load(name, *a))
    import bpe_core

    monkeypatch.setattr(bpe_core, "load_pretrained", pretrained.load_pretrained)
    st.cache_resource.clear()
    st.cache_data.clear()
    app = open_page("pages/compare.py")
    assert list(rows(app)) == ["Yours: GPT-4 split, vocabulary 512", *PRESET_TITLES]
    assert sorted(reads) == ["cl100k_base", "gpt2", "o200k_base"]
    assert sorted(copies) == ["cl100k_base", "gpt2", "o200k_base"]


def test_the_views_draw_the_same_first_stretch_then_the_whole_text_when_asked(at):
    """Every view starts with the text's first FIRST_VIEW_BYTES (each token that starts before
    it), so they stay side by side on the same words; the checkbox draws all of it."""
    import re

    import bpe_core
    from ui.compare.cuts import FIRST_VIEW_BYTES

    text = at.text_area(key="text").value
    assert len(text.encode()) > FIRST_VIEW_BYTES  # the premise: the sample is longer
    gpt4o = bpe_core.load_pretrained("o200k_base")

    def drawn(app) -> int:  # GPT-4o's view: its coloured spans
        (view,) = [h.value for h in app.html
                   if 'class="bpe-compare"' in h.value and "GPT-4o (o200k_base)" in h.value]
        return len(re.findall(r'<span class="t ', view))

    ids = gpt4o.encode(text, allowed_special="all")
    starts = [0]
    for i in ids:
        starts.append(starts[-1] + len(gpt4o.vocab[i]))
    expected = sum(1 for s in starts[:-1] if s < FIRST_VIEW_BYTES)
    assert drawn(at) == expected < len(ids)
    assert any(f"first {FIRST_VIEW_BYTES:,} bytes" in c.value for c in at.caption)
    at.checkbox(key="compare_whole").check().run()
    assert drawn(at) == len(ids)
