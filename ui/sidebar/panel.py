"""The shared sidebar: the text (typed, pasted, a sample, an upload), how special-token text in it
is read, the tokenizer's settings, Train, projector mode and a classroom room's part.

Every page calls ``sidebar()`` first. It writes the session's text and tokenizer into
``st.session_state``, where the kit (``ui.kit.state``) reads them for the pages.
"""

from __future__ import annotations

import base64
import hashlib
import secrets
import time
from typing import Any

import streamlit as st

import bpe_core
from bpe_core.limits import MAX_UPLOAD_MB
from ui.classroom.panel import (
    Shared,
    arrive,
    is_teacher,
    membership,
    publish,
    read_room_import,
    register_watcher,
    room_query,
    show_message,
)
from ui.classroom.reload import kept_aside, reloaded, set_aside, tab_keeps
from ui.classroom.sidebar import room_panel
from ui.kit import budget
from ui.kit.choices import (
    DEFAULT_KIND,
    DEFAULT_VOCAB,
    KINDS,
    MAX_PASTE_CHARS,
    MAX_PATTERN_CHARS,
    MAX_TEXT_CHARS,
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
)
from ui.kit.escape import md_escape
from ui.kit.families import (
    BYTE_LEVEL,
    DEFAULT_FAMILY,
    FAMILIES,
    FAMILY_LABELS,
    family_of,
    family_title,
    train,
    train_limit,
)
from ui.kit.samples import sample_label
from ui.kit.session_keys import KEEP_PREFIX, KEPT, undo_echo
from ui.kit.session_keys import keep as _keep
from ui.kit.special_rule import RULE_HELP, RULES, rule_or_default
from ui.kit.state import (
    LINK_STEP,
    PAGE_CSS,
    PROJECTOR_CSS,
    _imported_tok,
    import_refusal,
    samples,
    special_rule,
    text_digest,
    using_import,
)
from ui.sidebar.component import register_keeper
from ui.sidebar.lesson import (
    MAX_KEPT_IMPORT_CHARS,
    VERSION,
    Lesson,
    digest,
    import_json,
    import_note,
    read_aside,
    read_kept_import,
    read_lesson,
    room_tag,
    settings_of,
)

TRAIN_MEMO_SIZE = 8  # trained tokenizers remembered per session, by their inputs


# the sidebar's values before anyone changes them (the text: the first sample's)
_DEFAULTS = {"kind": DEFAULT_KIND, "family": DEFAULT_FAMILY, "pattern": r"\w+|\s+|[^\w\s]+",
             "vocab_size": DEFAULT_VOCAB, "specials": "", "projector": False}


def _init() -> None:
    ss = st.session_state
    for key in KEPT:
        if KEEP_PREFIX + key in ss:
            ss[key] = ss[KEEP_PREFIX + key]
    if undo_echo():  # the browser's echo of values the server had just replaced, not the user's
        ss.pop(FAMILY_CHOSEN, None)
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
    if ss.get("family") not in FAMILIES:  # a room's or a restored value is checked here too
        ss["family"] = DEFAULT_FAMILY
    for key, value in _DEFAULTS.items():
        ss.setdefault(key, value)
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


FAMILY_CHOSEN = "_family_chosen"  # the family was just chosen: train it on this run


def _choose_family() -> None:
    _keep("family")
    ss = st.session_state
    imported = _imported_tok()
    if (ss["family"] == BYTE_LEVEL and KINDS[ss.get("kind", DEFAULT_KIND)][0] == "imported"
            and imported is not None and family_of(imported) != BYTE_LEVEL):
        _keep("kind", DEFAULT_KIND)  # the imported file is of another family: train this one
    ss[FAMILY_CHOSEN] = True


FAMILY_SOURCES = ("Trained on the text", "Imported file")


def _choose_source() -> None:
    """The tokenizer of a SentencePiece or word-BPE family: its imported file, or one trained on
    the text (trained now, as choosing a family trains it)."""
    ss = st.session_state
    if ss["family_source"] == FAMILY_SOURCES[1]:
        _keep("kind", "Imported file")
    else:
        _keep("kind", DEFAULT_KIND)
        ss[FAMILY_CHOSEN] = True


