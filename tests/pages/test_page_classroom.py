"""AppTest tests for the Classroom page (pages/classroom.py) and the room glue (ui/classroom/panel.py).

AppTest runs in this process and ``ui.classroom.panel.rooms()`` is an ``st.cache_resource``, so every
AppTest here shares one store of rooms: a teacher's AppTest and its students' AppTests talk to each
other exactly as browser sessions on one server do. Each test opens a room of its own.

Two AppTest habits shape these tests:

- ``at.switch_page(...)`` pins the page every later ``run()`` asks for; an ``st.switch_page`` in
  the app is followed only while the AppTest never pinned one. So a student who must be *sent*
  somewhere by the room (the class quiz) joins by the link and stays on the default page.
- A text input drops a typed value longer than its ``max_chars`` (a browser cuts it instead): the
  hostile nickname below fits the 24 characters a nickname may have.
"""

import json
import re
from pathlib import Path

import pyarrow.ipc
import pytest
from streamlit.testing.v1 import AppTest
from support import open_page

import ui.classroom.panel
import ui.classroom.rooms
from ui.classroom.panel import LOST_WAIT_S, rooms
from ui.classroom.rooms import MemoryKV, show_code
from ui.quiz import questions as qz

APP = str(Path(__file__).resolve().parents[2] / "app.py")
CLASSROOM = "pages/classroom.py"
OWN_TEXT = ("zebra quux zebra quux: a student's very own text, pasted before the lesson. " * 30)
HOSTILE = "<img src=x onerror=f(1)>"  # 24 characters: the most a nickname input takes
RAW_IMG = re.compile(r"(?<!\\)<img")  # "<img" not backslash-escaped (Markdown would render it)


# -- helpers ----------------------------------------------------------------------------------------


@pytest.fixture(autouse=True)
def rooms_enough(monkeypatch):
    """Every AppTest has the same session id ("test session id") and no IP address, so all of
    them are one client to the rooms' limits: the 11th room opened in a pytest process would be
    refused ("Too many rooms opened from here"). Lift the per-client cap on new rooms here."""
    monkeypatch.setattr(ui.classroom.rooms, "CREATES_PER_HOUR", 10_000)


def new_app(page: str | None = None, room: str | None = None) -> AppTest:
    """A fresh session (its first run trains on the first sample), with ``?room=`` when given."""
    return open_page(page, query=None if room is None else {"room": room})


def teacher() -> tuple[AppTest, str]:
    """A teacher's session that opened a room on the Classroom page; (app, code)."""
    app = new_app(CLASSROOM)
    app.button(key="room_open").click().run()
    assert not app.exception
    room = app.session_state["_room"]
    assert room["role"] == "teacher"
    return app, room["code"]


def typed(code: str) -> str:
    """The code as a student types it from the projector: lower case, with the dash."""
    return show_code(code).lower()


def join_by_form(app: AppTest, code_typed: str, nickname: str = "") -> AppTest:
    """Join from the Classroom page's form (the app is switched there first)."""
    app.switch_page(CLASSROOM).run()
    app.text_input(key="room_code").input(code_typed)
    if nickname:
        app.text_input(key="room_nickname").input(nickname)
    app.button(key="room_join").click().run()
    assert not app.exception
    return app


def student(code: str, nickname: str = "") -> AppTest:
    return join_by_form(new_app(), typed(code), nickname)


def own_work(app: AppTest, text: str = OWN_TEXT, vocab: int = 300) -> object:
    """The student's own text and tokenizer, trained before joining; returns the tokenizer."""
    app.text_area(key="text").set_value(text).run()
    app.number_input(key="vocab_size").set_value(vocab).run()
    app.button(key="train").click().run()
    assert not app.exception
    tok = app.session_state["tok"]
    assert tok.vocab_size == vocab
    return tok


def in_room(app: AppTest) -> dict | None:
    return app.session_state["_room"] if "_room" in app.session_state else None


def metrics(app: AppTest) -> dict[str, str]:
    return {m.label: m.value for m in app.metric}


def button_keys(app: AppTest) -> set[str]:
    return {b.key for b in app.button}


