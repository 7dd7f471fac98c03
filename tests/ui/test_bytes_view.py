"""Tests for ui/decoding/utf8.py: UTF-8 bits, stray bytes, and pasted ids back to text."""

import pytest

from bpe_core import BasicTokenizer, load_pretrained
from ui.decoding.utf8 import (
    CHAR_COLUMNS,
    LONE_SURROGATE,
    MAX_CARDS,
    byte_bits,
    byte_kind,
    byte_parts,
    bytes_frame,
    char_row,
    chars_frame,
    chars_html,
    chars_summary,
    decode_ids,
    decoded_html,
    decodings,
    first_ids,
    ids_frame,
    invalid_ranges,
    parse_hex,
    shown_char,
    split_ids,
)


@pytest.fixture(scope="module")
def cl100k():
    return load_pretrained("cl100k_base")


# -- characters and their bytes -------------------------------------------------------------------


def test_euro_sign_lead_and_continuation_bits():
    row = char_row(0, "€")
    assert row["code point"] == "U+20AC"
    assert row["name"] == "EURO SIGN"
    assert row["UTF-8 hex"] == "e2 82 ac"
    assert row["UTF-8 bits"] == "1110|0010 10|000010 10|101100"
    assert row["bytes"] == 3
    assert [byte_parts(b) for b in "€".encode()] == [("1110", "0010"), ("10", "000010"),
                                                     ("10", "101100")]
    # the payload bits, read in order, are the code point
    assert int("".join(byte_parts(b)[1] for b in "€".encode()), 2) == 0x20AC


def test_ascii_and_four_byte_characters():
    assert char_row(0, "A")["UTF-8 bits"] == "0|1000001"
    assert byte_bits(ord("A")) == "0|1000001"
    row = char_row(0, "😀")
    assert row["code point"] == "U+1F600"
    assert row["UTF-8 bits"] == "11110|000 10|011111 10|011000 10|000000"
    assert row["bytes"] == 4
    assert char_row(0, "é")["UTF-8 bits"] == "110|00011 10|101001"


def test_byte_kinds():
    assert byte_kind(0x61) == "ASCII"
    assert byte_kind(0x80) == byte_kind(0xBF) == "continuation"
    assert byte_kind(0xC3) == "lead of 2"
    assert byte_kind(0xE2) == "lead of 3"
    assert byte_kind(0xF0) == "lead of 4"
    assert byte_kind(0xC0) == byte_kind(0xF5) == byte_kind(0xFF) == "never valid"
    assert byte_bits(0xFF) == "11111111"
    with pytest.raises(ValueError):
        byte_parts(256)


def test_invisible_characters_are_escaped_in_the_table():
    assert shown_char("\n") == "\\n"
    assert shown_char("\x00") == "\\x00"
    assert shown_char("\u200d") == "\\u200d"
    assert shown_char("\u0301") == "◌\u0301"
    assert shown_char(" ") == "' '"
    assert char_row(0, "\n")["note"] == "control character"
    assert char_row(0, "\u200d")["name"] == "ZERO WIDTH JOINER"


def test_lone_surrogates_are_shown_not_crashed_on():
    row = char_row(1, "\ud800")
    assert row["char"] == "\\ud800"
    assert row["code point"] == "U+D800"
    assert row["name"] == ""
    assert row["note"] == LONE_SURROGATE
    assert row["bytes"] == 0 and row["UTF-8 hex"] == ""
    frame = chars_frame("a\ud800b")
    assert list(frame["note"]) == ["", LONE_SURROGATE, ""]
    assert LONE_SURROGATE in chars_html("a\ud800b")[0]


def test_chars_frame_window():
    frame = chars_frame("abcdef", start=2, limit=3)
    assert list(frame.columns) == CHAR_COLUMNS
    assert list(frame["#"]) == [2, 3, 4]
    assert list(frame["char"]) == ["c", "d", "e"]
    assert chars_frame("").empty
    with pytest.raises(ValueError, match="start"):
        chars_frame("abc", start=-1)


