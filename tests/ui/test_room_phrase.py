"""The teacher phrase (ui/classroom/phrase.py, issue 44): a teacher comes back to their room from
any tab or device with the room's code and a phrase they wrote down, after a closed tab or a store
that lost every room; nobody else can. On both stores, as in test_rooms.py."""

from __future__ import annotations

import pytest
from rooms_support import STATE, open_room

from ui.classroom import phrase
from ui.classroom.rooms import CODE_ALPHABET, NotTeacher, RoomError, Rooms


def test_the_phrase_brings_the_teacher_back_and_the_old_tab_stops(store):
    rooms = Rooms(store.kv)
    code, token = open_room(rooms)
    shown = phrase.teacher_phrase(rooms, code, token)
    assert len(shown) == 14 and shown[4] == shown[9] == "-"
    assert set(shown.replace("-", "")) <= set(CODE_ALPHABET)
    assert shown not in "".join(store.dump())  # nothing of it is stored
    # on another server, typed as people type it: lower case, spaces, full-width (an IME on)
    other = Rooms(store.other())
    typed = " ".join(shown.lower().split("-"))
    full_width = "".join(chr(ord(c) + 0xFEE0) if c != "-" else c for c in shown)
    new_token, there = phrase.come_back(other, code, typed, client="laptop")
    assert there and new_token != token
    with pytest.raises(NotTeacher):
        rooms.update(code, token, step=1)  # the tab that taught holds a dead token
    assert other.update(code, new_token, step=2)
    again, _ = phrase.come_back(other, code, full_width, client="phone")
    assert other.update(code, again, step=3)
    with pytest.raises(NotTeacher):
        phrase.teacher_phrase(rooms, code, token)  # only the teacher is shown it


def test_a_student_cannot_come_back_as_the_teacher_and_guesses_are_limited(store):
    rooms = Rooms(store.kv)
    code, token = open_room(rooms)
    right = phrase.teacher_phrase(rooms, code, token)
    rooms.join(code, client="s1", nickname="Ann")
    wrong = "ABCD-EFGH-JKMN" if right != "ABCD-EFGH-JKMN" else "ABCD-EFGH-JKMP"
    for _ in range(phrase.PHRASE_TRIES_PER_MINUTE):
        with pytest.raises(NotTeacher, match="not the teacher phrase"):
            phrase.come_back(rooms, code, wrong, client="s1")
    with pytest.raises(RoomError, match="Too many wrong teacher phrases"):
        phrase.come_back(rooms, code, right, client="s1")  # the right one too, for a minute
    for i in range(phrase.ROOM_PHRASE_TRIES_PER_MINUTE - phrase.PHRASE_TRIES_PER_MINUTE):
        with pytest.raises(NotTeacher):
            phrase.come_back(rooms, code, wrong, client=f"other{i}")
    with pytest.raises(RoomError, match="Too many"):  # many addresses: held back per room
        phrase.come_back(rooms, code, wrong, client="fresh")
    rooms.update(code, token, step=4)  # the teacher's token still works
    if store.clock is not None:  # a minute later (on the clock the memory store runs on)
        store.wait(61)
        assert phrase.come_back(rooms, code, right, client="s1")[1]


def test_the_phrase_outlives_a_store_that_lost_the_room_but_not_a_closed_room(store):
    rooms = Rooms(store.kv)
    code, token = open_room(rooms)
    right = phrase.teacher_phrase(rooms, code, token)
    for key in [k for k in store.dump() if k.startswith("bpelab:room:")]:
        store.kv.delete(key)  # the store lost the room (a Redis restart, without the secret)
    new_token, there = phrase.come_back(rooms, code, right, client="laptop")
    assert not there
    assert rooms.restore(code, new_token, dict(STATE))  # the teacher's session puts it back
    assert rooms.room(code).state["text"] == STATE["text"]
    rooms.close(code, new_token)
    with pytest.raises(RoomError, match="was closed"):
        phrase.come_back(rooms, code, right, client="laptop")
