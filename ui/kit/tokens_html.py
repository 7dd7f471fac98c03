"""Tokens as coloured HTML: every token a span, every piece of text escaped.

Plain functions that return strings, so they can be tested without Streamlit. The page shows the
result with ``st.html``. Nothing from the user reaches the HTML unescaped: token text, titles
and chunk text all pass through ``html.escape``; everything else is this module's own constants.

Rendering is bounded: at most ``MAX_SPANS`` spans and about ``MAX_CHARS`` characters of token
text are drawn, so that a 1 MB text (or one huge token) cannot freeze the browser. The functions
return how many tokens or chunks were left out, and ``cap_note`` words it for the page.
"""

from __future__ import annotations

import html
import re
import unicodedata
from collections import Counter
from collections.abc import Collection, Sequence
from typing import NamedTuple

from ui.kit.focus import FOCUS_RULE

MAX_SPANS = 10_000  # token or chunk spans drawn at most
MAX_IDS = 5_000  # ids listed at most
MAX_CHARS = 200_000  # bytes of token text drawn at most (a single token can be huge)
TITLE_CHARS = 60  # hover text shows at most this many characters and bytes of a token

# Light backgrounds with dark text (contrast >= 12 with #111): readable on a projector.
# Neighbouring tokens always get different colours (the index cycles), and a gap between spans
# marks every boundary as well. Derived from the Okabe-Ito palette; the order is
# ui.kit.palette.CVD_SAFE_PALETTE, in which every pair of neighbours (last -> first too) stays
# at least CIEDE2000 12.5 apart under normal vision, protanopia, deuteranopia and tritanopia.
PALETTE = ["#b9dcf2", "#f5c9a9", "#cfd6f5", "#f8d9a6", "#b3e3d2", "#fff2a6", "#f4c4d8", "#d5e8b5"]
# Sequential blues for "by length" and "by merge age": light = short / early, dark = long / late.
# The two darkest take white text (contrast 5:1 and 7:1; dark text would be 3.6:1 and 2.6:1).
SEQUENTIAL = ["#eef4fb", "#d3e4f4", "#b4d1ec", "#8fbae0",
              "#69a2d4", "#4a88c2", "#336fae", "#225896"]

# How the token view can colour tokens: value -> label shown on the page
COLOUR_MODES = {
    "cycle": "Alternating",
    "length": "By length (bytes)",
    "age": "By merge age",
}

WHITESPACE_GLYPHS = {" ": "·", "\t": "→", "\n": "↵", "\r": "␍", "\u00a0": "⍽"}
DOTTED_CIRCLE = "\u25cc"  # shown before a token that starts with a combining mark

# Characters that are drawn as a marker, never as themselves: C0/C1 controls other than tab, LF
# and CR (the HTML parser turns NUL into U+FFFD and the rest are invisible) and the bidirectional
# controls (an unmatched U+202E would mirror the rest of the view).
_INVISIBLE = "\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069"
_MARKED = re.compile(f"[{_INVISIBLE}]+")
_MARKED_WS = re.compile(f"[{_INVISIBLE}]+|[ \t\n\r\u00a0]+")

_COLOURS = "\n".join(
    f".bpe-tokens .{k}{i}, .bpe-legend .{k}{i} {{ background: {c}; }}"
    for k, colours in (("c", PALETTE), ("s", SEQUENTIAL))
    for i, c in enumerate(colours)
)
# the token view's rules; CSS wraps them for st.html, the front page's component takes them as they are.
# Every view grows with projector mode's scale (--bpe-scale, ui/kit/state.py), "large" or not.
CSS_RULES = """
.bpe-tokens { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace;
  font-size: var(--bpe-size, calc(1rem * var(--bpe-scale, 1))); line-height: 2.0; white-space: pre-wrap;
  overflow-wrap: anywhere; color: #111; max-height: 75vh; overflow-y: auto; padding: 2px; }
.bpe-tokens.large { --bpe-size: 1.6rem; line-height: 1.9; }
.bpe-tokens .t { border-radius: 3px; padding: 1px 0; margin-right: 0.12em;
  box-shadow: inset 0 0 0 1px rgba(0,0,0,0.15); }
.bpe-tokens .alt { box-shadow: inset 0 0 0 1px rgba(0,0,0,0.15), inset 0 -3px 0 rgba(0,0,0,0.45); }
.bpe-tokens .t:hover { outline: 2px solid #d55e00; }
.bpe-tokens:focus-visible { @FOCUS_RULE@ }
.bpe-tokens .s6, .bpe-tokens .s7, .bpe-legend .s6, .bpe-legend .s7 { color: #fff; }
.bpe-tokens .ws, .bpe-tokens .ctl { opacity: 0.55; }
.bpe-tokens .eow { font-style: italic; font-size: 0.85em; }
.bpe-tokens .ctl { font-size: 0.8em; }
.bpe-tokens .bytes { font-size: 0.8em; color: #6b1d1d; background: #fbe3e3; border-radius: 2px;
  padding: 0 2px; border: 1px dashed #6b1d1d; }
.bpe-tokens .more { font-size: 0.8em; font-style: italic; }
.bpe-tokens .special { background: #222 !important; color: #fff; font-weight: 700;
  box-shadow: 0 0 0 2px #d55e00; margin: 0 0.2em; }
.bpe-tokens .new { outline: 3px solid #d55e00; outline-offset: -1px; }
.bpe-tokens .id { font-size: 0.85em; padding: 0 4px; }
.bpe-tokens.ids .t { display: inline-block; line-height: 1.5; margin-bottom: 0.25em; }
.bpe-legend { font-size: 0.85rem; display: flex; flex-wrap: wrap; gap: 4px; align-items: center; }
.bpe-legend span { padding: 1px 6px; border-radius: 3px; color: #111; }
""".replace("@FOCUS_RULE@", FOCUS_RULE) + _COLOURS + "\n"
CSS = "\n<style>\n" + CSS_RULES + "</style>\n"


