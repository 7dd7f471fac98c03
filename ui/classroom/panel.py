"""The live classroom in a session: a teacher shares, students follow (over ui/classroom/rooms.py).

A session is in at most one room (``ss["_room"]``), as its teacher (holding the secret token) or
as a student (holding a student id). The room touches a run in the sidebar that every page draws
first:

- ``arrive()``, before the sidebar's widgets: a ``?room=CODE`` link joins, always as a student
  (``&member=ID``: as that member again, after a reload); the teacher key this browser tab kept
  (sessionStorage: a reload), or a teacher link (``?teach=``, good once), brings the teacher back
  (``reclaim``); another tab of the same browser is offered "Take over here", and the tab that
  drove the room is told it lost the role (one tab drives); a following student takes the room's
  state (text, tokenizer, step) and, when the teacher says so or a class quiz starts, the
  teacher's page. A room the store lost is put back by its teacher's session (``restore``) while
  its students wait, then rejoin as the same members.
- ``room_panel()`` (ui/classroom/sidebar.py draws it): the room's code, follow / explore, leave, and the room watcher
  (ui/classroom/component.py), in every session: it checks in with the room's pulse every POLL_MS (an
  HTTP route of its own, ui/classroom/route.py: "nothing new" runs no script), says outages and a
  missing teacher, shows the teacher the live count. When only the step moved, it moves the
  in-browser stepping view; any other change reruns the page once, and ``arrive`` takes it.
- ``publish()``, after the sidebar (and from the step page when the browser reports a step):
  the teacher's session shares what changed since it last did, training included.

A student's own work (text, tokenizer, step) is put aside on joining and comes back on leaving;
a student who changes the sidebar while following goes on exploring alone, so that the teacher's
next change never overwrites their edit.
"""

from __future__ import annotations

import base64
import json
import secrets
from collections.abc import Callable
from pathlib import Path
from typing import Any, NamedTuple

import streamlit as st
from streamlit import session_state as ss
from streamlit.runtime.scriptrunner import get_script_run_ctx

import bpe_core
from ui.classroom import addresses
from ui.classroom import phrase as teacher_phrase
from ui.classroom.addresses import local_addresses
from ui.classroom.component import WATCH_SAID, register_watcher  # noqa: F401  (ui/sidebar/panel.py registers it)
from ui.classroom.liveness import start_sweeper
from ui.classroom.rooms import (
    MAX_NICKNAME,
    NotTeacher,
    Room,
    RoomError,
    RoomGone,
    Rooms,
    StepBehind,
    client_address,
    cut_nickname,
    normal_code,
    presence_id,
    shared_proxies,
    shared_rooms,
    show_code,
)
from ui.classroom.route import BROWSER_COOKIE, hold_member
from ui.kit.choices import KINDS, Settings, cap_text
from ui.kit.escape import md_escape
from ui.kit.families import DEFAULT_FAMILY, FAMILIES, train_limit
from ui.kit.session_keys import KEEP_PREFIX, KEPT, guard_echo, keep

POLL_MS = 250  # how often a following student's browser asks the server "anything new?"
TEACHER_POLL_MS = 1000  # how often the teacher's browser checks in and reads the counts
WALK_MS = 100  # a follower's view walks through a few steps the teacher made between two polls
WALK_MOST = 5  # ... at most this many; a longer jump is made at once
WAIT_RERUN_MS = 2000  # a student whose room the store lost asks the page this often to rejoin
LOST_WAIT_S = 60.0  # how long a missing room (not closed) may take to come back before it ends
ANSWERS_POLL_S = 1.0  # how often the teacher's quiz counts the answers
RECHECK_MS = 5000  # another tab's room whose teaching tab was not live is asked about this often
KEEP_S = 60.0  # a teaching tab's key is used after a reload within this long of its last poll
CLASSROOM_PAGE = "pages/classroom.py"
# What a student puts aside on joining and gets back on leaving (besides the sidebar's KEPT).
OWN = ("tok", "tok_settings", "tok_text", "imported", "step")


