"""The shared kit every page uses: the list of pages and the sidebar's navigation
(``navigation``), the session's state and its one cache (``state``), every session
key (``session_keys``), the sidebar's choices (``choices``), the sample texts (``samples``), tokens
as HTML (``tokens_html``), charts, tables, Markdown escaping, the palette check, and the server's
warm-up (``warm``). It imports no other folder of ``ui/``: the sidebar that draws the session's
controls is ``ui/sidebar``, above the features it shows (tests/test_layout.py).
"""
