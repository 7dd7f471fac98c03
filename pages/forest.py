"""Merge forest: every token as the binary tree of its merges, a text's forest, a word's trace.

A token is chosen by typing its id or text, from the tokens of the text, from the vocabulary
table, by clicking a node in either chart, or by another page's link (``forest_open``); the last
choice wins (callbacks record it).
"""

import streamlit as st

from ui.forest import trees as fo
from ui.forest.chart import (
    edge_frame,
    node_frame,
    picked_id,
    tree_chart,
    vocab_frame,
    word_trace_frame,
)
from ui.kit.families import FAMILIES
from ui.kit.family_panel import forest_view
from ui.kit.state import (
    LINK_STEP,
    current_text,
    draws_pieces,
    projector_mode,
    require_tokenizer,
    step_through,
    tokenizer_label,
    vocabulary_fact,
)
from ui.sidebar.panel import sidebar

MAX_TEXT_TOKENS = 500  # tokens offered in the "tokens of the text" picker
MAX_VOCAB_ROWS = 1_000  # rows of the vocabulary table sent to the browser

sidebar()
ss = st.session_state

st.title("Merge forest")
if draws_pieces():  # SentencePiece, word BPE (trained or imported): a piece's tree of merges
    st.write("Every merged piece was made by a merge of pieces before it, down to single "
             "characters. Pick a piece of the text to see the merges that made it.")
    forest_view(require_tokenizer(FAMILIES), current_text())
    st.stop()
st.write(
    "Every merged token has exactly two parents, down to single bytes: the merges form a "
    "*binary forest*. Pick a token to see its tree, see the forest of the text's tokens grow "
    "merge by merge, and trace how the encoder walks the forest for one word."
)
st.caption(f"Tokenizer: {tokenizer_label()}")
tok = require_tokenizer()
try:
    steps = step_through(tok, current_text())
except ValueError as e:
    st.error(str(e))
    st.stop()
text_uses = fo.most_used(steps.final)
uses_in_text = dict(text_uses)
vocab = tok.vocab


def show(token_id: int) -> str:
    return f"{fo.token_text(vocab[token_id], 40)}  (id {token_id})"


# -- one chosen token, set by whichever picker changed last (callbacks run before the script) ----


def choose(token_id: int, source: str) -> None:
    ss["_forest_chosen"] = (id(tok), token_id)
    if source not in ("typed", "piece"):
        ss["forest_token"] = str(token_id)
    if source != "text":
        ss["forest_from_text"] = None
    if source != "piece":
        ss["forest_piece"] = None


def on_typed() -> None:
    try:
        found = fo.find_token(tok, ss["forest_token"])
    except ValueError:
        return  # the page shows the message
    if found is not None and found.id is not None:
        choose(found.id, "typed")


def on_pick(key: str, source: str) -> None:
    if ss.get(key) is not None:
        choose(ss[key], source)


def on_table() -> None:
    token_id = fo.selected_row(ss.get("forest_vocab"), ss.get("_forest_vocab_ids", []))
    if token_id is not None and token_id in vocab:
        choose(token_id, "table")


def on_chart(key: str) -> None:
    token_id = picked_id(ss.get(key))
    if token_id is not None and token_id in vocab:
        choose(token_id, "chart")


# A link from another page (the Vocabulary health lists, say): it sets ss["forest_open"] to a
# token id just before st.switch_page("pages/forest.py"). Taken once.
opened = ss.pop("forest_open", None)
not_here = None
if opened is not None:
    opened_id = fo.as_id(str(opened).strip())
    if opened_id in vocab:
        choose(opened_id, "link")
    else:
        not_here = (f"Token {fo.md_escape(str(opened)[:30])} is not in this vocabulary "
                    f"({tokenizer_label()}: ids 0 to {max(vocab):,}); showing another token.")

chosen = ss.get("_forest_chosen")
if not chosen or chosen[0] != id(tok) or chosen[1] not in vocab:
    chosen = (id(tok), fo.default_token(tok, steps.final))
    ss["_forest_chosen"] = chosen
    ss["forest_token"] = str(chosen[1])
ss.setdefault("forest_token", str(chosen[1]))
chosen_id = chosen[1]

# -- token tree ------------------------------------------------------------------------------------

st.header("Token tree")
if not_here:
    st.warning(not_here)
pick_col, tree_col = st.columns([2, 3])
with pick_col:
    st.text_input(
        "Token id or text", key="forest_token", on_change=on_typed, max_chars=fo.MAX_FIND_CHARS,
        help='A number is an id; put a number in quotes ("42") to look up its text.',
    )
    try:
        found = fo.find_token(tok, ss["forest_token"])
    except ValueError as e:
        st.error(str(e))
        found = None
    if found is not None and found.id is None:
        st.warning(
            f"“{fo.md_escape(fo.token_text(found.text.encode('utf-8'), 60))}” is not one token: "
            f"it becomes {len(found.pieces)}: "
            + ", ".join(fo.named(tok, t) for t in found.pieces[:20])
            + ("…" if len(found.pieces) > 20 else "") + ". Pick one:"
        )
        st.selectbox(
            "Tokens of what you typed", list(dict.fromkeys(found.pieces)), index=None,
            format_func=show, key="forest_piece", on_change=on_pick,
            args=("forest_piece", "piece"), placeholder="Pick one of its tokens",
        )
    st.selectbox(
        "…or a token of the text (most used first)",
        [t for t, _ in text_uses[:MAX_TEXT_TOKENS]], index=None, key="forest_from_text",
        format_func=lambda t: f"{show(t)} · {uses_in_text[t]:,}×",
        on_change=on_pick, args=("forest_from_text", "text"),
        placeholder=f"{len(text_uses):,} different tokens in the text",
    )
    search = st.text_input("…or search the vocabulary", key="forest_search",
                           placeholder="text or id, then pick a row", persist_state="session")
    order = st.radio("Order", fo.VOCAB_ORDERS, key="forest_vocab_order", horizontal=True,
                     label_visibility="collapsed", persist_state="session")
    ordered = vocabulary_fact(f"vocabulary {order}", tok, lambda: fo.vocab_order(tok, order))
    rows, matched = fo.vocab_rows(tok, search, order, MAX_VOCAB_ROWS, ordered=ordered)
    ss["_forest_vocab_ids"] = [r["id"] for r in rows]
    st.dataframe(
        vocab_frame(rows),
        key="forest_vocab", on_select=on_table, selection_mode="single-row", hide_index=True,
        height=300,
    )
    if matched > len(rows):
        st.caption(f"{matched:,} tokens match; the first {len(rows):,} are listed: search to "
                   "narrow them down.")

