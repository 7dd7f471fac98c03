"""Step through the merges: the text after only k merges, the merge made at k, and why it won.

Everything that depends on the step lives in one fragment, so a slider move, a button click or a
tick of Play reruns only that part. Play gives the fragment a ``run_every`` timer; the timer goes
away with a full rerun (pausing, or reaching the last merge).
"""


import streamlit as st

from ui.classroom.panel import publish
from ui.kit.charts import Series, sized_spec, steps_alt, steps_spec
from ui.kit.families import FAMILIES
from ui.kit.family_panel import steps_view
from ui.kit.projector import explain
from ui.kit.state import (
    chart_template,
    current_text,
    derived,
    draws_pieces,
    projector_mode,
    require_tokenizer,
    rule_caption,
    samples,
    step_counts,
    step_through,
    tokenizer_label,
    trained_text,
    vocabulary_fact,
)
from ui.kit.tokens_html import bytes_hint, summarise, tokens_html
from ui.quiz.panel import quiz
from ui.sidebar.panel import keep_step, sidebar
from ui.stepping import merges as sv
from ui.stepping.panel import stepping_data, steps_component

sidebar()
ss = st.session_state


def _set_step(value: int) -> None:
    ss["step"] = sv.clamp_step(value, ss.get("_stepspage_n", 0))
    publish()  # a teacher's room follows (a step changed in a fragment is no full run)


def _on_play() -> None:
    """Pressing Play at the last merge starts again from step 0."""
    if ss.get("step_play") and ss.get("step", 0) >= ss.get("_stepspage_n", 0):
        ss["step"] = 0


def _jump_to_row() -> None:
    """A row picked in the merge table: go to that merge."""
    rows = ss["merge_table"]["selection"]["rows"]
    steps = ss.get("_stepspage_table_steps", [])
    if rows and rows[0] < len(steps):
        _set_step(steps[rows[0]])


st.title("Step through merges")
if draws_pieces():  # SentencePiece, word BPE, an imported file of their kind
    family_tok = require_tokenizer(FAMILIES)
    st.write("Training made its merges one at a time. Move the slider to see the text's pieces "
             "with only the first **k** merges (k = 0: every character is a piece).")
    steps_view(family_tok, current_text())
    st.stop()
explain(
    "Training made its merges one at a time. Move the slider to see the text tokenized with only "
    "the first **k** merges (k = 0: every byte is a token), which pair merge k joined, and why "
    "that pair won."
)
large = projector_mode()  # the view first on a projector's screen; what it says under it

tok = require_tokenizer()
text = current_text()
training = trained_text()
n = tok.num_merges
ss["_stepspage_n"] = n
if ss.pop("_stepspage_stop_play", False):
    ss["step_play"] = False
ss["step"] = sv.clamp_step(ss.get("step", min(1, n)), n)  # the tokenizer may have changed
publish()  # a classroom room shows the step this page starts at
if st.toggle("Quiz: predict the next merge", key="step_quiz",
             help="The class guesses which pair the next merge joins, then reveals it."):
    quiz(large=projector_mode(), start=min(ss["step"], max(n - 1, 0)))
    st.stop()
ss.setdefault("step_speed", sv.DEFAULT_SPEED)
ss.setdefault("step_metric", sv.CHART_CHOICES[0])
if ss.get("step_heldout") not in samples():
    ss["step_heldout"] = sv.default_heldout(samples(), [training or text])

about = f"Tokenizer: {tokenizer_label()} · {n:,} merges · {rule_caption(text, tok)}"
if not large:
    st.caption(about)
try:  # the summary the Tokens page keeps too: the text's tokens after all merges
    final = derived("tokens summary", tok, text, lambda: summarise(step_through(tok, text)))
except ValueError:  # a custom split pattern can time out: the step view below says so
    final = None
hint = final and bytes_hint([t.token for t in final.shown], text, n)
if hint and not large:
    st.info(hint)
if n == 0:
    st.info("This tokenizer has no merges: raise the vocabulary size above 256 and train.")
    st.stop()

instant = st.toggle("Instant stepping in the browser", key="step_instant", value=True,
                    persist_state="session",
                    help="The slider, Play and the tokens run in your browser; the server hears the "
                         "step when you stop. Off: every step is a round trip to the server.")
