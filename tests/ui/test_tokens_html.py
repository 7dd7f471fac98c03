"""The token view's HTML builders (ui/kit/tokens_html.py): spans, colours, escaping, bounds."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from itertools import pairwise

import pytest

import bpe_core
from bpe_core import TokenSpan
from ui.kit.samples import load_samples
from ui.kit.tokens_html import (
    MAX_SPANS,
    PALETTE,
    cap_note,
    chunks_html,
    chunks_of,
    legend_html,
    pieces,
    show_whitespace,
    summarise,
    text_and_bytes,
    token_counts,
    token_label,
    token_title,
    tokens_html,
)

SAMPLES = load_samples()
HOSTILE = [
    "<script>alert(1)</script><img src=x onerror=alert(1)>",
    "\"'><style>body{display:none}</style>",
    '" onmouseover="alert(1)" x="',
    "</span></div><iframe srcdoc='<script>alert(1)</script>'>",
]


class Parsed(HTMLParser):
    """What a browser would build: the tags, their attributes, token spans and their text."""

    def __init__(self, markup: str):
        super().__init__(convert_charrefs=True)
        self.tags: set[str] = set()
        self.attrs: set[str] = set()
        self.spans: list[dict] = []  # top-level token spans: {"class", "title", "text"}
        self.depth = 0  # depth inside the current token span
        self.in_style = False
        self.feed(markup)
        self.close()

    def handle_starttag(self, tag, attrs):
        self.tags.add(tag)
        self.attrs.update(name for name, _ in attrs)
        attrs = dict(attrs)
        if tag == "style":
            self.in_style = True
        if tag == "span":
            if self.depth == 0 and " t " in f" {attrs.get('class', '')} ":
                self.spans.append({"class": attrs["class"].split(), "title": attrs.get("title"),
                                   "text": ""})
                self.depth = 1
            elif self.depth:
                self.depth += 1

    def handle_endtag(self, tag):
        if tag == "style":
            self.in_style = False
        if tag == "span" and self.depth:
            self.depth -= 1

    def handle_data(self, data):
        if self.depth:
            self.spans[-1]["text"] += data


@pytest.fixture(scope="module")
def tok():
    t = bpe_core.RegexTokenizer(bpe_core.GPT4_SPLIT_PATTERN)
    t.train(SAMPLES["English prose"], 400)
    t.register_special_tokens({"<|endoftext|>": 400})
    return t


def spans_of(tok, text):
    return tok.step_through(text, allowed_special="all").tokens_at(tok.num_merges)


def span(token: bytes, id_: int = 1, special: bool = False) -> TokenSpan:
    return TokenSpan(id_, token, 0, len(token), 0, 1, False, False, special)


def test_one_span_per_token_and_text_reads_back(tok):
    text = SAMPLES["English prose"] + SAMPLES["Tricky: numbers, contractions, whitespace"]
    spans = spans_of(tok, text)
    markup, missing = tokens_html(spans, step_of=tok.step_of)
    parsed = Parsed(markup)
    assert missing == 0
    assert len(parsed.spans) == len(spans) == len(tok.encode(text, allowed_special="all"))
    # every token reads as its text; the ones that split a character as their bytes in hex
    assert any(t.partial for t in spans)
    for shown, t in zip(parsed.spans, spans, strict=True):
        expected = t.token.hex(" ") if t.partial else t.token.decode()
        assert shown["text"] == expected
    assert [s["title"].split(" · ")[0] for s in parsed.spans] == [f"id {t.id}" for t in spans]


@pytest.mark.parametrize("colour", ["cycle", "length", "age"])
def test_adjacent_tokens_never_look_alike(tok, colour):
    spans = spans_of(tok, SAMPLES["Source code"])
    parsed = Parsed(tokens_html(spans, step_of=tok.step_of, colour=colour)[0])
    classes = [set(s["class"]) for s in parsed.spans]
    assert all(a != b for a, b in pairwise(classes))
    if colour == "cycle":
        colours = [next(c for c in cls if re.fullmatch(r"c\d", c)) for cls in classes]
        assert all(a != b for a, b in pairwise(colours))
        assert len(set(colours)) == len(PALETTE)
    else:  # sequential shades may repeat: every other token is underlined ("alt")
        assert [("alt" in c) for c in classes[:4]] == [False, True, False, True]


def test_colour_by_length_and_age_known_answers():
    tokens = [span(b"a", 97), span(b"ab", 256), span(b"abcdefghij", 300)]
    parsed = Parsed(tokens_html(tokens, colour="length")[0])
    assert [s["class"][1] for s in parsed.spans] == ["s0", "s1", "s7"]
    parsed = Parsed(tokens_html(tokens, colour="age", step_of={256: 1, 300: 45})[0])
    assert [s["class"][1] for s in parsed.spans] == ["s0", "s1", "s7"]
    assert "made by merge 45" in parsed.spans[2]["title"]
    with pytest.raises(ValueError, match="colour must be one of"):
        tokens_html(tokens, colour="rainbow")


# the only attributes a view has: its classes and titles, and its screen reader's roles and name
VIEW_ATTRS = {"class", "title", "role", "tabindex", "aria-label"}


@pytest.mark.parametrize("hostile", HOSTILE)
def test_hostile_text_only_appears_escaped(tok, hostile):
    spans = spans_of(tok, hostile)
    for options in [{}, {"whitespace": True}, {"ids": True}, {"colour": "age"}]:
        markup, _ = tokens_html(spans, step_of=tok.step_of, **options)
        parsed = Parsed(markup)
        assert parsed.tags <= {"style", "div", "span"}
        assert parsed.attrs <= VIEW_ATTRS
        assert len(parsed.spans) == len(spans)
        lowered = markup.lower()
        for raw in ("<script", "<img", "<style>body", "<iframe", "onmouseover="):
            assert raw not in lowered
        if not options:
            assert "".join(s["text"] for s in parsed.spans) == hostile
    chunks, special = chunks_of(tok, hostile)
    markup, _ = chunks_html(chunks, special=special)
    parsed = Parsed(markup)
    assert parsed.tags <= {"style", "div", "span"} and parsed.attrs <= VIEW_ATTRS
    assert "<script" not in markup.lower() and "<img" not in markup.lower()


def test_part_of_a_character_shows_as_hex_bytes_never_replacement():
    assert text_and_bytes(b"\xe2\x82") == [("e2 82", True)]
    assert text_and_bytes(b" \xf0\x9f") == [(" ", False), ("f0 9f", True)]
    label = token_label(b"\xe2\x82")
    assert label == '<span class="bytes">e2 82</span>'
    markup, _ = tokens_html([span(b"\xe2\x82", 300), span(b"\xac", 172)])
    assert "e2 82" in markup and ">ac<" in markup
    assert "\ufffd" not in markup and "?" not in Parsed(markup).spans[0]["text"]
    title = token_title(300, b"\xe2\x82")
    assert "part of a character" in title and "e2 82" in title and "\ufffd" not in title


def test_the_euro_sign_split_by_a_byte_level_tokenizer():
    tok = bpe_core.BasicTokenizer()
    tok.train("€€ €€ ₂₂", 257)  # one merge: the shared lead bytes e2 82
    spans = spans_of(tok, "€")
    assert [t.token for t in spans] == [b"\xe2\x82", b"\xac"]
    parsed = Parsed(tokens_html(spans)[0])
    assert [s["text"] for s in parsed.spans] == ["e2 82", "ac"]


def test_whitespace_glyphs():
    assert show_whitespace("a b\tc\n") == "a·b→c↵\n"
    assert token_label(b"  \t\n", whitespace=True) == '<span class="ws">··→↵\n</span>'
    assert token_label(b" x") == " x"  # off: the text itself
    assert token_label("a\u00a0b".encode(), whitespace=True) == 'a<span class="ws">⍽</span>b'
    # a real middle dot in the text is text, not a whitespace marker
    assert token_label("l·l".encode(), whitespace=True) == "l·l"


def test_invisible_characters_are_drawn_as_markers():
    label = token_label(b"a\x00b\x1b")
    assert "\x00" not in label and "\x1b" not in label
    assert "␀" in label and "␛" in label
    label = token_label("abc\u202edef".encode())
    assert "\u202e" not in label and "U+202E" in label
    assert token_label("\u0301".encode()).startswith('<span class="ws">\u25cc</span>')


def test_ids_mode_shows_ids_and_keeps_the_hover_text():
    markup, _ = tokens_html([span(b"hi", 300), span(b"!", 33)], ids=True)
    parsed = Parsed(markup)
    assert [s["text"] for s in parsed.spans] == ["300", "33"]
    assert parsed.spans[0]["title"].startswith("id 300 · 'hi'")


def test_special_tokens_get_the_special_class(tok):
    spans = spans_of(tok, "the end<|endoftext|>a new start")
    parsed = Parsed(tokens_html(spans, step_of=tok.step_of)[0])
    special = [s for s in parsed.spans if "special" in s["class"]]
    assert len(special) == 1
    assert special[0]["text"] == "<|endoftext|>"
    assert special[0]["title"] == "id 400 · special token '<|endoftext|>'"
    assert sum("special" in s["class"] for s in parsed.spans) == sum(t.special for t in spans)


def test_rendering_is_bounded_and_the_note_counts():
    tokens = [span(b"ab", 256 + i % 5) for i in range(25)]
    markup, missing = tokens_html(tokens, max_tokens=10)
    assert missing == 15 and len(Parsed(markup).spans) == 10
    assert cap_note(25 - missing, 25) == "Showing the first 10 of 25 tokens."
    assert cap_note(310_000 - 290_000, 310_000) == "Showing the first 20,000 of 310,000 tokens."
    assert cap_note(5, 5) is None
    # one huge token is cut at a character boundary, with a note
    huge = span("é".encode() * 600_000, 999)
    markup, missing = tokens_html([huge, span(b"x", 120)], max_chars=1001)
    parsed = Parsed(markup)
    assert missing == 1 and len(parsed.spans) == 1
    assert parsed.spans[0]["text"].startswith("é" * 500 + " … 1,199,000 more bytes")
    assert len(markup) < 10_000  # the title is bounded too
    assert "1,200,000 bytes" in parsed.spans[0]["title"]


def test_default_bound_is_max_spans():
    tokens = [span(b"a", 97)] * (MAX_SPANS + 5_000)
    markup, missing = tokens_html(tokens)
    assert missing == 5_000
    assert markup.count('class="t ') == MAX_SPANS == 10_000


def test_counts():
    spans = [span(b"h", 104), span("é".encode(), 300)]
    assert token_counts("hé", spans) == {
        "Characters": "2", "Bytes": "3", "Tokens": "2", "Bytes per token": "1.50",
    }


def test_legend():
    assert legend_html("cycle", 10) == ""
    assert "8+ bytes" in legend_html("length", 0)
    age = legend_html("age", 14)
    assert "a byte" in age and "merge 1–2" in age and "merge 13–14" in age


def test_chunks_known_answers(tok):
    text = "Hello world, it's 2024!<|endoftext|>  Bye"
    # by default special-token text is text: the split pattern cuts it like any other
    assert chunks_of(tok, text) == (["Hello", " world", ",", " it", "'s", " ", "202", "4", "!<|",
                                     "endoftext", "|>", " ", " Bye"], [False] * 13)
    chunks, special = chunks_of(tok, text, allowed_special="all")  # read as the special token
    assert chunks == ["Hello", " world", ",", " it", "'s", " ", "202", "4", "!",
                      "<|endoftext|>", " ", " Bye"]
    assert special == [False] * 9 + [True, False, False]
    parsed = Parsed(chunks_html(chunks, special=special, whitespace=False)[0])
    assert [s["text"] for s in parsed.spans] == chunks
    assert "special" in parsed.spans[9]["class"]
    basic = bpe_core.BasicTokenizer()
    assert chunks_of(basic, "Hello world, it's") == (["Hello world, it's"], [False])


def test_chunks_are_bounded():
    markup, missing = chunks_html(["ab"] * 30, max_chunks=7)
    assert missing == 23 and len(Parsed(markup).spans) == 7
    markup, missing = chunks_html(["x" * 500_000], max_chars=1000)
    assert missing == 0 and "499,000 more characters" in markup and len(markup) < 10_000


def test_summarise_keeps_the_first_tokens_and_the_counts(tok):
    text = SAMPLES["Multilingual + emoji"] + "naïve <|endoftext|> " * 3000
    steps = tok.step_through(text, allowed_special="all")
    spans = steps.tokens_at(tok.num_merges)
    summary = summarise(steps, max_spans=100, max_ids=50)
    assert summary.shown == spans[:100]
    assert summary.total == len(spans) == len(tok.encode(text, allowed_special="all"))
    assert summary.special == 3000
    assert summary.partial == sum(t.partial for t in spans) > 0
    assert summary.ids == [t.id for t in spans[:50]]
    assert token_counts(text, summary.total) == token_counts(text, spans)
    # only the tokens within max_bytes become spans (at least the first, however long)
    short = summarise(steps, max_bytes=30)
    assert short.shown == spans[: len(short.shown)]
    n = len(short.shown)
    assert sum(len(t.token) for t in short.shown) <= 30 < sum(len(t.token) for t in spans[: n + 1])
    assert [t.token for t in summarise(steps, max_bytes=0).shown] == [spans[0].token]
    empty = summarise(tok.step_through(""))
    assert empty == (([], 0, 0, 0, []))


def test_a_view_is_a_named_list_of_its_tokens():
    tok = bpe_core.RegexTokenizer()
    markup, _ = tokens_html(pieces([104, 105], tok.vocab), name="Yours <1>")
    assert '<div class="bpe-tokens" role="list" tabindex="0" aria-label="Yours &lt;1&gt;">' in markup
    assert markup.count('role="listitem" title="id 10') == 2  # ids 104 and 105, 'h' and 'i'
    markup, _ = chunks_html(["ab", " c"])
    assert 'role="list" tabindex="0" aria-label="Chunks"' in markup


def test_a_screen_reader_hears_each_token_by_name_id_and_length():
    """Every token's span is named for the ear: whitespace by its Unicode name's plain word, bytes
    that are not whole characters as their hex values (the UTF-8 bytes Python gives for "ä"),
    the id, the length in bytes ("1 byte", not "1 bytes") and the merge that made it."""
    a_umlaut = "ä".encode()
    tokens = [(300, b" the"), (10, b"\n"), (9, b"\t"), (a_umlaut[0], a_umlaut[:1]),
              (301, b"x\xa0".replace(b"\xa0", "\u00a0".encode()))]
    body, _ = tokens_html([pieces([i], {i: t})[0] for i, t in tokens], step_of={300: 44})
    names = re.findall(r'role="listitem" title="[^"]*" aria-label="([^"]*)"', body)
    assert names == [
        "space the, id 300, 4 bytes, made by merge 44",
        "newline, id 10, 1 byte",
        "tab, id 9, 1 byte",
        f"byte {a_umlaut[0]:02X}, id {a_umlaut[0]}, 1 byte",
        "x no-break space, id 301, 3 bytes",
    ]
    assert a_umlaut[0] == 0xC3  # UTF-8's lead byte of U+00E4
    html_chunks, _ = chunks_html([" a", "\n"])
    assert re.findall(r'aria-label="([^"]*)"', html_chunks)[1:] == [
        "space a, chunk 1, 2 bytes", "newline, chunk 2, 1 byte"]
