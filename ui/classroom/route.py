"""The classroom's one HTTP route: a student's browser asks "has the room changed?" here.

``GET /_bpelab/rooms/<CODE>/version?member=<student id>&claim=<the join's claim>`` answers ``{"version": V, "state": S,
"step": K, "teacher": true}`` (``Rooms.pulse``) for a student of that room, and
``?teacher=<presence id>`` answers the teacher's browser ``{"version", "students", "answered"}``
(the live counts; ``&tab=`` adds ``"drives"``: whether that tab still drives the room). A
following student's page adds ``&since=V``, the version its last poll was told: while the room is
still at V, the answer waits for a change (``Held``: HOLD_S at most), so that a step reaches the
class within WAKE_S of the room taking it, one read of the store per room answering every poll
held on it, instead of every page asking every POLL_MS; 404 for
anyone else (the code alone tells nothing) and once the room is gone, 503 when the store does not
answer. A student's poll is their check-in only while their Streamlit session is connected to
this server (``live_member``): a script that polls with a member id, and holds no session open,
drops out of the count.

``POST /_bpelab/rooms/<CODE>/step`` with ``{"token", "step", "tab", "seq", "base"}`` (JSON) is
the teacher's in-browser stepping view setting the room's step at each key (``Rooms.push_step``),
so that no step waits for, or is merged away by, the teacher's page's rerun: 200 ``{"set": bool,
"step": the room's step}`` (``"behind": true``: a move from a step another tab has moved the room
from, which the view then catches up with), 409 ``{"set": false, "step"}`` from a tab that no longer drives the room,
403 without the teacher's token, 404 once the room is gone; 411, 400 or 413 for a body without
a length, a malformed one or one over ``MAX_BODY`` (``ui.kit.route_limits``: read no further than
the limit; every refusal is ``{"error": why}`` beside the route's fields). It reads one number
from the room store (ui/classroom/rooms.py) and runs no Streamlit script, so a class of students
asking twice a second costs the server little; a student's page reruns only when the number
changes (ui/classroom/panel.py). app.py serves it beside the app (``st.App``), and ``BrowserKey`` gives each browser its key
(the cookie a member is bound to) with its first page load.

A script can ask as fast as it likes, with any code: each question is a few reads of the room
store in a worker thread. ``ROOM_GATE`` bounds them server-wide: at most ``ROOM_GATE.slots`` in
worker threads at once, ``ROOM_GATE.queue`` more waiting (503 beyond, which a student's page
reads as "the room store does not answer" until a later poll is answered), so a flood slows the
room's polls but never holds the threads Streamlit's own sessions need (docs/CLASSROOM.md).
"""

from __future__ import annotations

import asyncio
import os
import secrets
import threading
from typing import Any

from starlette.requests import Request, cookie_parser
from starlette.responses import JSONResponse
from starlette.routing import Route

from ui.classroom.members import is_browser_key
from ui.classroom.rooms import (
    NotDriver,
    NotTeacher,
    RoomError,
    RoomGone,
    StepBehind,
    StoreDown,
    shared_rooms,
)
from ui.kit.route_limits import (
    NO_STORE,
    Gate,
    Refused,
    int_field,
    json_object,
    read_body,
    text_field,
)

VERSION_PATH = "/_bpelab/rooms/{code}/version"
STEP_PATH = "/_bpelab/rooms/{code}/step"
MAX_BODY = 4096  # bytes of a step's JSON
MAX_FIELD = 256  # characters of a token, a tab's id or a query's id
ROOM_GATE = Gate(slots=4, queue=256)  # the classroom's store reads in worker threads, server-wide
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
    asked = [request.query_params.get(name, "") for name in ("member", "teacher", "tab", "claim")]
    if any(len(value) > MAX_FIELD for value in (code, *asked)):
        return Refused(400, f"an id over {MAX_FIELD} characters").response(version=None)
    member, teacher, tab, claim = asked
    since = request.query_params.get("since", "")
    live = bool(member) and live_member(member)
    # the browser's own key (an HttpOnly cookie, made here at its first poll): a member is bound
    # to the browser whose poll first brought their join's claim (ui/classroom/members.py), so
    # their address opened in another browser is a new member (ui/classroom/panel.py)
    browser = request.cookies.get(BROWSER_COOKIE, "")
    fresh = not is_browser_key(browser)  # none yet (cookies refused?): this answer gives one
    if fresh:
        browser = secrets.token_urlsafe(32)
    try:  # in a thread: a Redis round trip must not hold up the server's event loop
        pulse = await ROOM_GATE.run(shared_rooms().pulse, code, member, teacher, live, tab,
                                    browser, fresh, claim)
        if pulse is not None and member and since == str(pulse["version"]) and HOLD_S > 0:
            # a following student's page that has this version: held until the room changes
            changed = await HELD.wait(code, pulse["version"])
            if changed is not None:
                pulse = changed
            elif HELD.failed:  # the store did not answer the watch: this poll says so
                pulse = await ROOM_GATE.run(shared_rooms().pulse, code, member, teacher, live,
                                            tab, browser, fresh, claim)
    except Refused as e:
        return e.response(version=None)
    except RoomError:
        return JSONResponse({"version": None}, status_code=503, headers=NO_STORE)
    answer = (JSONResponse({"version": None}, status_code=404, headers=NO_STORE) if pulse is None
              else JSONResponse(pulse, headers=NO_STORE))
    if member and fresh:
        answer.raw_headers.append(_browser_cookie(browser))
    return answer


