"""Placeholder: replaced by the lesson page."""

import streamlit as st

from ui.state import sidebar

sidebar()
st.title("Lesson")
st.info("Coming soon.")
