"""Placeholder: replaced by the forest page."""

import streamlit as st

from ui.state import sidebar

sidebar()
st.title("forest")
st.info("Coming soon.")
