"""Helpers for the bpe-lab Streamlit pages: data building that does not need Streamlit."""