playing, interval, stride = False, None, 1
if not instant:
    play_col, speed_col = st.columns([1, 3], vertical_alignment="bottom")
    playing = play_col.toggle(":material/play_arrow: Play", key="step_play", on_change=_on_play,
                              help="Step forward on its own until the last merge.")
    speed_col.select_slider("Speed", options=list(sv.SPEEDS), key="step_speed",
                            persist_state="session")
    interval, stride = sv.SPEEDS[ss["step_speed"]]


def step_view(tok, text: str, n: int, training: str | None) -> None:
    """Everything that changes with the step; reruns on its own while playing."""
    try:
        _step_view(tok, text, n, training)
    except ValueError as e:  # a custom split pattern can time out on a text it was not trained on
        st.error(str(e))


def _from_browser() -> None:
    """The in-browser view moved (it tells at most every 250 ms while moving, and its last
    step): ``{"k": step, "seq": the number of its move}``. The number goes back with the next
    data, so that the view knows which of its moves the rerun has heard (ui/stepping/component.py)."""
    state = ss.get("step_component") or {}
    told = state.get("step") if hasattr(state, "get") else getattr(state, "step", None)
    k, seq = (told.get("k"), told.get("seq")) if isinstance(told, dict) else (told, None)
    if isinstance(k, int) and not isinstance(k, bool):
        if isinstance(seq, int) and not isinstance(seq, bool):
            if seq < ss.get("_step_seq", 0):
                return  # an older move arriving late: the view is past it
            ss["_step_seq"] = seq
        base = told.get("from") if isinstance(told, dict) else None
        if isinstance(base, int) and not isinstance(base, bool):
            ss["_step_from"] = base  # the step the move was made from (a classroom's publish)
        _set_step(k)


def _step_view(tok, text: str, n: int, training: str | None) -> None:
    k = sv.clamp_step(ss.get("step", 0), n)
    if ss.get("step_play") and not ss.get("step_instant", True):
        k = min(k + stride, n)
        if k >= n:  # the last merge: stop the timer with a full rerun
            ss["step"] = n
            ss["_stepspage_stop_play"] = True
            st.rerun()
    ss["step"] = k
    keep_step(k)  # a reload comes back at this step
    counts, num_bytes = step_counts(tok, text)
    back, ahead = sv.prev_change(counts, k), sv.next_change(counts, k)

    if instant:
        data = dict(stepping_data(tok, text), step=k, seq=ss.get("_step_seq", 0))
        steps_component()(data=data, key="step_component", on_step_change=_from_browser)
    else:
        _server_controls(k, n, back, ahead)
    _step_details(tok, text, n, training, k, counts, num_bytes)


def _server_controls(k: int, n: int, back: int | None, ahead: int | None) -> None:
    """The slider and buttons of the server path: every move is a run of the fragment."""
    cols = st.columns([1, 1, 10, 1, 1], vertical_alignment="bottom")
    cols[0].button(":material/skip_previous:", key="step_prev_change", on_click=_set_step,
                   args=(back or 0,), help="The previous merge that changed this text")
    cols[1].button(":material/chevron_left:", key="step_prev", on_click=_set_step,
                   args=(k - 1,), help="Previous merge")
    cols[2].slider("Merges applied (k)", min_value=0, max_value=n, key="step",
                   persist_state="session")
    cols[3].button(":material/chevron_right:", key="step_next", on_click=_set_step,
                   args=(k + 1,), help="Next merge")
    cols[4].button(":material/skip_next:", key="step_next_change", on_click=_set_step,
                   args=(ahead or n,), help="The next merge that changes this text")


