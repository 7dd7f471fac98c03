"""The "predict the next merge" quiz: questions from training's candidates, judging, scoring."""

from __future__ import annotations

import doctest

import pytest
from support import CORPORA

import ui.quiz.questions as qz
from bpe_core import BasicTokenizer, RegexTokenizer
from ui.quiz.questions import Score, judge, make_question, options_frame, record, score_label

TINY = "aaabdaaabac"


@pytest.fixture(scope="module")
def tiny():
    """Basic on "aaabdaaabac" to 259: merges (97, 97), (256, 97), (257, 98), worked out by hand."""
    tok = BasicTokenizer()
    tok.train(TINY, 259, candidates=4)
    return tok


@pytest.fixture(scope="module")
def prose():
    tok = RegexTokenizer()
    tok.train(CORPORA["prose"][:5000], 256 + 40, candidates=6)
    return tok


def test_doctests():
    assert doctest.testmod(qz).failed == 0


def test_first_question_has_a_clear_winner(tiny):
    q = make_question(tiny, 0)
    assert q.k == 0
    assert q.answer == (97, 97) and q.count == 4
    assert not q.tie_broken and q.tied == ((97, 97),)
    v = judge(q, (97, 97))
    assert v.correct and not v.tie_broken
    assert v.message.startswith("**Right!** Merge 1 joined `'a' + 'a'  (97, 97)`")
    assert "tie" not in v.message


def test_second_question_is_a_tie_decided_by_first_occurrence(tiny):
    # after "aa" -> 256 the text is [256, 97, 98, 100, 256, 97, 98, 97, 99]: (256, 97) and
    # (97, 98) both occur twice; (256, 97) occurs first (position 0 against 1), so it wins
    q = make_question(tiny, 1)
    assert q.answer == (256, 97) and q.count == 2
    assert q.tied == ((256, 97), (97, 98))
    assert q.tie_broken
    assert {o.pair for o in q.options} == {c.pair for c in tiny.history[1].candidates}
    assert len(q.options) == 4
    first = {o.pair: o.first for o in q.options}
    assert first[(256, 97)] < first[(97, 98)]
    counts = {o.pair: o.count for o in q.options}
    assert counts[(256, 97)] == counts[(97, 98)] == 2

    right = judge(q, (256, 97))
    assert right.correct and right.tie_broken
    assert "**tie**" in right.message and "occurs **first**" in right.message

    wrong = judge(q, (97, 98))
    assert not wrong.correct and wrong.answer == (256, 97) and wrong.count == 2
    assert "lost only on the tie rule" in wrong.message

    other = next(o.pair for o in q.options if o.pair not in q.tied)
    assert "Your pair occurred 1 times." not in judge(q, other).message  # a tie says the rule
    assert "tie rule" not in judge(q, other).message


def test_options_are_shuffled_the_same_way_every_time(prose):
    positions = []
    for k in range(20):
        q1, q2 = make_question(prose, k), make_question(prose, k)
        assert q1.options == q2.options
        assert [o.pair for o in q1.options] != [] and q1.answer == prose.history[k].pair
        positions.append([o.pair for o in q1.options].index(q1.answer))
    assert len(set(positions)) >= 3  # the answer is not always in the same place


def test_labels_are_unique_and_name_the_ids(prose):
    for k in range(20):
        labels = [o.label for o in make_question(prose, k).options]
        assert len(set(labels)) == len(labels)
        for o in make_question(prose, k).options:
            assert o.label.endswith(f"({o.pair[0]}, {o.pair[1]})")


def test_bad_questions_are_value_errors(tiny):
    with pytest.raises(ValueError, match="trained in this app"):
        make_question(BasicTokenizer(), 0)
    for k in (-1, 3, 1.5, True):
        with pytest.raises(ValueError, match="from 0 to 2"):
            make_question(tiny, k)
    plain = BasicTokenizer()
    plain.train(TINY, 259)  # candidates not kept
    assert not qz.has_candidates(plain) and qz.has_candidates(tiny)
    with pytest.raises(ValueError, match="candidate pairs"):
        make_question(plain, 0)
    q = make_question(tiny, 0)
    with pytest.raises(ValueError, match="Pick a pair"):
        judge(q, None)
    with pytest.raises(ValueError, match="not one of"):
        judge(q, (1, 2))


def test_score_is_kept_right_over_asked():
    score = Score()
    assert score_label(score) == "no answers yet"
    for correct in (True, False, True, True):
        score = record(score, correct)
    assert score == Score(3, 4)
    assert score_label(score) == "3 of 4 right"
    assert record((0, 0), False) == Score(0, 1)


def test_options_frame_hides_first_occurrence_until_the_reveal(tiny):
    q = make_question(tiny, 1)
    before = options_frame(q, reveal=False)
    assert list(before.columns) == ["pair", "count"]
    after = options_frame(q, reveal=True)
    assert list(after.columns) == ["pair", "count", "first occurs", "merged"]
    marks = dict(zip(after["pair"], after["merged"]))
    assert marks[next(o.label for o in q.options if o.pair == (256, 97))] == "✔ merged"
    assert marks[next(o.label for o in q.options if o.pair == (97, 98))] == "tie, but later"


def test_token_text_in_the_verdict_stays_inside_a_code_span():
    tok = BasicTokenizer()
    tok.train("``**``**``**", 258, candidates=3)
    q = make_question(tok, 0)
    message = judge(q, q.answer).message
    # the label (with its backticks) sits in a longer fence, so markdown cannot read it
    assert "`` '`' + '`'  (96, 96) ``" in message
    q2 = make_question(tok, 1)  # the pair now holds the token "``": a run of two backticks
    assert q2.answer == (256, 42)
    assert "``` '``' + '*'  (256, 42) ```" in judge(q2, q2.answer).message
