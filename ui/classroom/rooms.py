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
- ``stepby``   the teacher's tab and move number the step came from: a step from an older move of
               that tab (a slow rerun) does not replace a newer one (``push_step``);
- ``members``  student id -> ``{"n": nickname, "t": last check-in, "j": when they joined,
               "l": whether a live page has checked in, "a": admitted}`` (a hash, capped at
               MAX_STUDENTS). A check-in is the watcher's poll when the route knows the
               member's Streamlit session is connected (route.py). A member silent for
               ``member_timeout`` seconds (JOIN_GRACE without a live page) is out of the count,
               and out of the room when a join needs the place (ui/classroom/members.py);
- ``driver``   the one tab of the teacher that drives the room: a change from the teacher's
               token in another tab is refused (``NotDriver``) until that tab takes over;
- ``lock``     present while the teacher has locked the room: only its members come back;
- ``link``     the SHA-256 of the teacher link's one-time key (``new_link``, ``redeem_link``);
- ``bound``    student id -> the SHA-256 of the browser key (route.py's cookie) of the page
               that joined (or, for a page that brought no key, of the browser whose poll first
               brought the join's claim: ``claim:`` and the claim's SHA-256 until then): their
               address in another browser is a new member;
- ``removed``  the student ids the teacher removed (they are told, and cannot come back as
               the same member);
- ``teacher``  when the teacher's browser last checked in: ``teacher_timeout`` seconds without
               it, and the students are told that their teacher is gone;
- ``answers:<quiz id>``  student id -> the pair guessed (a hash, capped likewise);
- ``closed``   a tombstone the teacher's "Close" leaves (a day): a room that is missing without
               it was lost by the store (a Redis restart), and its teacher's session puts it
               back (``restore``).

Every key of a room carries the room's time to live, renewed by the teacher's changes, by the
teacher's browser checking in (every minute) and by joins: a room whose teacher is gone and that
nobody touches for ``ttl`` seconds is gone. All the logic is in ``Rooms``; the two
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
    ui.classroom.store.NotTeacher: Only the teacher of room ... can change it.
"""

from __future__ import annotations

import hmac
import json
import os
import secrets
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ui.classroom.addresses import (  # noqa: F401  (also importable from here)
    LOOPBACK,
    LOOPBACK_NETS,
    client_address,
    trusted_proxies,
)
from ui.classroom.members import (  # noqa: F401  (also importable from here)
    CHECK_IN_EVERY,
    IDLE_S,
    JOIN_GRACE,
    MembersMixin,
    _digest,
)
from ui.classroom.names import (  # noqa: F401  (also importable from here)
    CODE_ALPHABET,
    CODE_LENGTH,
    MAX_NICKNAME,
    clean_nickname,
    cut_nickname,
    new_code,
    normal_code,
    show_code,
)
from ui.classroom.quiz_room import QuizMixin
from ui.classroom.store import (  # the stores and the errors, also importable from here
    CAPPED_HSET_LUA,  # noqa: F401
    MemoryKV,  # noqa: F401
    NotDriver,
    NotTeacher,
    RedisKV,  # noqa: F401
    RoomError,
    RoomGone,
    StoreDown,  # noqa: F401
    open_kv,
)

# A join code: 8 characters from 31 that cannot be misread on a projector (no 0/O, 1/I/L).
# 31**8 is about 8.5e11 (39.6 bits): with joins limited to JOIN_TRIES_PER_MINUTE failed tries per
# client (a browser's address: a class behind one school router shares it, hence 30), guessing one
# of a hundred live rooms takes about 8.5e9 tries, some 540 years. Right codes are not limited per
# address (a script behind a school's router would lock its classmates out): a room holds at most
# MAX_STUDENTS live members, and its teacher can lock it and remove many members at once.
JOIN_TRIES_PER_MINUTE = 30
CREATES_PER_HOUR = 30  # rooms one client (address) may open
MAX_STUDENTS = 100  # members of one room
ANSWERS_PER_MINUTE = 30  # quiz answers (changes of mind) per member, not per address
MEMBER_TIMEOUT = 60.0  # seconds without a check-in before a member leaves the count
TEACHER_TIMEOUT = 6.0  # seconds without the teacher's browser checking in: "teacher gone"
CLOSED_TTL = 24 * 3600  # how long a closed room's tombstone says "closed", not "lost"
MAX_STATE_BYTES = 16 * 1024 * 1024  # the text (200,000 characters) or an imported file (10 MB)
DEFAULT_TTL = 3 * 3600  # seconds without a change or a join before a room is gone
PREFIX = "bpelab:"

# What the teacher's "state" may hold; anything else is refused (a student never writes it).
STATE_FIELDS = {"text", "kind", "pattern", "vocab_size", "specials", "trained", "train_text",
                "imported", "page", "follow_page", "step", "special_rule", "family"}


# -- tokens (codes and names: ui/classroom/names.py) ------------------------------------------------


# -- the rooms -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Room:
    """What a member reads of a room: everything but the teacher's token."""

    code: str
    version: int
    state: dict[str, Any]
    quiz: dict[str, Any] | None
    students: int  # current members: those who checked in within the member timeout
    state_version: int = 0  # counts every change but the step's (``pulse``'s "state")


class StepBehind(RoomError):
    """A teacher's move made from a step that another tab has moved the room from since."""

    def __init__(self, step: int):
        super().__init__(f"The room is at step {step} now: this view was behind.")
        self.step = step


def presence_id(token: str) -> str:
    """What the teacher's browser checks in with: made from the token, but not the token (it
    can say "the teacher is here" and read the counts, nothing else)."""
    return _digest("presence:" + token)[:32]


class Rooms(MembersMixin, QuizMixin):
    """Every room operation, over a store with the interface of ``MemoryKV``.

    ``clock`` (wall-clock seconds, shared by every app server) times the members' and the
    teacher's check-ins; ``member_timeout`` and ``teacher_timeout`` are how long each may be
    silent (``BPE_LAB_MEMBER_TIMEOUT``, ``BPE_LAB_TEACHER_TIMEOUT``).
    """

    def __init__(self, kv: Any, ttl: int = DEFAULT_TTL, clock: Callable[[], float] = time.time,
                 member_timeout: float = MEMBER_TIMEOUT, teacher_timeout: float = TEACHER_TIMEOUT):
        self.kv = kv
        self.ttl = ttl
        self.clock = clock
        self.member_timeout = member_timeout
        self.teacher_timeout = teacher_timeout

    # keys
    @staticmethod
    def _key(code: str, part: str) -> str:
        return f"{PREFIX}room:{code}:{part}"

    def _keys(self, code: str, quiz_id: int | None = None) -> list[str]:
        keys = [self._key(code, p) for p in ("meta", "state", "step", "quiz", "v", "sv",
                                             "members", "removed", "teacher", "stepby",
                                             "driver", "lock", "link", "bound")]
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

    def _meta(self, code: str) -> dict[str, Any] | None:
        raw = self.kv.get(self._key(code, "meta"))
        return None if raw is None else json.loads(raw)

    def _check_teacher(self, code: str, token: str, tab: str | None = None) -> None:
        """The token is the teacher's; and ``tab`` (when given) is the tab that drives."""
        meta = self._meta(code)
        if meta is None:
            raise RoomGone(f"Room {show_code(code)} has ended (or expired).")
        if not isinstance(token, str) or not hmac.compare_digest(meta["teacher"], _digest(token)):
            raise NotTeacher(f"Only the teacher of room {show_code(code)} can change it.")
        if tab is not None and not self.drives(code, tab):
            raise NotDriver(f"Room {show_code(code)} is taught from another tab now: this tab "
                            "no longer changes it.")

    def teaches(self, code: str, token: str, tab: str | None = None) -> None:
        """Raises NotTeacher (NotDriver) unless ``token`` is the teacher's (and ``tab`` drives)."""
        self._check_teacher(code, token, tab)

    def teacher_live(self, code: str, token: str) -> bool:
        """Whether ``token`` is the room's teacher's and the teacher's tab checked in lately
        (another tab of that browser is offered "Take over here" only then)."""
        try:
            self._check_teacher(code, token)
        except NotTeacher:
            return False
        seen = self.kv.get(self._key(code, "teacher"))
        return seen is not None and self.clock() - float(seen) < self.teacher_timeout

    def drives(self, code: str, tab: str) -> bool:
        """Whether ``tab`` is the teacher's tab that drives the room (a room without one: any)."""
        driver = self.kv.get(self._key(code, "driver"))
        return driver is None or (isinstance(tab, str) and hmac.compare_digest(driver, tab[:64]))

    @staticmethod
    def _state_json(state: dict[str, Any]) -> str:
        unknown = set(state) - STATE_FIELDS
        if unknown:
            raise RoomError(f"A room does not carry {sorted(unknown)}.")
        raw = json.dumps(state, ensure_ascii=False)
        if len(raw.encode("utf-8", "surrogatepass")) > MAX_STATE_BYTES:
            raise RoomError("The text and tokenizer are too large to share in a room.")
        return raw

    def _write_room(self, code: str, token: str, state: dict[str, Any], version: int,
                    quiz: dict[str, Any] | None = None, tab: str | None = None) -> bool:
        """A room's keys, written afresh; False when ``code`` is taken."""
        state = dict(state)
        step = self._step(state.pop("step", 0))
        raw = self._state_json(state)
        meta = json.dumps({"teacher": _digest(token), "presence": _digest(presence_id(token))})
        if not self.kv.set(self._key(code, "meta"), meta, ex=self.ttl, nx=True):
            return False
        self.kv.set(self._key(code, "state"), raw, ex=self.ttl)
        self.kv.set(self._key(code, "step"), str(step), ex=self.ttl)
        if quiz is not None:
            self.kv.set(self._key(code, "quiz"), json.dumps(quiz), ex=self.ttl)
        self.kv.set(self._key(code, "teacher"), repr(self.clock()), ex=self.ttl)
        if tab:
            self.kv.set(self._key(code, "driver"), tab[:64], ex=self.ttl)
        self.kv.set(self._key(code, "sv"), str(version), ex=self.ttl)
        self.kv.set(self._key(code, "v"), str(version), ex=self.ttl)
        return True

    # the teacher
    def create(self, state: dict[str, Any], client: str, tab: str | None = None
               ) -> tuple[str, str]:
        """Open a room with this state; returns (code, the teacher's secret token). ``tab``: the
        teacher's tab that drives it (None: any tab with the token)."""
        if not self._limit("create", client, CREATES_PER_HOUR, 3600):
            raise RoomError("Too many rooms opened from here: wait an hour, or reuse one.")
        self._state_json({k: v for k, v in state.items() if k != "step"})  # refused before a code
        token = secrets.token_urlsafe(24)
        for _ in range(20):
            code = new_code()
            if self._write_room(code, token, state, 1, tab=tab):
                return code, token
        raise RoomError("Could not find a free room code: try again.")  # pragma: no cover

    def restore(self, code: str, token: str, state: dict[str, Any],
                quiz: dict[str, Any] | None = None, tab: str | None = None) -> bool:
        """Put a room the store lost (a restart) back under its code, from the teacher's
        session: its state and quiz, a version no student has seen (so that every student takes
        it). True when restored; False when the room is there (nothing to do). Refused for a
        room its teacher closed, and for another teacher's room."""
        if self.kv.exists(self._key(code, "closed")):
            raise RoomError(f"Room {show_code(code)} was closed.")
        if self._meta(code) is not None:
            self._check_teacher(code, token)
            return False
        version = int(self.clock() * 1000) % 2**52  # above the versions before the loss
        return self._write_room(code, token, state, version, quiz, tab=tab)

    def reclaim(self, code: str, token: str, tab: str | None = None) -> Room:
        """The room, for its teacher coming back (a reload, or "Take over here" in another tab):
        ``tab`` drives it from now on, and the tab that drove it is refused its next change."""
        self._check_teacher(code, token)
        if tab:
            self.kv.set(self._key(code, "driver"), tab[:64], ex=self.ttl)
            self._taken(code)
        self.teacher_here(code, token)
        room = self.room(code)
        if room is None:  # pragma: no cover - ended between the two reads
            raise RoomError(f"Room {show_code(code)} has ended (or expired).")
        return room

    @staticmethod
    def _step(step: Any) -> int:
        if isinstance(step, bool) or not isinstance(step, int) or not 0 <= step < 2**31:
            raise RoomError("The step must be a whole number.")
        return step

    def update(self, code: str, token: str, step_from: tuple[str, int] | None = None,
               tab: str | None = None, base: int | None = None, **changes: Any) -> int:
        """Change the shared state (only the teacher, from the tab that drives when ``tab`` is
        given); returns the new version.

        ``step_from`` is (the teacher's tab, the number of the view's move) that the step comes
        from: a step from a move older than one this tab already set is left out (``push_step``).
        ``base`` is the step the move was made from: a move from a step the room has left since
        another tab (or a take-over) set it is refused with ``StepBehind``, after the other
        changes are made.
        """
        self._check_teacher(code, token, tab)
        changes = dict(changes)
        behind = None
        if "step" in changes:
            step = self._step(changes.pop("step"))
            if base is not None and step_from is not None:
                behind = self._behind(code, base, step_from[0])
            if behind is None and (step_from is None or self._newer(code, *step_from)):
                self.kv.set(self._key(code, "step"), str(step), ex=self.ttl)
                if not changes:
                    return self._bump(code, step_only=True)
        version = self.version(code) or 0
        if changes:
            state = json.loads(self.kv.get(self._key(code, "state")) or "{}")
            state.update(changes)
            self.kv.set(self._key(code, "state"), self._state_json(state), ex=self.ttl)
            version = self._bump(code)
        if behind is not None:
            raise StepBehind(behind)
        return version

    def _behind(self, code: str, base: Any, tab: str) -> int | None:
        """The room's step when a move made from step ``base`` by ``tab`` comes from a step the
        room has left since another tab (or a take-over) set it; None when the move may go on
        (within one tab, the moves' numbers order them)."""
        now = self.step(code)
        last = json.loads(self.kv.get(self._key(code, "stepby")) or "{}")
        if self._step(base) != now and last.get("tab") not in (None, tab[:64]):
            return now
        return None

    def _newer(self, code: str, tab: str, seq: int) -> bool:
        """Whether move ``seq`` of the teacher's ``tab`` is no older than the last step set (and
        if so, it is the last now). Another tab's move is always newer: the last hand wins."""
        key = self._key(code, "stepby")
        raw = self.kv.get(key)
        if raw is not None:
            last = json.loads(raw)
            if last.get("tab") == tab and int(last.get("seq", 0)) > seq:
                return False
        self.kv.set(key, json.dumps({"tab": tab, "seq": seq}), ex=self.ttl)
        return True

    def push_step(self, code: str, token: str, step: int, tab: str, seq: int,
                  base: int | None = None) -> bool:
        """The teacher's in-browser view sets the room's step directly, at each key (the route
        ``POST .../step``), without waiting for its page's rerun: no step is merged away when
        the teacher's server is slow. Only from the tab that drives (``NotDriver`` otherwise).
        ``base`` is the step the move was made from: a move from another step than the one
        another tab set last (a view that is not up to date) is refused with ``StepBehind``, so
        the class never goes back; within one tab, the moves' numbers order them. False for a
        move older than one this tab already set."""
        if not isinstance(tab, str) or not tab or isinstance(seq, bool) or not isinstance(seq, int):
            raise RoomError("A step needs the tab and the number of its move.")
        self._check_teacher(code, token, tab)
        step = self._step(step)
        behind = None if base is None else self._behind(code, base, tab)
        if behind is not None:
            raise StepBehind(behind)
        if not self._newer(code, tab[:64], seq):
            return False
        self.kv.set(self._key(code, "step"), str(step), ex=self.ttl)
        self._bump(code, step_only=True)
        return True

    def step(self, code: str) -> int:
        """The room's step (0 for a room that is not there)."""
        return int(self.kv.get(self._key(code, "step")) or 0)

    # the teacher link, good once
    def new_link(self, code: str, token: str, tab: str | None = None) -> str:
        """A one-time key for the teacher link (``?teach=CODE.KEY``); an earlier one stops
        working. Only its SHA-256 is kept."""
        self._check_teacher(code, token, tab)
        key = secrets.token_urlsafe(24)
        self.kv.set(self._key(code, "link"), _digest("link:" + key), ex=self.ttl)
        return key

    def redeem_link(self, code: str, key: str, tab: str) -> str:
        """The teacher link's key, used (once): the teacher's token is replaced by a new one,
        returned, and ``tab`` drives; the tab that taught until now holds a dead token."""
        meta = self._meta(code)
        stored = self.kv.get(self._key(code, "link"))
        if (meta is None or stored is None or not isinstance(key, str)
                or not hmac.compare_digest(stored, _digest("link:" + key))
                or not self.kv.delete(self._key(code, "link"))):  # two at once: one wins
            raise NotTeacher(f"This teacher link for room {show_code(code)} was used already, "
                             "or is not the room's.")
        token = secrets.token_urlsafe(24)
        self.kv.set(self._key(code, "meta"), json.dumps(
            {"teacher": _digest(token), "presence": _digest(presence_id(token))}), ex=self.ttl)
        self.kv.set(self._key(code, "driver"), tab[:64], ex=self.ttl)
        self._taken(code)
        self.teacher_here(code, token)
        return token

    def _taken(self, code: str) -> None:
        """A take-over: the tab that takes adopts the room's step. Its moves from any other step
        (made before it took over, arriving after) are refused (``_behind``)."""
        self.kv.set(self._key(code, "stepby"), json.dumps({"tab": "", "seq": 0}), ex=self.ttl)

    def _bump(self, code: str, step_only: bool = False) -> int:
        if not step_only:
            self.kv.incr(self._key(code, "sv"))
        version = self.kv.incr(self._key(code, "v"))
        quiz = self.quiz(code)
        self._touch(code, quiz["id"] if quiz else None)
        return version

    def close(self, code: str, token: str, tab: str | None = None) -> None:
        """End the room; its students are told it was closed (not lost) for CLOSED_TTL."""
        self._check_teacher(code, token, tab)
        quiz = self.quiz(code)
        self.kv.set(self._key(code, "closed"), "1", ex=CLOSED_TTL)
        self.kv.delete(*self._keys(code, quiz["id"] if quiz else None))

    def closed(self, code: str) -> bool:
        """Whether the room's teacher closed it (rather than the store losing it)."""
        return bool(self.kv.exists(self._key(code, "closed")))

    def answers(self, code: str, token: str) -> list[dict[str, Any]]:
        """The current question's answers of the current members, one each (only the teacher):
        ``{"pair": [a, b], "nickname": ...}``. The count ("n of N") counts the same answers."""
        self._check_teacher(code, token)
        return self.tally(code)[0]

    def tally(self, code: str) -> tuple[list[dict[str, Any]], int]:
        """(the current members' answers to the current question, the current members): one
        reading, so that the count and the reveal agree."""
        current = self._current(code)
        quiz = self.quiz(code)
        if quiz is None:
            return [], len(current)
        raw = self.kv.hgetall(self._key(code, f"answers:{quiz['id']}"))
        return [json.loads(v) for sid, v in raw.items() if sid in current], len(current)

    def teacher_here(self, code: str, token: str) -> None:
        """The teacher's session checks in (also done by ``pulse`` with the presence id)."""
        self.kv.set(self._key(code, "teacher"), repr(self.clock()), ex=self.ttl)


    # everyone
    def version(self, code: str) -> int | None:
        """The room's version (None once it has ended): what a follower polls."""
        raw = self.kv.get(self._key(code, "v"))
        return None if raw is None else int(raw)

    def pulse(self, code: str, member: str = "", teacher: str = "", live: bool = True,
              tab: str = "", browser: str = "", fresh: bool = False,
              claim: str = "") -> dict[str, Any] | None:
        """What a browser polls (a student's poll is their check-in when ``live``: the route
        says so only when the member's Streamlit session is connected, ui/classroom/route.py).

        A student (``member``: their id) gets ``{"version", "state", "step", "teacher"}``
        (``state``: the count of changes other than the step's; ``teacher``: whether the
        teacher's browser checked in lately). The teacher's browser (``teacher``: its presence
        id) gets ``{"version", "students", "answered", "drives"}``: the live counts, and whether
        its ``tab`` is the one that drives the room. Anyone else gets None,
        so that the code alone tells nothing, and so does everyone once the room is gone.
        """
        now = self.clock()
        if isinstance(teacher, str) and teacher:
            meta = self._meta(code)
            if meta is None or not hmac.compare_digest(meta.get("presence", ""),
                                                       _digest(teacher)):
                return None
            last = self.kv.get(self._key(code, "teacher"))
            self.kv.set(self._key(code, "teacher"), repr(now), ex=self.ttl)
            version = self.version(code)
            if version is None:
                return None
            if last is None or now - float(last) > 60:  # a room lives while its teacher is here
                quiz = self.quiz(code)
                self._touch(code, quiz["id"] if quiz else None)
            current = self._current(code)
            return {"version": version, "students": len(current),
                    "answered": self._answered(code, current), "drives": self.drives(code, tab)}
        if not isinstance(member, str) or not member:
            return None
        key = self._key(code, "members")
        raw = self.kv.hget(key, member)
        if raw is None:
            return None
        record = json.loads(raw)
        # the route's: the browser's key (a cookie; ``fresh``: made for this poll, the browser
        # had none) and the join's claim; a poll that does not speak for the member: None
        if browser and not self._poll_bound(code, member, browser, fresh, claim):
            return None
        said = self.followed(code)[0]
        if said is None:
            return None
        if live:
            self._checked_in(key, member, record, now)
        return said

    def followed(self, *codes: str) -> list[dict[str, Any] | None]:
        """What a student's poll answers about each room (``{"version", "state", "step",
        "teacher"}``; None for a room that is gone), all read in one request to the store: the
        route reads it once for every poll it holds on a room (ui/classroom/route.py)."""
        now = self.clock()
        raw = self.kv.mget(*(self._key(code, k) for code in codes
                             for k in ("v", "sv", "step", "teacher")))
        out: list[dict[str, Any] | None] = []
        for i in range(0, len(raw), 4):
            version, state, step, seen = raw[i:i + 4]
            out.append(None if version is None or state is None else {
                "version": int(version), "state": int(state), "step": int(step or 0),
                "teacher": seen is not None and now - float(seen) < self.teacher_timeout})
        return out

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
        return Room(code, version, state, self.quiz(code), len(self._current(code)),
                    int(self.kv.get(self._key(code, "sv")) or 0))

    def _answered(self, code: str, current: dict[str, str]) -> int:
        quiz = self.quiz(code)
        if quiz is None:
            return 0
        return len(set(self.kv.hgetall(self._key(code, f"answers:{quiz['id']}"))) & set(current))

    def answered(self, code: str) -> int:
        """How many of the current members answered the current question ("n of N")."""
        return self._answered(code, self._current(code))

    # a student
    def join(self, code: str, client: str, nickname: str = "", student: str | None = None,
             browser: str | None = None, claim: str | None = None, own: bool = False) -> str:
        """Join by a typed code; returns the student's id (``student``: come back as that member,
        e.g. after a reload or after the store lost the room).

        Raises RoomError for a code that is not a live room, past JOIN_TRIES_PER_MINUTE failed
        tries from ``client``, for a member the teacher removed, for a new member of a locked
        room, and for a room with MAX_STUDENTS current members (members whose page stopped
        checking in make way). Right codes are not limited per address. ``browser``: the
        browser's key (route.py's cookie): ``student`` from an address is come back as only in
        the browser they are bound to (``comes_back``), else this is a new member; ``own``: the
        member's own session asks (it holds the id, the store lost them). A new member is bound at
        once to ``browser``; a page that brought none, to ``claim`` (the page's secret, which its
        first poll binds the member to its browser with; members.py).
        """
        normal = normal_code(code)
        live = normal is not None and self.kv.exists(self._key(normal, "meta"))
        if not live:
            if not self._limit("join", client, JOIN_TRIES_PER_MINUTE, 60):
                raise RoomError("Too many wrong codes: wait a minute, then try again.")
            raise RoomError("No room has that code: check it with your teacher.")
        key = self._key(normal, "members")
        if student is not None:
            if not isinstance(student, str) or not 8 <= len(student) <= 64:
                student = None
            elif self.removed(normal, student):
                raise RoomError(f"Your teacher removed you from room {show_code(normal)}.")
        if student is not None and not own and not self.comes_back(normal, student, browser):
            student = None  # their address in another browser, or before their page polled
        old = self.kv.hget(key, student) if student is not None else None
        back = old is not None
        if not back and self.locked(normal):
            raise RoomError(f"Room {show_code(normal)} is locked: ask your teacher to open it.")
        sid = student or secrets.token_urlsafe(12)
        nickname = clean_nickname(nickname)
        if back and not nickname:  # a reload does not know the nickname: the room keeps it
            nickname = self.nickname(normal, sid)
        now = self.clock()
        record = {"n": nickname, "t": now, "j": now, "l": False}
        if back:  # the join and the admission are kept
            kept = json.loads(old)
            record.update({k: kept[k] for k in ("j", "a") if k in kept})
        value = json.dumps(record)
        if not self.kv.capped_hset(key, sid, value, MAX_STUDENTS, self.ttl):
            if not (self._prune(normal) and self.kv.capped_hset(key, sid, value, MAX_STUDENTS,
                                                                  self.ttl)):
                raise RoomError(f"Room {show_code(normal)} is full ({MAX_STUDENTS} students).")
        self._bind_join(normal, sid, browser, claim)
        quiz = self.quiz(normal)
        self._touch(normal, quiz["id"] if quiz else None)  # the answers live as long as the room
        return sid

    def nickname(self, code: str, student: str) -> str:
        """A member's nickname as the room keeps it ("" for none, or for no member)."""
        raw = self.kv.hget(self._key(code, "members"), student)
        return "" if raw is None else json.loads(raw).get("n", "")

    def answer_of(self, code: str, student: str, quiz_id: int) -> tuple[int, int] | None:
        """The pair member ``student`` sent for question ``quiz_id``, as the room counts it (None:
        none): what their page shows after a reload, which keeps nothing of the answer."""
        raw = self.kv.hget(self._key(code, f"answers:{quiz_id}"), student)
        if raw is None:
            return None
        pair = json.loads(raw).get("pair")
        return (int(pair[0]), int(pair[1])) if isinstance(pair, list) and len(pair) == 2 else None

    def is_member(self, code: str, student: str) -> bool:
        return self.kv.hget(self._key(code, "members"), student) is not None

    def leave(self, code: str, student: str) -> None:
        self.kv.hdel(self._key(code, "members"), student)

    def answer(self, code: str, student: str, quiz_id: int, pair: tuple[int, int],
               client: str = "") -> None:
        """A current member's guess for the current question, one per member (again: the guess
        is replaced); at most ANSWERS_PER_MINUTE from one member. (``client`` is not counted:
        a class behind one router shares it.)"""
        quiz = self.quiz(code)
        if quiz is None or quiz["id"] != quiz_id:
            raise RoomError("That question is over: the teacher has moved on.")
        if quiz["revealed"]:
            raise RoomError("The answer is already revealed.")
        raw = self.kv.hget(self._key(code, "members"), student)
        if not self._fresh(raw, self.clock()):
            raise RoomError("Join the room again to answer.")
        if (not isinstance(pair, tuple | list) or len(pair) != 2
                or not all(isinstance(x, int) and not isinstance(x, bool) and 0 <= x < 2**31
                           for x in pair)):
            raise RoomError("An answer is a pair of token ids.")
        if not self._limit("answer", f"{code}:{student}", ANSWERS_PER_MINUTE, 60):
            raise RoomError("Too many answers from you: wait a minute, then send it again.")
        value = json.dumps({"pair": list(pair), "nickname": json.loads(raw).get("n", "")})
        key = self._key(code, f"answers:{quiz_id}")
        if not self.kv.capped_hset(key, student, value, MAX_STUDENTS, self.ttl):
            current = self._current(code)  # answers of members who are gone make way
            for sid in set(self.kv.hgetall(key)) - set(current):
                self.kv.hdel(key, sid)
            if not self.kv.capped_hset(key, student, value, MAX_STUDENTS, self.ttl):
                raise RoomError("This question has all the answers it can take.")
        self._admit_answer(code, student)  # an answer admits (members.py)


_SHARED: dict[str, Any] = {}
_SHARED_LOCK = threading.Lock()


def shared_rooms() -> Rooms:
    """This process's rooms, made once: in-process, or on the Redis server that the setting
    ``BPE_LAB_ROOMS`` names (``redis://host:port/db``); ``BPE_LAB_ROOM_TTL`` seconds of
    inactivity end a room, ``BPE_LAB_MEMBER_TIMEOUT`` seconds without a poll take a student out
    of the count, ``BPE_LAB_TEACHER_TIMEOUT`` seconds without the teacher's tell the students
    their teacher is gone. The pages (ui/classroom/panel.py) and the server's HTTP route
    (ui/classroom/route.py) share it."""
    with _SHARED_LOCK:
        if "rooms" not in _SHARED:
            env = os.environ.get
            _SHARED["rooms"] = Rooms(
                open_kv(env("BPE_LAB_ROOMS")), ttl=int(env("BPE_LAB_ROOM_TTL", DEFAULT_TTL)),
                member_timeout=float(env("BPE_LAB_MEMBER_TIMEOUT", MEMBER_TIMEOUT)),
                teacher_timeout=float(env("BPE_LAB_TEACHER_TIMEOUT", TEACHER_TIMEOUT)))
        return _SHARED["rooms"]


def shared_proxies() -> tuple[Any, ...]:
    """The trusted proxies of ``BPE_LAB_TRUSTED_PROXIES``, read once per process."""
    with _SHARED_LOCK:
        if "proxies" not in _SHARED:
            _SHARED["proxies"] = trusted_proxies(os.environ.get("BPE_LAB_TRUSTED_PROXIES"))
        return _SHARED["proxies"]