def _step_details(tok, text: str, n: int, training: str | None, k: int, counts, num_bytes: int):
    """The step's metrics, its merge and why, the chart; and (server path) the tokens."""

    made = sv.made_at(counts, k)
    ratio = sv.compression_ratio(num_bytes, counts[k])
    m = st.columns(4)
    m[0].metric("Step", f"{k:,} of {n:,}")
    m[1].metric("Tokens", f"{counts[k]:,}", delta=-made or None, delta_color="inverse",
                help="Tokens in the text after the first k merges.")
    m[2].metric("Compression ratio", "–" if ratio is None else f"{ratio:.2f}×",
                help=f"Bytes per token: {num_bytes:,} bytes ÷ {counts[k]:,} tokens.")
    m[3].metric("Made by this merge", f"{made:,}",
                help="How many tokens merge k made in this text (outlined below).")

    stage = sv.stage_at(tok, k)  # SuperBPE: which stage made merge k, and where two begins
    if stage is not None and stage.begins:
        st.info(stage.words, icon=":material/flag:")
    elif stage is not None:
        st.caption(stage.words)
    left, right = st.columns(2)
    with left:
        if k and not made:
            st.caption(f"Merge {k:,} does not occur in this text: "
                       ":material/skip_next: goes to the next merge that does.")
        try:
            ids = None if sv.has_history(tok) else derived("merge ids", tok, None, lambda: sv.merge_ids(tok))
            info = sv.merge_at(tok, k, ids) if k else None
        except ValueError as e:
            st.error(str(e))
            return
        st.html(sv.merge_html(info, n))
        if info is not None and info.count is None:
            st.caption(
                "Counts are not known for pretrained vocabularies: OpenAI published the merges "
                "in their order, not how often each pair occurred in training."
            )
        why = sv.why_this_merge(tok, k) if k else None
        if why is not None:
            st.markdown("**Why this merge**")
            st.dataframe(why.frame, hide_index=True, key="step_why", column_config={
                "first seen": st.column_config.NumberColumn(
                    help="Order of first occurrence in the training text (1 = earliest)")})
            st.markdown(why.rule)
        elif k and sv.has_history(tok):
            st.caption("Training did not keep the candidate pairs of this step.")
    with right:
        c1, c2 = (st.container(), st.container()) if large else st.columns(2)
        metric = c1.radio("Chart", sv.CHART_CHOICES, key="step_metric", horizontal=True,
                          persist_state="session")
        heldout = c2.selectbox("Held-out text", list(samples()), key="step_heldout",
                               persist_state="session",
                               help="A second text, one the merges were not learned from.")
        series = []
        if training is not None:
            name = "training text" + (" (shown below)" if training == text else "")
            series.append(Series(name, *step_counts(tok, training)))
        if training != text:
            series.append(Series("this text (shown below)", counts, num_bytes))
        heldout_text = samples()[heldout]
        if heldout_text in (training, text):
            st.caption("The held-out sample is the text above: pick another one.")
        else:
            series.append(Series(f"held-out: {heldout}", *step_counts(tok, heldout_text)))
        template = chart_template(tuple(s.name for s in series), metric.lower(),
                                  len(series[0].counts))
        st.vega_lite_chart(spec=sized_spec(steps_spec(series, k, metric=metric.lower(),
                                                      template=template), projector_mode()),
                           key="step_chart",
                           width="stretch",
                           alt=steps_alt(series, k, metric=metric.lower()))

    view, shown_bytes, shown_chars = sv.window(step_through(tok, text))
    if not instant:
        body, _ = tokens_html(view.tokens_at(k), step_of=tok.step_of, whitespace=True)
        st.markdown("**The text after k merges** (outlined: the tokens merge k just made)")
        st.html(body)
    if shown_bytes < num_bytes:
        st.caption(
            f"Showing the first {shown_chars:,} characters ({shown_bytes:,} of {num_bytes:,} "
            "bytes); the counts and the chart cover the whole text."
        )


st.fragment(step_view, run_every=interval if playing else None)(tok, text, n, training)
if large:  # under the view in projector mode
    st.caption(about)
    if hint:
        st.info(hint)

st.header("All merges")
query = st.text_input("Search merges", key="merge_search", placeholder="a token's text, or an id",
                      help="Finds tokens that contain the text (· stands for a space); a number "
                           "also finds that step or id.")
try:
    with st.spinner("Listing the merges…"):  # GPT-4o's 199,742 rows: about 3 s, once per server
        table = vocabulary_fact("merges table", tok, lambda: sv.merges_table(tok))
    shown, total = sv.search_merges(table, query)
except ValueError as e:
    st.error(str(e))
else:
    ss["_stepspage_table_steps"] = shown["step"].tolist()
    st.dataframe(shown, hide_index=True, key="merge_table", height=380 if len(shown) > 10 else "auto",
                 on_select=_jump_to_row, selection_mode="single-row")
    note = "Pick a row to go to that merge."
    if total > len(shown):
        note += f" Showing the first {len(shown):,} of {total:,} matches: search to narrow."
    elif query:
        note += f" {total:,} of {n:,} merges match."
    st.caption(note)
