"""The session's state: the text, the tokenizer, and the one cache of what a session derives
from them. The sidebar that sets them is ``ui.sidebar.panel``; the kit imports no other folder.

Every page starts with ``ui.sidebar.panel.sidebar()``, then asks here for the text (``current_text()``), the
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
from bpe_core.family_files import family_refusal
from bpe_lab.who_pays.languages import Language, load_parallel
from bpe_lab.who_pays.report import load_report_texts
from ui.kit import budget
from ui.kit.charts import steps_template
from ui.kit.choices import DEFAULT_KIND, KINDS, cap_text
from ui.kit.escape import md_escape
from ui.kit.families import (
    BYTE_LEVEL,
    DEFAULT_FAMILY,
    FAMILIES,
    FAMILY_LABELS,
    family_of,
    family_title,
)
from ui.kit.projector import PROJECTOR_CSS, projector_mode  # noqa: F401 - pages read it here
from ui.kit.samples import load_samples
from ui.kit.session_keys import keep as _keep
from ui.kit.special_rule import allowed_for, rule_note, rule_or_default, specials_of

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
# The boxes that take a paste and cut it (the sidebar's Text, Check's, Language tax's, Chat's
# messages): Streamlit's counter under them ("201424/10000000") counts UTF-16 units, against a
# bound that only guards the connection; their notes count characters (code points), and the
# sidebar's own caption too.
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
.st-key-text [data-testid="InputInstructions"] > span:nth-child(2),
.st-key-check_text [data-testid="InputInstructions"] > span:nth-child(2),
.st-key-languages_own [data-testid="InputInstructions"] > span:nth-child(2),
[class*="st-key-chat_text_"] [data-testid="InputInstructions"] > span:nth-child(2) { display: none; }
.stElementContainer:has(:disabled) [data-testid="stWidgetLabel"] p { color: #5c5e66; }
</style>"""
LINK_STEP = "_link_step"  # session key: the step the session's link named, if any
CUT_NOTE = "_cut_note_"  # session key prefix: what cut_to cut from a box's text


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


def special_rule() -> str:
    """The sidebar's rule for special-token text in the learner's text: "text" (the default) or
    "special" (``ui.kit.special_rule``). Every view that encodes that text follows it."""
    return rule_or_default(st.session_state.get("special_rule"))


def allowed_special() -> str:
    """``encode``'s ``allowed_special`` under the session's rule: "none" (text) or "all"."""
    return allowed_for(special_rule())


def rule_caption(text: str, *tokenizers: bpe_core.Tokenizer, labels: Sequence[str] = ()) -> str:
    """The session's rule for special-token text in words, and which special tokens' text
    ``text`` holds (of ``tokenizers``), for a caption beside a token count (Markdown-escaped).
    With ``labels`` (one per tokenizer) the caption says which tokenizers read a special-token
    text as their special token and which as text, when they differ."""
    readers = ({label: specials_of(t) for label, t in zip(labels, tokenizers, strict=True)}
               if labels else None)
    return md_escape(rule_note(special_rule(), text, specials_of(*tokenizers), readers=readers))


def current_text() -> str:
    """The text in the sidebar (at most MAX_TEXT_CHARS characters)."""
    return cap_text(st.session_state.get("text", ""))[0]


def chosen_family() -> str:
    """The family of BPE the sidebar names (``ui.kit.families``)."""
    family = st.session_state.get("family", DEFAULT_FAMILY)
    return family if family in FAMILIES else DEFAULT_FAMILY


def using_import() -> bool:
    """Whether the session uses its imported file (Export & import): "Imported file" is the
    sidebar's choice, and the file is of the sidebar's family (a byte-level file under
    byte-level BPE; a SentencePiece or word-BPE file under its family)."""
    ss = st.session_state
    if KINDS[ss.get("kind", DEFAULT_KIND)][0] != "imported":
        return False
    imported = _imported_tok()
    return chosen_family() == BYTE_LEVEL or (imported is not None
                                              and family_of(imported) == chosen_family())


def _draws(tok: Any, families: Sequence[str]) -> bool:
    """Whether a caller that shows ``families`` draws ``tok``: bpe_core's own tokenizers are
    drawn by every page; a file's tokenizer of another kind (SentencePiece, word BPE, CLIP,
    Mistral's tekken.json) only by a page that draws the families' pieces
    (``ui.kit.family_panel``: it names more families than byte-level)."""
    return (family_of(tok) in families
            and (isinstance(tok, bpe_core.Tokenizer) or any(f != BYTE_LEVEL for f in families)))


def active_tokenizer(families: Sequence[str] = (BYTE_LEVEL,)) -> Any:
    """The chosen pretrained tokenizer, the imported one, or this session's trained one, when
    its family is the sidebar's and one of ``families`` (what the caller can show: byte-level
    only unless it says so).

    None before training (or before an import, when "Imported file" is chosen), and while the
    sidebar's family, or the imported file in use, is one the caller does not show
    (``family_stop`` says so by name).
    """
    ss = st.session_state
    family = chosen_family()
    if family not in families:
        return None
    if using_import():
        tok = _imported_tok()
        return tok if tok is not None and family_of(tok) == family and _draws(tok, families) \
            else None
    if family != BYTE_LEVEL:
        tok = ss.get("tok")
        return tok if tok is not None and family_of(tok) == family else None
    how, name = KINDS[ss.get("kind", DEFAULT_KIND)]
    if how == "preset":
        return preset(name)
    tok = ss.get("tok")
    return tok if tok is not None and family_of(tok) == BYTE_LEVEL else None


