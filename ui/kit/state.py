"""The shared sidebar and the session's state: the text, the tokenizer, training, and the one
cache of what a session derives from them.

Every page starts with ``sidebar()``, then asks here for the text (``current_text()``), the
tokenizer (``require_tokenizer()`` / ``active_tokenizer()``) and what follows from both
(``step_through``, ``step_counts``, ``derived`` for anything else, ``vocabulary_fact`` for facts
about a whole vocabulary). The user's trained tokenizer and everything derived from it live in
``st.session_state`` (never in a cache shared by sessions); the GPT presets, and facts about them,
are loaded once per server and shared read-only.
"""

from __future__ import annotations

import hashlib
import secrets
import threading
import weakref
from array import array
from collections import OrderedDict
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

import streamlit as st

import bpe_core
from bpe_core.limits import MAX_UPLOAD_MB
from bpe_lab.who_pays.languages import Language, load_parallel
from bpe_lab.who_pays.report import load_report_texts
from ui.classroom.panel import (
    Shared,
    arrive,
    publish,
    read_room_import,
    register_watcher,
    room_query,
    show_message,
)
from ui.classroom.sidebar import room_panel
from ui.kit import budget
from ui.kit.charts import steps_template
from ui.kit.choices import (
    DEFAULT_KIND,
    DEFAULT_VOCAB,
    KINDS,
    MAX_PASTE_CHARS,
    MAX_PATTERN_CHARS,
    MAX_TEXT_CHARS,
    MAX_TRAIN_CHARS,
    MAX_VOCAB,
    MIN_VOCAB,
    PASTE_CORPUS,
    Settings,
    cap_text,
    make_settings,
    query_from_settings,
    settings_from_query,
    text_problem,
    train_command,
    train_tokenizer,
)
from ui.kit.escape import md_escape
from ui.kit.samples import load_samples, sample_label
from ui.kit.session_keys import KEEP_PREFIX, KEPT
from ui.kit.session_keys import keep as _keep
from ui.kit.special_rule import (
    RULE_HELP,
    RULES,
    allowed_for,
    rule_note,
    rule_or_default,
    specials_of,
)

