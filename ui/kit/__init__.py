"""The shared kit every page uses: the list of pages and the sidebar's navigation
(``navigation``), the session's state and its one cache (``state``), every session
key (``session_keys``), the sidebar's choices (``choices``), the sample texts (``samples``), tokens
as HTML (``tokens_html``), charts, tables, Markdown escaping, the palette check, and the server's
warm-up (``warm``). It imports no feature of ``ui/`` except the classroom's sidebar hook
(``state`` draws ``ui.classroom.panel``'s part of the sidebar).
"""
