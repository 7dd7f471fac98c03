"""What a tab keeps of its lesson for a reload (F5), as plain data: the text, the sidebar's
settings, what the tokenizer was trained on, and the step (no Streamlit here).

The browser holds it in the tab's ``sessionStorage`` (``ui/sidebar/component.py``); after a reload
the sidebar reads it back through ``read_lesson``, which trusts nothing in it: what the tab holds
was written by this app, but anything in a browser's storage can be edited by its user.
"""

from __future__ import annotations

import hashlib
from typing import Any, NamedTuple

from ui.kit.choices import KINDS, MAX_PATTERN_CHARS, MAX_TEXT_CHARS, MAX_VOCAB, MIN_VOCAB
from ui.kit.families import DEFAULT_FAMILY, FAMILIES
from ui.kit.special_rule import RULES

VERSION = 1
MAX_SPECIALS_CHARS = 2_100  # MAX_SPECIALS tokens of 100 characters and their separators
MAX_STEP = 10**6


class Lesson(NamedTuple):
    """A lesson read back: the text, the sidebar's values by session key, the tokenizer's inputs
    (None when it had none: the user trains again) and the step (None: none kept)."""

    text: str
    values: dict[str, Any]
    tok: tuple[str, dict[str, Any]] | None  # (the text it was trained on, its sidebar values)
    step: int | None


def digest(text: str) -> str:
    """The SHA-256 of a text, hex (what the tab stores beside it, to find a text it lost)."""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def settings_of(kind: str, pattern: str, vocab_size: int, specials: str,
                family: str = DEFAULT_FAMILY) -> dict[str, Any]:
    """The sidebar's values that decide a tokenizer, as the tab stores them."""
    return {"kind": kind, "pattern": pattern, "vocab_size": vocab_size, "specials": specials,
            "family": family}


def _values(raw: Any) -> dict[str, Any] | None:
    """The sidebar's values in ``raw``, checked as a widget would check them; None if any is
    wrong."""
    if not isinstance(raw, dict):
        return None
    kind, pattern, size, specials = (raw.get(k) for k in ("kind", "pattern", "vocab_size",
                                                          "specials"))
    family = raw.get("family", DEFAULT_FAMILY)  # a tab kept before families: byte-level
    if (kind not in KINDS or family not in FAMILIES or not isinstance(pattern, str) or len(pattern) > MAX_PATTERN_CHARS
            or not isinstance(size, int) or isinstance(size, bool)
            or not MIN_VOCAB <= size <= MAX_VOCAB
            or not isinstance(specials, str) or len(specials) > MAX_SPECIALS_CHARS):
        return None
    return settings_of(kind, pattern, size, specials, family)


def read_lesson(lesson: Any, text: Any, tok_text: Any = None, step: Any = None) -> Lesson | None:
    """The lesson a tab kept (its JSON ``lesson``, the texts and the step stored beside it), or
    None when there is none or any part of it does not check out (then nothing is restored; a
    step that does not is left out)."""
    if not isinstance(lesson, dict) or lesson.get("v") != VERSION:
        return None
    if not isinstance(text, str) or len(text) > MAX_TEXT_CHARS or lesson.get("digest") != digest(text):
        return None
    values = _values(lesson)
    if values is None:
        return None
    rule, projector = lesson.get("special_rule"), lesson.get("projector")
    if rule not in RULES or not isinstance(projector, bool):
        return None
    values.update(special_rule=rule, projector=projector)
    tok = None
    trained = lesson.get("tok")
    if isinstance(trained, dict) and (settings := _values(trained)) is not None:
        if trained.get("digest") == lesson["digest"]:
            tok = (text, settings)
        elif (isinstance(tok_text, str) and len(tok_text) <= MAX_TEXT_CHARS
              and trained.get("digest") == digest(tok_text)):
            tok = (tok_text, settings)
    if not isinstance(step, int) or isinstance(step, bool) or not 0 <= step <= MAX_STEP:
        step = None
    return Lesson(text, values, tok, step)


ROOM_TAGS = ("aside", "explore")  # what a student's tab kept in a room (ui/classroom/reload.py)
MAX_CODE_CHARS = 16


def room_tag(lesson: Any) -> dict[str, str]:
    """The room a kept lesson names, as ``{"aside": code}`` (a following student's own work, put
    aside) or ``{"explore": code}`` (an exploring student's sidebar); ``{}`` for none, or for a
    tag that is not one (the lesson is then the tab's own, as outside a room)."""
    if not isinstance(lesson, dict):
        return {}
    tags = {k: lesson[k] for k in ROOM_TAGS if k in lesson}
    if len(tags) != 1:
        return {}
    (tag, code), = tags.items()
    if not isinstance(code, str) or not 0 < len(code) <= MAX_CODE_CHARS or not code.isalnum():
        return {}
    return {tag: code}
