"""Vocabulary health: which tokens of the vocabulary are half a character, can never be produced,
are not rebuilt by their own merges, are unused on the text, or are only stepping stones."""

from collections import Counter

import streamlit as st

from bpe_lab.who_pays.health import (
    HEALTH_KINDS,
    PARTIAL_UTF8,
    ROUND_TRIP_FAILS,
    UNREACHABLE,
    vocabulary_defects,
)
from ui.forest.trees import selected_row, vocab_order
from ui.kit.escape import md_escape
from ui.kit.projector import explain
from ui.kit.state import (
    current_text,
    derived,
    require_tokenizer,
    step_through,
    tokenizer_label,
    vocabulary_fact,
)
from ui.sidebar.panel import sidebar
from ui.who_pays import health as he

MAX_ROWS = 1_000  # rows of each kind's table sent to the browser
MAX_SEARCH_CHARS = 200
VOCABULARY_KINDS = (PARTIAL_UTF8, UNREACHABLE, ROUND_TRIP_FAILS)  # kinds the text cannot change

sidebar()
ss = st.session_state

st.title("Vocabulary health")
explain(
    "A vocabulary is more than its size. Some of its tokens are half a character, some can "
    "never be produced, some are only steps on the way to longer tokens, and many are never "
    "used on a given text. No model is needed to find them: only the vocabulary, its split "
    "pattern and the sidebar's text. Every token has exactly one kind below: the first that "
    "applies, in this order."
)

tok = require_tokenizer()
text = current_text()
choice = st.selectbox(
    "Check against the split pattern of", list(he.HEALTH_PATTERNS), key="health_pattern",
    help="Which split decides whether a token is reachable: the tokenizer's own, or a GPT "
         "tokenizer's (a vocabulary trained with one pattern, used with another).")
pattern = he.HEALTH_PATTERNS[choice]

try:
    with st.spinner("Checking every token of the vocabulary…"):
        # the vocabulary alone: once per vocabulary (shared by every session for a GPT preset)
        defects = vocabulary_fact(f"health defects {choice}", tok,
                                  lambda: vocabulary_defects(tok, pattern))
        final = step_through(tok, text).final  # the session's encode of the text, not redone
        counts = derived("health counts", tok, text, lambda: Counter(final))
        view = derived(f"health {choice}", tok, text,
                       lambda: he.health_view(tok, counts, defects))
except ValueError as e:
    st.error(md_escape(str(e)))
    st.stop()

st.caption(f"{tokenizer_label()}; {view.total:,} tokens classified (special tokens left out). "
           + md_escape(he.pattern_note(tok, choice)))
if not text:
    st.info("The text is empty: every token counts as never produced. Paste some text in the "
            "sidebar or pick a sample.")

# -- summary ------------------------------------------------------------------------------------

st.header("Summary")
st.dataframe(he.health_summary_frame(view.summary), hide_index=True, key="health_summary")
partial = next(k for k in view.summary if k.kind == PARTIAL_UTF8)
st.caption(f"Partial UTF-8: {partial.single_bytes:,} single bytes and {partial.merged:,} merged "
           "tokens. Single bytes count too: the bytes 128 to 255 are never a whole character.")

# -- one section per kind -------------------------------------------------------------------------

ordered = None  # every id and its text, for searching: the forest page keeps the same fact
for kind in HEALTH_KINDS:
    slug = he.HEALTH_SLUGS[kind]
    ids = view.ids[kind]
    st.header(f"{kind[0].upper()}{kind[1:]} ({len(ids):,})")
    st.write(he.HEALTH_EXPLAINED[kind])
    if not ids:
        st.success("None in this vocabulary." if kind in VOCABULARY_KINDS
                   else "None on this text.")
        continue
    query = st.text_input("Search by text or id", key=f"health_search_{slug}",
                          max_chars=MAX_SEARCH_CHARS, placeholder="text or id")
    if query.strip() and ordered is None:
        ordered = vocabulary_fact("vocabulary by id", tok, lambda: vocab_order(tok, "by id"))
    shown, matched = he.find_health_rows(tok, ids, query, MAX_ROWS, ordered=ordered,
                                         spelled=kind == PARTIAL_UTF8)
    if not shown:
        st.info(f"No token of this kind matches “{md_escape(query.strip())}”.")
        continue
    event = st.dataframe(he.health_frame(he.view_rows(tok, view, shown)), hide_index=True,
                         key=f"health_table_{slug}", on_select="rerun",
                         selection_mode="single-row", height=280)
    if matched > len(shown):
        st.caption(f"{matched - len(shown):,} more: search to narrow them down.")
    picked = selected_row(event, shown)
    if st.button("Open its tree in the Merge forest", key=f"health_open_{slug}",
                 disabled=picked is None,
                 help="Select a row of the table first." if picked is None else None):
        ss["forest_open"] = picked
        st.switch_page("pages/forest.py")
