"""A lesson in real life (issue 25), in Chromium: reloads, a teacher who leaves and comes back, a
Redis that dies and restarts mid-lesson, a live count, and a teacher who presses fast.

One set of servers for the module: a ``redis-server`` this module can kill and restart on the
same port (tests/redis_server.py), and two app servers A and B with ``BPE_LAB_ROOMS`` on it (a
teacher on one and students on the other share rooms only through Redis). The teacher's absence
is told after BPE_LAB_TEACHER_TIMEOUT = 3 s here (6 s by default). One Chromium (the sync
fixture of conftest.py), one browser context per person.

What is asserted is behaviour, each within a generous bound (the machine has 2 cores shared with
other work): the message appears, the room comes back, the class follows again. How long each
took is measured on one clock (time.monotonic() in this process, polling the pages every 100 ms)
and written to /tmp/classroom_real_life_report.txt (and printed with -s), against the issue's
bounds: count ≤ 2 s, teacher gone ≤ 10 s, outage said ≤ 3 s, room back ≤ 5 s.
"""

from __future__ import annotations

import os
import re
import time
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest
from conftest import nav_here, nav_link, serve_apps
from redis_server import require_redis, restartable_redis
from support import PAGE_STATE_JS, metric_value

try:
    from playwright.sync_api import TimeoutError as PlaywrightTimeout
except ImportError:  # conftest.py skips these tests, or fails them when CI=true
    PlaywrightTimeout = TimeoutError

pytestmark = [pytest.mark.browser, pytest.mark.timeout(600)]

WAIT_S = 60.0  # any one condition (a message, a count, a step) must hold within this long
ACTION_MS = 60_000  # any other single wait of Playwright's
TEACHER_TIMEOUT = 3  # BPE_LAB_TEACHER_TIMEOUT of the servers here
VIEWPORT = {"width": 1280, "height": 1600}
STEP_LABEL = "Merges applied (k)"
REPORT = Path(os.environ.get("BPE_LAB_REAL_LIFE_REPORT", "/tmp/classroom_real_life_report.txt"))
SHOTS = REPORT.parent
IDLE = "[data-testid=stApp][data-test-script-state=notRunning]"
TEACHER_TEXT = "the teacher's own pasted text, aaab aaab aaab, abab abab, the end. " * 20
PRESSES = 30  # the race: ArrowRight presses,
PRESS_GAP_S = 0.1  # ten a second

# Every data-step the page's stepping view shows, in order (a MutationObserver: every change).
RECORD_STEPS_JS = """(view) => {
  window.__steps = [Number(view.dataset.step)];
  new MutationObserver(() => window.__steps.push(Number(view.dataset.step)))
    .observe(view, {attributes: true, attributeFilter: ['data-step']});
}"""

measured: dict[str, float | str] = {}


@pytest.fixture(scope="module")
def lesson(browser):
    """(redis, A, B): Redis that can be killed and restarted, two app servers on it."""
    require_redis("the Redis tests")
    with restartable_redis() as redis:
        env = {"BPE_LAB_ROOMS": redis.url, "BPE_LAB_TEACHER_TIMEOUT": str(TEACHER_TIMEOUT)}
        with serve_apps(2, env=env) as (a, b):
            yield redis, a.url, b.url
    if measured:
        lines = [f"{k}: {v:.2f} s" if isinstance(v, float) else f"{k}: {v}"
                 for k, v in measured.items()]
        load = Path("/proc/loadavg").read_text().split()[:3]
        text = "classroom real life (load average " + " ".join(load) + ")\n" + "\n".join(lines)
        REPORT.write_text(text + "\n")
        print("\n" + text)


@pytest.fixture
def crowd(browser):
    """``crowd(base, who)``: a new Person on server ``base``; all closed after the test."""
    made: list[Person] = []

    def person(base: str, who: str) -> Person:
        made.append(Person(browser, base, who))
        return made[-1]

    yield person
    for p in made:
        p.close()