# Projector mode: larger token text and numbers, for the back row of a classroom. The custom
# components (the stepping view, the front page's box) sit in shadow roots that page CSS cannot
# reach; a CSS custom property inherits into them, and their own CSS scales by it.
# Every st.dataframe on every page is enlarged by the rule below, not by the pages: its grid
# draws text on a canvas with a font size fixed in pixels by the theme (no CSS font size or
# Streamlit option reaches it per session), so its box is zoomed, at a width that keeps it in
# its column. The grid reads the zoom when it maps clicks to cells, so sorting, search and row
# selection keep working. A table shown full screen (its toolbar's "Close fullscreen" button is
# there only then) is left unzoomed: the zoom would push it past the screen. (The Lesson draws
# its few rows as large HTML tables instead: ui.kit.tables.table_html.)
PROJECTOR_SCALE = 1.6
CODE_FONT_REM = 0.875  # Streamlit 1.67's code font size (its theme's codeFontSize)
PROJECTOR_CSS = f"""<style>
.stApp {{ --bpe-scale: {PROJECTOR_SCALE}; }}
.stMainBlockContainer p, .stMainBlockContainer li {{ font-size: 1.25rem; }}
[data-testid="stMetricValue"], .stMainBlockContainer [data-testid="stMetricValue"] p {{
  font-size: 3rem; }}
.stMainBlockContainer [data-testid="stMetricLabel"] p {{ font-size: 1.3rem; }}
.stMainBlockContainer [data-testid="stCode"] code,
.stMainBlockContainer [data-testid="stCode"] pre {{
  font-size: calc({CODE_FONT_REM}rem * var(--bpe-scale)); }}
.stMainBlockContainer .stElementContainer:has(> * > [data-testid="stDataFrame"]):not(
  :has(button[aria-label="Close fullscreen"])) {{
  zoom: var(--bpe-scale); width: calc(100% / var(--bpe-scale)); }}
.stMainBlockContainer [data-testid="stTable"] td,
.stMainBlockContainer [data-testid="stTable"] th {{ font-size: 1.25rem; }}
.stMainBlockContainer .stButton button p, .stMainBlockContainer .stPageLink p {{
  font-size: 1.25rem; }}
</style>"""
# Every page, every width. A chart drawn wider than its column (the Numbers heatmap: 100 cells of
# 7 px) scrolls sideways in its own box, as code and tables do, instead of the whole page on a
# phone: the box that holds the chart and its toolbar, whose buttons ("Show data": the chart's
# table, its text alternative) take the keyboard's focus, so the keyboard scrolls it too.
# An uploader's list of file types wraps instead of ending in "…" in a narrow column, and so do
# the main column's labels, metrics, buttons and page links (Streamlit ends them in "…"): on a
# 1024x768 projector, projector mode's sizes no longer cut "Characters (code points)". A
# multiselect's chosen values wrap too ("Yours: GPT-4 split, vocabulary 512" at 320 px).
# A table's toolbar (search, download, full screen) shows over the 44 px above the table when
# the pointer is on it: on a phone it covered the Merge forest's "by id", so that row of choices
# keeps the room free.
# Contrast (WCAG 2.1 AA, 4.5:1 for text; tests/browser/test_a11y_browser.py): Streamlit's captions
# are its text colour at opacity 0.6 (#828180 on white, 3.9:1) and its code colours reach 2.5:1
# on the code block's grey; here captions and code take darker shades of the same hues (5.2:1 or
# more on white, the code grey and the sidebar's grey). Token colours are not touched (ui.kit.palette).
# A disabled widget's label is still the question it asks (a revealed quiz's "Which pair does merge
# 3 join?"): Streamlit greys it to #acabaa, 2.3:1; here it takes the captions' colour.
PAGE_CSS = """<style>
[data-testid="stCaptionContainer"] { color: #5c5e66; opacity: 1; }
[data-testid="stCode"] .token.comment, [data-testid="stCode"] .token.prolog,
[data-testid="stCode"] .token.doctype, [data-testid="stCode"] .token.cdata,
[data-testid="stCode"] .token.punctuation { color: #5e616f; }
[data-testid="stCode"] .token.attr-name, [data-testid="stCode"] .token.property,
[data-testid="stCode"] .token.variable, [data-testid="stCode"] .token.keyword,
[data-testid="stCode"] .token.tag, [data-testid="stCode"] .token.function,
[data-testid="stCode"] .token.class-name, [data-testid="stCode"] .token.selector { color: #1a5fb4; }
[data-testid="stCode"] .token.boolean, [data-testid="stCode"] .token.constant,
[data-testid="stCode"] .token.symbol, [data-testid="stCode"] .token.string,
[data-testid="stCode"] .token.char, [data-testid="stCode"] .token.attr-value { color: #19743a; }
[data-testid="stCode"] .token.number, [data-testid="stCode"] .token.regex { color: #0f6f63; }
[data-testid="stCode"] .token.operator, [data-testid="stCode"] .token.entity,
[data-testid="stCode"] .token.decorator, [data-testid="stCode"] .token.atrule { color: #9a4a00; }
[data-testid="stCode"] .token.url, [data-testid="stCode"] .token.important { color: #a1266b; }
.stMainBlockContainer [data-testid="stFullScreenFrame"] > div:has(> [data-testid="stVegaLiteChart"]) {
  max-width: 100%; overflow-x: auto; }
[data-testid="stFileUploaderDropzoneInstructions"] span {
  white-space: normal; overflow: visible; text-overflow: clip; }
.stMainBlockContainer .stMarkdownEllipsis, .stMainBlockContainer .stMarkdownEllipsis p,
.stMainBlockContainer [data-testid="stPageLink-NavLink"] span {
  white-space: normal; overflow: visible; text-overflow: clip; overflow-wrap: break-word; }
.stMainBlockContainer [data-testid="stMetricValue"] .stMarkdownEllipsis { overflow-wrap: anywhere; }
.st-key-forest_vocab_order { margin-bottom: 1.75rem; }
[data-testid="stMultiSelectTagsContainer"] [data-tag] { height: auto; max-width: 100%; }
[data-testid="stMultiSelectTagsContainer"] [data-tag] > span[title] {
  white-space: normal; overflow: visible; text-overflow: clip; overflow-wrap: anywhere; }
.stElementContainer:has(:disabled) [data-testid="stWidgetLabel"] p { color: #5c5e66; }
</style>"""
LINK_STEP = "_link_step"  # session key: the step the session's link named, if any
CUT_NOTE = "_cut_note_"  # session key prefix: what cut_to cut from a box's text
TRAIN_MEMO_SIZE = 8  # trained tokenizers remembered per session, by their inputs


