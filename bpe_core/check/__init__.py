"""Check your BPE: read what a learner's own trainer produced, compare it with the reference, and
find the most likely mistake.

A learner who wrote BPE themselves (the seeds' minbpe tutorial, Stanford CS336's assignment 1)
brings the merges their code learned from a text, with its settings. This package, by what each
part does:

- ``task``: the settings (``Setup``), the bounds, the reference (``train_reference``);
- ``reading``: reads those merges safely, whatever they were saved as (``read_merges``): a minbpe
  ``.model``, CS336's ``vocab`` / ``merges`` printed as Python literals, a merges.txt in GPT-2's
  byte alphabet, a dict or list of id pairs, or any tokenizer file ``files.py`` reads. Merges
  become pairs of token BYTES, since learners number their tokens differently but bytes compare;
- ``comparing``: compares them with the reference's merges (``compare_merges``): equal, or the
  first step where they differ;
- ``explaining``: explains that step (``explain_step``): both pairs with their counts in the
  reference's tokens just before it, and who wins a tie under each tie rule;
- ``replaying`` and ``zoo``: replay known mistakes (the bug zoo, ``MISTAKES``) with a small trainer
  written to be read and bent (``replay_training``); ``encoding`` does the same for an encoder's
  ids (``diagnose_encoding``);
- this module puts them together: ``check_merges`` reports the mistakes whose merges agree with
  the learner's for longest (``diagnose``).

Pasted text is data, never code: Python literals are read with ``ast`` after bounds on size,
nesting and item counts, never with ``eval``; pickles are refused. Every refusal is a ValueError
that says what was expected and what was found. The bounds are in ``task``'s docstring.

>>> result = compare_merges([(b"a", b"a"), (b"aa", b"b")], [(b"a", b"a"), (b"a", b"b")])
>>> result.first_difference, result.mine_pair, result.reference_pair
(2, (b'aa', b'b'), (b'a', b'b'))
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import NamedTuple

from ..base import Tokenizer
from .comparing import MergeComparison, common_prefix, compare_merges, merge_pairs
from .encoding import EncodingCheck, diagnose_encoding, encode_with_mistake
from .explaining import CountedPair, StepExplanation, explain_step
from .reading import LearnerOutput, check_merge_count, read_ids, read_merges
from .replaying import (
    COUNTERS,
    MERGERS,
    count_pairs_without_overlap,
    merge_first_only,
    merge_right_to_left,
    replay,
    replay_training,
)
from .task import (
    MAX_CHECK_CHARS,
    MAX_INPUT_CHARS,
    MAX_MERGES,
    MAX_NESTING,
    MAX_PLAIN_STEPS,
    MAX_PYTHON_CHARS,
    PATTERN_NAMES,
    TIE_RULE_WORDS,
    WINDOW,
    Pair,
    Setup,
    check_settings,
    counted,
    pattern_name,
    train_reference,
    training_chunks,
)
from .zoo import MISTAKES, MISTAKES_BY_KEY, Mistake, ZooDemo, mistake_variants, zoo_demo

__all__ = [
    "MAX_CHECK_CHARS",
    "MAX_INPUT_CHARS",
    "MAX_MERGES",
    "MAX_NESTING",
    "MAX_PLAIN_STEPS",
    "MAX_PYTHON_CHARS",
    "WINDOW",
    "Pair",
    "PATTERN_NAMES",
    "TIE_RULE_WORDS",
    "pattern_name",
    "LearnerOutput",
    "read_merges",
    "read_ids",
    "MergeComparison",
    "merge_pairs",
    "compare_merges",
    "Setup",
    "training_chunks",
    "train_reference",
    "CountedPair",
    "StepExplanation",
    "explain_step",
    "CheckReport",
    "check_merges",
    "explain_difference",
    "count_pairs_without_overlap",
    "merge_right_to_left",
    "merge_first_only",
    "COUNTERS",
    "MERGERS",
    "replay_training",
    "replay",
    "Mistake",
    "MISTAKES",
    "MISTAKES_BY_KEY",
    "Diagnosis",
    "diagnose",
    "ZooDemo",
    "zoo_demo",
    "encode_with_mistake",
    "EncodingCheck",
    "diagnose_encoding",
]


class Diagnosis(NamedTuple):
    """A mistake that explains the learner's merges (some or all of them)."""

    mistake: Mistake
    detail: str  # the mistake as it applies here, in words
    explains: int  # how many of the learner's merges, from the first, its replay gives
    explains_all: bool  # its replay gives exactly the learner's merges, no more, no fewer
    setup: Setup  # the replayed trainer's settings
    summary: str


