"""The live classroom in a session: a teacher shares, students follow (over ui/rooms.py).

A session is in at most one room (``ss["_room"]``), as its teacher (holding the secret token) or
as a student (holding a student id). The room touches a run in the sidebar that every page draws
first:

- ``arrive()``, before the sidebar's widgets: a ``?room=CODE`` link joins; a following student
  takes the room's state (text, tokenizer, step) and, when the teacher says so or a class quiz
  starts, the teacher's page.
- ``room_panel()``: the room's code, follow / explore, leave; for a following student, a small
  watcher in the browser that asks the server for the room's pulse every POLL_MS (an HTTP route
  of its own, ui/rooms_http.py: "nothing new" runs no script). When only the step moved, it moves
  the in-browser stepping view; any other change reruns the page once, and ``arrive`` takes it.
- ``publish()``, after the sidebar (and from the step page when the browser reports a step):
  the teacher's session shares what changed since it last did, training included.

A student's own work (text, tokenizer, step) is put aside on joining and comes back on leaving;
a student who changes the sidebar while following goes on exploring alone, so that the teacher's
next change never overwrites their edit.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any, NamedTuple
from urllib.parse import urlsplit, urlunsplit

import streamlit as st
from streamlit import session_state as ss
from streamlit.runtime.scriptrunner import get_script_run_ctx

import bpe_core
from ui.choices import KINDS, MAX_TRAIN_CHARS, Settings, cap_text
from ui.escape import md_escape
from ui.rooms import Room, RoomError, Rooms, normal_code, shared_rooms, show_code
from ui.rooms_http import VERSION_PATH
from ui.session_keys import KEEP_PREFIX, KEPT, keep

POLL_MS = 250  # how often a following student's browser asks the server "anything new?"
ANSWERS_POLL_S = 1.0  # how often the teacher's quiz counts the answers
CLASSROOM_PAGE = "pages/classroom.py"
# What a student puts aside on joining and gets back on leaving (besides the sidebar's KEPT).
OWN = ("tok", "tok_settings", "tok_text", "imported", "step")


def rooms() -> Rooms:
    """The server's rooms (``ui.rooms.shared_rooms``: in this process, or on Redis)."""
    return shared_rooms()


def read_room_import(source: str) -> tuple[bpe_core.Tokenizer, str]:
    """The room's imported tokenizer, read from the teacher's file(s) (``source``: the JSON of
    the ``imported`` state). ui/state.py keeps it, once per server."""
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


def _call(fn, *args, **kwargs) -> tuple[bool, Any]:
    """A room operation: (True, its result), or (False, None) with the refusal as the page's
    message."""
    try:
        return True, fn(*args, **kwargs)
    except RoomError as e:
        _say(str(e))
        return False, None


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
        # the page only when students follow it: any other change reruns every student's page
        "page": ss.get("_page") if ss["_room"].get("follow_page") else None,
        "follow_page": bool(ss["_room"].get("follow_page")),
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
    try:
        rooms().update(room["code"], room["token"], **changes)
    except RoomError as e:  # ended, or the store did not answer (the next run shares again)
        try:
            ended = rooms().version(room["code"]) is None
        except RoomError:
            ended = False
        if ended:
            _ended()
        else:
            _say(str(e))
        return
    ss["_room_shared"] = state


def open_room() -> None:
    """Callback of "Open a room": this session becomes a room's teacher."""
    ss["_room"] = {"role": "teacher", "follow_page": False}  # shared_state reads follow_page
    state = shared_state()
    done, made = _call(rooms().create, state, client=_client())
    if not done:
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
    """Callback of "Start the class quiz" and "Next": following students go to the Classroom
    page on their next arrival (``arrive``: a new quiz id)."""
    room = membership()
    _call(rooms().start_quiz, room["code"], room["token"], int(k))


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
    done, sid = _call(rooms().join, typed, client=_client(), nickname=nickname)
    if not done:
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
    ss["_room_version"] = ss["_room_taken"] = None  # on: take the room's state again


def answer(quiz_id: int, pair: tuple[int, int] | None) -> None:
    """Callback of the student's "Send my answer"."""
    room = membership()
    if pair is None:
        _say("Pick a pair first.", "warning")
        return
    if not _call(rooms().answer, room["code"], room["sid"], quiz_id, tuple(pair))[0]:
        return
    ss["_room_answer"] = (quiz_id, tuple(pair))


