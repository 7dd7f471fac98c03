"""Tests for ui/compare/cuts.py: encodings, cuts, the summary, the coloured views, disagreeing words."""

import pytest

from bpe_core import BasicTokenizer, load_pretrained
from ui.compare.cuts import (
    COMPARE_CSS,
    MAX_SPANS_PER_VIEW,
    SUMMARY_COLUMNS,
    compare_html,
    disagreements,
    encode_all,
    encode_text,
    marked_cuts,
    summary_frame,
    tokens_over,
    visible,
    word_spans,
)
from ui.kit.tokens_html import CSS

SEED_TEXT = "    hello world!!!"  # the seed's example: GPT-2 keeps the spaces apart, GPT-4 does not


@pytest.fixture(scope="module")
def gpt2():
    return load_pretrained("gpt2")


@pytest.fixture(scope="module")
def cl100k():
    return load_pretrained("cl100k_base")


@pytest.fixture(scope="module")
def seed_encodings(gpt2, cl100k):
    return {
        "GPT-2": encode_text("GPT-2", gpt2, SEED_TEXT),
        "GPT-4": encode_text("GPT-4", cl100k, SEED_TEXT),
    }


def test_seed_example_ids_and_byte_offsets(seed_encodings):
    g2, g4 = seed_encodings["GPT-2"], seed_encodings["GPT-4"]
    assert g2.ids == [220, 220, 220, 23748, 995, 10185]
    assert g4.ids == [262, 24748, 1917, 12340]
    assert g2.tokens[:4] == [b" ", b" ", b" ", b" hello"]
    assert list(g2.starts) == [0, 1, 2, 3, 9, 15, 18]
    assert list(g4.starts) == [0, 3, 9, 15, 18]
    assert g2.num_bytes == g4.num_bytes == 18
    assert g2.cuts() == {1, 2, 3, 9, 15}
    assert g4.cuts() == {3, 9, 15}


def test_marked_cuts_modes(seed_encodings):
    cuts = {label: enc.cuts() for label, enc in seed_encodings.items()}
    # GPT-2 cuts between the spaces, GPT-4 does not: those two cuts are GPT-2's alone
    assert marked_cuts(cuts, "some") == {"GPT-2": {1, 2}, "GPT-4": set()}
    assert marked_cuts(cuts, "unique") == {"GPT-2": {1, 2}, "GPT-4": set()}
    assert marked_cuts(cuts, "none") == {"GPT-2": set(), "GPT-4": set()}
    three = {"a": {1, 2, 3}, "b": {2, 3}, "c": {3, 4}}
    assert marked_cuts(three, "some") == {"a": {1, 2}, "b": {2}, "c": {4}}
    assert marked_cuts(three, "unique") == {"a": {1}, "b": set(), "c": {4}}
    assert marked_cuts({"alone": {5}}) == {"alone": set()}  # nothing to disagree with
    with pytest.raises(ValueError, match="unknown marking mode"):
        marked_cuts(three, "most")


def test_summary_frame_counts(seed_encodings):
    frame = summary_frame(seed_encodings, SEED_TEXT)
    assert list(frame.columns) == SUMMARY_COLUMNS
    rows = {r["tokenizer"]: r for r in frame.to_dict("records")}
    assert rows["GPT-2"]["tokens"] == 6 and rows["GPT-4"]["tokens"] == 4
    assert rows["GPT-2"]["bytes/token"] == 3.0 and rows["GPT-4"]["bytes/token"] == 4.5
    assert rows["GPT-2"]["characters/token"] == 3.0 and rows["GPT-4"]["characters/token"] == 4.5
    assert rows["GPT-2"]["vocabulary size"] == 50257
    assert rows["GPT-4"]["vocabulary size"] == 100261


def test_summary_of_empty_text_has_no_division_by_zero(gpt2):
    frame = summary_frame({"GPT-2": encode_text("GPT-2", gpt2, "")}, "")
    assert frame["tokens"].tolist() == [0]
    assert frame["bytes/token"].isna().all()


def test_later_views_leave_out_the_stylesheet_the_first_holds(seed_encodings):
    """A page of several views carries the token stylesheet once (each <style> restyles the
    whole page in the browser); the views themselves are the same."""
    enc = seed_encodings["GPT-2"]
    first, _ = compare_html(enc, {1, 2}, title="GPT-2")
    later, _ = compare_html(enc, {1, 2}, title="GPT-2", css=False)
    assert first.count("<style>") == 2 and "<style>" not in later
    assert first.replace(COMPARE_CSS, "").replace(CSS, "") == later  # the same view otherwise
    assert later.count('class="t ') == 6 and later.count(" new") == 2


def test_compare_html_marks_the_cuts_and_titles(seed_encodings):
    enc = seed_encodings["GPT-2"]
    body, left_out = compare_html(enc, {1, 2}, title="GPT-2")
    assert left_out == 0
    assert body.count('class="t ') == 6
    assert body.count(" new") == 2  # the 2nd and 3rd space start at cuts GPT-4 does not make
    assert "<b>GPT-2</b> · 6 tokens · 3.00 bytes/token" in body
    assert 'class="bpe-compare"' in body