def rooms() -> Rooms:
    """The server's rooms (``ui.classroom.rooms.shared_rooms``: in this process, or on Redis)."""
    return shared_rooms()


def read_room_import(source: str) -> tuple[Any, str]:
    """The room's imported tokenizer (of any family: the room's family is the teacher's, the
    file's), read from the teacher's file(s) (``source``: the JSON of the ``imported`` state).
    ui/sidebar/panel.py keeps it, once per server."""
    from ui.exchange.files import IMPORT_PATTERNS, read_uploads

    spec = json.loads(source)
    files = [(name, base64.b64decode(data)) for name, data in spec["files"]]
    # a label this version does not know (a room from an older server): the sidecar decides
    imported = read_uploads(files, special_tokens=spec["specials"],
                            pattern=IMPORT_PATTERNS.get(spec["pattern"]))
    return imported.tok, imported.name


def membership() -> dict[str, Any] | None:
    """``{"code", "role", ...}`` of the room this session is in, or None."""
    return ss.get("_room")


def is_teacher() -> bool:
    return (membership() or {}).get("role") == "teacher"


def _client() -> str:
    """Who asks, for the limits on joins, answers and new rooms: the browser's address
    (``X-Forwarded-For`` believed only from the proxies of ``BPE_LAB_TRUSTED_PROXIES``), else
    the session."""
    try:
        headers = st.context.headers
    except Exception:  # no request behind this run
        headers = None
    if headers:  # a browser always sends some (AppTest: none)
        return client_address(st.context.ip_address, headers.get("X-Forwarded-For"),
                              shared_proxies())
    ctx = get_script_run_ctx()
    return "session:" + str(ctx.session_id if ctx else "?")


def _browser() -> str | None:
    """This browser's key (the HttpOnly cookie ui/classroom/route.py's ``BrowserKey`` gives at
    the page's load, or the room route at a member's first poll), which a member is bound to;
    None without one (AppTest, a script that holds a session)."""
    try:
        return st.context.cookies.get(BROWSER_COOKIE)
    except Exception:  # no request behind this run
        return None


def _say(message: str, kind: str = "error") -> None:
    ss["_room_message"] = (kind, message)


def show_message() -> None:
    """The last room message (a refusal, the room ending), once."""
    said = ss.pop("_room_message", None)
    if said:
        getattr(st, said[0])(md_escape(said[1]))


def _call(fn, *args, **kwargs) -> tuple[bool, Any]:
    """A room operation: (True, its result), or (False, None) with the refusal as the page's
    message. A teacher's tab refused its token (another tab took over) loses the role."""
    try:
        return True, fn(*args, **kwargs)
    except NotTeacher as e:
        if is_teacher() and not _teaches(membership()):
            _lost()
        else:
            _say(str(e))
        return False, None
    except RoomError as e:
        _say(str(e))
        return False, None


def _teaches(room: dict[str, Any]) -> bool:
    """Whether this teacher's tab still holds the room's token and drives it."""
    try:
        rooms().teaches(room["code"], room["token"], room.get("tab"))
    except NotTeacher:
        return False
    except RoomGone:  # lost by the store: this session puts it back (restore)
        return True
    return True


