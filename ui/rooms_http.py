"""The classroom's one HTTP route: a student's browser asks "has the room changed?" here.

``GET /_bpelab/rooms/<CODE>/version?member=<student id>`` answers ``{"version": V, "state": S,
"step": K, "teacher": true}`` (``Rooms.pulse``) for a student of that room, and
``?teacher=<presence id>`` answers the teacher's browser ``{"version", "students", "answered"}``
(the live counts); 404 for anyone else (the code alone tells nothing) and once the room is gone,
503 when the store does not answer. Each poll is also the asker's check-in. It reads one number from the room store (ui/rooms.py) and runs no Streamlit script,
so a class of students asking twice a second costs the server little; a student's page reruns
only when the number changes (ui/classroom.py). app.py serves it beside the app (``st.App``).
"""

from __future__ import annotations

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from ui.rooms import RoomError, shared_rooms

VERSION_PATH = "/_bpelab/rooms/{code}/version"
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


ROUTES = [Route(VERSION_PATH, room_version, methods=["GET"])]
