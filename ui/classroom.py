"""The live classroom in a session: a teacher shares, students follow (over ui/rooms.py).

A session is in at most one room (``ss["_room"]``), as its teacher (holding the secret token) or
as a student (holding a student id). The room touches a run at three moments, all in the sidebar that every page draws first:

- ``arrive()``, before the sidebar's widgets: a ``?room=CODE`` link joins; a following student
  takes the room's state (text, tokenizer, step) and, when the teacher says so or a class quiz
  starts, the teacher's page.
- ``room_panel()``: the room's code, follow / explore, leave; for a following student a small
  fragment that reads the room's version every POLL_S seconds.
- ``publish()``, after the sidebar (and from the step page when the browser reports a step):
  the teacher's session shares what changed since it last did, training included. The version is one
  number: "nothing new" costs one store read and no page run; a new version reruns the page once.

A student's own work (text, tokenizer, step) is put aside on joining and comes back on leaving.
"""

from __future__ import annotations

import base64
import json
import os
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import streamlit as st
from streamlit import session_state as ss
from streamlit.runtime.scriptrunner import get_script_run_ctx

import bpe_core
from ui.choices import KINDS, MAX_TRAIN_CHARS, Settings, cap_text, train_tokenizer
from ui.escape import md_escape
from ui.rooms import DEFAULT_TTL, Room, RoomError, Rooms, normal_code, open_kv, show_code
from ui.session_keys import KEEP_PREFIX, KEPT, keep

POLL_S = 0.5  # how often a following student's browser asks "anything new?"
ANSWERS_POLL_S = 1.0  # how often the teacher's quiz counts the answers
CLASSROOM_PAGE = "pages/classroom.py"
# What a student puts aside on joining and gets back on leaving (besides the sidebar's KEPT).
OWN = ("tok", "tok_settings", "tok_text", "imported", "step")



@st.cache_resource(show_spinner=False)
def rooms() -> Rooms:
    """The server's rooms: in this process, or on the Redis server that BPE_LAB_ROOMS names."""
    ttl = int(os.environ.get("BPE_LAB_ROOM_TTL", DEFAULT_TTL))
    return Rooms(open_kv(os.environ.get("BPE_LAB_ROOMS")), ttl=ttl)


@st.cache_resource(show_spinner="Training the room's tokenizer…", max_entries=8)
def room_tokenizer(text: str, settings: Settings) -> bpe_core.Tokenizer:
    """The room's trained tokenizer, trained once per server for all its students (read-only)."""
    return train_tokenizer(text, settings)


@st.cache_resource(show_spinner="Reading the room's tokenizer file…", max_entries=4)
def room_import(source: str) -> tuple[bpe_core.Tokenizer, str]:
    """The room's imported tokenizer, read once per server from the teacher's file(s)."""
    from ui.exchange import IMPORT_PATTERNS, read_uploads

    spec = json.loads(source)
    files = [(name, base64.b64decode(data)) for name, data in spec["files"]]
    imported = read_uploads(files, special_tokens=spec["specials"],
                            pattern=IMPORT_PATTERNS[spec["pattern"]])
    return imported.tok, imported.name


def membership() -> dict[str, Any] | None:
    """``{"code", "role", ...}`` of the room this session is in, or None."""
    return ss.get("_room")


def is_teacher() -> bool:
    return (membership() or {}).get("role") == "teacher"


def following() -> bool:
    """True for a student who follows the teacher (not exploring on their own)."""
    room = membership()
    return bool(room and room["role"] == "student" and room["following"])


def _client() -> str:
    """Who asks, for the limits on joins and new rooms: the browser's address, else the session."""
    try:
        address = st.context.ip_address
    except Exception:  # no request behind this run (AppTest)
        address = None
    if isinstance(address, str) and address:
        return address
    ctx = get_script_run_ctx()
    return "session:" + str(ctx.session_id if ctx else "?")


def _say(message: str, kind: str = "error") -> None:
    ss["_room_message"] = (kind, message)


def show_message() -> None:
    """The last room message (a refusal, the room ending), once."""
    said = ss.pop("_room_message", None)
    if said:
        getattr(st, said[0])(md_escape(said[1]))


def _call(fn, *args, **kwargs):
    """A room operation; a refusal becomes the page's message and None."""
    try:
        return fn(*args, **kwargs)
    except RoomError as e:
        _say(str(e))
        return None


# -- the teacher ----------------------------------------------------------------------------------