@st.cache_data(show_spinner=False, max_entries=1)
def samples() -> dict[str, str]:
    return load_samples()


@st.cache_resource(show_spinner=False, max_entries=1)
def parallel_set() -> tuple[Language, ...]:
    """The parallel text set of the Language tax and Report card pages, read once per server
    (read-only: a tuple of NamedTuples)."""
    return tuple(load_parallel())


@st.cache_resource(show_spinner=False, max_entries=1)
def report_texts() -> dict[str, str]:
    """The Report card's texts by category, read once per server (read-only)."""
    return load_report_texts()


@st.cache_resource(show_spinner="Loading the pretrained vocabulary…", max_entries=3)
def preset(name: str) -> bpe_core.Tokenizer:
    """A GPT tokenizer, loaded once per server and shared read-only by every session."""
    return bpe_core.load_pretrained(name)


def _init() -> None:
    ss = st.session_state
    for key in KEPT:
        if KEEP_PREFIX + key in ss:
            ss[key] = ss[KEEP_PREFIX + key]
    if "_link_read" not in ss:  # a shared link sets the sample, tokenizer, size and step once
        ss["_link_read"] = True
        values, notes = settings_from_query({k: st.query_params[k] for k in st.query_params})
        if "sample" in values:
            ss["text"] = samples()[values["sample"]]
        if "step" in values:  # pages that start where the link says (the Merge forest)
            ss[LINK_STEP] = values["step"]
        ss.update(values)
        if notes:
            ss["notice"] = "Parts of the link were ignored: " + "; ".join(notes) + "."
    if "text" not in ss:
        first = next(iter(samples()))
        ss["sample"] = first
        ss["text"] = samples()[first]
    ss.setdefault("kind", DEFAULT_KIND)
    ss.setdefault("pattern", r"\w+|\s+|[^\w\s]+")
    ss.setdefault("vocab_size", DEFAULT_VOCAB)
    ss.setdefault("specials", "")
    ss.setdefault("projector", False)
    ss.setdefault("train_memo", {})


def _set_text(text: str) -> None:
    text = bpe_core.clean_text(text)  # a lone surrogate would break the text area
    _keep("text", text)


def _use_sample() -> None:
    _keep("sample")
    if st.session_state["sample"] is not None:
        _set_text(samples()[st.session_state["sample"]])
        _note_cut(None)


def _note_cut(note: str | None, corpus: str | None = None) -> None:
    """The sidebar's note about the text (None: no note), and the file it was cut from, if it
    was: the sidebar then offers the command that trains on all of it."""
    st.session_state["notice"] = note
    st.session_state["_cut_corpus"] = corpus


def _use_text() -> None:
    """A typed or pasted text: longer than the app keeps, it is cut here, with a note saying by
    how much (the box itself takes up to MAX_PASTE_CHARS)."""
    text, cut = cap_text(st.session_state.get("text") or "", what="Keeping")
    if cut:
        _set_text(text)
        _note_cut(cut, PASTE_CORPUS)
    else:
        _keep("text")
        if st.session_state.get("_cut_corpus"):
            _note_cut(None)


def _match_sample() -> None:
    """The "Sample text" box names a sample only while the text is that sample's: once the text
    is the user's own (typed, pasted, uploaded, or a classroom's), it shows "Your own text"
    (None), and a text equal to a sample again names that sample. Runs before the box is drawn.
    """
    ss = st.session_state
    label = sample_label(ss.get("text", ""), samples(), ss.get("sample"))
    if label != ss.get("sample"):
        ss["sample"] = label
        _keep("sample")