class Person:
    """One browser context: one Streamlit session."""

    def __init__(self, browser, base: str, who: str):
        self.who, self.base, self.closed = who, base, False
        self.ctx = browser.new_context(viewport=VIEWPORT)
        self.ctx.set_default_timeout(ACTION_MS)
        self.page = self.ctx.new_page()
        self.main = self.page.get_by_test_id("stMain")
        self.sidebar = self.page.get_by_test_id("stSidebar")

    def open(self, url: str | None = None) -> None:
        self.page.goto(url or self.base, wait_until="domcontentloaded")
        self.idle()

    def idle(self, *expected) -> None:
        for loc in expected:
            loc.first.wait_for(state="visible")
        self.page.locator(IDLE).wait_for(state="attached")

    def go(self, title: str, *expected) -> None:
        if nav_here(self.page, title).count():  # there already (a student follows the teacher)
            self.idle(*expected)
            return
        nav_link(self.page, title).click()
        nav_here(self.page, title).wait_for()
        self.idle(*expected)

    def status(self) -> str:
        """The room watcher's line in the sidebar ("" when it says nothing)."""
        box = self.page.locator("[data-testid=room-status]")
        try:
            return (box.first.text_content(timeout=2_000) or "").strip() if box.count() else ""
        except PlaywrightTimeout:
            return ""

    def view(self):
        return self.main.get_by_test_id("bpe-steps")

    def step(self) -> int | None:
        view = self.view()
        if not view.count():
            return None
        try:
            value = view.first.get_attribute("data-step", timeout=2_000)
        except PlaywrightTimeout:  # the view went between the count and the read: a rerun
            return None  # draws it again (2 s was seen to pass at load 17)
        return None if value is None else int(value)

    def metric(self, label: str):
        """The number shown under this label (an st.metric, or the front page box\'s)."""
        return metric_value(self.main, label)

    def shot(self, name: str) -> str:
        path = SHOTS / f"classroom_real_life_{name}_{self.who}.png"
        try:
            self.page.screenshot(path=str(path), timeout=10_000)
        except Exception:  # noqa: BLE001 - a failing page may not take a screenshot either
            pass
        return str(path)

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            self.ctx.close()


# what the tab keeps of the classroom's keys (ui/classroom/component.py), for a failure's report
ROOM_KEYS_JS = """() => {
  try {
    const side = document.querySelector("[data-testid=stSidebarUserContent]");
    return JSON.stringify({ teacher: sessionStorage.getItem("bpelab.teacher"),
                            teaching: localStorage.getItem("bpelab.teaching"),
                            sidebar: side ? side.innerText.slice(-400) : null });
  }
  catch (e) { return String(e); }
}"""


def until(what: str, check, people: list[Person], timeout: float = WAIT_S) -> float:
    """Poll ``check()`` every 100 ms until it is true; returns the seconds it took. Fails after
    ``timeout`` with every page's state and a screenshot of each."""
    start = time.monotonic()
    while True:
        try:
            if check():
                return time.monotonic() - start
        except PlaywrightTimeout:
            pass
        if time.monotonic() - start > timeout:
            states = [f"{p.who}: {p.page.evaluate(PAGE_STATE_JS)[:300]} (status: {p.status()!r};"
                      f" keys: {p.page.evaluate(ROOM_KEYS_JS)};"
                      f" {p.shot(re.sub('[^a-z]+', '_', what.lower())[:30])})"
                      for p in people if not p.page.is_closed()]
            pytest.fail(f"not within {timeout:.0f} s: {what}\n" + "\n".join(states),
                        pytrace=False)
        time.sleep(0.1)


def open_room(teacher: Person, text: str | None = None) -> str:
    """The teacher (optionally with their own pasted text) opens a room; returns its code."""
    teacher.open()
    teacher.idle(teacher.metric("Tokens"))
    if text is not None:
        box = teacher.sidebar.get_by_label("Text", exact=True)
        box.fill(text)
        box.press("Control+Enter")
        teacher.idle(teacher.metric("Tokens"))
        teacher.sidebar.get_by_role("button", name="Train", exact=True).click()
        teacher.idle(teacher.metric("Tokens"))
    button = teacher.main.get_by_role("button", name="Open a room", exact=True)
    teacher.go("Classroom", button)
    button.click()
    teacher.idle(teacher.main.locator(".room-code"))
    code = teacher.main.locator(".room-code").inner_text().strip()
    assert re.fullmatch(r"[A-Z2-9]{4}-[A-Z2-9]{4}", code), code
    return code


def join(student: Person, code: str) -> None:
    """A student opens the join link on their own server."""
    student.open(f"{student.base}/?room={code.replace('-', '')}")
    student.idle(student.sidebar.get_by_text(f"Classroom {code} · you are a student"))


def member(student: Person) -> str:
    return parse_qs(urlsplit(student.page.url).query).get("member", [""])[0]


def to_steps(person: Person) -> None:
    person.go("Step through merges", person.view())