def messages(app: AppTest, kind: str) -> str:
    """Every ``kind`` ("error", "info", "success", "warning") message, Markdown escapes undone."""
    return re.sub(r"\\(.)", r"\1", " | ".join(m.value for m in getattr(app, kind)))


def everything(app: AppTest) -> str:
    """Every element and block the last run drew (main and sidebar), as its protobuf text."""
    return "\n".join(str(node.proto) for part in (app.main, app.sidebar) for node in part)


def set_step(app: AppTest, step: int) -> None:
    """The teacher moves to ``step`` (as the Step through page's controls do) and runs that page."""
    app.session_state["step"] = step
    app.switch_page("pages/steps.py").run()
    assert not app.exception


def chart_frame(app: AppTest):
    """The data of the class's answers chart (key room_answers_chart; the key is not in the
    chart's proto, so it is found by its columns: pair, answers, right)."""
    found = []
    for chart in app.get("vega_lite_chart"):
        json.loads(chart.proto.spec)  # a real Vega-Lite spec
        for d in chart.proto.datasets:
            frame = pyarrow.ipc.open_stream(d.data.data).read_pandas()
            if {"pair", "answers", "right"} <= set(frame.columns):
                found.append(frame)
    assert len(found) == 1, "the answers chart is missing"
    return found[0]


class FakeClock:
    """The room store's clock, moved by hand (no sleeping)."""

    def __init__(self, start: float):
        self.now = start

    def __call__(self) -> float:
        return self.now


# -- 1. lifecycle -----------------------------------------------------------------------------------


def test_teacher_shows_code_and_link_and_students_follow_text_tokenizer_and_step():
    a, code = teacher()
    card = next(h.value for h in a.html if "room-code" in h.value)
    assert f'class="room-code">{show_code(code)}<' in card
    assert f"?room={code}" in card
    assert metrics(a)["Students"] == "0"

    b = new_app()
    b.text_area(key="text").set_value(OWN_TEXT).run()
    join_by_form(b, typed(code), "Bea")
    assert in_room(b) == {**in_room(b), "code": code, "role": "student", "following": True}
    assert "sid" in in_room(b) and "token" not in in_room(b)
    assert b.text_area(key="text").value == a.text_area(key="text").value != OWN_TEXT
    assert b.session_state["tok"].merges == a.session_state["tok"].merges
    assert any(m.value.startswith(f"You are in room **{show_code(code)}**") for m in b.markdown)

    set_step(a, 7)
    assert a.session_state["step"] == 7
    assert rooms().room(code).state["step"] == 7
    b.run()
    assert not b.exception
    assert b.session_state["step"] == 7
    set_step(a, 12)
    b.run()
    assert b.session_state["step"] == 12

    c = new_app(room=code)  # a student who opened the join link
    assert in_room(c)["code"] == code and in_room(c)["role"] == "student"
    assert c.text_area(key="text").value == a.text_area(key="text").value
    assert c.session_state["step"] == 12
    assert c.query_params.get("room") == code  # a reload joins again

    a.switch_page(CLASSROOM).run()
    assert not a.exception
    assert metrics(a)["Students"] == "2"


def test_students_follow_the_teachers_family_of_bpe():
    a, code = teacher()
    a.selectbox(key="family").set_value("word").run()  # trains word BPE, the room shares it
    assert not a.exception and a.session_state["tok"].family == "word"
    b = new_app(room=code)
    assert b.selectbox(key="family").value == "word"
    assert b.session_state["tok"].merges == a.session_state["tok"].merges
    a.switch_page(CLASSROOM).run()
    assert not a.exception and metrics(a)["Students"] == "1"  # the room's controls stay


def test_students_read_special_token_text_by_the_teachers_rule():
    """The class counts alike: the sidebar's rule for special-token text is the room's too."""
    a, code = teacher()
    a.radio(key="special_rule").set_value("special").run()
    assert not a.exception and rooms().room(code).state["special_rule"] == "special"
    b = new_app()
    assert b.radio(key="special_rule").value == "text"  # the default, before joining
    join_by_form(b, typed(code), "Bea")
    assert b.radio(key="special_rule").value == "special"
    a.radio(key="special_rule").set_value("text").run()
    b.run()
    assert not b.exception and b.radio(key="special_rule").value == "text"
    assert in_room(b)["following"]  # taking the teacher's rule is no edit of the student's