def _family_source() -> None:
    """Under a SentencePiece or word-BPE family with a file of that family imported: which one
    the pages use (the sidebar's kind says so, as for a byte-level import)."""
    ss = st.session_state
    imported = _imported_tok()
    if imported is None or family_of(imported) != ss["family"]:
        return
    ss["family_source"] = FAMILY_SOURCES[using_import()]
    st.selectbox("Tokenizer", FAMILY_SOURCES, key="family_source", on_change=_choose_source)


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
        last = [-1, 0.0]

        def progress(done: int, total: int, record) -> None:
            # each 2 %, and every 0.1 s: Stop (or a closed session) is seen at the bar's update,
            # where Streamlit raises, and a slow training's worker is killed there
            pct, now = done * 50 // max(total, 1), time.monotonic()
            if bar is not None and (pct != last[0] or now - last[1] >= 0.1):
                last[:] = [pct, now]
                bar.progress(done / total, text=f"Merge {done:,} of {total:,}")

        try:
            tok = train(text, settings, progress=progress)
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
    if RESTORE_LATER in ss and membership() is not None:  # joined since the tab answered
        _restore_told(ss.pop(RESTORE_LATER))
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
        # one count of characters in the app: code points, with separators (Streamlit's own
        # counter under the box counts UTF-16 units; PAGE_CSS hides it)
        st.caption(f"{len(ss.get('text') or ''):,} of {MAX_TEXT_CHARS:,} characters")
        st.file_uploader("…or upload a .txt / .md file", type=["txt", "md"], key="upload",
                         on_change=_use_upload, max_upload_size=MAX_UPLOAD_MB)
        if ss.get("notice"):
            st.info(md_escape(ss["notice"]))  # it quotes links and file names
        command = ss.get("_cut_corpus") and train_command(
            ss["_cut_corpus"], ss["kind"], ss["pattern"], ss["vocab_size"], ss["specials"],
            ss["family"])  # (none for word BPE: bpe-lab train has no such family)
        if command:
            corpus = ss["_cut_corpus"]
            saved = "" if corpus != PASTE_CORPUS else f"save the whole text as {corpus}, "
            st.caption(f"To use all of it as a corpus: {md_escape(saved)}train on it with the "
                       "command line, then open the .model on the **Export & import** page.")
            st.code(command, language="bash", wrap_lines=True)
        ss["special_rule"] = rule_or_default(ss.get("special_rule"))  # a room's, a link's: checked
        st.radio("Special-token text such as <|endoftext|>", list(RULES), format_func=RULES.get,
                 key="special_rule", on_change=_keep, args=("special_rule",), help=RULE_HELP)
        st.selectbox("Family of BPE", FAMILIES, format_func=FAMILY_LABELS.get, key="family",
                     on_change=_choose_family,
                     help="Byte-level BPE as GPT's tokenizers; SentencePiece's BPE over "
                          "characters with ▁ for a space and <0xE4> byte fallback, as Llama 2's; "
                          "the textbook word BPE with an end-of-word marker, as subword-nmt's. "
                          "Choosing one trains it on the text at the vocabulary size.")
        byte_level = ss["family"] == BYTE_LEVEL
        if byte_level:
            st.selectbox("Tokenizer", list(KINDS), key="kind", on_change=_keep, args=("kind",))
        else:
            _family_source()
        how = KINDS[ss["kind"]][0] if byte_level else ("imported" if using_import() else "family")
        preset_chosen = how in ("preset", "imported")
        if how == "imported":
            if ss.get("imported") is None:
                st.info("No tokenizer imported yet: upload one on the **Export & import** page.")
            elif family_of(ss["imported"][0]) != ss["family"]:
                st.info(md_escape(f"The imported file {ss['imported'][1]} is"
                                  f" {family_title(ss['imported'][0])} BPE: choose that family"
                                  " above to use it."))
            else:
                st.caption("Using the imported tokenizer from:")
                st.text(ss["imported"][1])
                pipeline = getattr(ss["imported"][0], "pipeline", None)
                if pipeline is not None and pipeline.described:
                    # the pages show the text as BPE sees it: say what changed it
                    st.caption("Before BPE it does: " + md_escape("; ".join(pipeline.described)))
        if byte_level and ss["kind"] == "Train: custom split pattern":
            st.text_input("Split pattern (Python `regex` syntax)", key="pattern", on_change=_keep,
                          max_chars=MAX_PATTERN_CHARS,
                          args=("pattern",))
        st.number_input("Vocabulary size", min_value=MIN_VOCAB, max_value=MAX_VOCAB, step=64,
                        key="vocab_size", disabled=preset_chosen, on_change=_keep,
                        args=("vocab_size",))
        if byte_level:
            st.text_input("Special tokens (comma-separated)", key="specials",
                          disabled=preset_chosen, placeholder="<|endoftext|>", on_change=_keep,
                          args=("specials",))
        clicked = st.button("Train", key="train", type="primary", disabled=preset_chosen,
                            use_container_width=True)
        if ss.get("stop"):
            st.warning("Training was stopped; the previous tokenizer is kept.")
        _train_restored()
        chosen = ss.pop(FAMILY_CHOSEN, False)  # a family just chosen trains it
        if not preset_chosen:
            _train_if_asked(clicked or chosen)
        _keep_lesson()
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
                                special_rule(), ss["family"])
    query.update(room_query())  # a student's reload comes back as the same member
    if {k: st.query_params[k] for k in st.query_params} != query:
        st.query_params.from_dict(query)