def _lost() -> None:
    """Another tab (or the teacher link) took the teacher's role: this tab stops teaching, and
    its browser forgets the key."""
    lost = membership()
    code = show_code(lost["code"])
    for key in ("_room", "_room_shared", "_room_quiz", "_room_teacher_link"):
        ss.pop(key, None)
    ss["_room_keys_saved"] = "forget"
    # another tab of this browser took it over with this tab's key: "Take over here" is offered
    # at once (a key taken by the teacher link on another device is no longer the room's, and
    # offers nothing). Left to the watcher's word about the other tab's key, the offer was at
    # times never made (3 browser tests, 1 run in 3 to 20: a trigger lost among the take-over's)
    _offer(f"{lost['code']}.{lost['token']}")
    # said in the sidebar until this tab is in a room again (room_panel)
    ss["_room_lost"] = (f"This tab no longer teaches room {code}: another tab or device took it "
                        "over (or this tab's key is not the room's).")


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
        "family": ss.get("family", DEFAULT_FAMILY),  # the family of BPE: students train it too
        "special_rule": ss.get("special_rule"),  # the class counts special-token text alike
        "step": ss.get("step") if isinstance(ss.get("step"), int) else 0,
        # the page only when students follow it: any other change reruns every student's page
        "page": ss.get("_page") if ss["_room"].get("follow_page") else None,
        "follow_page": bool(ss["_room"].get("follow_page")),
        "trained": None, "train_text": None, "imported": None,
    }
    settings = ss.get("tok_settings")
    if settings is not None and (how in ("regex", "basic") or settings.family != DEFAULT_FAMILY):
        state["trained"] = [settings.kind, settings.pattern, settings.vocab_size,
                            list(settings.specials), settings.family]
        if ss.get("tok_text") != cap_text(text, train_limit(settings.family))[0]:
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
    # the step comes from the in-browser view's move numbered _step_seq (pages/steps.py): a
    # rerun that carries an older move than the view already pushed does not set it back. Every
    # move names the step it was made from: the view's (``_step_from``), or else the step this
    # session last shared; the room refuses a move from a step it has left (StepBehind)
    step_from = (room.get("tab", "server"), int(ss.get("_step_seq", 0)))
    base = ss.pop("_step_from", None)
    if not isinstance(base, int) or isinstance(base, bool):
        base = last.get("step")
    try:
        rooms().update(room["code"], room["token"], step_from=step_from, tab=room.get("tab"),
                       base=base if "step" in changes else None, **changes)
    except StepBehind as e:  # the other changes are shared; the step is the room's
        ss["step"] = state["step"] = e.step
        ss["_room_shared"] = state
        return
    except NotTeacher:  # another tab took over
        _lost()
        return
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
    tab = secrets.token_urlsafe(12)
    done, made = _call(rooms().create, state, client=_client(), tab=tab)
    if not done:
        ss.pop("_room")
        return
    code, token = made
    _become_teacher(code, token, follow_page=False, tab=tab)
    ss["_room_shared"] = state
    ss["_room_teacher_link"] = "offer"  # the teacher link, offered once (pages/classroom.py)


def _become_teacher(code: str, token: str, follow_page: bool, tab: str) -> None:
    ss["_room"] = {"code": code, "role": "teacher", "token": token, "follow_page": follow_page,
                   "presence": presence_id(token), "tab": tab}
    ss["_room_keys_saved"] = None  # the browser tab keeps the teacher's key (the watcher's)
    for key in ("_room_elsewhere", "_room_elsewhere_seen", "_room_elsewhere_recheck",
                "_room_lost"):
        ss.pop(key, None)


def teacher_link(code: str, token: str, tab: str | None = None) -> str:
    """The teacher's own link back to the room (another device, a lost tab): the join link's
    address with ``?teach=CODE.KEY``, a one-time key (``Rooms.new_link``: using it gives its tab
    a new token, and the tab that taught until then loses the role). Shown to the teacher once,
    on request; never on a student's page, never in the join link."""
    key = rooms().new_link(code, token, tab)
    base = join_link(code).split("?", 1)[0]
    return f"{base}?teach={code}.{key}"


def reclaim(code: str, token: str, shared: Shared, link: bool = False) -> bool:
    """The teacher comes back (a reload of their tab, "Take over here" in another tab, or the
    teacher link on another device: ``link``, whose key ``token`` is then): the room's state
    becomes this session's, as a following student's would, and this tab drives the room."""
    tab = secrets.token_urlsafe(12)
    try:
        if link:
            token = rooms().redeem_link(code, token, tab)
        room = rooms().reclaim(code, token, tab)
    except RoomError as e:
        _say(f"Could not come back to room {show_code(code)}: {e}")
        return False
    _take(room, shared)  # the room's step: the taking tab's own is never published
    ss.pop("_step_from", None)
    _become_teacher(code, token, follow_page=bool(room.state.get("follow_page")), tab=tab)
    ss["_room_quiz"] = room.quiz
    ss["_room_shared"] = shared_state()
    _say(f"You teach room {show_code(code)} again: its text, tokenizer, step and quiz are "
         "back.", "success")
    return True


