"""Check your BPE: read what a learner's own trainer produced, compare it with the reference, and
find which known mistake explains how many of the learner's merges.

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

from collections.abc import Callable, Iterable
from typing import NamedTuple

from bpe_core.base import Tokenizer

from .comparing import (
    MergeComparison,
    common_prefix,
    compare_merges,
    comparison_words,
    merge_pairs,
)
from .encoding import EncodingCheck, diagnose_encoding, encode_with_mistake
from .explaining import CountedPair, StepExplanation, explain_step, step_words, tied_words
from .reading import LearnerOutput, check_merge_count, read_ids, read_merges
from .replaying import (
    COUNTERS,
    MERGERS,
    count_pairs_without_overlap,
    merge_first_only,
    merge_right_to_left,
    replay,
    replay_training,
    uses_plain_loop,
)
from .task import (
    MAX_CHECK_CHARS,
    MAX_INPUT_CHARS,
    MAX_MERGES,
    MAX_NESTING,
    MAX_PLAIN_STEPS,
    MAX_PYTHON_CHARS,
    MINBPE_GPT2_SPLIT_PATTERN,
    MINBPE_GPT4_SPLIT_PATTERN,
    PATTERN_NAMES,
    TIE_RULE_NAMES,
    TIE_RULE_WORDS,
    WINDOW,
    ZOO_TIE_RULES,
    Pair,
    Setup,
    check_settings,
    counted,
    known_pattern,
    pattern_name,
    rule_name,
    show_pair,
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
    "TIE_RULE_NAMES",
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
    "CheckVerdict",
    "check_verdict",
    "diagnosis_words",
    "comparison_words",
    "step_words",
    "tied_words",
    "learner_words",
    "report_lines",
    "report_text",
    "pattern_words",
    "note_words",
    "known_pattern",
    "MINBPE_GPT2_SPLIT_PATTERN",
    "MINBPE_GPT4_SPLIT_PATTERN",
    "ZOO_TIE_RULES",
    "rule_name",
    "show_pair",
]


class Diagnosis(NamedTuple):
    """A mistake that explains the learner's merges (some or all of them)."""

    mistake: Mistake
    detail: str  # the mistake as it applies here, in words
    explains: int  # how many of the learner's merges, from the first, its replay gives
    explains_all: bool  # its replay gives exactly the learner's merges, no more, no fewer
    setup: Setup  # the replayed trainer's settings
    summary: str
    of: int = 0  # how many merges the learner made
    reference_explains: int = 0  # how many of them, from the first, the reference gives

    @property
    def is_the_cause(self) -> bool:
        """Only a mistake that explains ALL the learner's merges is called the cause."""
        return self.explains_all


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
    found = []  # (not all, -explains, order in the zoo, mistake, detail, setup, explains, all)
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
        draft = Diagnosis(mistake, detail, explains, explains_all, setup, "", len(mine), common)
        out.append(Diagnosis(mistake, detail, explains, explains_all, setup,
                             diagnosis_words(draft), len(mine), common))
    return out


def diagnosis_words(diagnosis: Diagnosis) -> str:
    """A diagnosis in one sentence with how much it explains: "…; it explains your first 53 of
    144 merges (the reference: the first 52)", or "…; it explains all your 144 merges"."""
    d = diagnosis
    if d.explains_all:
        how = (f"it explains all your {counted(d.of, 'merge')}" if d.of != 1
               else "it explains your 1 merge")
    else:
        how = (f"it explains your first {d.explains:,} of {counted(d.of, 'merge')} (the"
               f" reference: the first {d.reference_explains:,})")
        if d.explains == MAX_PLAIN_STEPS and uses_plain_loop(d.setup):
            how += f"; it was replayed no further than {MAX_PLAIN_STEPS:,}"
    return f"{d.mistake.title}: {d.detail}; {how}."


