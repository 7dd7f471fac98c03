"""Placeholder: replaced by the exchange page."""

import streamlit as st

from ui.state import sidebar

sidebar()
st.title("exchange")
st.info("Coming soon.")
