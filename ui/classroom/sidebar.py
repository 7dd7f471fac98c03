"""The room in every page's sidebar: its code and the student's follow / leave, the "Take over
here" offer, and the room watcher (ui/classroom/component.py) with what it is told at each run.
The room's logic is ui/classroom/panel.py's; this module only draws."""

from __future__ import annotations

import time
from typing import Any

import streamlit as st
from streamlit import session_state as ss

from ui.classroom.component import TAKE_LATE_MS, WATCH_SAID
from ui.classroom.panel import (
    CLASSROOM_PAGE,
    KEEP_S,
    POLL_MS,
    RECHECK_MS,
    TEACHER_POLL_MS,
    WAIT_RERUN_MS,
    WALK_MOST,
    WALK_MS,
    Shared,
    leave,
    membership,
    set_following,
    take_over,
)
from ui.classroom.rooms import presence_id, show_code
from ui.classroom.route import STEP_PATH, VERSION_PATH
from ui.kit.escape import md_escape


def _noticed() -> None:
    """The watcher saw a new version, or the room's absence: the rerun it causes takes the room
    (``arrive``)."""


def _watch(watcher: Any, room: dict[str, Any] | None) -> None:
    data: dict[str, Any] = {"said": WATCH_SAID, "first_ms": POLL_MS, "every_ms": POLL_MS,
                            "walk_ms": WALK_MS, "walk_most": WALK_MOST,
                            "wait_ms": WAIT_RERUN_MS, "down": bool(ss.get("_room_down")),
                            # new on every run: a watcher that asked for this rerun (and
                            # stopped) starts again even when nothing else in its data changed
                            "run": time.monotonic()}
    if ss.get("_room_keys_saved") == "forget":
        data["forget"] = True
        ss["_room_keys_saved"] = None
    if room is None:
        # the watcher tells the page of another tab's key only when it differs from the one
        # the page last heard of (each run renders the watcher anew: telling it at every render
        # would rerun the page without end), or after RECHECK_MS when its teacher was not live
        data.update(ask=True, keep_ms=int(KEEP_S * 1000), take_late_ms=TAKE_LATE_MS,
                    elsewhere_seen=ss.get("_room_elsewhere_seen"),
                    recheck_ms=RECHECK_MS if ss.get("_room_elsewhere_recheck") else 0,
                    retry_ms=RECHECK_MS)
    elif room["role"] == "teacher":
        data.update(role="teacher", keep={"code": room["code"], "token": room["token"]},
                    step_url=STEP_PATH.format(code=room["code"]), tab=room["tab"],
                    url=VERSION_PATH.format(code=room["code"]) + "?teacher="
                    + presence_id(room["token"]) + "&tab=" + room["tab"],
                    first_ms=0, every_ms=TEACHER_POLL_MS)
    else:
        data.update(role="student", url=VERSION_PATH.format(code=room["code"]) + "?member="
                    + room["sid"] + "&claim=" + room.get("claim", ""), version=ss.get("_room_version"), state=ss.get("_room_state"),
                    following=room["following"], waiting=room.get("waiting", False))
        if not room["following"]:
            data["every_ms"] = TEACHER_POLL_MS  # only checking in
    watcher(data=data, key="room_watch", on_changed_change=_noticed, on_found_change=_noticed,
            on_elsewhere_change=_noticed)


def room_panel(shared: Shared) -> None:
    """The room's status in the sidebar, and the room watcher (outside a room too)."""
    room = membership()
    if room is None:
        _watch(shared.watcher(), None)
        if ss.get("_room_lost"):
            st.warning(md_escape(ss["_room_lost"]))
        there = ss.get("_room_elsewhere")
        if there:
            st.info(f"Room {show_code(there['code'])} is taught from another tab of this "
                    "browser.", icon="🧑‍🏫")
            st.button("Take over here", key="room_take_over", on_click=take_over,
                      width="stretch", help="This tab teaches the room from now on; the other "
                      "tab is told that it no longer does.")
        return
    code = show_code(room["code"])
    if room["role"] == "teacher":
        st.markdown(f"**Classroom {code}** · you teach")
        _watch(shared.watcher(), room)
        st.page_link(CLASSROOM_PAGE, label="Room, join link and class quiz", icon="🧑‍🏫")
        return
    st.markdown(f"**Classroom {code}** · you are a student")
    _watch(shared.watcher(), room)
    ss["room_follow"] = room["following"]
    st.toggle("Follow the teacher", key="room_follow", on_change=set_following,
              help="Off: explore on your own (the room's text and tokenizer stay). "
                   "On: back to the teacher's text, tokenizer and step.")
    st.button("Leave the room", key="room_leave", on_click=leave, width="stretch",
              help="Your own text and tokenizer come back.")