def _diagnose(mine: list[Pair], text: str, reference: Setup,
              comparison: MergeComparison) -> list[Diagnosis]:
    """Replay every training mistake and keep those that explain more than the reference does.

    Each is replayed only up to ``WINDOW`` steps past the first difference (plus one, to see
    whether it goes on longer than the learner's list); the ones that agree all that way are
    replayed again to the end of the learner's merges (the plain loop stops at
    ``MAX_PLAIN_STEPS``: a mistake it replays explains no more than that many).
    """
    if comparison.matches:
        return []
    common = comparison.common
    limit = min(len(mine), common + 1 + WINDOW) + 1
    found = []  # (order in the zoo, mistake, detail, setup, replayed merges)
    for order, mistake in enumerate(MISTAKES):
        for detail, setup in mistake_variants(mistake.key, reference):
            merges = replay(text, setup, limit)
            explains = common_prefix(merges, mine)
            if explains == len(merges) == limit <= len(mine):  # agrees all the way: go on
                merges = replay(text, setup, len(mine) + 1)
                explains = common_prefix(merges, mine)
            explains_all = merges == mine
            if explains > common or explains_all:
                found.append((not explains_all, -explains, order, mistake, detail, setup,
                              explains, explains_all))
    found.sort(key=lambda entry: entry[:3])
    out = []
    for *_, mistake, detail, setup, explains, explains_all in found:
        if explains_all:
            how = f"it gives exactly your {counted(len(mine), 'merge')}."
        else:
            how = (f"it gives your first {explains:,} merges (the reference gives"
                   f" {common:,}).")
            if explains == MAX_PLAIN_STEPS and (setup.count, setup.merge) != (
                    "overlapping", "left_to_right"):
                how = how[:-1] + f"; it was replayed no further than {MAX_PLAIN_STEPS:,}."
        summary = f"{mistake.title}: {detail}; {how}"
        out.append(Diagnosis(mistake, detail, explains, explains_all, setup, summary))
    return out


def diagnose(
    mine: object,
    text: str,
    *,
    pattern: str,
    vocab_size: int,
    special_tokens: Iterable[str] = (),
    tie_rule: str = "seen",
) -> list[Diagnosis]:
    """The known mistakes that explain the learner's merges, most likely first: those that give
    all of them, then those that give the longest beginning. Empty when the merges match the
    reference's, or when no known mistake explains more than the reference does.

    >>> [d.mistake.key for d in diagnose([(b"a", b"b")], "abaaa", pattern="", vocab_size=257)]
    ['overlap']
    """
    return check_merges(mine, text, pattern=pattern, vocab_size=vocab_size,
                        special_tokens=special_tokens, tie_rule=tie_rule).diagnoses


class CheckReport(NamedTuple):
    """Everything ``check_merges`` found, with one paragraph for people (``summary``)."""

    comparison: MergeComparison
    explanation: StepExplanation | None  # None when nothing differs step by step
    diagnoses: list[Diagnosis]  # the likely mistakes, most likely first ([] when it matches)
    reference: Tokenizer
    summary: str


def check_merges(
    mine: object,
    text: str,
    *,
    pattern: str,
    vocab_size: int,
    special_tokens: Iterable[str] = (),
    tie_rule: str = "seen",
    with_diagnosis: bool = True,
) -> CheckReport:
    """Train the reference with the learner's inputs, compare, explain the first difference and
    (``with_diagnosis``) replay the bug zoo to find the likely mistake.

    ``mine``: the learner's merges (bytes pairs, a ``LearnerOutput`` or a tokenizer);
    ``pattern``: the split pattern ("" for none); ``special_tokens`` count in ``vocab_size``.

    >>> r = check_merges([(b"z", b"a")], "mzab", pattern="", vocab_size=257)
    >>> r.comparison.first_difference, r.explanation.mine.count, r.explanation.reference.count
    (1, 1, 1)
    >>> r.explanation.winners
    {'seen': (b'm', b'z'), 'bytes': (b'z', b'a'), 'ids': (b'a', b'b')}
    >>> [(d.mistake.key, d.explains_all) for d in r.diagnoses]
    [('tie_rule', True)]
    """
    pattern, specials = check_settings(text, pattern, special_tokens)
    mine_pairs = merge_pairs(mine)
    check_merge_count(len(mine_pairs), "your merges")
    reference = train_reference(text, pattern=pattern, vocab_size=vocab_size,
                                special_tokens=specials, tie_rule=tie_rule)
    setup = Setup(pattern, vocab_size, specials, tie_rule)
    comparison = compare_merges(mine_pairs, reference)
    explanation = None
    if comparison.first_difference is not None:
        explanation = explain_step(text, reference, comparison.first_difference,
                                   comparison.mine_pair, setup)
    diagnoses = _diagnose(mine_pairs, text, setup, comparison) if with_diagnosis else []
    lines = [comparison.summary]
    if explanation is not None:
        lines.append(explanation.summary)
    if diagnoses:
        lines.append("Most likely: " + diagnoses[0].summary)
    elif with_diagnosis and not comparison.matches:
        lines.append("None of the known mistakes gives your merges.")
    return CheckReport(comparison, explanation, diagnoses, reference, " ".join(lines))


def explain_difference(
    text: str,
    comparison_or_mine: object,
    *,
    pattern: str,
    vocab_size: int,
    special_tokens: Iterable[str] = (),
    tie_rule: str = "seen",
) -> StepExplanation | None:
    """The first differing step explained, or None when no step differs: ``check_merges``
    without the diagnosis. Give the learner's merges, or a ``MergeComparison`` of them with the
    reference trained on the same inputs.

    >>> explain_difference("mzab", [(b"a", b"b")], pattern="", vocab_size=257).winners["ids"]
    (b'a', b'b')
    """
    if not isinstance(comparison_or_mine, MergeComparison):
        return check_merges(comparison_or_mine, text, pattern=pattern, vocab_size=vocab_size,
                            special_tokens=special_tokens, tie_rule=tie_rule,
                            with_diagnosis=False).explanation
    comparison = comparison_or_mine
    if comparison.first_difference is None:
        return None
    reference = train_reference(text, pattern=pattern, vocab_size=vocab_size,
                                special_tokens=special_tokens, tie_rule=tie_rule)
    setup = Setup(pattern or "", vocab_size, tuple(special_tokens), tie_rule)
    return explain_step(text, reference, comparison.first_difference, comparison.mine_pair, setup)

