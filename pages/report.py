"""Report card: your tokenizer's compression (bytes per token) on prose, code, math, other
languages and a held-out text, against GPT-2, GPT-4 and GPT-4o; and how fast it encodes."""

import streamlit as st

from bpe_lab.who_pays.report import (
    REPORT_CATEGORIES,
    SPEED_PASSES,
    compare_scores,
    measure_speed,
    score_texts,
    training_overlap,
)
from ui.kit.charts import sized
from ui.kit.escape import md_escape
from ui.kit.projector import explain, projector_mode
from ui.kit.state import (
    derived,
    parallel_set,
    preset,
    report_texts,
    require_tokenizer,
    tokenizer_label,
    trained_text,
    vocabulary_fact,
)
from ui.kit.tables import table_html
from ui.sidebar.panel import sidebar
from ui.who_pays import languages as lt
from ui.who_pays import report as rc

sidebar()

st.title("Report card")
explain(
    "How well does your tokenizer compress different kinds of text? Each row is a short text "
    "that ships with the app: English prose, Python code, mathematics as people type it, the "
    "other languages of the parallel text (Language tax page), and an English letter that is in "
    "none of the samples. The score is bytes per token: higher means fewer tokens for the same "
    "text, so more of it fits in a model's context and it costs less."
)

tok = require_tokenizer()
texts = report_texts()
references = {name: preset(key) for name, key in rc.REPORT_REFERENCES.items()}


def scores_of(t):
    # the texts never change: a fact about the vocabulary (shared by every session for a preset)
    return vocabulary_fact("report scores", t, lambda: score_texts(t, texts))


try:
    with st.spinner("Encoding the report's texts…"):
        yours = scores_of(tok)
        theirs = {name: scores_of(ref) for name, ref in references.items()}
        compared = {name: compare_scores(yours, scores, name) for name, scores in theirs.items()}
except ValueError as e:  # a custom or imported split pattern that times out
    st.error(md_escape(str(e)))
    st.stop()

st.header("Compression")
two_decimals = st.column_config.NumberColumn(format="%.2f")  # 4.00, not 4
st.dataframe(rc.card_frame(yours, theirs, compared), hide_index=True, key="report_card",
             column_config={name: two_decimals for name in [rc.YOURS, *theirs]})
st.caption(f"*{rc.YOURS}*: {tokenizer_label()}. The numbers are bytes per token; *vs GPT-…*: how "
           "many percent more bytes per token yours packs (▲ better, ▼ worse, = same: within "
           "1%).")
trained = trained_text()
if trained:
    overlaps = derived("report overlap", tok, trained,
                       lambda: training_overlap(trained, texts))
    note = rc.overlap_note(overlaps)
    if note:
        st.warning(md_escape(note))
st.write(rc.card_summary(compared))
st.altair_chart(sized(rc.card_chart({rc.YOURS: yours, **theirs}), projector_mode()),
                width="stretch", key="report_chart")
with st.expander("Read the texts"):
    shown = st.selectbox("Text", list(texts), key="report_text")
    if shown == REPORT_CATEGORIES[3]:  # "other languages": each its own cell, with its lang
        frame, tags = lt.texts_frame([lang for lang in parallel_set() if lang.code != "en"])
        with st.container(height=300):
            st.html(table_html(frame, langs={"text": tags},
                               label="The story in every language but English"))
    else:
        with st.container(height=300, key="report_text_box"):  # focusable, as it scrolls
            st.code(texts[shown], language=None, wrap_lines=True)

st.header("Speed")
tokenizers = {rc.YOURS: tok, **references}
# one box per session for these tokenizers, kept in the session's cache; "Measure again" refills it
box = derived("report speed", tuple(tokenizers.values()), None, dict)
again = st.button("Measure again", key="report_measure")
if again or "speeds" not in box:
    try:
        with st.spinner("Timing…"):
            box["speeds"] = {name: measure_speed(t, texts) for name, t in tokenizers.items()}
    except ValueError as e:
        st.error(md_escape(str(e)))
        st.stop()
st.dataframe(rc.speed_frame(box["speeds"]), hide_index=True, key="report_speed",
             column_config={"MB/s": two_decimals})
num_bytes = box["speeds"][rc.YOURS].num_bytes
st.caption(f"MB/s of `encode_ordinary` on all the texts above ({num_bytes:,} bytes), the fastest "
           f"of {SPEED_PASSES} passes. Each pass starts with an empty chunk cache, as on text the "
           "tokenizer has not seen (encoding the same text twice would time the cache, several "
           "times faster). *Time for 1 TB*: at that speed, on one core of this server; pure "
           "Python, so far slower than tiktoken's Rust. The times vary with what else the "
           "machine is doing.")