# -- 2. leave, rejoin, explore ---------------------------------------------------------------------


def test_leaving_gives_back_the_students_own_text_and_tokenizer_and_the_link_does_not_rejoin():
    a, code = teacher()
    b = new_app()
    own = own_work(b)
    join_by_form(b, typed(code))
    assert b.text_area(key="text").value == a.text_area(key="text").value
    assert b.session_state["tok"] is not own
    assert b.session_state["tok"].merges == a.session_state["tok"].merges

    b.button(key="room_leave").click().run()
    assert not b.exception
    assert in_room(b) is None
    assert b.text_area(key="text").value == OWN_TEXT
    assert b.session_state["tok"].merges == own.merges
    assert b.session_state["tok"].vocab_size == 300
    assert b.number_input(key="vocab_size").value == 300
    assert "room" not in b.query_params

    # a rerun the browser asked for before it drew the leave's run (the room watcher's poll,
    # woken by the leave) carries the room's values in every widget: they are not taken as hers
    room_text = a.text_area(key="text").value
    b.text_area(key="text").set_value(room_text)
    b.selectbox(key="sample").set_value(a.selectbox(key="sample").value)
    b.number_input(key="vocab_size").set_value(a.number_input(key="vocab_size").value)
    b.run()
    assert not b.exception
    assert b.text_area(key="text").value == OWN_TEXT
    assert b.number_input(key="vocab_size").value == 300
    assert b.session_state["tok"].merges == own.merges
    b.run()  # the browser shows her values now: a change of hers, even to the room's text, stays
    b.text_area(key="text").set_value(room_text).run()
    assert b.text_area(key="text").value == room_text
    b.text_area(key="text").set_value(OWN_TEXT).run()

    b.query_params["room"] = code  # the join link again (back button, an old tab)
    b.run()
    assert not b.exception
    assert in_room(b) is None
    assert b.text_area(key="text").value == OWN_TEXT
    a.run()
    assert metrics(a)["Students"] == "0"


def test_exploring_ignores_the_teacher_and_following_again_catches_up():
    a, code = teacher()
    b = student(code)
    set_step(a, 5)
    b.run()
    assert b.session_state["step"] == 5

    b.toggle(key="room_follow").set_value(False).run()
    assert not b.exception
    assert in_room(b)["following"] is False
    set_step(a, 9)
    b.run()
    assert b.session_state["step"] == 5  # exploring: the teacher's change is not applied

    b.toggle(key="room_follow").set_value(True).run()
    assert not b.exception
    assert in_room(b)["following"] is True
    assert b.session_state["step"] == 9
    set_step(a, 11)
    b.run()
    assert b.session_state["step"] == 11


# -- 3. roles ---------------------------------------------------------------------------------------


def test_a_student_has_no_teacher_controls():
    _, code = teacher()
    b = student(code)
    assert b.session_state["_page"] == CLASSROOM
    assert not {"room_open", "room_quiz_start", "room_quiz_reveal", "room_close",
                "room_quiz_stop"} & button_keys(b)
    assert not [n for n in b.number_input if n.key == "room_quiz_k"]
    assert not [t for t in b.toggle if t.key == "room_follow_page"]
    assert not [h for h in b.html if "room-code" in h.value]


