"""AppTest tests of the front page, "Start here" (pages/overview.py): the typed text's tokens under
the user's tokenizer and GPT-4o (tiktoken's counts), the ways on, and the hint when most tokens
are single bytes (also on the Tokens and Step through pages)."""

from __future__ import annotations

from collections import Counter

import pytest
from parity_corpus import tiktoken_reference
from support import front_box, front_counts, open_page

from bpe_lab.who_pays.languages import load_parallel
from ui.front.component import MAX_FRONT_CHARS


def shown_tokens(at, which: str) -> int:
    return len(front_box(at)["views"][which]["ids"])


def drawn_text(at, which: str) -> str:
    """The view's text as the component draws it: each token's label parts, as plain text."""
    view = front_box(at)["views"][which]
    return "".join("".join(part for _, part in view["labels"][str(i)][0]) for i in view["ids"])


@pytest.fixture
def at():
    return open_page()  # the default page: Start here


def test_the_front_page_shows_the_sidebar_text_under_both_tokenizers(at):
    assert at.title[0].value == "Start here"
    text = at.text_area(key="text").value
    assert len(text) <= MAX_FRONT_CHARS and at.session_state["front_text"] == text
    tok = at.session_state["tok"]
    mine = len(tok.encode(text))
    theirs = len(tiktoken_reference("o200k_base").encode(text))
    assert shown_tokens(at, "yours") == mine
    assert shown_tokens(at, "gpt-4o") == theirs
    n_bytes = len(text.encode())
    assert front_counts(at)["Tokens"] == f"{mine:,}"
    assert front_counts(at)["GPT-4o tokens"] == f"{theirs:,}"
    assert front_counts(at)["Bytes per token"] == f"{n_bytes / mine:.2f}"
    assert front_counts(at)["GPT-4o bytes per token"] == f"{n_bytes / theirs:.2f}"
    # the ways on
    links = {p.proto.page for p in at.get("page_link")}  # pages by their url path
    assert {"lesson", "steps", "check"} <= links


def test_typed_text_is_tokenized_by_both_and_escaped(at):
    at.session_state["front_text"] = "hello world <b>hi</b>"
    at.run()
    assert not at.exception
    ref = tiktoken_reference("o200k_base").encode("hello world <b>hi</b>")
    assert shown_tokens(at, "gpt-4o") == len(ref)
    assert shown_tokens(at, "yours") == len(at.session_state["tok"].encode("hello world <b>hi</b>"))
    for which in ("yours", "gpt-4o"):  # as text: the component draws parts with textContent
        assert drawn_text(at, which) == "hello world <b>hi</b>"
    assert front_counts(at)["GPT-4o tokens"] == str(len(ref))
    assert front_counts(at)["GPT-4o bytes per token"] == f"{21 / len(ref):.2f}"


def test_the_sidebar_text_counts_say_one_token_not_one_tokens(at):
    at.text_area(key="text").set_value("hello").run()
    at.selectbox(key="kind").set_value("Pretrained: GPT-4o (o200k_base)").run()
    assert front_counts(at)["Tokens"] == "1" and front_counts(at)["GPT-4o bytes per token"] == "5.00"
    assert any("The sidebar's text: 5 bytes, 1 token, 5.00 bytes per token; special tokens read"
               " as text." in c.value for c in at.caption)


def test_a_new_sidebar_text_starts_the_box_again(at):
    at.session_state["front_text"] = "something typed"
    at.run()
    at.text_area(key="text").set_value("a new text for the sidebar").run()
    assert at.session_state["front_text"] == "a new text for the sidebar"
    assert shown_tokens(at, "gpt-4o") == len(
        tiktoken_reference("o200k_base").encode("a new text for the sidebar"))


CHINESE = next(lang.text for lang in load_parallel() if lang.name.startswith("Chinese"))


def hints(at) -> list[str]:
    return [i.value for i in at.info if "single bytes" in i.value]


def test_cjk_at_a_small_vocabulary_says_why_tokens_are_bytes(at):
    at.text_area(key="text").set_value(CHINESE).run()
    at.number_input(key="vocab_size").set_value(300).run()
    at.button(key="train").click().run()
    assert not at.exception
    tok = at.session_state["tok"]
    assert tok.num_merges == 44
    tokens = [tok.vocab[i] for i in tok.encode(CHINESE)]
    single = sum(len(t) == 1 for t in tokens)
    assert single > len(tokens) / 2  # the premise: most tokens are bytes
    common = Counter(c for c in CHINESE if ord(c) > 0x7F).most_common(1)[0][0]
    why = f"{common} is 3: {common.encode().hex(' ')}"
    (front,) = hints(at)
    assert f"{single:,} of {len(tokens):,} tokens" in front and why in front
    assert "only 44 merges" in front
    for page in ("pages/tokens.py", "pages/steps.py"):
        at.switch_page(page).run()
        assert not at.exception
        (hint,) = hints(at)
        assert why in hint and "only 44 merges" in hint


def test_no_hint_when_tokens_are_merged(at):
    assert hints(at) == []
    at.switch_page("pages/tokens.py").run()
    assert hints(at) == []


def test_the_page_shows_the_newest_text_the_box_asked_the_route_about(at):
    """The box asks the route at every key (ui/front/route.py): a learner who leaves the page
    before the box tells the script finds what they typed when they come back."""
    from ui.kit.state import route_heard

    key, seed = at.session_state["_front_route"], at.session_state["_front_seed"]
    route_heard(key, "typed, then left at once", 2_000_000_000_000, seed)
    route_heard(key, "an older text", 1_999_999_999_999, seed)  # late, and older: ignored
    at.switch_page("pages/tokens.py").run()
    at.switch_page("pages/overview.py").run()
    assert front_box(at)["text"] == at.session_state["front_text"] == "typed, then left at once"
    assert shown_tokens(at, "gpt-4o") == len(
        tiktoken_reference("o200k_base").encode("typed, then left at once"))
