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


def code_span(text: str) -> str:
    """Text as a markdown code span, so that nothing in it is read as markdown (Streamlit reads
    markdown in st.markdown, captions, alerts and radio labels).

    >>> code_span("**hi**")
    '`**hi**`'
    >>> code_span("a`b")
    '`` a`b ``'
    """
    text = text.replace("\n", " ")
    runs = [len(r) for r in re.findall("`+", text)]
    fence = "`" * (max(runs, default=0) + 1)
    pad = " " if runs or not text.strip() else ""
    return f"{fence}{pad}{text}{pad}{fence}"
