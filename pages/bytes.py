"""Placeholder: replaced by the bytes page."""

import streamlit as st

from ui.state import sidebar

sidebar()
st.title("bytes")
st.info("Coming soon.")
