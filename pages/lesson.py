"""Lesson: the seeds' path from text to tokens in eight steps, live on the sidebar's text, and
a quiz that asks the class to predict the next merge."""


import streamlit as st

from bpe_core import PRESETS
from ui.kit.charts import Series, steps_chart
from ui.kit.escape import code_span
from ui.kit.families import FAMILY_LABELS
from ui.kit.family_tokens import family_pieces
from ui.kit.special_rule import encode_by_rule
from ui.kit.state import (
    active_tokenizer,
    allowed_special,
    current_text,
    derived,
    preset,
    projector_mode,
    rule_caption,
    tokenizer_label,
)
from ui.kit.tables import table_html
from ui.kit.tokens_html import pair_label, tokens_html
from ui.lesson import families as lf
from ui.lesson import tutorial as le
from ui.quiz.panel import quiz
from ui.sidebar.panel import sidebar

sidebar()
ss = st.session_state
large = projector_mode()
if large:  # bigger tables and code; token colours that survive colour-vision deficiencies
    st.html(le.projector_palette_css() + le.LARGE_CSS)


def draw_tokens(items, caption: str | None = None, name: str = "Tokens") -> None:
    body, _ = tokens_html(items, large=large, whitespace=True, name=name)
    st.html(body)
    if caption:
        st.caption(caption)


def show_table(frame, key: str, *, large_rows: int = 12, tail: bool = False) -> None:
    """A dataframe; in projector mode a large HTML table of its first (or last) rows instead."""
    if not large:
        st.dataframe(frame, hide_index=True, key=key)
        return
    part = frame.tail(large_rows) if tail else frame.head(large_rows)
    st.html(table_html(part, large=True))
    if len(part) < len(frame):
        st.caption(f"The {'last' if tail else 'first'} {len(part)} of {len(frame):,} rows "
                   "(projector mode).")


def need_text(text: str) -> bool:
    if text:
        return True
    st.info("The text is empty: pick a sample or paste some text in the sidebar.")
    return False


def lesson_tokenizer(text: str):
    return derived("lesson tokenizer", None, text, lambda: le.train_lesson(text), by_rule=False)


# -- the eight steps ------------------------------------------------------------------------------


def step_bytes(text: str) -> None:
    if not need_text(text):
        return
    s = le.byte_summary(text)
    cols = st.columns(4)
    cols[0].metric("Characters (code points)", f"{s.characters:,}")
    cols[1].metric("UTF-8 bytes", f"{s.bytes:,}")
    cols[2].metric("Bytes per character", f"{s.bytes / s.characters:.2f}")
    cols[3].metric("Highest code point", f"U+{ord(s.highest):04X}")
    st.caption("Characters that take 1 / 2 / 3 / 4 bytes: "
               + " / ".join(f"{s.by_length[n]:,}" for n in (1, 2, 3, 4)))
    left, right = st.columns(2)
    with left:
        st.markdown(f"**The first {min(len(text), le.CHAR_ROWS)} characters**")
        show_table(le.char_rows(text), "lesson_chars")
    with right:
        st.markdown("**Characters that take 2 to 4 bytes**")
        if s.bytes == s.characters:
            st.info("Every character of this text is ASCII: one byte each. Pick the multilingual "
                    "sample to see characters of 2, 3 and 4 bytes.")
        else:
            show_table(le.multibyte_rows(text), "lesson_multibyte")


def step_pairs(text: str) -> None:
    if not need_text(text):
        return
    ids = list(text.encode("utf-8"))
    pairs = le.top_pairs(ids)
    if not pairs:
        st.info("A single byte has no neighbour: there is no pair to count.")
        return
    cols = st.columns(3)
    cols[0].metric("Bytes", f"{len(ids):,}")
    cols[1].metric("Pairs of neighbours", f"{len(ids) - 1:,}")
    cols[2].metric("Different pairs", f"{len(le.get_stats(ids)):,}")
    vocab = {i: bytes([i]) for i in range(256)}
    st.altair_chart(le.pairs_chart(le.pairs_frame(pairs, vocab), large=large),
                    key="lesson_pairs_chart", width="stretch")
    st.caption("The most frequent pairs (· is a space, ↵ a line break, <c3> a byte that is only "
               "part of a character).")