def _use_upload() -> None:
    upload = st.session_state.get("upload")
    if upload is None:
        return
    data = upload.getvalue()
    text = data.decode("utf-8", errors="replace")
    note = None
    if "\ufffd" in text and b"\xef\xbf\xbd" not in data:
        note = f"{upload.name} is not valid UTF-8: undecodable bytes became U+FFFD."
    text, cut = cap_text(text)
    _set_text(text)
    _note_cut(" ".join(n for n in (note, cut) if n) or None, upload.name if cut else None)


def _key(text: str, settings: Settings) -> tuple:
    return (hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest(), settings)


def _train(text: str, settings: Settings, show_progress: bool) -> None:
    """Train (or take from this session's memo) and make it the session's tokenizer."""
    ss = st.session_state
    memo = ss["train_memo"]
    key = _key(text, settings)
    tok = memo.get(key)
    if tok is None:
        kept = list(memo.values())[1:] if len(memo) >= TRAIN_MEMO_SIZE else list(memo.values())
        problem = budget.refusal(f"Training {settings.vocab_size:,} tokens",
                                 budget.size_bytes(settings.vocab_size),
                                 budget.held_bytes([*kept, _imported_tok()]))
        if problem:
            raise ValueError(problem)
        bar = st.sidebar.progress(0.0, text="Training…") if show_progress else None
        last = [-1]

        def progress(done: int, total: int, record) -> None:
            pct = done * 50 // max(total, 1)
            if bar is not None and pct != last[0]:
                last[0] = pct
                bar.progress(done / total, text=f"Merge {done:,} of {total:,}")

        try:
            tok = train_tokenizer(text, settings, progress=progress)
        finally:
            if bar is not None:
                bar.empty()
        if len(memo) >= TRAIN_MEMO_SIZE:
            memo.pop(next(iter(memo)))
        memo[key] = tok
    ss["tok"] = tok
    ss["tok_settings"] = settings
    ss["tok_text"] = text


def sidebar() -> None:
    """The controls shared by every page: text, how special-token text in it is read, tokenizer,
    vocabulary size, special tokens, Train."""
    _init()
    shared = Shared(room_tokenizer, room_import, room_watcher)
    arrive(shared)  # a classroom room's state, for a student who follows the teacher
    ss = st.session_state
    with st.sidebar:
        room_panel(shared)
        show_message()
        st.toggle("Projector mode", key="projector", on_change=_keep, args=("projector",),
                  help="Larger tokens and numbers for a classroom; colours stay distinguishable "
                       "for colour-blind viewers.")
        _match_sample()
        st.selectbox("Sample text", list(samples()), key="sample", on_change=_use_sample,
                     index=None, placeholder="Your own text")
        st.text_area("Text", key="text", height=180, max_chars=MAX_PASTE_CHARS,
                     help=f"Paste anything. Ctrl+Enter applies it. The app keeps the first "
                          f"{MAX_TEXT_CHARS:,} characters and says how many were cut.",
                     on_change=_use_text)
        st.file_uploader("…or upload a .txt / .md file", type=["txt", "md"], key="upload",
                         on_change=_use_upload, max_upload_size=MAX_UPLOAD_MB)
        if ss.get("notice"):
            st.info(md_escape(ss["notice"]))  # it quotes links and file names
        if ss.get("_cut_corpus"):
            corpus = ss["_cut_corpus"]
            saved = "" if corpus != PASTE_CORPUS else f"save the whole text as {corpus}, "
            st.caption(f"To use all of it as a corpus: {md_escape(saved)}train on it with the "
                       "command line, then open the .model on the **Export & import** page.")
            st.code(train_command(corpus, ss["kind"], ss["pattern"], ss["vocab_size"],
                                  ss["specials"]), language="bash", wrap_lines=True)
        ss["special_rule"] = rule_or_default(ss.get("special_rule"))  # a room's, a link's: checked
        st.radio("Special-token text such as <|endoftext|>", list(RULES), format_func=RULES.get,
                 key="special_rule", on_change=_keep, args=("special_rule",), help=RULE_HELP)
        st.selectbox("Tokenizer", list(KINDS), key="kind", on_change=_keep, args=("kind",))
        how = KINDS[ss["kind"]][0]
        preset_chosen = how in ("preset", "imported")
        if how == "imported":
            if ss.get("imported") is None:
                st.info("No tokenizer imported yet: upload one on the **Export & import** page.")
            else:
                st.caption("Using the imported tokenizer from:")
                st.text(ss["imported"][1])
                pipeline = ss["imported"][0].pipeline
                if pipeline is not None and pipeline.described:
                    # the pages show the text as BPE sees it: say what changed it
                    st.caption("Before BPE it does: " + md_escape("; ".join(pipeline.described)))
        if ss["kind"] == "Train: custom split pattern":
            st.text_input("Split pattern (Python `regex` syntax)", key="pattern", on_change=_keep,
                          max_chars=MAX_PATTERN_CHARS,
                          args=("pattern",))
        st.number_input("Vocabulary size", min_value=MIN_VOCAB, max_value=MAX_VOCAB, step=64,
                        key="vocab_size", disabled=preset_chosen, on_change=_keep,
                        args=("vocab_size",))
        st.text_input("Special tokens (comma-separated)", key="specials", disabled=preset_chosen,
                      placeholder="<|endoftext|>", on_change=_keep, args=("specials",))
        clicked = st.button("Train", key="train", type="primary", disabled=preset_chosen,
                            use_container_width=True)
        if ss.get("stop"):
            st.warning("Training was stopped; the previous tokenizer is kept.")
        if not preset_chosen:
            _train_if_asked(clicked)
    for key in KEPT:
        _keep(key)
    st.html(PAGE_CSS)
    if ss["projector"]:
        st.html(PROJECTOR_CSS)
    _update_link()
    publish()  # a teacher's room follows the sidebar (and what training made)


