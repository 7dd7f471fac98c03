"""Start here: type, and see the tokens of your tokenizer and GPT-4o side by side as you type; the
merges one at a time on the same text; the ways on; what training made (merges, ids) below.

Everything that follows the typed text lives in one fragment (``as_you_type``). The box draws both
token views at every key from its route (ui/front/component.py, ui/front/route.py); the fragment reruns only
when the user pauses or leaves the box.
"""

import streamlit as st

from ui.front.component import (
    DEBOUNCE_MS,
    MAX_FRONT_CHARS,
    PATIENCE_MS,
    REFERENCE_VIEW,
    SETTLE_MS,
    seed_text,
    views_data,
)
from ui.front.panel import type_box
from ui.front.route import TOKENS_PATH
from ui.kit.choices import MAX_TEXT_CHARS
from ui.kit.projector import explain
from ui.kit.state import (
    current_text,
    preset,
    projector_mode,
    require_tokenizer,
    route_key,
    route_text,
    rule_caption,
    special_rule,
    step_through,
    tokenizer_label,
)
from ui.kit.tables import merges_frame
from ui.kit.tokens_html import bytes_hint
from ui.sidebar.panel import sidebar
from ui.stepping.component import steps_payload
from ui.stepping.merges import window
from ui.stepping.panel import steps_component

MAX_IDS_SHOWN = 5000
WAYS_ON = [
    ("pages/lesson.py", "Lesson: BPE step by step", "🎓",
     "How BPE works, in eight live steps on your text, and a quiz."),
    ("pages/steps.py", "Step through merges", "👣",
     "Every merge in order: which pair it joined, and why that pair won."),
    ("pages/check.py", "Check your BPE", "🩺",
     "Your own implementation's merges against the reference, with the first difference."),
]
REFERENCE = "o200k_base"  # GPT-4o, loaded once per server (ui.kit.state.preset)

sidebar()
ss = st.session_state


def _typed() -> None:
    state = ss.get("front_box") or {}
    told = state.get("text") if hasattr(state, "get") else getattr(state, "text", None)
    if isinstance(told, dict) and isinstance(told.get("text"), str):
        seq = told.get("seq")
        if isinstance(seq, int) and seq > ss.get("_front_seq", -1):
            ss["front_text"], ss["_front_seq"] = told["text"][:MAX_FRONT_CHARS], seq


def _stepped() -> None:
    state = ss.get("front_steps") or {}
    k = state.get("step") if hasattr(state, "get") else getattr(state, "step", None)
    if isinstance(k, int):
        ss["front_step"] = k


st.title("Start here")
explain(
    "A tokenizer cuts text into **tokens**, the pieces a language model reads. Type below and "
    "watch the sidebar's tokenizer cut your text, beside GPT-4o's. Each colour is one token; "
    "hover one for its id and bytes."
)

tok = require_tokenizer()
sidebar_text = current_text()
# the box starts from the sidebar's text, and starts again when that text changes
seed = seed_text(sidebar_text)
if ss.get("_front_seed_of") != seed:
    ss["_front_seed_of"] = seed
    ss["_front_seed"] = ss.get("_front_seed", 0) + 1
    ss["front_text"] = seed
ss.setdefault("front_text", seed)