# -- one token's visible content ----------------------------------------------------------------


def text_and_bytes(token: bytes) -> list[tuple[str, bool]]:
    """Split a token's bytes into readable text and bytes that are not (part of) valid UTF-8.

    A token that holds only part of a character comes back as its bytes in hex, never as U+FFFD.

    >>> text_and_bytes("é".encode())
    [('é', False)]
    >>> text_and_bytes(b"a\\xc3")
    [('a', False), ('c3', True)]
    >>> text_and_bytes(b"\\xe2\\x82")
    [('e2 82', True)]
    """
    parts: list[tuple[str, bool]] = []
    rest = token
    while rest:
        try:
            parts.append((rest.decode("utf-8"), False))
            break
        except UnicodeDecodeError as e:
            if e.start:
                parts.append((rest[: e.start].decode("utf-8"), False))
            parts.append((rest[e.start : e.end].hex(" "), True))
            rest = rest[e.end :]
    return parts


def show_whitespace(text: str) -> str:
    """Make whitespace visible: "a b\\n" -> "a·b↵\\n" (a real line break follows the glyph)."""
    out = []
    for ch in text:
        glyph = WHITESPACE_GLYPHS.get(ch)
        if glyph is None:
            out.append(ch)
        elif ch == "\n":
            out.append(glyph + "\n")
        else:
            out.append(glyph)
    return "".join(out)


def visible(text: str) -> str:
    """Text for a table cell: whitespace as glyphs, other invisible characters as escapes.

    >>> visible("a b\\n")
    'a·b↵'
    >>> print(visible("\\x00\\u200d"))
    \\x00\\u200d
    """
    out = []
    for ch in text:
        if ch in WHITESPACE_GLYPHS:
            out.append(WHITESPACE_GLYPHS[ch])
        elif not ch.isprintable():  # controls, format characters (bidi), line separators
            out.append(repr(ch)[1:-1])
        else:
            out.append(ch)
    return "".join(out)


def token_text(token: bytes, limit: int | None = None) -> str:
    """A token as one line of plain text, spelled the same on every page and in every table:
    whitespace as ``· → ↵ ␍ ⍽``, other invisible characters as ``\\uXXXX``, bytes that are not
    (whole) UTF-8 characters as hex in ``⟨ ⟩``; cut to ``limit`` characters with ``…``.

    >>> token_text(b" the\\n"), token_text("é".encode()[:1]), token_text(b"ab\\xe2\\x80")
    ('·the↵', '⟨c3⟩', 'ab⟨e2 80⟩')
    >>> token_text(b"\\x00"), token_text(b"abcdefgh", limit=4)
    ('\\\\u0000', 'abc…')
    """
    out = []
    for part, is_bytes in text_and_bytes(token if limit is None else token[: limit * 4 + 4]):
        if is_bytes:
            out.append(f"⟨{part}⟩")
            continue
        for ch in part:
            if ch in WHITESPACE_GLYPHS:
                out.append(WHITESPACE_GLYPHS[ch])
            elif not ch.isprintable():  # controls, format characters (bidi), line separators
                out.append(f"\\u{ord(ch):04x}" if ord(ch) < 0x10000 else f"\\U{ord(ch):08x}")
            else:
                out.append(ch)
    text = "".join(out)
    if limit is not None and len(text) > limit:
        text = text[: limit - 1] + "…"
    return text


