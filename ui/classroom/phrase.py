"""The teacher phrase: what brings a teacher back to their room from any tab or device, after a
closed tab, a crash or a store restart (issue 44). No Streamlit here.

A room's phrase is 12 characters of the join codes' alphabet (``K7QM-4TXP-9HWC``: 31**12, about
59 bits), short enough to write down. It is not stored anywhere: it is an HMAC of the room's
code under the classroom's secret, so it outlives the store (a Redis restart) and needs nothing
kept per room. The secret is ``BPE_LAB_TEACHER_SECRET`` when set (the same on every app server,
the way to keep phrases good across a Redis restart with several servers); otherwise one made at
random, kept in the store and remembered by each app server that used it (a store that restarts
empty gets it back from the first such server that asks).

Typed phrases are compared in constant time (``hmac.compare_digest``); wrong ones are limited to
PHRASE_TRIES_PER_MINUTE per address and ROOM_PHRASE_TRIES_PER_MINUTE per room (a guesser from many
addresses is held back too: with 59 bits, 20 a minute is some 10**10 years). A right phrase gives
a new teacher token: the tab that taught until then holds a dead one and stops.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import secrets
import unicodedata
from typing import Any

from ui.classroom.store import NotTeacher, RoomError

PHRASE_LENGTH = 12
PHRASE_TRIES_PER_MINUTE = 10  # wrong phrases from one address
ROOM_PHRASE_TRIES_PER_MINUTE = 20  # wrong phrases for one room, from anywhere
SECRET_KEY = "bpelab:teacher-secret"

_remembered: dict[int, str] = {}  # id(kv) -> the secret this process has used with that store


def _secret(kv: Any) -> bytes:
    env = os.environ.get("BPE_LAB_TEACHER_SECRET")
    if env:
        return env.encode("utf-8")
    mine = _remembered.get(id(kv)) or secrets.token_hex(32)
    kv.set(SECRET_KEY, mine, nx=True)  # the first server's; after a restart, this server's
    stored = kv.get(SECRET_KEY) or mine
    _remembered[id(kv)] = stored
    return stored.encode("utf-8")


def _phrase_for(kv: Any, code: str) -> str:
    from ui.classroom.rooms import CODE_ALPHABET

    digest = hmac.new(_secret(kv), ("teacher-phrase:" + code).encode(), hashlib.sha256).digest()
    n = int.from_bytes(digest, "big")
    chars = []
    for _ in range(PHRASE_LENGTH):
        n, i = divmod(n, len(CODE_ALPHABET))
        chars.append(CODE_ALPHABET[i])
    return "".join(chars)


def show_phrase(phrase: str) -> str:
    """``K7QM-4TXP-9HWC``: the phrase as the teacher's page shows it."""
    return "-".join(phrase[i:i + 4] for i in range(0, len(phrase), 4))


def normal_phrase(typed: Any) -> str:
    """A typed phrase as compared: NFKC (full-width letters from an IME), upper case, no spaces
    or dashes."""
    if not isinstance(typed, str):
        return ""
    folded = unicodedata.normalize("NFKC", typed[:200]).upper()
    return "".join(c for c in folded if not c.isspace() and c not in "-‐‑–—")


def teacher_phrase(rooms: Any, code: str, token: str) -> str:
    """The room's teacher phrase, for its teacher only (shown on their Classroom page)."""
    rooms.teaches(code, token)
    return show_phrase(_phrase_for(rooms.kv, code))


def come_back(rooms: Any, code: str, typed: str, client: str) -> tuple[str, bool]:
    """The teacher comes back with the room's phrase: returns (a new teacher token, whether the
    room is there). A room that is there gets the new token (the tab that taught stops); a room
    the store lost (not closed) is for the caller to put back under its code with that token
    (``Rooms.restore``). Raises NotTeacher for a wrong phrase, RoomError past the limits or for
    a room its teacher closed."""
    from ui.classroom.rooms import _digest, presence_id, show_code

    if rooms.closed(code):
        raise RoomError(f"Room {show_code(code)} was closed: open a new room.")
    for what, who, most in (("phrase", client, PHRASE_TRIES_PER_MINUTE),
                            ("room-phrase", code, ROOM_PHRASE_TRIES_PER_MINUTE)):
        key = f"bpelab:limit:{what}:{hashlib.sha256(who.encode()).hexdigest()[:32]}"
        if int(rooms.kv.get(key) or 0) >= most:
            raise RoomError("Too many wrong teacher phrases: wait a minute, then try again.")
    if not hmac.compare_digest(_phrase_for(rooms.kv, code).encode(),
                               normal_phrase(typed).encode()):
        rooms._limit("phrase", client, PHRASE_TRIES_PER_MINUTE, 60)
        rooms._limit("room-phrase", code, ROOM_PHRASE_TRIES_PER_MINUTE, 60)
        raise NotTeacher(f"That is not the teacher phrase of room {show_code(code)}.")
    token = secrets.token_urlsafe(24)
    there = rooms.kv.exists(rooms._key(code, "meta"))
    if there:  # the room's meta, as Rooms writes it, with the new token's digests
        rooms.kv.set(rooms._key(code, "meta"), json.dumps(
            {"teacher": _digest(token), "presence": _digest(presence_id(token))}), ex=rooms.ttl)
    return token, bool(there)
