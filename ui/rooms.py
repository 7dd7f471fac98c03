"""Classroom rooms: one teacher, many students, a small shared state (no Streamlit here).

A room is a handful of keys in a key-value store, all under ``bpelab:room:<CODE>:``:

- ``meta``     the SHA-256 of the teacher's secret token (the token itself is never stored);
- ``state``    what the teacher shares, as JSON: the text, the tokenizer's settings (or an
               imported tokenizer file), the page;
- ``step``     the step of "Step through merges", apart: it is what changes most often;
- ``quiz``     the class quiz, as JSON: which merge is asked, whether it is revealed;
- ``v``        a counter the teacher's every change increments: a student's poll reads this
               one number and finds "nothing new" without touching anything else;
- ``sv``       a counter of every change but the step's: when only ``v`` moved, a student's
               browser moves its stepping view and nothing reruns;
- ``members``  student id -> nickname (a hash, capped at MAX_STUDENTS);
- ``answers:<quiz id>``  student id -> the pair guessed (a hash, capped likewise).

Every key of a room carries the room's time to live, renewed by the teacher's changes and by
joins: a room nobody touches for ``ttl`` seconds is gone. All the logic is in ``Rooms``; the two
stores under it have one small interface (``MemoryKV``, a server's own, the default; a
``redis.Redis`` client, for several app servers, chosen by ``BPE_LAB_ROOMS=redis://...``).

    >>> rooms = Rooms(MemoryKV())
    >>> code, token = rooms.create({"text": "aaab", "step": 0}, client="t")
    >>> sid = rooms.join(code, client="s", nickname="Ann")
    >>> v = rooms.version(code)
    >>> rooms.update(code, token, step=3) > v, rooms.room(code).state["step"]
    (True, 3)
    >>> rooms.update(code, "not the token", step=4)
    Traceback (most recent call last):
    ui.rooms.RoomError: Only the teacher of room ... can change it.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import secrets
import threading
import time
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

# A join code: 8 characters from 31 that cannot be misread on a projector (no 0/O, 1/I/L).
# 31**8 is about 8.5e11 (39.6 bits): with joins limited to JOIN_TRIES_PER_MINUTE failed tries per
# client (a browser's address: a class behind one school router shares it, hence 30), guessing one
# of a hundred live rooms takes about 8.5e9 tries, some 540 years.
CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
CODE_LENGTH = 8
JOIN_TRIES_PER_MINUTE = 30
CREATES_PER_HOUR = 30  # rooms one client (address) may open
MAX_STUDENTS = 100  # members of one room
MAX_NICKNAME = 24  # characters
MAX_STATE_BYTES = 16 * 1024 * 1024  # the text (200,000 characters) or an imported file (10 MB)
DEFAULT_TTL = 3 * 3600  # seconds without a change or a join before a room is gone
PREFIX = "bpelab:"

# What the teacher's "state" may hold; anything else is refused (a student never writes it).
STATE_FIELDS = {"text", "kind", "pattern", "vocab_size", "specials", "trained", "train_text",
                "imported", "page", "follow_page", "step"}


class RoomError(ValueError):
    """A room operation that cannot be done; the message is for the person who asked."""


# -- the stores ------------------------------------------------------------------------------------


class MemoryKV:
    """The few Redis commands ``Rooms`` uses, for one process: strings, counters, hashes and
    expiry, behind one lock (Streamlit runs each session's script in a thread of its own).

    ``clock`` is injectable so that tests can move time; expired keys are dropped when touched
    and in a sweep every SWEEP_EVERY writes, so a server that sees many rooms stays bounded.
    """

    SWEEP_EVERY = 256

    def __init__(self, clock: Callable[[], float] = time.monotonic):
        self._clock = clock
        self._data: dict[str, Any] = {}
        self._deadline: dict[str, float] = {}
        self._lock = threading.Lock()
        self._writes = 0

    def _live(self, key: str) -> bool:
        deadline = self._deadline.get(key)
        if deadline is not None and self._clock() >= deadline:
            self._data.pop(key, None)
            self._deadline.pop(key, None)
        return key in self._data

    def _wrote(self) -> None:
        self._writes += 1
        if self._writes % self.SWEEP_EVERY == 0:
            for key in [k for k, d in self._deadline.items() if self._clock() >= d]:
                self._data.pop(key, None)
                self._deadline.pop(key, None)

    def get(self, key: str) -> str | None:
        with self._lock:
            return self._data[key] if self._live(key) and isinstance(self._data[key], str) else None

    def set(self, key: str, value: str, ex: int | None = None, nx: bool = False) -> bool:
        with self._lock:
            if nx and self._live(key):
                return False
            self._data[key] = value
            self._deadline.pop(key, None)
            if ex is not None:
                self._deadline[key] = self._clock() + ex
            self._wrote()
            return True

    def incr(self, key: str) -> int:
        with self._lock:
            value = int(self._data[key]) + 1 if self._live(key) else 1
            self._data[key] = str(value)
            self._wrote()
            return value

    def expire(self, key: str, seconds: int, nx: bool = False) -> bool:
        with self._lock:
            if not self._live(key) or (nx and key in self._deadline):
                return False
            self._deadline[key] = self._clock() + seconds
            return True

    def delete(self, *keys: str) -> int:
        with self._lock:
            gone = 0
            for key in keys:
                gone += self._live(key)
                self._data.pop(key, None)
                self._deadline.pop(key, None)
            return gone

    def exists(self, key: str) -> int:
        with self._lock:
            return int(self._live(key))

    def _hash(self, key: str, create: bool = False) -> dict[str, str] | None:
        if not self._live(key):
            if not create:
                return None
            self._data[key] = {}
        value = self._data[key]
        return value if isinstance(value, dict) else None

    def hset(self, key: str, field: str, value: str) -> int:
        with self._lock:
            h = self._hash(key, create=True)
            new = field not in h
            h[field] = value
            self._wrote()
            return int(new)

    def hget(self, key: str, field: str) -> str | None:
        with self._lock:
            return (self._hash(key) or {}).get(field)

    def hgetall(self, key: str) -> dict[str, str]:
        with self._lock:
            return dict(self._hash(key) or {})

    def hlen(self, key: str) -> int:
        with self._lock:
            return len(self._hash(key) or {})

    def hdel(self, key: str, field: str) -> int:
        with self._lock:
            h = self._hash(key)
            return int(h is not None and h.pop(field, None) is not None)

    def capped_hset(self, key: str, field: str, value: str, cap: int, ttl: int) -> bool:
        """Set ``field`` if it is there already or the hash has fewer than ``cap`` fields;
        the hash lives ``ttl`` seconds from now. (Redis: one Lua script, equally atomic.)"""
        with self._lock:
            h = self._hash(key, create=True)
            if field not in h and len(h) >= cap:
                return False
            h[field] = value
            self._deadline[key] = self._clock() + ttl
            self._wrote()
            return True


# Redis runs this as one step, so that concurrent joins on several servers cannot pass the cap.
CAPPED_HSET_LUA = """
if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 1 or redis.call('HLEN', KEYS[1]) < tonumber(ARGV[3]) then
  redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
  redis.call('EXPIRE', KEYS[1], tonumber(ARGV[4]))
  return 1
end
return 0
"""


class RedisKV:
    """The same interface over the official ``redis`` client (imported only when asked for)."""

    def __init__(self, url: str):
        import redis  # the one extra runtime dependency, for rooms on several servers

        self.client = redis.Redis.from_url(url, decode_responses=True, socket_timeout=2,
                                           socket_connect_timeout=2)
        self._errors = redis.RedisError
        self._capped = self.client.register_script(CAPPED_HSET_LUA)
        for name in ("get", "set", "incr", "expire", "delete", "exists", "hset", "hget",
                     "hgetall", "hlen", "hdel"):
            setattr(self, name, self._answered(getattr(self.client, name)))

    def _answered(self, command: Callable[..., Any]) -> Callable[..., Any]:
        """``command``, with Redis's failures (down, timed out) said as a RoomError."""

        def call(*args: Any, **kwargs: Any) -> Any:
            try:
                return command(*args, **kwargs)
            except self._errors as e:
                raise RoomError(f"The classroom's Redis server did not answer ({type(e).__name__})"
                                ": try again in a moment, or ask whoever runs the app.") from e

        return call

    def capped_hset(self, key: str, field: str, value: str, cap: int, ttl: int) -> bool:
        return bool(self._answered(self._capped)(keys=[key], args=[field, value, cap, ttl]))


def open_kv(setting: str | None) -> MemoryKV | RedisKV:
    """The store a setting names: empty or ``memory`` for this process's own, ``redis://...``
    (or ``rediss://``, ``unix://``) for a Redis server shared by several app servers."""
    setting = (setting or "").strip()
    if setting in ("", "memory"):
        return MemoryKV()
    if setting.split("://", 1)[0] in ("redis", "rediss", "unix"):
        return RedisKV(setting)
    raise RoomError(f"BPE_LAB_ROOMS must be empty, 'memory' or a redis:// URL, not {setting[:40]!r}")


# -- codes, tokens, names --------------------------------------------------------------------------


def new_code() -> str:
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))


