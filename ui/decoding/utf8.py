"""Bytes and decoding: characters as UTF-8 bytes, stray bytes, and token ids back to text.

Plain functions (no Streamlit). UTF-8 in one paragraph: a character below U+0080 is one byte
``0xxxxxxx``; any other character is a lead byte that says how many bytes follow (``110xxxxx``: 2
in all, ``1110xxxx``: 3, ``11110xxx``: 4) and then continuation bytes ``10xxxxxx``. The ``x`` bits,
read in order, are the code point. Here the marker bits are set apart with a bar:
``"€"`` (U+20AC) is ``1110|0010 10|000010 10|101100``, and ``0010 000010 101100`` is 0x20AC.
"""

from __future__ import annotations

import html
import unicodedata
from collections import Counter
from dataclasses import dataclass, field

import pandas as pd
import regex

from ui.kit.tokens_html import CSS, show_whitespace, token_label, token_text

MAX_CHARS_TABLE = 2_000
MAX_HEX_BYTES = 10_000
MAX_DECODE_IDS = 100_000
MAX_IDS_INPUT_CHARS = 1_000_000
MAX_DECODED_BYTES_SHOWN = 20_000
MAX_PROBLEMS_SHOWN = 1_000
MAX_ID_ROWS = 2_000

CHAR_COLUMNS = ["#", "char", "code point", "name", "UTF-8 hex", "UTF-8 bits", "bytes", "note"]
LONE_SURROGATE = "lone surrogate, not encodable"


# -- one byte -------------------------------------------------------------------------------------


def byte_parts(b: int) -> tuple[str, str]:
    """A byte's UTF-8 marker bits and payload bits.

    >>> byte_parts(0x41), byte_parts(0xE2), byte_parts(0x82)
    (('0', '1000001'), ('1110', '0010'), ('10', '000010'))
    >>> byte_parts(0xFF)  # never valid in UTF-8: all eight bits shown as marker
    ('11111111', '')
    """
    if not 0 <= b <= 0xFF:
        raise ValueError(f"a byte is 0..255, not {b}")
    bits = f"{b:08b}"
    for marker in ("0", "10", "110", "1110", "11110"):
        if bits.startswith(marker):
            return marker, bits[len(marker) :]
    return bits, ""


def byte_bits(b: int) -> str:
    """``"1110|0010"``: marker bits, a bar, payload bits (just the 8 bits if never valid)."""
    marker, payload = byte_parts(b)
    return f"{marker}|{payload}" if payload else marker


def byte_kind(b: int) -> str:
    """What a byte can be in UTF-8.

    >>> [byte_kind(b) for b in (0x61, 0x80, 0xC3, 0xE2, 0xF0, 0xC0, 0xFF)]
    ['ASCII', 'continuation', 'lead of 2', 'lead of 3', 'lead of 4', 'never valid', 'never valid']
    """
    marker, _ = byte_parts(b)
    if b in (0xC0, 0xC1) or b >= 0xF5:  # would only start overlong or too-large sequences
        return "never valid"
    return {"0": "ASCII", "10": "continuation", "110": "lead of 2", "1110": "lead of 3",
            "11110": "lead of 4"}[marker]


# -- characters -----------------------------------------------------------------------------------


def shown_char(ch: str) -> str:
    """A character as it can be shown in a table cell: control and format characters (and
    surrogates) escaped, combining marks on a dotted circle, a space as ``" "`` in quotes.

    >>> shown_char("\\n"), shown_char("\\u0301"), shown_char(" "), shown_char("€")
    ('\\\\n', '◌\\u0301', "' '", '€')
    """
    cat = unicodedata.category(ch)
    if cat[0] == "C":
        escaped = ch.encode("unicode_escape", "backslashreplace").decode("ascii")
        return escaped if escaped != ch else f"\\u{ord(ch):04x}"
    if cat[0] == "M":
        return "◌" + ch
    if cat[0] == "Z":
        return repr(ch)
    return ch


