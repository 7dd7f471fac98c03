"""The classroom's one HTTP route: a student's browser asks "has the room changed?" here.

``GET /_bpelab/rooms/<CODE>/version?member=<student id>`` answers ``{"version": V, "state": S,
"step": K, "teacher": true}`` (``Rooms.pulse``) for a student of that room, and
``?teacher=<presence id>`` answers the teacher's browser ``{"version", "students", "answered"}``
(the live counts; ``&tab=`` adds ``"drives"``: whether that tab still drives the room); 404 for
anyone else (the code alone tells nothing) and once the room is gone, 503 when the store does not
answer. A student's poll is their check-in only while their Streamlit session is connected to
this server (``live_member``): a script that polls with a member id, and holds no session open,
drops out of the count.

``POST /_bpelab/rooms/<CODE>/step`` with ``{"token", "step", "tab", "seq", "base"}`` (JSON) is
the teacher's in-browser stepping view setting the room's step at each key (``Rooms.push_step``),
so that no step waits for, or is merged away by, the teacher's page's rerun: 200 ``{"set": bool,
"step": the room's step}`` (``"behind": true``: a move from a step another tab has moved the room
from, which the view then catches up with), 409 ``{"set": false, "step"}`` from a tab that no longer drives the room,
403 without the teacher's token, 404 once the room is gone, 400 for anything malformed. It reads one number from the room store (ui/classroom/rooms.py) and runs no Streamlit script,
so a class of students asking twice a second costs the server little; a student's page reruns
only when the number changes (ui/classroom/panel.py). app.py serves it beside the app (``st.App``).
"""

from __future__ import annotations

import json
import secrets
import threading

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from ui.classroom.rooms import (
    NotDriver,
    NotTeacher,
    RoomError,
    RoomGone,
    StepBehind,
    StoreDown,
    shared_rooms,
)

VERSION_PATH = "/_bpelab/rooms/{code}/version"
STEP_PATH = "/_bpelab/rooms/{code}/step"
MAX_BODY = 4096  # bytes of a step's JSON
NO_STORE = {"Cache-Control": "no-store"}
BROWSER_COOKIE = "bpelab_browser"  # the browser's key, which a member is bound to
BROWSER_COOKIE_S = 30 * 24 * 3600
MAX_LIVE = 20_000  # members this server vouches for (a bound: the oldest are dropped)

# member id -> the Streamlit session that holds it on this server (ui/classroom/panel.py says so
# at each of the member's runs). A poll checks the member in only while that session is connected.
_LIVE: dict[str, str] = {}
_LIVE_LOCK = threading.Lock()


_ROOM: dict[str, str] = {}  # member id -> the code of its room (closed_members says which)


def hold_member(member: str, session_id: str, code: str = "") -> None:
    """This server's session ``session_id`` is member ``member``'s page (each of its runs)."""
    with _LIVE_LOCK:
        _LIVE.pop(member, None)
        _LIVE[member] = session_id
        _ROOM[member] = code
        while len(_LIVE) > MAX_LIVE:
            oldest = next(iter(_LIVE))
            del _LIVE[oldest]
            _ROOM.pop(oldest, None)


def closed_members() -> list[tuple[str, str]]:
    """(member, room code) of each member whose Streamlit session here is no longer connected
    (the page was closed), each told once (ui/classroom/liveness.py)."""
    with _LIVE_LOCK:
        held = list(_LIVE.items())
    closed = [(member, sid) for member, sid in held if not _connected(sid)]
    with _LIVE_LOCK:
        gone = [(m, _ROOM.pop(m, "")) for m, sid in closed if _LIVE.get(m) == sid]
        for member, _ in gone:
            del _LIVE[member]
    return gone


def _connected(session_id: str) -> bool:
    from streamlit.runtime import Runtime

    return Runtime.exists() and Runtime.instance().is_active_session(session_id)


def live_member(member: str) -> bool:
    """Whether ``member``'s page is live here: its Streamlit session is connected to this
    server. A bare HTTP poll with the member's id is not."""
    with _LIVE_LOCK:
        session_id = _LIVE.get(member)
    if session_id is None:
        return False
    return _connected(session_id)  # a closed one is dropped by closed_members


async def room_version(request: Request) -> JSONResponse:
    code = request.path_params["code"]
    member = request.query_params.get("member", "")
    teacher = request.query_params.get("teacher", "")
    tab = request.query_params.get("tab", "")
    live = bool(member) and live_member(member)
    # the browser's own key (an HttpOnly cookie, made here at its first poll): a member is bound
    # to the browser that first polled as them (Rooms.pulse), so their address opened in another
    # browser is a new member (ui/classroom/panel.py)
    browser = request.cookies.get(BROWSER_COOKIE, "")
    fresh = not 20 <= len(browser) <= 100  # none yet: this answer gives one
    if fresh:
        browser = secrets.token_urlsafe(32)
    try:  # in a thread: a Redis round trip must not hold up the server's event loop
        pulse = await run_in_threadpool(shared_rooms().pulse, code, member, teacher, live, tab,
                                        browser, fresh)
    except RoomError:
        return JSONResponse({"version": None}, status_code=503, headers=NO_STORE)
    answer = (JSONResponse({"version": None}, status_code=404, headers=NO_STORE) if pulse is None
              else JSONResponse(pulse, headers=NO_STORE))
    if member and fresh:
        answer.set_cookie(BROWSER_COOKIE, browser, max_age=BROWSER_COOKIE_S, httponly=True,
                          samesite="lax", path="/")
    return answer


async def room_step(request: Request) -> JSONResponse:
    code = request.path_params["code"]
    body = await request.body()
    try:
        told = json.loads(body) if len(body) <= MAX_BODY else None
        args = (told["token"], told["step"], told["tab"], told["seq"], told.get("base"))
    except (ValueError, TypeError, KeyError, AttributeError):
        return JSONResponse({"set": False}, status_code=400, headers=NO_STORE)
    rooms = shared_rooms()

    def push() -> tuple[bool, int]:
        done = rooms.push_step(code, *args)
        return done, rooms.step(code)

    try:
        done, step = await run_in_threadpool(push)
    except StepBehind as e:
        return JSONResponse({"set": False, "step": e.step, "behind": True}, headers=NO_STORE)
    except NotDriver:
        step = await run_in_threadpool(rooms.step, code)
        return JSONResponse({"set": False, "step": step}, status_code=409, headers=NO_STORE)
    except RoomError as e:
        status = {RoomGone: 404, NotTeacher: 403, StoreDown: 503}.get(type(e), 400)
        return JSONResponse({"set": False}, status_code=status, headers=NO_STORE)
    return JSONResponse({"set": done, "step": step}, headers=NO_STORE)


ROUTES = [Route(VERSION_PATH, room_version, methods=["GET"]),
          Route(STEP_PATH, room_step, methods=["POST"])]