def draws_pieces() -> bool:
    """Whether a page that shows every family draws the session's tokenizer through the
    families' views (``ui.kit.family_panel``): a SentencePiece or word-BPE family, or a file of
    another kind than bpe_core's own (a tekken.json, byte-level but with mistral-common's ids)."""
    if chosen_family() != BYTE_LEVEL:
        return True
    tok = active_tokenizer(FAMILIES)
    return tok is not None and not isinstance(tok, bpe_core.Tokenizer)


# the pages that show every family (family_stop names them to a page that does not)
FAMILY_PAGES = "Tokens, Step through merges, Merge forest and Compare with GPT"


def family_stop(families: Sequence[str] = (BYTE_LEVEL,)) -> None:
    """A page that shows only ``families`` says, when the sidebar names another family, that it
    does not show it (by the family's name, ``family_files.family_refusal``) and which pages
    do, and stops there."""
    family = chosen_family()
    tok = _imported_tok() if using_import() else st.session_state.get("tok")
    if tok is not None and family_of(tok) != family:
        tok = None
    if family in families and (tok is None or _draws(tok, families)):
        return
    other = ("another Tokenizer" if family in families  # a file this page cannot draw
             else FAMILY_LABELS[BYTE_LEVEL])
    if tok is not None:
        what = family_refusal(tok, f"The sidebar's tokenizer ({tokenizer_label(plain=True)})",
                              "this page's views",
                              instead=f"the {FAMILY_PAGES} pages show it; choose {other} in the"
                                      " sidebar for this page.")
    else:
        what = (f"This page shows byte-level BPE only so far, and the sidebar's family is"
                f" {FAMILY_LABELS[family]}: the {FAMILY_PAGES} pages show it; choose"
                f" {FAMILY_LABELS[BYTE_LEVEL]} in the sidebar for this page.")
    st.info(md_escape(what))
    st.stop()


def _imported_tok() -> Any:
    return (st.session_state.get("imported") or (None, ""))[0]


def import_refusal(tok: Any, files: Sequence[bytes] = ()) -> str | None:
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
    what = (f"{len(tok.vocab):,} tokens" if isinstance(tok, bpe_core.Tokenizer)
            else f"{tok.vocab_size:,} tokens" if hasattr(tok, "vocab_size")
            else f"{len(tok.merges):,} merges")  # word BPE: subword-nmt's codes
    return budget.refusal(f"This tokenizer ({what})",
                          budget.tokenizer_bytes(tok), held)


def import_tokenizer(tok: Any, name: str) -> None:
    """Make an imported tokenizer (of any family) the session's choice on every page that shows
    its family (``import_refusal`` first:
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
    _keep("family", family_of(tok))  # the pages that show its family draw it


def tokenizer_label(plain: bool = False) -> str:
    """A short name for the active tokenizer, safe to put in Markdown (captions, metrics); with
    ``plain``, as text for ``textContent`` (no Markdown escapes)."""
    ss = st.session_state
    if using_import():
        imported = ss.get("imported")
        if not imported:
            return "nothing imported yet"
        return f"imported from {imported[1] if plain else md_escape(imported[1])}"
    if chosen_family() != BYTE_LEVEL:
        tok = ss.get("tok")
        if tok is None or family_of(tok) != chosen_family():
            return "untrained"
        size = tok.vocab_size if hasattr(tok, "vocab_size") else len(tok.merges)
        noun = "vocabulary" if hasattr(tok, "vocab_size") else "merges"
        return f"{FAMILY_LABELS[family_of(tok)]}, {noun} {size:,}"
    how, name = KINDS[ss.get("kind", DEFAULT_KIND)]
    if how == "preset":
        return bpe_core.PRESETS[name]["title"]
    settings = ss.get("tok_settings")
    if settings is None:
        return "untrained"
    return f"{settings.kind.removeprefix('Train: ')}, vocabulary {ss['tok'].vocab_size:,}"


def trained_text() -> str | None:
    """The text the session's tokenizer was trained on (None for presets and imports)."""
    if using_import():
        return None
    if chosen_family() != BYTE_LEVEL:
        return st.session_state.get("tok_text")
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


def require_tokenizer(families: Sequence[str] = (BYTE_LEVEL,)) -> Any:
    """The active tokenizer; without one, the page says how to get one and stops there. A page
    that shows only ``families`` says so by name when the sidebar names another
    (``family_stop``)."""
    family_stop(families)
    tok = active_tokenizer(families)
    if tok is None:
        imported = st.session_state.get("imported")
        if using_import() and imported is not None:  # a file of another family
            st.info(md_escape(f"The imported file {imported[1]} is {family_title(imported[0])}"
                              " BPE: choose that Family of BPE in the sidebar to use it, or"
                              " another Tokenizer."))
        elif using_import():
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