def step_hand_merge(text: str) -> None:
    if not need_text(text):
        return
    ids = list(text.encode("utf-8"))
    pairs = le.top_pairs(ids, le.HAND_PAIRS)
    if not pairs:
        st.info("A single byte has no neighbour: there is no pair to merge.")
        return
    vocab = {i: bytes([i]) for i in range(256)}
    labels = {f"{pair_label(vocab, p.pair)}  ({p.pair[0]}, {p.pair[1]}) · {p.count:,} times":
              p.pair for p in pairs}
    if ss.get("lesson_pair") not in labels:
        ss["lesson_pair"] = next(iter(labels))
    choice = st.selectbox("Pair to merge into the new token 256", list(labels), key="lesson_pair")
    done = le.hand_merge(ids, labels[choice])
    vocab[256] = vocab[done.pair[0]] + vocab[done.pair[1]]
    cols = st.columns(3)
    cols[0].metric("Length before", f"{len(done.before):,}")
    cols[1].metric("Length after", f"{len(done.after):,}", delta=f"-{done.replaced:,}",
                   delta_color="inverse")
    cols[2].metric("Replacements", f"{done.replaced:,}")
    n_before = le.first_tokens(done.before, vocab, le.SHOWN_TOKENS)
    n_after = le.first_tokens(done.after, vocab, le.SHOWN_TOKENS)
    left, right = st.columns(2)
    with left:
        st.markdown("**Before**: one token per byte")
        draw_tokens(le.pieces(done.before[:n_before], vocab), name="Tokens before the merge")
        st.code(", ".join(map(str, done.before[:n_before])), language=None, wrap_lines=True)
    with right:
        st.markdown("**After**: 256 outlined")
        draw_tokens(le.pieces(done.after[:n_after], vocab, new_id=256),
                    name="Tokens after the merge")
        st.code(", ".join(map(str, done.after[:n_after])), language=None, wrap_lines=True)
    st.caption(f"The start of the text ({le.SHOWN_TOKENS} bytes); the lengths are for all of it.")


def step_training(text: str) -> None:
    if not need_text(text):
        return
    tok = lesson_tokenizer(text)
    k = st.slider("Merges", 0, le.LESSON_MERGES, le.START_MERGES, key="lesson_merges", persist_state="session",
                  help="How many rounds of count-and-merge to run.")
    n = tok.num_merges
    if k > n:
        st.info(f"Training stopped after {n} merges: {tok.stop_reason}.")
        k = n
    steps = derived("lesson steps", tok, text, lambda: tok.step_through(text))
    frame = le.ratio_frame(steps.token_counts(), steps.num_bytes)
    ratio = frame["ratio"][k]
    cols = st.columns(4)
    cols[0].metric("Merges", f"{k}")
    cols[1].metric("Vocabulary", f"{256 + k:,}")
    tokens = int(frame["tokens"][k])
    cols[2].metric("Tokens", f"{tokens:,}", delta=f"{tokens - steps.num_bytes:,}" if k else None,
                   delta_color="inverse")
    cols[3].metric("Compression ratio", "–" if ratio is None else f"{ratio:.2f}×")
    chart = steps_chart([Series("the lesson's text", steps.token_counts(), steps.num_bytes)], k,
                        metric="compression ratio", large=large)
    st.altair_chart(chart, key="lesson_ratio_chart", width="stretch")
    left, right = st.columns([2, 3])
    with left:
        st.markdown(f"**The first {k} merges**")
        show_table(le.first_merges_frame(tok, k), "lesson_merges_table", tail=True)
    with right:
        spans = steps.tokens_at(k)
        shown = le.first_tokens([t.id for t in spans], tok.vocab, le.SHOWN_BYTES)
        st.markdown(f"**The text after {k} merges** (outlined: made by merge {k})" if k
                    else "**The text before any merge**: one token per byte")
        draw_tokens(spans[:shown], f"The first {shown:,} of {len(spans):,} tokens."
                    if shown < len(spans) else None)


