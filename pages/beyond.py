"""Superwords and fair merges: variants of BPE from recent research, each trained beside
classical BPE at the same vocabulary size. SuperBPE (Liu et al., 2025) and two-phase BoundlessBPE
(Schmidt et al., 2026) on the sidebar's text; parity-aware BPE (Foroutan et al., 2026) on the parallel texts of the Language tax page."""

from functools import partial

import streamlit as st

from bpe_core import GPT4_SPLIT_PATTERN
from bpe_core.boundless import word_run_pattern
from bpe_core.formats import to_hf_json
from bpe_lab.who_pays.costs import MAX_TAX_VOCAB
from bpe_lab.who_pays.parity import parity_comparison
from ui.kit.charts import Series, steps_chart
from ui.kit.escape import md_escape
from ui.kit.projector import explain
from ui.kit.special_rule import encode_by_rule
from ui.kit.state import (
    allowed_special,
    current_text,
    derived,
    family_stop,
    import_tokenizer,
    parallel_set,
    projector_mode,
    rule_caption,
    step_counts,
    text_digest,
)
from ui.kit.tokens_html import tokens_html, view_name
from ui.sidebar.panel import sidebar
from ui.variants import beyond as bv
from ui.variants.panel import run_training, train_beside_classical

sidebar()
ss = st.session_state

st.title("Superwords and fair merges")
family_stop()  # byte-level BPE only: another family is refused by name
explain(
    "Classical BPE merges the most frequent pair inside words, for everyone alike. Recent "
    "variants change one rule each. **SuperBPE** lets tokens span words (\"by the way\") once "
    "a transition point is passed. **BoundlessBPE** joins whole words too, and finds that "
    "transition by itself. **Parity-aware BPE** gives each merge to the language that "
    "is worst off so far. Each is trained here beside classical BPE at the same vocabulary size."
)

SUPER, FAIR = "SuperBPE: tokens across words", "Parity-aware BPE: fair merges"
BOUND = "BoundlessBPE: the transition found"
variant = st.radio("Variant", [SUPER, BOUND, FAIR], key="beyond_variant", horizontal=True)
settings = ss.get("tok_settings")
pattern = settings.pattern if settings is not None and settings.pattern else GPT4_SPLIT_PATTERN
vocab_size = int(ss.get("vocab_size") or 512)
num_merges = vocab_size - 256


