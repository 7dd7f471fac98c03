"""A lesson that holds under every race (issue 44), in Chromium: the take-over race.

Teacher tab T drives the room on "Step through merges". A second tab T2 of the same browser
profile, also on "Step through merges", has its own view at its own step (near 0). In T2, → is
pressed twice and "Take over here" clicked at once, while T presses →. The room must never go
back: T2 adopts the room's step (its own pending moves are refused, and its view brought up to the
room's), the student's screen never shows a step lower than one it showed before, the click is
not lost (T2 teaches, and says "Taking over" at the click until it does), T is told it lost the role, and no tab shows Streamlit's connection error
("Cached ForwardMsg MISS"). Then the roles swap and the race runs again, the other way round.

Once on one app server (rooms in its memory), once on two with the rooms in Redis (the teacher's
tabs on one, the student on the other). Each wait is bounded generously (2 shared cores).
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from conftest import serve_app, serve_apps
from redis_server import require_redis, start_redis
from test_classroom_real_life import (  # noqa: F401  (crowd: the fixture, shared)
    RECORD_STEPS_JS,
    crowd,
    join,
    open_room,
    press_right,
    to_steps,
    until,
)
from test_classroom_roles import LOST, TAKE_OVER, Tab, sidebar_says, teaches

pytestmark = [pytest.mark.browser, pytest.mark.timeout(420)]

ROUNDS = 2  # take-overs per test, one each way
START = 11  # the step the room is at when the first race begins
BROKEN = ("Cached ForwardMsg MISS", "Connection error")
# the race is an explicit take-over: a teaching tab whose check-ins lapse for the default 6 s on a
# busy machine lets the other tab of its browser come back as teacher by itself, before the race
# (seen once in CI); so the servers here give the teaching tab 30 s
QUIET_TEACHER = {"BPE_LAB_TEACHER_TIMEOUT": "30"}

TAKE_JS = """([next, take]) => new Promise((done) => {
  next.click();
  setTimeout(() => next.click(), 20);
  setTimeout(() => { take.click(); done(); }, 60);
})"""


def watch_errors(page, seen: list[str]) -> None:
    """Every console message of ``page`` that says Streamlit's connection broke."""
    page.on("console", lambda msg: seen.append(msg.text) if any(
        b in msg.text for b in BROKEN) else None)


def race(driving, taking, student, code: str) -> float:
    """``taking`` presses → twice on its own view and clicks "Take over here" while ``driving``
    presses →; returns the seconds from the click to ``taking`` teaching."""
    take = taking.sidebar.get_by_role("button", name=TAKE_OVER)
    until("the other tab is offered to take over", lambda: take.count() == 1,
          [driving, taking, student])
    before = driving.step()
    # at once, in the taking tab's page: → twice on its own view, and the click 40 ms after the
    # second (the view tells its server the second move up to 0.25 s later: it is pending)
    taking.page.evaluate(TAKE_JS,
                         [taking.view().locator(".next").element_handle(),
                          take.element_handle()])
    # the click is answered at once, in the tab: "Taking over" until its run has made it teach
    answer = taking.status()
    assert "Taking over" in answer or teaches(taking, code).count() == 1, answer
    press_right(driving, 1)  # meanwhile the tab that drives moves the class on
    taken = until("the taking tab teaches (the click is not lost)",
                  lambda: teaches(taking, code).count() == 1, [driving, taking, student])
    until("the tab that drove says it lost the role", lambda: sidebar_says(driving, LOST),
          [driving, taking, student])
    time.sleep(3.0)  # a late move of the taking tab would reach the room (and the student) now
    same = lambda: taking.step() is not None and taking.step() == student.step()  # noqa: E731
    until("the taking tab shows the room's step, as the student does", same,
          [driving, taking, student])
    room_step = student.step()
    assert room_step >= before, (room_step, before)
    steps = student.page.evaluate("() => window.__steps")
    assert all(x <= y for x, y in zip(steps, steps[1:])), f"the class went back: {steps}"
    k = press_right(taking, 1)  # the tab that took over steps the class on, from the room's step
    assert k == room_step + 1
    until(f"the student follows to {k}", lambda: student.step() == k, [taking, student])
    return taken


def run_races(served_teacher: str, served_student: str, crowd, what: str) -> None:  # noqa: F811
    errors: list[str] = []
    measured: list[str] = []
    teacher = crowd(served_teacher, "teacher")
    code = open_room(teacher)
    watch_errors(teacher.page, errors)
    ann = crowd(served_student, "ann")
    join(ann, code)
    to_steps(ann)
    to_steps(teacher)
    press_right(teacher, START - (teacher.step() or 0))
    until(f"Ann follows to {START}", lambda: ann.step() == START, [teacher, ann])
    ann.page.evaluate(RECORD_STEPS_JS, ann.view().element_handle())

    other = Tab(teacher, "other")
    watch_errors(other.page, errors)
    other.open()
    to_steps(other)
    driving, taking = teacher, other
    for i in range(ROUNDS):
        took = race(driving, taking, ann, code)
        measured.append(f"{what} take-over {i + 1}: teaching {took:.2f} s after the click")
        driving, taking = taking, driving  # the tab that lost the role: its view is its own
    steps = ann.page.evaluate("() => window.__steps")
    assert all(x <= y for x, y in zip(steps, steps[1:])), f"the class went back: {steps}"
    for page in (teacher.page, other.page):
        body = page.inner_text("body")
        assert not any(b in body for b in BROKEN), body[:500]
    assert not errors, errors
    k = press_right(driving, 1)  # the tab that drives last still does
    until(f"Ann follows to {k}", lambda: ann.step() == k, [driving, ann])
    load = Path("/proc/loadavg").read_text().split()[0]
    print("\n" + "\n".join(measured) + f" (load average {load})")


def test_the_take_over_race_never_sends_the_class_back_on_one_server(browser, crowd):  # noqa: F811
    with serve_app(env=QUIET_TEACHER) as served:
        run_races(served.url, served.url, crowd, "one server")


def test_the_take_over_race_never_sends_the_class_back_on_two_servers(browser, crowd):  # noqa: F811
    require_redis("the take-over race on two servers")
    with start_redis() as url:
        env = {"BPE_LAB_ROOMS": url, **QUIET_TEACHER}
        with serve_apps(2, env=env) as (a, b):
            run_races(a.url, b.url, crowd, "two servers")