def step_decode(text: str) -> None:
    tok = lesson_tokenizer(text)
    ids, how = le.broken_ids(text)
    st.markdown(f"**A broken sequence from your text**: {how}.")  # how: text in code spans
    result = le.decode_both(tok, ids)
    show_decoded(result)
    st.markdown("**Try your own ids** (0–255 are the bytes themselves; the lesson's tokenizer "
                f"from step 4 knows ids up to {max(tok.vocab)}).")
    raw = st.text_input("Ids, separated by commas", "72, 105, 33, 32, 240, 159, 152",
                        key="lesson_ids", max_chars=2000, persist_state="session")
    try:
        show_decoded(le.decode_both(tok, le.parse_ids(raw)))
    except ValueError as e:
        st.error(str(e))


def show_decoded(result) -> None:
    st.code(", ".join(map(str, result.ids)) or "(no ids)", language=None, wrap_lines=True)
    left, right = st.columns(2)
    with left:
        st.markdown("`decode(…, errors=\"strict\")`")
        if result.error:  # the point of the step, not a problem of the page: no st.error
            st.warning(f"UnicodeDecodeError: {result.error}", icon="💥")
        else:
            st.code(repr(result.strict), language=None, wrap_lines=True)
    with right:
        st.markdown("`decode(…, errors=\"replace\")`")
        st.code(repr(result.replaced), language=None, wrap_lines=True)


def step_encode(text: str) -> None:
    tok = active_tokenizer()
    if tok is None:
        tok = lesson_tokenizer(text)
        st.caption("No tokenizer in the sidebar yet: using the lesson's tokenizer from step 4.")
    else:
        st.caption(f"Tokenizer: the sidebar's, {code_span(tokenizer_label())} "
                   f"({tok.num_merges:,} merges).")
    if "lesson_word" not in ss:
        try:
            ss["lesson_word"] = le.default_word(text, tok)
        except ValueError:  # a custom split pattern that times out: pick without the tokenizer
            ss["lesson_word"] = le.default_word(text)
    st.text_input("Word to encode", key="lesson_word", max_chars=le.MAX_WORD,
                  persist_state="session")
    word = ss.get("lesson_word") or ""
    if not word:
        st.info("Type a word.")
        return
    try:
        traces = le.trace_encode(tok, word)
    except ValueError as e:
        st.error(str(e))
        return
    if len(traces) > 1:
        st.markdown("The split pattern cuts it into **" + str(len(traces)) + " chunks** first.")
    st.html(table_html(le.trace_frame(tok, traces), large=large))
    final = [i for t in traces for i in t.final]
    draw_tokens(le.pieces(final, tok.vocab))
    same = final == tok.encode_ordinary(word)
    merges = sum(len(t.steps) for t in traces)
    st.caption(f"{len(word.encode('utf-8', 'replace'))} bytes → {merges} merge"
               f"{'' if merges == 1 else 's'} → {len(final)} token{'' if len(final) == 1 else 's'}: "
               f"{', '.join(map(str, final))}."
               + (" The same ids as `encode`." if same else " (encode gives other ids!)")
               + " In running text a word usually comes with the space before it: try that too.")


def step_split(text: str) -> None:
    if not need_text(text):
        return
    try:
        chunks = derived("lesson split", None, text, lambda: le.split_both(text))
    except ValueError as e:
        st.error(str(e))
        return
    a, b = chunks["GPT-2"], chunks["GPT-4"]
    diffs = le.split_differences(a, b)
    cols = st.columns(3)
    cols[0].metric("GPT-2 chunks", f"{len(a):,}")
    cols[1].metric("GPT-4 chunks", f"{len(b):,}")
    cols[2].metric("Places cut differently", f"{len(diffs):,}")
    left, right = st.columns(2)
    for col, name, mine, other in ((left, "GPT-2", a, b), (right, "GPT-4", b, a)):
        with col:
            st.markdown(f"**{name} pattern**")
            st.html(le.marked_chunks_html(mine, le.differing(mine, other), large=large,
                                          name=f"Chunks by the {name} pattern"))
            if len(mine) > le.MAX_CHUNKS:
                st.caption(f"The first {le.MAX_CHUNKS} of {len(mine):,} chunks.")
    if diffs:
        st.markdown("**Where they differ**")
        show_table(le.diffs_frame(diffs), "lesson_diffs")
        if len(diffs) > le.MAX_DIFFS:
            st.caption(f"The first {le.MAX_DIFFS} of {len(diffs):,} places.")
    else:
        st.info("Both patterns cut this text the same way. Try the sample with numbers, "
                "contractions and whitespace.")


