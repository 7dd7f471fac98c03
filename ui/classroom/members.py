"""A room's members: who counts, who the teacher admitted, the teacher's removals, and which
browser a member is bound to (a part of ``Rooms``, ui/classroom/rooms.py, which inherits it; the
join and the poll are there). No Streamlit here.

A member's record (the room's ``members`` hash) is ``{"n": nickname, "t": last check-in, "j":
when they joined, "l": whether a live page has checked in, "a": admitted}``.

- **Who counts.** A member whose page is live (the browser polls while its Streamlit session is
  connected, ui/classroom/route.py) counts until ``member_timeout`` after its last poll. A member
  whose page never polled, or whose session closed (``page_closed``), counts for JOIN_GRACE
  after its join or last poll, whatever its session does meanwhile: a run of the session is not
  a check-in (``check_in``), so a script that holds a session and reruns it without polling
  leaves the count 10 s after joining, as ``Rooms.join`` called in-process does.
- **Admitted.** The teacher admits a member (``admit``: one, or everyone here now), and a member
  who answers the quiz is admitted by that answer. A script that holds a session and polls like
  a browser cannot be told from a student who only watches; what tells them apart is the
  teacher's word, or an answer. The bulk removals never remove an admitted member:
  "Remove idle members" (``remove_idle``: no live page for IDLE_S) and "Remove everyone not
  admitted" (``remove_unadmitted``: whatever their page does, whenever they joined).
- **Bound to a browser.** The page's load gives its browser a key (the route's HttpOnly
  cookie, ui/classroom/route.py's ``BrowserKey``), which the join binds the member to at once
  (``bound``: its SHA-256): only that browser comes back as them by their address, a reload
  before the page's first poll included. A page whose browser brought no key (a script holding a
  session) joins with a claim (a secret that only that page's session holds, sent with its
  polls): the first poll that brings the claim binds the member to that browser's key; until
  then the member's address opened elsewhere is a new member, and a poll without the claim is
  refused.
"""

from __future__ import annotations

import hashlib
import hmac
import json
from typing import Any

JOIN_GRACE = 10.0  # seconds a member counts without a live page (after joining, or closing)
IDLE_S = 15.0  # "Remove idle members": no check-in from a live page for this long
CHECK_IN_EVERY = 5.0  # a check-in is written at most this often per member
CLAIM = "claim:"  # a ``bound`` value not yet bound to a browser: the join's claim's SHA-256


def _digest(token: str) -> str:
    """A token as the store keeps it (rooms.py's too): its SHA-256, never the token."""
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


def browser_digest(browser: str) -> str:
    return _digest("browser:" + browser)


def is_browser_key(browser: object) -> bool:
    """Whether ``browser`` can be a browser's key (route.py makes them: 43 characters)."""
    return isinstance(browser, str) and 20 <= len(browser) <= 100


