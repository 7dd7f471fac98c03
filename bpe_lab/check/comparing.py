"""Comparing a learner's merges with the reference's (``compare_merges``): equal, or the first
step where they differ. Merges compare by their tokens' bytes, so two numberings of the same
merges match.

>>> result = compare_merges([(b"a", b"a"), (b"aa", b"b")], [(b"a", b"a"), (b"a", b"b")])
>>> result.first_difference, result.mine_pair, result.reference_pair
(2, (b'aa', b'b'), (b'a', b'b'))
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import NamedTuple

from bpe_core.base import Tokenizer
from bpe_core.text import shorten

from .reading import LearnerOutput
from .task import Pair, counted, show_pair


class MergeComparison(NamedTuple):
    """Two lists of merges side by side. ``matches``: equal (the same merges, in the same order,
    as many). When one list is the other's beginning nothing differs (``first_difference`` is
    None) but they are not equal."""

    matches: bool
    first_difference: int | None  # the 1-based merge step where they differ
    mine_pair: Pair | None  # at that step
    reference_pair: Pair | None
    common: int  # merges equal before the first difference
    lengths: tuple[int, int]  # (mine, reference)
    summary: str


def merge_pairs(merges: object) -> list[Pair]:
    """Merges as a list of bytes pairs, from a list of pairs, a ``LearnerOutput`` or a tokenizer.

    >>> from bpe_core import BasicTokenizer
    >>> tok = BasicTokenizer()
    >>> tok.train("aaabdaaabac", 258)
    >>> merge_pairs(tok)
    [(b'a', b'a'), (b'aa', b'a')]
    """
    if isinstance(merges, LearnerOutput):
        return list(merges.merges)
    if isinstance(merges, Tokenizer):
        ordered = sorted(merges.merges.items(), key=lambda item: item[1])
        return [(merges.vocab[a], merges.vocab[b]) for (a, b), _ in ordered]
    if isinstance(merges, str | bytes) or not isinstance(merges, Iterable):
        raise ValueError(f"expected merges as a list of (bytes, bytes) pairs, not"
                         f" {shorten(merges)}")
    pairs = list(merges)
    for k, pair in enumerate(pairs, 1):
        if not (isinstance(pair, tuple | list) and len(pair) == 2
                and all(isinstance(x, bytes) for x in pair)):
            raise ValueError(f"item {k} of the merges is {shorten(pair)}: expected a pair of"
                             " bytes such as (b' ', b't')")
    return [(a, b) for a, b in pairs]


def compare_merges(mine: object, reference: object) -> MergeComparison:
    """Where two lists of merges part: the first step at which they differ, if any.

    Both may be lists of bytes pairs, ``LearnerOutput``s or tokenizers; merges compare by their
    tokens' bytes, so two numberings of the same merges match.

    >>> compare_merges([(b"a", b"b")], [(b"a", b"b"), (b"ab", b"c")]).summary
    "Your 1 merge matches the reference's first; the reference made 1 more (2 in all)."
    """
    a, b = merge_pairs(mine), merge_pairs(reference)
    common = common_prefix(a, b)
    lengths = (len(a), len(b))
    if common < min(lengths):
        fields = (False, common + 1, a[common], b[common], common, lengths)
    else:
        fields = (lengths[0] == lengths[1], None, None, None, common, lengths)
    return MergeComparison(*fields, comparison_words(MergeComparison(*fields, "")))


def comparison_words(comparison: MergeComparison, spell: Callable[[bytes], str] = repr) -> str:
    """The comparison in one or two sentences, tokens written by ``spell``
    (``MergeComparison.summary`` is this with ``repr``)."""
    common, lengths = comparison.common, comparison.lengths
    if comparison.first_difference is not None:
        first = ("Your merges differ from the first one" if common == 0
                 else f"Your merges match the first {common:,}")
        return (f"{first}; at merge {comparison.first_difference:,} you merged"
                f" {show_pair(comparison.mine_pair, spell)} and the reference merged"
                f" {show_pair(comparison.reference_pair, spell)}.")
    if lengths[0] == lengths[1]:
        return (f"Your merges match the reference's {counted(common, 'merge')}." if common
                else "Neither has any merges.")
    if lengths[0] < lengths[1]:
        more = lengths[1] - lengths[0]
        if common == 0:
            return f"You have no merges; the reference made {more:,}."
        verb = "match" if common > 1 else "matches"
        first = "first" if common == 1 else f"first {common:,}"
        return (f"Your {counted(common, 'merge')} {verb} the reference's {first}; the"
                f" reference made {more:,} more ({lengths[1]:,} in all).")
    more = lengths[0] - lengths[1]
    if common == 0:
        return f"The reference made no merges; you made {more:,}."
    return (f"The reference's {counted(common, 'merge')} match your first"
            f" {common:,}; you made {more:,} more ({lengths[0]:,} in all).")


def common_prefix(a: Sequence, b: Sequence) -> int:
    """How many items two lists share from the start.

    >>> common_prefix([1, 2, 3], [1, 2, 4, 5])
    2
    """
    n = 0
    for x, y in zip(a, b):
        if x != y:
            break
        n += 1
    return n