def char_row(index: int, ch: str) -> dict:
    """One row of the characters table.

    >>> row = char_row(0, "€")
    >>> row["code point"], row["UTF-8 hex"], row["UTF-8 bits"], row["bytes"]
    ('U+20AC', 'e2 82 ac', '1110|0010 10|000010 10|101100', 3)
    """
    cp = ord(ch)
    row = {
        "#": index,
        "char": shown_char(ch),
        "code point": f"U+{cp:04X}",
        "name": unicodedata.name(ch, ""),
        "UTF-8 hex": "",
        "UTF-8 bits": "",
        "bytes": 0,
        "note": "",
    }
    if 0xD800 <= cp <= 0xDFFF:
        row["note"] = LONE_SURROGATE
        return row
    data = ch.encode("utf-8")
    row["UTF-8 hex"] = data.hex(" ")
    row["UTF-8 bits"] = " ".join(byte_bits(b) for b in data)
    row["bytes"] = len(data)
    cat = unicodedata.category(ch)
    if cat == "Cc":
        row["note"] = "control character"
    elif cat == "Cf":
        row["note"] = "invisible format character"
    elif cat[0] == "M":
        row["note"] = "combining mark: joins the character before it"
    return row


def chars_frame(text: str, start: int = 0, limit: int = MAX_CHARS_TABLE) -> pd.DataFrame:
    """The table of characters ``start .. start + limit`` of ``text``."""
    if start < 0:
        raise ValueError(f"the start must be 0 or more, not {start}")
    rows = [char_row(i, ch) for i, ch in enumerate(text[start : start + limit], start)]
    return pd.DataFrame(rows, columns=CHAR_COLUMNS).astype({"#": "int64", "bytes": "int64"})


BYTES_CSS = """
<style>
.bpe-chars { display: flex; flex-wrap: wrap; gap: 6px; font-family: ui-monospace, SFMono-Regular,
  Menlo, Consolas, monospace; color: #111; }
.bpe-chars .ch { border: 1px solid #ccc; border-radius: 4px; padding: 3px 6px; background: #fafafa;
  text-align: center; }
.bpe-chars .glyph { font-size: 1.4rem; line-height: 1.6rem; white-space: pre; }
.bpe-chars .cp { font-size: 0.75rem; color: #555; }
.bpe-chars .b { font-size: 0.85rem; display: block; }
.bpe-chars .m { color: #b3361b; font-weight: 700; background: #fbe3d6; border-radius: 2px; }
.bpe-chars .lone { color: #6b1d1d; background: #fbe3e3; }
.bpe-chars .run { text-align: left; max-width: 100%; background: #f2f6fb; }
.bpe-chars .quote { font-size: 0.9rem; white-space: pre-wrap; overflow-wrap: anywhere; }
</style>
"""


def bits_html(b: int) -> str:
    """One byte's bits with the marker bits in a highlighted span."""
    marker, payload = byte_parts(b)
    return f'<span class="b"><span class="m">{marker}</span>{payload}</span>'


MAX_CARDS = 500  # cards drawn at most (a run of plain ASCII is one card)
RUN_PREVIEW = 48  # characters of a run of plain ASCII quoted on its card
PLAIN = frozenset(chr(c) for c in range(0x20, 0x7F)) | {"\t", "\n", "\r"}


def is_plain(ch: str) -> bool:
    """Plain ASCII: printable ASCII, tab or a line break, one byte ``0xxxxxxx`` each; every other
    character (several bytes, a control character, a lone surrogate) is worth a card.

    >>> [is_plain(c) for c in "a \\n\\x00é"]
    [True, True, True, False, False]
    """
    return ch in PLAIN