class Held:
    """Following students' polls held until their room changes (``?since=`` the version the page
    has): one read of the store per room every WAKE_S answers every poll held on it, instead of
    every page asking every POLL_MS. A poll is held HOLD_S at most (then answered as it is: the
    page's check-in, the teacher's presence), and at most MAX_HELD at once on this server (past
    that, answered at once). Lives on the server's event loop: no locks."""

    def __init__(self) -> None:
        self.waiting: dict[str, list[tuple[int, asyncio.Future]]] = {}
        self.held = 0
        self.failed = False  # the last read of the store raised
        self._task: asyncio.Task | None = None

    async def wait(self, code: str, since: int) -> dict[str, Any] | None:
        """Until room ``code`` is no longer at version ``since``: its pulse (``followed``), or
        None when HOLD_S passed, or the store did not answer (``failed``)."""
        if self.held >= MAX_HELD:
            return None
        loop = asyncio.get_running_loop()
        done: asyncio.Future = loop.create_future()
        entry = (since, done)
        self.waiting.setdefault(code, []).append(entry)
        self.held += 1
        if self._task is None or self._task.done():
            self._task = loop.create_task(self._watch())
        try:
            await asyncio.wait({done}, timeout=HOLD_S)
        finally:
            self.held -= 1
            held = self.waiting.get(code, [])
            if entry in held:
                held.remove(entry)
            if not held:
                self.waiting.pop(code, None)
        return done.result() if done.done() and not done.cancelled() else None

    async def _watch(self) -> None:
        while self.waiting:
            await asyncio.sleep(WAKE_S)
            codes = list(self.waiting)
            if not codes:  # every poll was answered during the sleep: the loop ends. Read with
                # no code, the store raised, which ended this task while a poll that came during
                # that read waited on it: that poll heard no step for HOLD_S
                continue
            try:
                now = await ROOM_GATE.run(shared_rooms().followed, *codes)
                self.failed = False
            except (Refused, RoomError):  # busy, or the store is down: the polls ask again
                now, self.failed = [None] * len(codes), True
            for code, pulse in zip(codes, now):
                for since, done in self.waiting.get(code, []):
                    if done.done():
                        continue
                    if pulse is None:
                        done.set_result(None)
                    elif pulse["version"] != since:
                        done.set_result(pulse)


# a following student's poll waits at most this long for a change (BPE_LAB_HOLD_S; 0: answered
# at once, and the page asks every POLL_MS, as before holding)
HOLD_S = float(os.environ.get("BPE_LAB_HOLD_S", "2"))
WAKE_S = 0.1  # how often this server reads the rooms its held polls wait on
MAX_HELD = 4096  # polls held at once on a server (past that, answered at once)
HELD = Held()


def _browser_cookie(browser: str) -> tuple[bytes, bytes]:
    """The ``Set-Cookie`` header that gives a browser its key."""
    carrier = JSONResponse(None)
    carrier.set_cookie(BROWSER_COOKIE, browser, max_age=BROWSER_COOKIE_S, httponly=True,
                       samesite="lax", path="/")
    return carrier.raw_headers[-1]


class BrowserKey:
    """ASGI middleware: a page's load (a document asked for with GET) gives a browser that has
    no key its key, before the page's first run, so that a student's join binds them to their
    browser at once (members.py) and a reload, however soon, comes back as the same member."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http" or scope.get("method") != "GET" or _has_key(scope):
            await self.app(scope, receive, send)
            return
        document = dict(scope.get("headers") or ()).get(b"sec-fetch-dest") == b"document"

        async def give_key(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start" and message.get("status", 500) < 400:
                headers = list(message.get("headers") or ())
                kind = dict(headers).get(b"content-type", b"")
                if document or kind.startswith(b"text/html"):
                    message = {**message, "headers": [
                        *headers, _browser_cookie(secrets.token_urlsafe(32))]}
            await send(message)

        await self.app(scope, receive, give_key)


def _has_key(scope: dict[str, Any]) -> bool:
    for name, value in scope.get("headers") or ():
        if name == b"cookie":
            key = cookie_parser(value.decode("latin-1")).get(BROWSER_COOKIE)
            if is_browser_key(key):
                return True
    return False


async def room_step(request: Request) -> JSONResponse:
    code = request.path_params["code"]
    try:
        if len(code) > MAX_FIELD:
            raise Refused(400, f"a room code over {MAX_FIELD} characters")
        told = json_object(await read_body(request, MAX_BODY))
        args = (text_field(told, "token", MAX_FIELD), int_field(told, "step"),
                text_field(told, "tab", MAX_FIELD), int_field(told, "seq"),
                int_field(told, "base", optional=True))
    except Refused as e:
        return e.response(set=False)
    rooms = shared_rooms()

    def push() -> tuple[bool, int]:
        done = rooms.push_step(code, *args)
        return done, rooms.step(code)

    try:
        done, step = await ROOM_GATE.run(push)
    except Refused as e:
        return e.response(set=False)
    except StepBehind as e:
        return JSONResponse({"set": False, "step": e.step, "behind": True}, headers=NO_STORE)
    except NotDriver:
        try:
            step = await ROOM_GATE.run(rooms.step, code)
        except Refused as e:
            return e.response(set=False)
        return JSONResponse({"set": False, "step": step}, status_code=409, headers=NO_STORE)
    except RoomError as e:
        status = {RoomGone: 404, NotTeacher: 403, StoreDown: 503}.get(type(e), 400)
        return JSONResponse({"set": False}, status_code=status, headers=NO_STORE)
    return JSONResponse({"set": done, "step": step}, headers=NO_STORE)


ROUTES = [Route(VERSION_PATH, room_version, methods=["GET"]),
          Route(STEP_PATH, room_step, methods=["POST"])]
