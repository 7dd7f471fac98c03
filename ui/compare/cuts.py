"""Compare tokenizers on one text: counts, coloured views, and where their cuts differ.

Plain functions over plain data (no Streamlit), so the page stays thin and the tests need no
session. A "cut" is a token boundary, written as a byte offset into the text's UTF-8 bytes:
``"    hello"`` under GPT-2 is ``" " " " " " " hello"``, cuts {1, 2, 3}; under GPT-4 it is
``"   " " hello"``, cut {3}. Cuts 1 and 2 are GPT-2's alone.
"""

from __future__ import annotations

import html
from bisect import bisect_left, bisect_right
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import NamedTuple

import pandas as pd
import regex

from bpe_core import clean_text
from ui.kit.tokens_html import tokens_html, view_name, visible

MAX_SPANS_PER_VIEW = 5_000  # four views side by side stay under ~20 000 spans in all
# The views draw the text's first FIRST_VIEW_BYTES until the user asks for the whole text: every
# span costs the browser (2,500 spans for the English sample's four views were about 0.5 s of a
# first visit's 2.2 s; benchmarks/compare_paint.py, docs/BENCHMARKS.md "First visits").
FIRST_VIEW_BYTES = 1_200
MAX_WORDS = 200_000  # words looked at for the disagreement table
TOP_WORDS = 20
# Words, punctuation runs, and runs of two or more whitespace characters (single spaces are
# everywhere and tell nothing; runs of spaces are where GPT-2 and GPT-4 differ most).
WORD_PATTERN = regex.compile(r"\w+|[^\w\s]+|\s{2,}")


MARK_MODES = {
    "not made by every other tokenizer": "some",
    "made by no other tokenizer": "unique",
    "no marks": "none",
}


@dataclass(frozen=True)
class TextCuts:
    """One tokenizer's tokens for a text, with the byte offset where each token starts.

    ``starts`` has one more entry than ``ids``: the last is the text's length in bytes.
    """

    label: str
    ids: list[int]
    tokens: list[bytes]
    special: list[bool]
    starts: Sequence[int]  # an array("q"): 8 bytes a token
    vocab_size: int

    @property
    def num_bytes(self) -> int:
        return self.starts[-1]

    def cuts(self) -> set[int]:
        """Byte offsets between two tokens (not 0, not the end)."""
        return set(self.starts[1:-1])


def encode_text(label: str, tok, text: str, steps=None, allowed_special: object = "none") -> TextCuts:
    """Encode ``text`` and note every token's start. ``steps``: the text's ``StepThrough`` for
    this tokenizer when the session has it already (it holds the same ids and offsets, under the
    session's rule for special-token text: the text is then not encoded again); otherwise the
    text is encoded with ``allowed_special`` ("none", the default: special-token text is text;
    "all": it is the special token).

    >>> from bpe_core import BasicTokenizer
    >>> enc = encode_text("bytes", BasicTokenizer(), "hé")
    >>> enc.ids, list(enc.starts)
    ([104, 195, 169], [0, 1, 2, 3])
    """
    if steps is None:
        steps = tok.step_through(text, allowed_special=allowed_special)
    vocab = tok.vocab
    return TextCuts(
        label=label,
        ids=steps.final,
        tokens=[vocab[i] for i in steps.final],
        special=steps.special,
        starts=steps.starts,
        vocab_size=tok.vocab_size,
    )


def encode_all(tokenizers: Mapping[str, object], text: str,
               allowed_special: object = "none") -> dict[str, TextCuts]:
    """``encode_text`` for every ``label: tokenizer`` (the page keeps each one in the session's
    cache, ``ui.kit.state.derived``)."""
    return {label: encode_text(label, tok, text, allowed_special=allowed_special)
            for label, tok in tokenizers.items()}


# -- the summary -----------------------------------------------------------------------------

SUMMARY_COLUMNS = ["tokenizer", "tokens", "bytes/token", "characters/token", "vocabulary size"]


def summary_frame(encodings: Mapping[str, TextCuts], text: str) -> pd.DataFrame:
    """One row per tokenizer: tokens, bytes per token, characters per token, vocabulary size."""
    n_chars = len(clean_text(text))
    rows = []
    for label, enc in encodings.items():
        n = len(enc.ids)
        rows.append(
            {
                "tokenizer": label,
                "tokens": n,
                "bytes/token": round(enc.num_bytes / n, 2) if n else None,
                "characters/token": round(n_chars / n, 2) if n else None,
                "vocabulary size": enc.vocab_size,
            }
        )
    frame = pd.DataFrame(rows, columns=SUMMARY_COLUMNS)
    return frame.astype({"tokens": "int64", "vocabulary size": "int64"})


# -- where the cuts differ ---------------------------------------------------------------------


def marked_cuts(cuts: Mapping[str, set[int]], mode: str = "some") -> dict[str, set[int]]:
    """For each tokenizer, the cuts to mark in its view.

    ``mode="some"``: cuts that at least one other tokenizer does not make;
    ``"unique"``: cuts that no other tokenizer makes; ``"none"``: nothing.

    >>> marked_cuts({"gpt2": {1, 2, 3}, "gpt4": {3}})
    {'gpt2': {1, 2}, 'gpt4': set()}
    """
    if mode not in ("some", "unique", "none"):
        raise ValueError(f"unknown marking mode {mode!r}")
    out = {}
    for label, own in cuts.items():
        others = [c for other, c in cuts.items() if other != label]
        if mode == "none" or not others:
            out[label] = set()
        elif mode == "some":
            out[label] = own - set.intersection(*others)
        else:
            out[label] = own - set.union(*others)
    return out


