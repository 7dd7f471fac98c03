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


def read_aside(kept: Any) -> Lesson | None:
    """An exploring student's work from before joining, as the tab kept it beside the lesson
    (``{"lesson", "text", "tok_text"}``), read by ``read_lesson`` (no step is kept with it);
    None when there is none or it does not check out."""
    if not isinstance(kept, dict):
        return None
    return read_lesson(kept.get("lesson"), kept.get("text"), kept.get("tok_text"))


# -- an imported tokenizer file (Export & import) kept over a reload ------------------------------
# The tab keeps the file(s) as ``ss["_import_source"]`` holds them (names, base64, the page's
# options), as JSON beside the lesson; the lesson names it (``import_note``). A file past
# MAX_KEPT_IMPORT_CHARS of JSON is not kept, and the lesson says so by name and size: the tab's
# sessionStorage holds about 5 MB per origin (Debian's Chromium took one key of 5,242,879
# characters and refused one more: 10 MiB of UTF-16), and the text and the trained tokenizer's
# text take up to 800,000 UTF-16 units of it (200,000 characters each, emoji two units), and as
# much again for an exploring student's work put aside beside them (``read_aside``): 4.6 million
# units in all at most.
MAX_KEPT_IMPORT_CHARS = 3_000_000  # base64 of about 2.1 MB of files
MAX_IMPORT_NAME_CHARS = 200


class KeptImport(NamedTuple):
    """An imported file's note in a lesson read back, and its source when the tab kept it."""

    name: str
    size: int  # the files' bytes
    source: dict[str, Any] | None  # ``_import_source``'s shape, checked; None: not kept


def import_note(name: str, size: int, kept_digest: str | None) -> dict[str, Any]:
    """What the lesson says of an imported file: its name, its size in bytes, and whether the
    tab keeps it (``kept_digest``: the digest of its ``import_json``; None: too large to keep)."""
    return {"name": name[:MAX_IMPORT_NAME_CHARS], "size": size,
            "kept": kept_digest is not None, "digest": kept_digest}


def import_json(source: dict[str, Any]) -> str:
    """The JSON the tab keeps of an imported file (``_import_source``)."""
    import json

    return json.dumps(source, sort_keys=True, separators=(",", ":"))


def _source(raw: Any, max_files: int, patterns: Any) -> dict[str, Any] | None:
    import base64
    import binascii
    import json

    try:
        source = json.loads(raw)
    except ValueError:
        return None
    if not isinstance(source, dict):
        return None
    files, specials, pattern = source.get("files"), source.get("specials"), source.get("pattern")
    if (not isinstance(files, list) or not 1 <= len(files) <= max_files
            or pattern not in patterns):
        return None
    for item in files:
        if (not isinstance(item, list) or len(item) != 2 or not isinstance(item[0], str)
                or len(item[0]) > MAX_IMPORT_NAME_CHARS or not isinstance(item[1], str)):
            return None
        try:
            base64.b64decode(item[1], validate=True)
        except (binascii.Error, ValueError):
            return None
    if specials is not None and not (
            isinstance(specials, dict) and len(specials) <= 100
            and all(isinstance(k, str) and len(k) <= 100 and isinstance(v, int)
                    and not isinstance(v, bool) and 0 <= v <= 2**31 for k, v in specials.items())):
        return None
    return {"files": files, "specials": specials, "pattern": pattern}


def read_kept_import(note: Any, raw: Any, max_files: int, patterns: Any) -> KeptImport | None:
    """The imported file a tab kept: the lesson's ``note`` and the JSON ``raw`` beside it,
    checked as shapes (names, base64, options among ``patterns``, at most ``max_files``
    files): the file itself is read again by the app's one bounded reader. None when the lesson
    names no file; a KeptImport with no source when the tab did not keep it (too large, or
    what it holds does not check out)."""
    if not isinstance(note, dict):
        return None
    name, size = note.get("name"), note.get("size")
    if (not isinstance(name, str) or not name or len(name) > MAX_IMPORT_NAME_CHARS
            or not isinstance(size, int) or isinstance(size, bool) or size < 0):
        return None
    source = None
    if (note.get("kept") is True and isinstance(raw, str) and len(raw) <= MAX_KEPT_IMPORT_CHARS
            and note.get("digest") == digest(raw)):
        source = _source(raw, max_files, patterns)
    return KeptImport(name, size, source)


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
