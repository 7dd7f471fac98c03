"""Numbers: what numbers cost in tokens under your tokenizer and the GPT ones, the digit groups
each makes, and tokenizers trained with other rules for digits."""

import streamlit as st

from bpe_core import PRESETS
from bpe_core.patterns import DIGIT_PRESETS, DIGIT_RULES
from bpe_lab.who_pays.numbers import (
    NUMBER_EXAMPLES,
    compare_digit_presets,
    number_counts,
    number_facts,
    number_split,
    train_digit_presets,
)
from ui.kit.charts import sized
from ui.kit.choices import MAX_TRAIN_CHARS, cap_text, text_problem
from ui.kit.escape import md_escape
from ui.kit.projector import explain, projector_mode
from ui.kit.session_keys import keep
from ui.kit.state import (
    current_text,
    derived,
    preset,
    require_tokenizer,
    text_digest,
    tokenizer_label,
    vocabulary_fact,
)
from ui.sidebar.panel import sidebar
from ui.who_pays import numbers as nu

MAX_NUMBER_CHARS = 40  # the user's own number
MIN_DIGITS = 50  # with fewer digits in the text, the digit rules hardly differ
CUSTOM_KIND = "Train: custom split pattern"

sidebar()
ss = st.session_state

st.title("Numbers")
explain(
    "A tokenizer cuts numbers as it cuts words: into the pieces its vocabulary has. GPT-2 keeps "
    "a run of digits whole and learned tokens for the numbers its training text had, so a "
    "number may be one token and its neighbour two. GPT-4 and GPT-4o first cut every run of "
    "digits into groups of up to three, and have a token for each group. Other tokenizers cut "
    "digits one by one, or in threes from the right like thousands separators: train them "
    "below and compare."
)

tok = require_tokenizer()
tokenizers = {}
if tok.name in PRESETS and tok is preset(tok.name):
    st.caption(f"Your choice in the sidebar, {tokenizer_label()}, is one of the GPT tokenizers.")
else:
    tokenizers[f"Yours: {tokenizer_label()}"] = tok
for name in ("gpt2", "cl100k_base", "o200k_base"):
    tokenizers[PRESETS[name]["title"]] = preset(name)

facts = {}
for label, t in tokenizers.items():
    try:  # a fact about the whole vocabulary: once per session (per server for the GPT ones)
        facts[label] = vocabulary_fact("numbers", t, lambda t=t: number_facts(t))
    except ValueError as e:  # an imported tokenizer whose pattern times out
        st.error(f"{md_escape(label)}: {md_escape(str(e))}")

# -- what a number costs --------------------------------------------------------------------------

st.header("What a number costs")
left, right = st.columns(2)
which = left.radio("Numbers", ["0–999", "Years 1900–2099"], horizontal=True, key="numbers_range")
space = right.toggle("With a leading space", key="numbers_space",
                     help='" 42", as a number stands in running text: GPT-2 joins the space to '
                          "the digits, GPT-4 and GPT-4o keep it apart.")
years = which != "0–999"
noun = "years" if years else "numbers"
written = " written with a space before them" if space else ""
said, drawn = st.container(), st.container()
if projector_mode():  # the heatmap first on a projector's screen, what it says under it
    said, drawn = drawn, said
for label, fact in facts.items():
    said.markdown("- " + nu.numbers_sentence(f"**{label}**", fact.counts(years, space), noun,
                                             written))
frame = nu.numbers_heatmap_frame({label: fact.counts(years, space) for label, fact in facts.items()})
drawn.altair_chart(sized(nu.numbers_heatmap(frame, row_title="century" if years else "hundreds"),
                         projector_mode()),
                   key="numbers_heatmap")
drawn.caption("Each cell is one number: its row is the number without its last two digits, its "
           "column the last two digits. Hover over a cell for the number and its tokens.")

# -- digit groups ---------------------------------------------------------------------------------

st.header("Digit groups")
own = st.text_input("Your own number", value="98765432.10", max_chars=MAX_NUMBER_CHARS,
                    key="numbers_own", help="Any text works; it is shown as text.")
