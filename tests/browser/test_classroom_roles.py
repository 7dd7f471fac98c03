"""Classroom roles that hold (issue 33), in Chromium: one teacher tab, live members, and a class
behind one address that a script cannot keep out.

- The join link, opened in another tab of the teacher's own browser profile, joins as a student;
  the teacher's tab keeps teaching (and keeps its rights over a reload); a third tab of that
  browser is offered "Take over here", and when it takes over, the first tab says it lost the
  role.
- Two teacher tabs: the stale one (its poll held back, so it has not heard of the take-over) has
  a key pressed; the room refuses the move, the class stays where the tab that drives put it (no
  step back on any screen), and the stale tab says it no longer teaches.
- A class of 60 behind one address (every join here comes from 127.0.0.1): 59 simulated joins
  through ``Rooms.join`` on the server's Redis (what the join link's page calls; their pages'
  check-ins simulated the same way) and one real Chromium student, within a minute, none
  refused; then 200 scripted joins that keep no page open; the teacher's "Remove idle members"
  clears them in one click, and a real latecomer gets in.

The first two tests on the tests' shared app server (rooms in its memory), each in a room of
its own; the third on a server of its own, on a ``redis-server`` the test process shares. Each wait
is bounded generously (the machine has 2 cores, shared).
"""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest
from conftest import IDLE, serve_app
from redis_server import require_redis, start_redis
from test_classroom_real_life import (  # noqa: F401  (crowd: the fixture, shared)
    RECORD_STEPS_JS,
    Person,
    crowd,
    join,
    open_room,
    press_right,
    to_steps,
    until,
)

pytestmark = [pytest.mark.browser, pytest.mark.timeout(420)]

CLASS = 60  # students behind one address
FLOOD = 200  # scripted joins
TAKE_OVER = "Take over here"
LOST = "no longer teaches"


class Tab(Person):
    """Another tab of ``owner``'s browser profile (the same context: its localStorage)."""

    def __init__(self, owner: Person, who: str):  # noqa: D107 - Person's fields, shared context
        self.who, self.base, self.closed = who, owner.base, True  # the owner closes the context
        self.ctx = owner.ctx
        self.page = self.ctx.new_page()
        self.main = self.page.get_by_test_id("stMain")
        self.sidebar = self.page.get_by_test_id("stSidebar")


# How many times the page's script starts running (a MutationObserver on Streamlit's marker).
COUNT_RUNS_JS = """() => {
  window.__runs = 0;
  const app = document.querySelector("[data-testid=stApp]");
  new MutationObserver(() => {
    if (app.dataset.testScriptState === "running") window.__runs += 1;
  }).observe(app, { attributes: true, attributeFilter: ["data-test-script-state"] });
}"""
QUIET_S = 3.0  # a tab that only offers "Take over here" reruns at most once in this long


def teaches(p: Person, code: str):
    return p.sidebar.get_by_text(f"Classroom {code} · you teach")


def sidebar_says(p: Person, text: str) -> bool:
    return text in (p.sidebar.inner_text(timeout=5_000) or "")


def test_the_join_link_in_the_teachers_browser_joins_as_a_student_and_a_tab_takes_over(
        served_app, crowd):  # noqa: F811 - the fixture imported above
    teacher = crowd(served_app.url, "teacher")
    code = open_room(teacher)

    link_tab = Tab(teacher, "link")  # the teacher tries the join link in their own browser
    join(link_tab, code)  # "you are a student"
    assert not sidebar_says(link_tab, "you teach")
    assert link_tab.sidebar.get_by_role("button", name=TAKE_OVER).count() == 0
    assert teaches(teacher, code).is_visible()

    teacher.page.reload(wait_until="domcontentloaded")  # a reload keeps the tab's rights
    teacher.idle(teaches(teacher, code))

    other = Tab(teacher, "other")  # a new tab of that browser: offered, not given
    other.open()
    take = other.sidebar.get_by_role("button", name=TAKE_OVER)
    until("the other tab is offered to take over", lambda: take.count() == 1,
          [teacher, other])
    assert sidebar_says(other, "is taught from another tab of this browser")
    assert not sidebar_says(other, "you teach")
    # the offer stands still: the page is not rerun while nothing changes (it was rerun
    # without end, about ten times a second, and a click could land between two runs)
    other.page.evaluate(COUNT_RUNS_JS)
    time.sleep(QUIET_S)
    assert other.page.evaluate("() => window.__runs") <= 1
    assert take.count() == 1
    take.click()
    other.idle(teaches(other, code))
    until("the first tab says it lost the role", lambda: sidebar_says(teacher, LOST),
          [teacher, other])
    assert teaches(teacher, code).count() == 0
    # and the first tab may take it back, explicitly
    until("the first tab is offered to take over",
          lambda: teacher.sidebar.get_by_role("button", name=TAKE_OVER).count() == 1,
          [teacher, other])
    teacher.page.evaluate(COUNT_RUNS_JS)
    time.sleep(QUIET_S)
    assert teacher.page.evaluate("() => window.__runs") <= 1
    # the tab that teaches closes: the offer in the first tab goes (the storage event)
    other.page.close()
    until("the offer goes with the tab that taught",
          lambda: teacher.sidebar.get_by_role("button", name=TAKE_OVER).count() == 0,
          [teacher])
    link_tab.page.close()