if variant in (SUPER, BOUND):
    text = current_text()
    if not text:
        st.info("The text is empty: paste some text in the sidebar or pick a sample.")
        st.stop()
    name = bv.SUPERBPE if variant == SUPER else bv.BOUNDLESS
    # the sidebar's special tokens: both cut the text at them and count them in the vocabulary
    specials = list(settings.specials) if settings is not None else []
    if variant == SUPER:
        share = st.slider(
            "Transition: the share of the merges made inside words (stage one)", 0, 100, 80, 5,
            key="beyond_transition",
            help="SuperBPE's t. Stage one is classical BPE with the split pattern; after t "
                 "merges, stage two merges across spaces too. 100% is classical BPE.")
        transition = max(num_merges - len(specials), 0) * share // 100
    else:
        transition = None
        try:
            word_run_pattern(pattern)
        except ValueError as e:
            st.info(f"{e}: the sidebar's split pattern is another one.")
            st.stop()

    # the sidebar's tokenizer, when it is this classical BPE (same text, split and size; the
    # sidebar cuts at its special tokens as this page does): not trained again, and its
    # step-through is the one the session keeps
    sidebar_tok = ss.get("tok")
    same = (sidebar_tok is not None and settings is not None and ss.get("tok_text") == text
            and settings.pattern == pattern and settings.vocab_size == vocab_size)

    def make_super(progress):
        return train_beside_classical(progress, text, vocab_size, pattern, specials, transition,
                                      name, sidebar_tok if same else None)

    made = run_training((name, text_digest(text), vocab_size, transition, pattern,
                         tuple(specials)), make_super)
    if made is None:
        st.stop()
    classical, superbpe = made
    table, said = st.container(), st.container()
    if not projector_mode():  # on a projector the table first, what it says under it
        table, said = said, table
    said.caption(f"Both trained on the sidebar's text with a vocabulary of {vocab_size:,}; "
               + (f"stage one of SuperBPE made {superbpe.transition:,} merges." if variant == SUPER
                  else f"BoundlessBPE kept {superbpe.transition:,} of its phase one's merges."))
    allowed = allowed_special()  # the sidebar's rule for special-token text
    summary = derived(f"{name} summary", (classical, superbpe), text,
                      lambda: bv.superbpe_frame(text, classical, superbpe, name, allowed))
    said.markdown(md_escape(bv.gain_words(summary)))
    table.dataframe(summary, hide_index=True, key="beyond_summary",
                 column_config={"tokens per byte": st.column_config.NumberColumn(format="%.4f")})
    st.caption(f"Token counts with {rule_caption(text, classical, superbpe)}.")

    st.download_button(f"Download {name} as tokenizer.json",
                       partial(lambda t: to_hf_json(t).encode("utf-8"), superbpe),
                       file_name=f"{name.lower()}-tokenizer.json", mime="application/json",
                       key="beyond_download", on_click="ignore", icon="⬇️",
                       help=f"Hugging Face tokenizers reads it and gives the same ids: {name} is "
                            "ordinary BPE over a coarser split pattern.")

    if st.button(
            f"Step through {name}'s merges", key="beyond_step", icon=":material/flag:",
            on_click=import_tokenizer, args=(superbpe, bv.step_name(superbpe)),
            help=f"Makes this {name} the session's tokenizer (as an imported one) and opens "
                 f"Step through merges, which marks the merge where {superbpe.part} two "
                 "begins."):
        st.switch_page("pages/steps.py")

    st.header("The tokens, side by side")
    shown = bv.view_text(text)
    if shown != text:
        st.caption(f"The first {len(shown.encode('utf-8', 'replace')):,} bytes of the text.")
    left, right = st.columns(2)
    for column, label, tok in ((left, bv.CLASSICAL, classical), (right, name, superbpe)):
        ids = encode_by_rule(tok, shown, allowed)
        body, _ = tokens_html(bv.superword_pieces(tok, ids), large=projector_mode(),
                              css=column is left, name=view_name(label))  # one stylesheet
        column.caption(f"{label}: {len(ids):,} tokens")
        column.html(body)
    st.caption("Outlined: superword tokens, which span a word boundary (a space or line break "
               "after something else). Classical BPE has none: its split pattern forbids them.")

    st.header("Compression against merges")
    with st.spinner("Counting the text's tokens after each merge…"):
        a = step_counts(classical, text, keep_steps=classical is ss.get("tok"))
        b = step_counts(superbpe, text, keep_steps=False)
    longest = max(len(a[0]), len(b[0]))
    series = [Series(label, list(c) + [c[-1]] * (longest - len(c)), n)
              for label, (c, n) in ((bv.CLASSICAL, a), (name, b))]
    st.altair_chart(steps_chart(series, min(superbpe.transition, longest - 1),
                                metric="compression ratio", large=projector_mode()),
                    width="stretch", key="beyond_chart")
    st.caption(md_escape(bv.stage_two_words(superbpe) if variant == SUPER
                         else bv.phase_two_words(superbpe)))
    st.dataframe(bv.compression_frame({s.name: s.counts for s in series}, a[1],
                                      superbpe.transition),
                 hide_index=True, key="beyond_curve_table")
    st.caption("The chart as a table: tokens and bytes per token of the sidebar's text after "
               "each number of merges.")
else:
    languages = parallel_set()
    size = min(vocab_size, MAX_TAX_VOCAB)
    kind = st.radio("Parity-aware BPE's variant", list(bv.PARITY_KINDS), key="beyond_parity_kind",
                    horizontal=True, help=bv.PARITY_KINDS_HELP)
    global_merges, window = bv.parity_settings(kind, size - 256)

    def make_parity(progress):
        progress.begin(bv.PARITY)  # (its classical BPE, the shorter training, has no bar)
        return parity_comparison(languages, size, pattern, global_merges=global_merges,
                                 window=window, progress=progress)

    made = run_training(("parity", size, pattern, global_merges, window), make_parity)
    if made is None:
        st.stop()
    st.write(
        f"Trained on the first {made.train_lines} sentences of the story in each of the "
        f"{len(languages)} languages of the Language tax page, with a vocabulary of {size:,}; "
        f"measured on the last {made.test_lines}, which neither saw. Classical BPE counts pairs "
        "over all languages together; parity-aware BPE gives each merge to the language with "
        "the most tokens so far (the texts say the same thing), and makes it in every language."
    )
    st.markdown(md_escape(bv.parity_words(made)))
    st.dataframe(bv.parity_summary(made), hide_index=True, key="beyond_parity_summary",
                 column_config={"Gini over languages": st.column_config.NumberColumn(
                     format="%.3f")})
    st.header("The language tax, before and after")
    st.dataframe(bv.parity_frame(made), hide_index=True, key="beyond_parity_table",
                 column_config={c: st.column_config.NumberColumn(format="%.2f")
                                for c in (f"{bv.CLASSICAL}: × English", f"{bv.PARITY}: × English")})
    st.caption("× English: a language's tokens over English's for the same sentences, under the "
               "same tokenizer. Gini: 0 when every language pays the same.")
