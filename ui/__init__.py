"""The app's layer between the pages and the libraries (``bpe_core``, ``bpe_lab``), one folder per
feature and a shared kit (docs/DESIGN.md).

A page imports its feature's folder and ``ui.kit``. Inside a folder, ``route`` is an HTTP route
served beside the app, ``component`` a custom component, ``panel`` Streamlit code that draws part
of a page, and any other module page-free helpers (plain data, escaped HTML, frames, charts) that
are tested without Streamlit. A token is spelled as text by ``ui.kit.tokens_html.token_text``
alone.
"""