def _marker(run: str) -> tuple[str, str]:
    """A run of whitespace (as glyphs) or invisible characters (as short names), with its class."""
    if run[0] in WHITESPACE_GLYPHS:
        return "ws", show_whitespace(run)
    names = []
    for ch in run:
        cp = ord(ch)
        # U+2400.. are the control pictures ␀ ␁ …; U+2421 is ␡
        names.append(chr(0x2400 + cp) if cp < 0x20 else "␡" if cp == 0x7F else f"U+{cp:04X}")
    return "ctl", " ".join(names)


def _text_parts(text: str, whitespace: bool) -> list[tuple[str, str]]:
    """Text as parts; invisible characters (and whitespace, if asked) as markers."""
    pattern = _MARKED_WS if whitespace else _MARKED
    out = []
    if text and unicodedata.category(text[0])[0] == "M":  # a combining mark with nothing to sit on
        out.append(("ws", DOTTED_CIRCLE))
    pos = 0
    for m in pattern.finditer(text):
        if m.start() > pos:
            out.append(("", text[pos : m.start()]))
        out.append(_marker(m.group()))
        pos = m.end()
    if pos < len(text):
        out.append(("", text[pos:]))
    return out


def label_parts(token: bytes, whitespace: bool = False) -> list[tuple[str, str]]:
    """A token's visible content as ``(class, plain text)`` parts: ``""`` for its text, ``"bytes"``
    for hex of bytes that are not (whole) UTF-8 characters, ``"ws"`` and ``"ctl"`` for markers.
    ``token_label`` draws them as HTML; the front page's component (ui/front/component.py) as DOM nodes
    whose text goes in through ``textContent``.

    >>> label_parts(b"a\\x00b"), label_parts(b"\\xe2\\x82")
    ([('', 'a'), ('ctl', '␀'), ('', 'b')], [('bytes', 'e2 82')])
    >>> label_parts(b" a\\n", whitespace=True)
    [('ws', '·'), ('', 'a'), ('ws', '↵\\n')]
    """
    out = []
    for part, is_bytes in text_and_bytes(token):
        if is_bytes:
            out.append(("bytes", part))  # hex digits and spaces only
        else:
            out.extend(_text_parts(part, whitespace))
    return out


def token_label(token: bytes, whitespace: bool = False) -> str:
    """A token's visible content as escaped HTML: its text, with invalid bytes shown as hex.

    >>> token_label(b"<b>")
    '&lt;b&gt;'
    >>> token_label(b"\\xe2\\x82")
    '<span class="bytes">e2 82</span>'
    """
    return _parts_html(label_parts(token, whitespace))


def _parts_html(parts: list[tuple[str, str]]) -> str:
    return "".join(f'<span class="{cls}">{html.escape(text)}</span>' if cls else html.escape(text)
                   for cls, text in parts)


def _text_html(text: str, whitespace: bool) -> str:
    """Escaped text; invisible characters (and whitespace, if asked) drawn as markers."""
    return _parts_html(_text_parts(text, whitespace))


def _shown(token: bytes, limit: int = TITLE_CHARS) -> str:
    """A token for hover text: ``token_text`` in quotes."""
    return f"'{token_text(token, limit)}'"


def _attr(text: str) -> str:
    """Text for a double-quoted attribute: ``& < > "`` escaped (``'`` is safe there)."""
    return html.escape(text, quote=False).replace('"', "&quot;")


def token_title(token_id: int | None, token: bytes, step: int | None = None, *,
                special: bool = False) -> str:
    """The hover text: id, text (control characters escaped) and bytes in hex; a token without
    an id (subword-nmt's pieces: word BPE numbers nothing) says none.

    >>> token_title(300, b"\\xe2\\x82", 44)
    "id 300 · '⟨e2 82⟩' (part of a character) · bytes e2 82 · made by merge 44"
    >>> token_title(None, b"low@@")
    "'low@@' · bytes 6c 6f 77 40 40"
    """
    if special:
        return f"id {token_id} · special token {_shown(token)}"
    hexed = token[:TITLE_CHARS].hex(" ")
    if len(token) > TITLE_CHARS:
        hexed += f" … ({len(token):,} bytes)"
    partial = any(is_bytes for _, is_bytes in text_and_bytes(token[:TITLE_CHARS * 4]))
    title = ("" if token_id is None else f"id {token_id} · ") + _shown(token)
    if partial:
        title += " (part of a character)"
    title += f" · bytes {hexed}"
    if step:
        title += f" · made by merge {step}"
    return title


# How a screen reader hears a token (``token_spoken``; the stepping view's script speaks by the
# same table): whitespace by name, not by the glyph drawn for it ("·" is read as "middle dot").
SPOKEN_NAMES = {" ": "space", "\t": "tab", "\n": "newline", "\r": "carriage return",
                "\u00a0": "no-break space"}