def shared_state() -> dict[str, Any]:
    """What the teacher's session shares: the text, the tokenizer's settings (as trained) or its
    imported file, the page and the step."""
    kind = ss.get("kind")
    how = KINDS.get(kind, ("",))[0]
    text = cap_text(ss.get("text", ""))[0]
    state: dict[str, Any] = {
        "text": text, "kind": kind, "pattern": ss.get("pattern", ""),
        "vocab_size": ss.get("vocab_size"), "specials": ss.get("specials", ""),
        "step": ss.get("step") if isinstance(ss.get("step"), int) else 0,
        "page": ss.get("_page"), "follow_page": bool(ss["_room"].get("follow_page")),
        "trained": None, "train_text": None, "imported": None,
    }
    settings = ss.get("tok_settings")
    if how in ("regex", "basic") and settings is not None:
        state["trained"] = [settings.kind, settings.pattern, settings.vocab_size,
                            list(settings.specials)]
        if ss.get("tok_text") != cap_text(text, MAX_TRAIN_CHARS)[0]:
            state["train_text"] = ss.get("tok_text")
    if how == "imported":
        state["imported"] = ss.get("_import_source")
    return state


def publish() -> None:
    """Share what changed since the last publish (only in the teacher's session; cheap when
    nothing did: a comparison of a few values)."""
    room = membership()
    if not room or room["role"] != "teacher":
        return
    state = shared_state()
    last = ss.get("_room_shared") or {}
    changes = {k: v for k, v in state.items() if k not in last or last[k] != v}
    if not changes:
        return
    if _call(rooms().update, room["code"], room["token"], **changes) is not None:
        ss["_room_shared"] = state
    elif rooms().version(room["code"]) is None:
        _ended()


def open_room() -> None:
    """Callback of "Open a room": this session becomes a room's teacher."""
    ss["_room"] = {"role": "teacher", "follow_page": False}  # shared_state reads follow_page
    state = shared_state()
    made = _call(rooms().create, state, client=_client())
    if made is None:
        ss.pop("_room")
        return
    code, token = made
    ss["_room"] = {"code": code, "role": "teacher", "token": token, "follow_page": False}
    ss["_room_shared"] = state


def set_follow_page() -> None:
    """Callback of the teacher's "students follow my page" toggle."""
    ss["_room"]["follow_page"] = bool(ss.get("room_follow_page"))
    publish()


def close_room() -> None:
    room = membership()
    if room and room["role"] == "teacher":
        _call(rooms().close, room["code"], room["token"])
    for key in ("_room", "_room_shared"):
        ss.pop(key, None)


def quiz_start(k: int) -> None:
    room = membership()
    if _call(rooms().start_quiz, room["code"], room["token"], int(k)) is not None:
        ss["_page"] = CLASSROOM_PAGE


def quiz_reveal() -> None:
    room = membership()
    _call(rooms().reveal_quiz, room["code"], room["token"])


def quiz_stop() -> None:
    room = membership()
    _call(rooms().stop_quiz, room["code"], room["token"])


# -- a student ------------------------------------------------------------------------------------


def _put_aside() -> dict[str, Any]:
    keys = list(KEPT) + [KEEP_PREFIX + k for k in KEPT] + list(OWN)
    return {k: ss[k] for k in keys if k in ss}


def _bring_back(saved: dict[str, Any]) -> None:
    for key in list(KEPT) + [KEEP_PREFIX + k for k in KEPT] + list(OWN):
        if key in saved:
            ss[key] = saved[key]
        else:
            ss.pop(key, None)


def join(typed: str, nickname: str = "") -> bool:
    """Join a room as a student (the teacher's own session cannot); True when joined."""
    if membership() is not None:
        _say("Leave the room you are in first.")
        return False
    sid = _call(rooms().join, typed, client=_client(), nickname=nickname)
    if sid is None:
        return False
    code = normal_code(typed)
    ss["_room"] = {"code": code, "role": "student", "sid": sid, "following": True,
                   "nickname": nickname}
    ss["_room_link_tried"] = code  # the link (?room=CODE) of a room left is not joined again
    ss["_room_saved"] = _put_aside()
    ss["_room_version"] = None  # take the room's state on the next arrival
    return True


def join_from_form() -> None:
    """Callback of the Classroom page's Join button."""
    join(ss.get("room_code", ""), ss.get("room_nickname", ""))


def leave(message: str | None = None) -> None:
    """Leave the room (a student gets their own work back; a teacher's room stays open)."""
    room = membership()
    if room and room["role"] == "student":
        _call(rooms().leave, room["code"], room["sid"])
        _bring_back(ss.pop("_room_saved", {}))
    elif room:
        close_room()
    for key in ("_room", "_room_version", "_room_shared", "_room_answer"):
        ss.pop(key, None)
    if "room" in st.query_params:
        del st.query_params["room"]
    if message:
        _say(message, "info")


def _ended() -> None:
    leave(f"Room {show_code(membership()['code'])} has ended; your own text and tokenizer are "
          "back." if not is_teacher() else "The room has ended (closed or expired).")


