"""The lesson's pure functions (ui/lesson/tutorial.py): each step's answer on known inputs."""

from __future__ import annotations

import doctest
import json
import re

import pytest
import regex

import ui.lesson.tutorial as le
from bpe_core import (
    GPT2_SPLIT_PATTERN,
    GPT4_SPLIT_PATTERN,
    BasicTokenizer,
    RegexTokenizer,
    load_pretrained,
)
from ui.kit.charts import Series, steps_chart
from ui.kit.escape import code_span
from ui.kit.samples import load_samples
from ui.kit.tables import table_html
from ui.kit.tokens_html import pair_label

SAMPLES = load_samples()
TINY = "aaabdaaabac"
HOSTILE = "<script>alert(1)</script>\ud800\x00"


@pytest.fixture(scope="module")
def gpt4():
    return load_pretrained("cl100k_base")


def test_doctests():
    assert doctest.testmod(le).failed == 0


def test_steps_explanations_and_links_line_up():
    assert len(le.STEPS) == len(le.EXPLAIN) == len(le.FULL_PAGE) == 9
    pages = {"pages/bytes.py", "pages/steps.py", "pages/overview.py", "pages/tokens.py",
             "pages/compare.py", "pages/forest.py", "pages/exchange.py"}
    assert all(page in pages for page, _, _ in le.FULL_PAGE)


# -- the lesson text ------------------------------------------------------------------------------


def test_lesson_text_is_bounded_and_encodable():
    text, note = le.lesson_text("x" * 10_000)
    assert len(text) == le.LESSON_CHARS and "first 4,000 of the 10,000" in note
    text, note = le.lesson_text(HOSTILE)
    assert note is None and text == "<script>alert(1)</script>\ufffd\x00"
    text.encode("utf-8")  # no lone surrogate left
    assert le.lesson_text("") == ("", None)
    with pytest.raises(ValueError, match="str"):
        le.lesson_text(b"bytes")


# -- step 1 ---------------------------------------------------------------------------------------


def test_characters_code_points_and_bytes():
    frame = le.char_rows("Aé€😄\n")
    assert list(frame["code point"]) == ["U+0041", "U+00E9", "U+20AC", "U+1F604", "U+000A"]
    assert list(frame["bytes"]) == [1, 2, 3, 4, 1]
    assert list(frame["UTF-8 bytes (hex)"])[3] == "f0 9f 98 84"
    assert list(frame["UTF-8 bytes"])[2] == "226 130 172"
    assert list(frame["character"])[4] == "↵"
    assert len(le.char_rows("x" * 100)) == le.CHAR_ROWS
    s = le.byte_summary("Aé€😄")
    assert (s.characters, s.bytes, s.by_length) == (4, 10, {1: 1, 2: 1, 3: 1, 4: 1})
    assert le.byte_summary("") == le.ByteSummary(0, 0, {1: 0, 2: 0, 3: 0, 4: 0}, None)
    multi = le.multibyte_rows("aébéc😄")
    assert list(multi["character"]) == ["é", "😄"]  # each different character once


def test_visible_makes_invisible_characters_visible():
    assert le.visible(" \t\n\r") == "·→↵␍"
    assert le.visible("\x00\u202e") == "\\x00\\u202e"
    assert le.token_text(b"a\xe2\x82") == "a⟨e2 82⟩"  # the one spelling of every page
    assert pair_label({1: b"<", 2: b" "}, (1, 2)) == "'<' + '·'"


# -- step 2 ---------------------------------------------------------------------------------------


def test_top_pairs_counts_overlapping_pairs_with_the_tie_rule():
    pairs = le.top_pairs(list(TINY.encode()))
    assert pairs[0] == le.PairCount((97, 97), 4, 0)  # "aaa" holds "aa" twice, twice
    assert pairs[1] == le.PairCount((97, 98), 2, 2)
    # count-1 pairs follow in the order they first occur
    assert [p.pair for p in pairs[2:]] == [(98, 100), (100, 97), (98, 97), (97, 99)]
    assert le.top_pairs([1]) == [] and le.top_pairs([]) == []
    assert len(le.top_pairs(list(range(100)))) == le.TOP_PAIRS


@pytest.mark.parametrize("label", list(SAMPLES))
def test_the_top_pair_is_the_first_merge_training_makes(label):
    text, _ = le.lesson_text(SAMPLES[label])
    tok = le.train_lesson(text, 3)
    assert le.top_pairs(list(text.encode()))[0].pair == tok.history[0].pair


def test_pairs_chart_is_sorted_and_larger_in_projector_mode():
    vocab = {i: bytes([i]) for i in range(256)}
    frame = le.pairs_frame(le.top_pairs(list(TINY.encode())), vocab)
    assert frame["pair"][0] == "1. 'a' + 'a'" and frame["count"][0] == 4
    small = le.pairs_chart(frame).to_dict()
    large = le.pairs_chart(frame, large=True).to_dict()
    assert small["config"]["axis"]["labelFontSize"] < large["config"]["axis"]["labelFontSize"]
    assert small["encoding"]["y"]["sort"] == {"field": "rank"}


