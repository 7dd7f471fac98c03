"""Placeholder: replaced by the steps page."""

import streamlit as st

from ui.state import sidebar

sidebar()

st.title("steps")
