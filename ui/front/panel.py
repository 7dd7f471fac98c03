"""The front page's box, registered once per server (``ui/front/component.py``)."""

from __future__ import annotations

from typing import Any

import streamlit as st

from ui.front.component import register_box


@st.cache_resource
def type_box() -> Any:
    """The front page's text box (ui/front/component.py), registered once per server."""
    return register_box()
