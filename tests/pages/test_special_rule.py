"""One rule for special-token text (issue 34): the same text with ``<|endoftext|>`` in it counts
the same on the front page, Compare and Chat under GPT-4 (cl100k_base), under each choice of the
sidebar, and each count is tiktoken's: ``encode(text, disallowed_special=())`` when special-token
text is read as text (the default), ``encode(text, allowed_special="all")`` when it is read as
the special token. Switching the choice changes every view, and each says which rule applies.
"""

from __future__ import annotations

import re

import pytest
from parity_corpus import tiktoken_reference
from support import front_box, front_counts, html_table, open_page

GPT4 = "Pretrained: GPT-4 (cl100k_base)"
GPT4_ROW = "GPT-4 (cl100k_base)"
CHATML = "GPT-4 / GPT-3.5 (ChatML, cl100k_base)"
TEXT = "The end.<|endoftext|>A new story: 12345 cats.<|endoftext|>  And <|fim_prefix|> too."


def reference(rule: str) -> int:
    """tiktoken's count of TEXT under cl100k_base, read by ``rule``."""
    enc = tiktoken_reference("cl100k_base")
    if rule == "text":
        return len(enc.encode(TEXT, disallowed_special=()))
    return len(enc.encode(TEXT, allowed_special="all"))


def plain(app) -> list[str]:
    """The page's captions with Markdown's backslash escapes undone (what the learner reads)."""
    return [re.sub(r"\\(.)", r"\1", c.value) for c in app.caption]


def front_count(app) -> int:
    return int(front_counts(app)["Tokens"].replace(",", ""))


def compare_count(app) -> int:
    return {r["tokenizer"]: r["tokens"] for r in html_table(app, "tokenizer")}[GPT4_ROW]


def chat_count(app) -> int:
    """The text tokens of message 2, the user's, where the test typed TEXT."""
    table = app.dataframe[0].value  # the counts per message
    return int(table.loc[table["message"] == "2. user", "text tokens"].iloc[0])


def on_chat(app) -> None:
    app.switch_page("pages/chat.py").run()
    app.text_area(key="chat_text_1").set_value(TEXT).run()
    app.radio(key="chat_format").set_value(CHATML).run()
    assert not app.exception


@pytest.fixture(scope="module")
def app():
    """The app with TEXT in the sidebar and GPT-4 chosen, on the front page."""
    at = open_page()
    at.text_area(key="text").set_value(TEXT).run()
    at.selectbox(key="kind").set_value(GPT4).run()
    assert not at.exception
    return at


def test_the_counts_differ_between_the_rules():
    # the test's text must tell the rules apart: 2 + 1 special tokens or their characters
    assert reference("text") - reference("special") >= 3 * 4


@pytest.mark.parametrize("rule", ["text", "special"])
def test_front_page_compare_and_chat_count_as_tiktoken_under_each_rule(app, rule):
    app.switch_page("pages/overview.py").run()
    app.radio(key="special_rule").set_value(rule).run()
    assert not app.exception and app.radio(key="special_rule").value == rule
    expected = reference(rule)
    assert front_count(app) == expected
    # GPT-4o's view follows the same rule, against its own tiktoken count
    o200k = tiktoken_reference("o200k_base")
    gpt4o = (o200k.encode(TEXT, disallowed_special=()) if rule == "text"
             else o200k.encode(TEXT, allowed_special="all"))
    assert front_box(app)["views"]["gpt-4o"]["ids"] == gpt4o

    app.switch_page("pages/compare.py").run()
    assert not app.exception and app.radio(key="special_rule").value == rule  # kept
    assert compare_count(app) == expected

    on_chat(app)
    assert chat_count(app) == expected
    # OpenAI's published rule counts the message's text the same way
    assert any(f"gives {app.metric[0].value} tokens" in c for c in plain(app))


def test_each_count_says_which_rule_applies_and_what_the_text_holds(app):
    app.switch_page("pages/overview.py").run()
    app.radio(key="special_rule").set_value("text").run()
    said = "<|endoftext|> appears 2 times, <|fim_prefix|> appears 1 time; read as text"
    view = front_box(app)["views"]["yours"]
    assert view["note"] == "special tokens read as text · " + said  # beside the box's count
    assert any(f"{reference('text'):,} tokens" in c and said in c for c in plain(app))
    app.switch_page("pages/compare.py").run()
    assert any(c.startswith("Token counts with special tokens read as text") and said in c
               for c in plain(app))
    app.switch_page("pages/tokens.py").run()
    assert any(said in c for c in plain(app))
    app.switch_page("pages/steps.py").run()
    assert any(said in c for c in plain(app))
    on_chat(app)
    assert any(c.startswith("Your messages' text: special tokens read as text") and said in c
               for c in plain(app))
    app.radio(key="special_rule").set_value("special").run()
    assert any("special-token text read as special tokens" in c
               and "; read as the special token" in c for c in plain(app))


