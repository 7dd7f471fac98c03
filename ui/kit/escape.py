"""Escaping text for Streamlit's Markdown (st.caption, st.error, st.write read Markdown)."""

from __future__ import annotations

import re


def md_escape(text: str) -> str:
    """Text that Markdown shows as written: every ASCII punctuation mark is backslash-escaped,
    so no emphasis, link, image or HTML can form.

    >>> print(md_escape("__init__.model *b* <i>"))
    \\_\\_init\\_\\_\\.model \\*b\\* \\<i\\>
    """
    return re.sub(r"([!-/:-@\[-`{-~])", r"\\\1", text)