def spoken_text(token: bytes) -> str:
    """A token's content for the ear: words as they are, whitespace by name, other invisible
    characters as ``U+XXXX`` and bytes that are not (whole) UTF-8 characters as ``byte E4``;
    the pieces apart by spaces.

    >>> spoken_text(b"a\\tb\\n\\xe4")
    'a tab b newline byte E4'
    """
    words: list[str] = []
    glued = False  # the last piece is text that the next letters continue
    for part, is_bytes in text_and_bytes(token):
        if is_bytes:
            words += [f"byte {b.upper()}" for b in part.split()]
            glued = False
            continue
        for ch in part:
            name = SPOKEN_NAMES.get(ch)
            if name is None and not ch.isprintable():
                name = f"U+{ord(ch):04X}"
            if name is not None:
                words.append(name)
                glued = False
            elif glued:
                words[-1] += ch
            else:
                words.append(ch)
                glued = True
    return " ".join(words)


def token_spoken(token_id: int | None, token: bytes, step: int | None = None, *,
                 special: bool = False) -> str:
    """What a screen reader says for a token, the same on every page: its content for the ear,
    its id and its length, and the merge that made it. The stepping view's script
    (ui/stepping/component.py) says it the same way.

    >>> token_spoken(262, b" the", 7)
    'space the, id 262, 4 bytes, made by merge 7'
    >>> token_spoken(10, b"\\n"), token_spoken(300, b"\\xe4\\xb8")
    ('newline, id 10, 1 byte', 'byte E4 byte B8, id 300, 2 bytes')
    >>> token_spoken(100257, b"<|endoftext|>", special=True)
    'special token <|endoftext|>, id 100257'
    >>> token_spoken(None, b"low@@")
    'low@@, 5 bytes'
    """
    if special:
        return f"special token {token_text(token, TITLE_CHARS)}, id {token_id}"
    text = spoken_text(token[:TITLE_CHARS])
    if len(token) > TITLE_CHARS:
        text += " …"
    n = len(token)
    spoken = (f"{text}," + ("" if token_id is None else f" id {token_id},")
              + f" {n:,} byte{'' if n == 1 else 's'}")
    if step:
        spoken += f", made by merge {step}"
    return spoken


# -- a sequence of tokens -------------------------------------------------------------------------


def colour_for(index: int, token: bytes, step: int, mode: str, max_step: int) -> str:
    """CSS class of a token's colour: cycling palette ``c0..``, or ``s0..`` by length or age."""
    if mode == "length":
        return f"s{min(len(token), len(SEQUENTIAL)) - 1}"
    if mode == "age":
        if step == 0:
            return "s0"
        k = 1 + (step - 1) * (len(SEQUENTIAL) - 1) // max(max_step, 1)
        return f"s{min(k, len(SEQUENTIAL) - 1)}"
    return f"c{index % len(PALETTE)}"


def _cut_utf8(data: bytes, n: int) -> bytes:
    """The first ``n`` bytes of ``data``, backed off so that no character is cut in two."""
    cut = data[:n]
    for back in range(1, min(4, len(cut)) + 1):
        b = cut[-back]
        if b < 0x80:  # ASCII: nothing is cut
            return cut
        if b >= 0xC0:  # a lead byte: is its character complete?
            need = 2 if b < 0xE0 else 3 if b < 0xF0 else 4
            return cut if back >= need else cut[:-back]
    return cut


class Piece(NamedTuple):
    """What ``tokens_html`` needs from a token (a TokenSpan has the same fields); ``id`` None for
    a token its tool numbers not (subword-nmt's pieces). ``kind`` says what ``token`` is
    (``PIECE_KINDS``): ``""`` a byte-level token's bytes, else a piece of another family of
    BPE as its family writes it (UTF-8), drawn and said by ``piece_parts``, ``piece_spoken``
    and ``piece_title``."""

    id: int | None
    token: bytes
    new: bool = False
    special: bool = False
    kind: str = ""


# -- a piece of SentencePiece's or word BPE's (ui.kit.family_tokens makes them) -------------------

# Piece.kind: "" bytes (byte-level BPE), "piece" a SentencePiece piece (▁ a space), "word" a word
# BPE piece (a trailing </w> ends a word: subword-nmt's merges, CLIP's), "byte" a byte-fallback
# piece <0xE4>, "unknown" and "control" SentencePiece's pieces of those kinds
PIECE_KINDS = ("", "piece", "word", "byte", "unknown", "control")
SPACE_MARK = "\u2581"  # SentencePiece's spelling of a space, drawn as it is, greyed as a marker
END_MARK = "</w>"  # word BPE's end of a word


def _piece_text(token: bytes) -> str:
    try:
        return token.decode("utf-8")
    except UnicodeDecodeError:  # (part of a character: a CLIP piece over bytes)
        return token_text(token)


