"""Overview: what training made (summary, merges, ids) for the text in the sidebar."""

import streamlit as st

from ui.state import current_text, require_tokenizer, sidebar, step_through, tokenizer_label
from ui.tables import merges_frame

MAX_IDS_SHOWN = 5000

sidebar()

st.title("bpe-lab")
st.write(
    "Byte-level BPE, step by step: paste text in the sidebar, train, and see which merges the "
    "tokenizer learned and what ids it gives your text."
)

tok = require_tokenizer()
text = current_text()

try:  # the session keeps the encoding (shared with the Tokens page): a rerun does not redo it
    ids = step_through(tok, text).final  # == tok.encode(text, allowed_special="all")
except ValueError as e:  # a custom split pattern can time out on a text it was not trained on
    st.error(str(e))
    st.stop()
n_bytes = len(text.encode("utf-8", "replace"))
cols = st.columns(4)
cols[0].metric("Tokenizer", tokenizer_label())
cols[1].metric("Bytes", f"{n_bytes:,}")
cols[2].metric("Tokens", f"{len(ids):,}")
cols[3].metric("Bytes per token", f"{n_bytes / len(ids):.2f}" if ids else "–")
if getattr(tok, "stop_reason", None):
    st.info(f"Training stopped early: {tok.stop_reason}. The text has no more pairs to merge.")

merges_col, ids_col = st.columns(2)
with merges_col:
    st.subheader(f"Merges ({tok.num_merges:,})")
    st.dataframe(merges_frame(tok), hide_index=True, height=420, key="merges_table")
with ids_col:
    st.subheader("Token ids")
    shown = ids[:MAX_IDS_SHOWN]
    st.code(", ".join(map(str, shown)), language=None, wrap_lines=True, height=420)
    if len(ids) > len(shown):
        st.caption(f"Showing the first {len(shown):,} of {len(ids):,} ids.")