def restore() -> None:
    """The store lost the teacher's room (a Redis restart, say): put it back, under the same
    code, from this session (what it shares now and its quiz). Students rejoin by themselves."""
    room = membership()
    state = shared_state()
    if rooms().restore(room["code"], room["token"], state, ss.get("_room_quiz"), room.get("tab")):
        ss["_room_shared"] = state
        _say(f"The classroom's store lost room {show_code(room['code'])}; it is back, with "
             "your text, tokenizer, step and quiz. Students come back by themselves.", "info")


def set_follow_page() -> None:
    """Callback of the teacher's "students follow my page" toggle."""
    ss["_room"]["follow_page"] = bool(ss.get("room_follow_page"))
    publish()


def close_room() -> None:
    room = membership()
    if room and room["role"] == "teacher":
        _call(rooms().close, room["code"], room["token"], room.get("tab"))
        ss["_room_keys_saved"] = "forget"
    for key in ("_room", "_room_shared", "_room_quiz", "_room_teacher_link"):
        ss.pop(key, None)


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
    for key in saved.keys() - {*KEPT, *OWN}:  # what a reload put aside (set_aside)
        if not key.startswith(KEEP_PREFIX):
            ss[key] = saved[key]


def join(typed: str, nickname: str = "", student: str | None = None) -> bool:
    """Join a room as a student (the teacher's own session cannot); True when joined.
    ``student``: come back as that member (the ``member`` of a student's own address)."""
    if membership() is not None:
        _say("Leave the room you are in first.")
        return False
    # as the teacher sees it, and as the student does; a longer paste is cut, and said so
    nickname, cut = cut_nickname(nickname)
    claim = secrets.token_urlsafe(16)  # this page's alone: its first poll binds the member to
    done, sid = _call(rooms().join, typed, client=_client(), nickname=nickname, student=student,
                      browser=_browser(), claim=claim)  # its browser (members.py)
    if not done:
        return False
    if cut:
        _say(f"Your nickname was cut to {MAX_NICKNAME} characters: “{nickname}”.", "info")
    code = normal_code(typed)
    _hold(sid, code)
    if student is not None and not nickname:
        nickname = rooms().nickname(code, sid)  # a reload: the name the room knows
    ss.pop("_room_lost", None)
    ss["_room"] = {"code": code, "role": "student", "sid": sid, "following": True,
                   "nickname": nickname, "waiting": False, "claim": claim}
    ss["_room_link_tried"] = code  # the link (?room=CODE) of a room left is not joined again
    ss["_room_saved"] = _put_aside()
    ss["_room_version"] = None  # take the room's state on the next arrival
    return True


def _hold(sid: str, code: str) -> None:
    """This session is member ``sid``'s live page: the route counts its polls as check-ins
    while the session is connected (ui/classroom/route.py), and its closing is told to the room
    (ui/classroom/liveness.py)."""
    ctx = get_script_run_ctx()
    if ctx is not None:
        hold_member(sid, ctx.session_id, code)
        start_sweeper()


def _rejoin(room: dict[str, Any]) -> bool:
    """A student the room no longer lists (the store lost it, or they were away too long and
    their place was taken) joins again as the same member, with their answer."""
    try:
        rooms().join(room["code"], client=_client(), nickname=room.get("nickname", ""),
                     student=room["sid"], browser=_browser(), claim=room.get("claim"), own=True)
    except RoomError as e:
        leave(f"{e} Your own text and tokenizer are back.")
        return False
    mine = ss.get("_room_answer")
    quiz = rooms().quiz(room["code"])
    if mine and quiz and quiz["id"] == mine[0] and not quiz["revealed"]:
        try:
            rooms().answer(room["code"], room["sid"], mine[0], mine[1], client=_client())
        except RoomError:
            pass  # the answer is the student's to send again
    ss["_room_version"] = None  # take the room again
    return True