def _take(room: Room, shared: Shared) -> None:
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
            ss["tok"] = shared.tokenizer(text, settings)
            ss["tok_settings"], ss["tok_text"] = settings, text
        if state.get("imported"):
            ss["imported"] = shared.imported(json.dumps(state["imported"], sort_keys=True))
    except ValueError as e:
        _say(f"The room's tokenizer could not be made here: {e}")
    ss["step"] = state.get("step") or 0
    ss["_room_version"], ss["_room_state"] = room.version, room.state_version
    ss["_room_taken"] = _sidebar_now()


SIDEBAR = ("text", "kind", "pattern", "vocab_size", "specials")


def _sidebar_now() -> tuple:
    """The sidebar's values and the tokenizer, to notice a student's own change."""
    return tuple(ss.get(k) for k in SIDEBAR) + (id(ss.get("tok")), id(ss.get("imported")))


def _detach_if_edited(room: dict[str, Any]) -> None:
    """A following student who changed the sidebar (or trained) explores from now on: the
    teacher's next change must not overwrite their edit."""
    taken = ss.get("_room_taken")
    if room["following"] and taken is not None and taken != _sidebar_now():
        room["following"] = False
        _say("You changed the text or the tokenizer, so you now explore on your own: the "
             "teacher's changes no longer replace yours. Switch **Follow the teacher** on to go "
             "back.", "info")


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


class Shared(NamedTuple):
    """What ui/state.py keeps once per server for every room's students (read-only)."""

    tokenizer: Callable[[str, Settings], bpe_core.Tokenizer]  # train_tokenizer, kept
    imported: Callable[[str], tuple[bpe_core.Tokenizer, str]]  # read_room_import, kept
    watcher: Callable[[], Any]  # register_watcher, kept


def arrive(shared: Shared) -> None:
    """Before the sidebar's widgets: join from a link, follow the room, or notice its end."""
    try:
        _arrive(shared)
    except RoomError as e:  # the store did not answer: this run goes on without the room
        _say(str(e))


def _arrive(shared: Shared) -> None:
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
    _detach_if_edited(room)
    if not room["following"] or version == ss.get("_room_version"):
        return
    current = rooms().room(room["code"])
    if current is None:
        _ended()
        return
    _take(current, shared)
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


# A following student's browser asks ui/rooms_http.py for the room's pulse every POLL_MS: "nothing
# new" costs one small HTTP request and no script run. When only the step moved and the page shows
# the in-browser stepping view (ui/steps_component.py sets window.bpeStepsView), that view moves by
# itself, as under the student's own keys; any other change reruns the page (a trigger), which
# takes the room. Only numbers come in; nothing is drawn.
_WATCH_JS = """
export default function (component) {
  const { data, parentElement, setTriggerValue } = component;
  if (!data) return;
  if (parentElement.bpeStop) parentElement.bpeStop();  // a rerun: the old loop goes
  let timer = null, stopped = false;
  parentElement.bpeStop = () => { stopped = true; clearTimeout(timer); };
  const tick = async () => {
    if (stopped) return;
    if (!parentElement.isConnected) { stopped = true; return; }  // another page now
    try {
      const answer = await fetch(data.url, { cache: "no-store", credentials: "same-origin" });
      if (answer.status === 404 || answer.ok) {
        const pulse = answer.ok ? await answer.json() : { version: null, state: null };
        const view = window.bpeStepsView;
        const here = view && view.root.isConnected;
        if (pulse.state === data.state && here) {
          // only the step may differ: hold the view to the teacher's (nothing reruns here; the
          // view tells its server the step as under the student's own keys)
          if (view.step() !== pulse.step) view.follow(pulse.step);
        } else if (pulse.version !== data.version && !stopped) {
          stopped = true;  // anything else, or no stepping view: the page reruns and takes it
          setTriggerValue("changed", pulse.version === null ? -1 : pulse.version);
          return;
        }
      }
    } catch (e) { /* the server is restarting: ask again */ }
    timer = setTimeout(tick, data.every_ms);
  };
  timer = setTimeout(tick, data.every_ms);
}
"""


def register_watcher() -> Any:
    """The room watcher, a ``st.components.v2`` component (inline; ui/state.py registers it once
    per server)."""
    return st.components.v2.component("bpe_lab.room_watch", html="<span hidden></span>",
                                      js=_WATCH_JS)


def _noticed() -> None:
    """The watcher saw a new version: the rerun it causes takes the room (``arrive``)."""


def _watch(room: dict[str, Any], watcher: Any) -> None:
    url = VERSION_PATH.format(code=room["code"]) + "?member=" + room["sid"]
    watcher(data={"url": url, "version": ss.get("_room_version"),
                  "state": ss.get("_room_state"), "every_ms": POLL_MS},
                       key="room_watch", on_changed_change=_noticed)


def room_panel(shared: Shared) -> None:
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
        _watch(room, shared.watcher())


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
