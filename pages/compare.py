"""Placeholder: replaced by the compare page."""

import streamlit as st

from ui.state import sidebar

sidebar()
st.title("compare")
st.info("Coming soon.")