def normal_code(typed: str) -> str | None:
    """A typed join code in its stored form (upper case, no spaces or dashes), or None when it
    cannot be one.

    >>> normal_code(" abcd-efgh "), normal_code("ABCD"), normal_code("ABCD-EFG0")
    ('ABCDEFGH', None, None)
    """
    code = "".join(typed.split()).replace("-", "").upper()
    if len(code) != CODE_LENGTH or any(c not in CODE_ALPHABET for c in code):
        return None
    return code


def show_code(code: str) -> str:
    """``ABCD-EFGH``: the code as the projector shows it."""
    return code[:4] + "-" + code[4:]


def _digest(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


def clean_nickname(name: str | None) -> str:
    """A nickname as stored: control and format characters dropped, spaces folded, at most
    MAX_NICKNAME characters. It is still user text: shown escaped, always.

    >>> clean_nickname("  <b>Ann</b>\\u202e\\n ")
    '<b>Ann</b>'
    """
    if not name:
        return ""
    kept = "".join(c for c in name if c.isspace() or unicodedata.category(c)[0] not in "C")
    return " ".join(kept.split())[:MAX_NICKNAME]


# -- the rooms -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Room:
    """What a member reads of a room: everything but the teacher's token."""

    code: str
    version: int
    state: dict[str, Any]
    quiz: dict[str, Any] | None
    students: int
    state_version: int = 0  # counts every change but the step's (``pulse``'s "state")


class Rooms:
    """Every room operation, over a store with the interface of ``MemoryKV``."""

    def __init__(self, kv: Any, ttl: int = DEFAULT_TTL):
        self.kv = kv
        self.ttl = ttl

    # keys
    @staticmethod
    def _key(code: str, part: str) -> str:
        return f"{PREFIX}room:{code}:{part}"

    def _keys(self, code: str, quiz_id: int | None = None) -> list[str]:
        keys = [self._key(code, p) for p in ("meta", "state", "step", "quiz", "v", "sv",
                                             "members")]
        if quiz_id is not None:
            keys.append(self._key(code, f"answers:{quiz_id}"))
        return keys

    def _limit(self, what: str, client: str, most: int, window: int) -> bool:
        """Count one ``what`` for ``client`` in a window of ``window`` seconds; False past ``most``."""
        key = f"{PREFIX}limit:{what}:{_digest(client)[:32]}"
        count = self.kv.incr(key)
        self.kv.expire(key, window, nx=True)  # the window starts with its first count
        return count <= most

    def _touch(self, code: str, quiz_id: int | None = None) -> None:
        for key in self._keys(code, quiz_id):
            self.kv.expire(key, self.ttl)

    def _check_teacher(self, code: str, token: str) -> None:
        meta = self.kv.get(self._key(code, "meta"))
        if meta is None:
            raise RoomError(f"Room {show_code(code)} has ended (or expired).")
        want = json.loads(meta)["teacher"]
        if not isinstance(token, str) or not hmac.compare_digest(want, _digest(token)):
            raise RoomError(f"Only the teacher of room {show_code(code)} can change it.")

    @staticmethod
    def _state_json(state: dict[str, Any]) -> str:
        unknown = set(state) - STATE_FIELDS
        if unknown:
            raise RoomError(f"A room does not carry {sorted(unknown)}.")
        raw = json.dumps(state, ensure_ascii=False)
        if len(raw.encode("utf-8", "surrogatepass")) > MAX_STATE_BYTES:
            raise RoomError("The text and tokenizer are too large to share in a room.")
        return raw

    # the teacher
    def create(self, state: dict[str, Any], client: str) -> tuple[str, str]:
        """Open a room with this state; returns (code, the teacher's secret token)."""
        if not self._limit("create", client, CREATES_PER_HOUR, 3600):
            raise RoomError("Too many rooms opened from here: wait an hour, or reuse one.")
        state = dict(state)
        step = self._step(state.pop("step", 0))
        raw = self._state_json(state)
        token = secrets.token_urlsafe(24)
        for _ in range(20):
            code = new_code()
            if self.kv.set(self._key(code, "meta"), json.dumps({"teacher": _digest(token)}),
                           ex=self.ttl, nx=True):
                break
        else:  # pragma: no cover - 20 collisions among 8.5e11 codes
            raise RoomError("Could not find a free room code: try again.")
        self.kv.set(self._key(code, "state"), raw, ex=self.ttl)
        self.kv.set(self._key(code, "step"), str(step), ex=self.ttl)
        self.kv.set(self._key(code, "sv"), "1", ex=self.ttl)
        self.kv.set(self._key(code, "v"), "1", ex=self.ttl)
        return code, token

    @staticmethod
    def _step(step: Any) -> int:
        if isinstance(step, bool) or not isinstance(step, int) or not 0 <= step < 2**31:
            raise RoomError("The step must be a whole number.")
        return step

    def update(self, code: str, token: str, **changes: Any) -> int:
        """Change the shared state (only the teacher); returns the new version."""
        self._check_teacher(code, token)
        changes = dict(changes)
        if "step" in changes:
            self.kv.set(self._key(code, "step"), str(self._step(changes.pop("step"))),
                        ex=self.ttl)
            if not changes:
                return self._bump(code, step_only=True)
        state = json.loads(self.kv.get(self._key(code, "state")) or "{}")
        state.update(changes)
        self.kv.set(self._key(code, "state"), self._state_json(state), ex=self.ttl)
        return self._bump(code)

    def _bump(self, code: str, step_only: bool = False) -> int:
        if not step_only:
            self.kv.incr(self._key(code, "sv"))
        version = self.kv.incr(self._key(code, "v"))
        quiz = self.quiz(code)
        self._touch(code, quiz["id"] if quiz else None)
        return version

    def start_quiz(self, code: str, token: str, k: int) -> dict[str, Any]:
        """Ask the class for merge ``k + 1`` (answers to earlier questions are dropped)."""
        self._check_teacher(code, token)
        if isinstance(k, bool) or not isinstance(k, int) or k < 0:
            raise RoomError("The quiz step must be a whole number.")
        old = self.quiz(code)
        quiz = {"id": (old["id"] + 1) if old else 1, "k": k, "revealed": False}
        if old:
            self.kv.delete(self._key(code, f"answers:{old['id']}"))
        self.kv.set(self._key(code, "quiz"), json.dumps(quiz), ex=self.ttl)
        self._bump(code)
        return quiz

    def reveal_quiz(self, code: str, token: str) -> None:
        self._check_teacher(code, token)
        quiz = self.quiz(code)
        if quiz is None:
            raise RoomError("No quiz is running in this room.")
        quiz["revealed"] = True
        self.kv.set(self._key(code, "quiz"), json.dumps(quiz), ex=self.ttl)
        self._bump(code)

    def stop_quiz(self, code: str, token: str) -> None:
        self._check_teacher(code, token)
        quiz = self.quiz(code)
        self.kv.delete(self._key(code, "quiz"),
                       *([self._key(code, f"answers:{quiz['id']}")] if quiz else []))
        self._bump(code)

    def close(self, code: str, token: str) -> None:
        self._check_teacher(code, token)
        quiz = self.quiz(code)
        self.kv.delete(*self._keys(code, quiz["id"] if quiz else None))

    def answers(self, code: str, token: str) -> list[dict[str, Any]]:
        """The current question's answers (only the teacher): ``{"pair": [a, b], "nickname": ...}``."""
        self._check_teacher(code, token)
        quiz = self.quiz(code)
        if quiz is None:
            return []
        raw = self.kv.hgetall(self._key(code, f"answers:{quiz['id']}"))
        return [json.loads(v) for v in raw.values()]

    def nicknames(self, code: str, token: str) -> list[str]:
        """The students' nicknames, "" for those who gave none (only the teacher)."""
        self._check_teacher(code, token)
        return list(self.kv.hgetall(self._key(code, "members")).values())

    # everyone
    def version(self, code: str) -> int | None:
        """The room's version (None once it has ended): what a follower polls."""
        raw = self.kv.get(self._key(code, "v"))
        return None if raw is None else int(raw)

    def pulse(self, code: str, member: str) -> dict[str, int] | None:
        """What a student's browser polls: ``{"version", "state", "step"}`` (``state``: the
        count of changes other than the step's), for one of the room's students only (None for
        anyone else, so that the code alone tells nothing, and once the room has ended)."""
        if not isinstance(member, str) or not member:
            return None
        if self.kv.hget(self._key(code, "members"), member) is None:
            return None
        version, state, step = (self.kv.get(self._key(code, k)) for k in ("v", "sv", "step"))
        if version is None or state is None:
            return None
        return {"version": int(version), "state": int(state), "step": int(step or 0)}

    def quiz(self, code: str) -> dict[str, Any] | None:
        raw = self.kv.get(self._key(code, "quiz"))
        return None if raw is None else json.loads(raw)

    def room(self, code: str) -> Room | None:
        """The room as a member sees it, or None once it has ended."""
        version = self.version(code)
        raw = self.kv.get(self._key(code, "state"))
        if version is None or raw is None:
            return None
        state = json.loads(raw)
        state["step"] = int(self.kv.get(self._key(code, "step")) or 0)
        return Room(code, version, state, self.quiz(code),
                    self.kv.hlen(self._key(code, "members")),
                    int(self.kv.get(self._key(code, "sv")) or 0))

    def answered(self, code: str) -> int:
        quiz = self.quiz(code)
        return 0 if quiz is None else self.kv.hlen(self._key(code, f"answers:{quiz['id']}"))

    # a student
    def join(self, code: str, client: str, nickname: str = "", student: str | None = None) -> str:
        """Join by a typed code; returns the student's id (``student`` to rejoin as before).

        Raises RoomError for a code that is not a live room, past JOIN_TRIES_PER_MINUTE failed
        tries from ``client``, and for a full room.
        """
        normal = normal_code(code)
        live = normal is not None and self.kv.exists(self._key(normal, "meta"))
        if not live:
            if not self._limit("join", client, JOIN_TRIES_PER_MINUTE, 60):
                raise RoomError("Too many wrong codes: wait a minute, then try again.")
            raise RoomError("No room has that code: check it with your teacher.")
        sid = student or secrets.token_urlsafe(12)
        if not self.kv.capped_hset(self._key(normal, "members"), sid, clean_nickname(nickname),
                                   MAX_STUDENTS, self.ttl):
            raise RoomError(f"Room {show_code(normal)} is full ({MAX_STUDENTS} students).")
        quiz = self.quiz(normal)
        self._touch(normal, quiz["id"] if quiz else None)  # the answers live as long as the room
        return sid

    def leave(self, code: str, student: str) -> None:
        self.kv.hdel(self._key(code, "members"), student)

    def answer(self, code: str, student: str, quiz_id: int, pair: tuple[int, int]) -> None:
        """A student's guess for the current question (again: the guess is replaced)."""
        quiz = self.quiz(code)
        if quiz is None or quiz["id"] != quiz_id:
            raise RoomError("That question is over: the teacher has moved on.")
        if quiz["revealed"]:
            raise RoomError("The answer is already revealed.")
        nickname = self.kv.hget(self._key(code, "members"), student)
        if nickname is None:
            raise RoomError("Join the room again to answer.")
        if (not isinstance(pair, tuple | list) or len(pair) != 2
                or not all(isinstance(x, int) and not isinstance(x, bool) and 0 <= x < 2**31
                           for x in pair)):
            raise RoomError("An answer is a pair of token ids.")
        value = json.dumps({"pair": list(pair), "nickname": nickname})
        if not self.kv.capped_hset(self._key(code, f"answers:{quiz_id}"), student, value,
                                   MAX_STUDENTS, self.ttl):
            raise RoomError("This question has all the answers it can take.")


_SHARED: dict[str, Rooms] = {}
_SHARED_LOCK = threading.Lock()


def shared_rooms() -> Rooms:
    """This process's rooms, made once: in-process, or on the Redis server that the setting
    ``BPE_LAB_ROOMS`` names (``redis://host:port/db``); ``BPE_LAB_ROOM_TTL`` seconds of
    inactivity end a room. The pages (ui/classroom.py) and the server's HTTP route
    (ui/rooms_http.py) share it."""
    with _SHARED_LOCK:
        if "rooms" not in _SHARED:
            ttl = int(os.environ.get("BPE_LAB_ROOM_TTL", DEFAULT_TTL))
            _SHARED["rooms"] = Rooms(open_kv(os.environ.get("BPE_LAB_ROOMS")), ttl=ttl)
        return _SHARED["rooms"]
