"""Tokens: the sidebar text as coloured tokens, the split pattern's chunks, counts and ids."""

import streamlit as st

from ui.kit.families import FAMILIES
from ui.kit.family_panel import tokens_view
from ui.kit.state import (
    allowed_special,
    current_text,
    derived,
    draws_pieces,
    projector_mode,
    require_tokenizer,
    rule_caption,
    step_through,
    tokenizer_label,
)
from ui.kit.tokens_html import (
    COLOUR_MODES,
    bytes_hint,
    cap_note,
    chunks_html,
    chunks_of,
    legend_html,
    summarise,
    token_counts,
    tokens_html,
)
from ui.sidebar.panel import sidebar

VIEWS = ["Tokens", "Chunks (split pattern)"]
KEEP = "session"  # the options keep their values when the user visits another page and returns

sidebar()
ss = st.session_state

st.title("Tokens")
tok = require_tokenizer(FAMILIES)
text = current_text()
if not text:
    st.info("The text is empty: paste some text in the sidebar or pick a sample.")
    st.stop()
if draws_pieces():  # SentencePiece, word BPE, a tekken.json: pieces drawn as what they are
    tokens_view(tok, text)
    st.stop()

try:
    steps = step_through(tok, text)
except ValueError as e:
    st.error(str(e))
    st.stop()
# Toggling an option reruns the page: the summary is kept while the text and tokenizer stay.
tokens = derived("tokens summary", tok, text, lambda: summarise(steps))

left, middle, right = st.columns([2, 3, 2])
view = left.radio("View", VIEWS, key="tokens_view", persist_state=KEEP)
is_chunks = view != VIEWS[0]
colour = middle.radio("Colour", list(COLOUR_MODES), format_func=COLOUR_MODES.get,
                      key="tokens_colour", disabled=is_chunks, persist_state=KEEP)
whitespace = right.toggle("Show whitespace (· → ↵)", key="tokens_whitespace", persist_state=KEEP)
ids = right.toggle("Ids instead of text", key="tokens_ids", disabled=is_chunks,
                   persist_state=KEEP)
large = right.toggle("Large text", key="tokens_large", persist_state=KEEP,
                     help="Bigger tokens for a projector (on by itself in projector mode).")
large = large or projector_mode()

counts = token_counts(text, tokens.total)
for col, (label, value) in zip(st.columns(len(counts)), counts.items(), strict=True):
    col.metric(label, value)
st.caption(f"Tokenizer: {tokenizer_label()} · {rule_caption(text, tok)}")
hint = bytes_hint([t.token for t in tokens.shown], text, tok.num_merges)
if hint:
    st.info(hint)

if not is_chunks:
    st.caption("Hover a token for its id, text and bytes (hex).")
    body, missing = tokens_html(tokens.shown, step_of=tok.step_of, colour=colour,
                                whitespace=whitespace, ids=ids, large=large, mark_new=False)
    st.html(body)
    if colour != "cycle":
        st.html(legend_html(colour, tok.num_merges))
    notes = [cap_note(len(tokens.shown) - missing, tokens.total)]
    if tokens.partial:
        notes.append(f"{tokens.partial:,} tokens hold part of a UTF-8 character: shown in hex.")
    if tokens.special:
        notes.append(f"{tokens.special:,} special tokens (dark, outlined).")
    for note in filter(None, notes):
        st.caption(note)
else:
    if not tok.pattern:
        st.info("This tokenizer has no split pattern: the whole text is one chunk, so merges "
                "can cross spaces and punctuation.")
    else:
        st.caption("The split pattern cuts the text into chunks first; merges never cross a "
                   "chunk boundary. Hover a chunk for its text and size.")
    try:
        chunks, special = chunks_of(tok, text, allowed_special())
    except ValueError as e:
        st.error(str(e))
        st.stop()
    body, missing = chunks_html(chunks, special=special, whitespace=whitespace, large=large)
    st.html(body)
    st.caption(f"{len(chunks):,} chunks, {len(set(chunks)):,} distinct.")
    note = cap_note(len(chunks) - missing, len(chunks), "chunks")
    if note:
        st.caption(note)

with st.expander(f"Token ids ({tokens.total:,})"):
    st.code(", ".join(map(str, tokens.ids)), language=None, wrap_lines=True)
    note = cap_note(len(tokens.ids), tokens.total, "ids")
    if note:
        st.caption(note)
