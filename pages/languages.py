"""Language tax: the same story in 32 languages and in emoji, under your tokenizer and GPT-2,
GPT-4 and GPT-4o; texts of your own beside them; and a tokenizer trained on English only against
one trained on every language."""

import streamlit as st

from bpe_core import PRESETS
from bpe_lab.who_pays.costs import language_costs, train_comparison
from ui.kit.charts import sized
from ui.kit.choices import MAX_PASTE_CHARS
from ui.kit.escape import md_escape
from ui.kit.projector import explain
from ui.kit.state import (
    cut_note,
    cut_to,
    derived,
    parallel_set,
    preset,
    projector_mode,
    require_tokenizer,
    tokenizer_label,
    vocabulary_fact,
)
from ui.kit.tables import table_html
from ui.sidebar.panel import sidebar
from ui.who_pays import languages as lt

sidebar()
ss = st.session_state

st.title("Language tax")
explain(
    "The same short story (a town's Saturday market, sixteen sentences) in 32 languages and "
    "scripts, and once in emoji. A tokenizer trained mostly on English text has merged English "
    "words into single tokens and left other scripts as bytes, so the same content costs more "
    "tokens in other languages: more money per request, less text in the model's context, and "
    "slower answers. Each bar is a language's token count over English's, under one tokenizer."
)

languages = parallel_set()
english = languages[0]
tok = require_tokenizer()
YOURS = "Yours"
tokenizers = {}
if tok.name in PRESETS:
    st.caption(f"Your choice in the sidebar, {tokenizer_label()}, is one of the GPT tokenizers.")
else:
    tokenizers[YOURS] = tok
    st.caption(f"**{YOURS}**: {tokenizer_label()}.")
titles = {p["title"]: name for name, p in PRESETS.items()}
options = [*tokenizers, *titles]
# by default: the sidebar's tokenizer and the newest GPT one (the oldest, if that is the sidebar's)
first = YOURS if tokenizers else PRESETS[tok.name]["title"]
newest, oldest = PRESETS["o200k_base"]["title"], PRESETS["gpt2"]["title"]
chosen = st.multiselect("Tokenizers", options, key="languages_which",
                        default=[first, oldest if first == newest else newest])
if not chosen:
    st.info("Pick at least one tokenizer.")
    st.stop()
for title, name in titles.items():
    if title in chosen:
        tokenizers[title] = preset(name)
tokenizers = {label: tokenizers[label] for label in chosen}

with st.expander("Your own texts: measure them beside the story"):
    st.write(
        "Paste one or more texts, separated by a line `---`. A text may start with a line "
        "`name: …` (its name in the table) and a line `spaced: no` (a script without spaces "
        "between words). To compare fairly, translate the English story below: the cost is "
        "relative to its English."
    )
    raw = st.text_area("Your texts", key="languages_own", height=160,
                       max_chars=MAX_PASTE_CHARS, on_change=cut_to,
                       args=("languages_own", lt.MAX_OWN_CHARS),
                       placeholder="name: Yoruba\nỌjà kan wà ní gbangba ìlú wa ní gbogbo "
                                   "àárọ̀ Sátidé.\n---\nname: my notes\n…")
    own, notes = lt.parse_own_texts(raw or "")
    if cut_note("languages_own"):
        notes.insert(0, cut_note("languages_own"))
    for note in notes:
        st.info(note)
    if own:
        st.caption("Measured: " + ", ".join(md_escape(t.name) for t in own) + ".")
    st.caption("The English story:")
    st.text(english.text)


def costs_of(label, t):
    # the parallel set never changes: a fact about the vocabulary (per server for a GPT preset)
    rows = vocabulary_fact("language tax", t, lambda: language_costs({label: t}, languages))
    if own:
        rows = rows + derived(("language tax, own texts", label), t, raw, lambda: language_costs(
            {label: t}, own, english=english))
    return rows


