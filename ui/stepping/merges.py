"""Pure helpers for the "Step through the merges" page (no Streamlit here).

At step k the text is tokenized with only the first k merges (k = 0: every byte is a token).
These functions say which merge was made at k, why it won, how the token count went, and
build the searchable table of all merges:

    >>> from bpe_core import BasicTokenizer
    >>> tok = BasicTokenizer()
    >>> tok.train("aaabdaaabac", 259, candidates=4)
    >>> merge_at(tok, 2)
    MergeInfo(step=2, id=257, left=256, right=97, token=b'aaa', left_token=b'aa', right_token=b'a', count=2)
    >>> why_this_merge(tok, 2).rule.split(":")[0]
    'Tie on count 2 (2 pairs)'
"""

from __future__ import annotations

import html
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, NamedTuple

import pandas as pd

from ui.kit.tables import SEARCH_BYTES, merge_table
from ui.kit.tokens_html import CSS, token_label, token_text

# The tokens view shows a fixed stretch of the text at every step, so that moving the slider
# changes the tokens, not the text; 4 000 bytes is at most 4 000 spans (at step 0).
WINDOW_BYTES = 4_000
TABLE_ROWS = 2_000  # rows of the merge table sent to the browser

# label -> (seconds between ticks, merges per tick); a tick redraws the step view
SPEEDS: dict[str, tuple[float, int]] = {
    "1 merge/s": (1.0, 1),
    "2 merges/s": (0.5, 1),
    "4 merges/s": (0.5, 2),
    "10 merges/s": (0.5, 5),
    "50 merges/s": (0.5, 25),
    "500 merges/s": (0.5, 250),
}
DEFAULT_SPEED = "2 merges/s"
CHART_CHOICES = ("Tokens", "Compression ratio")

TIE_RULE = (
    "the pair that occurs first in the text wins, as `max(stats, key=stats.get)` does in the seeds"
)


def clamp_step(step: object, num_merges: int) -> int:
    """A step in ``0..num_merges`` (anything that is not a whole number becomes 0).

    >>> clamp_step(7, 5), clamp_step(-1, 5), clamp_step(None, 5)
    (5, 0, 0)
    """
    if isinstance(step, bool) or not isinstance(step, int):
        return 0
    return max(0, min(step, num_merges))


# -- the merge made at step k ---------------------------------------------------------------------


class MergeInfo(NamedTuple):
    """Merge number ``step``: ``left`` + ``right`` became ``id``; ``count`` is None if unknown."""

    step: int
    id: int
    left: int
    right: int
    token: bytes
    left_token: bytes
    right_token: bytes
    count: int | None


def merge_ids(tok: Any) -> list[int]:
    """The ids the merges made, in merge order (``merge_ids(tok)[k - 1]`` is made at step k)."""
    return list(tok.merges.values())


def has_history(tok: Any) -> bool:
    """Whether training recorded every merge's count (False for pretrained vocabularies)."""
    return bool(tok.history) and len(tok.history) == tok.num_merges


def merge_at(tok: Any, k: int, ids: Sequence[int] | None = None) -> MergeInfo:
    """The merge made at step ``k`` (1-based). ``ids``: ``merge_ids(tok)``, if already at hand."""
    n = tok.num_merges
    if isinstance(k, bool) or not isinstance(k, int) or not 1 <= k <= n:
        raise ValueError(f"merge number must be a whole number from 1 to {n}, not {k!r}")
    if has_history(tok):
        record = tok.history[k - 1]
        new_id, (a, b), count = record.id, record.pair, record.count
    else:
        new_id = (ids if ids is not None else merge_ids(tok))[k - 1]
        a, b = tok.parents[new_id]
        count = None
    vocab = tok.vocab
    return MergeInfo(k, new_id, a, b, vocab[new_id], vocab[a], vocab[b], count)


def _chip(token: bytes, token_id: int, classes: str) -> str:
    label = token_label(token, whitespace=True)
    return (
        f'<span class="t {classes}" title="id {token_id}">{label}</span>'
        f'<span class="bpe-id">{token_id}</span>'
    )


def merge_html(info: MergeInfo | None, num_merges: int) -> str:
    """The merge made at a step as HTML (every token's text escaped): parents, new token, count."""
    style = (
        "<style>.bpe-merge { font-size: 1.05rem; line-height: 2.4; }"
        " .bpe-merge .bpe-id { font-size: 0.8em; color: #555; margin: 0 0.6em 0 0.25em; }"
        " .bpe-merge .op { font-weight: 700; margin: 0 0.4em; }</style>"
    )
    if info is None:
        return (
            CSS + style + '<div class="bpe-tokens bpe-merge">Step 0 of '
            f"{num_merges:,}: no merges yet, every byte is a token.</div>"
        )
    if info.count is None:
        count = "count not known"
    else:
        count = f"seen {info.count:,} time{'' if info.count == 1 else 's'} when it was chosen"
    return (
        CSS + style + '<div class="bpe-tokens bpe-merge">'
        f"Merge {info.step:,} of {num_merges:,}: "
        + _chip(info.left_token, info.left, "c0")
        + '<span class="op">+</span>'
        + _chip(info.right_token, info.right, "c1")
        + '<span class="op">→</span>'
        + _chip(info.token, info.id, "c2 new")
        + f"<br>({info.left}, {info.right}) → {info.id}, {html.escape(count)}</div>"
    )