def _update_link() -> None:
    """Keep the address bar a link to this view (sample, tokenizer, size, step; never the text:
    with the user's own text the link names no sample)."""
    ss = st.session_state
    step = ss.get("step") if isinstance(ss.get("step"), int) else None
    query = query_from_settings(ss["sample"], ss["kind"], ss["vocab_size"], ss["pattern"], step,
                                special_rule())
    query.update(room_query())  # a student's reload comes back as the same member
    if {k: st.query_params[k] for k in st.query_params} != query:
        st.query_params.from_dict(query)


def _train_if_asked(clicked: bool) -> None:
    ss = st.session_state
    try:
        settings = make_settings(ss["kind"], ss["pattern"], ss["vocab_size"], ss["specials"])
    except ValueError as e:
        st.error(md_escape(str(e)))
        return
    text, note = cap_text(ss["text"], MAX_TRAIN_CHARS, "Training on")
    # The first visit trains once by itself; if that fails (a link's pattern that times out),
    # the reruns that follow do not try again: the user changes something and presses Train.
    first_visit = "tok" not in ss and "_first_training_tried" not in ss
    if not (clicked or first_visit):
        if ss.get("tok_settings") != settings or ss.get("tok_text") != text:
            st.caption("Settings or text changed: press **Train** to train on them.")
        return
    problem = text_problem(text)
    if problem:
        st.error(problem)
        return
    if note:
        st.info(note)
    if clicked:
        st.button("Stop", key="stop", help="Stops training and keeps the previous tokenizer.")
    ss["_first_training_tried"] = True
    try:
        _train(text, settings, show_progress=clicked)
    except ValueError as e:
        st.error(md_escape(str(e)))


# -- what pages use ------------------------------------------------------------------------------


def cut_to(key: str, limit: int) -> None:
    """A text box's ``on_change`` (a box that takes a paste up to MAX_PASTE_CHARS): its text is
    cut to ``limit`` characters, and ``cut_note(key)`` says by how much until the text changes.
    Streamlit's box would refuse a paste over its max_chars without a word."""
    ss = st.session_state
    text, note = cap_text(ss.get(key) or "", limit, "Keeping")
    if note:
        ss[key] = text
    ss[CUT_NOTE + key] = note


def cut_note(key: str) -> str | None:
    """What ``cut_to`` cut from the box ``key``'s text, as a sentence (None: nothing)."""
    return st.session_state.get(CUT_NOTE + key)


def projector_mode() -> bool:
    """True when the sidebar's projector toggle is on: pages draw tokens large."""
    return bool(st.session_state.get("projector"))


def special_rule() -> str:
    """The sidebar's rule for special-token text in the learner's text: "text" (the default) or
    "special" (``ui.kit.special_rule``). Every view that encodes that text follows it."""
    return rule_or_default(st.session_state.get("special_rule"))


