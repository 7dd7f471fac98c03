"""The classroom's HTTP route (ui/classroom/route.py): what a student's browser polls.

It answers a room's version to that room's students only (the code alone tells nothing), 404 to
anyone else, 503 when the store does not answer; and ``streamlit run app.py`` serves it beside the
app (app.py is an ``st.App`` when imported, the page router when run as a session's script).
"""

from __future__ import annotations

import asyncio
import json
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from starlette.requests import Request

import ui.classroom.rooms as rooms_module
from ui.classroom.rooms import MemoryKV, RedisKV, Rooms
from ui.classroom.route import (
    ROUTES,
    STEP_PATH,
    VERSION_PATH,
    BrowserKey,
    room_step,
    room_version,
)
from ui.front.route import TOKENS_PATH

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def rooms(monkeypatch):
    made = Rooms(MemoryKV())
    monkeypatch.setitem(rooms_module._SHARED, "rooms", made)
    return made


def ask(code: str, member: str | None, since: int | None = None) -> tuple[int, dict, dict]:
    query = b"" if member is None else f"member={member}".encode()
    if since is not None:
        query += f"&since={since}".encode()
    scope = {"type": "http", "method": "GET", "path": VERSION_PATH.format(code=code),
             "path_params": {"code": code}, "query_string": query, "headers": []}
    # a thread of its own: an earlier test (Playwright's sync API) may leave an event loop running
    # in this one, where asyncio.run refuses to start
    with ThreadPoolExecutor(1) as pool:
        response = pool.submit(lambda: asyncio.run(room_version(Request(scope)))).result()
    return response.status_code, json.loads(response.body), dict(response.headers)


def test_a_student_of_the_room_reads_its_version_and_sees_it_move(rooms):
    code, token = rooms.create({"text": "aaab", "step": 0}, client="teacher")
    sid = rooms.join(code, client="student")
    status, body, headers = ask(code, sid)
    assert (status, body) == (200, {"version": 1, "state": 1, "step": 0, "teacher": True})
    assert headers["cache-control"] == "no-store"  # a cached answer would freeze the class
    rooms.update(code, token, step=3)  # only the step: the browser moves its view by itself
    assert ask(code, sid)[:2] == (200, {"version": 2, "state": 1, "step": 3, "teacher": True})
    rooms.update(code, token, text="abab")  # anything else: the page reruns
    assert ask(code, sid)[:2] == (200, {"version": 3, "state": 2, "step": 3, "teacher": True})
    rooms.start_quiz(code, token, 1)
    assert ask(code, sid)[:2] == (200, {"version": 4, "state": 3, "step": 3, "teacher": True})


def test_a_following_pages_poll_is_held_until_the_room_changes(rooms, monkeypatch):
    """A poll that names the version the page has (``since``) is answered when the room moves
    on, with the new step; with no change, when HOLD_S ends, with the same version; a poll
    naming another version, or from no member, is answered at once."""
    import ui.classroom.route as route_module

    monkeypatch.setattr(route_module, "HOLD_S", 30.0)
    code, token = rooms.create({"text": "aaab", "step": 0}, client="teacher")
    sid = rooms.join(code, client="student")
    version = ask(code, sid)[1]["version"]
    with ThreadPoolExecutor(1) as pool:
        held = pool.submit(ask, code, sid, version)
        time.sleep(0.4)
        assert not held.done()  # nothing new: the answer waits
        rooms.update(code, token, step=3)
        status, body, _ = held.result()
    # the change answered it (a hold that ran out would answer the version it was asked with)
    assert (status, body["version"], body["step"]) == (200, version + 1, 3)
    assert ask(code, sid, version)[1]["step"] == 3  # a page that is behind: answered at once
    assert ask(code, "not-a-member", version + 1)[0] == 404  # nobody's: at once, nothing told
    monkeypatch.setattr(route_module, "HOLD_S", 0.5)
    assert ask(code, sid, version + 1)[1]["version"] == version + 1  # no change: the hold ends