def _piece_runs(token: bytes, kind: str) -> list[tuple[str, bytes]]:
    """A piece as runs: ``("ws", ▁)`` or ``("eow", </w>)`` for a marker, ``("", bytes)`` for
    the rest. ``</w>`` is letters, so it is drawn as text at full contrast (WCAG 1.4.3; axe
    found the faded marker below 4.5:1 on the palette), set apart by its italic."""
    body, end = token, b""
    if kind == "word" and body.endswith(END_MARK.encode()):
        body, end = body[:-len(END_MARK)], END_MARK.encode()
    runs: list[tuple[str, bytes]] = []
    marks = body.split(SPACE_MARK.encode()) if kind in ("piece", "unknown") else [body]
    for i, run in enumerate(marks):
        if i:
            runs.append(("ws", SPACE_MARK.encode()))
        if run:
            runs.append(("", run))
    if end:
        runs.append(("eow", end))
    return runs


def piece_parts(token: bytes, kind: str) -> list[tuple[str, str]]:
    """A piece's visible content as ``(class, text)`` parts, as ``label_parts``: ``"ws"`` for
    the marker ``▁``, ``"eow"`` for ``</w>``, ``"bytes"`` for a byte-fallback piece.

    >>> piece_parts("▁the".encode(), "piece"), piece_parts(b"<0xE4>", "byte")
    ([('ws', '▁'), ('', 'the')], [('bytes', '<0xE4>')])
    >>> piece_parts(b"er</w>", "word")
    [('', 'er'), ('eow', '</w>')]
    """
    if kind in ("byte", "control"):
        return [("bytes" if kind == "byte" else "ctl", _piece_text(token))]
    out: list[tuple[str, str]] = []
    for cls, run in _piece_runs(token, kind):
        out.extend([(cls, run.decode())] if cls else label_parts(run))
    return out


def piece_spoken(token_id: int | None, token: bytes, kind: str) -> str:
    """What a screen reader says for a piece: ``▁`` as "space", ``<0xE4>`` as "byte E4",
    ``</w>`` as "end of word", the rest as ``spoken_text`` says a token; and the id.

    >>> piece_spoken(5, "▁the".encode(), "piece"), piece_spoken(231, b"<0xE4>", "byte")
    ('space the, id 5', 'byte E4, id 231')
    >>> piece_spoken(None, b"er</w>", "word")
    'er end of word'
    """
    if kind == "byte":
        words = f"byte {int(token[3:-1], 16):02X}"
    elif kind in ("unknown", "control"):
        words = f"{kind} piece {_piece_text(token)[:TITLE_CHARS]}"
    else:
        words = " ".join(spoken_text(run[:TITLE_CHARS]) if not cls else
                         "space" if run == SPACE_MARK.encode() else "end of word"
                         for cls, run in _piece_runs(token, kind))
    return words if token_id is None else f"{words}, id {token_id}"


def piece_title(token_id: int | None, token: bytes, kind: str) -> str:
    """The hover text: the piece as its family writes it, its id, and what a marker means.

    >>> piece_title(231, b"<0xE4>", "byte")
    "piece '<0xE4>' · id 231 · byte fallback: byte E4 of a character no piece holds"
    """
    title = f"piece '{_piece_text(token)[:TITLE_CHARS]}'"
    title += "" if token_id is None else f" · id {token_id}"
    if kind == "byte":
        title += f" · byte fallback: byte {int(token[3:-1], 16):02X} of a character no piece holds"
    elif kind == "unknown":
        title += " · no piece holds it (unknown)"
    elif kind == "piece" and SPACE_MARK.encode() in token:
        title += " · ▁ is a space"
    elif kind == "word" and token.endswith(END_MARK.encode()):
        title += " · </w>: the end of a word"
    return title


def view_attrs(label: str) -> str:
    """The attributes of a token view's box: it scrolls on its own (max-height), so it takes the
    keyboard's focus (tabindex, WCAG 2.1.1); for a screen reader it is a list named ``label``
    whose items are the tokens (``TOKEN_ROLE``): each named by ``token_spoken`` (its content
    for the ear, id, length), its title (id, text as drawn, bytes) the hover text.

    >>> view_attrs('Yours <b>')
    'role="list" tabindex="0" aria-label="Yours &lt;b&gt;"'
    """
    return f'role="list" tabindex="0" aria-label="{_attr(label)}"'


TOKEN_ROLE = 'role="listitem"'  # a token's span in a view (view_attrs)


