"""Explaining the step where a learner's merges leave the reference's (``explain_step``): both
pairs with their counts in the reference's tokens just before it, every pair tied with the
reference's, and which pair each tie rule picks.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

from bpe_core.base import Tokenizer
from bpe_core.merges import apply_merges

from .task import TIE_RULE_WORDS, Pair, Setup, counted, rule_name, show_pair, training_chunks


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
    winners: dict[str, Pair]  # what each tie rule (the reference's three, the zoo's two) picks
    summary: str
    tie_rule: str = "seen"  # the reference's
    missing: bytes | None = None  # a token of the learner's pair the reference has not made yet

    @property
    def is_tie(self) -> bool:
        """The learner's pair is as frequent as the reference's: a tie broken another way."""
        return self.mine.count == self.reference.count

    @property
    def rule_of_mine(self) -> str | None:
        """The first tie rule that picks the learner's pair, or None (another tie rule)."""
        return next((r for r, pair in self.winners.items() if pair == self.mine.pair), None)


TIED_SHOWN = 8  # tied pairs a message lists


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
        "last_seen": tied_ids[-1],
        "greatest_ids": max(tied_ids),
    }
    winners_bytes = {rule: (vocab[a], vocab[b]) for rule, (a, b) in winners.items()}
    mine = CountedPair(mine_pair, by_bytes.get(mine_pair, 0))
    ref = CountedPair(ref_pair, top)
    tied = [CountedPair((vocab[a], vocab[b]), top) for a, b in tied_ids]
    made = {vocab[b] for b in range(256)} | {vocab[i] for i in before.values()}  # tokens by then
    missing = next((t for t in mine_pair if t not in made), None) if mine.count == 0 else None
    draft = StepExplanation(step, mine, ref, tied, winners_bytes, "", setup.tie_rule, missing)
    return StepExplanation(step, mine, ref, tied, winners_bytes, step_words(draft),
                           setup.tie_rule, missing)


def step_words(explanation: StepExplanation, spell: Callable[[bytes], str] = repr) -> str:
    """The step explained in words, tokens written by ``spell`` (``StepExplanation.summary`` is
    this with ``repr``)."""
    e = explanation
    mine, ref, rule = e.mine, e.reference, e.tie_rule
    where = f"At merge {e.step:,}"
    if e.is_tie:
        others = len(e.tied) - 2
        tie = "a tie" if others <= 0 else f"a tie with {counted(others, 'other pair')}"
        said = (f"{where} your pair {show_pair(mine.pair, spell)} and the reference's"
                f" {show_pair(ref.pair, spell)} both occur {counted(mine.count, 'time')}: {tie}."
                f" The reference breaks ties by the {rule_name(rule)} rule"
                f" ({TIE_RULE_WORDS[rule]}).")
        picked_by = e.rule_of_mine
        if picked_by is not None:
            return said + f" Your pick is the one the {rule_name(picked_by)} rule makes."
        return said + (" None of the tie rules this page knows picks your pair: you broke ties"
                       " by another tie rule. The tied pairs: " + tied_words(e, spell) + ".")
    if mine.count == 0:
        why = (f": the reference has no token {spell(e.missing)} by then"
               if e.missing is not None else ": its two tokens are never side by side there")
        return (f"{where} your pair {show_pair(mine.pair, spell)} does not occur in the"
                f" reference's tokens{why}. The reference merged {show_pair(ref.pair, spell)},"
                f" which occurs {counted(ref.count, 'time')}. Your tokens or counts parted from"
                " the reference's earlier.")
    return (f"{where} your pair {show_pair(mine.pair, spell)} occurs"
            f" {counted(mine.count, 'time')} in the reference's tokens, and the reference's"
            f" {show_pair(ref.pair, spell)} {counted(ref.count, 'time')}, the most of any pair:"
            " your counts differ from the reference's.")


def tied_words(explanation: StepExplanation, spell: Callable[[bytes], str] = repr) -> str:
    """The pairs tied at the step, in the order first seen, at most ``TIED_SHOWN`` of them."""
    shown = [show_pair(p.pair, spell) for p in explanation.tied[:TIED_SHOWN]]
    more = len(explanation.tied) - len(shown)
    return "; ".join(shown) + (f"; and {more:,} more" if more > 0 else "")
