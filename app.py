"""bpe-lab: train a byte-level BPE tokenizer on your own text and see what it learned."""

import streamlit as st

from ui.samples import load_samples
from ui.tables import merges_frame
from ui.training import (
    MAX_IDS_SHOWN,
    SPLITS,
    clip_ids,
    format_ids,
    make_tokenizer,
    summarize,
    text_problem,
    throttled,
)

st.set_page_config(page_title="bpe-lab", layout="wide")

samples = st.cache_data(show_spinner=False)(load_samples)()
if "text" not in st.session_state:
    st.session_state["text"] = samples["English prose"]


def use_sample() -> None:
    """Replace the text with the sample just chosen."""
    st.session_state["text"] = samples[st.session_state["sample"]]


st.title("bpe-lab")
st.write(
    "Train a byte-level BPE tokenizer on your own text, then look at the merges it learned "
    "and the token ids it gives the text."
)

text_col, controls_col = st.columns([3, 1])
with text_col:
    st.selectbox("Sample text", list(samples), key="sample", on_change=use_sample)
    st.text_area("Text to train on", key="text", height=320, max_chars=200_000)
with controls_col:
    st.selectbox("Split", list(SPLITS), key="split")
    st.number_input(
        "Vocabulary size", min_value=256, max_value=8192, value=512, step=64, key="vocab_size"
    )
    train_clicked = st.button("Train", key="train", type="primary")

if train_clicked:
    text = st.session_state["text"]
    problem = text_problem(text)
    if problem:
        (st.error if not text else st.warning)(problem)
    else:
        st.session_state.pop("tokenizer", None)
        st.session_state.pop("trained", None)
        bar = st.progress(0.0, text="Training…")

        def show_progress(done: int, total: int) -> None:
            bar.progress(done / total, text=f"Merge {done:,} of {total:,}")

        try:
            tok = make_tokenizer(st.session_state["split"])
            tok.train(text, int(st.session_state["vocab_size"]), progress=throttled(show_progress))
            ids = tok.encode_ordinary(text)
        except ValueError as e:
            st.error(str(e))
        else:
            st.session_state["tokenizer"] = tok
            st.session_state["trained"] = {"text": text, "ids": ids}
        finally:
            bar.empty()

tok = st.session_state.get("tokenizer")
trained = st.session_state.get("trained")
if tok is not None and trained is not None:
    summary = summarize(trained["text"], trained["ids"], len(tok.merges))
    st.subheader("Result")
    cols = st.columns(4)
    cols[0].metric("Merges made", f"{summary.merges:,}")
    cols[1].metric("Tokens before (bytes)", f"{summary.bytes_before:,}")
    cols[2].metric("Tokens after", f"{summary.tokens_after:,}")
    cols[3].metric("Compression ratio", f"{summary.ratio:.2f}×")
    if tok.stop_reason is not None:
        st.info(tok.stop_reason)
    if trained["text"] != st.session_state["text"]:
        st.caption(
            "The text has changed since training: these results are for the text trained on."
        )

    merges_col, ids_col = st.columns(2)
    with merges_col:
        st.subheader("Merges")
        st.dataframe(merges_frame(tok), hide_index=True, height=420, key="merges_table")
    with ids_col:
        st.subheader("Token ids")
        shown, left_out = clip_ids(trained["ids"], MAX_IDS_SHOWN)
        st.code(format_ids(shown), language=None, wrap_lines=True, height=420)
        if left_out:
            st.caption(f"Showing the first {len(shown):,} ids; {left_out:,} more were left out.")