def press_right(teacher: Person, times: int = 1) -> int:
    """The teacher presses ArrowRight on the in-browser slider; returns the step it shows."""
    slider = teacher.view().get_by_role("slider", name=STEP_LABEL)
    slider.focus()
    for _ in range(times):
        slider.press("ArrowRight")
    until("the stepping view shows its step", lambda: teacher.step() is not None, [teacher])
    return teacher.step()


# How many lines an element's text takes (its client rects: one per line box).
LINES_JS = "(el) => el.getClientRects().length"
FITS_JS = "(el) => el.scrollWidth <= el.clientWidth + 1"


def projector(teacher: Person) -> None:
    """At 1024 px, with projector mode on: the code is one line that fits its box, and the link
    is never broken inside ``?room=CODE``."""
    teacher.page.set_viewport_size({"width": 1024, "height": 768})
    teacher.sidebar.get_by_text("Projector mode", exact=True).click()
    teacher.idle(teacher.main.locator(".room-code"))
    code = teacher.main.locator(".room-code")
    one_line = code.evaluate("(el) => el.getBoundingClientRect().height")
    size = code.evaluate("(el) => parseFloat(getComputedStyle(el).lineHeight)")
    assert one_line < 1.5 * size, (one_line, size)
    assert code.evaluate(FITS_JS)
    whole = teacher.main.locator(".room-link .whole").first
    assert whole.evaluate(LINES_JS) == 1
    teacher.page.set_viewport_size(VIEWPORT)


def class_of_two(crowd, a: str, b: str) -> tuple[Person, Person, Person, str]:
    """A teacher on server A who opened a room with their own text; Ann (on A) and Bob (on B),
    not joined yet; and the room's code."""
    teacher = crowd(a, "teacher")
    ann, bob = crowd(a, "ann"), crowd(b, "bob")
    return teacher, ann, bob, open_room(teacher, TEACHER_TEXT)


def count_is(teacher: Person, n: int):
    return lambda: teacher.status() == f"Students here now: {n}"


# -- members are people; the teacher comes back ----------------------------------------------------


def test_live_count_student_reload_and_teacher_reload(crowd, lesson):
    _, a, b = lesson
    teacher, ann, bob, code = class_of_two(crowd, a, b)
    people = [teacher, ann, bob]
    until("the teacher's count says 0", count_is(teacher, 0), people)
    projector(teacher)
    join(ann, code)
    measured["count after a join on the teacher's server"] = until(
        "the count says 1", count_is(teacher, 1), people)
    join(bob, code)
    measured["count after a join on the other server"] = until(
        "the count says 2", count_is(teacher, 2), people)
    teacher.idle(teacher.metric("Students"))
    until("the Students metric says 2",
          lambda: teacher.metric("Students").inner_text() == "2", people)

    # Bob reloads: the same member, and still two students
    before = member(bob)
    assert before
    bob.page.reload(wait_until="domcontentloaded")
    bob.idle(bob.sidebar.get_by_text(f"Classroom {code} · you are a student"))
    assert member(bob) == before
    time.sleep(2 * 1.0)  # two of the teacher's polls: a new member would show as 3
    assert teacher.status() == "Students here now: 2"

    # the teacher reloads: back in the room with its text, and the class still follows
    to_steps(teacher)
    to_steps(ann)
    teacher.page.reload(wait_until="domcontentloaded")
    start = time.monotonic()
    teacher.idle(teacher.sidebar.get_by_text(f"Classroom {code} · you teach"))
    measured["teacher back in the room after a reload"] = time.monotonic() - start
    assert teacher.sidebar.get_by_label("Text", exact=True).input_value() == TEACHER_TEXT
    until("the teacher's count says 2 after the reload", count_is(teacher, 2), people)
    to_steps(teacher)
    k = press_right(teacher, 2)
    until(f"Ann's view follows the teacher to step {k}", lambda: ann.step() == k, people)


