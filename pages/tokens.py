"""Placeholder: replaced by the tokens page."""

import streamlit as st

from ui.state import sidebar

sidebar()

st.title("tokens")