def test_a_forged_teacher_token_cannot_start_a_quiz_or_close_the_room():
    a, code = teacher()
    student(code)
    before = rooms().room(code)

    f = AppTest.from_file(APP, default_timeout=60)
    f.session_state["_room"] = {"code": code, "role": "teacher", "token": "forged",
                                "follow_page": False}
    f.run()  # its first run finds that it holds no teacher's key: it teaches nothing
    assert not f.exception
    assert in_room(f) is None
    assert "no longer teaches" in messages(f, "warning")
    f.switch_page(CLASSROOM).run()
    assert not f.exception
    assert not {"room_quiz_start", "room_close"} & set(button_keys(f))
    # and as the callbacks of a page drawn before: refused by the store
    f.session_state["_room"] = {"code": code, "role": "teacher", "token": "forged",
                                "follow_page": False, "tab": "forged"}
    with pytest.raises(ui.classroom.rooms.NotTeacher, match="Only the teacher"):
        rooms().start_quiz(code, "forged", 0)
    with pytest.raises(ui.classroom.rooms.NotTeacher, match="Only the teacher"):
        rooms().close(code, "forged")

    after = rooms().room(code)
    assert after is not None
    assert (after.version, after.quiz, after.students, after.state) == (
        before.version, None, 1, before.state)
    a.run()  # the real teacher still has the room
    assert in_room(a)["code"] == code and metrics(a)["Students"] == "1"


def test_the_teacher_token_is_never_in_the_link_or_on_the_page():
    a, code = teacher()
    student(code, "Ann")
    a.run()
    token = in_room(a)["token"]
    card = next(h.value for h in a.html if "room-code" in h.value)
    link = re.search(r'class="room-link">(.*?)</div>', card).group(1)
    assert re.sub("<[^>]+>", "", link) == f"?room={code}"
    assert f'<span class="whole">?room={code}</span>' in link  # never broken inside the code
    assert token not in card
    assert all(token not in v for v in a.query_params.values())
    # The token reaches the teacher's own browser once per run, as the room watcher's "keep"
    # (for the tab's sessionStorage: a reload comes back); nothing else carries it
    watchers = [n for n in a.sidebar if 'component_name: "bpe_lab.room_watch"' in str(n.proto)]
    assert len(watchers) == 1 and token in str(watchers[0].proto)
    drawn = "\n".join(str(node.proto) for part in (a.main, a.sidebar) for node in part
                      if node not in watchers)
    assert code in drawn.replace("-", "")
    assert token not in drawn
    for m in list(a.markdown) + list(a.caption):
        assert token not in m.value
    b = student(code, "Bob")  # a student's page: nowhere, the watcher included
    assert token not in everything(b) and in_room(a)["presence"] not in everything(b)


# -- 4. expiry --------------------------------------------------------------------------------------


def test_a_room_nobody_touches_for_its_ttl_ends_and_students_get_their_work_back(monkeypatch):
    kv = rooms().kv
    if not isinstance(kv, MemoryKV):
        pytest.skip("needs the in-process store (BPE_LAB_ROOMS is set)")
    a, code = teacher()
    b = new_app()
    own = own_work(b)
    join_by_form(b, typed(code))
    assert b.text_area(key="text").value != OWN_TEXT

    clock = FakeClock(kv._clock())
    monkeypatch.setattr(kv, "_clock", clock)  # restored after the test
    clock.now += rooms().ttl - 5
    assert rooms().room(code) is not None  # not yet
    b.run()
    assert in_room(b) is not None
    clock.now += 10  # past the ttl, with no change by the teacher
    assert rooms().room(code) is None

    b.run()  # no tombstone: it may be a store that restarted; the teacher may put it back
    assert not b.exception and in_room(b)["waiting"]
    assert b.text_area(key="text").value != OWN_TEXT  # the student keeps what they see
    wall = FakeClock(rooms().clock())
    monkeypatch.setattr(rooms(), "clock", wall)
    wall.now += LOST_WAIT_S + 1  # nobody did
    b.run()
    assert not b.exception
    assert in_room(b) is None
    said = messages(b, "info")
    assert f"Room {show_code(code)} has ended" in said and "your own text" in said
    assert b.text_area(key="text").value == OWN_TEXT
    assert b.session_state["tok"].merges == own.merges

    # the teacher's session (a forgotten tab) still holds the room: its next run puts it back
    # under the same code, as after a store restart (the teacher closes it to end it)
    a.run()
    assert not a.exception
    assert in_room(a)["code"] == code and rooms().room(code) is not None
    assert "it is back" in messages(a, "info")
    a.button(key="room_close").click().run()
    assert in_room(a) is None and rooms().closed(code)
    assert "room_open" in button_keys(a)  # back to "open a room"