def test_anyone_else_learns_nothing_from_a_code(rooms):
    code, _ = rooms.create({"text": "aaab"}, client="teacher")
    other, _ = rooms.create({"text": "b"}, client="teacher")
    sid = rooms.join(other, client="student")
    for member in (None, "", "made-up", sid):  # a student of another room, too
        assert ask(code, member)[:2] == (404, {"version": None})
    assert ask("ZZZZZZZZ", "made-up")[0] == 404


def test_a_room_that_ended_answers_404_so_the_page_notices(rooms):
    code, token = rooms.create({"text": "aaab"}, client="teacher")
    sid = rooms.join(code, client="student")
    rooms.close(code, token)
    assert ask(code, sid)[:2] == (404, {"version": None})


def test_a_store_that_does_not_answer_is_a_503_not_a_crash(monkeypatch):
    dead = Rooms(RedisKV("redis://127.0.0.1:1/0"))  # nothing listens on port 1
    monkeypatch.setitem(rooms_module._SHARED, "rooms", dead)
    try:
        assert ask("ABCDEFGH", "someone")[:2] == (503, {"version": None})
    finally:
        dead.kv.client.close()


def test_the_routes_are_on_the_documented_paths_with_their_methods():
    version, step = ROUTES
    assert version.path == "/_bpelab/rooms/{code}/version"
    assert version.methods == {"GET", "HEAD"}
    assert step.path == "/_bpelab/rooms/{code}/step" and step.methods == {"POST"}


def test_streamlit_run_serves_the_route_beside_the_app():
    """What ``streamlit run app.py`` finds: an st.App named ``app`` with the routes (the
    classroom's and the front page's box's, ui/front/route.py)."""
    from streamlit.web.server.app_discovery import discover_asgi_app

    found = discover_asgi_app(ROOT / "app.py")
    assert found.is_asgi_app and found.app_name == "app"
    namespace: dict = {"__name__": "app", "__file__": str(ROOT / "app.py")}
    exec(compile((ROOT / "app.py").read_text(encoding="utf-8"), "app.py", "exec"), namespace)
    app = namespace["app"]
    assert [r.path for r in app._user_routes] == [VERSION_PATH, STEP_PATH, TOKENS_PATH]
    assert [m.cls for m in app._user_middleware] == [BrowserKey]


def test_a_page_load_gives_a_browser_its_key_once():
    """The page's HTML brings a browser with no key its key (HttpOnly), before the page's first
    run: a student's join binds them to it at once (a reload before any poll is the same
    member). A browser with a key, and other answers, are given none."""

    async def page(scope, receive, send):
        kind = b"text/html" if scope["path"] == "/" else b"application/javascript"
        await send({"type": "http.response.start", "status": 200,
                    "headers": [(b"content-type", kind)]})
        await send({"type": "http.response.body", "body": b"", "more_body": False})

    def load(path: str, cookie: str | None = None) -> list[bytes]:
        headers = [] if cookie is None else [(b"cookie", cookie.encode())]
        sent: list[dict] = []

        async def send(message):
            sent.append(message)

        scope = {"type": "http", "method": "GET", "path": path, "headers": headers}
        with ThreadPoolExecutor(1) as pool:
            pool.submit(lambda: asyncio.run(BrowserKey(page)(scope, None, send))).result()
        return [v for k, v in sent[0]["headers"] if k == b"set-cookie"]

    given = load("/")
    assert len(given) == 1 and given[0].startswith(b"bpelab_browser=")
    assert b"HttpOnly" in given[0] and b"Path=/" in given[0]
    key = given[0].split(b";")[0].decode()
    assert load("/", key) == []  # it has one
    assert load("/static/js/main.js") == []  # not a page
    assert load("/")[0] != given[0]  # each browser its own