def _train_if_asked(clicked: bool) -> None:
    ss = st.session_state
    try:
        settings = make_settings(ss["kind"], ss["pattern"], ss["vocab_size"], ss["specials"],
                                 ss["family"])
    except ValueError as e:
        st.error(md_escape(str(e)))
        return
    text, note = cap_text(ss["text"], train_limit(settings.family), "Training on")
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


@st.cache_resource(show_spinner="Training the room's tokenizer…", max_entries=8)
def room_tokenizer(text: str, settings: Settings) -> bpe_core.Tokenizer:
    """A classroom room's trained tokenizer: trained once per server for all its students
    (read-only, like the presets)."""
    return train(text, settings)


@st.cache_resource(show_spinner="Reading the room's tokenizer file…", max_entries=4)
def room_import(source: str) -> tuple[Any, str]:
    """A classroom room's imported tokenizer, read once per server for all its students."""
    return read_room_import(source)


@st.cache_resource
def room_watcher() -> Any:
    """The classroom's room watcher (ui/classroom/panel.py), registered once per server."""
    return register_watcher()




# -- a reload keeps the lesson (ui/sidebar/component.py keeps it in the tab's sessionStorage) -----

KEEPER = "lesson_keeper"  # the component's key
ASKED = "_lesson_asked"  # the session has taken the tab's lesson (after a reload)
SESSION = "_lesson_session"  # this session's id for the tab (a new session reads the tab again)
SENT = "_lesson_sent"  # the digests of the texts this session has handed the tab
RESTORED = "_lesson_restored"  # the tokenizer to train again after a reload: (text, Settings)
RESTORE_LATER = "_lesson_later"  # what the tab kept, for a join link's page once it joined


@st.cache_resource
def lesson_keeper() -> Any:
    """The lesson keeper (ui/sidebar/component.py), registered once per server."""
    return register_keeper()


def _told(name: str) -> Any:
    state = st.session_state.get(KEEPER) or {}
    return state.get(name) if hasattr(state, "get") else getattr(state, name, None)


def _restore() -> None:
    """The tab answered with what it kept (after a reload): the text, the settings and the step
    come back before the sidebar is drawn, and the tokenizer is trained again from what it was
    trained on (training is deterministic: the same merges and ids). In a classroom room the
    room's state is the room's: a student's own work is put aside until they leave, or comes back
    to an exploring student (ui/classroom/reload.py says which)."""
    ss = st.session_state
    ss[ASKED] = True
    told = _told("kept")
    if isinstance(told, dict):
        _restore_told(told)


def _restore_told(told: dict[str, Any]) -> None:
    """``_restore`` of what the tab answered (``told``), now or, on a join link's page the
    answer reached before it joined, once it has (``sidebar`` asks again after ``arrive``)."""
    ss = st.session_state
    lesson = read_lesson(told.get("lesson"), told.get("text"), told.get("tok_text"),
                         told.get("step"))
    where = reloaded(room_tag(told.get("lesson")))
    if lesson is not None and where == "later":
        ss[RESTORE_LATER] = told
        return
    if lesson is None or where == "room":
        return
    if where == "aside":
        _aside_from_tab(lesson)
        return
    aside = read_aside(told.get("aside")) if "explore" in room_tag(told.get("lesson")) else None
    if aside is not None:  # an exploring student's work from before joining, kept beside
        _aside_from_tab(aside)
    _set_text(lesson.text)
    for key, value in lesson.values.items():
        _keep(key, value)
    if lesson.step is not None:
        ss["step"] = lesson.step
    if lesson.tok is not None:
        ss[RESTORED] = lesson.tok
    file, file_back = _restore_import(told.get("lesson"), told.get("import"))
    _note_cut(("The text, settings and tokenizer of this tab came back after the reload."
               if lesson.tok is not None or file_back else
               "The text and settings of this tab came back after the reload: press Train.")
              + (" " + file if file else ""))