def room_query() -> dict[str, str]:
    """What a student's address keeps (ui/sidebar/panel.py puts it in the address bar): the room and
    the member, so that a reload comes back as the same member."""
    room = membership()
    if room and room["role"] == "student":
        return {"room": room["code"], "member": room["sid"]}
    return {}


def join_from_form() -> None:
    """Callback of the Classroom page's Join button: a refusal is said beside the form."""
    ss.pop("_room_join_error", None)
    if not join(ss.get("room_code", ""), ss.get("room_nickname", "")):
        said = ss.pop("_room_message", None)
        if said:
            ss["_room_join_error"] = said[1]


def leave(message: str | None = None) -> None:
    """Leave the room (a student gets their own work back; a teacher's room stays open)."""
    room = membership()
    if room and room["role"] == "student":
        try:
            rooms().leave(room["code"], room["sid"])
        except RoomError:
            pass  # the store does not answer: the place frees itself (no more check-ins)
        shown = {k: ss.get(k) for k in KEPT}  # the room's, in the browser until this run is drawn
        _bring_back(ss.pop("_room_saved", {}))
        guard_echo(shown)
    elif room:
        close_room()
    for key in ("_room", "_room_version", "_room_shared", "_room_answer"):
        ss.pop(key, None)
    for key in ("room", "member"):
        if key in st.query_params:
            del st.query_params[key]
    if message:
        _say(message, "info")


def _ended() -> None:
    leave(f"Room {show_code(membership()['code'])} has ended; your own text and tokenizer are "
          "back." if not is_teacher() else "The room has ended (closed or expired).")


def set_following() -> None:
    """Callback of the student's follow toggle: off explores alone, on takes the room again."""
    ss["_room"]["following"] = bool(ss.get("room_follow"))
    ss["_room_version"] = ss["_room_taken"] = None  # on: take the room's state again


def my_answer(quiz_id: int) -> tuple[int, int] | None:
    """This student's answer to question ``quiz_id`` as the room counts it (a reload keeps it:
    the new session knows nothing of it), else as this session sent it (a store that lost the
    room: ``_rejoin`` sends it again)."""
    room = membership()
    try:
        pair = rooms().answer_of(room["code"], room["sid"], quiz_id)
    except RoomError:
        pair = None
    mine = ss.get("_room_answer")
    if pair is None and mine and mine[0] == quiz_id:
        pair = tuple(mine[1])
    return pair


def answer(quiz_id: int, pair: tuple[int, int] | None) -> None:
    """Callback of the student's "Send my answer"."""
    room = membership()
    if pair is None:
        _say("Pick a pair first.", "warning")
        return
    if not _call(rooms().answer, room["code"], room["sid"], quiz_id, tuple(pair),
                 client=_client())[0]:
        return
    ss["_room_answer"] = (quiz_id, tuple(pair))


def _take(room: Room, shared: Shared) -> None:
    """Make the room's state this session's (before the sidebar is drawn)."""
    state = room.state
    for key in (*SIDEBAR, "special_rule"):  # the rule for special-token text: the teacher's too
        if state.get(key) is not None:
            keep(key, state[key])
    trained = state.get("trained")
    try:
        if trained:
            family = trained[4] if len(trained) > 4 else DEFAULT_FAMILY  # (a room before families)
            if family not in FAMILIES:
                raise ValueError(f"the room's family {str(family)[:30]!r} is none of {FAMILIES}")
            settings = Settings(trained[0], trained[1], int(trained[2]), tuple(trained[3]), family)
            text = state.get("train_text") or cap_text(state.get("text", ""),
                                                       train_limit(family))[0]
            ss["tok"] = shared.tokenizer(text, settings)
            ss["tok_settings"], ss["tok_text"] = settings, text
        if state.get("imported"):
            ss["imported"] = shared.imported(json.dumps(state["imported"], sort_keys=True))
    except ValueError as e:
        _say(f"The room's tokenizer could not be made here: {e}")
    ss["step"] = state.get("step") or 0
    ss["_room_version"], ss["_room_state"] = room.version, room.state_version
    ss["_room_taken"] = _sidebar_now()


