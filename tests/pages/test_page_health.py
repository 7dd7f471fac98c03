"""AppTest tests for the Vocabulary health page: the summary and the lists, a GPT preset, the link
to the merge forest, and a hostile search."""

from __future__ import annotations

import re
from collections import Counter

import pytest
from support import open_page

from bpe_lab.who_pays.health import HEALTH_KINDS, classify_tokens, health_summary

HOSTILE = '<img src=x onerror="alert(1)"><b>x</b>'
RAW_TAG = re.compile(r"(?<!\\)<(img|b)")  # a tag not backslash-escaped (Markdown would render it)


@pytest.fixture
def at():
    return open_page("pages/health.py")


def summary(app) -> dict[str, int]:
    frame = next(d for d in app.dataframe if "% of the vocabulary" in d.value.columns).value
    return dict(zip(frame["kind"], frame["tokens"], strict=True))


def lists(app) -> list:
    return [d.value for d in app.dataframe if "why" in d.value.columns]


def test_the_trained_tokenizer_gets_a_summary_and_a_list_per_kind(at):
    tok, text = at.session_state["tok"], at.session_state["text"]
    expected = health_summary(classify_tokens(tok, Counter(tok.encode(text, "all"))))
    assert summary(at) == {k.kind: k.tokens for k in expected}
    assert sum(summary(at).values()) == tok.vocab_size  # no special tokens by default
    headers = [h.value for h in at.header]
    assert headers[0] == "Summary"
    assert len(headers) == 1 + len(HEALTH_KINDS)
    # a table for each kind that has tokens, a note for each that has none
    assert len(lists(at)) == sum(1 for k in expected if k.tokens)
    assert len(at.success) == sum(1 for k in expected if not k.tokens)
    partial = lists(at)[0]
    assert len(partial) == 128 and partial["token"].iloc[0] == "⟨80⟩"


def test_a_gpt_preset_against_another_pattern(at):
    at.selectbox(key="kind").set_value("Pretrained: GPT-2").run()
    assert not at.exception
    assert summary(at)["unreachable by the split pattern"] == 0
    assert all(len(frame) <= 1_000 for frame in lists(at))
    assert any("more: search to narrow" in c.value for c in at.caption)
    at.selectbox(key="health_pattern").set_value("GPT-4").run()
    assert not at.exception
    assert summary(at)["unreachable by the split pattern"] == 805
    at.text_input(key="health_search_unreachable").set_value("123").run()
    found = lists(at)[1]
    assert 17031 in found["id"].tolist()  # " 123": GPT-4 cuts the space off the digits
    assert found["token"].str.contains("123").all()


def test_a_selected_row_opens_its_tree_in_the_forest(at):
    button = at.button(key="health_open_stepping")
    assert button.disabled  # nothing selected yet
    # the stepping stones' list: each says how rarely it is produced on its own
    frame = next(f for f in lists(at) if f["why"].str.endswith("on its own)").all())
    at.session_state["health_table_stepping"] = {"selection": {"rows": [1], "columns": []}}
    at.run()
    picked = int(frame["id"].iloc[1])
    at.button(key="health_open_stepping").click().run()
    assert not at.exception
    assert at.title[0].value == "Merge forest"
    assert at.text_input(key="forest_token").value == str(picked)


def test_a_hostile_search_stays_text(at):
    at.text_input(key="health_search_healthy").set_value(HOSTILE).run()
    assert not at.exception
    note = next(i.value for i in at.info if "No token of this kind matches" in i.value)
    assert not RAW_TAG.search(note) and "\\<img" in note
