"""The Export & import page's account of a loaded file, of any family: what it is and holds, its
tokens on a sample text with its own tool's ids, and (for another family than the sidebar's
byte-level tokenizers) the downloads its family can be written as."""

from __future__ import annotations

from functools import partial

import streamlit as st

from ui.exchange.families import export_problem, family_exports, loaded_rows
from ui.exchange.files import Imported, file_stem
from ui.kit.escape import md_escape
from ui.kit.families import family_of, family_title
from ui.kit.family_tokens import family_pieces
from ui.kit.state import derived
from ui.kit.tokens_html import tokens_html

SAMPLE_TEXT = "Hello  world: the naïve café's tokenizer 🦜 sees 2026 bytes."
MAX_SAMPLE_CHARS = 500


def loaded_table(imported: Imported) -> None:
    """The file, its format and family, and what it holds, as a table."""
    rows = loaded_rows(imported)
    st.markdown(f"**{md_escape(imported.name)}**: {md_escape(family_title(imported.tok))} BPE.")
    st.dataframe({"What": [k for k, _ in rows], "Value": [v for _, v in rows]},
                 hide_index=True, key="import_summary")


def sample_tokens(imported: Imported) -> None:
    """The tokens of a sample text (the learner may change it), with the ids of the file's own
    tool (subword-nmt's pieces for word BPE, which numbers nothing)."""
    tok = imported.tok
    st.markdown("**Its tokens on a sample text**")
    text = st.text_input("Sample text", SAMPLE_TEXT, key="import_sample",
                         max_chars=MAX_SAMPLE_CHARS)
    try:
        items = derived("import sample tokens", tok, text,
                        lambda: family_pieces(tok, text), by_rule=False)
    except ValueError as e:  # a file's own split pattern past the budget, said by its limit
        st.error(str(e)[:600])
        return
    body, _ = tokens_html(items, whitespace=True, name=f"Tokens of {imported.name}")
    st.html(body)
    if family_of(tok) == "word" and all(t.id is None for t in items):
        st.caption("subword-nmt's pieces, as `apply_bpe` writes them (word BPE has no ids):")
        st.code(derived("import sample segmented", tok, text, lambda: tok.apply(text),
                        by_rule=False) or "(none)", language=None, wrap_lines=True)
    else:
        st.caption(f"{len(items):,} tokens; their ids:")
        st.code(", ".join(str(t.id) for t in items) or "(none)", language=None,
                wrap_lines=True)


def family_downloads(imported: Imported) -> None:
    """The downloads of a file of another family than the five formats of the Export part."""
    tok = imported.tok
    if not family_exports(tok):
        st.caption("bpe_core reads this file and writes none of its kind: no download.")
        return
    st.markdown("**Download it as**")
    family_download_buttons(tok, file_stem(f"imported from {imported.name}"))


# the sidebar's SentencePiece or word-BPE tokenizer's downloads, which the page may show beside
# those of a loaded file of the same family: export key -> the sidebar's
SIDEBAR_KEYS = {"export_spm_model": "sidebar_export_spm_model",
                "export_spm_hf": "sidebar_export_spm_hf",
                "export_word_codes": "sidebar_export_word_codes"}


def family_download_buttons(tok: object, stem: str, keys: dict[str, str] | None = None) -> None:
    """A button for each file ``tok``'s family can be written as (``family_exports``), or why
    it cannot be: for a file loaded here, and (with ``SIDEBAR_KEYS`` as ``keys``) for the
    sidebar's SentencePiece or word-BPE tokenizer."""
    exports = family_exports(tok)
    problems = derived("family export problems", tok, None,
                       lambda: {e.key: export_problem(e, tok) for e in exports})
    for export in exports:
        what, button = st.columns([3, 2], vertical_alignment="center")
        what.markdown(f"**{export.title}**: {export.what}")
        if problems[export.key]:
            button.warning(md_escape(problems[export.key][:600]), icon="🚫")
        else:
            button.download_button(f"Download {export.title}", partial(export.make, tok),
                                   file_name=stem + export.suffix, mime=export.mime,
                                   key=(keys or {}).get(export.key, export.key), on_click="ignore", icon="⬇️")
