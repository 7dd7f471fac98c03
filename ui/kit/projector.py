"""Projector mode: the sidebar's switch for a class in front of a projector (session key
``projector``). Everything in the main column at least ``PROJECTOR_SCALE`` times its normal size,
and each page's main view on the first screen of a 1024x768 projector.

* ``PROJECTOR_CSS`` (the sidebar adds it while the switch is on) enlarges the page's text, inputs,
  select values, tables and code; charts take their sizes from ``ui.kit.charts.chart_config``;
  the custom components scale by the ``--bpe-scale`` property it sets.
* ``explain(text)``: a page's introduction; in projector mode folded into "About this page", so
  that the view under it starts on the first screen.
"""

from __future__ import annotations

import streamlit as st

# Projector mode: larger token text and numbers, for the back row of a classroom. The custom
# components (the stepping view, the front page's box) sit in shadow roots that page CSS cannot
# reach; a CSS custom property inherits into them, and their own CSS scales by it.
# Every st.dataframe on every page is enlarged by the rule below, not by the pages: its grid
# draws text on a canvas with a font size fixed in pixels by the theme (no CSS font size or
# Streamlit option reaches it per session), so its box is zoomed, at a width that keeps it in
# its column. The grid reads the zoom when it maps clicks to cells, so sorting, search and row
# selection keep working. A table shown full screen (its toolbar's "Close fullscreen" button is
# there only then) is left unzoomed: the zoom would push it past the screen. (The Lesson draws
# its few rows as large HTML tables instead: ui.kit.tables.table_html.)
# Streamlit 1.67's sizes, each times 1.5 here or more: text 1rem, captions, widget labels, inputs,
# text areas, select values and buttons 0.875rem, metric values 2.25rem, headings 2.75, 2.25 and
# 1.75rem. (tests/browser/test_projector_fold_browser.py measures them, normal against projector.)
PROJECTOR_SCALE = 1.6
CODE_FONT_REM = 0.875  # Streamlit 1.67's code font size (its theme's codeFontSize)
SMALL_REM = 0.875 * 1.5  # captions, labels, inputs, selects, buttons: 14 px -> 21 px
PROJECTOR_CSS = f"""<style>
.stApp {{ --bpe-scale: {PROJECTOR_SCALE}; }}
.stMainBlockContainer p, .stMainBlockContainer li {{ font-size: 1.5rem; }}
[data-testid="stMetricValue"], .stMainBlockContainer [data-testid="stMetricValue"] p {{
  font-size: 3.375rem; }}
.stMainBlockContainer [data-testid="stMetricLabel"] p {{ font-size: {SMALL_REM}rem; }}
.stMainBlockContainer [data-testid="stCode"] code,
.stMainBlockContainer [data-testid="stCode"] pre {{
  font-size: calc({CODE_FONT_REM}rem * var(--bpe-scale)); }}
.stMainBlockContainer .stElementContainer:has(> * > [data-testid="stDataFrame"]):not(
  :has(button[aria-label="Close fullscreen"])) {{
  zoom: var(--bpe-scale); width: calc(100% / var(--bpe-scale)); }}
.stMainBlockContainer [data-testid="stTable"] td,
.stMainBlockContainer [data-testid="stTable"] th {{ font-size: {SMALL_REM}rem; }}
.stMainBlockContainer .stButton button p, .stMainBlockContainer .stPageLink p,
.stMainBlockContainer .stDownloadButton button p {{ font-size: {SMALL_REM}rem; }}
.stMainBlockContainer [data-testid="stCaptionContainer"],
.stMainBlockContainer [data-testid="stCaptionContainer"] p,
.stMainBlockContainer [data-testid="stWidgetLabel"] p {{ font-size: {SMALL_REM}rem; }}
.stMainBlockContainer [data-testid="stTextArea"] textarea,
.stMainBlockContainer [data-testid="stTextInput"] input,
.stMainBlockContainer [data-testid="stNumberInput"] input,
.stMainBlockContainer [data-testid="stSelectbox"] input,
.stMainBlockContainer [data-baseweb="select"] div {{ font-size: {SMALL_REM}rem; }}
.stMainBlockContainer .lesson-table th, .stMainBlockContainer .lesson-table td {{
  overflow-wrap: anywhere; }}
.stMainBlockContainer h1 {{ font-size: 4.125rem; }}
.stMainBlockContainer h2 {{ font-size: 3.375rem; }}
.stMainBlockContainer h3 {{ font-size: 2.625rem; }}
.stMainBlockContainer [data-testid="stExpander"] summary p {{ font-size: 1.5rem; }}
</style>"""


def projector_mode() -> bool:
    """True when the sidebar's projector toggle is on: pages draw tokens large."""
    return bool(st.session_state.get("projector"))


def explain(text: str, label: str = "About this page") -> None:
    """A page's introduction (Markdown, the page's own words): written out; in projector mode
    folded into an expander, so that the page's view starts on a projector's first screen."""
    if projector_mode():
        with st.expander(label):
            st.markdown(text)
    else:
        st.markdown(text)