# -- step 3 ---------------------------------------------------------------------------------------


def test_hand_merge_of_aa():
    done = le.hand_merge(list(TINY.encode()), (97, 97))
    assert done.after == [256, 97, 98, 100, 256, 97, 98, 97, 99]
    assert (len(done.before), len(done.after), done.replaced) == (11, 9, 2)
    items = le.pieces(done.after, {**{i: bytes([i]) for i in range(256)}, 256: b"aa"}, new_id=256)
    assert [p.new for p in items][:2] == [True, False]


# -- step 4 ---------------------------------------------------------------------------------------


def test_one_training_serves_every_slider_position():
    text, _ = le.lesson_text(SAMPLES["English prose"])
    full = le.train_lesson(text)
    assert full.num_merges == le.LESSON_MERGES
    short = le.train_lesson(text, 25)
    assert list(full.merges.items())[:25] == list(short.merges.items())
    steps = full.step_through(text)
    frame = le.ratio_frame(steps.token_counts(), steps.num_bytes)
    assert len(frame) == le.LESSON_MERGES + 1
    assert frame["ratio"][0] == 1.0
    assert frame["ratio"].is_monotonic_increasing
    table = le.first_merges_frame(full, 10)
    assert list(table["merge"]) == list(range(1, 11))
    assert list(table["new id"]) == list(range(256, 266))
    assert list(table["count"]) == [r.count for r in full.history[:10]]
    spec = steps_chart([Series("text", steps.token_counts(), steps.num_bytes)], 10,
                       metric="compression ratio", large=True).to_dict()
    assert json.dumps(spec)  # serialisable


def test_training_on_a_tiny_text_stops_early():
    tok = le.train_lesson("ab", 10)
    assert tok.num_merges == 1 and tok.stop_reason
    tok = le.train_lesson("", 10)
    assert tok.num_merges == 0
    assert list(le.ratio_frame(tok.step_through("").token_counts(), 0)["ratio"]) == [None]


# -- step 5 ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("text", [*SAMPLES.values(), "", "hi", HOSTILE])
def test_the_broken_example_fails_strictly_and_survives_with_replace(text):
    text, _ = le.lesson_text(text)
    ids, how = le.broken_ids(text)
    tok = BasicTokenizer()
    result = le.decode_both(tok, ids)
    assert result.strict is None and "can't decode" in result.error
    assert "\ufffd" in result.replaced
    outside = re.sub(r"(`+) .*? \1|(`+)[^`]*?\2", "", how)  # drop the code spans
    assert outside in (
        "the bytes of  without the last byte of ",
        "the bytes of  followed by byte 128, which can only continue a character, never start one",
        "byte 128 alone, which can only continue a character, never start one",
    )


def test_decode_both_on_valid_ids_and_unknown_ids():
    tok = BasicTokenizer()
    tok.train(TINY, 259)
    ok = le.decode_both(tok, tok.encode("abac"))
    assert ok.strict == ok.replaced == "abac" and ok.error is None
    with pytest.raises(ValueError, match="unknown token id 999"):
        le.decode_both(tok, [97, 999])


def test_parse_ids():
    assert le.parse_ids("[72, 105,33 32]") == [72, 105, 33, 32]
    assert le.parse_ids("") == []
    for bad in ("1, two", "-1", "1.5", "٣"):
        with pytest.raises(ValueError, match="not an id"):
            le.parse_ids(bad)
    with pytest.raises(ValueError, match="at most"):
        le.parse_ids("1 " * (le.MAX_LESSON_IDS + 1))


# -- step 6 ---------------------------------------------------------------------------------------


def test_trace_of_the_classic_example():
    tok = BasicTokenizer()
    tok.train(TINY, 259)
    (trace,) = le.trace_encode(tok, "aaabdaaabac")
    assert trace.start == list(TINY.encode())
    assert [(s.pair, s.new) for s in trace.steps] == [
        ((97, 97), 256), ((256, 97), 257), ((257, 98), 258)]
    assert trace.final == [258, 100, 258, 97, 99]
    frame = le.trace_frame(tok, [trace])
    assert list(frame["merge rank (new id)"]) == ["start: the bytes", "256", "257", "258"]
    assert frame["tokens"].iloc[-1] == "aaab | d | aaab | a | c"


@pytest.mark.parametrize("word", ["tokenization", " hello", "don't", "12345", "naïve 😄", "",
                                  HOSTILE])
def test_trace_gives_the_ids_encode_gives(word, gpt4):
    basic = le.train_lesson(SAMPLES["English prose"][:3000], 100)
    regex_tok = RegexTokenizer(GPT2_SPLIT_PATTERN)
    regex_tok.train(SAMPLES["English prose"][:3000], 356)
    for tok in (basic, regex_tok, gpt4):
        traces = le.trace_encode(tok, word)
        assert [i for t in traces for i in t.final] == tok.encode_ordinary(word)
        for t in traces:  # within a chunk the ranks applied only go up
            ranks = [s.new for s in t.steps]
            assert ranks == sorted(ranks) and len(set(ranks)) == len(ranks)
        assert "".join(t.chunk for t in traces) == le.lesson_text(word)[0]


