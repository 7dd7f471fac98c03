"""Members are people, not joins (issue 44), in Chromium: joins through real Streamlit sessions
(a page opens the join link, shows "you are a student", and closes) count only while their page
checks in. The teacher's count goes up with them and falls back to the one student who stays
within the join grace (JOIN_GRACE, 10 s) plus the watcher's poll and the server's sweep (1 s),
not after MEMBER_TIMEOUT (60 s) as before. One app server, rooms in its memory.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from conftest import serve_app
from test_classroom_real_life import (  # noqa: F401  (crowd: the fixture, shared)
    crowd,
    join,
    open_room,
    until,
)

from ui.classroom.rooms import JOIN_GRACE, MEMBER_TIMEOUT

pytestmark = [pytest.mark.browser, pytest.mark.timeout(300)]

SCRIPTED = 3  # pages that join and close
BACK_S = JOIN_GRACE + 10  # the count must be back within this (a bound the code enforces + slack)


def test_joins_through_real_sessions_that_close_fall_back_within_the_grace(browser, crowd):  # noqa: F811
    assert BACK_S < MEMBER_TIMEOUT  # what the count waited for before
    with serve_app() as served:
        teacher = crowd(served.url, "teacher")
        code = open_room(teacher)
        ann = crowd(served.url, "ann")
        join(ann, code)
        until("the teacher counts Ann", lambda: teacher.status() == "Students here now: 1",
              [teacher, ann])
        for i in range(SCRIPTED):
            script = crowd(served.url, f"script{i}")
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
