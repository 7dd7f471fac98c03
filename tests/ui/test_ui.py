"""Tests for the pure helpers in ui/ (no Streamlit session needed)."""


import pytest

from bpe_core import BasicTokenizer, render_token
from ui.kit.choices import KINDS, make_settings, parse_specials, text_problem, train_tokenizer
from ui.kit.samples import load_samples
from ui.kit.tables import MERGE_COLUMNS, merges_frame


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
    tok = BasicTokenizer()
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
    tok = BasicTokenizer()
    tok.train("\x00\x00\x00\x00", 257)
    frame = merges_frame(tok)
    assert frame.loc[0, "token"] == "\\u0000\\u0000"  # control characters escaped (token_text)
    assert frame.loc[0, "count"] == 3
    empty = merges_frame(BasicTokenizer())
    assert list(empty.columns) == MERGE_COLUMNS and len(empty) == 0
    assert str(empty["count"].dtype) == "Int64"


def test_merges_frame_of_a_pretrained_tokenizer_has_every_merge_and_no_counts():
    from bpe_core import load_pretrained

    tok = load_pretrained("gpt2")
    frame = merges_frame(tok)
    assert len(frame) == 50_000
    assert frame.loc[0, "token"] == "·t"  # " t", its space shown as on every page
    assert frame["count"].isna().all()


@pytest.mark.parametrize("kind", [k for k, (how, _) in KINDS.items() if how in ("regex", "basic")])
def test_every_trainable_choice_trains_and_round_trips(kind):
    settings = make_settings(kind, r"\w+|\s+|[^\w\s]+", 300, "<|endoftext|>")
    tok = train_tokenizer("the cat sat on the mat, the end", settings)
    assert tok.num_merges > 0
    assert tok.special_tokens == {"<|endoftext|>": max(tok.vocab)}
    text = "the mat<|endoftext|>"
    assert tok.decode(tok.encode(text, allowed_special="all")) == text


def test_settings_reject_bad_input_with_a_message():
    kind = "Train: GPT-4 split"
    for bad, words in [(100, "between 256"), (10**9, "between 256"), ("big", "whole number")]:
        with pytest.raises(ValueError, match=words):
            make_settings(kind, "", bad, "")
    with pytest.raises(ValueError, match="invalid split pattern"):
        make_settings("Train: custom split pattern", "(a+", 300, "")
    with pytest.raises(ValueError, match="Write a split pattern"):
        make_settings("Train: custom split pattern", "  ", 300, "")
    with pytest.raises(ValueError, match="unknown"):
        make_settings("nope", "", 300, "")


def test_parse_specials_splits_on_commas_and_lines_and_dedupes():
    assert parse_specials("<|a|>, <|b|>\n<|a|>\n\n") == ("<|a|>", "<|b|>")
    with pytest.raises(ValueError, match="At most"):
        parse_specials(",".join(f"<|{i}|>" for i in range(30)))


def test_text_problem():
    assert text_problem("") == "The text is empty: paste some text or pick a sample to train on."
    assert "only whitespace" in text_problem(" \t\n")
    assert text_problem("hi") is None