def test_switching_the_choice_changes_every_view_and_switching_back_restores_it(app):
    """The one cache keys on the choice: a view never shows the other rule's count."""
    app.switch_page("pages/tokens.py").run()
    app.radio(key="special_rule").set_value("text").run()
    tokens_metric = {m.label: m.value for m in app.metric}["Tokens"]
    assert tokens_metric == f"{reference('text'):,}"
    app.radio(key="special_rule").set_value("special").run()
    assert {m.label: m.value for m in app.metric}["Tokens"] == f"{reference('special'):,}"
    # the ids box follows too: the special token's id is there, once per appearance
    assert sum(c.value.count("100257") for c in app.code) == 2
    app.switch_page("pages/overview.py").run()
    assert front_count(app) == reference("special")
    app.switch_page("pages/compare.py").run()
    assert compare_count(app) == reference("special")
    app.radio(key="special_rule").set_value("text").run()  # back, on another page
    assert compare_count(app) == reference("text")
    app.switch_page("pages/overview.py").run()
    assert front_count(app) == reference("text")
    on_chat(app)
    assert chat_count(app) == reference("text")


def reads_as_special(name: str, special: str) -> bool:
    """tiktoken's answer: under allowed_special="all", is ``special`` one id of ``name``?"""
    return len(tiktoken_reference(name).encode(special, allowed_special="all")) == 1


def test_compares_note_says_which_tokenizer_reads_which_special_text_as_its_token(app):
    """Issue 45: under "Read as special tokens" Compare's note said every special-token text was
    the special token, while a GPT tokenizer without that special token reads it as text."""
    titles = {"gpt2": "GPT-2", "cl100k_base": "GPT-4", "o200k_base": "GPT-4o"}
    special = [t for name, t in titles.items() if reads_as_special(name, "<|fim_prefix|>")]
    text = [t for name, t in titles.items() if not reads_as_special(name, "<|fim_prefix|>")]
    assert special == ["GPT-4"] and text == ["GPT-2", "GPT-4o"]  # the test's text tells them apart
    assert all(reads_as_special(name, "<|endoftext|>") for name in titles)
    app.switch_page("pages/compare.py").run()
    app.radio(key="special_rule").set_value("special").run()
    assert not app.exception
    note = next(c for c in plain(app) if c.startswith("Token counts with"))
    assert "<|endoftext|> appears 2 times: read as the special token" in note, note
    assert ("<|fim_prefix|> appears 1 time: the special token for GPT-4 (cl100k_base); text for "
            "GPT-2 and GPT-4o (o200k_base), which have no such special token") in note, note
    app.radio(key="special_rule").set_value("text").run()  # one reading for all: one note
    note = next(c for c in plain(app) if c.startswith("Token counts with"))
    assert note.endswith("<|endoftext|> appears 2 times, <|fim_prefix|> appears 1 time; read as "
                         "text."), note


def test_compares_note_with_a_special_token_of_yours_alone():
    """The issue's case: <|im_start|> is a special token of the trained tokenizer only."""
    assert not any(reads_as_special(n, "<|im_start|>") for n in ("gpt2", "cl100k_base",
                                                                   "o200k_base"))
    at = open_page()
    at.text_area(key="text").set_value("<|im_start|>user hello there, hello again").run()
    at.text_input(key="specials").set_value("<|im_start|>").run()
    at.button(key="train").click().run()
    at.switch_page("pages/compare.py").run()
    at.radio(key="special_rule").set_value("special").run()
    assert not at.exception
    yours = html_table(at, "tokenizer")[0]
    assert yours["tokenizer"].startswith("Yours")
    note = next(c for c in plain(at) if c.startswith("Token counts with"))
    assert (f"<|im_start|> appears 1 time: the special token for {yours['tokenizer']}; text for "
            "GPT-2, GPT-4 (cl100k_base) and GPT-4o (o200k_base), which have no such "
            "special token") in note, note
