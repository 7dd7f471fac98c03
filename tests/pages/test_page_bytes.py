"""AppTest tests for the Bytes & decoding page: the characters table, stray bytes, ids to text."""

from pathlib import Path

import pytest
from support import open_page

from ui.decoding.utf8 import MAX_CHARS_TABLE

APP = str(Path(__file__).resolve().parents[2] / "app.py")


@pytest.fixture
def at():
    return open_page("pages/bytes.py")


# AppTest does not find a dataframe by its key (the key is only kept for selections),
# so the tables are told apart by a column only they have.
COLUMN_OF = {"bytes_chars": "UTF-8 bits", "bytes_stray": "what decode does",
             "bytes_problems": "problem", "bytes_each": "token"}


def frame(app, key):
    for df in app.dataframe:
        if COLUMN_OF[key] in df.value.columns:
            return df.value
    raise KeyError(key)


def codes(app) -> list[str]:
    return [c.value for c in app.code]


def test_default_sample_renders_the_characters_and_the_seed_example(at):
    chars = frame(at, "bytes_chars")
    assert len(chars) > 100
    assert list(chars.columns)[:6] == ["#", "char", "code point", "name", "UTF-8 hex", "UTF-8 bits"]
    assert any('class="bpe-chars"' in h.value for h in at.html)
    # the stray-bytes panel starts with the seed's b'\x80abc'
    assert at.text_input(key="bytes_hex").value == "80 61 62 63"
    assert codes(at)[:3] == [
        "\ufffdabc",
        "UnicodeDecodeError: 'utf-8' codec can't decode byte 0x80 in position 0: "
        "invalid start byte",
        "\\x80abc",
    ]
    assert frame(at, "bytes_stray")["kind"][0] == "continuation"


def test_euro_sign_row(at):
    at.text_area(key="text").set_value("a€").run()
    assert not at.exception
    row = frame(at, "bytes_chars").to_dict("records")[1]
    assert row["code point"] == "U+20AC"
    assert row["UTF-8 hex"] == "e2 82 ac"
    assert row["UTF-8 bits"] == "1110|0010 10|000010 10|101100"
    at.number_input(key="bytes_start").set_value(1).run()
    assert frame(at, "bytes_chars")["char"].tolist() == ["€"]
    at.text_area(key="text").set_value("b").run()  # a start past the new end is not an error
    assert not at.exception
    assert frame(at, "bytes_chars")["char"].tolist() == ["b"]


def test_hostile_text_stays_escaped(at):
    at.text_area(key="text").set_value("<script>alert(1)</script>").run()
    assert not at.exception
    (cards,) = [h.value for h in at.html if 'class="bpe-chars"' in h.value]
    assert "<script" not in cards and "&lt;script&gt;alert(1)&lt;/script&gt;" in cards
    at.button(key="bytes_fill").click().run()  # the text's ids, decoded again
    assert not at.exception
    decoded = [h.value for h in at.html if 'class="bpe-tokens"' in h.value]
    assert decoded and "<script" not in decoded[0] and "&lt;script&gt;" in decoded[0]
    assert codes(at)[-1] == "<script>alert(1)</script>"  # st.code shows text, not HTML


def test_empty_text_gives_a_message(at):
    at.text_area(key="text").set_value("").run()
    assert not at.exception
    assert any("The text is empty" in i.value for i in at.info)


def test_bad_hex_is_an_error_not_a_traceback(at):
    at.text_input(key="bytes_hex").set_value("80 zz").run()
    assert not at.exception
    assert "'zz' is not hex" in at.error[0].value
    at.text_input(key="bytes_hex").set_value("e2 82 ac").run()
    assert codes(at)[:3] == ["€", "€", "€"]


def test_decode_box_with_gpt4(at):
    at.selectbox(key="kind").set_value("Pretrained: GPT-4 (cl100k_base)").run()
    at.text_area(key="bytes_ids").set_value("[15339, 1917]").run()
    assert not at.exception
    assert codes(at)[-1] == "hello world"
    assert not at.warning
    at.text_area(key="bytes_ids").set_value("1, x, 999999999").run()
    assert not at.exception
    assert "2 of the pieces were left out" in at.warning[0].value
    problems = frame(at, "bytes_problems").to_dict("records")
    assert [(p["position"], p["input"]) for p in problems] == [(2, "x"), (3, "999999999")]
    assert codes(at)[-1] == '"'


def test_decode_box_shows_invalid_utf8_as_hex(at):
    at.selectbox(key="kind").set_value("Pretrained: GPT-4 (cl100k_base)").run()
    at.text_area(key="bytes_ids").set_value("9468 15339").run()  # 9468 is b"\xf0\x9f"
    assert not at.exception
    decoded = [h.value for h in at.html if 'class="bpe-tokens"' in h.value][0]
    assert '<span class="bytes">f0 9f</span>hello' in decoded
    assert codes(at)[-1] == "\ufffdhello"


def test_decode_box_without_a_tokenizer(at):
    at.selectbox(key="kind").set_value("Imported file").run()
    assert not at.exception
    assert any("to decode ids" in i.value for i in at.info)


def chars_card_html(app) -> str:
    return next(h.value for h in app.html if 'class="bpe-chars"' in h.value)


def test_english_prose_is_one_summary_card_not_a_wall(at):
    text = at.text_area(key="text").value
    assert all(" " <= c <= "~" or c in "\t\n\r" for c in text)  # the sample is plain ASCII
    n = min(len(text), MAX_CHARS_TABLE)  # the window the page shows
    body = chars_card_html(at)
    assert body.count('class="ch run"') == 1 and body.count('class="ch"') == 0
    assert f"{n:,} plain ASCII characters" in body
    captions = " ".join(c.value for c in at.caption)
    assert f"{n:,} characters: {n:,} of 1 byte ({n:,} plain ASCII)" in captions


def test_cards_only_for_characters_of_several_bytes_or_controls(at):
    at.text_area(key="text").set_value("Tokens 👋 and 你好 meet\tagain: naïve café.\n").run()
    assert not at.exception
    body = chars_card_html(at)
    # cards: 👋 你 好 ï é; runs: "Tokens ", " and ", " meet\tagain: na", "ve caf", ".\n"
    assert body.count('class="ch"') == 5
    assert body.count('class="ch run"') == 5
    for cp in ("U+1F44B", "U+4F60", "U+597D", "U+00EF", "U+00E9"):
        assert f'<div class="cp">{cp}</div>' in body
    captions = " ".join(c.value for c in at.caption)
    assert "40 characters: 35 of 1 byte (35 plain ASCII), 2 of 2 bytes, 2 of 3 bytes, " \
           "1 of 4 bytes." in captions