# -- 5. caps and wrong codes ------------------------------------------------------------------------


def test_a_full_room_refuses_the_next_student(monkeypatch):
    monkeypatch.setattr(ui.classroom.rooms, "MAX_STUDENTS", 2)
    a, code = teacher()
    student(code)
    student(code)
    c = student(code)
    assert in_room(c) is None
    assert "is full" in messages(c, "error")
    assert "room_join" in button_keys(c)  # still on the join form
    a.run()
    assert metrics(a)["Students"] == "2"


@pytest.mark.parametrize("code_typed", ["abcd-efgh", "hello"])
def test_a_wrong_code_is_refused_with_a_message(code_typed):
    b = new_app()
    b.text_area(key="text").set_value(OWN_TEXT).run()
    join_by_form(b, code_typed)
    assert in_room(b) is None
    assert "No room has that code" in messages(b, "error")
    assert b.text_area(key="text").value == OWN_TEXT


# -- 6. the class quiz ------------------------------------------------------------------------------


@pytest.fixture
def quiz_room():
    """A room whose teacher asked about merge 1, a right and a wrong answer sent, then revealed.

    The first student opened the join link and stays on the app's default page: the quiz must
    send it to the Classroom page. The second joined by the form (already on the Classroom page).
    """
    a, code = teacher()
    right_student = new_app(room=code)
    assert right_student.session_state["_page"] != CLASSROOM
    wrong_student = student(code, "Wes")
    a.run()
    a.number_input(key="room_quiz_k").set_value(1).run()
    a.button(key="room_quiz_start").click().run()
    assert not a.exception
    assert rooms().quiz(code) == {"id": 1, "k": 0, "revealed": False}

    question = qz.make_question(a.session_state["tok"], 0)
    right = next(o.label for o in question.options if o.pair == question.answer)
    wrong = next(o.label for o in question.options if o.pair != question.answer)
    for app, label in ((right_student, right), (wrong_student, wrong)):
        app.run()
        assert not app.exception
        assert app.session_state["_page"] == CLASSROOM  # sent to the Classroom page
        assert [r.key for r in app.main.radio] == ["room_quiz_guess"]  # the page's one radio
        app.radio(key="room_quiz_guess").set_value(label).run()
        app.button(key="room_quiz_send").click().run()
        assert not app.exception
    assert rooms().answered(code) == 2
    return a, code, question, right_student, wrong_student


def test_class_quiz_counts_reveals_and_charts_the_answers(quiz_room):
    a, code, question, _, _ = quiz_room
    a.run()
    assert metrics(a)["Answered"] == "2 of 2"
    a.button(key="room_quiz_reveal").click().run()
    assert not a.exception
    assert rooms().quiz(code)["revealed"] is True
    assert metrics(a)["Answered"] == "2 of 2"
    frame = chart_frame(a)
    assert sorted(frame["answers"]) == [0] * (len(question.options) - 2) + [1, 1]
    right_row = frame[frame["right"]]
    assert len(right_row) == 1 and right_row["answers"].item() == 1
    assert right_row["pair"].item() == next(o.label for o in question.options
                                            if o.pair == question.answer)
    assert frame.loc[~frame["right"], "answers"].sum() == 1
    assert any(s.value.startswith("1 of 2 answers right") for s in a.success)
    assert "Answered: Wes" in [c.value for c in a.caption]


def test_class_quiz_students_see_that_their_answer_was_sent(quiz_room):
    _, _, _, right_student, wrong_student = quiz_room
    for app in (right_student, wrong_student):
        app.run()
        assert not app.exception
        assert "Answer sent" in messages(app, "info"), "no confirmation after Send my answer"


def test_class_quiz_students_see_their_verdict_after_the_reveal(quiz_room):
    a, _, _, right_student, wrong_student = quiz_room
    a.run()
    a.button(key="room_quiz_reveal").click().run()
    right_student.run()
    wrong_student.run()
    assert not right_student.exception and not wrong_student.exception
    assert "You did not answer" not in messages(right_student, "info") + messages(
        wrong_student, "info"), "students who answered are told they did not"
    assert "Right!" in messages(right_student, "success")
    assert "Not this time" in messages(wrong_student, "warning")


