"""Explaining the step where a learner's merges leave the reference's (``explain_step``): both
pairs with their counts in the reference's tokens just before it, every pair tied with the
reference's, and which pair each tie rule picks.
"""

from __future__ import annotations

from typing import NamedTuple

from ..base import Tokenizer
from ..merges import apply_merges
from ..training import TIE_RULES
from .task import TIE_RULE_WORDS, Pair, Setup, counted, show_pair, training_chunks


class CountedPair(NamedTuple):
    pair: Pair
    count: int  # occurrences among the reference's tokens at the step (0: never side by side)


class StepExplanation(NamedTuple):
    """The step where the learner's merges leave the reference's, seen in the reference's tokens
    just before it (after ``step - 1`` merges)."""

    step: int
    mine: CountedPair
    reference: CountedPair
    tied: list[CountedPair]  # every pair as frequent as the reference's, in the order first seen
    winners: dict[str, Pair]  # what each tie rule picks among ``tied``
    summary: str


def explain_step(text: str, reference: Tokenizer, step: int, mine_pair: Pair,
                 setup: Setup) -> StepExplanation:
    """Count every pair of the reference's tokens after ``step - 1`` merges and put the
    learner's pair (the one it merged at ``step``) beside the reference's."""
    ordered = sorted(reference.merges.items(), key=lambda item: item[1])
    before = dict(ordered[: step - 1])
    ref_ids = ordered[step - 1][0]
    vocab = reference.vocab
    counts: dict[tuple[int, int], int] = {}  # in the order the pairs are first seen
    for chunk, n in training_chunks(text, setup):
        ids = apply_merges(list(chunk), before)
        for pair in zip(ids, ids[1:]):
            counts[pair] = counts.get(pair, 0) + n
    by_bytes: dict[Pair, int] = {}
    for (a, b), n in counts.items():
        key = (vocab[a], vocab[b])
        by_bytes[key] = by_bytes.get(key, 0) + n
    ref_pair = (vocab[ref_ids[0]], vocab[ref_ids[1]])
    top = counts[ref_ids]
    tied_ids = [pair for pair, n in counts.items() if n == top]
    winners = {
        "seen": tied_ids[0],
        "bytes": max(tied_ids, key=lambda p: (vocab[p[0]], vocab[p[1]])),
        "ids": min(tied_ids),
    }
    winners_bytes = {rule: (vocab[a], vocab[b]) for rule, (a, b) in winners.items()}
    mine = CountedPair(mine_pair, by_bytes.get(mine_pair, 0))
    ref = CountedPair(ref_pair, top)
    tied = [CountedPair((vocab[a], vocab[b]), top) for a, b in tied_ids]
    made = {vocab[b] for b in range(256)} | {vocab[i] for i in before.values()}  # tokens by then
    summary = _explain_in_words(step, mine, ref, tied, winners_bytes, setup.tie_rule, made)
    return StepExplanation(step, mine, ref, tied, winners_bytes, summary)


def _explain_in_words(step: int, mine: CountedPair, ref: CountedPair, tied: list[CountedPair],
                      winners: dict[str, Pair], rule: str, tokens: set[bytes]) -> str:
    where = f"At merge {step:,}"
    if mine.count == ref.count:
        others = len(tied) - 2
        tie = "a tie" if others <= 0 else f"a tie with {counted(others, 'other pair')}"
        picks = [r for r in TIE_RULES if winners[r] == mine.pair]
        said = (f"{where} your pair {show_pair(mine.pair)} and the reference's {show_pair(ref.pair)} both"
                f" occur {counted(mine.count, 'time')}: {tie}. The reference breaks ties by the"
                f" {rule!r} rule ({TIE_RULE_WORDS[rule]}).")
        if picks:
            return said + f" Your pick is the one the {picks[0]!r} rule makes."
        return said + " None of the three rules picks your pair first."
    if mine.count == 0:
        missing = [t for t in mine.pair if t not in tokens]
        why = (f": the reference has no token {missing[0]!r} by then" if missing
               else ": its two tokens are never side by side there")
        return (f"{where} your pair {show_pair(mine.pair)} does not occur in the reference's tokens"
                f"{why}. The reference merged {show_pair(ref.pair)}, which occurs"
                f" {counted(ref.count, 'time')}. Your tokens or counts parted from the"
                " reference's earlier.")
    return (f"{where} your pair {show_pair(mine.pair)} occurs {counted(mine.count, 'time')} in the"
            f" reference's tokens, and the reference's {show_pair(ref.pair)}"
            f" {counted(ref.count, 'time')}, the most of any pair: your counts differ from the"
            " reference's.")