def allowed_special() -> str:
    """``encode``'s ``allowed_special`` under the session's rule: "none" (text) or "all"."""
    return allowed_for(special_rule())


def rule_caption(text: str, *tokenizers: bpe_core.Tokenizer) -> str:
    """The session's rule for special-token text in words, and which special tokens' text
    ``text`` holds (of ``tokenizers``), for a caption beside a token count (Markdown-escaped)."""
    return md_escape(rule_note(special_rule(), text, specials_of(*tokenizers)))


def current_text() -> str:
    """The text in the sidebar (at most MAX_TEXT_CHARS characters)."""
    return cap_text(st.session_state.get("text", ""))[0]


def active_tokenizer() -> bpe_core.Tokenizer | None:
    """The chosen pretrained tokenizer, the imported one, or this session's trained one.

    None before training (or before an import, when "Imported file" is chosen).
    """
    ss = st.session_state
    how, name = KINDS[ss.get("kind", DEFAULT_KIND)]
    if how == "preset":
        return preset(name)
    if how == "imported":
        return (ss.get("imported") or (None, ""))[0]
    return ss.get("tok")


def _imported_tok() -> bpe_core.Tokenizer | None:
    return (st.session_state.get("imported") or (None, ""))[0]


def import_refusal(tok: bpe_core.Tokenizer | None, files: Sequence[bytes] = ()) -> str | None:
    """Why ``tok`` (or, before reading them, the uploaded ``files``) may not replace the
    session's imported tokenizer (None: it may): it would take the session past its memory bound
    (ui/kit/budget.py), counting the trained tokenizers it keeps (the train memo and the
    current one) and what the pages derive from each."""
    ss = st.session_state
    held = budget.held_bytes([*ss.get("train_memo", {}).values(), ss.get("tok")])
    if tok is None:
        tokens = budget.file_tokens(files)
        return budget.refusal(f"A file of up to {tokens:,} tokens",
                              tokens * budget.SESSION_TOKEN_BYTES, held)
    return budget.refusal(f"This tokenizer ({len(tok.vocab):,} tokens)",
                          budget.tokenizer_bytes(tok), held)


def import_tokenizer(tok: bpe_core.Tokenizer, name: str) -> None:
    """Make an imported tokenizer the session's choice on every page (``import_refusal`` first:
    the tokenizer it replaces and what the pages derived from it are let go).

    Call it from a widget callback (on_change / on_click): it sets the sidebar's "kind" widget,
    which Streamlit allows only before the sidebar is drawn in a run.
    """
    ss = st.session_state
    before = _imported_tok()
    if before is not None and before is not tok:
        memo = ss.get(DERIVED, {})
        for key in [k for k, (owners, _) in memo.items() if any(o is before for o in owners)]:
            del memo[key]
    ss["imported"] = (tok, name)
    _keep("kind", "Imported file")


def tokenizer_label(plain: bool = False) -> str:
    """A short name for the active tokenizer, safe to put in Markdown (captions, metrics); with
    ``plain``, as text for ``textContent`` (no Markdown escapes)."""
    ss = st.session_state
    how, name = KINDS[ss.get("kind", DEFAULT_KIND)]
    if how == "preset":
        return bpe_core.PRESETS[name]["title"]
    if how == "imported":
        imported = ss.get("imported")
        if not imported:
            return "nothing imported yet"
        return f"imported from {imported[1] if plain else md_escape(imported[1])}"
    settings = ss.get("tok_settings")
    if settings is None:
        return "untrained"
    return f"{settings.kind.removeprefix('Train: ')}, vocabulary {ss['tok'].vocab_size:,}"


def trained_text() -> str | None:
    """The text the session's tokenizer was trained on (None for presets and imports)."""
    if KINDS[st.session_state.get("kind", DEFAULT_KIND)][0] in ("preset", "imported"):
        return None
    return st.session_state.get("tok_text")


# -- what a session derives from (tokenizer, text): one cache, here -----------------------------

DERIVED = "_derived"  # session key of the cache below
DERIVED_SIZE = 48  # entries kept per session (a page tour makes 33); the least recently used goes first
T = TypeVar("T")


