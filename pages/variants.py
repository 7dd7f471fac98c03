"""Variants of BPE: the classic trainer against its variants on your text, and one vocabulary
used by other encoders (BPE-dropout, greedy longest match, fewest tokens)."""

import streamlit as st

from bpe_core.encoders import encode_variants
from ui.kit.charts import Series, steps_chart
from ui.kit.choices import train_tokenizer
from ui.kit.escape import md_escape
from ui.kit.projector import explain
from ui.kit.state import (
    active_tokenizer,
    allowed_special,
    current_text,
    derived,
    family_stop,
    projector_mode,
    require_tokenizer,
    step_counts,
    tokenizer_label,
)
from ui.kit.tokens_html import pieces, tokens_html
from ui.sidebar.panel import sidebar
from ui.variants import comparison as va

MAX_SENTENCE = 300  # characters of the sentence the encoders are shown on

sidebar()
ss = st.session_state

st.title("Variants of BPE")
family_stop()  # byte-level BPE only: another family is refused by name
explain(
    "BPE is one algorithm with many small choices. Which pair wins a tie? Are special tokens cut "
    "out before counting? Is a rare pair merged at all? The same vocabulary can also be used "
    "another way when encoding. Here each choice is run on the sidebar's text, beside the "
    "classic rule of the seeds and minbpe."
)

text = current_text()
if not text:
    st.info("The text is empty: paste some text in the sidebar or pick a sample.")
    st.stop()

# -- training variants ----------------------------------------------------------------------------

st.header("Training: the classic rule and its variants")
classic = ss.get("tok")
settings = ss.get("tok_settings")
trained_on = ss.get("tok_text")
if classic is None or settings is None or active_tokenizer() is not classic:
    st.info("Training variants need a tokenizer you trained: pick a **Train: …** choice in the "
            "sidebar and press **Train**. (The encoders below work with any tokenizer.)")
else:
    left, middle, right = st.columns(3)
    ties = left.toggle("Other tie rules (bytes, ids)", value=True, key="variants_ties")
    min_frequency = middle.number_input(
        "min_frequency (0: off)", min_value=0, max_value=1_000, value=3, key="variants_min_freq",
        help="Stop when the most frequent pair occurs fewer times than this.")
    max_token_bytes = right.number_input(
        "max_token_bytes (0: off)", min_value=0, max_value=64, value=0, key="variants_max_bytes",
        help="Never merge a pair whose token would be longer than this many bytes.")
    as_text = False
    if settings.specials:
        as_text = left.toggle("Special tokens as text, added after (minbpe)", value=True,
                              key="variants_as_text",
                              help="The sidebar cuts the text at its special tokens and counts "
                                   "them in the vocabulary size (as CS336 and bpe-lab train do). "
                                   "This variant trains over their text too and adds them after "
                                   "the merges, beyond the vocabulary size.")
    else:
        st.caption("Add special tokens in the sidebar to see what training over their text does.")
    chosen = va.variant_set(ties, int(min_frequency), int(max_token_bytes or 0) or None,
                           as_text)
    if max_token_bytes == 1:
        st.warning("max_token_bytes must be 2 or more (a merge makes at least 2 bytes).")
        chosen.pop("max_token_bytes=1", None)

    def train(options: dict):
        # no candidates kept: only the classic's are shown (training is faster, and lighter)
        return train_tokenizer(trained_on, settings, candidates=0, variant=options)

    made = {}
    with st.spinner("Training the variants…"):
        for name, options in chosen.items():
            key = ("variant", tuple(sorted(options.items())))
            tok = derived(key, classic, trained_on, lambda o=options: train(o), by_rule=False)
            made[name] = (tok, va.part_ways(classic, tok, options), options)

    st.dataframe(va.variants_frame(classic, {n: (t, p) for n, (t, p, _) in made.items()}),
                 hide_index=True, key="variants_summary")
    st.caption(f"Trained on the sidebar's text with {tokenizer_label()}. *Parts at merge*: the "
               "first step where the variant merges another pair.")

    if made:
        pick = st.selectbox("Where and why does this variant part from the classic?", list(made),
                            key="variants_pick")
        tok, parting, options = made[pick]
        if parting.step is None:
            st.success(parting.reason)
        else:
            st.markdown(f"**Merge {parting.step:,}.** {md_escape(parting.reason)}")
            st.dataframe(va.candidates_frame(classic, parting.classic, parting.variant),
                         hide_index=True, key="variants_candidates")
            st.caption("The best pairs at that step, as the classic's training counted them.")
        note = va.stop_note(classic, tok)
        if note:
            st.caption(md_escape(note))

    series = [Series(va.CLASSIC, *step_counts(classic, text))]
    series += [Series(name, *step_counts(tok, text, keep_steps=False))
               for name, (tok, _, _) in made.items()]
    longest = max(len(s.counts) for s in series)
    series = [s._replace(counts=list(s.counts) + [s.counts[-1]] * (longest - len(s.counts)))
              for s in series]
    st.subheader("Compression against merges")
    st.altair_chart(steps_chart(series, longest - 1, metric="compression ratio",
                                large=projector_mode()),
                    width="stretch", height=440, key="variants_chart")
    st.caption("Bytes per token of the sidebar's text after each number of merges, for the "
               "classic and every variant (a variant that stopped early stays flat).")