def chars_html(text: str, start: int = 0, limit: int = MAX_CHARS_TABLE,
               max_cards: int = MAX_CARDS) -> tuple[str, int]:
    """The characters ``start .. start + limit`` of ``text`` as cards: each run of plain ASCII
    (one byte each) as one card that counts and quotes it, every other character as a card with
    its code point and its bytes' bits, the marker bits highlighted. Everything is escaped.

    Returns ``(html, characters covered)``: the cards stop after ``max_cards``.

    >>> body, covered = chars_html("Hi there, €!")
    >>> covered, body.count('class="ch"'), body.count('class="ch run"')
    (12, 1, 2)
    """
    cards = []
    window = text[start : start + limit]
    i = 0
    while i < len(window) and len(cards) < max_cards:
        ch = window[i]
        if is_plain(ch):
            j = i
            while j < len(window) and window[j] in PLAIN:
                j += 1
            run = window[i:j]
            preview = show_whitespace(run[:RUN_PREVIEW]) + ("…" if len(run) > RUN_PREVIEW else "")
            n = len(run)
            cards.append(
                f'<div class="ch run"><div class="cp">{n:,} plain ASCII character'
                f'{"s" if n != 1 else ""}, 1 byte each: <span class="m">0</span>xxxxxxx</div>'
                f'<div class="quote">{html.escape(preview)}</div></div>'
            )
            i = j
            continue
        cp = ord(ch)
        glyph = html.escape(shown_char(ch))
        if 0xD800 <= cp <= 0xDFFF:
            body = f'<span class="b lone">{LONE_SURROGATE}</span>'
        else:
            body = "".join(bits_html(b) for b in ch.encode("utf-8"))
        cards.append(
            f'<div class="ch"><div class="glyph">{glyph}</div>'
            f'<div class="cp">U+{cp:04X}</div>{body}</div>'
        )
        i += 1
    return BYTES_CSS + f'<div class="bpe-chars">{"".join(cards)}</div>', i


def chars_summary(text: str) -> str:
    """How many characters of ``text`` take 1, 2, 3 and 4 bytes, and how many are control
    characters or lone surrogates, in words.

    >>> chars_summary("ab€\\x00")
    '4 characters: 3 of 1 byte (2 plain ASCII, 1 control character), 1 of 3 bytes.'
    """
    sizes = Counter()
    plain = control = lone = 0
    for ch in text:
        cp = ord(ch)
        if 0xD800 <= cp <= 0xDFFF:
            lone += 1
            continue
        sizes[1 if cp < 0x80 else 2 if cp < 0x800 else 3 if cp < 0x10000 else 4] += 1
        plain += ch in PLAIN
        control += unicodedata.category(ch) == "Cc" and ch not in PLAIN
    parts = []
    for size in (1, 2, 3, 4):
        if sizes[size]:
            part = f"{sizes[size]:,} of {size} byte{'s' if size > 1 else ''}"
            if size == 1:
                inner = [f"{plain:,} plain ASCII"]
                if control:
                    inner.append(f"{control:,} control character{'s' if control != 1 else ''}")
                part += f" ({', '.join(inner)})"
            parts.append(part)
    if lone:
        parts.append(f"{lone:,} lone surrogate{'s' if lone != 1 else ''} (not encodable)")
    n = len(text)
    return f"{n:,} character{'s' if n != 1 else ''}: {', '.join(parts)}."


# -- stray bytes ----------------------------------------------------------------------------------

_HEX_SEPARATORS = regex.compile(r"[\s,;]+")
_HEX = regex.compile(r"[0-9a-fA-F]+")


