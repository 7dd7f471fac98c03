"""F5 inside a classroom room keeps the lesson (issues 45 and 44), in Chromium, on the tests'
shared app server (rooms in its memory).

Ann has her own text before she joins. The teacher opens a room with a text of their own and
steps to merge 20; Ann follows. Each presses F5: the teacher teaches again, Ann is the same
student (one member in the count), and both show step 20 with the tokens bpe_core gives after
20 merges. In the class quiz, Ann answers and presses F5: her answer is still hers on her screen,
counted once, and judged at the reveal. When she leaves, her own text comes back (the tab kept it
aside while the room's text was on her screen). Back in the room, exploring on her own with a
text she typed, F5 keeps her exploring with that text, and her own text from before joining,
kept beside it, comes back when she leaves (ui/classroom/reload.py).
"""

from __future__ import annotations

import pytest
from conftest import nav_here
from test_classroom_real_life import (  # noqa: F401  (crowd: the fixture, shared)
    STEP_LABEL,
    TEACHER_TEXT,
    crowd,
    join,
    member,
    open_room,
    to_steps,
    until,
)
from test_steps_in_browser import go_to, shown_ids

import bpe_core

pytestmark = [pytest.mark.browser, pytest.mark.timeout(240)]

STEP = 20
ANN_TEXT = "Ann's own notes: zebra quux, zebra quux, the end. " * 8
EXPLORED = "Ann explores: qwerty qwerty qwerty. " * 6
QUESTION = "Which pair does merge"


def f5(person, *expected) -> None:
    person.page.reload(wait_until="domcontentloaded")
    person.idle(*expected)


def leave(ann, a_student) -> None:
    ann.sidebar.get_by_role("button", name="Leave the room").click()
    until("Ann has left the room", lambda: a_student.count() == 0, [ann])
    until("Ann's own text is back", lambda: text_box(ann).input_value() == ANN_TEXT, [ann])
    ann.idle()
    assert text_box(ann).input_value() == ANN_TEXT  # and stays (no later run takes it back)


def text_box(person):
    return person.sidebar.get_by_label("Text", exact=True)