def text_digest(text: str) -> str:
    """The SHA-256 of a text, computed once per text object in this session (a rerun hands the
    same sidebar text again; hashing 200,000 characters on every slider tick adds up)."""
    ss = st.session_state
    known = ss.get("_digest")
    if known is None or known[0] is not text:
        known = ss["_digest"] = (text, hashlib.sha256(text.encode("utf-8", "surrogatepass"))
                                 .hexdigest())
    return known[1]


def derived(kind: str, owner: object, text: str | None, make: Callable[[], T], *,
            by_rule: bool = True) -> T:
    """``make()``, once per ``(kind, owner, text)`` in this session: the one cache of data that a
    session derives from a tokenizer (``owner``; or a tuple of tokenizers) and a text.

    An entry with a text is also kept per rule for special-token text (``special_rule``): what
    is derived from an encoding changes with it. ``by_rule=False``: ``make`` never encodes the
    text with that rule (a training), so one entry serves both rules.

    An entry holds its owner, so the owner's id cannot be reused by another object while the
    entry lives; the text is keyed by its digest. Shared read-only data (the GPT vocabularies)
    lives in ``st.cache_resource`` instead.
    """
    memo = st.session_state.setdefault(DERIVED, {})
    owners = owner if isinstance(owner, tuple) else (owner,)
    key = (kind, tuple(map(id, owners)), None if text is None else text_digest(text),
           special_rule() if by_rule and text is not None else None)
    entry = memo.pop(key, None)
    if entry is None or any(a is not b for a, b in zip(entry[0], owners, strict=True)):
        if len(memo) >= DERIVED_SIZE:
            memo.pop(next(iter(memo)))
        entry = (owners, make())
    memo[key] = entry  # now the most recently used
    return entry[1]


def vocabulary_fact(kind: str, tok: bpe_core.Tokenizer, make: Callable[[], T]) -> T:
    """``make()`` for a fact about a whole vocabulary (an ordering, a table): shared by every
    session for a GPT preset (read-only, loaded once per server), this session's own otherwise."""
    name = tok.name
    if name in bpe_core.PRESETS and tok is preset(name):
        return _preset_fact(name, kind, make)
    return derived(kind, tok, None, make)


@st.cache_resource(max_entries=48, show_spinner=False)
def _preset_fact(name: str, kind: str, _make: Callable[[], T]) -> T:
    return _make()


@st.cache_data(max_entries=64, show_spinner=False)
def chart_template(names: tuple[str, ...], metric: str, n: int) -> dict:
    """``ui.kit.charts.steps_template``, built once per server for each set of series names, metric
    and length (read-only: every call returns its own copy, to fill with the data)."""
    return steps_template(names, metric, n)


def step_through(tok: bpe_core.Tokenizer, text: str) -> bpe_core.StepThrough:
    """``tok.step_through(text)`` under the session's rule for special-token text, kept for the
    session."""
    allowed = allowed_special()
    return derived("steps", tok, text, lambda: tok.step_through(text, allowed_special=allowed))


def step_counts(tok: bpe_core.Tokenizer, text: str, keep_steps: bool = True) -> tuple[array, int]:
    """The text's token count after 0..N merges (an array), and its number of bytes.

    ``keep_steps=False`` (a tokenizer whose tokens no page draws, such as a variant's) keeps only
    the counts, not the step-through they come from."""

    def make():
        steps = (step_through(tok, text) if keep_steps
                 else tok.step_through(text, allowed_special()))
        return array("q", steps.token_counts()), steps.num_bytes

    return derived("counts", tok, text, make)


@st.cache_resource(show_spinner="Training the room's tokenizer…", max_entries=8)
def room_tokenizer(text: str, settings: Settings) -> bpe_core.Tokenizer:
    """A classroom room's trained tokenizer: trained once per server for all its students
    (read-only, like the presets)."""
    return train_tokenizer(text, settings)


@st.cache_resource(show_spinner="Reading the room's tokenizer file…", max_entries=4)
def room_import(source: str) -> tuple[bpe_core.Tokenizer, str]:
    """A classroom room's imported tokenizer, read once per server for all its students."""
    return read_room_import(source)


@st.cache_resource
def room_watcher() -> Any:
    """The classroom's room watcher (ui/classroom/panel.py), registered once per server."""
    return register_watcher()