def view_name(owner: str) -> str:
    """A token view's name for a screen reader, by whose tokens it shows (every view on a page
    named apart: Compare draws four).

    >>> view_name("GPT-4o (o200k_base)"), view_name("Yours: GPT-4 split, vocabulary 512")
    ("GPT-4o's tokens (o200k_base)", 'Your tokens (GPT-4 split, vocabulary 512)')
    >>> view_name("Yours"), view_name("GPT-2")
    ('Your tokens', "GPT-2's tokens")
    """
    if owner == "Yours":
        return "Your tokens"
    if owner.startswith("Yours: "):
        return f"Your tokens ({owner.removeprefix('Yours: ')})"
    name, paren, rest = owner.partition(" (")
    return f"{name}'s tokens" + (f" ({rest}" if paren else "")


def pieces(
    ids: Sequence[int], vocab: dict[int, bytes], new_id: int | None = None,
    specials: Collection[int] = (),
) -> list[Piece]:
    """Ids as drawable tokens; the tokens with ``new_id`` are outlined, ``specials`` drawn as
    special tokens."""
    return [Piece(i, vocab[i], i == new_id, i in specials) for i in ids]


def tokens_html(
    tokens: Sequence,
    *,
    step_of: dict[int, int] | None = None,
    colour: str = "cycle",
    whitespace: bool = False,
    ids: bool = False,
    max_tokens: int = MAX_SPANS,
    max_chars: int = MAX_CHARS,
    large: bool = False,
    mark_new: bool = True,
    css: bool = True,
    name: str = "Tokens",
) -> tuple[str, int]:
    """HTML for a sequence of tokens; returns ``(html, how many tokens were left out)``.

    ``tokens`` holds ``TokenSpan``s (or anything with ``id``, ``token``, ``new`` and ``special``).
    Only the first ``max_tokens`` are drawn, and token text stops after about ``max_chars``
    bytes (a longer token is cut, with a note in it), so a huge text cannot freeze the browser.
    Neighbours never look alike: in ``colour="cycle"`` they differ in colour; by length or age
    every other token is underlined as well. ``mark_new`` outlines tokens made by the last merge.
    ``css=False`` leaves out the stylesheet, for a page that already holds it (every ``<style>``
    restyles the whole page). ``name`` names the view for a screen reader (see ``view_attrs``).
    """
    if colour not in COLOUR_MODES:
        raise ValueError(f"colour must be one of {', '.join(COLOUR_MODES)}, not {colour!r}")
    step_of = step_of or {}
    max_step = max(step_of.values(), default=0)
    sequential = colour != "cycle"
    budget = max_chars
    labels: dict[int | bytes, str] = {}  # id -> label HTML (tokens repeat a lot)
    names: dict[int | bytes, str] = {}  # id -> its title and aria-label attributes
    spans = []
    for i, t in enumerate(tokens):
        if i >= max_tokens or (budget <= 0 and not ids):
            break
        token, kind = t.token, getattr(t, "kind", "")
        seen = token if t.id is None else t.id  # a token without an id is known by its bytes
        step = 0 if t.special else step_of.get(t.id, 0)
        classes = "t " + colour_for(i, token, step, colour, max_step)
        if sequential and i % 2:
            classes += " alt"
        if t.special:
            classes += " special"
        if mark_new and getattr(t, "new", False):
            classes += " new"
        if ids:
            label = f'<span class="id">{"–" if t.id is None else int(t.id)}</span>'
        elif kind:  # a piece of SentencePiece's or word BPE's (short: no cut)
            label = _parts_html(piece_parts(token, kind))
        elif len(token) > budget:
            shown = _cut_utf8(token, budget)
            label = token_label(shown, whitespace)
            label += f'<span class="more"> … {len(token) - len(shown):,} more bytes</span>'
        else:
            label = labels.get(seen)
            if label is None:
                label = labels[seen] = token_label(token, whitespace)
        budget -= len(token)
        named = names.get(seen)
        if named is None and kind:  # a piece: named as its family writes it (quotes escaped)
            title = html.escape(piece_title(t.id, token, kind))
            spoken = html.escape(piece_spoken(t.id, token, kind))
            named = names[seen] = f'title="{title}" aria-label="{spoken}"'
        elif named is None:  # hover text for the eye, a name for the ear (token_spoken)
            title = _attr(token_title(t.id, token, step, special=t.special))
            spoken = _attr(token_spoken(t.id, token, step, special=t.special))
            named = names[seen] = f'title="{title}" aria-label="{spoken}"'
        spans.append(f'<span class="{classes}" {TOKEN_ROLE} {named}>{label}</span>')
    # ids are drawn as blocks so that a line never breaks inside a number
    classes = "bpe-tokens" + (" large" if large else "") + (" ids" if ids else "")
    body = f'<div class="{classes}" {view_attrs(name)}>{"".join(spans)}</div>'
    return (CSS if css else "") + body, len(tokens) - len(spans)