with tree_col:
    chains_col, depth_col = st.columns(2)
    with chains_col:
        ss.setdefault("forest_chains", True)
        chains = st.toggle("Collapse chains", key="forest_chains", persist_state="session",
                           help="In both charts, a long run of merges that each add a small "
                                "piece (a character onto a long word) is drawn as one purple "
                                "node.")
    with depth_col:
        levels_drawn = st.number_input(
            "Levels drawn", 1, fo.MAX_CHART_NODES, value=None, key="forest_depth",
            placeholder="as many as fit", persist_state="session",
            help="Empty: as many levels as fit the screen. A number draws that many (up to "
                 f"{fo.MAX_CHART_NODES:,} nodes); the nodes at the cut are orange.",
        )
    tree = fo.token_tree(tok, chosen_id, runs=chains, levels=levels_drawn)
    nodes = node_frame(tok, tree.nodes)
    st.altair_chart(
        tree_chart(nodes, edge_frame(tok, tree.nodes), svg=True, large=projector_mode(),
                   title=f"{fo.token_text(vocab[chosen_id], 40)} (id {chosen_id})"),
        key="forest_tree_chart", on_select=lambda: on_chart("forest_tree_chart"),
        selection_mode="pick", width="content",  # its width comes from its labels
    )
    st.caption(fo.describe_tree(tok, chosen_id, tree))

# -- the forest of the text ------------------------------------------------------------------------

st.header("Forest of the text")
num = tok.num_merges
# One step for the session: the step-through page's slider ("step") and this one follow each
# other, so the forest at k is the text at k over there.
if ss.get("_forest_step_for") != id(tok):  # another tokenizer: start from the whole forest
    first_visit = "_forest_step_for" not in ss
    ss["_forest_step_for"] = id(tok)
    ss["forest_step"] = num
    if first_visit:  # all merges, or the step of the link the session came from; the step
        # page's own starting step is not a reason to start there, a move made there later is
        link_step = ss.get(LINK_STEP)
        if isinstance(link_step, int):
            ss["forest_step"] = link_step
        ss["_forest_outside_step"] = ss.get("step")
outside = ss.get("step")
if isinstance(outside, int) and outside != ss.get("_forest_outside_step"):
    ss["_forest_outside_step"] = outside
    ss["forest_step"] = outside
ss["forest_step"] = min(max(int(ss.get("forest_step", num)), 0), num)


def on_step() -> None:
    ss["step"] = ss["_forest_outside_step"] = ss["forest_step"]


step_col, n_col, level_col = st.columns([3, 1, 1])
with step_col:
    if num:
        k = st.slider("Merges applied", 0, num, key="forest_step", on_change=on_step,
                      persist_state="session",
                      help="At step k the forest has only the first k merges (the same k as "
                      "on the *Step through merges* page).")
    else:
        k = 0
        st.caption("This tokenizer has no merges: every token is a byte.")
with n_col:
    ss.setdefault("forest_n", 30)
    n = st.number_input("Trees", 1, fo.MAX_TREES, key="forest_n", persist_state="session",
                        help="The trees of this many most used tokens")
with level_col:
    levels = st.radio("Height", ["depth", "step"], key="forest_levels", horizontal=True,
                      persist_state="session",
                      help="depth: roots on top; step: each node at the merge step that made it")

at_k = fo.most_used(steps.token_ids_at(k))
forest = fo.forest_layout(tok, [t for t, _ in at_k[:n]], runs=chains)
if forest.nodes:
    uses = dict(at_k)
    fnodes = node_frame(tok, forest.nodes, levels=levels, uses=uses)
    st.altair_chart(
        tree_chart(fnodes, edge_frame(tok, forest.nodes, levels=levels), levels=levels,
                   sublabels=False, large=projector_mode()),
        key="forest_chart", on_select=lambda: on_chart("forest_chart"), selection_mode="pick",
        width="content",
    )
    st.caption(fo.describe_forest(forest, len(at_k), k))
else:
    st.info("The text has no tokens: paste some text in the sidebar.")

# -- word trace ------------------------------------------------------------------------------------

st.header("Word trace")
st.write(
    "How the encoder, not the trainer, walks the forest: it starts from the word's bytes and "
    "applies the merge of lowest rank (the earliest learned) wherever it can, again and again."
)
ss.setdefault("forest_word", fo.longest_word(steps.text))
word = st.text_input("Word", key="forest_word", max_chars=fo.MAX_WORD_CHARS,
                     persist_state="session")
if word:
    try:
        trace = fo.word_trace(tok, word)
    except ValueError as e:
        st.error(str(e))
    else:
        st.markdown(fo.describe_trace(tok, trace))
        st.dataframe(word_trace_frame(tok, trace), key="forest_trace", hide_index=True)