def parse_hex(text: str, limit: int = MAX_HEX_BYTES) -> bytes:
    """Bytes written in hex: ``"80 61 62 63"``, ``"0x80, 0x61"``, ``"80616263"`` or
    ``"\\x80\\x61"``. ValueError names the piece that is not hex.

    >>> parse_hex("80 61 62 63")
    b'\\x80abc'
    """
    cleaned = text.replace("\\x", " ").replace("0x", " ").replace("0X", " ")
    out = bytearray()
    for piece in _HEX_SEPARATORS.split(cleaned.strip()):
        if not piece:
            continue
        if not _HEX.fullmatch(piece):
            raise ValueError(
                f"{piece[:20]!r} is not hex: write bytes as pairs of 0-9 and a-f, e.g. 80 61 62 63"
            )
        if len(piece) % 2 and len(piece) > 1:
            raise ValueError(f"{piece[:20]!r} has an odd number of hex digits: two per byte")
        out += bytes.fromhex(piece.zfill(2))
        if len(out) > limit:
            raise ValueError(f"At most {limit:,} bytes, please.")
    return bytes(out)


def decodings(data: bytes) -> dict[str, str]:
    """``bytes.decode("utf-8", errors=...)`` for "replace", "strict" and "backslashreplace";
    for "strict" the error message when it fails.

    >>> decodings(b"\\x80abc")["replace"]
    '\\ufffdabc'
    """
    out = {"replace": data.decode("utf-8", "replace")}
    try:
        out["strict"] = data.decode("utf-8")
    except UnicodeDecodeError as e:
        out["strict"] = f"UnicodeDecodeError: {e}"
    out["backslashreplace"] = data.decode("utf-8", "backslashreplace")
    return out


def invalid_ranges(data: bytes) -> list[tuple[int, int]]:
    """The ``(start, end)`` runs of bytes a UTF-8 decoder rejects, in order; with
    ``errors="replace"`` each run becomes one U+FFFD.

    >>> invalid_ranges(b"\\x80abc"), invalid_ranges(b"\\xe2\\x82!")
    ([(0, 1)], [(0, 2)])
    """
    bad = []
    pos = 0
    view = memoryview(data)
    while pos < len(data):
        try:
            str(view[pos:], "utf-8")
            break
        except UnicodeDecodeError as e:
            bad.append((pos + e.start, pos + e.end))
            pos += e.end
    return bad


def bytes_frame(data: bytes) -> pd.DataFrame:
    """One row per byte: hex, bits with the marker set apart, what kind of byte it can be, and
    what the decoder made of it.

    >>> [w[:40] for w in bytes_frame(b"\\x80a")["what decode does"]]
    ['rejected: a continuation byte with no le', 'part of a character']
    """
    what = ["part of a character"] * len(data)
    for start, end in invalid_ranges(data):
        if end - start > 1:  # a lead byte and some of its continuation bytes, then no more
            for i in range(start, end):
                what[i] = (
                    f"rejected: a character cut short ({end - start} of the "
                    f"{_announced(data[start])} bytes its lead byte announces)"
                )
            continue
        kind = byte_kind(data[start])
        if kind == "continuation":
            what[start] = (
                "rejected: a continuation byte with no lead byte before it belongs to no character"
            )
        elif kind.startswith("lead"):
            what[start] = "rejected: the continuation bytes this lead byte announces do not follow"
        else:
            what[start] = "rejected: this byte never occurs in UTF-8"
    rows = [
        {"#": i, "hex": f"{b:02x}", "bits": byte_bits(b), "kind": byte_kind(b),
         "what decode does": what[i]}
        for i, b in enumerate(data)
    ]
    return pd.DataFrame(rows, columns=["#", "hex", "bits", "kind", "what decode does"]).astype(
        {"#": "int64"}
    )


def _announced(lead: int) -> int:
    return 2 if lead < 0xE0 else 3 if lead < 0xF0 else 4


# -- token ids back to text -----------------------------------------------------------------------

_ID_SEPARATORS = regex.compile(r"[\s,;\[\]()]+")
_INTEGER = regex.compile(r"[+-]?[0-9]{1,30}")


