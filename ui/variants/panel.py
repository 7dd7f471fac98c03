"""Streamlit code for the Superwords and fair merges page: training with a progress bar and a
Stop button, as the sidebar trains (ui/kit/state.py)."""

from __future__ import annotations

from collections.abc import Callable

import streamlit as st


def run_training(key: tuple, make: Callable[[Callable], object]) -> object | None:
    """``make(progress)`` once per ``key`` (kept in the session), with a progress bar and a Stop
    button, as the sidebar trains; None when stopped (press Train to try again)."""
    ss = st.session_state
    kept = ss.get("beyond_result")
    if kept is not None and kept[0] == key:
        return kept[1]
    stopped = ss.get("beyond_stop")
    clicked = st.button("Train", key="beyond_train", type="primary")
    if stopped and not clicked:
        st.warning("Training was stopped. Press **Train** to train again.")
        return None
    st.button("Stop", key="beyond_stop", help="Stops training.")
    bar = st.progress(0.0, text="Training…")
    last = [-1]

    def progress(done: int, total: int, record) -> None:
        pct = done * 50 // max(total, 1)
        if pct != last[0]:
            last[0] = pct
            bar.progress(min(done / max(total, 1), 1.0), text=f"Merge {done:,} of {total:,}")

    try:
        made = make(progress)
    finally:
        bar.empty()
    ss["beyond_result"] = (key, made)
    return made