def test_students_follow_the_teachers_page_when_asked():
    a, code = teacher()
    b = new_app(room=code)  # by the link: on the app's default page, not pinned by the test
    assert b.session_state["_page"] == "pages/overview.py"
    a.toggle(key="room_follow_page").set_value(True).run()
    assert not a.exception
    a.switch_page("pages/tokens.py").run()
    assert rooms().room(code).state["page"] == "pages/tokens.py"
    b.run()
    assert not b.exception
    assert b.session_state["_page"] == "pages/tokens.py"
    b.toggle(key="room_follow").set_value(False).run()  # exploring: stays where it goes
    a.switch_page("pages/bytes.py").run()
    b.run()
    assert b.session_state["_page"] == "pages/tokens.py"


# -- 7. escaping ------------------------------------------------------------------------------------


def test_a_hostile_nickname_is_shown_escaped_on_the_teachers_page():
    a, code = teacher()
    s = student(code, HOSTILE)
    assert in_room(s)["nickname"] == HOSTILE
    a.run()
    a.button(key="room_quiz_start").click().run()  # merge 1 by default
    assert not a.exception
    question = qz.make_question(a.session_state["tok"], 0)
    s.run()
    s.radio(key="room_quiz_guess").set_value(question.options[0].label).run()
    s.button(key="room_quiz_send").click().run()
    assert rooms().answered(code) == 1
    a.run()
    a.button(key="room_quiz_reveal").click().run()
    assert not a.exception

    who = [t.value for t in a.text]
    assert HOSTILE in who  # "Who is here": st.text shows it as plain text
    answered = [c.value for c in a.caption if c.value.startswith("Answered:")]
    assert answered == [r"Answered: \<img src\=x onerror\=f\(1\)\>"]
    for h in a.html:
        assert "<img" not in h.value
    for m in list(a.markdown) + list(a.caption) + list(a.success) + list(a.info):
        assert not RAW_IMG.search(m.value), m.value  # Markdown: only as \<img
    s.run()  # the student's own page greets it escaped too
    greeting = next(m.value for m in s.markdown if m.value.startswith("You are in room"))
    assert not RAW_IMG.search(greeting) and r"\<img" in greeting


# -- 6. real life: reloads, a teacher who comes back, a store that restarts (issue 25) -------------


def test_a_student_who_reloads_comes_back_as_the_same_member(monkeypatch):
    """In her own browser: her page's first poll (the route's call, with the claim her session
    holds) bound her to its key, which the reload's session reads from the browser's cookie."""
    a, code = teacher()
    b = student(code, "Ann")
    sid = in_room(b)["sid"]
    query = dict(b.query_params)
    assert query["room"] == code and query["member"] == sid  # the address a reload opens
    key = "ann-browser-key-0123456789"
    assert rooms().pulse(code, sid, browser=key, fresh=True, claim=in_room(b)["claim"])
    elsewhere = open_page(query={"room": code, "member": sid})  # another browser: no key
    assert in_room(elsewhere)["sid"] != sid
    monkeypatch.setattr(ui.classroom.panel, "_browser", lambda: key)  # AppTest sends no cookie
    again = open_page(query={"room": code, "member": sid})  # the reload: a new session
    assert in_room(again)["sid"] == sid and in_room(again)["nickname"] == "Ann"
    a.run()
    assert metrics(a)["Students"] == "2"  # Ann once, the other browser once