@dataclass
class Decoded:
    """What a pasted list of ids decodes to, and what was wrong with it."""

    ids: list[int] = field(default_factory=list)  # the known ids, in order
    problems: list[tuple[int, str, str]] = field(default_factory=list)  # (position, piece, why)
    data: bytes = b""
    note: str | None = None  # e.g. that only the first MAX_DECODE_IDS ids were read

    @property
    def text(self) -> str:
        """The ``decode(errors="replace")`` result."""
        return self.data.decode("utf-8", "replace")

    def problems_frame(self, limit: int = MAX_PROBLEMS_SHOWN) -> pd.DataFrame:
        rows = [{"position": p, "input": s, "problem": why} for p, s, why in self.problems[:limit]]
        return pd.DataFrame(rows, columns=["position", "input", "problem"])


def split_ids(text: str) -> list[str]:
    """The pieces of a pasted id list: separated by spaces, commas, semicolons or brackets.

    >>> split_ids("[15339, 1917]")
    ['15339', '1917']
    """
    return [p for p in _ID_SEPARATORS.split(text) if p]


def decode_ids(tok, text: str, max_ids: int = MAX_DECODE_IDS) -> Decoded:
    """Parse pasted ids, flag pieces that are not whole numbers and ids the tokenizer does not
    have (by 1-based position), and decode the rest (bytes joined first, then decoded)."""
    if len(text) > MAX_IDS_INPUT_CHARS:
        raise ValueError(f"At most {MAX_IDS_INPUT_CHARS:,} characters of ids, please.")
    pieces = split_ids(text)
    out = Decoded()
    if len(pieces) > max_ids:
        out.note = f"Only the first {max_ids:,} of {len(pieces):,} ids were read."
        pieces = pieces[:max_ids]
    vocab = tok.vocab
    top = max(vocab)
    for position, piece in enumerate(pieces, 1):
        shown = piece if len(piece) <= 30 else piece[:30] + "…"
        if not _INTEGER.fullmatch(piece):
            out.problems.append((position, shown, "not a whole number"))
            continue
        value = int(piece)
        if value not in vocab:
            out.problems.append(
                (position, shown, f"no such id: this tokenizer's ids are 0..{top:,}")
            )
            continue
        out.ids.append(value)
    out.data = tok.decode_bytes(out.ids)
    return out


def decoded_html(
    data: bytes, limit: int = MAX_DECODED_BYTES_SHOWN, whitespace: bool = False
) -> tuple[str, int]:
    """Decoded bytes as escaped HTML, bytes that are not valid UTF-8 shown as hex on red;
    returns ``(html, bytes left out)``. The cut falls at a character's first byte."""
    cut = min(len(data), limit)
    back = 0
    while cut < len(data) and back < 3 and byte_kind(data[cut]) == "continuation":
        cut -= 1
        back += 1
    if cut < len(data) and byte_kind(data[cut]) == "continuation":
        cut += back  # only continuation bytes here: nothing to keep together
    return CSS + f'<div class="bpe-tokens">{token_label(data[:cut], whitespace)}</div>', (
        len(data) - cut
    )


def ids_frame(tok, ids: list[int], limit: int = MAX_ID_ROWS) -> pd.DataFrame:
    """One row per id (the first ``limit``): the id, its text (bad bytes as hex), its bytes."""
    rows = []
    for position, i in enumerate(ids[:limit], 1):
        token = tok.vocab[i]
        rows.append({"#": position, "id": i, "token": token_text(token), "bytes": token.hex(" ")})
    return pd.DataFrame(rows, columns=["#", "id", "token", "bytes"])


def first_ids(tok, text: str, n: int = 30, allowed_special: object = "none") -> list[int]:
    """The ids of the first ``n`` tokens of ``text``, special-token text read as
    ``allowed_special`` says (the page passes the session's rule: "none", text; "all", special).

    Only the start of the text is encoded; the split pattern keeps tokens inside chunks, so
    the first tokens come out as in the whole text unless a chunk crosses the cut.
    """
    return tok.encode(text[: max(200, 40 * n)], allowed_special=allowed_special)[:n]