splits = {}
for label, fact in facts.items():
    rows = list(fact.examples)
    if own and own not in NUMBER_EXAMPLES:
        rows.insert(0, number_split(tokenizers[label], own))
    splits[label] = rows
st.dataframe(nu.digit_groups_frame(splits), hide_index=True, key="numbers_groups")
st.caption(f"Each token of a number, with {nu.PIECE_SEPARATOR} between two tokens and · for a "
           "space.")

# -- other rules for digits -----------------------------------------------------------------------

st.header("Train with digit presets")
st.write(
    "The same split pattern as GPT-4's with only its part for digits changed, each trained on "
    "the sidebar's text at the sidebar's vocabulary size. The pattern decides where digits may "
    "be joined at all; the merges decide which of those joins the vocabulary makes."
)
st.dataframe([{"digit rule": name, "pattern part": rule} for name, rule in DIGIT_RULES.items()],
             hide_index=True, key="numbers_rules")

text, cut_note = cap_text(current_text(), MAX_TRAIN_CHARS, "Training on")
vocab_size = int(ss["vocab_size"])
wanted = (text_digest(text), vocab_size)
if st.button("Train with digit presets", key="numbers_train"):
    problem = text_problem(text)
    if problem:
        st.error(problem)
    else:
        ss["numbers_presets_for"] = wanted


def _compare_presets():
    toks = train_digit_presets(text, vocab_size)  # built-in patterns: linear, in-process
    counts = {n: number_counts(t) for n, t in toks.items()}
    return toks, compare_digit_presets(toks, text), counts, sum(map(str.isdigit, text))


if ss.get("numbers_presets_for") is None:
    st.caption(f"Trains four tokenizers at vocabulary size {vocab_size:,}.")
elif ss["numbers_presets_for"] != wanted:
    st.caption("The text or the vocabulary size changed: press the button to train on them.")
else:
    if cut_note:
        st.info(cut_note)
    try:
        with st.spinner("Training four tokenizers…"):
            made = derived(("digit presets", vocab_size), None, text, _compare_presets,
                           by_rule=False)
    except ValueError as e:  # a refusal that names its limit
        st.error(md_escape(str(e)))
        st.stop()
    _, compared, preset_counts, digits = made
    if digits < MIN_DIGITS:
        st.info(f"The text has {digits:,} digits: the rules can only differ where it has "
                "numbers. Pick the sample *Tricky: numbers, contractions, whitespace* or paste "
                "a text with many numbers.")
    st.dataframe(nu.digit_presets_frame(compared, DIGIT_RULES), hide_index=True,
                 key="numbers_presets",
                 column_config={"bytes/token": st.column_config.NumberColumn(format="%.2f")})
    st.caption(f"Vocabulary size {vocab_size:,}. Tokens for 0–999: every number 0 to 999 written "
               "plainly, summed; on the text: the sidebar's text. The example numbers' tokens "
               "follow.")
    st.altair_chart(sized(nu.numbers_heatmap(nu.numbers_heatmap_frame(preset_counts)),
                          projector_mode()),
                    key="numbers_presets_heatmap")

    def _use_preset() -> None:
        # a callback: it runs before the sidebar's widgets are drawn, so it may set them
        name = ss["numbers_use_pick"]
        keep("kind", CUSTOM_KIND)
        keep("pattern", DIGIT_PRESETS[name])
        ss["numbers_used"] = name

    pick_col, button_col = st.columns([3, 1], vertical_alignment="bottom")
    pick_col.selectbox("Digit rule for the sidebar", list(DIGIT_PRESETS), key="numbers_use_pick")
    button_col.button("Use it in the sidebar", key="numbers_use", on_click=_use_preset)
    used = ss.get("numbers_used")
    if used and ss.get("kind") == CUSTOM_KIND and ss.get("pattern") == DIGIT_PRESETS.get(used):
        settings = ss.get("tok_settings")
        if settings is not None and settings.pattern == ss["pattern"]:
            st.success(f"Your tokenizer (the sidebar's) cuts digits by the rule {md_escape(used)}; "
                       "its numbers are the first heatmap's *Yours*.")
        else:
            st.success(f"The sidebar is set to a custom split pattern with {md_escape(used)}: "
                       "press **Train** there to make it your tokenizer on every page.")
