"""The teacher's tools for the members and the class quiz: callbacks of the Classroom page's
buttons (pages/classroom.py). Each acts on the room the session teaches, through the store
(``panel.rooms()``), and says what it did; a tab that lost the role is told so by ``panel._call``.
"""

from __future__ import annotations

import time

from streamlit import session_state as ss

from ui.classroom.panel import _call, _say, membership, rooms
from ui.classroom.rooms import IDLE_S


def remove_member(student: str) -> None:
    """Callback of the teacher's "Remove": a member out of the room (told on their next poll)."""
    room = membership()
    if _call(rooms().remove, room["code"], room["token"], student, room.get("tab"))[0]:
        _say("Removed from the room.", "info")


AGAIN_S = 5.0  # a bulk tool's callback that finds nothing this soon after one that removed some


def _removed(tool: str, n: int) -> int:
    """How many one click of ``tool`` removed. Streamlit can run a click's callback a second time
    (a trigger replayed after its run was cut short by another rerun): that second call finds
    nothing left, and its "Removed 0" replaced the count of the click (seen once in CI: the
    teacher read "Removed 0 idle members" after one click that removed 40)."""
    last = ss.get("_room_bulk_removed")
    now = time.monotonic()
    if n == 0 and last and last[0] == tool and now - last[1] < AGAIN_S:
        return last[2]
    ss["_room_bulk_removed"] = (tool, now, n)
    return n


def remove_idle() -> None:
    """Callback of "Remove idle members": every member whose page went quiet, in one click."""
    room = membership()
    done, n = _call(rooms().remove_idle, room["code"], room["token"], room.get("tab"))
    if done:
        n = _removed("idle", n)
        _say(f"Removed {n} idle member{'s' * (n != 1)} (no live page for "
             f"{IDLE_S:.0f} s).", "info")


def remove_unadmitted() -> None:
    """Callback of "Remove everyone not admitted" (sessions a script holds, whenever joined)."""
    room = membership()
    done, n = _call(rooms().remove_unadmitted, room["code"], room["token"], tab=room.get("tab"))
    if done:
        n = _removed("unadmitted", n)
        _say(f"Removed {n} member{'s' * (n != 1)} you had not admitted (nor who answered)."
             + ("" if rooms().locked(room["code"]) else " Lock the room, or they may join "
                "again."), "info")


def admit(student: str | None = None) -> None:
    """Callback of a member's "Admit" and of "Admit everyone here now" (``student`` None): the
    bulk removals never remove them (ui/classroom/members.py)."""
    room = membership()
    done, n = _call(rooms().admit, room["code"], room["token"], student, room.get("tab"))
    if done and student is None:
        _say(f"Admitted {n} member{'s' * (n != 1)}: the removals of many never remove them.",
             "info")


def set_lock() -> None:
    """Callback of the teacher's "Lock the room" toggle."""
    room = membership()
    _call(rooms().lock, room["code"], room["token"], bool(ss.get("room_lock")), room.get("tab"))


def quiz_start(k: int) -> None:
    """Callback of "Start the class quiz" and "Next": following students go to the Classroom
    page on their next arrival (``arrive``: a new quiz id)."""
    room = membership()
    done, quiz = _call(rooms().start_quiz, room["code"], room["token"], int(k), tab=room.get("tab"))
    if done:
        ss["_room_quiz"] = quiz


def quiz_reveal() -> None:
    room = membership()
    done, quiz = _call(rooms().reveal_quiz, room["code"], room["token"], tab=room.get("tab"))
    if done:
        ss["_room_quiz"] = quiz


def quiz_stop() -> None:
    room = membership()
    if _call(rooms().stop_quiz, room["code"], room["token"], tab=room.get("tab"))[0]:
        ss["_room_quiz"] = None
