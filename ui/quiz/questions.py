"""Predict the next merge: a quiz over a trained tokenizer's history (no Streamlit here).

At step k the text has had its first k merges; the class sees the best candidate pairs for
merge k + 1, in a shuffled order, guesses, and then sees the answer, its count and whether a tie
was broken by first occurrence. It needs a tokenizer trained with ``candidates=n`` (the
sidebar trains with 6), whose ``history[k].candidates`` are the best pairs of that step,
the chosen one first.

    >>> from bpe_core import BasicTokenizer
    >>> tok = BasicTokenizer()
    >>> tok.train("aaabdaaabac", 259, candidates=4)
    >>> q = make_question(tok, 1)
    >>> q.answer, q.count, q.tied
    ((256, 97), 2, ((256, 97), (97, 98)))
    >>> judge(q, (97, 98)).correct
    False
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any, NamedTuple

import pandas as pd

from ui.kit.escape import code_span
from ui.kit.tokens_html import pair_label


class Option(NamedTuple):
    pair: tuple[int, int]
    label: str  # "'a' + 'b'  (97, 98)": plain text (wrap it in code_span for markdown)
    count: int
    first: int  # 1 = the candidate that occurs first in the text, 2 = next, …


class Question(NamedTuple):
    k: int  # merges already made; the question is about merge k + 1
    options: tuple[Option, ...]  # the candidates, shuffled (deterministically, by k)
    answer: tuple[int, int]
    count: int  # how often the answer occurred when it was chosen
    tied: tuple[tuple[int, int], ...]  # candidates with the answer's count, earliest first
    all_tied: bool  # every kept candidate is tied: more pairs may share the count

    @property
    def tie_broken(self) -> bool:
        """The answer won on first occurrence, not on count."""
        return len(self.tied) > 1


class Verdict(NamedTuple):
    correct: bool
    answer: tuple[int, int]
    count: int
    tie_broken: bool
    message: str  # markdown; token text only inside code spans


class Score(NamedTuple):
    right: int = 0
    asked: int = 0


def has_candidates(tok: Any) -> bool:
    """True when ``tok`` was trained here and kept the candidate pairs of its steps."""
    history = getattr(tok, "history", None)
    return bool(history) and bool(history[0].candidates)


def make_question(tok: Any, k: int) -> Question:
    """The question for merge ``k + 1`` (``k`` merges made so far); ValueError says why not."""
    history = getattr(tok, "history", None) or []
    if not history:
        raise ValueError(
            "The quiz needs a tokenizer trained in this app: pick a “Train: …” tokenizer in the "
            "sidebar and press **Train**."
        )
    if isinstance(k, bool) or not isinstance(k, int) or not 0 <= k < len(history):
        raise ValueError(f"the step must be a whole number from 0 to {len(history) - 1}, not {k!r}")
    candidates = history[k].candidates
    if not candidates:
        raise ValueError(
            "This tokenizer's training did not keep the candidate pairs: press **Train** again."
        )
    chosen = candidates[0]
    order = {c.pair: r for r, c in enumerate(sorted(candidates, key=lambda c: c.first), 1)}
    options = [
        Option(c.pair, f"{pair_label(tok.vocab, c.pair)}  ({c.pair[0]}, {c.pair[1]})", c.count,
               order[c.pair])
        for c in candidates
    ]
    random.Random(f"bpe-lab quiz {k}").shuffle(options)  # str seed: the same order every run
    tied = tuple(c.pair for c in sorted(candidates, key=lambda c: c.first)
                 if c.count == chosen.count)
    return Question(
        k, tuple(options), chosen.pair, chosen.count, tied,
        len(candidates) > 1 and len(tied) == len(candidates),
    )


def judge(question: Question, guess: tuple[int, int] | None) -> Verdict:
    """Was the guess right, and the explanation to show after the reveal."""
    if guess is None:
        raise ValueError("Pick a pair first, then reveal.")
    labels = {o.pair: o.label for o in question.options}
    if tuple(guess) not in labels:
        raise ValueError(f"{guess!r} is not one of this question's pairs")
    correct = tuple(guess) == question.answer
    answer = labels[question.answer]
    lines = [
        ("**Right!** " if correct else "**Not this time.** ")
        + f"Merge {question.k + 1} joined {code_span(answer)}: it occurred "
        f"**{question.count:,}** times."
    ]
    if question.tie_broken:
        others = len(question.tied) - 1
        more = " (maybe more: only the best pairs were kept)" if question.all_tied else ""
        lines.append(
            f"It was a **tie**: {others} other pair{'s' if others > 1 else ''} occurred "
            f"{question.count:,} times too{more}. Ties go to the pair that occurs **first** in "
            "the text, and this one comes first."
        )
        if not correct and tuple(guess) in question.tied:
            lines.append("Your pair had the same count: it lost only on the tie rule.")
    elif not correct:
        mine = next(o for o in question.options if o.pair == tuple(guess))
        lines.append(f"Your pair occurred {mine.count:,} times.")
    return Verdict(correct, question.answer, question.count, question.tie_broken,
                   "\n\n".join(lines))


def options_frame(question: Question, *, reveal: bool) -> pd.DataFrame:
    """The candidates in the question's order with their counts; after the reveal also where
    each first occurs (1 = earliest) and which one training merged."""
    rows = []
    for o in question.options:
        row = {"pair": o.label, "count": o.count}
        if reveal:
            row["first occurs"] = o.first
            row["merged"] = "✔ merged" if o.pair == question.answer else (
                "tie, but later" if o.pair in question.tied else "")
        rows.append(row)
    columns = ["pair", "count"] + (["first occurs", "merged"] if reveal else [])
    return pd.DataFrame(rows, columns=columns)


def record(score: Score | Sequence[int], correct: bool) -> Score:
    """The score after one more answer.

    >>> record(Score(2, 3), True)
    Score(right=3, asked=4)
    """
    right, asked = score
    return Score(right + bool(correct), asked + 1)


def score_label(score: Score | Sequence[int]) -> str:
    """The score in words.

    >>> score_label(Score(3, 4))
    '3 of 4 right'
    """
    right, asked = score
    return f"{right} of {asked} right" if asked else "no answers yet"


def tally(question: Question, answers: Sequence[Sequence[int]]) -> pd.DataFrame:
    """A class's answers to one question: one row per option in the question's order, with how
    many chose it and whether it is the merge training made. Answers that are not an option of
    this question (a stale client) are not counted.

    >>> from bpe_core import BasicTokenizer
    >>> tok = BasicTokenizer()
    >>> tok.train("aaabdaaabac", 259, candidates=4)
    >>> frame = tally(make_question(tok, 1), [(256, 97), (97, 98), (256, 97), (1, 2)])
    >>> frame.sort_values("answers", ascending=False)[["answers", "right"]].values.tolist()
    [[2, True], [1, False], [0, False], [0, False]]
    """
    counts = {o.pair: 0 for o in question.options}
    for pair in answers:
        pair = tuple(pair)
        if pair in counts:
            counts[pair] += 1
    return pd.DataFrame(
        [{"pair": o.label, "answers": counts[o.pair], "right": o.pair == question.answer}
         for o in question.options],
        columns=["pair", "answers", "right"],
    )