# -- SuperBPE's two stages, BoundlessBPE's two phases ---------------------------------------------


class Stage(NamedTuple):
    """Which of a two-part trainer's stages (SuperBPE) or phases (BoundlessBPE) made merge k:
    ``stage`` 1 or 2 (0 at step 0), ``begins`` at the first merge of the second, and the same
    in a sentence."""

    stage: int
    begins: bool
    words: str


class _Parts(NamedTuple):
    one: str  # what the first part's merges do
    two: str  # what the second part's merges do
    made: str  # "made <two>" / "supermerges, <two>": after "the first of N"
    column: str  # the merge table's name for the second part


# the tokenizer's ``part`` ("stage" or "phase") and ``variant_title`` say what to call them
_PARTS = {
    "superbpe": _Parts(
        "inside the split pattern's pieces, as classical BPE",
        "across spaces, line breaks and single punctuation marks (superword merges)",
        "made across spaces, line breaks and single punctuation marks (superword merges)",
        "two (superword merges)"),
    "boundless": _Parts(
        "inside the split pattern's pieces, as classical BPE (the ones phase two kept)",
        "a supermerge, joining whole words (pretokens) into a superword",
        "supermerges, each joining whole words (pretokens) into a superword",
        "two (supermerges)"),
}


def transition_of(tok: Any) -> int | None:
    """A SuperBPE or BoundlessBPE tokenizer's transition (the merges of its first stage or
    phase); None for any other."""
    if getattr(tok, "variant", None) not in _PARTS:
        return None
    return getattr(tok, "transition", None)


def stage_at(tok: Any, k: int) -> Stage | None:
    """Where step ``k`` stands in SuperBPE's two stages or BoundlessBPE's two phases; None for
    a tokenizer with one.

    >>> from bpe_core.superbpe import train_superbpe
    >>> tok = train_superbpe("a b a b", 259, transition=1)
    >>> [(s.stage, s.begins) for s in (stage_at(tok, k) for k in range(4))]
    [(0, False), (1, False), (2, True), (2, False)]
    >>> stage_at(tok, 2).words.split(":")[0]
    'Stage two begins here'
    >>> from bpe_core.boundless import train_boundless
    >>> stage_at(train_boundless("ab ab ab ab cd", 260), 4).words.split(",")[0]
    'Phase two begins here: merge 4 is the first of 1 supermerges'
    """
    t = transition_of(tok)
    if t is None:
        return None
    parts, part, title = _PARTS[tok.variant], tok.part, tok.variant_title
    Part = part.capitalize()
    n = tok.num_merges
    if t >= n:
        return Stage(min(k, 1), False, f"{title}: all {n:,} merges are {part} one's (inside the"
                     f" split pattern's pieces); {part} two made none.")
    if k == 0:
        return Stage(0, False, f"{title}: merges 1 to {t:,} are {part} one's ({parts.one});"
                     f" {part} two begins at merge {t + 1:,}.")
    if k <= t:
        return Stage(1, False, f"{Part} one, merge {k:,} of {t:,}: {parts.one}. {Part} two"
                     f" begins at merge {t + 1:,}.")
    if k == t + 1:
        return Stage(2, True, f"{Part} two begins here: merge {k:,} is the first of {n - t:,}"
                     f" {parts.made}; merges 1 to {t:,} were {part} one's.")
    return Stage(2, False, f"{Part} two, merge {k - t:,} of {n - t:,} (merge {k:,}): {parts.two}."
                 f" It began at merge {t + 1:,}.")


# -- why this merge ---------------------------------------------------------------------------------


class Why(NamedTuple):
    """The candidate pairs of one training step and the rule that picked the first of them."""

    frame: pd.DataFrame  # pair, left id, right id, count, first seen, note
    rule: str  # in words, for st.markdown (ids and counts only: no user text)
    tied: int  # how many candidates share the chosen pair's count (1: no tie)