def push(code: str, body: object) -> tuple[int, dict]:
    raw = json.dumps(body).encode() if not isinstance(body, bytes) else body
    scope = {"type": "http", "method": "POST", "path": STEP_PATH.format(code=code),
             "path_params": {"code": code}, "query_string": b"",
             "headers": [(b"content-length", str(len(raw)).encode())]}  # as a browser sends it

    async def receive():
        return {"type": "http.request", "body": raw, "more_body": False}

    with ThreadPoolExecutor(1) as pool:
        response = pool.submit(lambda: asyncio.run(room_step(Request(scope, receive)))).result()
    return response.status_code, json.loads(response.body)


def test_the_teachers_view_sets_the_step_at_each_key_and_an_older_move_never_wins(rooms):
    code, token = rooms.create({"text": "aaab", "step": 0}, client="teacher", tab="t1")
    sid = rooms.join(code, client="student")
    for seq in range(1, 4):  # three keys: each is the room's step at once
        assert push(code, {"token": token, "step": 10 + seq, "tab": "t1", "seq": seq,
                           "base": 10 + seq - 1 if seq > 1 else 0}) == (
            200, {"set": True, "step": 10 + seq})
        assert ask(code, sid)[1]["step"] == 10 + seq
    # the page's rerun arrives late with move 2's step: the room stays at move 3's
    rooms.update(code, token, step=12, step_from=("t1", 2))
    assert rooms.room(code).state["step"] == 13
    assert push(code, {"token": token, "step": 12, "tab": "t1", "seq": 2}) == (
        200, {"set": False, "step": 13})
    # another tab of the teacher, with the token, does not drive: refused until it takes over
    assert push(code, {"token": token, "step": 5, "tab": "t2", "seq": 1, "base": 13}) == (
        409, {"set": False, "step": 13})
    rooms.reclaim(code, token, tab="t2")  # "Take over here"
    # a move made from a step the room has left since (a view that is behind): refused, with
    # the room's step for the view to catch up with; the class does not go back
    assert push(code, {"token": token, "step": 11, "tab": "t2", "seq": 1, "base": 10}) == (
        200, {"set": False, "step": 13, "behind": True})
    assert push(code, {"token": token, "step": 14, "tab": "t2", "seq": 1, "base": 13}) == (
        200, {"set": True, "step": 14})
    # within one tab, its moves' numbers order them (its page's rerun may have moved the step)
    assert push(code, {"token": token, "step": 16, "tab": "t2", "seq": 3, "base": 13}) == (
        200, {"set": True, "step": 16})
    assert push(code, {"token": token, "step": 15, "tab": "t1", "seq": 10, "base": 14})[0] == 409
    assert rooms.room(code).state["step"] == 16
    assert push(code, {"token": "forged", "step": 1, "tab": "t2", "seq": 9})[0] == 403
    assert push(code, b"{not json")[0] == 400
    assert push(code, [1, 2])[0] == 400
    assert push(code, {"token": token, "step": -1, "tab": "t2", "seq": 2})[0] == 400
    rooms.close(code, token)
    assert push(code, {"token": token, "step": 1, "tab": "t2", "seq": 3})[0] == 404


def test_a_poll_checks_a_member_in_only_while_their_session_is_connected(rooms, monkeypatch):
    """A script that polls with a member's id, holding no Streamlit session open on this
    server, does not keep the member in the count; the member's live page does."""
    import ui.classroom.route as route

    connected = {"live-session"}
    monkeypatch.setattr(route, "_connected", lambda sid: sid in connected)
    clock = [1000.0]
    rooms.clock = lambda: clock[0]
    code, _ = rooms.create({"text": "aaab", "step": 0}, client="teacher")
    real = rooms.join(code, client="school")
    ghost = rooms.join(code, client="school")
    route.hold_member(real, "live-session")
    route.hold_member(ghost, "closed-session")  # joined from a page, then closed the socket
    for _ in range(30):  # both poll every second for 30 s
        clock[0] += 1
        assert ask(code, real)[0] == 200 and ask(code, ghost)[0] == 200
    assert rooms.room(code).students == 1
    assert ask(code, "never-held-anywhere")[0] == 404
