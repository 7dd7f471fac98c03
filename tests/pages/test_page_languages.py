"""AppTest tests for the Language tax page: the chart and table of every language, the user's own
texts (hostile ones stay text), and the one-click English-only against all-languages training."""

from __future__ import annotations

import html
import re

import pytest
from support import open_page

import bpe_core
import bpe_lab.who_pays.costs
from bpe_lab.who_pays.languages import load_parallel
from ui.kit.state import PAGE_CSS
from ui.who_pays.languages import COMPARISON_COLUMNS, COST_COLUMNS, MAX_OWN_CHARS

NAMES = [lang.name for lang in load_parallel()]
HOSTILE = ("name: <img src=x onerror=alert(1)> **b**\nA [link](javascript:alert(1)) and "
           "<script>alert(2)</script>\x07 text\n---\n<b>bold</b> words [x](http://e.co)")


@pytest.fixture(scope="module")
def at():
    return open_page("pages/languages.py")


def table(app, columns) -> dict[str, dict]:
    frame = next(d for d in app.dataframe if list(d.value.columns) == columns).value
    return {row["language"]: row for row in frame.to_dict("records")}


def test_the_page_shows_every_language_in_a_chart_and_a_table(at):
    assert not at.exception
    assert at.multiselect(key="languages_which").value == ["Yours", "GPT-4o (o200k_base)"]
    assert len(at.get("vega_lite_chart")) == 1
    rows = table(at, COST_COLUMNS)
    assert sorted(rows) == sorted(NAMES)
    assert rows["English"]["× English"] == 1.0
    assert rows["Thai"]["tokens/word"] == "—" and rows["English"]["tokens/word"] != "—"
    tax = [m.value for m in at.markdown if " costs **" in m.value]
    assert len(tax) == 2  # one sentence per tokenizer
    gpt4o = table_for(at, "GPT-4o (o200k_base)")
    dearest = max(gpt4o.values(), key=lambda row: row["× English"])
    assert tax[1] == (f"**{dearest['language']}** costs **{dearest['× English']:.1f}×** English "
                      f"under GPT-4o (o200k_base): the same story takes {dearest['tokens']:,} "
                      f"tokens instead of {gpt4o['English']['tokens']:,}.")


def table_for(app, label: str) -> dict[str, dict]:
    app.selectbox(key="languages_table_for").set_value(label).run()
    assert not app.exception
    return table(app, COST_COLUMNS)


def test_hostile_own_texts_join_the_table_and_stay_text(at):
    at.text_area(key="languages_own").set_value(HOSTILE).run()
    assert not at.exception
    rows = table_for(at, "Yours")
    assert "<img src=x onerror=alert(1)> **b**" in rows  # shown as text in the table
    assert "<b>bold</b> words [x](http://e.co)" in rows
    assert len(rows) == len(NAMES) + 2
    shown = [m.value for m in [*at.markdown, *at.caption, *at.info]]
    assert any(r"\<img src\=x onerror\=alert\(1\)\> \*\*b\*\*" in v for v in shown)
    quoting = [v for v in shown if "img src" in v or "bold" in v]
    assert quoting
    for value in quoting:  # every <, >, [ and ] of the names is escaped: no tag, no link
        assert not re.search(r"(?<!\\)[<>\[\]]", value), value
    spec = at.get("vega_lite_chart")[0].proto.spec
    assert "<img src=x onerror=alert(1)> **b**" in spec  # a name in the chart's data, as text
    # no element renders raw HTML (but the app's own CSS, on every page, and the story's
    # sentences, every cell escaped by ui.kit.tables.table_html, the own texts not among them)
    drawn = [h.value for h in at.get("html")]
    assert [h for h in drawn if "in every language, and its tokens" not in h] == [PAGE_CSS]
    assert len(drawn) == 2 and "img src" not in drawn[1] and "<b>" not in drawn[1]
    at.text_area(key="languages_own").set_value("").run()


def test_the_button_trains_both_once_and_shows_the_comparison(at, monkeypatch):
    calls = []
    real = bpe_lab.who_pays.costs.train_comparison

    def counting(*args, **kwargs):
        calls.append(args[1:])
        return real(*args, **kwargs)

    monkeypatch.setattr(bpe_lab.who_pays.costs, "train_comparison", counting)
    assert not [d for d in at.dataframe if list(d.value.columns) == COMPARISON_COLUMNS]
    at.button(key="languages_train").click().run()
    assert not at.exception
    rows = table(at, COMPARISON_COLUMNS)
    assert sorted(rows) == sorted(NAMES)
    assert rows["English"]["English only"] == rows["English"]["every language"] == 1.0
    assert rows["Burmese"]["English only"] > rows["Burmese"]["every language"]
    assert any(m.value.startswith("Trained on English only, **") for m in at.markdown)
    # vocab 512 (the sidebar's): eleven English sentences run out of pairs before 256 merges
    assert any("The English-only tokenizer made" in c.value for c in at.caption)
    assert len(at.get("vega_lite_chart")) == 2
    at.selectbox(key="languages_table_for").set_value("GPT-4o (o200k_base)").run()
    at.run()
    assert table(at, COMPARISON_COLUMNS) == rows  # still shown, not trained again
    assert calls == [(512, bpe_core.GPT4_SPLIT_PATTERN)]


ROW = re.compile(r'<tr><td>([^<]*)</td><td lang="([^"]+)" dir="auto">([^<]*)</td>'
                 r'<td class="num">([\d,]+)</td><td class="num">([\d,]+)</td></tr>')


def test_the_story_is_read_a_sentence_at_a_time_each_in_its_own_language(at):
    """Every row's sentence carries its language's lang (and dir="auto": Arabic, Persian, Urdu
    and Hebrew run right to left), with its tokens under each tokenizer chosen."""
    languages = load_parallel()
    gpt4o = bpe_core.load_pretrained("o200k_base")
    for line in (0, 4):
        at.selectbox(key="languages_sentence").set_value(line).run()
        assert not at.exception
        [table] = [h.value for h in at.html if f"Sentence {line + 1} in every language" in h.value]
        rows = ROW.findall(table)
        assert [(name, lang) for name, lang, *_ in rows] == [(x.name, x.lang) for x in languages]
        for (_, _, sentence, yours, theirs), language in zip(rows, languages, strict=True):
            text = language.lines[line]
            assert html.unescape(sentence) == text
            assert int(yours.replace(",", "")) == len(at.session_state["tok"].encode_ordinary(text))
            assert int(theirs.replace(",", "")) == len(gpt4o.encode_ordinary(text))
    assert dict(r[:2] for r in rows)["Emoji"] == "zxx"
    assert dict(r[:2] for r in rows)["Chinese (Simplified)"] == "zh-Hans"


def test_own_texts_longer_than_the_page_measures_are_cut_with_how_much(at):
    at.text_area(key="languages_own").set_value("name: long\n" + "ab " * 15_000).run()  # 45,011
    assert not at.exception
    assert len(at.session_state["languages_own"]) == MAX_OWN_CHARS
    assert ("Keeping the first 20,000 of 45,011 characters: the last 25,011 were cut."
            in [i.value for i in at.info])
    assert "long" in table_for(at, "Yours")
    at.text_area(key="languages_own").set_value("").run()
    assert not any("were cut" in i.value for i in at.info)
