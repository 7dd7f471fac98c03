"""A teacher can always return (issue 44), in Chromium, with the rooms in Redis.

The teacher opens a room and reads the teacher phrase on their Classroom page; Ann joins. The
teacher's tab closes; the app opened in a new tab of that browser is not the teacher (nothing is
offered), and becomes the teacher with the room's code and the phrase. Ann's tab, typing the code
with a phrase of her own, is refused and stays a student. Then the teacher's tab closes again and
Redis restarts empty (nobody is left to put the room back): the phrase, typed in a new tab, puts
the room back under its code, and Ann, who waited, is a member again.
"""

from __future__ import annotations

import pytest
from conftest import serve_app
from redis_server import require_redis, restartable_redis
from test_classroom_real_life import (  # noqa: F401  (crowd: the fixture, shared)
    crowd,
    join,
    open_room,
    until,
)
from test_classroom_roles import TAKE_OVER, Tab, sidebar_says, teaches

pytestmark = [pytest.mark.browser, pytest.mark.timeout(420)]

REFUSED = "not the teacher phrase"


def come_back(tab, code: str, phrase: str) -> None:
    """On the Classroom page: "Teach a room you opened", the code and the phrase, the button."""
    box = tab.main.get_by_text("Teach a room you opened (your teacher phrase)")
    tab.go("Classroom", box)
    box.click()
    tab.main.get_by_label("Your room's code", exact=True).fill(code)
    tab.main.get_by_label("Teacher phrase", exact=True).fill(phrase)
    tab.main.get_by_label("Teacher phrase", exact=True).press("Enter")
    tab.idle()
    tab.main.get_by_role("button", name="Teach this room again").click()
    tab.idle()


def test_the_teacher_returns_with_the_phrase_after_a_closed_tab_and_a_redis_restart(
        browser, crowd):  # noqa: F811 - the fixture imported above
    require_redis("the teacher's return over Redis")
    with restartable_redis() as redis, serve_app(env={"BPE_LAB_ROOMS": redis.url}) as served:
        teacher = crowd(served.url, "teacher")
        code = open_room(teacher)
        teacher.main.get_by_text("Your teacher phrase", exact=False).click()
        phrase = teacher.main.get_by_test_id("stCode").last.inner_text().strip()
        assert len(phrase) == 14, phrase
        ann = crowd(served.url, "ann")
        join(ann, code)
        assert phrase not in ann.page.inner_text("body")

        teacher.page.close()  # the teacher's tab closes
        fresh = Tab(teacher, "fresh")
        fresh.open()
        assert not sidebar_says(fresh, "you teach")
        assert fresh.sidebar.get_by_role("button", name=TAKE_OVER).count() == 0
        come_back(fresh, code, phrase.lower().replace("-", " "))  # as typed from a note
        until("the new tab teaches", lambda: teaches(fresh, code).count() == 1, [fresh, ann])
        until("Ann is counted", lambda: fresh.status() == "Students here now: 1", [fresh, ann])

        # Ann's tab: her own guess is refused, and she stays a student
        ann.go("Classroom")
        ann.page.get_by_role("button", name="Leave the room").click()
        ann.idle()
        wrong = "ABCD-EFGH-JKMN" if phrase != "ABCD-EFGH-JKMN" else "ABCD-EFGH-JKMP"
        come_back(ann, code, wrong)
        until("Ann is told the phrase is wrong", lambda: REFUSED in ann.main.inner_text(),
              [fresh, ann])
        assert not sidebar_says(ann, "you teach")
        assert teaches(fresh, code).count() == 1
        join(ann, code)

        # the teacher's tab closes, and Redis restarts empty: nobody puts the room back
        fresh.page.close()
        redis.kill()
        redis.restart()
        last = Tab(teacher, "last")
        last.open()
        come_back(last, code, phrase)
        until("the phrase brings the teacher back after the restart",
              lambda: teaches(last, code).count() == 1, [last, ann])
        until("Ann is a member again", lambda: last.status() == "Students here now: 1",
              [last, ann])
        assert sidebar_says(ann, f"Classroom {code} · you are a student")