@st.cache_resource
def nav_closer() -> Any:
    """The navigation's phone sidebar closer (ui/kit/navigation.py), registered once per server."""
    from ui.kit.navigation import register_closer

    return register_closer()


@st.cache_resource
def steps_component() -> Any:
    """The in-browser stepping view (ui/stepping/component.py), registered once per server."""
    from ui.stepping.component import register

    return register()


@st.cache_resource
def type_box() -> Any:
    """The front page's text box (ui/front/component.py), registered once per server."""
    from ui.front.component import register_box

    return register_box()


def stepping_data(tok: bpe_core.Tokenizer, text: str) -> dict:
    """What the in-browser stepping view draws from (``ui.stepping.component.steps_payload``): the
    window of the text the page shows, and the whole text's token counts."""
    from ui.stepping.component import steps_payload
    from ui.stepping.merges import window

    def make():
        view, _, _ = window(step_through(tok, text))
        return steps_payload(view, *step_counts(tok, text))

    return derived("stepping data", tok, text, make)


def require_tokenizer() -> bpe_core.Tokenizer:
    """The active tokenizer; without one, the page says how to get one and stops there."""
    tok = active_tokenizer()
    if tok is None:
        if KINDS[st.session_state.get("kind", DEFAULT_KIND)][0] == "imported":
            st.info("No tokenizer imported yet: upload one on the **Export & import** page.")
        else:
            st.info("Press **Train** in the sidebar to train a tokenizer, or pick a pretrained "
                    "one.")
        st.stop()
    return tok


# -- the front page's route (ui/front/route.py): one key per session ---------------------------------
# key -> its session's tokenizer and the reference (held weakly: the registry keeps neither
# alive), and the last text the box asked about with its number and seed. The box asks at every
# key, so this text is the newest the server has, even when the page changed before the box told
# its script. At most ROUTE_KEYS sessions are remembered (the longest unused is forgotten).
ROUTE_KEYS = 10_000
_route_lock = threading.Lock()
_routes: OrderedDict[str, dict[str, Any]] = OrderedDict()


def route_key(mine: Any, reference: Any) -> str:
    """This session's key for the front page's route (128 random bits, made once per session),
    now standing for ``mine`` and ``reference``."""
    ss = st.session_state
    key = ss.get("_front_route")
    if key is None:
        key = ss["_front_route"] = secrets.token_urlsafe(16)
    with _route_lock:
        entry = _routes.get(key)
        if entry is None:
            entry = _routes[key] = {"seq": -1, "seed": None, "text": None}
        entry["pair"] = (weakref.ref(mine), weakref.ref(reference))
        entry["rule"] = special_rule()  # the route reads special-token text as the page does
        _routes.move_to_end(key)
        while len(_routes) > ROUTE_KEYS:
            _routes.popitem(last=False)
    return key


def route_pair(key: str) -> tuple[Any, Any] | None:
    """The live tokenizers behind ``key``, or None (an unknown key, or a tokenizer gone)."""
    with _route_lock:
        entry = _routes.get(key)
        pair = None if entry is None else entry["pair"]
    if pair is None:
        return None
    mine, reference = pair[0](), pair[1]()
    return None if mine is None or reference is None else (mine, reference)


def route_rule(key: str) -> str:
    """The rule for special-token text of the session behind ``key``, as its page last ran (the
    default for a key not known)."""
    with _route_lock:
        entry = _routes.get(key)
    return rule_or_default(None if entry is None else entry.get("rule"))


def route_heard(key: str, text: str, seq: int, seed: int) -> None:
    """The box asked about ``text`` (its ``seq``-th, under ``seed``): kept if it is the newest."""
    with _route_lock:
        entry = _routes.get(key)
        if entry is not None and seq > entry["seq"]:
            entry.update(seq=seq, seed=seed, text=text)


def route_text(key: str | None, seed: int) -> tuple[int, str] | None:
    """The newest text the box asked about under ``seed``, with its number; None if none."""
    with _route_lock:
        entry = _routes.get(key) if key is not None else None
        if entry is None or entry["seed"] != seed or entry["text"] is None:
            return None
        return entry["seq"], entry["text"]