# -- one vocabulary, several encoders -------------------------------------------------------------

st.header("Encoding: one vocabulary, several ways to use it")
tok = require_tokenizer()
first_line = next((line for line in text.splitlines() if line.strip()), text)[:MAX_SENTENCE]
sentence = st.text_input("Sentence", value=first_line, max_chars=MAX_SENTENCE,
                         key="variants_sentence")
if not sentence:
    st.info("Write a sentence to encode.")
    st.stop()
left, middle, right = st.columns(3)
p = left.slider("Dropout p", 0.0, 1.0, 0.1, 0.05, key="variants_dropout")
samples = middle.number_input("Samples", 1, 10, 4, key="variants_samples")
seed = right.number_input("Seed", 0, 1_000_000, 0, key="variants_seed")

try:
    allowed = allowed_special()  # the sidebar's rule for special-token text
    shown = encode_variants(tok, sentence, dropout_samples=int(samples), p=p, seed=int(seed),
                            allowed_special=allowed)
    whole = derived("encoders", tok, text,
                    lambda: encode_variants(tok, text, allowed_special=allowed))
except ValueError as e:
    st.error(str(e))
    st.stop()

specials = set(tok.special_tokens.values())
st.subheader("BPE-dropout")
st.caption("Each merge is skipped with probability p as the sentence is encoded, so the same "
           "text gets different tokens: a regularizer for training language models "
           "(Provilkov et al., 2020). p = 0 is plain BPE.")
for i, ids in enumerate(shown.dropout, 1):
    body, _ = tokens_html(pieces(ids, tok.vocab, specials=specials), large=projector_mode(),
                          name=f"Tokens of sample {i}")
    st.caption(f"Sample {i}: {len(ids)} tokens")
    st.html(body)

st.subheader("BPE, greedy longest match, fewest tokens")
st.caption("The same vocabulary, three encoders. BPE applies the merges in the order they were "
           "learned; greedy takes the longest token at each point; fewest tokens finds the "
           "shortest split of each chunk. BPE is neither of the other two.")
counts = {va.ENCODER_NAMES[m]: len(ids) for m, ids in whole.by_method.items()}
st.dataframe(va.encoders_frame(counts, len(text.encode("utf-8", "replace"))), hide_index=True,
             key="variants_encoders",
             column_config={"bytes/token": st.column_config.NumberColumn(format="%.2f")})
for method, ids in shown.by_method.items():
    body, _ = tokens_html(pieces(ids, tok.vocab, specials=specials), large=projector_mode(),
                          name=f"Tokens by {va.ENCODER_NAMES[method]}")
    st.caption(f"{va.ENCODER_NAMES[method]}: {len(ids)} tokens")
    st.html(body)
