"""The guided lesson: the seed tutorials' path, step by step, on the class's own text.

Pure functions (no Streamlit): each step's page section calls one or two of them and shows the
result. Everything works on ``lesson_text(text)``, the first ``LESSON_CHARS`` characters, so a
step answers at once even for a 1 MB text; every list that reaches the page is bounded too.

    >>> top_pairs(list(b"aaabdaaabac"))[:2]
    [PairCount(pair=(97, 97), count=4, first=0), PairCount(pair=(97, 98), count=2, first=2)]
    >>> hand_merge(list(b"aaabdaaabac"), (97, 97)).after
    [256, 97, 98, 100, 256, 97, 98, 97, 99]
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from typing import NamedTuple

import altair as alt
import pandas as pd

import bpe_core
from bpe_core import GPT2_SPLIT_PATTERN, GPT4_SPLIT_PATTERN, BasicTokenizer, RegexTokenizer
from bpe_core.base import get_stats, merge
from ui.kit.escape import code_span
from ui.kit.palette import CVD_SAFE_PALETTE, neighbour_report
from ui.kit.special_rule import encode_by_rule
from ui.kit.tables import merge_table
from ui.kit.tokens_html import (  # noqa: F401 (pages draw with le.pieces)
    CSS,
    PALETTE,
    TITLE_CHARS,
    TOKEN_ROLE,
    pair_label,
    pieces,
    spoken_text,
    token_label,
    token_text,
    view_attrs,
    visible,
)

LESSON_CHARS = 4_000  # the lesson works on this many characters of the sidebar's text
LESSON_MERGES = 200  # step 4 trains this many merges once; its slider shows the first k
START_MERGES = 20  # where step 4's slider starts
TOP_PAIRS = 15  # bars in step 2's chart
HAND_PAIRS = 10  # pairs offered in step 3
CHAR_ROWS = 40  # characters listed in step 1
SHOWN_TOKENS = 120  # tokens drawn before / after the hand merge
SHOWN_BYTES = 800  # bytes of text drawn in token views
QUIZ_BYTES = 500  # bytes of the training text drawn beside the quiz question
MAX_WORD = 40  # characters of the word traced in step 6
MAX_CHUNKS = 300  # chunks drawn in step 7
MAX_DIFFS = 60  # rows of step 7's table of differences
MAX_LESSON_IDS = 200  # ids read from the box in step 5
SPLIT_TIMEOUT = 2.0  # seconds the GPT patterns may take on the lesson text

STEPS = (
    "1 · Text to bytes",
    "2 · Count pairs",
    "3 · One merge by hand",
    "4 · The training loop",
    "5 · Decoding",
    "6 · Encoding by rank",
    "7 · Split first",
    "8 · The real tokenizers",
    "9 · Three families of BPE",
)


def lesson_text(text: str, limit: int = LESSON_CHARS) -> tuple[str, str | None]:
    """The part of ``text`` the lesson uses, and a note when that is not all of it.

    Lone surrogates (half of a UTF-16 pair; they have no UTF-8 form) become U+FFFD, as in the
    tokenizers.

    >>> lesson_text("hello")
    ('hello', None)
    >>> lesson_text("abcdef", limit=4)
    ('abcd', 'The lesson works on the first 4 of the 6 characters of the text.')
    """
    if not isinstance(text, str):
        raise ValueError(f"the lesson needs text (a str), not {type(text).__name__}")
    note = None
    if len(text) > limit:
        note = f"The lesson works on the first {limit:,} of the {len(text):,} characters of the text."
        text = text[:limit]
    return bpe_core.clean_text(text), note


def first_tokens(ids: Sequence[int], vocab: dict[int, bytes], max_bytes: int) -> int:
    """How many of ``ids`` fit in about ``max_bytes`` bytes (at least one when there is one)."""
    total = 0
    for n, i in enumerate(ids):
        total += len(vocab[i])
        if total > max_bytes:
            return max(n, 1)
    return len(ids)


# -- step 1: text, code points, bytes -----------------------------------------------------------


def char_rows(text: str, limit: int = CHAR_ROWS) -> pd.DataFrame:
    """One row per character: how it looks, its code point, its UTF-8 bytes.

    >>> char_rows("é").iloc[0].to_dict()
    {'character': 'é', 'code point': 'U+00E9', 'decimal': 233, 'UTF-8 bytes (hex)': 'c3 a9', 'UTF-8 bytes': '195 169', 'bytes': 2}
    """
    rows = []
    for ch in text[:limit]:
        data = ch.encode("utf-8", "replace")
        rows.append(
            {
                "character": visible(ch),
                "code point": f"U+{ord(ch):04X}",
                "decimal": ord(ch),
                "UTF-8 bytes (hex)": data.hex(" "),
                "UTF-8 bytes": " ".join(map(str, data)),
                "bytes": len(data),
            }
        )
    columns = ["character", "code point", "decimal", "UTF-8 bytes (hex)", "UTF-8 bytes", "bytes"]
    return pd.DataFrame(rows, columns=columns)


def multibyte_rows(text: str, limit: int = CHAR_ROWS) -> pd.DataFrame:
    """``char_rows`` for the first ``limit`` different characters that take 2 or more bytes."""
    seen = dict.fromkeys(ch for ch in text if ord(ch) >= 0x80)
    return char_rows("".join(list(seen)[:limit]), limit)


class ByteSummary(NamedTuple):
    characters: int
    bytes: int
    by_length: dict[int, int]  # UTF-8 length (1..4) -> how many characters have it
    highest: str | None  # the character with the highest code point


def byte_summary(text: str) -> ByteSummary:
    """How many characters and bytes, and how many characters need 1, 2, 3 or 4 bytes.

    >>> byte_summary("aé€😄")
    ByteSummary(characters=4, bytes=10, by_length={1: 1, 2: 1, 3: 1, 4: 1}, highest='😄')
    """
    by_length = {1: 0, 2: 0, 3: 0, 4: 0}
    n_bytes = 0
    for ch in text:
        n = len(ch.encode("utf-8", "replace"))
        by_length[n] += 1
        n_bytes += n
    return ByteSummary(len(text), n_bytes, by_length, max(text) if text else None)


# -- step 2: count pairs --------------------------------------------------------------------------


class PairCount(NamedTuple):
    pair: tuple[int, int]
    count: int
    first: int  # position of its first occurrence in the list


def top_pairs(ids: Sequence[int], n: int = TOP_PAIRS) -> list[PairCount]:
    """The ``n`` most frequent neighbouring pairs, the seeds' way: ``get_stats``, then the most
    frequent first, and among equal counts the one that occurs first (training's tie rule)."""
    ids = list(ids)
    counts = get_stats(ids)  # insertion order is the order of first occurrence
    first: dict[tuple[int, int], int] = {}
    for i, pair in enumerate(zip(ids, ids[1:])):
        first.setdefault(pair, i)
    ranked = sorted(counts.items(), key=lambda kv: -kv[1])  # stable: ties stay in first order
    return [PairCount(p, c, first[p]) for p, c in ranked[:n]]


def pairs_frame(pairs: Sequence[PairCount], vocab: dict[int, bytes]) -> pd.DataFrame:
    """The chart's data: one row per pair, best first."""
    rows = [
        {
            "rank": r,
            "pair": f"{r}. {pair_label(vocab, p.pair)}",
            "ids": f"({p.pair[0]}, {p.pair[1]})",
            "count": p.count,
        }
        for r, p in enumerate(pairs, 1)
    ]
    return pd.DataFrame(rows, columns=["rank", "pair", "ids", "count"])


def pairs_chart(frame: pd.DataFrame, *, large: bool = False) -> alt.Chart:
    """A horizontal bar per pair, the most frequent on top (colour: Okabe-Ito blue)."""
    font = 18 if large else 12
    return (
        alt.Chart(frame)
        .mark_bar(color="#0072B2")
        .encode(
            x=alt.X("count:Q", title="times the pair occurs"),
            y=alt.Y("pair:N", sort=alt.SortField("rank"), title=None),
            tooltip=["pair", "ids", "count"],
        )
        .properties(height=max(120, (34 if large else 22) * len(frame)))
        .configure_axis(labelFontSize=font, titleFontSize=font, labelLimit=400)
    )


# -- step 3: one merge by hand --------------------------------------------------------------------


class HandMerge(NamedTuple):
    pair: tuple[int, int]
    new_id: int
    before: list[int]
    after: list[int]
    replaced: int  # how many times the pair was replaced (fewer than its count when it overlaps)


def hand_merge(ids: Sequence[int], pair: tuple[int, int], new_id: int = 256) -> HandMerge:
    """``merge(ids, pair, new_id)`` with what a class wants to see about it."""
    before = list(ids)
    after = merge(before, pair, new_id)
    return HandMerge(pair, new_id, before, after, len(before) - len(after))


# -- step 4: the training loop ---------------------------------------------------------------------


def train_lesson(text: str, merges: int = LESSON_MERGES) -> BasicTokenizer:
    """A BasicTokenizer trained on the lesson text; its first k merges are what training to
    ``256 + k`` would make, so one training serves every position of the slider."""
    tok = BasicTokenizer()
    tok.train(text, 256 + merges, candidates=2)
    return tok


def ratio_frame(token_counts: Sequence[int], num_bytes: int) -> pd.DataFrame:
    """Compression ratio (bytes per token) after 0, 1, … merges.

    >>> ratio_frame([11, 9, 7, 5], 11)["ratio"].round(2).tolist()
    [1.0, 1.22, 1.57, 2.2]
    """
    rows = [
        {"merges": k, "tokens": n, "ratio": num_bytes / n if n else None}
        for k, n in enumerate(token_counts)
    ]
    return pd.DataFrame(rows, columns=["merges", "tokens", "ratio"])


def first_merges_frame(tok: bpe_core.Tokenizer, k: int) -> pd.DataFrame:
    """The first ``k`` merges of a trained tokenizer (``ui.kit.tables.merge_table``) as the lesson
    shows them: step, pair, new token, count."""
    t = merge_table(tok, k)
    return pd.DataFrame({
        "merge": t["step"],
        "pair": [f"'{a}' + '{b}'" for a, b in zip(t["left"], t["right"], strict=True)],
        "ids": [f"({a}, {b})" for a, b in zip(t["left id"], t["right id"], strict=True)],
        "new id": t["id"],
        "new token": [f"'{s}'" for s in t["token"]],
        "count": t["count"],
    })


# -- step 5: decoding ------------------------------------------------------------------------------


class BothDecodings(NamedTuple):
    ids: list[int]
    data: bytes
    strict: str | None  # the text, or None when strict decoding fails
    error: str | None  # the UnicodeDecodeError's message
    replaced: str  # errors="replace"


def decode_both(tok: bpe_core.Tokenizer, ids: Sequence[int]) -> BothDecodings:
    """Decode ``ids`` strictly and with ``errors="replace"``; unknown ids raise ValueError."""
    ids = list(ids)
    data = tok.decode_bytes(ids)
    try:
        strict, error = data.decode("utf-8"), None
    except UnicodeDecodeError as e:
        strict, error = None, str(e)
    return BothDecodings(ids, data, strict, error, data.decode("utf-8", errors="replace"))


def broken_ids(text: str) -> tuple[list[int], str]:
    """An id sequence that is not valid UTF-8, made from the text, and how it was made
    (markdown, the text in code spans).

    The text's first character that takes several bytes, with its last byte dropped (a model
    that stops in the middle of an emoji); for an ASCII-only text, a lone continuation byte.

    >>> broken_ids("a😄")
    ([97, 240, 159, 152], 'the bytes of `a😄` without the last byte of `😄`')
    >>> broken_ids("hi")[0]
    [104, 105, 128]
    """
    for i, ch in enumerate(text):
        data = ch.encode("utf-8", "replace")
        if len(data) > 1:
            start = max(0, i - 3)
            head = text[start:i].encode("utf-8", "replace")
            return (
                list(head + data[:-1]),
                f"the bytes of {code_span(visible(text[start : i + 1]))} without the last byte "
                f"of {code_span(visible(ch))}",
            )
    head = text[:2].encode("utf-8")
    shown = f"the bytes of {code_span(visible(text[:2]))} followed by byte 128" if head else (
        "byte 128 alone")
    return list(head) + [0x80], f"{shown}, which can only continue a character, never start one"


def parse_ids(raw: str, limit: int = MAX_LESSON_IDS) -> list[int]:
    """``"104, 105 128"`` -> [104, 105, 128]; ValueError says what is wrong.

    >>> parse_ids("104, 105 128")
    [104, 105, 128]
    """
    parts = raw.replace(",", " ").replace("[", " ").replace("]", " ").split()
    if len(parts) > limit:
        raise ValueError(f"Type at most {limit} ids.")
    ids = []
    for p in parts:
        if not (p.isascii() and p.isdigit()):
            raise ValueError(
                f"{p[:20]!r} is not an id: type whole numbers separated by commas or spaces."
            )
        ids.append(int(p))
    return ids


# -- step 6: encoding by merge rank ----------------------------------------------------------------


class ChunkTrace(NamedTuple):
    """One chunk of the word and the merges made in it, one step per pair: every occurrence of
    a pair is merged before the next pair (``Tokenizer.trace`` lists each occurrence)."""

    chunk: str
    start: list[int]  # the chunk's bytes, as the tokenizer's ids
    steps: list[bpe_core.TraceStep]  # the last occurrence of each pair merged

    @property
    def final(self) -> list[int]:
        return list(self.steps[-1].tokens) if self.steps else self.start


def trace_encode(tok: bpe_core.Tokenizer, word: str) -> list[ChunkTrace]:
    """How ``tok`` encodes ``word``: cut by its split pattern, then in each chunk, again and
    again, the neighbouring pair with the lowest merge rank is merged (the seeds' encode).

    >>> tok = BasicTokenizer()
    >>> tok.train("aaabdaaabac", 259)
    >>> [(s.pair, s.new) for s in trace_encode(tok, "aaab")[0].steps]
    [((97, 97), 256), ((256, 97), 257), ((257, 98), 258)]
    """
    trace = tok.trace(word)
    out = []
    for c, chunk in enumerate(trace.chunks):
        mine = [s for s in trace.steps if s.chunk == c]
        per_pair = [s for k, s in enumerate(mine) if k + 1 == len(mine) or mine[k + 1].pair != s.pair]
        out.append(ChunkTrace(chunk, trace.start[c], per_pair))
    return out


def trace_frame(tok: bpe_core.Tokenizer, traces: Sequence[ChunkTrace]) -> pd.DataFrame:
    """One row per merge applied: which chunk, which pair, its rank, the tokens after it."""
    vocab = tok.vocab
    rows = []
    for t in traces:
        rows.append({"chunk": f"'{visible(t.chunk)}'", "merge rank (new id)": "start: the bytes",
                     "pair": "", "tokens": " | ".join(token_text(vocab[i]) for i in t.start)})
        for s in t.steps:
            rows.append({"chunk": "", "merge rank (new id)": f"{s.new:,}",
                         "pair": pair_label(vocab, s.pair),
                         "tokens": " | ".join(token_text(vocab[i]) for i in s.tokens)})
    return pd.DataFrame(rows, columns=["chunk", "merge rank (new id)", "pair", "tokens"])


def default_word(text: str, tok: bpe_core.Tokenizer | None = None) -> str:
    """A word worth tracing: among the text's frequent words of 4+ letters, the one ``tok``
    needs the most merges for (the most frequent one without a tokenizer).

    >>> default_word("the cat and the other cat, the end")
    'other'
    >>> default_word("")
    'tokenization'
    """
    import regex

    counts: dict[str, int] = {}
    for w in regex.findall(r"\p{L}{4,}", text[:LESSON_CHARS]):
        counts[w[:MAX_WORD]] = counts.get(w[:MAX_WORD], 0) + 1
    if not counts:
        return "tokenization"
    frequent = sorted(counts, key=lambda w: (-counts[w], -len(w)))[:40]
    if tok is None:
        return frequent[0]

    def merges_needed(word: str) -> int:
        return sum(len(t.steps) for t in trace_encode(tok, word))

    return max(frequent, key=lambda w: (merges_needed(w), counts[w]))


# -- step 7: GPT-2 vs GPT-4 split patterns ---------------------------------------------------------


SPLITTERS = {"GPT-2": GPT2_SPLIT_PATTERN, "GPT-4": GPT4_SPLIT_PATTERN}


def split_both(text: str) -> dict[str, list[str]]:
    """The text cut by the GPT-2 and the GPT-4 pattern; ValueError if a split takes too long."""
    return {
        name: RegexTokenizer(pattern, timeout=SPLIT_TIMEOUT).split(text)
        for name, pattern in SPLITTERS.items()
    }


def _ends(chunks: Sequence[str]) -> list[int]:
    ends, pos = [], 0
    for c in chunks:
        pos += len(c)
        ends.append(pos)
    return ends


def differing(chunks: Sequence[str], other: Sequence[str]) -> list[bool]:
    """For each chunk: is it missing from the other split (same text, same place)?

    >>> differing(["a", " 1234"], ["a", " ", "123", "4"])
    [False, True]
    """
    spans_other = set()
    pos = 0
    for c in other:
        spans_other.add((pos, pos + len(c)))
        pos += len(c)
    out, pos = [], 0
    for c in chunks:
        out.append((pos, pos + len(c)) not in spans_other)
        pos += len(c)
    return out


class SplitDiff(NamedTuple):
    text: str
    a: list[str]
    b: list[str]


def split_differences(a: Sequence[str], b: Sequence[str]) -> list[SplitDiff]:
    """Every stretch of the text that the two splits cut differently, in order.

    >>> split_differences(["I", "'S", " 1234"], ["I", "'S", " ", "123", "4"])
    [SplitDiff(text=' 1234', a=[' 1234'], b=[' ', '123', '4'])]
    """
    common = set(_ends(a)) & set(_ends(b))
    out: list[SplitDiff] = []
    group_a: list[str] = []
    group_b: list[str] = []
    ia = ib = 0
    ends_a, ends_b = _ends(a), _ends(b)
    for end in sorted(common):
        while ia < len(a) and ends_a[ia] <= end:
            group_a.append(a[ia])
            ia += 1
        while ib < len(b) and ends_b[ib] <= end:
            group_b.append(b[ib])
            ib += 1
        if group_a != group_b:
            out.append(SplitDiff("".join(group_a), group_a, group_b))
        group_a, group_b = [], []
    return out


def diffs_frame(diffs: Sequence[SplitDiff], limit: int = MAX_DIFFS) -> pd.DataFrame:
    rows = [
        {
            "text": visible(d.text),
            "GPT-2 chunks": " | ".join(visible(c) for c in d.a),
            "GPT-4 chunks": " | ".join(visible(c) for c in d.b),
        }
        for d in diffs[:limit]
    ]
    return pd.DataFrame(rows, columns=["text", "GPT-2 chunks", "GPT-4 chunks"])


def marked_chunks_html(
    chunks: Sequence[str], marks: Sequence[bool], *, limit: int = MAX_CHUNKS, large: bool = False,
    name: str = "Chunks",
) -> str:
    """Chunks as coloured spans (escaped), the ones in ``marks`` outlined like a new token; a
    list named ``name`` for a screen reader, each chunk said by its text (``spoken_text``)."""
    spans = []
    for i, (chunk, mark) in enumerate(zip(chunks[:limit], marks)):
        classes = f"t c{i % len(PALETTE)}" + (" new" if mark else "")
        title = f"chunk {i + 1}" + (" · cut differently by the other pattern" if mark else "")
        label = token_label(chunk.encode("utf-8", "replace"), whitespace=True)
        said = f"{spoken_text(chunk.encode('utf-8', 'replace')[:TITLE_CHARS])}, {title}"
        spans.append(f'<span class="{classes}" {TOKEN_ROLE} title="{html.escape(title)}" '
                     f'aria-label="{html.escape(said)}">{label}</span>')
    size = " large" if large else ""
    # it scrolls in its box: a named list that takes the keyboard's focus (view_attrs)
    return CSS + f'<div class="bpe-tokens{size}" {view_attrs(name)}>{"".join(spans)}</div>'


# -- step 8: the real tokenizers ------------------------------------------------------------------


class Count(NamedTuple):
    name: str
    vocab_size: int
    tokens: int
    bytes_per_token: float | None


def count_tokens(tokenizers: dict[str, bpe_core.Tokenizer], text: str,
                 allowed_special: str = "none") -> list[Count]:
    """Tokens of ``text`` under each tokenizer; special-token text counts as ordinary text
    (``allowed_special="none"``, the default) or as the special token ("all")."""
    n_bytes = len(text.encode("utf-8", "replace"))
    out = []
    for name, tok in tokenizers.items():
        n = len(encode_by_rule(tok, text, allowed_special))
        out.append(Count(name, tok.vocab_size, n, n_bytes / n if n else None))
    return out


def counts_frame(counts: Sequence[Count]) -> pd.DataFrame:
    rows = [
        {
            "tokenizer": c.name,
            "vocabulary": f"{c.vocab_size:,}",
            "tokens": c.tokens,
            "bytes per token": "–" if c.bytes_per_token is None else f"{c.bytes_per_token:.2f}",
        }
        for c in counts
    ]
    return pd.DataFrame(rows, columns=["tokenizer", "vocabulary", "tokens", "bytes per token"])


def counts_chart(counts: Sequence[Count], *, large: bool = False) -> alt.Chart:
    font = 18 if large else 12
    frame = pd.DataFrame([{"tokenizer": c.name, "tokens": c.tokens} for c in counts])
    return (
        alt.Chart(frame)
        .mark_bar(color="#0072B2")
        .encode(
            x=alt.X("tokens:Q", title="tokens"),
            y=alt.Y("tokenizer:N", sort=None, title=None),
            tooltip=["tokenizer", "tokens"],
        )
        .properties(height=(60 if large else 40) * max(len(frame), 1))
        .configure_axis(labelFontSize=font, titleFontSize=font, labelLimit=400)
    )


# -- projector mode ------------------------------------------------------------------------------


def projector_palette_css(palette: Sequence[str] = PALETTE) -> str:
    """Projector mode promises token colours that colour-blind viewers can tell apart: "" when
    ``palette`` (the token view's) passes the check of ui/kit/palette.py, else CSS that puts
    the checked ``CVD_SAFE_PALETTE`` in its place."""
    if all(row.ok for row in neighbour_report(palette)):
        return ""
    return palette_css(CVD_SAFE_PALETTE)


def palette_css(palette: Sequence[str]) -> str:
    """CSS that gives the token colours ``c0, c1, …`` these backgrounds.

    The selectors are more specific than ui/tokens_html's, so they win wherever they appear.
    """
    rules = "\n".join(
        f"div.bpe-tokens span.c{i} {{ background: {c}; }}" for i, c in enumerate(palette)
    )
    return f"<style>\n{rules}\n</style>"


# Projector mode on this page: larger metrics and labels, 1.5 times Streamlit's or more, as
# ui.kit.projector's (the sidebar's projector CSS sets every paragraph of the main area to
# 1.5rem, which also shrinks the metric values, themselves paragraphs: these more specific rules
# put them back. Code is enlarged there too.)
LARGE_CSS = """<style>
.stMainBlockContainer [data-testid="stMetricValue"] p { font-size: 3.375rem; line-height: 1.2; }
.stMainBlockContainer [data-testid="stMetricLabel"] p { font-size: 1.3125rem; }
.stMainBlockContainer [data-testid="stWidgetLabel"] p { font-size: 1.5rem; }
.stMainBlockContainer [data-testid="stRadioOption"] p { font-size: 1.5rem; }
.stMainBlockContainer .st-key-quiz_guess [data-testid="stRadioOption"] code { font-size: 1.5rem; }
</style>"""


# -- the words of the lesson ----------------------------------------------------------------------

# One explanation per step, in STEPS order (markdown; this module's own text, nothing from users).
EXPLAIN = (
    # 1 · Text to bytes
    "A computer stores numbers, not letters. **Unicode** gives every character a number, its "
    "*code point*: `A` is 65, `é` is 233, `😄` is 128,516. There are about 150,000 of them and "
    "the list keeps growing, so a vocabulary of code points would be huge, and most of its "
    "entries would almost never be seen.\n\n"
    "**UTF-8** writes each code point as 1 to 4 **bytes**, numbers from 0 to 255: plain Latin "
    "letters take one byte, accented letters two, most Asian scripts three, emoji four. Starting "
    "from bytes gives a first vocabulary of exactly 256 symbols that can spell *any* text (any "
    "language, any emoji, even broken input), so no token is ever \"unknown\". The price is "
    "length: there are more bytes than characters. Winning that length back is BPE's job.",
    # 2 · Count pairs
    "Write the text as its list of byte values and look at every two neighbours: the 1st and "
    "2nd, the 2nd and 3rd, and so on. Count how often each pair occurs. That is all the seeds' "
    "`get_stats` does.\n\n"
    "The pair at the top is the one that would shorten the text most if it became a single "
    "symbol. In English it is usually a letter and a space (`e·`, `s·`) or two common letters "
    "(`th`, `in`). Pairs overlap: `aaa` holds the pair `aa` twice.",
    # 3 · One merge by hand
    "Give a pair a new number. The first free one is **256**, since 0–255 are the bytes. Walk "
    "along the list once, left to right, and wherever the pair occurs write 256 instead of its "
    "two numbers (that is the seeds' `merge`). Each replacement makes the list one shorter.\n\n"
    "Try the top pair, then a rarer one: the top pair shortens the text the most, which is "
    "exactly why training always picks it.",
    # 4 · The training loop
    "Training is steps 2 and 3 in a loop: count the pairs, merge the most frequent one into a "
    "new token (256, then 257, 258, …), and start again on the shorter list. Each round adds "
    "one token to the vocabulary and one rule to the list of merges, so the vocabulary size is "
    "simply 256 plus the number of merges, and you choose it. When two pairs are equally "
    "frequent, the one that occurs first in the text wins.\n\n"
    "New tokens can contain older ones (`t`+`h` → `th`, then `th`+`e` → `the`), so tokens grow. "
    "The **compression ratio**, bytes divided by tokens, says how much shorter the text got. It "
    "climbs fast at first and then slowly: early merges catch the most common pairs, later ones "
    "rarer and rarer pieces. Here a BasicTokenizer (no split) learns up to "
    f"{LESSON_MERGES} merges from the lesson text.",
    # 5 · Decoding
    "Decoding runs backwards and is simple: look up each id's bytes in the vocabulary, join "
    "them all, and read the result as UTF-8. Join first, read after: a token can hold part of a "
    "character (an emoji is four bytes and a merge may have taken two of them).\n\n"
    "Not every byte sequence is valid UTF-8, though. A language model picks ids one at a time "
    "and can stop in the middle of a character, or produce a byte that may only *continue* a "
    "character. Strict decoding then raises an error and the whole answer is lost. With "
    "`errors=\"replace\"`, each broken piece becomes the replacement character `�` and the rest "
    "of the text survives.",
    # 6 · Encoding by rank
    "Encoding new text counts nothing. It starts from the bytes again and replays the learned "
    "merges **in the order they were learned**: among the neighbouring pairs of the word, find "
    "the one whose merge came earliest (the smallest new id, its *rank*), merge it, and look "
    "again. Stop when no neighbouring pair has a merge. The order matters, because a later "
    "merge may need a token that an earlier merge makes.\n\n"
    "Type a word and follow it from bytes to tokens. A tokenizer with a split pattern first "
    "cuts it into chunks, and merges stay inside a chunk.",
    # 7 · Split first
    "Left alone on raw bytes, BPE happily learns tokens such as `dog.` or `e·t` that glue "
    "punctuation to words or words to each other. GPT-2 therefore first cuts the text into "
    "**chunks** with a regular expression (a word with the space before it, a run of digits, a "
    "run of punctuation, whitespace) and runs BPE inside each chunk only: no merge ever "
    "crosses a chunk boundary.\n\n"
    "GPT-4's pattern changed the details: contractions such as `'S` match in any case, numbers "
    "are cut into groups of at most three digits, a punctuation mark may lead a word (`(word`), "
    "and line breaks are kept apart from the words around them. Below, the same text cut both "
    "ways: the chunks one pattern cuts differently from the other are outlined.",
    # 8 · The real tokenizers
    "GPT-2, GPT-4 and GPT-4o are built exactly like this: bytes, a split pattern, and a list "
    "of merges learned from an enormous amount of text: about 50,000, 100,000 and 200,000 "
    "tokens. A bigger vocabulary learned from more varied text needs fewer tokens for the same "
    "text, especially for code and for languages other than English. A model pays for every "
    "token in time and memory, so fewer is better. Compare them with the tiny tokenizer of "
    "step 4, which learned only from this text.",
    # 9 · Three families of BPE
    "Not every BPE starts from bytes. **SentencePiece's BPE** (Llama 2, Mistral 7B, Gemma) "
    "merges *characters*, writes every space as `▁` and keeps it inside the next piece; a "
    "character it never saw falls back to its UTF-8 bytes, pieces named `<0xF0>`. The "
    "**original word BPE** (Sennrich et al., 2016; subword-nmt, GPT-1, CLIP) cuts the text "
    "into words at the spaces first, marks the end of a word with `</w>`, and merges inside "
    "words only: the space itself is never a token. Below, each family "
    "learns about 150 merges from this text (SentencePiece with byte fallback, word BPE "
    "with subword-nmt's settings, byte-level BPE with GPT-4's split) and is shown a space, "
    "an emoji and a word it never saw.",
)

# Where each step can be explored further: (page script, label, icon)
FULL_PAGE = (
    ("pages/bytes.py", "Bytes & decoding", "🔢"),
    ("pages/steps.py", "Step through merges", "👣"),
    ("pages/steps.py", "Step through merges", "👣"),
    ("pages/overview.py", "Start here: tokens as you type, and the table of merges", "🏁"),
    ("pages/bytes.py", "Bytes & decoding", "🔢"),
    ("pages/tokens.py", "Tokens", "🎨"),
    ("pages/tokens.py", "Tokens (choose the chunks view)", "🎨"),
    ("pages/compare.py", "Compare with GPT", "⚖️"),
    ("pages/exchange.py", "Export & import: load a file of any of the three families", "💾"),
)