def test_compare_html_escapes_hostile_text_and_titles(gpt2):
    enc = encode_text("<i>x</i>", gpt2, "<script>alert(1)</script><style>*{}</style>")
    body, _ = compare_html(enc, set(), title="<img src=x onerror=alert(1)>")
    assert "<script" not in body and "<img" not in body and "<i>" not in body
    assert "&lt;" in body and "&lt;img" in body
    assert body.count("<style>") == 2  # only the app's own CSS blocks


def test_compare_html_is_bounded():
    tok = BasicTokenizer()
    enc = encode_text("bytes", tok, "ab" * 6000)
    body, left_out = compare_html(enc, set())
    assert left_out == 12_000 - MAX_SPANS_PER_VIEW
    assert body.count('class="t ') == MAX_SPANS_PER_VIEW
    _, left_out = compare_html(enc, set(), max_tokens=10)
    assert left_out == 11_990


def test_special_tokens_are_flagged(gpt2):
    # special-token text read as the special token (the sidebar's second choice)
    enc = encode_text("GPT-2", gpt2, "a<|endoftext|>b", allowed_special="all")
    assert enc.ids == [64, 50256, 65]
    assert enc.special == [False, True, False]
    body, _ = compare_html(enc, set())
    assert "special" in body


def test_special_token_text_is_text_by_default(gpt2):
    enc = encode_text("GPT-2", gpt2, "a<|endoftext|>b")
    assert enc.ids == gpt2.encode("a<|endoftext|>b", disallowed_special=())
    assert 50256 not in enc.ids and not any(enc.special)


def test_encode_all_encodes_each_tokenizer_in_order(gpt2):
    mine = BasicTokenizer()
    out = encode_all({"mine": mine, "GPT-2": gpt2}, "hello")
    assert list(out) == ["mine", "GPT-2"]
    assert out["mine"].ids == list(b"hello") and out["GPT-2"].ids == gpt2.encode("hello")


def test_tokens_over_counts_tokens_touching_a_span():
    starts = [0, 1, 2, 3, 9, 15, 18]  # GPT-2 on the seed text
    assert tokens_over(starts, 0, 4) == 4  # the four spaces touch " ", " ", " ", " hello"
    assert tokens_over(starts, 4, 9) == 1  # "hello"
    assert tokens_over(starts, 15, 18) == 1  # "!!!"
    assert tokens_over(starts, 5, 5) == 0


def test_word_spans_are_byte_offsets():
    spans = word_spans("héllo  wörld!")
    assert spans == [("héllo", 0, 6), ("  ", 6, 8), ("wörld", 8, 14), ("!", 14, 15)]
    assert word_spans("a b c d", max_words=2) == [("a", 0, 1), ("b", 2, 3)]


def test_disagreements_on_the_seed_example(seed_encodings):
    frame = disagreements(seed_encodings, SEED_TEXT)
    assert list(frame.columns) == ["word", "times", "GPT-2", "GPT-4", "spread"]
    # only the run of spaces is cut differently: 4 tokens touch it under GPT-2, 2 under GPT-4
    assert frame.to_dict("records") == [
        {"word": "····", "times": 1, "GPT-2": 4, "GPT-4": 2, "spread": 2}
    ]


def test_disagreements_rank_by_spread(gpt2, cl100k):
    # GPT-2 has a token for a single space only; GPT-4 has tokens for runs of spaces
    text = "a        b   c   d 1234567"
    encodings = {"GPT-2": encode_text("GPT-2", gpt2, text),
                 "GPT-4": encode_text("GPT-4", cl100k, text)}
    assert disagreements(encodings, text).to_dict("records") == [
        {"word": "········", "times": 1, "GPT-2": 8, "GPT-4": 2, "spread": 6},
        {"word": "···", "times": 2, "GPT-2": 3, "GPT-4": 2, "spread": 1},
    ]  # " 123" "45" "67" and "123" "456" "7": three tokens each, so 1234567 is not listed
    assert len(disagreements(encodings, text, top=1)) == 1


def test_agreeing_tokenizers_give_an_empty_table(gpt2):
    enc = {"a": encode_text("a", gpt2, "hello"), "b": encode_text("b", gpt2, "hello")}
    assert disagreements(enc, "hello").empty


def test_lone_surrogates_do_not_crash(gpt2, cl100k):
    text = "a\ud800b  c"
    encodings = {"GPT-2": encode_text("GPT-2", gpt2, text),
                 "GPT-4": encode_text("GPT-4", cl100k, text)}
    assert encodings["GPT-2"].num_bytes == len("a\ufffdb  c".encode())
    frame = summary_frame(encodings, text)
    assert frame["tokens"].min() > 0
    disagreements(encodings, text)
    compare_html(encodings["GPT-2"], set())


def test_visible_shows_invisible_characters():
    assert visible(" \t\n\r") == "·→↵␍"
    assert visible("a\u200db") == "a\\u200db"
    assert visible("<b>") == "<b>"  # table cells are not HTML