def cap_note(shown: int, total: int, what: str = "tokens") -> str | None:
    """The note under a bounded view, or None when everything is shown.

    >>> cap_note(20_000, 310_000)
    'Showing the first 20,000 of 310,000 tokens.'
    """
    if shown >= total:
        return None
    return f"Showing the first {shown:,} of {total:,} {what}."


def legend_html(colour: str, max_step: int) -> str:
    """A small key for the sequential colour modes ("" for the alternating one)."""
    if colour == "length":
        labels = [f"{n} byte{'s' if n > 1 else ''}" for n in range(1, len(SEQUENTIAL))]
        labels.append(f"{len(SEQUENTIAL)}+ bytes")
    elif colour == "age":
        n = len(SEQUENTIAL) - 1
        labels = ["a byte"]
        for k in range(1, n + 1):  # the merges colour_for puts in bin k
            lo = (k - 1) * max(max_step, 1) // n + 1
            hi = k * max(max_step, 1) // n
            if k == n:
                hi = max(hi, max_step)
            labels.append(f"merge {lo:,}–{hi:,}" if hi > lo else f"merge {lo:,}")
        if max_step == 0:
            labels = labels[:1]
    else:
        return ""
    swatches = "".join(
        f'<span class="s{i}">{html.escape(label)}</span>' for i, label in enumerate(labels)
    )
    return CSS + f'<div class="bpe-legend">{swatches}</div>'


class TokenSummary(NamedTuple):
    """What the token view needs from a text's tokens, small enough to keep between reruns."""

    shown: list  # the first TokenSpans: at most ``MAX_SPANS``, about ``MAX_CHARS`` bytes
    total: int  # how many tokens the text has
    partial: int  # tokens that hold part of a UTF-8 character
    special: int  # special tokens
    ids: list[int]  # the first ``MAX_IDS`` ids


def summarise(
    steps, *, max_spans: int = MAX_SPANS, max_ids: int = MAX_IDS, max_bytes: int = MAX_CHARS
) -> TokenSummary:
    """The fully merged tokens of a ``StepThrough``: the first few as spans, the rest counted.

    Only the start of the text becomes ``TokenSpan``s (``steps.head``), so a 1 MB text costs
    its ids, not a million spans. A token is partial exactly when its bytes are not valid UTF-8
    on their own (the text is valid UTF-8, so a token that starts and ends between characters
    holds whole characters), which lets the count run over distinct ids.

    >>> from bpe_core import BasicTokenizer
    >>> s = summarise(BasicTokenizer().step_through("é!"), max_spans=1)
    >>> [t.token for t in s.shown], s.total, s.partial, s.special, s.ids
    ([b'\\xc3'], 3, 2, 0, [195, 169, 33])
    """
    k = steps.num_merges
    ids = list(steps.final)  # the full encoding: the ids after all merges, as token_ids_at(k)
    vocab = steps.tokenizer.vocab
    partial_ids = {i for i in set(ids) if not _is_utf8(vocab[i])}
    partial = sum(map(partial_ids.__contains__, ids)) if partial_ids else 0
    # the first max_spans tokens, as far as they end within max_bytes (the first one always)
    end = min(steps.starts[min(len(ids), max_spans)], max_bytes)
    shown = steps.head(max(end, steps.starts[min(len(ids), 1)])).tokens_at(k)
    return TokenSummary(shown, len(ids), partial, sum(steps.special), ids[:max_ids])


def _is_utf8(data: bytes) -> bool:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def token_counts(text: str, tokens: Sequence | int) -> dict[str, str]:
    """The counts shown above the view: characters, bytes, tokens (or their number), bytes/token.

    >>> token_counts("hé", [])
    {'Characters': '2', 'Bytes': '3', 'Tokens': '0', 'Bytes per token': '–'}
    """
    n_bytes = len(text.encode("utf-8", "replace"))
    n = tokens if isinstance(tokens, int) else len(tokens)
    return {
        "Characters": f"{len(text):,}",
        "Bytes": f"{n_bytes:,}",
        "Tokens": f"{n:,}",
        "Bytes per token": f"{n_bytes / n:.2f}" if n else "–",
    }


# -- the split pattern's chunks -------------------------------------------------------------------


def chunks_of(tok, text: str, allowed_special: object = "none") -> tuple[list[str], list[bool]]:
    """How ``tok`` cuts ``text`` before merging: ``(chunks, is_special)``, in order.

    Special-token text read as special tokens (``allowed_special="all"``: the page passes the
    session's rule, ``ui.kit.special_rule``) is chunks of its own; the rest of the text is cut
    by the split pattern (not at all for a tokenizer without one). With ``"none"`` (the
    default) it is ordinary text.
    """
    pieces = tok.chunks(text, allowed_special=allowed_special)
    return [chunk for chunk, _ in pieces], [special_id is not None for _, special_id in pieces]