SIDEBAR = ("text", "family", "kind", "pattern", "vocab_size", "specials")


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
    """What ui/sidebar/panel.py keeps once per server for every room's students (read-only)."""

    tokenizer: Callable[[str, Settings], bpe_core.Tokenizer]  # train_tokenizer, kept
    imported: Callable[[str], tuple[Any, str]]  # read_room_import, kept (any family)
    watcher: Callable[[], Any]  # register_watcher, kept


def arrive(shared: Shared) -> None:
    """Before the sidebar's widgets: join from a link, come back as the teacher, follow the
    room, or notice its end (or its loss by the store, which its teacher's session mends)."""
    try:
        _arrive(shared)
    except RoomError as e:  # the store did not answer: this run goes on with what it shows
        ss["_room_down"] = True
        _say(str(e))
    else:
        ss["_room_down"] = False


def _found(shared: Shared) -> None:
    """The teacher key this browser tab kept (the watcher's ``found``: a reload) or a teacher
    link (``?teach=``, good once): come back to that room as its teacher. Another tab's key (the
    watcher's ``elsewhere``) is only offered: "Take over here" (``take_over``). A join link
    (``?room=``) always joins as a student: no key is used on its page."""
    back = ss.pop("_room_come_back", None)
    if back:  # the teacher phrase, typed on the Classroom page
        _come_back(*back, shared)
        return
    told = ss.get("room_watch") or {}
    found = told.get("found") if hasattr(told, "get") else None
    elsewhere = told.get("elsewhere") if hasattr(told, "get") else None
    link = st.query_params.get("teach")
    if link:
        del st.query_params["teach"]  # out of the address bar (and off the projector) at once
        found = link
    elif st.query_params.get("room"):
        return
    else:
        found = _kept(found)
        if ss.pop("_room_take_over", False) and ss.get("_room_elsewhere"):
            there = ss.pop("_room_elsewhere")
            reclaim(there["code"], there["token"], shared)
            return
        if isinstance(elsewhere, str):  # the watcher saw another tab's key come, go or change
            ss["_room_elsewhere_seen"] = elsewhere
            _offer(_kept(elsewhere))
    if not isinstance(found, str) or found == ss.get("_room_found_tried"):
        return
    ss["_room_found_tried"] = found  # a key that failed is not tried again in this session
    code, _, token = found.partition(".")
    code = normal_code(code)
    if code is None or not token or not reclaim(code, token, shared, link=bool(link)):
        if not link:
            ss["_room_keys_saved"] = "forget"  # a key to a room that is gone


def come_back_from_form() -> None:
    """Callback of the Classroom page's "Teach this room again": the code and the teacher phrase
    go to the next ``arrive`` (the phrase's field is emptied)."""
    ss["_room_come_back"] = (ss.get("room_back_code", ""), ss.get("room_back_phrase", ""))
    ss["room_back_phrase"] = ""
    ss.pop("_room_back_error", None)


def _come_back(typed_code: str, typed_phrase: str, shared: Shared) -> None:
    """The teacher comes back with the room's code and teacher phrase (ui/classroom/phrase.py),
    from any tab or device: the room is reclaimed, or put back under its code when the store lost
    it. A refusal is said beside the form."""
    code = normal_code(typed_code)
    if code is None:
        ss["_room_back_error"] = "That is not a room code (8 letters and digits: ABCD-EFGH)."
        return
    try:
        token, there = teacher_phrase.come_back(rooms(), code, typed_phrase, _client())
    except RoomError as e:
        ss["_room_back_error"] = str(e)
        return
    if there:
        reclaim(code, token, shared)
        return
    _become_teacher(code, token, follow_page=False, tab=secrets.token_urlsafe(12))
    restore()  # the store lost it: back under its code, with what this session has


def _kept(raw: Any) -> str | None:
    """``CODE.TOKEN`` from a key the watcher found (JSON), or None."""
    if not isinstance(raw, str) or not raw.startswith("{"):
        return None
    try:
        kept = json.loads(raw)
        return f"{kept['code']}.{kept['token']}"
    except (ValueError, KeyError, TypeError):
        return None