def as_you_type(tok) -> None:
    """The box with both token views, the hint and the merge slider. The views follow every key
    through the box's route (ui/front/route.py); this reruns alone when the user pauses."""
    gpt = preset(REFERENCE)
    key = route_key(tok, gpt)
    heard = route_text(key, ss["_front_seed"])  # the box asks the route at every key: newest
    if heard is not None and heard[0] > ss.get("_front_seq", -1):
        ss["_front_seq"], ss["front_text"] = heard
    text = ss["front_text"]
    try:  # the session's one step-through of the text (shared with Tokens, Step through...)
        steps = step_through(tok, text)
        mine = steps.final
    except ValueError as e:  # a custom split pattern can time out: the page and the view say so
        steps, mine = None, e
        st.error(str(e))
    # GPT-4o's ids of the same text, shared with Compare's (the box starts from the sidebar's text)
    rule = special_rule()  # the sidebar's rule for special-token text, also the route's
    views = views_data(tok, gpt, text, mine, step_through(gpt, text).final, rule)
    heads = {"yours": f"Yours · {tokenizer_label(plain=True)}",
             REFERENCE_VIEW: f"GPT-4o · {REFERENCE}, vocabulary {gpt.vocab_size:,}"}
    type_box()(data={"text": text, "seed": ss["_front_seed"], "max": MAX_FRONT_CHARS,
                     "sidebarMax": MAX_TEXT_CHARS,
                     "settle": SETTLE_MS, "debounce": DEBOUNCE_MS, "patience": PATIENCE_MS,
                     "views": views, "heads": heads, "large": projector_mode(),
                     "url": TOKENS_PATH, "key": key, "seq": ss.get("_front_seq", -1),
                     "pair": f"{id(tok)}.{id(gpt)}.{rule}"},
               key="front_box", on_text_change=_typed)
    if steps is None:
        return
    n = tok.num_merges
    num_bytes = steps.num_bytes
    hint = bytes_hint([t.token for t in steps.tokens_at(n)], text, n)
    if hint:
        st.info(hint)
    st.header("Where next")
    for col, (page, label, icon, what) in zip(st.columns(3), WAYS_ON, strict=True):
        col.page_link(page, label=label, icon=icon)
        col.caption(what)
    if n == 0:
        return
    st.header(f"Merges ({n:,})")
    st.caption("Watch your tokenizer merge: the same text after only the first **k** merges (at "
               "k = 0 every byte is a token). Drag the slider, step, or press Play.")
    view, _, _ = window(steps)
    k = min(max(ss.get("front_step", n), 0), n)
    # not moved by a classroom's watcher: its step would rerun this fragment unasked (the room's
    # step is followed on Step through)
    data = dict(steps_payload(view, steps.token_counts(), num_bytes), step=k, follow=False)
    steps_component()(data=data, key="front_steps", on_step_change=_stepped)


st.fragment(as_you_type)(tok)

with st.expander("What training made: the merges and the sidebar text's token ids"):
    try:  # the session keeps the encoding (shared with the Tokens page): a rerun does not redo it
        ids = step_through(tok, sidebar_text).final  # tok.encode under the sidebar's rule
    except ValueError as e:  # a custom split pattern can time out on a text it was not made for
        st.error(str(e))
        st.stop()
    n_bytes = len(sidebar_text.encode("utf-8", "replace"))
    per = f"{n_bytes / len(ids):.2f} bytes per token" if ids else "no tokens"
    st.caption(f"Tokenizer: {tokenizer_label()}. The sidebar's text: {n_bytes:,} "
               f"byte{'s' if n_bytes != 1 else ''}, {len(ids):,} token{'s' if len(ids) != 1 else ''}, "
               f"{per}; {rule_caption(sidebar_text, tok)}.")
    if getattr(tok, "stop_reason", None):
        st.info(f"Training stopped early: {tok.stop_reason}. The text has no more pairs to merge.")
    merges_col, ids_col = st.columns(2)
    with merges_col:
        st.markdown(f"**The table of merges ({tok.num_merges:,})**")
        st.dataframe(merges_frame(tok), hide_index=True, height=420, key="merges_table")
    with ids_col:
        st.markdown("**Token ids**")
        shown = ids[:MAX_IDS_SHOWN]
        # the box that scrolls is a container, which takes the keyboard's focus (a code block
        # of a fixed height scrolls in a <pre> that does not: axe's scrollable-region-focusable)
        with st.container(height=420, key="overview_ids_box"):
            st.code(", ".join(map(str, shown)), language=None, wrap_lines=True)
        if len(ids) > len(shown):
            st.caption(f"Showing the first {len(shown):,} of {len(ids):,} ids.")