def why_this_merge(tok: Any, k: int) -> Why | None:
    """Why merge ``k`` won: the best pairs of that step, ties marked; None if not recorded.

    ``first seen`` orders the candidates by where they first occur in the training text
    (1 = earliest): among equally frequent pairs the earliest one wins.
    """
    if not has_history(tok) or not 1 <= k <= tok.num_merges:
        return None
    candidates = tok.history[k - 1].candidates
    if not candidates:
        return None
    vocab = tok.vocab
    chosen = candidates[0]
    order = {c.pair: i for i, c in enumerate(sorted(candidates, key=lambda c: c.first), 1)}
    rows = []
    for i, c in enumerate(candidates):
        a, b = c.pair
        if i == 0:
            note = "chosen"
        elif c.count == chosen.count:
            note = f"tie: also {c.count:,}"
        else:
            note = ""
        rows.append(
            {
                "pair": f"{token_text(vocab[a])} + {token_text(vocab[b])}",
                "left id": a,
                "right id": b,
                "count": c.count,
                "first seen": order[c.pair],
                "note": note,
            }
        )
    frame = pd.DataFrame(rows)
    tied = sum(c.count == chosen.count for c in candidates)
    pair = f"({chosen.pair[0]}, {chosen.pair[1]})"
    if tied > 1:
        at_least = "at least " if tied == len(candidates) else ""
        rule = (
            f"Tie on count {chosen.count:,} ({at_least}{tied} pairs): {TIE_RULE}, so {pair} "
            "was merged."
        )
    elif len(candidates) > 1:
        rule = (
            f"Most frequent pair: {pair} occurred {chosen.count:,} times, the next best "
            f"{candidates[1].count:,}."
        )
    else:
        rule = f"Most frequent pair: {pair} was the only pair left to merge."
    return Why(frame, rule, tied)


# -- counts along the steps -----------------------------------------------------------------------


def compression_ratio(num_bytes: int, num_tokens: int) -> float | None:
    """Bytes per token, the seeds' ``len(tokens) / len(ids)``; None for an empty text.

    >>> compression_ratio(11, 5)
    2.2
    """
    return num_bytes / num_tokens if num_tokens else None


def made_at(counts: Sequence[int], k: int) -> int:
    """How many tokens merge ``k`` made in the text (the count's drop from step k - 1 to k)."""
    return counts[k - 1] - counts[k] if k >= 1 else 0


def next_change(counts: Sequence[int], k: int) -> int | None:
    """The first step after ``k`` whose merge changes the text, or None."""
    for s in range(k + 1, len(counts)):
        if counts[s] != counts[s - 1]:
            return s
    return None


def prev_change(counts: Sequence[int], k: int) -> int | None:
    """The last step before ``k`` whose merge changes the text, or None."""
    for s in range(min(k, len(counts)) - 1, 0, -1):
        if counts[s] != counts[s - 1]:
            return s
    return None


def window(steps: Any, max_bytes: int = WINDOW_BYTES) -> tuple[Any, int, int]:
    """The start of a StepThrough that holds at most ``max_bytes`` bytes of its text.

    Returns ``(view, bytes shown, characters shown)``; ``view.tokens_at(k)`` gives exactly the
    first tokens of ``steps.tokens_at(k)`` (the cut falls between two tokens of the full
    encoding, and every token at any step lies inside one of those).
    """
    view = steps.head(max_bytes)
    return view, view.num_bytes, len(view.text)


def default_heldout(samples: Mapping[str, str], avoid: Iterable[str | None]) -> str:
    """The first sample label whose text is none of ``avoid`` (else the first label)."""
    avoid = set(avoid)
    return next((label for label, text in samples.items() if text not in avoid), next(iter(samples)))


# -- the table of all merges ----------------------------------------------------------------------

TABLE_COLUMNS = ["step", "token", "id", "left", "left id", "right", "right id", "count", "bytes"]


def merges_table(tok: Any) -> pd.DataFrame:
    """Every merge in order (``ui.kit.tables.merge_table``): its step, new token and parents (text and
    ids), count and bytes; ``count`` is missing (NA) for pretrained vocabularies. A hidden-from-view
    ``_search`` column holds the lower-cased raw text that search looks in.
    """
    frame = merge_table(tok)
    vocab = tok.vocab
    frame["_search"] = [vocab[i][:SEARCH_BYTES].decode("utf-8", "replace").lower()
                        for i in frame["id"]]
    columns = ["step", "token", "id", "left", "left id", "right", "right id", "count", "bytes"]
    t = transition_of(tok)
    if t is not None:  # SuperBPE or BoundlessBPE: which stage or phase made each merge
        two = _PARTS[tok.variant].column
        frame["stage"] = ["one" if step <= t else two for step in frame["step"]]
        columns.insert(1, "stage")
    return frame[[*columns, "_search"]]


def search_merges(frame: pd.DataFrame, query: str, limit: int = TABLE_ROWS) -> tuple[pd.DataFrame, int]:
    """The merges matching ``query`` (at most ``limit`` rows) and how many match in all.

    A query matches a token whose text contains it (case-insensitive; `·` may stand for a
    space), and, when it is a number, the merge with that step or id, or with it as a parent.
    """
    query = query.strip("\r\n")
    if query:
        raw = query.lower().replace("·", " ").replace("↵", "\n").replace("→", "\t")
        mask = frame["_search"].str.contains(raw, regex=False)
        number = query.strip()
        if number.isascii() and number.isdigit() and len(number) <= 30:  # "²" is not a number
            n = int(number)
            mask |= (frame["step"] == n) | (frame["id"] == n)
            mask |= (frame["left id"] == n) | (frame["right id"] == n)
        frame = frame[mask]
    total = len(frame)
    shown = frame.head(limit).drop(columns="_search")
    if shown["count"].isna().all():
        shown = shown.drop(columns="count")
    return shown, total