def _offer(found: str | None) -> None:
    """Another tab of this browser teaches a room (its key, seen by the watcher): offer "Take
    over here" while that room is there and its teacher's tab checks in. A room that is there
    but whose teaching tab has not checked in lately is asked about again (``_recheck``)."""
    ss.pop("_room_elsewhere", None)
    ss["_room_elsewhere_recheck"] = False
    if found is None:
        return
    code, _, token = found.partition(".")
    code = normal_code(code)
    if code is None or not token:
        return
    try:
        if rooms().teacher_live(code, token):
            ss["_room_elsewhere"] = {"code": code, "token": token}
        else:
            ss["_room_elsewhere_recheck"] = rooms().version(code) is not None
    except RoomError:
        ss["_room_elsewhere_recheck"] = True  # the store did not answer: ask again later


def take_over() -> None:
    """Callback of "Take over here": this tab teaches the room (``arrive`` reclaims it), and the
    tab that taught it is told it lost the role."""
    ss["_room_take_over"] = True
    # the click may come with a move of this tab's stepping view: Streamlit then runs the
    # callback in that view's fragment run, and no full run (``arrive``) follows: the click was
    # lost. A rerun asked for here is always the whole page's.
    st.rerun()


def _arrive(shared: Shared) -> None:
    page_path = current_page()
    ss["_page"] = page_path
    if membership() is None:
        _found(shared)
    elif is_teacher() and not _teaches(membership()):
        _lost()  # another tab took over (its watcher saw it, or this run's change was refused)
    link_code = st.query_params.get("room")
    if link_code and membership() is None and ss.get("_room_link_tried") != normal_code(link_code):
        ss["_room_link_tried"] = normal_code(link_code)  # a refused link is not retried
        member = st.query_params.get("member")  # a student's own address: a reload
        join(link_code, student=member if isinstance(member, str) and member else None)
    room = membership()
    if room is None:
        return
    version = rooms().version(room["code"])
    if room["role"] == "teacher":
        if version is None:
            if rooms().closed(room["code"]):
                _ended()
            else:
                restore()
        return
    if version is None:
        since = room.setdefault("missing_since", rooms().clock())
        if rooms().closed(room["code"]) or rooms().clock() - since > LOST_WAIT_S:
            _ended()  # closed, or expired (nobody put it back)
        else:  # lost by the store: the teacher's session puts it back; meanwhile keep all
            room["waiting"] = True
        return
    room["waiting"] = False
    room.pop("missing_since", None)
    _hold(room["sid"], room["code"])  # each run of a member's session is its live page checking in
    if not rooms().check_in(room["code"], room["sid"]):
        if rooms().removed(room["code"], room["sid"]):
            leave(f"Your teacher removed you from room {show_code(room['code'])}; your own "
                  "text and tokenizer are back.")
            return
        if not _rejoin(room):
            return
    _detach_if_edited(room)
    if not room["following"] or version == ss.get("_room_version"):
        return
    current = rooms().room(room["code"])
    if current is None:
        return
    _take(current, shared)
    target = None
    quiz = current.quiz
    if quiz and ss.get("_room_quiz_seen") != quiz["id"]:
        ss["_room_quiz_seen"] = quiz["id"]  # a new question: to the Classroom page, once
        if my_answer(quiz["id"]) is None:  # (a reload: not for a question they answered)
            target = CLASSROOM_PAGE
    if target is None and current.state.get("follow_page") and current.state.get("page"):
        target = current.state["page"]
    if target and target != page_path:
        st.switch_page(target)


def _app_url() -> str | None:
    """The address this browser reached the app by (None in a run with no request: AppTest)."""
    try:
        return st.context.url or None
    except Exception:  # no request behind this run
        return None


def join_link(code: str) -> str:
    """The link students open (``addresses.join_url``): the teacher's token is never in it."""
    return addresses.join_url(_app_url(), code)


def network_links(code: str) -> list[str]:
    """The join link on each of this machine's network addresses (``addresses.network_urls``)."""
    return addresses.network_urls(_app_url(), code, local_addresses())