def test_a_teacher_who_leaves_is_missed_and_students_keep_their_work(crowd, lesson):
    _, a, b = lesson
    teacher = crowd(a, "teacher")
    ann = crowd(b, "ann")
    people = [teacher, ann]
    code = open_room(teacher, TEACHER_TEXT)
    join(ann, code)
    until("Ann's status is quiet", lambda: ann.status() == "", people)

    # "Students follow my page": the class goes where the teacher goes
    teacher.main.get_by_text("Students follow my page", exact=True).click()
    teacher.idle()
    teacher.go("Tokens", teacher.metric("Tokens"))
    on_tokens = nav_here(ann.page, "Tokens")
    measured["a student follows the teacher's page"] = until(
        "Ann is taken to the Tokens page", lambda: on_tokens.count() == 1, people)

    teacher.close()  # the tab is gone, without a word
    people = [ann]
    measured["students told the teacher is gone (timeout 3 s)"] = until(
        "Ann is told the teacher left", lambda: "teacher has left" in ann.status(), people)
    assert ann.sidebar.get_by_label("Text", exact=True).input_value() == TEACHER_TEXT
    assert ann.sidebar.get_by_text(f"Classroom {code} · you are a student").is_visible()


# -- outages are said and survived -----------------------------------------------------------------


def test_redis_dies_and_restarts_mid_lesson_on_two_servers(crowd, lesson):
    import redis as redis_client

    redis, a, b = lesson
    teacher, ann, bob, code = class_of_two(crowd, a, b)
    people = [teacher, ann, bob]
    join(ann, code)
    join(bob, code)
    for p in people:
        to_steps(p)
    k = press_right(teacher, 3)
    until(f"both students show step {k}", lambda: ann.step() == k and bob.step() == k, people)

    redis.kill()
    measured["every screen says the store is down"] = until(
        "every screen says the server is not answering",
        lambda: all("not answering" in p.status() for p in people), people)
    for p in (ann, bob):  # they keep what they show
        assert p.step() == k

    redis.restart()  # empty
    client = redis_client.Redis.from_url(redis.url)
    meta = f"bpelab:room:{code.replace('-', '')}:meta"
    measured["the teacher's session puts the room back"] = until(
        "the room is back in Redis under the same code", lambda: client.exists(meta), people)
    measured["both students back in the room"] = until(
        "both students are members again",
        lambda: client.hlen(f"bpelab:room:{code.replace('-', '')}:members") == 2, people)
    client.close()
    until("the screens say nothing more", lambda: all(
        p.status() in ("", "Students here now: 2") for p in people), people)
    k2 = press_right(teacher, 2)
    assert k2 == k + 2
    measured["students follow again after the restart"] = until(
        f"both students follow to step {k2}",
        lambda: ann.step() == k2 and bob.step() == k2, people)
    assert teacher.sidebar.get_by_label("Text", exact=True).input_value() == TEACHER_TEXT


# -- no key press is lost, and the view never moves on its own -------------------------------------


def test_thirty_fast_presses_while_the_server_reruns(crowd, lesson):
    """30 ArrowRight presses at 10 a second on the in-browser view, which tells its server the
    step at most every 250 ms (so the server reruns while the keys come): the view ends exactly
    30 steps on, never shows a step lower than one before it, and the server (its Step metric, and
    the room it teaches) ends on that step."""
    import redis as redis_client

    redis, a, _ = lesson
    teacher = crowd(a, "presser")
    code = open_room(teacher)  # a teacher: each rerun also publishes to the room
    assert code
    to_steps(teacher)
    view = teacher.view()
    start = teacher.step()
    n = int(view.get_by_role("slider", name=STEP_LABEL).get_attribute("max"))
    assert start + PRESSES <= n
    teacher.page.evaluate(RECORD_STEPS_JS, view.element_handle())
    slider = view.get_by_role("slider", name=STEP_LABEL)
    slider.focus()
    t0 = time.monotonic()
    for i in range(PRESSES):
        slider.press("ArrowRight")
        time.sleep(max(0.0, t0 + (i + 1) * PRESS_GAP_S - time.monotonic()))
    want = start + PRESSES
    until("the view shows +30", lambda: teacher.step() == want, [teacher])
    until("the server's Step metric shows +30",
          lambda: teacher.metric("Step").inner_text() == f"{want:,} of {n:,}", [teacher])
    time.sleep(1.0)  # any late rerun would move it now
    steps = teacher.page.evaluate("() => window.__steps")
    assert teacher.step() == want
    assert all(x <= y for x, y in zip(steps, steps[1:])), steps
    assert steps[-1] == want and steps[0] == start
    client = redis_client.Redis.from_url(redis.url, decode_responses=True)
    room_step = f"bpelab:room:{code.replace('-', '')}:step"
    until("the room's step is +30", lambda: client.get(room_step) == str(want), [teacher])
    client.close()
    measured["presses: steps recorded"] = f"{len(steps)} (from {start} to {steps[-1]})"