def test_default_word_prefers_a_word_with_a_long_trace():
    text = SAMPLES["English prose"]
    assert le.default_word(text) in text
    tok = le.train_lesson(le.lesson_text(text)[0])
    word = le.default_word(text, tok)
    assert len(word) >= 4 and sum(len(t.steps) for t in le.trace_encode(tok, word)) >= 3
    assert le.default_word("") == "tokenization"
    assert len(le.default_word("a" + "x" * 100)) <= le.MAX_WORD


# -- step 7 ---------------------------------------------------------------------------------------


def test_split_differences_gpt2_vs_gpt4():
    text = "I'M here 12345 times\n\n  (ok)"
    chunks = le.split_both(text)
    a, b = chunks["GPT-2"], chunks["GPT-4"]
    assert a == regex.findall(GPT2_SPLIT_PATTERN, text)
    assert b == regex.findall(GPT4_SPLIT_PATTERN, text)
    diffs = le.split_differences(a, b)
    by_text = {d.text: d for d in diffs}
    assert by_text["'M"].a == ["'", "M"] and by_text["'M"].b == ["'M"]  # case-insensitive 'M
    assert by_text[" 12345"].a == [" 12345"] and by_text[" 12345"].b == [" ", "123", "45"]
    for d in diffs:
        assert "".join(d.a) == "".join(d.b) == d.text and d.a != d.b
    marks = le.differing(a, b)
    assert len(marks) == len(a)
    assert [c for c, m in zip(a, marks) if m] == [c for d in diffs for c in d.a]
    frame = le.diffs_frame(diffs)
    assert list(frame.columns) == ["text", "GPT-2 chunks", "GPT-4 chunks"]
    assert le.split_differences(["ab"], ["ab"]) == []


def test_marked_chunks_are_escaped_and_bounded():
    chunks = ["<script>", "alert(1)", "</script>"] * 200
    markup = le.marked_chunks_html(chunks, [True, False, False] * 200, large=True)
    assert "<script>" not in markup.split("</style>", 1)[1]
    assert "&lt;script&gt;" in markup
    assert markup.count('class="t ') == le.MAX_CHUNKS
    assert 'class="bpe-tokens large"' in markup
    assert 'class="t c0 new"' in markup


# -- step 8 ---------------------------------------------------------------------------------------


def test_counts_under_the_real_tokenizers(gpt4):
    text = SAMPLES["English prose"][:2000]
    counts = le.count_tokens({"lesson": le.train_lesson(text, 50), "GPT-4": gpt4}, text)
    assert counts[1].tokens == len(gpt4.encode_ordinary(text))
    assert counts[1].tokens < counts[0].tokens
    frame = le.counts_frame(counts)
    assert list(frame["tokenizer"]) == ["lesson", "GPT-4"]
    assert frame["vocabulary"][1] == "100,261"
    assert le.count_tokens({"GPT-4": gpt4}, "")[0].bytes_per_token is None
    # special-token text is ordinary text by default (no ValueError); one token when asked
    assert le.count_tokens({"GPT-4": gpt4}, "<|endoftext|>")[0].tokens > 1
    assert le.count_tokens({"GPT-4": gpt4}, "<|endoftext|>", "all")[0].tokens == 1
    assert json.dumps(le.counts_chart(counts, large=True).to_dict())


# -- safety and projector mode -------------------------------------------------------------------


def test_code_span_and_table_html_keep_user_text_inert():
    assert code_span("![x](http://example.com/a.png)") == "`![x](http://example.com/a.png)`"
    assert code_span("a``b") == "``` a``b ```"
    assert code_span("line\nbreak") == "`line break`"
    import pandas as pd

    frame = pd.DataFrame({"a": ["<img src=x onerror=alert(1)>"], "n": [3]})
    markup = table_html(frame, large=True)
    assert "<img" not in markup and "&lt;img" in markup
    assert '<td class="num">3</td>' in markup and 'class="lesson-table large"' in markup


def test_palette_css_overrides_the_token_colours():
    css = le.palette_css(["#111111", "#222222"])
    assert "div.bpe-tokens span.c0 { background: #111111; }" in css
    assert "div.bpe-tokens span.c1 { background: #222222; }" in css


def test_projector_mode_replaces_a_palette_that_fails_the_cvd_check():
    from ui.kit.palette import CVD_SAFE_PALETTE

    assert le.projector_palette_css(CVD_SAFE_PALETTE) == ""
    failing = ["#b9dcf2", "#f8d9a6", "#b3e3d2", "#f4c4d8", "#fff2a6", "#cfd6f5", "#f5c9a9",
               "#d5e8b5"]  # the token palette's old order: deuteranopia ΔE 2.8
    css = le.projector_palette_css(failing)
    for i, colour in enumerate(CVD_SAFE_PALETTE):
        assert f"span.c{i} {{ background: {colour}; }}" in css