def test_a_stale_teacher_tab_never_moves_the_class_back(served_app, crowd):  # noqa: F811
    teacher = crowd(served_app.url, "teacher")
    ann = crowd(served_app.url, "ann")
    code = open_room(teacher)
    join(ann, code)
    to_steps(ann)
    to_steps(teacher)
    start = press_right(teacher, 2)
    until(f"Ann follows to {start}", lambda: ann.step() == start, [teacher, ann])
    ann.page.evaluate(RECORD_STEPS_JS, ann.view().element_handle())

    fresh = Tab(teacher, "fresh")
    fresh.open()
    take = fresh.sidebar.get_by_role("button", name=TAKE_OVER)
    until("the new tab is offered to take over", lambda: take.count() == 1,
          [teacher, fresh])
    # the first tab hears nothing more from the room (its poll is held back): it is stale
    teacher.page.route("**/_bpelab/rooms/*/version?teacher=*", lambda route: route.abort())
    take.click()
    fresh.idle(teaches(fresh, code))
    to_steps(fresh)
    assert fresh.step() == start  # the room's step came with the take-over
    k = press_right(fresh, 3)
    assert k == start + 3
    until(f"Ann follows the new tab to {k}", lambda: ann.step() == k, [fresh, ann])

    assert teacher.step() == start  # the stale tab still shows the old step
    press_right(teacher, 1)  # a move from start to start + 1: refused by the room
    until("the stale tab says it no longer teaches", lambda: sidebar_says(teacher, LOST),
          [teacher, fresh, ann])
    time.sleep(2.0)  # any late move would show on Ann's screen now
    assert ann.step() == k
    steps = ann.page.evaluate("() => window.__steps")
    assert all(x <= y for x, y in zip(steps, steps[1:])), steps
    assert steps[-1] == k
    k2 = press_right(fresh, 1)  # the tab that drives still does
    until(f"Ann follows to {k2}", lambda: ann.step() == k2 == k + 1, [fresh, ann])
    fresh.page.close()


def test_a_class_of_60_behind_one_address_joins_and_a_flood_of_scripted_joins_is_cleared(
        browser, crowd):  # noqa: F811 - the fixture imported above
    require_redis("the classroom roles' Redis test")
    from ui.classroom.rooms import RedisKV, RoomError, Rooms

    with start_redis() as url, serve_app(env={"BPE_LAB_ROOMS": url}) as served:
        kv = RedisKV(url)
        rooms = Rooms(kv)
        teacher = crowd(served.url, "teacher")
        code = open_room(teacher)
        normal = code.replace("-", "")

        # the class: 59 simulated joins and one real student, all from one address
        t0 = time.monotonic()
        sids = [rooms.join(normal, client="127.0.0.1", nickname=f"S{i}")
                for i in range(CLASS - 1)]
        ann = crowd(served.url, "ann")
        join(ann, code)
        took = time.monotonic() - t0
        assert len(set(sids)) == CLASS - 1
        stop = threading.Event()

        def live_pages() -> None:  # the simulated students' browsers poll, their pages live
            while not stop.is_set():
                for sid in sids:
                    rooms.pulse(normal, sid, live=True)
                stop.wait(2.0)

        checker = threading.Thread(target=live_pages, daemon=True)
        checker.start()
        try:
            until(f"the teacher counts {CLASS}",
                  lambda: teacher.status() == f"Students here now: {CLASS}", [teacher, ann])

            # a script on the same address joins FLOOD times and keeps no page open
            refused = 0
            for _ in range(FLOOD):
                try:
                    rooms.join(normal, client="127.0.0.1")
                except RoomError as e:
                    assert "is full" in str(e)
                    refused += 1
            assert refused == FLOOD - (100 - CLASS)  # the room's places, for JOIN_GRACE s
            # the teacher's count sees the flood first (a count read before it came still says
            # 60), then falls back
            until("the teacher counts the full room",
                  lambda: teacher.status() == "Students here now: 100", [teacher, ann])
            # they count only until their grace ends: never checked in from a live page
            until(f"the count is back to {CLASS}",
                  lambda: teacher.status() == f"Students here now: {CLASS}", [teacher, ann],
                  timeout=40)
            teacher.main.get_by_text("Who is here", exact=True).click()
            clear = teacher.main.get_by_role("button", name="Remove idle members")
            members = f"bpelab:room:{normal}:members"
            assert kv.hlen(members) == 100  # the ghosts are out of the count, not out of the room
            # the page settled after opening "Who is here": a click during that rerun can be lost
            teacher.page.wait_for_selector(IDLE, timeout=30_000)
            clear.click()  # one click
            until("the ghosts are out of the room", lambda: kv.hlen(members) == CLASS, [teacher])
            until("the teacher is told 40 idle members were removed",
                  lambda: "Removed 40 idle members" in teacher.page.inner_text("body"), [teacher])
            late = crowd(served.url, "late")
            join(late, code)  # a real student still gets in
            until(f"the teacher counts {CLASS + 1}",
                  lambda: teacher.status() == f"Students here now: {CLASS + 1}",
                  [teacher, ann, late])
        finally:
            stop.set()
            checker.join(10)
            kv.client.close()
        print(f"\n{CLASS} joins from one address (59 simulated, 1 Chromium): {took:.2f} s "
              f"(load average {Path('/proc/loadavg').read_text().split()[0]})")