try:
    with st.spinner("Encoding the story in every language…"):
        costs = {label: costs_of(label, t) for label, t in tokenizers.items()}
except ValueError as e:  # a custom split pattern that times out, say
    st.error(md_escape(str(e)))
    st.stop()

chart_col, table_col = st.columns([5, 4])
frame = lt.chart_frame([row for rows in costs.values() for row in rows])
chart_col.altair_chart(sized(lt.tax_chart(frame), projector_mode()), width="stretch",
                       key="languages_chart")
shown = table_col.selectbox("Table for", chosen, key="languages_table_for")
table_col.markdown(f"**{tokenizer_label() if shown == YOURS else shown}**: tokens for the story")
table_col.dataframe(lt.costs_frame(costs[shown]), hide_index=True, key="languages_table",
                    height=640, column_config={  # 1.00 beside 1.06, not 1
                        "language": st.column_config.TextColumn(width="medium"),
                        "× English": st.column_config.NumberColumn(format="%.2f"),
                        "bytes/token": st.column_config.NumberColumn(format="%.2f")})
table_col.caption("× English: tokens over English's tokens. Tokens per word: — where the "
                  "script writes no spaces between words.")
for label, rows in costs.items():
    sentence = lt.tax_sentence(rows, tokenizer_label() if label == YOURS else label)
    if sentence:
        st.markdown(sentence)

with st.expander("Read the story in every language, a sentence at a time"):
    line = st.selectbox("Sentence", range(len(english.lines)), key="languages_sentence",
                        format_func=lambda i: f"{i + 1} of {len(english.lines)}")
    frame, tags = lt.sentence_frame(languages, tokenizers, line)
    st.html(table_html(frame, large=projector_mode(), langs={"sentence": tags},
                       formats={c: "," for c in frame.columns[2:]},
                       label=f"Sentence {line + 1} in every language, and its tokens"))

# -- English only, or every language? ------------------------------------------------------------

st.header("Who is in the training data decides who pays")
vocab_size, pattern, pattern_name = lt.comparison_settings(
    ss.get("kind", ""), ss.get("pattern", ""), ss.get("vocab_size", 1024))
st.write(
    f"Train two tokenizers at the sidebar's vocabulary size ({vocab_size:,}) with "
    f"{md_escape(pattern_name)}: one on the first two thirds of the English story, one on the "
    "first two thirds of every language's. Both are measured on the last third, which neither "
    "saw."
)
settings = (vocab_size, pattern)
if st.button("Train English-only vs all languages", key="languages_train"):
    ss["languages_trained"] = settings
if ss.get("languages_trained") is not None and ss["languages_trained"] != settings:
    st.caption("The sidebar's settings changed: press the button to train again.")
elif ss.get("languages_trained") == settings:
    try:
        with st.spinner("Training both tokenizers…"):
            result = derived(("language tax comparison", vocab_size, pattern), None, None,
                             lambda: train_comparison(languages, vocab_size, pattern))
    except ValueError as e:  # a custom pattern past the app's budget (bpe_core.limits)
        st.error(md_escape(str(e)))
        st.stop()
    st.markdown(lt.comparison_sentence(result))
    for note in result.shortfall():
        st.caption(note)
    left, right = st.columns([5, 4])
    left.altair_chart(sized(lt.tax_chart(lt.comparison_chart_frame(result), series="training"),
                            projector_mode()),
                      width="stretch", key="languages_comparison_chart")
    right.dataframe(lt.comparison_frame(result), hide_index=True, key="languages_comparison",
                    height=640, column_config={
                        "language": st.column_config.TextColumn(width="medium"),
                        lt.ENGLISH_ONLY: st.column_config.NumberColumn(format="%.2f"),
                        lt.ALL_LANGUAGES: st.column_config.NumberColumn(format="%.2f")})
    right.caption("Tokens relative to English under the tokenizer trained on English only and "
                  "under the one trained on every language; then their tokens.")
