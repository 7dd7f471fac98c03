"""Members are people, not joins (issue 44), in Chromium: joins through real Streamlit sessions
(a page opens the join link, shows "you are a student", and closes) count only while their page
checks in. The teacher's count goes up with them and falls back to the one student who stays
within the join grace (JOIN_GRACE, 10 s) plus the watcher's poll and the server's sweep (1 s),
not after MEMBER_TIMEOUT (60 s) as before. And a student's address opened in another browser is
a new member, not the student. On the tests' shared app server (rooms in its memory), each
test with a room of its own.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from test_classroom_real_life import (  # noqa: F401  (crowd: the fixture, shared)
    crowd,
    join,
    member,
    open_room,
    until,
)

from ui.classroom.rooms import JOIN_GRACE, MEMBER_TIMEOUT

pytestmark = [pytest.mark.browser, pytest.mark.timeout(300)]

SCRIPTED = 3  # pages that join and close
BACK_S = JOIN_GRACE + 10  # the count must be back within this (a bound the code enforces + slack)


def room_with_ann(base: str, crowd):  # noqa: F811
    """A teacher's room and Ann in it, counted; (teacher, code, ann)."""
    teacher = crowd(base, "teacher")
    code = open_room(teacher)
    ann = crowd(base, "ann")
    join(ann, code)
    until("the teacher counts Ann", lambda: teacher.status() == "Students here now: 1",
          [teacher, ann])
    return teacher, code, ann


def test_joins_through_real_sessions_that_close_fall_back_within_the_grace(served_app, crowd):  # noqa: F811
    assert BACK_S < MEMBER_TIMEOUT  # what the count waited for before
    teacher, code, ann = room_with_ann(served_app.url, crowd)
    for i in range(SCRIPTED):
        script = crowd(served_app.url, f"script{i}")
        join(script, code)  # a real Streamlit session, a real page: it shows it joined
        script.close()
    closed = time.monotonic()
    back = until(f"the count falls back to Ann alone within {BACK_S:.0f} s",
                 lambda: teacher.status() == "Students here now: 1", [teacher, ann],
                 timeout=BACK_S)
    time.sleep(3.0)
    assert teacher.status() == "Students here now: 1"  # Ann's page still counts
    load = Path("/proc/loadavg").read_text().split()[0]
    print(f"\ncount back {time.monotonic() - closed - 3.0:.1f} s after the last close "
          f"(the until: {back:.1f} s; load average {load})")


def test_a_students_address_opened_in_another_browser_is_a_new_member(served_app, crowd):  # noqa: F811
    """Ann's address (``?room=…&member=…``) opened in another browser joins as a new member (she
    is bound to the browser she joined in); in her own browser, a reload is still Ann."""
    teacher, code, ann = room_with_ann(served_app.url, crowd)
    address = ann.page.url
    ann_id = member(ann)
    assert ann_id and f"member={ann_id}" in address

    # her page's load gave her browser its key (an HttpOnly cookie); her join bound her to it
    until("Ann's browser holds its key", lambda: any(
        c["name"] == "bpelab_browser" and c["httpOnly"] for c in ann.ctx.cookies()), [ann])
    other = crowd(served_app.url, "other")  # another browser (its own cookies and storage)
    other.open(address)
    other.idle(other.sidebar.get_by_text(f"Classroom {code} · you are a student"))
    until("the other browser has a member id of its own", lambda: member(other) != "",
          [other])
    assert member(other) != ann_id
    until("the teacher counts two students",
          lambda: teacher.status() == "Students here now: 2", [teacher, ann, other])

    ann.page.reload(wait_until="domcontentloaded")  # Ann's own browser: still Ann
    ann.idle(ann.sidebar.get_by_text(f"Classroom {code} · you are a student"))
    assert member(ann) == ann_id
    until("the teacher counts two students again (Ann once, the other once)",
          lambda: teacher.status() == "Students here now: 2", [teacher, ann, other])