def _aside_from_tab(lesson: Lesson) -> None:
    """A student's own work the tab kept (``lesson``), put aside in the room until they leave."""
    own = {"text": lesson.text, **lesson.values, "sample": None}
    own.update({KEEP_PREFIX + k: v for k, v in own.items() if k in KEPT})
    own.pop("projector", None)  # the tab's, not the lesson's: it stays as it is now
    own.pop(KEEP_PREFIX + "projector", None)
    if lesson.step is not None:
        own["step"] = lesson.step
    if lesson.tok is not None:
        own[RESTORED] = lesson.tok  # trained again when they leave
    set_aside(own)


def _restore_import(lesson: Any, raw: Any) -> tuple[str | None, bool]:
    """The imported file the tab kept, read again through Export & import's one bounded reader
    (``read_uploads``: what the tab holds can be edited) and made the session's imported
    tokenizer, as the page made it: what to say of it after the reload (None: no file), and
    whether it came back."""
    from ui.exchange.files import IMPORT_PATTERNS, MAX_IMPORT_FILES, read_uploads

    kept = read_kept_import(lesson.get("import") if isinstance(lesson, dict) else None, raw,
                            MAX_IMPORT_FILES, IMPORT_PATTERNS)
    if kept is None:
        return None, False
    name = kept.name
    if kept.source is None:
        return (f"The imported file {name} ({kept.size / 2**20:.1f} MB) is not kept across a"
                " reload: upload it again on the Export & import page."), False
    source = kept.source
    try:
        files = [(n, base64.b64decode(data)) for n, data in source["files"]]
        problem = import_refusal(None, [d for _, d in files])
        if problem:
            raise ValueError(problem)
        imported = read_uploads(files, special_tokens=source["specials"],
                                pattern=IMPORT_PATTERNS[source["pattern"]])
        problem = import_refusal(imported.tok)
        if problem:
            raise ValueError(problem)
    except Exception as e:  # an edited tab's file is never a traceback
        return (f"The imported file {name} could not be read again after the reload"
                f" ({str(e)[:300]}): upload it again on the Export & import page."), False
    ss = st.session_state
    ss["imported"] = (imported.tok, imported.name)
    ss["import_info"] = imported
    ss["_import_source"] = source
    return f"The imported file {imported.name} came back too.", True


def _resend() -> None:
    """The tab lacks a text the session handed it (a run it never drew): hand it again."""
    st.session_state.pop(SENT, None)


def _train_restored() -> None:
    restored = st.session_state.pop(RESTORED, None)
    if restored is None or is_teacher():
        return  # a teacher back in the room after the reload: the room's tokenizer is taken
    text, values = restored
    st.session_state["_first_training_tried"] = True
    try:
        settings = make_settings(values["kind"], values["pattern"], values["vocab_size"],
                                 values["specials"], values.get("family", DEFAULT_FAMILY))
        _train(text, settings, show_progress=True)
    except ValueError as e:
        st.error(md_escape(str(e)))


def _session_id() -> str:
    ss = st.session_state
    if SESSION not in ss:
        ss[SESSION] = secrets.token_urlsafe(12)
    return ss[SESSION]