def test_a_teacher_link_brings_the_teacher_back_to_the_room_with_its_state_once():
    a, code = teacher()
    a.text_area(key="text").set_value("the teacher's own pasted text").run()
    a.session_state["step"] = 7
    a.switch_page("pages/steps.py").run()
    token = in_room(a)["token"]
    link = ui.classroom.panel.teacher_link(code, token, in_room(a)["tab"])
    key = link.split(".", 1)[1]
    assert link == f"?teach={code}.{key}" and token not in link  # a one-time key, not the token
    assert token not in ui.classroom.panel.join_link(code)
    back = open_page(query={"teach": f"{code}.{key}"})  # another device
    assert not back.exception
    room = in_room(back)
    assert (room["role"], room["code"]) == ("teacher", code)
    assert room["token"] != token  # a new key: the old tab's is dead
    assert back.text_area(key="text").value == "the teacher's own pasted text"
    assert back.session_state["step"] == 7
    assert "teach" not in back.query_params  # out of the address bar at once
    a.run()  # the tab that taught until now is told it no longer does
    assert in_room(a) is None and "no longer teaches" in messages(a, "warning")
    again = open_page(query={"teach": f"{code}.{key}"})  # the link from the browser's history
    assert in_room(again) is None and "used already" in messages(again, "error")
    wrong = open_page(query={"teach": f"{code}.not-the-key"})
    assert in_room(wrong) is None and "used already" in messages(wrong, "error")


def test_a_wrong_code_is_refused_beside_the_join_form_not_in_the_sidebar():
    b = join_by_form(new_app(), "ZZZZ-ZZZZ")
    assert in_room(b) is None
    main_errors = [e.value for e in b.main.error]
    assert any("No room has that code" in e for e in main_errors)
    assert not [e for e in b.sidebar.error if "No room" in e.value]


def test_the_students_own_page_shows_the_cleaned_nickname():
    _, code = teacher()
    b = student(code, "Ann\u202egnp.exe")
    assert in_room(b)["nickname"] == "Anngnp.exe"
    shown = " ".join(m.value for m in b.markdown).replace("\\", "")  # Markdown escapes
    assert "as **Anngnp.exe**" in shown and "\u202e" not in everything(b)


def test_the_teacher_removes_a_member_who_is_told_and_gets_their_work_back():
    a, code = teacher()
    b = new_app()
    own_work(b)
    join_by_form(b, typed(code), "joker")
    a.run()
    a.get("expander")  # the members list is drawn in its expander
    remove = [x for x in a.button if (x.key or "").startswith("room_remove_")]
    assert len(remove) == 1
    remove[0].click().run()
    a.run()
    assert metrics(a)["Students"] == "0"
    b.run()
    assert in_room(b) is None
    assert "removed you" in messages(b, "info")
    assert b.text_area(key="text").value == OWN_TEXT


def test_the_teacher_locks_the_room_and_removes_who_is_not_admitted_in_one_click():
    a, code = teacher()
    ann, bob = student(code, "Ann"), student(code, "Bob")
    a.run()
    a.toggle(key="room_lock").set_value(True).run()
    assert rooms().locked(code)
    late = join_by_form(new_app(), typed(code), "late")
    assert in_room(late) is None and "is locked" in late.session_state["_room_join_error"]
    ann.run()  # a member's page goes on through the lock
    assert in_room(ann)["code"] == code
    a.run()
    a.button(key="room_admit_0").click().run()  # Ann's row (the list is by name): admitted
    assert "admitted" in [c.value for c in a.caption]
    a.button(key="room_drop_others").click().run()
    assert "Removed 1 member you had not admitted" in messages(a, "info")
    a.run()
    assert metrics(a)["Students"] == "1"
    bob.run()
    assert in_room(bob) is None and "removed you" in messages(bob, "info")
    ann.run()
    assert in_room(ann)["code"] == code
    a.toggle(key="room_lock").set_value(False).run()
    assert not rooms().locked(code)
    assert in_room(join_by_form(new_app(), typed(code), "late"))["code"] == code


def test_after_a_store_loss_the_teacher_puts_the_room_back_and_students_rejoin():
    kv = rooms().kv
    if not isinstance(kv, MemoryKV):
        pytest.skip("needs the in-process store (BPE_LAB_ROOMS is set)")
    a, code = teacher()
    set_step(a, 5)
    b = student(code, "Ann")
    sid = in_room(b)["sid"]
    with kv._lock:  # the store restarts, empty
        kv._data.clear()
        kv._deadline.clear()
    b.run()  # the student's page notices first: it waits, and keeps what it shows
    assert in_room(b)["waiting"] and b.session_state["step"] == 5
    a.run()  # the teacher's next run puts it back, same code, same step
    assert rooms().room(code).state["step"] == 5 and in_room(a)["code"] == code
    b.run()  # the student's watcher asks again: back in, as the same member
    assert not in_room(b)["waiting"] and in_room(b)["sid"] == sid
    assert rooms().pulse(code, sid) is not None
    a.switch_page(CLASSROOM).run()
    assert metrics(a)["Students"] == "1"


