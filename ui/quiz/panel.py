"""The "predict the next merge" quiz, as a component that a page draws where it calls ``quiz()``.

The lesson page shows it as a mode; the step-through page as a toggle that starts at its slider's
step. Questions, answers and scoring are pure functions in ui/quiz/questions.py; the score lives in the
session ("quiz_score": right, asked).
"""

from __future__ import annotations

import streamlit as st

from ui.kit.escape import code_span
from ui.kit.state import active_tokenizer, step_through, trained_text
from ui.kit.tables import table_html
from ui.kit.tokens_html import tokens_html
from ui.lesson import tutorial as le
from ui.quiz import questions as qz

ss = st.session_state


def _draw(items, large: bool, caption: str | None = None) -> None:
    body, _ = tokens_html(items, large=large, whitespace=True)
    st.html(body)
    if caption:
        st.caption(caption)


def text_after(tok, training: str, k: int, large: bool):
    """The question's text: the start of the training text after ``k`` merges (its step-through,
    returned for ``text_after_merge``). The lesson's quiz and the class quiz both show it."""
    head, _ = le.lesson_text(training)
    steps = step_through(tok, head)
    spans = steps.tokens_at(k)
    shown = le.first_tokens([t.id for t in spans], tok.vocab, le.QUIZ_BYTES)
    st.markdown(f"**The training text after {k} merge{'' if k == 1 else 's'}**"
                + (" (outlined: made by the last one)" if k else ""))
    _draw(spans[:shown], large, "The start of the training text; the counts are for all of it.")
    return steps


def text_after_merge(steps, tok, k: int, large: bool) -> None:
    """The answer's text: the same start after merge ``k + 1``, its new tokens outlined."""
    after = steps.tokens_at(k + 1)
    shown = le.first_tokens([t.id for t in after], tok.vocab, le.QUIZ_BYTES)
    st.markdown(f"**After merge {k + 1}** (outlined: the new tokens)")
    _draw(after[:shown], large)


def _quiz_reveal(question: qz.Question) -> None:
    labels = {o.label: o.pair for o in question.options}
    guess = labels.get(ss.get("quiz_guess"))
    if guess is None:
        ss["quiz_problem"] = "Pick a pair first, then reveal."
        return
    verdict = qz.judge(question, guess)
    ss["quiz_score"] = qz.record(ss.get("quiz_score", qz.Score()), verdict.correct)
    ss["quiz_verdict"] = verdict
    ss["quiz_revealed"] = True


def _quiz_goto(k: int) -> None:
    ss["quiz_k"] = k
    ss["quiz_revealed"] = False
    ss["quiz_verdict"] = None
    ss["quiz_guess"] = None


def _quiz_restart() -> None:
    ss["quiz_score"] = qz.Score()
    _quiz_goto(0)


def quiz(*, large: bool = False, start: int | None = None) -> None:
    """The quiz, drawn where it is called; ``start`` moves it to that merge (e.g. the slider's)."""
    st.header("Predict the next merge")
    st.markdown(
        "The sidebar's tokenizer learned its merges one at a time. Look at the text as it is "
        "after the merges so far, and guess which pair training merged next: the most frequent "
        "pair of neighbouring tokens, and on a tie the one that occurs first."
    )
    tok = active_tokenizer()
    training = trained_text()
    if tok is None or training is None or not qz.has_candidates(tok):
        st.info("The quiz needs a tokenizer trained here: choose a “Train: …” tokenizer in the "
                "sidebar and press **Train**.")
        return
    if ss.get("_quiz_tok") is not tok:  # a new tokenizer: start from its first merge
        ss["_quiz_tok"] = tok
        _quiz_goto(0)
    if start is not None and ss.get("_quiz_start") != start:  # follow the caller's step
        ss["_quiz_start"] = start
        _quiz_goto(start)
    ss.setdefault("quiz_score", qz.Score())
    n = len(tok.history)
    k = min(ss.get("quiz_k", 0), n - 1)
    question = qz.make_question(tok, k)
    revealed = bool(ss.get("quiz_revealed"))
    cols = st.columns(3)
    cols[0].metric("Question: merge", f"{k + 1:,} of {n:,}")
    cols[1].metric("Score", qz.score_label(ss["quiz_score"]))
    right, asked = ss["quiz_score"]
    cols[2].metric("Right", f"{100 * right // asked}%" if asked else "–")

    text_col, ask_col = st.columns([3, 2])
    with text_col:
        steps = text_after(tok, training, k, large)
    with ask_col:
        labels = [o.label for o in question.options]
        if ss.get("quiz_guess") not in labels:
            ss["quiz_guess"] = None
        st.radio(f"Which pair does merge {k + 1} join?", labels, index=None, key="quiz_guess",
                 disabled=revealed, format_func=code_span)
        show_counts = st.toggle("Show the counts", key="quiz_show_counts",
                                persist_state="session",
                                help="Easier: with the counts shown, only ties need thought.")
        if show_counts and not revealed:
            st.html(table_html(qz.options_frame(question, reveal=False), large=large))
        if ss.get("quiz_problem"):
            st.warning(ss.pop("quiz_problem"))
        b = st.columns(3)
        b[0].button("Reveal", key="quiz_reveal", type="primary", on_click=_quiz_reveal,
                    args=(question,), disabled=revealed, width="stretch")
        b[1].button("Next ▶", key="quiz_next", on_click=_quiz_goto, args=(k + 1,),
                    disabled=k + 1 >= n, width="stretch")
        b[2].button("Restart", key="quiz_restart", on_click=_quiz_restart, width="stretch")
    verdict = ss.get("quiz_verdict")
    if revealed and verdict is not None:
        with ask_col:
            (st.success if verdict.correct else st.warning)(verdict.message)
            st.html(table_html(qz.options_frame(question, reveal=True), large=large))
        text_after_merge(steps, tok, k, large)
        if k + 1 >= n:
            st.info(f"That was the last merge. Final score: {qz.score_label(ss['quiz_score'])}.")