def _keep_lesson() -> None:
    """Hand the tab what it keeps: the lesson's settings on every run, a text only when it is
    new to the tab. A session's first run also lets the tab answer with a lesson a reload left
    (``asked``: the session has taken the tab's answer). An exploring student's tab keeps their
    work from before joining beside it (``aside``: what leaving gives back)."""
    ss = st.session_state
    own, tag = tab_keeps()  # in a room, a student's own work (ui/classroom/reload.py)
    sent = ss.setdefault(SENT, {})
    lesson, texts = _lesson_of(ss if own is None else {**_DEFAULTS, "text": ss["text"], **own},
                               sent, "")
    lesson.update(tag)
    data: dict[str, Any] = {"session": _session_id(), "asked": bool(ss.get(ASKED)),
                            "lesson": lesson, **texts, "aside": None}
    aside = kept_aside()
    if aside is not None:
        aside_lesson, aside_texts = _lesson_of({**_DEFAULTS, "text": ss["text"], **aside}, sent,
                                               "aside_")
        data["aside"] = {"lesson": aside_lesson, **aside_texts}
    _keep_import(lesson, data, sent)
    lesson_keeper()(data=data, key=KEEPER, on_kept_change=_restore, on_resend_change=_resend)


def _lesson_of(src: Any, sent: dict[str, Any], slot: str) -> tuple[dict[str, Any], dict[str, str]]:
    """The lesson the tab keeps of ``src`` (the sidebar's values, or a student's work put
    aside), and the texts new to the tab (``sent`` remembers them under the ``slot`` prefix)."""
    ss = st.session_state
    text = src["text"]
    lesson: dict[str, Any] = {
        "v": VERSION, "digest": text_digest(text),
        **settings_of(src["kind"], src["pattern"], src["vocab_size"], src["specials"],
                      src["family"]),
        "special_rule": rule_or_default(src.get("special_rule")),
        "projector": bool(ss["projector"]), "tok": None}
    texts: dict[str, str] = {}
    if sent.get(slot + "text") != lesson["digest"]:
        texts["text"] = text
        sent[slot + "text"] = lesson["digest"]
    tok, settings, tok_text = src.get("tok"), src.get("tok_settings"), src.get("tok_text")
    if src.get(RESTORED) is not None:  # put aside by a reload, not trained yet
        tok_text, values = src[RESTORED]
        try:
            tok, settings = True, make_settings(values["kind"], values["pattern"],
                                                values["vocab_size"], values["specials"],
                                                values.get("family", DEFAULT_FAMILY))
        except ValueError:  # said when it is trained again (_train_restored)
            tok = None
    if tok is not None and settings is not None and tok_text is not None:
        if tok_text == text:
            tok_digest = lesson["digest"]
        else:  # hashed once per text object, as text_digest does for the sidebar's text
            if sent.get(slot + "tok_of") is not tok_text:
                sent[slot + "tok_of"], sent[slot + "tok_digest"] = tok_text, digest(tok_text)
            tok_digest = sent[slot + "tok_digest"]
        lesson["tok"] = {**settings_of(settings.kind, settings.pattern, settings.vocab_size,
                                       ", ".join(settings.specials), settings.family),
                         "digest": tok_digest}
        if tok_digest != lesson["digest"] and sent.get(slot + "tok") != tok_digest:
            texts["tok_text"] = tok_text
            sent[slot + "tok"] = tok_digest
    return lesson, texts


def _keep_import(lesson: dict[str, Any], data: dict[str, Any], sent: dict[str, Any]) -> None:
    """The imported file (Export & import's ``_import_source``) for the tab to keep: named in
    the lesson, its JSON handed over once per file (none past MAX_KEPT_IMPORT_CHARS: the lesson
    then says it is not kept)."""
    ss = st.session_state
    source, imported = ss.get("_import_source"), ss.get("imported")
    if not source or not imported:
        return
    text = None  # the JSON, made when it is hashed or handed over (never kept: up to 3 MB)
    if sent.get("import_of") is not source:  # its digest, once per file
        text = import_json(source)
        fits = len(text) <= MAX_KEPT_IMPORT_CHARS
        sent["import_of"], sent["import_digest"] = source, digest(text) if fits else None
    size = sum(len(b64) * 3 // 4 for _, b64 in source["files"])
    lesson["import"] = import_note(imported[1], size, sent["import_digest"])
    if sent["import_digest"] is not None and sent.get("import") != sent["import_digest"]:
        data["import"] = text if text is not None else import_json(source)
        sent["import"] = sent["import_digest"]


def keep_step(step: int) -> None:
    """Hand the tab the step of Step through merges (it changes in the page's fragment, where
    the sidebar does not run); a following student's step is the room's, not the tab's."""
    if "aside" in tab_keeps()[1]:
        return
    lesson_keeper()(data={"session": _session_id(), "step": int(step)},
                    key="lesson_step_keeper")