def test_chars_html_highlights_markers_and_escapes():
    body, covered = chars_html("€<script>alert(1)</script>")
    assert covered == 26
    assert '<span class="m">1110</span>0010' in body
    assert '<span class="m">10</span>000010' in body
    assert "<script" not in body
    # the ASCII after the euro sign is one run card that quotes it, escaped
    assert body.count('class="ch run"') == 1 and body.count('class="ch"') == 1
    assert "25 plain ASCII characters" in body
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in body


def test_chars_html_cards_only_where_bytes_are_interesting():
    text = "Hello, world!\nCafé ☕ ok\x07"
    body, covered = chars_html(text)
    assert covered == len(text)
    # runs: "Hello, world!\nCaf", " ", " ok"; cards: é, ☕, the bell (a control character)
    assert body.count('class="ch run"') == 3
    assert body.count('class="ch"') == 3
    assert "17 plain ASCII characters" in body and "1 plain ASCII character," in body
    assert '<div class="cp">U+00E9</div>' in body and '<div class="cp">U+2615</div>' in body
    assert '<div class="cp">U+0007</div>' in body


def test_chars_html_stops_after_max_cards():
    body, covered = chars_html("é" * 5000)
    assert body.count('class="ch"') == MAX_CARDS and covered == MAX_CARDS
    body, covered = chars_html("x" * 5000, limit=5000)  # one run, one card
    assert body.count('class="ch run"') == 1 and covered == 5000


def test_chars_summary_counts_bytes_by_hand():
    assert chars_summary("aé€😀\n") == (
        "5 characters: 2 of 1 byte (2 plain ASCII), 1 of 2 bytes, 1 of 3 bytes, 1 of 4 bytes.")
    assert chars_summary("\x00\ud800") == (
        "2 characters: 1 of 1 byte (0 plain ASCII, 1 control character), 1 lone surrogate "
        "(not encodable).")


# -- stray bytes ----------------------------------------------------------------------------------


def test_parse_hex_forms():
    assert parse_hex("80 61 62 63") == b"\x80abc"
    assert parse_hex("0x80, 0x61 0X62") == b"\x80ab"
    assert parse_hex("80616263") == b"\x80abc"
    assert parse_hex("\\x80\\x61") == b"\x80a"
    assert parse_hex("8 a") == b"\x08\x0a"
    assert parse_hex("  ") == b""
    with pytest.raises(ValueError, match="'zz' is not hex"):
        parse_hex("80 zz")
    with pytest.raises(ValueError, match="odd number"):
        parse_hex("806")
    with pytest.raises(ValueError, match="At most"):
        parse_hex("00" * 11, limit=10)


def test_seed_example_stray_continuation_byte():
    out = decodings(b"\x80abc")
    assert out["replace"] == "\ufffdabc"
    assert out["strict"].startswith("UnicodeDecodeError:")
    assert "0x80 in position 0: invalid start byte" in out["strict"]
    assert out["backslashreplace"] == "\\x80abc"
    assert decodings("é".encode())["strict"] == "é"


def test_invalid_ranges_and_what_decode_does():
    assert invalid_ranges(b"\x80abc") == [(0, 1)]
    assert invalid_ranges(b"ok") == []
    data = b"\xe2\x82a\x80\xff\xf0\x9f"
    assert invalid_ranges(data) == [(0, 2), (3, 4), (4, 5), (5, 7)]
    assert data.decode("utf-8", "replace") == "\ufffda\ufffd\ufffd\ufffd"  # one per range
    frame = bytes_frame(data)
    what = list(frame["what decode does"])
    assert what[0] == what[1] == (
        "rejected: a character cut short (2 of the 3 bytes its lead byte announces)"
    )
    assert what[2] == "part of a character"
    assert "no lead byte before it" in what[3]
    assert "never occurs" in what[4]
    assert list(frame["kind"])[:2] == ["lead of 3", "continuation"]
    assert list(frame["bits"])[:2] == ["1110|0010", "10|000010"]
    assert "continuation bytes this lead byte announces" in bytes_frame(b"\xe2a")[
        "what decode does"
    ][0]