def diagnose(
    mine: object,
    text: str,
    *,
    pattern: str,
    vocab_size: int,
    special_tokens: Iterable[str] = (),
    tie_rule: str = "seen",
) -> list[Diagnosis]:
    """The known mistakes that explain the learner's merges: those that give all of them first,
    then those that give the longest beginning. Empty when the merges match the
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
    diagnoses: list[Diagnosis]  # the mistakes that explain the most first ([] when it matches)
    reference: Tokenizer
    summary: str
    diagnosed: bool = True  # the zoo was replayed (check_merges(with_diagnosis=True))


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
    (``with_diagnosis``) replay the bug zoo to find which mistake explains how many merges.

    ``mine``: the learner's merges (bytes pairs, a ``LearnerOutput`` or a tokenizer);
    ``pattern``: the split pattern ("" for none); ``special_tokens`` count in ``vocab_size``.

    >>> r = check_merges([(b"z", b"a")], "mzab", pattern="", vocab_size=257)
    >>> r.comparison.first_difference, r.explanation.mine.count, r.explanation.reference.count
    (1, 1, 1)
    >>> r.explanation.winners["bytes"], r.explanation.winners["last_seen"]
    ((b'z', b'a'), (b'a', b'b'))
    >>> [(d.mistake.key, d.setup.tie_rule, d.explains_all) for d in r.diagnoses]
    [('tie_rule', 'bytes', True), ('tie_rule', 'greatest_ids', True)]
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
    draft = CheckReport(comparison, explanation, diagnoses, reference, "", with_diagnosis)
    lines = [comparison.summary]
    if explanation is not None:
        lines.append(explanation.summary)
    said = check_verdict(draft)
    if said.text:
        lines.append(f"{said.heading}: {said.text}")
    return CheckReport(comparison, explanation, diagnoses, reference, " ".join(lines),
                       with_diagnosis)


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


# -- what the page (and the command line) says --------------------------------------------------


class CheckVerdict(NamedTuple):
    """What the check concludes, in words. ``kind``: "match"; "cause" (a known mistake explains
    ALL the learner's merges); "another tie rule" (the first difference is a tie that no tie rule
    this package knows breaks the learner's way); "causes" (several explain all the merges and
    nothing tells them apart); "closest" (the known mistake that explains the
    most, but not all); "unknown" (none explains more than the reference); "" (not diagnosed)."""

    kind: str
    heading: str  # "The cause", "Another tie rule", "Closest known mistake", ...
    text: str  # one paragraph ("" for a match)
    diagnosis: Diagnosis | None  # the mistake named, when one is


RULES_IN_WORDS = ", ".join(rule_name(r) for r in TIE_RULE_NAMES)


def check_verdict(report: CheckReport, spell: Callable[[bytes], str] = repr) -> CheckVerdict:
    """The conclusion of a check, saying only what it knows: a mistake is called the cause only
    when its replay gives all the learner's merges; otherwise it is the closest known mistake,
    with how many of the learner's merges it explains. When the learner's merges leave the
    reference's at a tie and no known tie rule gives them up to there, the tie rule is "another
    tie rule", with the tied pairs (written by ``spell``).

    >>> mine = [(b"a", b"b")]          # "abaaa": counted as str.count counts, ab wins
    >>> check_verdict(check_merges(mine, "abaaa", pattern="", vocab_size=257)).heading
    'The cause'
    """
    comparison = report.comparison
    if comparison.matches:
        return CheckVerdict("match", "Your merges match", "", None)
    if not report.diagnosed:
        return CheckVerdict("", "", "", None)
    best = report.diagnoses[0] if report.diagnoses else None
    causes = [d for d in report.diagnoses if d.is_the_cause]
    if len(causes) == 1:
        return CheckVerdict("cause", "The cause", diagnosis_words(best), best)
    if causes:  # each explains everything: the merges cannot tell them apart
        text = (f"{len(causes):,} known mistakes each explain all your"
                f" {counted(best.of, 'merge')}: "
                + "; ".join(f"{d.mistake.title} ({d.detail})" for d in causes)
                + ". More merges (a larger vocabulary size) or a longer text would tell them"
                  " apart.")
        return CheckVerdict("causes", "One of these known mistakes", text, None)
    step = report.explanation
    if step is not None and step.is_tie:
        picks = {rule for rule, pair in step.winners.items() if pair == step.mine.pair}
        if not any(d.mistake.key == "tie_rule" and d.setup.tie_rule in picks
                   for d in report.diagnoses):
            text = (f"At merge {step.step:,} your pair is one of {len(step.tied):,} tied pairs,"
                    f" and no tie rule this page knows ({RULES_IN_WORDS}) gives your merges up to"
                    " there: you broke ties by another tie rule.")
            if step.rule_of_mine is not None:  # else the step's own words list them
                text += " The tied pairs: " + tied_words(step, spell) + "."
            if best is not None:
                text += " Closest known mistake: " + diagnosis_words(best)
            return CheckVerdict("another tie rule", "Another tie rule", text, best)
    if best is not None:
        text = diagnosis_words(best)
        if best.explains < best.of:
            text += (f" Its replay and your merges part at merge {best.explains + 1:,}, so it is"
                     " not the whole cause.")
        else:
            text += " Its replay makes more merges than you did, so it is not the whole cause."
        if best.explains - best.reference_explains == 1:
            text += " That is one merge more than the reference explains: weak evidence."
        as_many = sum(1 for d in report.diagnoses[1:] if d.explains == best.explains)
        if as_many:
            text += (f" {as_many:,} other known {'mistake explains' if as_many == 1 else 'mistakes explain'}"
                     " as many.")
        return CheckVerdict("closest", "Closest known mistake", text, best)
    if comparison.first_difference is None:  # one list is the other's beginning
        mine, theirs = comparison.lengths
        return CheckVerdict("unknown", "No known mistake",
                            f"None of the known mistakes makes {mine:,} merges where the"
                            f" reference makes {theirs:,}: check how many merges your loop"
                            " makes and when it stops.", None)
    return CheckVerdict("unknown", "No known mistake",
                        f"None of the known mistakes explains more of your merges than the"
                        f" reference does (the first {comparison.common:,}): compare the two"
                        f" pairs at merge {comparison.first_difference:,} with your counts at"
                        " that step.", None)


def learner_words(learner: LearnerOutput, source: str = "") -> str:
    """What was read: "Read 144 merges from mine.model: minbpe .model."."""
    where = f" from {source}" if source else ""
    return f"Read {counted(len(learner.merges), 'merge')}{where}: {learner.format}."


def note_words(note: str) -> str:
    """A note of ``LearnerOutput.notes`` as a sentence.

    >>> note_words("its split pattern is the GPT-2 pattern")
    'Its split pattern is the GPT-2 pattern.'
    """
    return note[:1].upper() + note[1:] + "."


def pattern_words(learner: LearnerOutput, pattern: str) -> str | None:
    """A warning when the learner's file names another split pattern than the task's (minbpe's
    spelling of GPT-4 is GPT-4), else None.

    >>> from bpe_core import GPT2_SPLIT_PATTERN
    >>> out = read_merges("minbpe v1\\n" + GPT2_SPLIT_PATTERN + "\\n0\\n")
    >>> pattern_words(out, GPT2_SPLIT_PATTERN) is None
    True
    >>> print(pattern_words(out, ""))
    Your file's split pattern is the GPT-2 pattern; the task has none: set the task's pattern to yours, or your merges are compared with another pattern's.
    """
    if learner.pattern is None or known_pattern(learner.pattern) == known_pattern(pattern):
        return None
    mine = (f"Your file's split pattern is {pattern_name(learner.pattern)}" if learner.pattern
            else "Your file has no split pattern")
    task = f"the task's is {pattern_name(pattern)}" if pattern else "the task has none"
    return (f"{mine}; {task}: set the task's pattern to yours, or your merges are compared with"
            " another pattern's.")


def report_lines(report: CheckReport, learner: LearnerOutput | None = None, source: str = "", *,
                 spell: Callable[[bytes], str] = repr) -> list[str]:
    """The sentences of the Check your BPE page, line by line and in its order, without HTML or
    tables: what was read, the comparison, the first difference explained, and the verdict with
    what the learner sees and the idea of the fix. ``spell`` writes a token; the page passes
    ``ui.kit.tokens_html.token_text`` (whitespace as visible glyphs), the default is ``repr``.

    >>> print(report_text(check_merges([(b"a", b"b")], "abaaa", pattern="", vocab_size=257)))
    Your merges differ from the first one; at merge 1 you merged b'a' + b'b' and the reference merged b'a' + b'a'.
    At merge 1 your pair b'a' + b'b' occurs 1 time in the reference's tokens, and the reference's b'a' + b'a' 2 times, the most of any pair: your counts differ from the reference's.
    The cause: Overlapping pairs counted once: a run such as b'aaa' counted one pair b'a' + b'a' instead of two; it explains your 1 merge.
    What you see: In a run such as b'aaaa' you count the pair b'a' + b'a' twice instead of three times: texts with runs of one character (spaces, '----', 'aaaa') part first.
    The idea of the fix: Every adjacent pair counts, even two that share a token: move one position at a time and count each pair of neighbours. Only merging has to skip the token it has used.
    """
    lines = []
    if learner is not None:
        lines.append(learner_words(learner, source))
        lines += [note_words(note) for note in learner.notes]
        other_pattern = pattern_words(learner, report.reference.pattern)
        if other_pattern is not None:
            lines.append(other_pattern)
    lines.append(comparison_words(report.comparison, spell))
    if report.explanation is not None:
        lines.append(step_words(report.explanation, spell))
    said = check_verdict(report, spell)
    if said.text:
        lines.append(f"{said.heading}: {said.text}")
    if said.diagnosis is not None:
        lines.append(f"What you see: {said.diagnosis.mistake.symptom}")
        lines.append(f"The idea of the fix: {said.diagnosis.mistake.fix}")
    return lines


def report_text(report: CheckReport, learner: LearnerOutput | None = None, source: str = "", *,
                spell: Callable[[bytes], str] = repr) -> str:
    """``report_lines`` joined by newlines: the page's summary as plain text (for a terminal)."""
    return "\n".join(report_lines(report, learner, source, spell=spell))
