"""A student's room across a reload (F5): what the tab keeps, and where it goes back.

The sidebar's reload storage (ui/sidebar/panel.py, ui/sidebar/component.py) keeps one lesson per
tab. In a room, the room holds the room's state (text, tokenizer, step, quiz: a reload takes it
again from the room), so a student's tab keeps the student's own work instead: while they follow,
what they put aside on joining (it comes back when they leave); while they explore on their own,
their sidebar (they go on exploring after the reload) and, beside it, what they put aside. A teacher's tab keeps the sidebar, which
is the room's; after a reload the room's state wins (``reclaim``).
"""

from __future__ import annotations

from typing import Any

import streamlit as st
from streamlit import session_state as ss

from ui.classroom.panel import OWN, membership


def tab_keeps() -> tuple[dict[str, Any] | None, dict[str, str]]:
    """What a student's browser tab keeps for a reload (ui/sidebar/panel.py stores it), with its
    tag: a following student's own work, put aside (``{"aside": code}``: the room's state is
    the room's, and a reload takes it again); an exploring student's sidebar as it is
    (``{"explore": code}``). ``(None, {})`` for anyone else: the sidebar as it is."""
    room = membership()
    if not room or room["role"] != "student":
        return None, {}
    if room["following"]:
        return ss.get("_room_saved") or {}, {"aside": room["code"]}
    return None, {"explore": room["code"]}


def kept_aside() -> dict[str, Any] | None:
    """An exploring student's work from before joining (put aside at the join, given back on
    leaving), which their tab keeps beside their sidebar (ui/sidebar/panel.py); None for anyone
    else (a following student's tab keeps it as its lesson: ``tab_keeps``)."""
    room = membership()
    if not room or room["role"] != "student" or room["following"]:
        return None
    return ss.get("_room_saved") or {}


def reloaded(tag: dict[str, Any]) -> str:
    """Where a reload's lesson goes (its tag: ``tab_keeps``): ``"live"``, the sidebar's (no
    room and no join link, or an exploring student of this room: this sets them exploring
    again); ``"aside"``, a student's own work put aside until they leave (``set_aside``);
    ``"room"``, nowhere: the teacher's tab takes the room's state; ``"later"``: a join link's
    page that is not a member yet (the tab answered before the page's first run joined: that
    run was cut short by the answer), asked again once it joined."""
    room = membership()
    if not room:  # a join link's page not in its room (yet): what it shows is the room's
        return "later" if st.query_params.get("room") else "live"
    if room["role"] != "student":
        return "room"
    if tag.get("explore") == room["code"]:
        room["following"] = False
        return "live"
    return "aside"


def set_aside(own: dict[str, Any]) -> None:
    """A reload's own work of a student in a room (the tab kept it): what comes back on
    leaving, in place of what the new session had when it joined."""
    saved = {k: v for k, v in (ss.get("_room_saved") or {}).items() if k not in OWN}
    saved.update(own)
    ss["_room_saved"] = saved