def chunks_html(
    chunks: Sequence[str],
    *,
    special: Sequence[bool] | None = None,
    whitespace: bool = True,
    max_chunks: int = MAX_SPANS,
    max_chars: int = MAX_CHARS,
    large: bool = False,
    name: str = "Chunks",
) -> tuple[str, int]:
    """HTML for the split pattern's chunks, each a coloured span (merges stay inside one).

    Returns ``(html, how many chunks were left out)``; bounded like ``tokens_html``.
    """
    budget = max_chars
    spans = []
    for i, chunk in enumerate(chunks):
        if i >= max_chunks or budget <= 0:
            break
        is_special = bool(special and special[i])
        data = chunk.encode("utf-8", "replace")
        classes = f"t c{i % len(PALETTE)}" + (" special" if is_special else "")
        what = "special token" if is_special else f"chunk {i + 1}"
        size = f"{len(data):,} byte" + ("s" if len(data) != 1 else "")
        title = _attr(f"{what} · {_shown(data)} · {size}")
        if len(chunk) > budget:
            label = _text_html(chunk[:budget], whitespace)
            label += f'<span class="more"> … {len(chunk) - budget:,} more characters</span>'
        else:
            label = _text_html(chunk, whitespace)
        budget -= len(chunk)
        said = _attr(f"{spoken_text(data[:TITLE_CHARS])}, {what}, {size}")  # as a token is said
        spans.append(f'<span class="{classes}" {TOKEN_ROLE} title="{title}" aria-label="{said}">'
                     f'{label}</span>')
    size_class = " large" if large else ""
    body = f'<div class="bpe-tokens{size_class}" {view_attrs(name)}>{"".join(spans)}</div>'
    return CSS + body, len(chunks) - len(spans)


# -- a hint when most tokens are single bytes -----------------------------------------------------

BYTES_HINT_SHARE = 0.5  # the hint shows when more than this share of the tokens are single bytes
BYTES_HINT_MIN = 20  # ... of at least this many tokens
BYTES_HINT_FEW_MERGES = 5_000  # up to this many merges, "only N merges" is the reason given


def bytes_hint(tokens: Sequence[bytes], text: str, num_merges: int) -> str | None:
    """Why most tokens are single bytes, in Markdown (None when they are not): few merges, and
    each character outside ASCII is several UTF-8 bytes that only merges join into one token.

    >>> print(bytes_hint([bytes([b]) for b in "你好世界".encode() * 3], "你好世界" * 3, 44))
    36 of 36 tokens here are single bytes, most of them pieces of characters: this tokenizer has only 44 merges. Each character outside ASCII is 2 to 4 bytes in UTF-8 (你 is 3: e4 bd a0) and becomes one token only once merges have joined its bytes: train with a larger vocabulary, or on text like this one.
    >>> bytes_hint([b"hello", b" world"] * 20, "hello world" * 20, 300) is None
    True
    >>> print(bytes_hint([b"h", b"i"] * 20, "hi" * 20, 50_000))
    40 of 40 tokens here are single bytes: this tokenizer's 50,000 merges were learned on text unlike this one, and few of them join the pairs this text uses. Train on text like this one.
    """
    n = len(tokens)
    single = sum(len(t) == 1 for t in tokens)
    if n < BYTES_HINT_MIN or single <= BYTES_HINT_SHARE * n:
        return None
    pieces = sum(len(t) == 1 and t[0] >= 0x80 for t in tokens)
    wide = [c for c in text if ord(c) >= 0x80 and not unicodedata.category(c).startswith("C")]
    merges = f"{num_merges:,} merge{'s' if num_merges != 1 else ''}"
    few = num_merges <= BYTES_HINT_FEW_MERGES
    why = (f"this tokenizer has only {merges}" if few else
           f"this tokenizer's {merges} were learned on text unlike this one")
    advice = "train with a larger vocabulary, or on text like this one" if few else \
        "train on text like this one"
    if pieces * 2 >= single and wide:
        common = Counter(wide).most_common(1)[0][0]
        data = common.encode("utf-8")
        return (f"{single:,} of {n:,} tokens here are single bytes, most of them pieces of "
                f"characters: {why}. Each character outside ASCII is 2 to 4 bytes in UTF-8 "
                f"({common} is {len(data)}: {data.hex(' ')}) and becomes one token only once "
                f"merges have joined its bytes: {advice}.")
    return (f"{single:,} of {n:,} tokens here are single bytes: {why}, and few of them join "
            f"the pairs this text uses. {advice[0].upper()}{advice[1:]}.")


def pair_label(vocab: dict[int, bytes], pair: tuple[int, int]) -> str:
    """``'e' + '·'`` for the pair (101, 32)."""
    a, b = pair
    return f"'{token_text(vocab[a])}' + '{token_text(vocab[b])}'"