def test_a_localhost_teacher_is_offered_this_machines_own_addresses():
    """The machine's IPv4 addresses as ``ip -4 addr`` (iproute2) lists them, loopback left out:
    read from the interfaces, with no lookup (tests run under tests/netguard.py)."""
    import shutil
    import subprocess

    if shutil.which("ip") is None:
        pytest.skip("no iproute2 here to compare with")
    listed = subprocess.run(["ip", "-o", "-4", "addr", "show"], capture_output=True, text=True,
                            check=True).stdout
    want = [m for m in re.findall(r"inet (\d+\.\d+\.\d+\.\d+)/", listed)
            if not m.startswith(("127.", "169.254."))]
    assert ui.classroom.panel.local_addresses() == want
    # and a teacher who opened the app as localhost gets the join link on each of them
    class Context:
        url = "http://localhost:8501/classroom"
    import streamlit as st
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(st, "context", Context())
        assert ui.classroom.panel.network_links("ABCDEFGH") == [f"http://{a}:8501/?room=ABCDEFGH"
                                                           for a in want]
        Context.url = "http://192.0.2.99:8501/"  # a real address: nothing more to offer
        assert ui.classroom.panel.network_links("ABCDEFGH") == []


def test_the_teacher_link_is_shown_once_on_request():
    a, code = teacher()
    token = in_room(a)["token"]
    assert not [c for c in a.code if "?teach=" in c.value]  # not until asked (the projector)
    a.button(key="room_teacher_link_show").click().run()
    shown = [c.value for c in a.code if "?teach=" in c.value]
    # AppTest has no address: the query alone; a one-time key, never the token
    assert len(shown) == 1 and re.fullmatch(rf"\?teach={code}\.[\w-]{{32}}", shown[0])
    assert token not in shown[0]
    a.run()
    assert not [c for c in a.code if "?teach=" in c.value]
    assert "room_teacher_link_show" not in button_keys(a)
    assert in_room(a)["token"] == token  # showing it takes nothing from this tab


FAMILY = "\U0001F468\u200d\U0001F469\u200d\U0001F467\u200d\U0001F466"  # one person sees one


def full_width(text: str) -> str:
    """``text`` as typed with a Japanese or Chinese IME left on: ASCII letters and digits as
    their full-width forms (U+FF01..U+FF5E), spaces as U+3000."""
    return "".join("\u3000" if c == " " else chr(ord(c) + 0xFEE0) if "!" <= c <= "~" else c
                   for c in text)


def test_names_and_codes_as_people_type_them():
    """Issue 44: a pasted name longer than the limit is cut at it, with a note (it was left
    empty, without a word); an emoji family is one of the 24 and is never split; a code typed
    full-width, with spaces, joins."""
    assert len(FAMILY) == 7 and len(FAMILY.encode("utf-16-le")) // 2 == 11
    a, code = teacher()
    pasted = "Annabelle " + "x" * 60
    s = student(code, pasted)
    assert in_room(s)["nickname"] == pasted[:24]
    said = " ".join(el.value for el in s.sidebar.info)
    assert "cut to 24 characters" in said and pasted[:24] in said

    fam = student(code, "Zoë " + FAMILY * 30)
    assert in_room(fam)["nickname"] == "Zoë " + FAMILY * 20  # 4 + 20 = 24 whole graphemes

    short = student(code, FAMILY + " Li")  # fits: kept whole, nothing said
    assert in_room(short)["nickname"] == FAMILY + " Li"
    assert not any("cut to" in el.value for el in short.sidebar.info)

    wide = join_by_form(new_app(), full_width(show_code(code)[:4] + " " + show_code(code)[5:]))
    assert in_room(wide) is not None and in_room(wide)["code"] == code
    a.run()
    assert metrics(a)["Students"] == "4"  # the teacher counts each of them once
