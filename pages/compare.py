"""Compare: the text under your tokenizer and under GPT-2, GPT-4 and GPT-4o; where they differ."""

import streamlit as st

from bpe_core import PRESETS
from ui.compare.cuts import (
    FIRST_VIEW_BYTES,
    MARK_MODES,
    MAX_SPANS_PER_VIEW,
    compare_html,
    disagreements,
    encode_text,
    marked_cuts,
    summary_frame,
    tokens_to_draw,
)
from ui.kit.families import FAMILIES
from ui.kit.family_panel import beside_gpt
from ui.kit.projector import projector_mode
from ui.kit.state import (
    active_tokenizer,
    current_text,
    derived,
    draws_pieces,
    preset,
    rule_caption,
    step_through,
    tokenizer_label,
)
from ui.kit.tables import table_html
from ui.sidebar.panel import sidebar

sidebar()

st.title("Compare with GPT")
st.write(
    "The sidebar's text under your tokenizer and under the GPT tokenizers: how many tokens each "
    "needs, how each cuts the text, and the words where they disagree most. A bigger vocabulary "
    "and a split pattern that keeps runs of spaces or digits together both mean fewer tokens."
)

text = current_text()
if not text:
    st.info("The text is empty: paste some text in the sidebar or pick a sample.")
    st.stop()

tok = active_tokenizer(FAMILIES)
tokenizers = {}
if tok is not None and draws_pieces():  # its pieces first, then GPT's tokens
    beside_gpt(tok, text)
    st.subheader("The GPT tokenizers")
elif tok is None:
    st.info("You have no tokenizer of your own yet (press **Train** in the sidebar): "
            "comparing the GPT tokenizers only.")
elif tok.name in PRESETS:
    st.caption(f"Your choice in the sidebar, {tokenizer_label()}, is one of the GPT tokenizers.")
else:
    tokenizers[f"Yours: {tokenizer_label()}"] = tok
options = [*tokenizers, *(p["title"] for p in PRESETS.values())]
chosen = st.multiselect("Tokenizers", options, default=options, key="compare_which")
if not chosen:
    st.info("Pick at least one tokenizer.")
    st.stop()
for name, p in PRESETS.items():
    if p["title"] in chosen:
        tokenizers[p["title"]] = preset(name)
tokenizers = {label: tokenizers[label] for label in chosen}

try:
    with st.spinner("Encoding…"):  # each kept in the session's cache while text and tokenizer stay
        encodings = {label: derived(("encoding", label), tok, text, lambda label=label, tok=tok:
                                    encode_text(label, tok, text, step_through(tok, text)))
                     for label, tok in tokenizers.items()}
except ValueError as e:
    st.error(str(e))
    st.stop()
owners = tuple(tokenizers.values())  # what the analyses below depend on, with the text

summary = summary_frame(encodings, text)
st.caption("Token counts with "
           f"{rule_caption(text, *tokenizers.values(), labels=list(tokenizers))}.")
# Both tables are plain HTML, the token counts drawn as bars in theirs: a first visit then loads
# neither the data grid's scripts nor a chart's, which cost the browser more than the rest of the
# page (benchmarks/compare_paint.py; docs/BENCHMARKS.md, "First visits").
st.html(table_html(summary, bar="tokens", formats={
    "tokens": ",", "bytes/token": ".2f", "characters/token": ".2f", "vocabulary size": ","}))

st.header("How each one cuts the text")
# side by side; stacked on a projector, where a select would cut its value
controls = [st.container() for _ in range(3)] if projector_mode() else st.columns(3)
layout = controls[0].radio("Layout", ["Side by side", "Stacked"], horizontal=True,
                           key="compare_layout")
mark = controls[1].selectbox("Mark the cuts…", list(MARK_MODES), key="compare_marks",
                             help="A cut is the boundary between two tokens.")
whitespace = controls[2].checkbox("Show spaces and line breaks", value=True, key="compare_ws")
if MARK_MODES[mark] != "none":
    st.caption(f"A token with an orange left edge starts at a cut {mark}. "
               "Hover over a token for its id and bytes.")
# the marks are kept for the session; the cuts they come from (every token boundary) are not
marks = derived(("marks", mark, tuple(encodings)), owners, text, lambda: marked_cuts(
    {label: enc.cuts() for label, enc in encodings.items()}, MARK_MODES[mark]))

n_bytes = len(text.encode("utf-8", "replace"))
limit = None
if n_bytes > FIRST_VIEW_BYTES and not st.checkbox(
        f"Draw the whole text ({n_bytes:,} bytes)", key="compare_whole",
        help="Every token is a coloured box: a long text is many boxes for the browser."):
    limit = FIRST_VIEW_BYTES
    st.caption(f"The views show the text's first {FIRST_VIEW_BYTES:,} bytes of {n_bytes:,} "
               "(the table above counts all of it).")
if layout == "Side by side":
    places = st.columns(min(len(encodings), 4))
else:
    places = [st.container() for _ in encodings]
for i, (label, enc) in enumerate(encodings.items()):
    with places[i % len(places)]:
        # the views' stylesheet once, in the first: each <style> restyles the whole page
        drawn = min(tokens_to_draw(enc, limit), MAX_SPANS_PER_VIEW)
        body, left_out = compare_html(enc, marks[label], whitespace=whitespace, title=label,
                                      css=i == 0, max_tokens=drawn)
        st.html(body)
        if left_out and limit is None:  # the bound on spans, with the whole text asked for
            st.caption(f"Showing the first {len(enc.ids) - left_out:,} of {len(enc.ids):,} "
                       "tokens.")

st.header("Words they disagree on")
st.caption("Tokens touching each word (or punctuation run, or run of spaces) where it first "
           "occurs; the largest differences first.")
words = derived(("words", tuple(encodings)), owners, text, lambda: disagreements(encodings, text))
if words.empty:
    st.write("They split every word into the same number of tokens.")
else:
    st.html(table_html(words, formats={label: "," for label in encodings}))
