"""Streamlit code for the Superwords and fair merges page: training with a progress bar and a
Stop button, as the sidebar trains (ui/sidebar/panel.py), the bar saying what it counts."""

from __future__ import annotations

from collections.abc import Callable

import streamlit as st

from bpe_core import RegexTokenizer
from bpe_core.boundless import train_boundless
from bpe_core.limits import BudgetExceeded
from bpe_core.superbpe import train_superbpe
from ui.kit.escape import md_escape


class PageProgress:
    """The page's progress bar as a trainer's ``progress(done, total, record)``: "Classical BPE:
    merge 12 of 256", "BoundlessBPE, phase two: merge 30 of 256". ``begin(words)`` names what
    it counts next (the trainers' ``on_stage(words, total)`` names each stage or phase)."""

    def __init__(self, bar) -> None:
        self.bar = bar
        self.words = ""
        self.last = -1

    def begin(self, words: str) -> None:
        self.words, self.last = words, -1

    def __call__(self, done: int, total: int, record) -> None:
        pct = done * 50 // max(total, 1)
        if pct != self.last:
            self.last = pct
            self.bar.progress(min(done / max(total, 1), 1.0), text=progress_words(
                self.words, done, total))


def progress_words(words: str, done: int, total: int) -> str:
    """What the bar says.

    >>> progress_words("BoundlessBPE, phase two", 30, 256), progress_words("", 3, 9)
    ('BoundlessBPE, phase two: merge 30 of 256', 'Merge 3 of 9')
    """
    if not words:
        return f"Merge {done:,} of {total:,}"
    return f"{words[0].upper()}{words[1:]}: merge {done:,} of {total:,}"


def run_training(key: tuple, make: Callable[[PageProgress], object]) -> object | None:
    """``make(progress)`` once per ``key`` (kept in the session), with a progress bar and a Stop
    button, as the sidebar trains; None when stopped (press Train to try again). An error
    leaves the bar where training got to."""
    ss = st.session_state
    kept = ss.get("beyond_result")
    if kept is not None and kept[0] == key:
        return kept[1]
    stopped = ss.get("beyond_stop")
    buttons = st.container(horizontal=True)  # one row: the view under them stays up
    clicked = buttons.button("Train", key="beyond_train", type="primary")
    if stopped and not clicked:
        st.warning("Training was stopped. Press **Train** to train again.")
        return None
    buttons.button("Stop", key="beyond_stop", help="Stops training.")
    bar = st.progress(0.0, text="Training…")
    try:
        made = make(PageProgress(bar))
    except BudgetExceeded as e:  # the sidebar's pattern backtracks on these texts: say so
        bar.empty()
        st.error(md_escape(str(e)))
        return None
    except Exception:
        raise  # the bar stays, saying how far training got, above the error
    except BaseException:  # Stop (a rerun) or st.stop: the bar goes
        bar.empty()
        raise
    bar.empty()
    ss["beyond_result"] = (key, made)
    return made


def train_beside_classical(progress: PageProgress, text: str, vocab_size: int, pattern: str,
                           specials: list[str], transition: int | None, label: str,
                           classical: RegexTokenizer | None = None) -> tuple:
    """(classical BPE, SuperBPE at ``transition`` or BoundlessBPE when it is None) on ``text``;
    ``classical`` when the sidebar's is already the same. ``label``: the variant's name."""
    if classical is None:
        progress.begin("classical BPE")
        classical = RegexTokenizer(pattern)
        classical.train(text, vocab_size, progress=progress, special_tokens=specials)

    def on_stage(words: str, total: int) -> None:
        progress.begin(f"{label}, {words}")

    if transition is None:
        return classical, train_boundless(text, vocab_size, pattern=pattern,
                                          special_tokens=specials, progress=progress,
                                          on_stage=on_stage)
    return classical, train_superbpe(text, vocab_size, transition, pattern=pattern,
                                     special_tokens=specials, progress=progress,
                                     on_stage=on_stage)