def step_real(text: str) -> None:
    if not need_text(text):
        return
    lesson_tok = lesson_tokenizer(text)
    tokenizers = {f"Lesson (step 4, {lesson_tok.num_merges} merges)": lesson_tok}
    mine = active_tokenizer()
    if mine is not None and mine.name not in PRESETS:
        tokenizers[f"Yours: {tokenizer_label()}"] = mine
    for name, p in PRESETS.items():
        tokenizers[p["title"]] = preset(name)
    allowed = allowed_special()  # the sidebar's rule for special-token text
    try:
        counts = derived(("lesson counts", tuple(tokenizers)), tuple(tokenizers.values()), text,
                         lambda: le.count_tokens(tokenizers, text, allowed))
    except ValueError as e:  # a custom split pattern can time out on a text it was not trained on
        st.error(str(e))
        return
    left, right = st.columns([3, 2])
    with left:
        st.html(table_html(le.counts_frame(counts), large=large))
        st.caption("Token counts with "
                   f"{rule_caption(text, *tokenizers.values(), labels=list(tokenizers))}.")
    with right:
        st.altair_chart(le.counts_chart(counts, large=large), key="lesson_counts_chart",
                        width="stretch")
    if ss.get("lesson_real") not in tokenizers:
        ss["lesson_real"] = PRESETS["cl100k_base"]["title"]
    which = st.selectbox("Show the tokens of", list(tokenizers), key="lesson_real",
                         persist_state="session")
    tok = tokenizers[which]
    try:
        ids = encode_by_rule(tok, text, allowed)
    except ValueError as e:
        st.error(str(e))
        return
    shown = le.first_tokens(ids, tok.vocab, le.SHOWN_BYTES)
    draw_tokens(le.pieces(ids[:shown], tok.vocab),
                f"The first {shown:,} of {len(ids):,} tokens." if shown < len(ids) else None)


def step_families(text: str) -> None:
    if not need_text(text):
        return
    try:
        toks = derived("lesson families", None, text, lambda: lf.train_three(text),
                       by_rule=False)
    except ValueError as e:  # a text a family's trainer cannot learn from, said by the trainer
        st.error(str(e))
        return
    for probe in lf.probes(text):
        st.markdown(f"**{probe.label}**: {code_span(probe.text)}")
        for col, (family, tok) in zip(st.columns(len(toks)), toks.items(), strict=True):
            with col:
                items = family_pieces(tok, probe.text)
                st.markdown(f"*{FAMILY_LABELS[family]}*")
                draw_tokens(items, lf.what_it_sees(family, probe, items),
                            name=lf.probe_view_name(family, probe))


STEP_VIEWS = (step_bytes, step_pairs, step_hand_merge, step_training, step_decode, step_encode,
              step_split, step_real, step_families)


def _move(delta: int) -> None:
    i = le.STEPS.index(ss.get("lesson_step", le.STEPS[0]))
    ss["lesson_step"] = le.STEPS[min(max(i + delta, 0), len(le.STEPS) - 1)]


def guided_lesson(text: str) -> None:
    step = st.radio("Step", le.STEPS, key="lesson_step", horizontal=True,
                    persist_state="session", label_visibility="collapsed")
    i = le.STEPS.index(step)
    st.header(step)
    st.markdown(le.EXPLAIN[i])
    STEP_VIEWS[i](text)
    page, label, icon = le.FULL_PAGE[i]
    st.page_link(page, label=f"Explore further: {label}", icon=icon)
    prev, _, nxt = st.columns([2, 3, 2])
    prev.button("◀ Previous step", key="lesson_prev", on_click=_move, args=(-1,),
                disabled=i == 0, width="stretch")
    nxt.button("Next step ▶", key="lesson_next", on_click=_move, args=(1,),
               disabled=i == len(le.STEPS) - 1, width="stretch")


# -- the page ------------------------------------------------------------------------------------

st.title("Lesson: BPE step by step")
text, note = le.lesson_text(current_text())
st.caption(
    "Every step runs on the text in the sidebar. "
    + (note or f"The lesson works on at most the first {le.LESSON_CHARS:,} characters.")
)
mode = st.radio("Mode", ["Guided lesson", "Predict the next merge"], key="lesson_mode",
                horizontal=True, persist_state="session")
if mode == "Guided lesson":
    guided_lesson(text)
else:
    quiz(large=large)
