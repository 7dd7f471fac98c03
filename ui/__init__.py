"""The app's layer between the pages and bpe_core, one module per thing it holds.

Streamlit itself is used only by ``state`` (the sidebar, the session's state and its one cache of
what a session derives from a tokenizer and a text: ``derived``) and ``quiz_view`` (the quiz a
page draws); ``session_keys`` lists every session key. Every other module builds plain data,
escaped HTML or Altair charts from a tokenizer and a text, and is tested without Streamlit. A
token is spelled as text by ``tokens_html.token_text`` alone.
"""