def test_f5_in_a_room_keeps_the_role_the_rooms_step_the_tokens_and_the_quiz_answer(
        served_app, crowd):  # noqa: F811 - the fixture imported above
    tok = bpe_core.RegexTokenizer()  # the sidebar's default ("Train: GPT-4 split", 512)
    tok.train(TEACHER_TEXT, 512)
    # special-token text read as text (the sidebar's default rule); none in this text anyway
    expected = [s.id for s in tok.step_through(TEACHER_TEXT, allowed_special="none")
                .tokens_at(STEP)]

    teacher, ann = crowd(served_app.url, "teacher"), crowd(served_app.url, "ann")
    ann.open()
    text_box(ann).fill(ANN_TEXT)
    text_box(ann).press("Control+Enter")
    ann.idle(ann.sidebar.get_by_text(f"{len(ANN_TEXT):,} of 200,000 characters"))
    code = open_room(teacher, TEACHER_TEXT)
    join(ann, code)  # the join link, opened in Ann's tab: a new session, the tab's storage
    you_teach = teacher.sidebar.get_by_text(f"Classroom {code} · you teach")
    a_student = ann.sidebar.get_by_text(f"Classroom {code} · you are a student")
    people = [teacher, ann]

    to_steps(teacher)
    to_steps(ann)
    # the teacher drags the slider to merge 20 (one move of the in-browser view, as a key)
    view = teacher.view()
    go_to(teacher, view, view.get_by_role("slider", name=STEP_LABEL), STEP)
    until(f"Ann follows to {STEP}", lambda: ann.step() == STEP, people)

    def rooms_tokens() -> bool:  # the follow poll may move the step before the page's run
        ids = shown_ids(ann.view())  # has drawn the room's text (the first sample until then)
        return len(ids) > 100 and ids == expected[:len(ids)]
    until(f"Ann's view shows the room's text at {STEP}", rooms_tokens, people)
    before = shown_ids(ann.view())
    who = member(ann)

    f5(teacher, you_teach)
    until(f"the teacher's view is back at {STEP}", lambda: teacher.step() == STEP, people)
    until(f"the teacher's page says step {STEP}",
          lambda: teacher.metric("Step").inner_text().startswith(f"{STEP} of"), people)
    assert shown_ids(teacher.view()) == before
    assert text_box(teacher).input_value() == TEACHER_TEXT

    # the class quiz: Ann answers, then goes to Step through merges and presses F5 there
    start = teacher.main.get_by_role("button", name="Start the class quiz", exact=True)
    teacher.go("Classroom", start)
    start.click()
    teacher.idle(teacher.main.get_by_text(QUESTION))
    radio = ann.main.get_by_test_id("stRadio").filter(has_text=QUESTION)
    radio.wait_for()  # the quiz took Ann to the Classroom page
    radio.locator("label:has(input[type=radio])").first.click()
    ann.idle(radio.locator("input:checked"))
    picked = radio.locator("label:has(input:checked)").inner_text().strip()
    ann.main.get_by_role("button", name="Send my answer", exact=True).click()
    sent = ann.main.get_by_text("Answer sent:")
    ann.idle(sent)
    until("the teacher counts one answer",
          lambda: teacher.metric("Answered").inner_text() == "1 of 1", people)
    to_steps(ann)
    f5(ann, a_student, ann.view())
    # still on her page (the question she answered does not send her back to the Classroom)
    assert nav_here(ann.page, "Step through merges").count() == 1
    until(f"Ann's view is at the room's step {STEP}", lambda: ann.step() == STEP, people)
    until(f"Ann's page says step {STEP}",
          lambda: ann.metric("Step").inner_text().startswith(f"{STEP} of"), people)
    assert shown_ids(ann.view()) == before
    assert text_box(ann).input_value() == TEACHER_TEXT
    assert member(ann) == who
    ann.go("Classroom", sent)  # her answer, as she sent it
    assert radio.locator("label:has(input:checked)").inner_text().strip() == picked
    f5(teacher, you_teach, teacher.metric("Answered"))
    until("one student, one answer", lambda: teacher.status() == "Students here now: 1"
          and teacher.metric("Answered").inner_text() == "1 of 1"
          and teacher.metric("Students").inner_text() == "1", people)
    teacher.main.get_by_role("button", name="Reveal", exact=True).click()
    teacher.idle(teacher.main.get_by_text("of 1 answers right"))
    verdict = ann.main.get_by_text("Right!").or_(ann.main.get_by_text("Not this time"))
    until("Ann's answer is judged", lambda: verdict.count() == 1, people)
    assert ann.main.get_by_text("You did not answer").count() == 0

    # leaving gives Ann her own text back, though her tab was reloaded in the room (her room
    # watcher's poll, woken by the leave, may rerun the page before the leave's run is drawn:
    # that rerun's echo of the room's text is not taken as hers, ui/kit/session_keys.py)
    ann.idle()  # the reveal's rerun is over: a click while the sidebar redraws can be lost
    leave(ann, a_student)

    # exploring on her own in the room, with a text she typed: F5 keeps both
    join(ann, code)
    follow = ann.sidebar.get_by_role("switch", name="Follow the teacher")
    ann.sidebar.get_by_text("Follow the teacher", exact=True).click()
    until("Ann explores", lambda: not follow.is_checked(), [ann])
    ann.idle()
    text_box(ann).fill(EXPLORED)
    text_box(ann).press("Control+Enter")
    ann.idle(ann.sidebar.get_by_text(f"{len(EXPLORED):,} of 200,000 characters"))
    f5(ann, a_student)
    until("Ann explores her text after F5",
          lambda: text_box(ann).input_value() == EXPLORED, [ann])
    assert not follow.is_checked()
    # and her work from before joining was kept beside it over that F5: leaving gives it back
    leave(ann, a_student)
