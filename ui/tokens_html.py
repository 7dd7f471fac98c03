"""Tokens as coloured HTML: every token a span, every piece of text escaped.

Plain functions that return strings, so they can be tested without Streamlit. The page shows the
result with ``st.html``. Nothing from the user reaches the HTML unescaped: token text, titles
and chunk text all pass through ``html.escape``.
"""

from __future__ import annotations

import html
from collections.abc import Sequence

# Light backgrounds with dark text: readable on a projector. Neighbouring tokens always get
# different colours (the index cycles), and a gap between spans marks every boundary as well.
# Derived from the Okabe-Ito palette, which stays distinguishable under the common colour-vision
# deficiencies; hues alternate warm/cool so that neighbours differ in lightness too.
PALETTE = ["#b9dcf2", "#f8d9a6", "#b3e3d2", "#f4c4d8", "#fff2a6", "#cfd6f5", "#f5c9a9", "#d5e8b5"]
# Sequential blues for "by length" and "by merge age": light = short / early, dark = long / late.
SEQUENTIAL = ["#eef4fb", "#d3e4f4", "#b4d1ec", "#8fbae0", "#69a2d4", "#4a88c2", "#336fae", "#225896"]

WHITESPACE_GLYPHS = {" ": "·", "\t": "→", "\n": "↵", "\r": "␍"}

_COLOURS = "\n".join(
    [f".bpe-tokens .c{i} {{ background: {c}; }}" for i, c in enumerate(PALETTE)]
    + [f".bpe-tokens .s{i} {{ background: {c}; }}" for i, c in enumerate(SEQUENTIAL)]
)
CSS = """
<style>
.bpe-tokens { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace;
  font-size: var(--bpe-size, 1rem); line-height: 2.0; white-space: pre-wrap;
  word-break: break-all; color: #111; }
.bpe-tokens .t { border-radius: 3px; padding: 1px 0; margin-right: 1px;
  box-shadow: inset 0 0 0 1px rgba(0,0,0,0.12); }
.bpe-tokens .t:hover { outline: 2px solid #111; }
.bpe-tokens .ws { color: #7a7a7a; }
.bpe-tokens .bytes { font-size: 0.8em; color: #6b1d1d; background: #fbe3e3; border-radius: 2px;
  padding: 0 2px; }
.bpe-tokens .special { background: #222 !important; color: #fff; font-weight: 600; }
.bpe-tokens .new { outline: 3px solid #d55e00; outline-offset: -1px; }
.bpe-tokens .id { font-size: 0.85em; padding: 0 4px; }
.bpe-tokens.large { --bpe-size: 1.6rem; }
""" + _COLOURS + "\n</style>\n"


def text_and_bytes(token: bytes) -> list[tuple[str, bool]]:
    """Split a token's bytes into readable text and bytes that are not (part of) valid UTF-8.

    >>> text_and_bytes("é".encode())
    [('é', False)]
    >>> text_and_bytes(b"a\\xc3")
    [('a', False), ('c3', True)]
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


def _escaped_text(text: str, whitespace: bool) -> str:
    if not whitespace:
        return html.escape(text)
    shown = show_whitespace(text)
    if shown == text:
        return html.escape(text)
    # grey the glyphs so they read as markers, not as text
    out = []
    for ch in shown:
        if ch in WHITESPACE_GLYPHS.values():
            out.append(f'<span class="ws">{ch}</span>')
        else:
            out.append(html.escape(ch))
    return "".join(out)


def token_label(token: bytes, whitespace: bool = False) -> str:
    """A token's visible content as escaped HTML: its text, with invalid bytes shown as hex."""
    out = []
    for part, is_bytes in text_and_bytes(token):
        if is_bytes:
            out.append(f'<span class="bytes">{html.escape(part)}</span>')
        else:
            out.append(_escaped_text(part, whitespace))
    return "".join(out)


def token_title(token_id: int, token: bytes, step: int | None = None) -> str:
    """The hover text: id, text (control characters escaped) and bytes in hex."""
    text = token.decode("utf-8", errors="backslashreplace")
    text = text.encode("unicode_escape").decode("ascii") if not text.isprintable() else text
    title = f"id {token_id} · {text!r} · {token.hex(' ')}"
    if step:
        title += f" · made by merge {step}"
    return title


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


def tokens_html(
    tokens: Sequence,
    *,
    step_of: dict[int, int] | None = None,
    colour: str = "cycle",
    whitespace: bool = False,
    ids: bool = False,
    max_tokens: int = 20_000,
    large: bool = False,
) -> tuple[str, int]:
    """HTML for a sequence of tokens; returns ``(html, how many tokens were left out)``.

    ``tokens`` holds ``TokenSpan``s (or anything with ``id``, ``token``, ``new`` and ``special``).
    Only the first ``max_tokens`` are drawn, so that a huge text cannot freeze the browser.
    """
    step_of = step_of or {}
    max_step = max(step_of.values(), default=0)
    shown = tokens[:max_tokens]
    spans = []
    for i, t in enumerate(shown):
        step = step_of.get(t.id, 0)
        classes = "t"
        if t.special:
            classes += " special"
        if getattr(t, "new", False):
            classes += " new"
        label = f'<span class="id">{t.id}</span>' if ids else token_label(t.token, whitespace)
        title = html.escape(token_title(t.id, t.token, step), quote=True)
        classes += " " + colour_for(i, t.token, step, colour, max_step)
        spans.append(f'<span class="{classes}" title="{title}">{label}</span>')
    size_class = " large" if large else ""
    body = f'<div class="bpe-tokens{size_class}">{"".join(spans)}</div>'
    return CSS + body, max(0, len(tokens) - len(shown))


def chunks_html(chunks: Sequence[str], *, whitespace: bool = True, max_chunks: int = 20_000,
                large: bool = False) -> tuple[str, int]:
    """HTML for the split pattern's chunks, each a coloured span (merges stay inside one)."""
    shown = chunks[:max_chunks]
    spans = []
    for i, chunk in enumerate(shown):
        title = html.escape(f"chunk {i + 1} · {chunk!r} · {len(chunk.encode('utf-8'))} bytes", quote=True)
        spans.append(
            f'<span class="t c{i % len(PALETTE)}" title="{title}">'
            f"{_escaped_text(chunk, whitespace)}</span>"
        )
    size_class = " large" if large else ""
    return CSS + f'<div class="bpe-tokens{size_class}">{"".join(spans)}</div>', max(
        0, len(chunks) - len(shown)
    )