# -- token ids back to text -----------------------------------------------------------------------


def test_split_ids():
    assert split_ids("[15339, 1917]") == ["15339", "1917"]
    assert split_ids("1 2\n3;(4)") == ["1", "2", "3", "4"]
    assert split_ids(" ,[] ") == []


def test_decode_ids_known_answer(cl100k):
    decoded = decode_ids(cl100k, "[15339, 1917]")
    assert decoded.ids == [15339, 1917]
    assert decoded.problems == []
    assert decoded.text == "hello world"
    assert decoded.note is None


def test_decode_ids_flags_non_integers_and_unknown_ids(cl100k):
    decoded = decode_ids(cl100k, "1, x, 999999999")
    assert decoded.ids == [1]
    assert decoded.text == '"'  # cl100k's id 1
    assert decoded.problems == [
        (2, "x", "not a whole number"),
        (3, "999999999", "no such id: this tokenizer's ids are 0..100,276"),
    ]
    frame = decoded.problems_frame()
    assert list(frame["position"]) == [2, 3]
    # Python's int() would take these; an id list should not
    odd = decode_ids(cl100k, "1_000 ١٢ 1.5 -1 +5 " + "9" * 5000)
    assert [p[0] for p in odd.problems] == [1, 2, 3, 4, 6]
    assert odd.problems[3][2].startswith("no such id")
    assert odd.problems[4][1].endswith("…") and len(odd.problems[4][1]) == 31
    assert odd.ids == [5]


def test_decode_ids_special_tokens_and_caps(cl100k):
    assert decode_ids(cl100k, "100257").text == "<|endoftext|>"
    capped = decode_ids(cl100k, "1 2 3 4", max_ids=2)
    assert capped.ids == [1, 2]
    assert capped.note == "Only the first 2 of 4 ids were read."
    with pytest.raises(ValueError, match="At most"):
        decode_ids(cl100k, "1 " * 600_000)


def test_decoded_text_shows_invalid_bytes_as_hex():
    tok = BasicTokenizer()  # ids 0..255 are the bytes themselves
    decoded = decode_ids(tok, "[128, 97, 98, 99]")
    assert decoded.text == "\ufffdabc"
    body, left_out = decoded_html(decoded.data)
    assert left_out == 0
    assert body.endswith('<div class="bpe-tokens"><span class="bytes">80</span>abc</div>')
    hostile = decode_ids(tok, " ".join(str(b) for b in b"<script>alert(1)</script>"))
    body, _ = decoded_html(hostile.data)
    assert "<script" not in body and "&lt;script&gt;" in body


def test_decoded_html_cuts_between_characters():
    data = "€€€".encode()
    body, left_out = decoded_html(data, limit=4)  # byte 4 is inside the second €
    assert left_out == 6
    assert body.endswith('<div class="bpe-tokens">€</div>')
    body, left_out = decoded_html(b"\x80" * 10, limit=4)  # nothing to keep together
    assert left_out == 6


def test_ids_frame_and_first_ids(cl100k):
    frame = ids_frame(cl100k, [15339, 1917, 9468])
    assert list(frame["token"])[:2] == ["hello", "·world"]
    assert list(frame["bytes"])[1] == "20 77 6f 72 6c 64"
    assert list(frame["token"])[2] == "⟨f0 9f⟩"  # the first half of an emoji's bytes
    assert first_ids(cl100k, "hello world " * 100, n=2) == [15339, 1917]
    assert len(ids_frame(cl100k, [1] * 10, limit=3)) == 3
