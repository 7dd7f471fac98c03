"""The Vocabulary health page's data (no Streamlit here): the tokens of each kind in the order the
page lists them, searching them, and the tables the page shows.

The kinds themselves are computed in ``bpe_lab.who_pays.health``; this module only arranges them:

    health_view(tok, counts, defects)   each kind's ids, sorted for listing, and the summary
    find_health_rows(...)               a kind's ids that match a search (text or id), capped
    view_rows(tok, view, ids)           the rows of the ids a table shows
    health_frame / health_summary_frame   the DataFrames for st.dataframe
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

import pandas as pd

from bpe_core import GPT2_SPLIT_PATTERN, GPT4_SPLIT_PATTERN, GPT4O_SPLIT_PATTERN
from bpe_lab.who_pays.health import (
    HEALTH_KINDS,
    HEALTHY,
    NEVER_PRODUCED,
    PARTIAL_UTF8,
    ROUND_TRIP_FAILS,
    STEPPING_STONE,
    STEPPING_STONE_SHARE,
    UNREACHABLE,
    Defect,
    KindCount,
    TokenHealth,
    inside_counts,
    kinds_summary,
    ordinary_ids,
    token_health,
    token_kind,
)
from ui.forest.trees import as_id
from ui.kit.tables import SEARCH_BYTES, cell_bytes
from ui.kit.tokens_html import token_text

# "Check against the split pattern of": None is the tokenizer's own split
HEALTH_PATTERNS = {
    "its own": None,
    "GPT-2": GPT2_SPLIT_PATTERN,
    "GPT-4": GPT4_SPLIT_PATTERN,
    "GPT-4o": GPT4O_SPLIT_PATTERN,
}

# a short name of each kind, for widget keys (health_search_partial, health_table_partial, ...)
HEALTH_SLUGS = {
    PARTIAL_UTF8: "partial",
    UNREACHABLE: "unreachable",
    ROUND_TRIP_FAILS: "round_trip",
    NEVER_PRODUCED: "never",
    STEPPING_STONE: "stepping",
    HEALTHY: "healthy",
}

HEALTH_EXPLAINED = {
    PARTIAL_UTF8: (
        "A byte-level vocabulary holds all 256 bytes, and UTF-8 writes most characters with "
        "several bytes (é is 2, ह is 3, 🙂 is 4). A byte from 128 to 255 alone, or a merged "
        "token that starts or ends in the middle of a character, is *half a character*: "
        "decoding it alone gives the replacement character �. Such tokens are produced only "
        "beside their other half, and a model that rarely saw them in training may do odd "
        "things with them (the \"SolidGoldMagikarp\" family of glitch tokens)."
    ),
    UNREACHABLE: (
        "The split pattern cuts the text into chunks before BPE runs, and merges never cross a "
        "chunk boundary. A token whose own text the pattern cuts in two can therefore never be "
        "produced, whatever the text: it was learned with another pattern (or none). Check a "
        "vocabulary against another tokenizer's pattern with the selectbox above: GPT-2's "
        "\" 123\" is one token, but GPT-4's pattern cuts the space off the digits."
    ),
    ROUND_TRIP_FAILS: (
        "Decode the token to text, encode the text again: you should get the token back. Here "
        "you do not, although the text is whole characters and one chunk: the encoder applies "
        "the merges in the order they were learned, and on these bytes an earlier merge takes "
        "a pair that the token's own recipe needed. The token is in the vocabulary, but BPE "
        "never builds it."
    ),
    NEVER_PRODUCED: (
        "Encoding the sidebar's text never produced these tokens, not even inside a longer "
        "token. A vocabulary trained on other text has many of them: their rows in a model's "
        "embedding table would get no training from this text. Change the text in the sidebar "
        "to see which tokens it wakes up."
    ),
    STEPPING_STONE: (
        "Training merges the most frequent pair, even if later merges will swallow the new "
        "token into longer ones. These merged tokens sit inside the text's tokens (see their "
        "merge trees) but are produced on their own at most "
        f"{STEPPING_STONE_SHARE:.0%} of the time: steps on the way to longer tokens, which "
        "take a place in the vocabulary for little use of their own."
    ),
    HEALTHY: (
        "Whole characters, reachable, rebuilt by the merges, and produced on their own on the "
        "sidebar's text. Single bytes are here even when only used inside longer tokens: every "
        "text is built from them."
    ),
}


class HealthView(NamedTuple):
    """One classification, kept small for the page: each kind's token ids, not rows (rows for
    GPT-4o's 200,000 tokens take about 36 MB; a session keeps ids, 1.6 MB, and makes rows for
    the few it shows with ``view_rows``)."""

    ids: dict[str, list[int]]  # each kind's ids in the order the page lists them
    summary: list[KindCount]
    total: int  # tokens classified (the vocabulary without its special tokens)
    counts: Mapping[int, int]  # the text's token counts
    inside: dict[int, int]  # times each token sits inside the text's tokens
    defects: Mapping[int, Defect]  # the vocabulary's own kinds (``vocabulary_defects``)


def health_view(tok: Any, counts: Mapping[int, int], defects: Mapping[int, Defect]) -> HealthView:
    """Classify the vocabulary on a text's ``counts``; each kind's ids sorted for listing
    (stepping stones most swallowed first, healthy tokens most used first, the rest by id; kinds
    with none included), and the summary. Only kinds here: rows (with each token's text) are made
    by ``view_rows`` for the few a table shows.

    >>> from bpe_core import BasicTokenizer
    >>> tok = BasicTokenizer()
    >>> tok.train("aaabdaaabac", 259)            # 256 'aa', 257 'aaa', 258 'aaab'
    >>> view = health_view(tok, {258: 1, 97: 5, 98: 2}, {})
    >>> view.ids["healthy"], view.ids["stepping stone"]
    ([97, 98, 258], [256, 257])
    """
    inside = inside_counts(tok, counts)
    ids: dict[str, list[int]] = {kind: [] for kind in HEALTH_KINDS}
    for idx in ordinary_ids(tok):
        ids[token_kind(tok, idx, counts.get(idx, 0), inside.get(idx, 0), defects)].append(idx)
    ids[STEPPING_STONE].sort(key=lambda i: (-inside.get(i, 0), i))
    ids[HEALTHY].sort(key=lambda i: (-counts.get(i, 0), i))
    vocab = tok.vocab
    summary = kinds_summary((kind, len(vocab[i]) == 1) for kind, kind_ids in ids.items()
                            for i in kind_ids)
    return HealthView(ids, summary, sum(map(len, ids.values())), counts, inside, defects)


def view_rows(tok: Any, view: HealthView, ids: Sequence[int]) -> list[TokenHealth]:
    """The rows of some of a view's tokens (those a table shows)."""
    return [token_health(tok, idx, view.counts, view.inside, view.defects) for idx in ids]


def find_health_rows(
    tok: Any, ids: Sequence[int], query: str, limit: int, *, spelled: bool = False,
    ordered: tuple[list[int], list[str]] | None = None,
) -> tuple[list[int], int]:
    """The ids among ``ids`` whose token matches ``query``, at most ``limit``:
    ``(ids, how many matched)``, in the order given.

    The query matches a token's text anywhere, ignoring case; a number also matches that id,
    listed first. ``spelled``: also match the shown spelling (the partial-UTF-8 list: bytes
    that are not whole characters as ``⟨e2 80⟩``). ``ordered``: every id in id order and its
    case-folded text (``ui.forest.trees.vocab_order(tok, "by id")``, kept once per vocabulary), so
    that searching does not decode the whole vocabulary again.

    >>> from bpe_core import BasicTokenizer
    >>> tok = BasicTokenizer()
    >>> tok.train("Aa Aa Aa", 257)               # 256 'Aa'
    >>> find_health_rows(tok, [32, 65, 97, 256], "a", 10)
    ([65, 97, 256], 3)
    >>> find_health_rows(tok, [32, 65, 97, 256], "32", 1), find_health_rows(tok, [200], "c8", 5)
    (([32], 1), ([], 0))
    >>> find_health_rows(tok, [200], "⟨C8", 5, spelled=True)
    ([200], 1)
    """
    query = query.strip()
    if not query:
        return list(ids[:limit]), len(ids)
    needle = query.casefold()
    vocab = tok.vocab
    if ordered is None:
        def text_of(idx: int) -> str:
            return vocab[idx][:SEARCH_BYTES].decode("utf-8", "replace").casefold()
    else:
        every_id, texts = ordered

        def text_of(idx: int) -> str:
            return texts[bisect_left(every_id, idx)]  # every_id is sorted: a binary search

    picked = [idx for idx in ids
              if needle in text_of(idx)
              or (spelled and needle in token_text(vocab[idx][:SEARCH_BYTES]).casefold())]
    exact = as_id(query)
    if exact is not None and exact in ids:
        picked = [exact] + [idx for idx in picked if idx != exact]
    return picked[:limit], len(picked)


def health_frame(rows: Sequence[TokenHealth]) -> pd.DataFrame:
    """One kind's table: id, token (the shown spelling, long tokens cut), bytes, its count on its
    own, inside longer tokens, and why it has its kind.

    >>> health_frame([TokenHealth(400, b"\\xe2\\x80", "", "partial UTF-8", 0, 0, "ends inside")]
    ...              )[["id", "token", "bytes"]].values.tolist()
    [[400, '⟨e2 80⟩', 2]]
    """
    tokens = []
    for row in rows:
        shown, more = cell_bytes(row.token)
        tokens.append(token_text(shown) + more)
    return pd.DataFrame({
        "id": pd.array([r.id for r in rows], dtype="int64"),
        "token": tokens,
        "bytes": pd.array([len(r.token) for r in rows], dtype="int64"),
        "on its own": pd.array([r.count for r in rows], dtype="int64"),
        "inside longer tokens": pd.array([r.inside for r in rows], dtype="int64"),
        "why": [r.reason for r in rows],
    })


def health_summary_frame(summary: Sequence[KindCount]) -> pd.DataFrame:
    """The summary table: tokens of each kind, their share of the vocabulary, and how many of
    them are single bytes or merged tokens.

    >>> health_summary_frame([KindCount("healthy", 3, 1, 2, 0.75)]).values.tolist()
    [['healthy', 3, '75.0%', 1, 2]]
    """
    return pd.DataFrame(
        [{"kind": k.kind, "tokens": k.tokens, "% of the vocabulary": f"{k.share:.1%}",
          "single bytes": k.single_bytes, "merged": k.merged} for k in summary],
        columns=["kind", "tokens", "% of the vocabulary", "single bytes", "merged"],
    )


def pattern_note(tok: Any, choice: str) -> str:
    """A caption: which split the unreachable tokens were checked against (plain text)."""
    if choice != "its own":
        return (f"Checked against {choice}'s split pattern: the vocabulary's merges used with "
                "that pattern instead of the tokenizer's own.")
    pipeline = tok.pipeline
    if not tok.pattern and (pipeline is None or pipeline.pre_tokenizer is None):
        return ("This tokenizer has no split pattern: no token is cut, none is unreachable. "
                "Pick a GPT pattern to see which tokens it would cut.")
    return "Checked against the tokenizer's own split pattern."
