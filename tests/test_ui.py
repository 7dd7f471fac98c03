"""Tests for the pure helpers in ui/ (no Streamlit session needed)."""

from types import SimpleNamespace

import pytest

from ui.samples import load_samples
from ui.tables import MERGE_COLUMNS, merges_frame, render_token
from ui.training import (
    SPLITS,
    clip_ids,
    format_ids,
    make_tokenizer,
    summarize,
    text_problem,
    throttled,
)


def test_samples_are_ordered_and_non_trivial():
    samples = load_samples()
    assert list(samples) == [
        "English prose",
        "Source code",
        "Multilingual + emoji",
        "Tricky: numbers, contractions, whitespace",
    ]
    for label, text in samples.items():
        assert len(text.encode("utf-8")) >= 900, label


def test_tricky_sample_keeps_crlf_and_specials():
    tricky = load_samples()["Tricky: numbers, contractions, whitespace"]
    assert "\r\n" in tricky
    assert "\n" in tricky.replace("\r\n", "")  # plain LF lines too
    for piece in [
        "1234567",
        "3.14159",
        "don't",
        "WE'RE",
        "\t",
        "!!!",
        "<|endoftext|>",
        "<script>alert(1)</script>",
        "https://",
    ]:
        assert piece in tricky, piece


def test_multilingual_sample_has_zwj_flags_and_combining_marks():
    text = load_samples()["Multilingual + emoji"]
    assert "👩\u200d💻" in text
    assert "🇫🇷" in text
    assert "e\u0301" in text  # decomposed é
    for script_char in ["к", "λ", "字", "ト", "토", "ص", "ק", "ह"]:
        assert script_char in text, script_char


def test_render_token_escapes_control_characters_like_minbpe():
    assert render_token(b"hi") == "hi"
    assert render_token(b"\n") == "\\u000a"
    assert render_token(b"a\tb\r") == "a\\u0009b\\u000d"
    assert render_token(b"\xe2\x82") == "\ufffd"  # half a character
    assert render_token("€".encode()) == "€"


def test_merges_frame_known_answer():
    # Worked by hand with the seeds' rule (most frequent pair, ties to the earliest first occurrence):
    #   a a a b d a a a b a c : (a,a)=4 is the top pair            -> 256 "aa"
    #   256 a b d 256 a b a c : (256,a)=2 and (a,b)=2 tie; (256,a) comes first -> 257 "aaa"
    #   257 b d 257 b a c     : (257,b)=2                           -> 258 "aaab"
    tok = make_tokenizer("No split (BasicTokenizer)")
    tok.train("aaabdaaabac", 259)
    frame = merges_frame(tok)
    assert list(frame.columns) == MERGE_COLUMNS
    assert frame.to_dict("records") == [
        {
            "step": 1,
            "id": 256,
            "left": 97,
            "right": 97,
            "token": "aa",
            "bytes": "61 61",
            "count": 4,
        },
        {
            "step": 2,
            "id": 257,
            "left": 256,
            "right": 97,
            "token": "aaa",
            "bytes": "61 61 61",
            "count": 2,
        },
        {
            "step": 3,
            "id": 258,
            "left": 257,
            "right": 98,
            "token": "aaab",
            "bytes": "61 61 61 62",
            "count": 2,
        },
    ]


def test_merges_frame_renders_controls_and_handles_empty_history():
    record = SimpleNamespace(pair=(10, 10), id=256, token=b"\n\n", count=3)
    frame = merges_frame(SimpleNamespace(history=[record]))
    assert frame.loc[0, "token"] == "\\u000a\\u000a"
    assert frame.loc[0, "bytes"] == "0a 0a"

    empty = merges_frame(SimpleNamespace(history=[]))
    assert list(empty.columns) == MERGE_COLUMNS
    assert len(empty) == 0
    assert str(empty["count"].dtype) == "int64"


@pytest.mark.parametrize("label", list(SPLITS))
def test_make_tokenizer_gives_a_trainable_tokenizer_for_every_split(label):
    tok = make_tokenizer(label)
    assert (tok.pattern == "") == (label == "No split (BasicTokenizer)")
    tok.train("hello hello hello world", 258)
    assert tok.decode(tok.encode_ordinary("hello world")) == "hello world"


def test_make_tokenizer_rejects_unknown_split():
    with pytest.raises(ValueError, match="unknown split"):
        make_tokenizer("GPT-5 split")


def test_text_problem():
    assert text_problem("") is not None and "empty" in text_problem("")
    assert "whitespace" in text_problem(" \t\r\n")
    assert text_problem("x") is None


def test_summary_clip_and_format():
    summary = summarize("héllo", [104, 300, 108, 111], merges=1)
    assert (summary.bytes_before, summary.tokens_after) == (6, 4)
    assert summary.ratio == pytest.approx(1.5)
    assert summarize("", [], 0).ratio == 1.0
    assert clip_ids(list(range(10)), 4) == ([0, 1, 2, 3], 6)
    assert clip_ids([1, 2], 4) == ([1, 2], 0)
    assert format_ids([1, 22, 333]) == "1, 22, 333"


def test_throttled_progress_calls_about_steps_times_and_always_the_last():
    calls = []
    callback = throttled(lambda done, total: calls.append(done), steps=10)
    results = [callback(done, 1000, None) for done in range(1, 1001)]
    assert all(r is None for r in results)  # never stops training
    assert 10 <= len(calls) <= 12
    assert calls[-1] == 1000