class _Span(NamedTuple):  # what tokens_html reads from a token
    id: int
    token: bytes
    special: bool
    new: bool  # drawn by tokens_html's "new" class, which COMPARE_CSS restyles as a cut mark


# Scoped to .bpe-compare, so the restyled "new" class does not leak into other views on the page.
COMPARE_CSS = """
<style>
.bpe-compare .bpe-tokens .t.new { outline: none;
  box-shadow: inset 3px 0 0 0 #d55e00, inset 0 0 0 1px rgba(0,0,0,0.15); }
.bpe-compare .bpe-head { margin: 0.2rem 0 0.3rem 0; font-size: calc(1rem * var(--bpe-scale, 1)); }
</style>
"""


def compare_html(
    enc: TextCuts,
    marked: set[int],
    *,
    max_tokens: int = MAX_SPANS_PER_VIEW,
    whitespace: bool = True,
    title: str | None = None,
    css: bool = True,
) -> tuple[str, int]:
    """One tokenizer's coloured tokens (``tokens_html``), every token that starts at a marked
    cut drawn with an orange left edge; returns ``(html, tokens left out)``.

    ``title``: a heading above the tokens, followed by the token count and bytes per token.
    All text, the title too, is escaped. ``css=False`` leaves out the stylesheet (``CSS`` and
    ``COMPARE_CSS``), for the second and later views on a page that already holds it.
    """
    spans = [
        _Span(enc.ids[i], enc.tokens[i], enc.special[i], enc.starts[i] in marked)
        for i in range(min(len(enc.ids), max_tokens))
    ]
    body, not_drawn = tokens_html(spans, whitespace=whitespace, max_tokens=max_tokens, css=css,
                                  name="Tokens" if title is None else view_name(title))
    drawn = len(spans) - not_drawn  # tokens_html also stops after so many bytes of text
    head = ""
    if title is not None:
        per = f"{enc.num_bytes / len(enc.ids):.2f}" if enc.ids else "–"
        head = (
            f'<div class="bpe-head"><b>{html.escape(title)}</b> · {len(enc.ids):,} tokens · '
            f"{per} bytes/token</div>"
        )
    style = COMPARE_CSS if css else ""
    return style + f'<div class="bpe-compare">{head}{body}</div>', len(enc.ids) - drawn


def tokens_to_draw(enc: TextCuts, limit: int | None) -> int:
    """How many of ``enc``'s tokens the view draws: those that start before byte ``limit`` (all
    of them for None), so that every view shows the same stretch of the text.

    >>> enc = TextCuts("x", [1, 2, 3], [b"ab", b"c", b"d"], [False] * 3, [0, 2, 3, 4], 256)
    >>> tokens_to_draw(enc, 2), tokens_to_draw(enc, 3), tokens_to_draw(enc, None)
    (1, 2, 3)
    """
    n = len(enc.ids)
    return n if limit is None else min(n, bisect_left(enc.starts, limit, 0, n))


# -- words the tokenizers disagree on -----------------------------------------------------------


def tokens_over(starts: Sequence[int], begin: int, end: int) -> int:
    """How many tokens touch the bytes ``begin..end`` (end exclusive), given token ``starts``
    (ending with the total length).

    >>> tokens_over([0, 1, 2, 3, 9], 0, 4)  # "    hello" under GPT-2, the four spaces
    4
    """
    if end <= begin:
        return 0
    first = bisect_right(starts, begin) - 1
    last = bisect_left(starts, end, lo=first)  # index of the first token starting at or after end
    return last - first


def word_spans(text: str, max_words: int = MAX_WORDS) -> list[tuple[str, int, int]]:
    """``(word, byte start, byte end)`` for the words, punctuation runs and whitespace runs."""
    text = clean_text(text)
    out = []
    byte_pos = 0
    char_pos = 0
    for m in WORD_PATTERN.finditer(text):
        if len(out) >= max_words:
            break
        byte_pos += len(text[char_pos : m.start()].encode("utf-8"))
        size = len(m.group().encode("utf-8"))
        out.append((m.group(), byte_pos, byte_pos + size))
        byte_pos += size
        char_pos = m.end()
    return out


def disagreements(
    encodings: Mapping[str, TextCuts], text: str, top: int = TOP_WORDS
) -> pd.DataFrame:
    """The words whose token counts differ most between the tokenizers.

    Columns: ``word`` (whitespace visible), ``times`` (occurrences), one column per tokenizer
    (tokens touching the word at its first occurrence) and ``spread`` (most minus fewest).
    Only words on which the tokenizers disagree; the widest spread first, then the most frequent.
    """
    labels = list(encodings)
    columns = ["word", "times", *labels, "spread"]
    first: dict[str, list[int]] = {}
    times: dict[str, int] = {}
    for word, begin, end in word_spans(text):
        if word in times:
            times[word] += 1
            continue
        times[word] = 1
        first[word] = [tokens_over(encodings[lb].starts, begin, end) for lb in labels]
    rows = []
    for word, counts in first.items():
        spread = max(counts, default=0) - min(counts, default=0)
        if spread:
            rows.append([visible(word), times[word], *counts, spread])
    rows.sort(key=lambda r: (-r[-1], -r[1], r[0]))
    frame = pd.DataFrame(rows[:top], columns=columns)
    return frame.astype({c: "int64" for c in columns[1:]})