def set_following() -> None:
    """Callback of the student's follow toggle: off explores alone, on takes the room again."""
    ss["_room"]["following"] = bool(ss.get("room_follow"))
    ss["_room_version"] = None


def answer(quiz_id: int, pair: tuple[int, int] | None) -> None:
    """Callback of the student's "Send my answer"."""
    room = membership()
    if pair is None:
        _say("Pick a pair first.", "warning")
        return
    if _call(rooms().answer, room["code"], room["sid"], quiz_id, tuple(pair)) is None:
        return
    ss["_room_answer"] = (quiz_id, tuple(pair))


def _take(room: Room) -> None:
    """Make the room's state this session's (before the sidebar is drawn)."""
    state = room.state
    for key in ("text", "kind", "pattern", "vocab_size", "specials"):
        if state.get(key) is not None:
            keep(key, state[key])
    trained = state.get("trained")
    try:
        if trained:
            settings = Settings(trained[0], trained[1], int(trained[2]), tuple(trained[3]))
            text = state.get("train_text") or cap_text(state.get("text", ""), MAX_TRAIN_CHARS)[0]
            ss["tok"] = room_tokenizer(text, settings)
            ss["tok_settings"], ss["tok_text"] = settings, text
        if state.get("imported"):
            ss["imported"] = room_import(json.dumps(state["imported"], sort_keys=True))
    except ValueError as e:
        _say(f"The room's tokenizer could not be made here: {e}")
    ss["step"] = state.get("step") or 0
    ss["_room_version"] = room.version


def current_page() -> str | None:
    """The running page's script, as app.py names it (``pages/steps.py``)."""
    ctx = get_script_run_ctx()
    if ctx is None:
        return None
    manager = ctx.pages_manager
    info = manager.get_pages().get(manager.current_page_script_hash) or {}
    path = info.get("script_path")
    if not path:
        return None
    path = Path(path)
    return f"{path.parent.name}/{path.name}" if path.parent.name == "pages" else None


def arrive() -> None:
    """Before the sidebar's widgets: join from a link, follow the room, or notice its end."""
    page_path = current_page()
    ss["_page"] = page_path
    link_code = st.query_params.get("room")
    if link_code and membership() is None and ss.get("_room_link_tried") != normal_code(link_code):
        ss["_room_link_tried"] = normal_code(link_code)  # a refused link is not retried
        join(link_code)
    room = membership()
    if room is None:
        return
    if room["role"] == "teacher":
        if rooms().version(room["code"]) is None:
            _ended()
        return
    version = rooms().version(room["code"])
    if version is None:
        _ended()
        return
    if not room["following"] or version == ss.get("_room_version"):
        return
    current = rooms().room(room["code"])
    if current is None:
        _ended()
        return
    _take(current)
    target = None
    quiz = current.quiz
    if quiz and ss.get("_room_quiz_seen") != quiz["id"]:
        ss["_room_quiz_seen"] = quiz["id"]  # a new question: to the Classroom page, once
        target = CLASSROOM_PAGE
    elif current.state.get("follow_page") and current.state.get("page"):
        target = current.state["page"]
    if target and target != page_path:
        st.switch_page(target)


# -- the sidebar ----------------------------------------------------------------------------------


def _poll() -> None:
    """A following student's fragment: one store read; a new version reruns the page."""
    room = membership()
    if room is None or not room["following"]:
        return
    if rooms().version(room["code"]) != ss.get("_room_version"):
        st.rerun(scope="app")


def room_panel() -> None:
    """The room's status in the sidebar (nothing outside a room)."""
    room = membership()
    if room is None:
        return
    code = show_code(room["code"])
    if room["role"] == "teacher":
        st.markdown(f"**Classroom {code}** · you teach")
        st.page_link(CLASSROOM_PAGE, label="Room, join link and class quiz", icon="🧑‍🏫")
        return
    st.markdown(f"**Classroom {code}** · you are a student")
    ss["room_follow"] = room["following"]
    st.toggle("Follow the teacher", key="room_follow", on_change=set_following,
              help="Off: explore on your own (the room's text and tokenizer stay). "
                   "On: back to the teacher's text, tokenizer and step.")
    st.button("Leave the room", key="room_leave", on_click=leave, width="stretch",
              help="Your own text and tokenizer come back.")
    if room["following"]:
        st.fragment(_poll, run_every=POLL_S)()


def join_link(code: str) -> str:
    """The link students open: the address this browser reached the app by, with ``?room=CODE``
    (the teacher's token is never in it)."""
    try:
        url = st.context.url
    except Exception:  # no request behind this run (AppTest)
        url = None
    if not url:
        return f"?room={code}"
    parts = urlsplit(url)
    return urlunsplit((parts.scheme, parts.netloc, "/", f"room={code}", ""))
