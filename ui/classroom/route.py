"""The classroom's one HTTP route: a student's browser asks "has the room changed?" here.

``GET /_bpelab/rooms/<CODE>/version?member=<student id>`` answers ``{"version": V, "state": S,
"step": K, "teacher": true}`` (``Rooms.pulse``) for a student of that room, and
``?teacher=<presence id>`` answers the teacher's browser ``{"version", "students", "answered"}``
(the live counts); 404 for anyone else (the code alone tells nothing) and once the room is gone,
503 when the store does not answer. Each poll is also the asker's check-in.

``POST /_bpelab/rooms/<CODE>/step`` with ``{"token", "step", "tab", "seq"}`` (JSON) is the
teacher's in-browser stepping view setting the room's step at each key (``Rooms.push_step``), so
that no step waits for, or is merged away by, the teacher's page's rerun: 200 ``{"set": bool}``,
403 without the teacher's token, 404 once the room is gone, 400 for anything malformed. It reads one number from the room store (ui/classroom/rooms.py) and runs no Streamlit script,
so a class of students asking twice a second costs the server little; a student's page reruns
only when the number changes (ui/classroom/panel.py). app.py serves it beside the app (``st.App``).
"""

from __future__ import annotations

import json

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from ui.classroom.rooms import NotTeacher, RoomError, RoomGone, StoreDown, shared_rooms

VERSION_PATH = "/_bpelab/rooms/{code}/version"
STEP_PATH = "/_bpelab/rooms/{code}/step"
MAX_BODY = 4096  # bytes of a step's JSON
NO_STORE = {"Cache-Control": "no-store"}


async def room_version(request: Request) -> JSONResponse:
    code = request.path_params["code"]
    member = request.query_params.get("member", "")
    teacher = request.query_params.get("teacher", "")
    try:  # in a thread: a Redis round trip must not hold up the server's event loop
        pulse = await run_in_threadpool(shared_rooms().pulse, code, member, teacher)
    except RoomError:
        return JSONResponse({"version": None}, status_code=503, headers=NO_STORE)
    if pulse is None:
        return JSONResponse({"version": None}, status_code=404, headers=NO_STORE)
    return JSONResponse(pulse, headers=NO_STORE)


async def room_step(request: Request) -> JSONResponse:
    code = request.path_params["code"]
    body = await request.body()
    try:
        told = json.loads(body) if len(body) <= MAX_BODY else None
        args = (told["token"], told["step"], told["tab"], told["seq"])
    except (ValueError, TypeError, KeyError):
        return JSONResponse({"set": False}, status_code=400, headers=NO_STORE)
    try:
        done = await run_in_threadpool(shared_rooms().push_step, code, *args)
    except RoomError as e:
        status = {RoomGone: 404, NotTeacher: 403, StoreDown: 503}.get(type(e), 400)
        return JSONResponse({"set": False}, status_code=status, headers=NO_STORE)
    return JSONResponse({"set": done}, headers=NO_STORE)


ROUTES = [Route(VERSION_PATH, room_version, methods=["GET"]),
          Route(STEP_PATH, room_step, methods=["POST"])]