class MembersMixin:
    """The members' operations; ``Rooms`` provides ``kv``, ``ttl``, ``clock``,
    ``member_timeout``, ``_key`` and ``_check_teacher``."""

    kv: Any
    ttl: int
    member_timeout: float

    # the teacher
    def members(self, code: str, token: str) -> dict[str, str]:
        """The current members (only the teacher): student id -> nickname ("" for none)."""
        self._check_teacher(code, token)
        return self._current(code)

    def nicknames(self, code: str, token: str) -> list[str]:
        """The current students' nicknames, "" for those who gave none (only the teacher)."""
        return list(self.members(code, token).values())

    def admitted(self, code: str, token: str) -> set[str]:
        """The ids of the members the teacher admitted, or who answered (only the teacher)."""
        self._check_teacher(code, token)
        return {sid for sid, raw in self.kv.hgetall(self._key(code, "members")).items()
                if json.loads(raw).get("a")}

    def admit(self, code: str, token: str, student: str | None = None,
              tab: str | None = None) -> int:
        """The teacher admits member ``student`` (None: every current member): the bulk removals
        never remove them. Returns how many were newly admitted."""
        self._check_teacher(code, token, tab)
        key = self._key(code, "members")
        who = [student] if student is not None else list(self._current(code))
        return sum(self._admit(key, sid) for sid in who)

    def _admit(self, key: str, student: str) -> bool:
        raw = self.kv.hget(key, student)
        if raw is None:
            return False
        record = json.loads(raw)
        if record.get("a"):
            return False
        record["a"] = 1
        self.kv.hset(key, student, json.dumps(record))
        return True

    def remove(self, code: str, token: str, student: str, tab: str | None = None) -> bool:
        """The teacher removes a member (a ghost, a joker): out of the count now, told on their
        next check-in, and unable to come back as the same member."""
        self._check_teacher(code, token, tab)
        return self._remove(code, [student]) == 1

    def _remove(self, code: str, students: list[str]) -> int:
        for sid in students:
            self.kv.hset(self._key(code, "removed"), sid, "1")
        if students:
            self.kv.expire(self._key(code, "removed"), self.ttl)
        return sum(self.kv.hdel(self._key(code, "members"), sid) for sid in students)

    def remove_idle(self, code: str, token: str, tab: str | None = None) -> int:
        """One click: remove every member not admitted whose page has not checked in for IDLE_S
        seconds, or never did past the join grace (a closed tab, a script that keeps no live
        page); returns how many."""
        self._check_teacher(code, token, tab)
        now = self.clock()
        idle = []
        for sid, raw in self.kv.hgetall(self._key(code, "members")).items():
            record = json.loads(raw)
            if record.get("a"):
                continue
            if now - float(record.get("t", 0)) >= IDLE_S or not record.get("l", True) and (
                    now - float(record.get("j", 0)) >= min(JOIN_GRACE, IDLE_S)):
                idle.append(sid)
        return self._remove(code, idle)

    def remove_unadmitted(self, code: str, token: str, tab: str | None = None) -> int:
        """One click: remove every member the teacher did not admit and who never answered,
        whatever their page does and whenever they joined (sessions a script holds and polls
        from); returns how many. Lock the room first, or they may join again as new members."""
        self._check_teacher(code, token, tab)
        others = [sid for sid, raw in self.kv.hgetall(self._key(code, "members")).items()
                  if not json.loads(raw).get("a")]
        return self._remove(code, others)

    def lock(self, code: str, token: str, locked: bool = True, tab: str | None = None) -> None:
        """Lock the room (no new member joins; members come back after a reload), or open it."""
        self._check_teacher(code, token, tab)
        if locked:
            self.kv.set(self._key(code, "lock"), "1", ex=self.ttl)
        else:
            self.kv.delete(self._key(code, "lock"))

    def locked(self, code: str) -> bool:
        return bool(self.kv.exists(self._key(code, "lock")))

    def removed(self, code: str, student: str) -> bool:
        return self.kv.hget(self._key(code, "removed"), student) is not None

    # members and their check-ins
    def _fresh(self, raw: str | None, now: float) -> bool:
        """A current member: checked in from a live page within ``member_timeout``, or within
        JOIN_GRACE of joining (or of its page closing) without a live page."""
        if raw is None:
            return False
        record = json.loads(raw)
        most = self.member_timeout if record.get("l", True) else min(JOIN_GRACE,
                                                                      self.member_timeout)
        return now - float(record.get("t", 0)) < most

    def check_in(self, code: str, student: str) -> bool:
        """A run of the member's Streamlit session: whether they are still a member (False for
        no member). It writes nothing: a session that runs but whose browser never polls (a
        script holding a session) counts for JOIN_GRACE after joining, no longer; only the
        browser's poll (``pulse``, vouched for by the route) is a check-in."""
        if not isinstance(student, str) or not student:
            return False
        return self.kv.hget(self._key(code, "members"), student) is not None

    def page_closed(self, code: str, student: str) -> None:
        """The member's Streamlit session closed (ui/classroom/liveness.py): it counts for
        JOIN_GRACE after its last check-in, no longer for ``member_timeout``."""
        key = self._key(code, "members")
        raw = self.kv.hget(key, student)
        if raw is not None:
            record = json.loads(raw)
            if record.get("l", True):
                record["l"] = False
                self.kv.hset(key, student, json.dumps(record))

    def _checked_in(self, key: str, student: str, record: dict[str, Any], now: float) -> None:
        """A live page's poll: written at most every CHECK_IN_EVERY seconds (at once when it is
        the page's first)."""
        if not record.get("l", True) or now - float(record.get("t", 0)) >= min(
                CHECK_IN_EVERY, self.member_timeout / 4):
            record["t"], record["l"] = now, True
            self.kv.hset(key, student, json.dumps(record))

    def _current(self, code: str) -> dict[str, str]:
        now = self.clock()
        return {sid: json.loads(raw).get("n", "")
                for sid, raw in self.kv.hgetall(self._key(code, "members")).items()
                if self._fresh(raw, now)}

    def _prune(self, code: str) -> int:
        """Drop the members who stopped checking in: their places are free again."""
        now = self.clock()
        gone = [sid for sid, raw in self.kv.hgetall(self._key(code, "members")).items()
                if not self._fresh(raw, now)]
        return sum(self.kv.hdel(self._key(code, "members"), sid) for sid in gone)

    # the browser a member is bound to
    def _bind_join(self, code: str, student: str, browser: str | None,
                   claim: str | None) -> None:
        """A page's join binds ``student``, while bound to nothing, to the page's browser when
        its key came with the page (route.py's ``BrowserKey`` gives it at the page's load): a
        reload of that page comes back as them however soon. A page whose browser brought no key
        binds them to its ``claim`` instead, and its first poll to its browser."""
        key = self._key(code, "bound")
        if self.kv.hget(key, student) is not None:
            return
        if is_browser_key(browser):
            self.kv.hset(key, student, browser_digest(browser))
        elif isinstance(claim, str) and claim:
            self.kv.hset(key, student, CLAIM + _digest("claim:" + claim))
        else:
            return
        self.kv.expire(key, self.ttl)

    def comes_back(self, code: str, student: str, browser: str | None) -> bool:
        """Whether a page in the browser whose key is ``browser`` may come back as ``student``
        by their address: only the browser they are bound to (a member not yet bound, or bound to
        nothing, is come back as by nobody: a new member)."""
        bound = self.kv.hget(self._key(code, "bound"), student)
        return (bound is not None and not bound.startswith(CLAIM) and isinstance(browser, str)
                and bool(browser) and hmac.compare_digest(bound, browser_digest(browser)))

    def _poll_bound(self, code: str, student: str, browser: str, fresh: bool,
                    claim: str) -> bool:
        """Whether a poll with ``student``'s id from the browser whose key is ``browser``
        (``fresh``: made for this poll) speaks for them: the first that brings the join's claim
        binds them to that browser; after, only that browser (or one that keeps no cookie)."""
        key = self._key(code, "bound")
        bound = self.kv.hget(key, student)
        mine = browser_digest(browser)
        if bound is None:  # joined in-process (Rooms.join), or the store lost the binding
            self.kv.hset(key, student, mine)
            self.kv.expire(key, self.ttl)
            return True
        if bound.startswith(CLAIM):
            if not (isinstance(claim, str) and claim and hmac.compare_digest(
                    bound, CLAIM + _digest("claim:" + claim))):
                return False
            self.kv.hset(key, student, mine)
            return True
        return fresh or hmac.compare_digest(bound, mine)

    def _admit_answer(self, code: str, student: str) -> None:
        """A member who answers the quiz is admitted by it."""
        self._admit(self._key(code, "members"), student)

