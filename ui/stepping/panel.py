"""The stepping view's Streamlit side: the component registered once per server, and the data it
draws from, kept in the session's one cache (``ui.kit.state.derived``)."""

from __future__ import annotations

from typing import Any

import streamlit as st

import bpe_core
from ui.kit.state import derived, step_counts, step_through
from ui.stepping.component import register, steps_payload
from ui.stepping.merges import window


@st.cache_resource
def steps_component() -> Any:
    """The in-browser stepping view (ui/stepping/component.py), registered once per server."""
    return register()


def stepping_data(tok: bpe_core.Tokenizer, text: str) -> dict:
    """What the in-browser stepping view draws from (``ui.stepping.component.steps_payload``): the
    window of the text the page shows, and the whole text's token counts."""

    def make():
        view, _, _ = window(step_through(tok, text))
        return steps_payload(view, *step_counts(tok, text))

    return derived("stepping data", tok, text, make)
