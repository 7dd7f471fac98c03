"""Classroom rooms (ui/classroom/rooms.py): one teacher, students, a shared state, a class quiz.

Every behaviour is checked on both stores: ``MemoryKV`` (with a clock the test moves) and
``RedisKV`` on a ``redis-server`` this module starts on loopback (tests/redis_server.py). Without
/usr/bin/redis-server the Redis variants are skipped, except in CI (CI=true), where they fail.
A few tests that need time to pass run on MemoryKV only; one waits for a real Redis expiry.
"""

from __future__ import annotations

import hashlib

import pytest
from rooms_support import HOSTILE, STATE, open_room

import ui.classroom.rooms as rooms_module
from ui.classroom.rooms import (
    CODE_ALPHABET,
    CODE_LENGTH,
    CREATES_PER_HOUR,
    JOIN_TRIES_PER_MINUTE,
    MAX_NICKNAME,
    MemoryKV,
    RedisKV,
    Room,
    RoomError,
    Rooms,
    clean_nickname,
    new_code,
    normal_code,
    open_kv,
    show_code,
)

# -- sharing the state ------------------------------------------------------------------------------


def test_a_student_on_another_server_follows_the_teachers_changes(store):
    teacher = Rooms(store.kv)
    student = Rooms(store.other())
    code, token = open_room(teacher)
    sid = student.join(code, client="s1", nickname="Ann")
    assert student.version(code) == 1
    assert student.room(code) == Room(code, 1, STATE, None, 1, state_version=1)

    assert teacher.update(code, token, step=3) == 2
    assert student.version(code) == 2
    assert student.room(code).state == {**STATE, "step": 3}  # the rest of the state is kept
    assert teacher.update(code, token, page="tokens", follow_page=True) == 3
    assert student.version(code) == 3
    assert student.room(code).state == {**STATE, "step": 3, "page": "tokens", "follow_page": True}

    student.join(code, client="s2", nickname="Bob")
    assert student.version(code) == 3  # a join is not a change of the teacher's
    assert student.room(code).students == 2
    student.leave(code, sid)
    assert student.room(code).students == 1


def test_a_code_that_is_no_room_has_no_version_and_no_room(store):
    rooms = Rooms(store.kv)
    assert rooms.version("ABCDEFGH") is None
    assert rooms.room("ABCDEFGH") is None
    assert rooms.quiz("ABCDEFGH") is None
    assert rooms.answered("ABCDEFGH") == 0


def test_closing_ends_the_room_for_everyone(store):
    rooms = Rooms(store.kv)
    code, token = open_room(rooms)
    rooms.join(code, client="s1", nickname="Ann")
    rooms.start_quiz(code, token, 2)
    rooms.close(code, token)
    assert rooms.room(code) is None and rooms.version(code) is None and rooms.quiz(code) is None
    with pytest.raises(RoomError, match="has ended"):
        rooms.update(code, token, step=1)
    with pytest.raises(RoomError, match="No room has that code"):
        rooms.join(code, client="s2")
    # every key of the room is gone, but the tombstone that tells "closed" from "lost"
    assert [t for t in store.dump() if code in t] == [f"bpelab:room:{code}:closed"]
    assert rooms.closed(code)


# -- the teacher's token ----------------------------------------------------------------------------


def test_only_the_teachers_token_changes_or_reads_the_room(store):
    rooms = Rooms(store.kv)
    code, token = open_room(rooms)
    other_code, other_token = open_room(rooms, client="another teacher")
    rooms.join(code, client="s1", nickname="Ann")
    rooms.start_quiz(code, token, 1)
    version = rooms.version(code)
    operations = {
        "update": lambda t: rooms.update(code, t, step=5),
        "start_quiz": lambda t: rooms.start_quiz(code, t, 3),
        "reveal_quiz": lambda t: rooms.reveal_quiz(code, t),
        "stop_quiz": lambda t: rooms.stop_quiz(code, t),
        "close": lambda t: rooms.close(code, t),
        "answers": lambda t: rooms.answers(code, t),
        "nicknames": lambda t: rooms.nicknames(code, t),
    }
    for name, operation in operations.items():
        for wrong in (other_token, "not the token", "", token[:-1], token + "x", None, 12):
            with pytest.raises(RoomError, match=f"Only the teacher of room {show_code(code)}"):
                operation(wrong)
            assert rooms.version(code) == version, (name, wrong)
    assert rooms.room(code) == Room(code, version, STATE, {"id": 1, "k": 1, "revealed": False}, 1,
                                    state_version=2)  # opened, then the quiz
    assert rooms.nicknames(code, token) == ["Ann"]  # the right token still works
    assert rooms.nicknames(other_code, other_token) == []


def test_the_token_is_never_stored_only_its_sha256(store):
    rooms = Rooms(store.kv)
    teacher_client = "teacher at 203.0.113.7"
    code, token = open_room(rooms, client=teacher_client)
    sid = rooms.join(code, client="s1", nickname="Ann")
    rooms.update(code, token, step=2)
    quiz = rooms.start_quiz(code, token, 1)
    rooms.answer(code, sid, quiz["id"], (97, 98))
    with pytest.raises(RoomError):
        rooms.join("ZZZZ-ZZZZ", client="student at 198.51.100.9")  # a limit key for that client

    texts = store.dump()
    assert len(token) >= 32
    assert not [t for t in texts if token in t]
    assert hashlib.sha256(token.encode()).hexdigest() in "\n".join(texts)
    # The clients' addresses are not kept either: their rate limits are under a hash.
    assert not [t for t in texts if "203.0.113.7" in t or "198.51.100.9" in t]


# -- codes ------------------------------------------------------------------------------------------


def test_codes_are_8_characters_that_cannot_be_misread():
    assert len(CODE_ALPHABET) == len(set(CODE_ALPHABET)) == 31 and CODE_LENGTH == 8
    assert not set("0O1IL") & set(CODE_ALPHABET)
    codes = {new_code() for _ in range(200)}
    assert len(codes) == 200
    assert all(len(c) == 8 and set(c) <= set(CODE_ALPHABET) for c in codes)
    assert show_code("ABCDEFGH") == "ABCD-EFGH"


@pytest.mark.parametrize(
    "typed, normal",
    [
        ("ABCDEFGH", "ABCDEFGH"),
        ("abcd-efgh", "ABCDEFGH"),
        ("  ab cd - ef gh\n", "ABCDEFGH"),
        ("AB-CD-EF-GH", "ABCDEFGH"),
        ("ABCD-EFG", None),  # too short
        ("ABCDEFGHJ", None),  # too long
        ("ABCD-EFG0", None),  # 0 is not in the alphabet
        ("ABCD_EFGH", None),
        ("abcd-efgi", None),  # i upper-cases to I, which is not in the alphabet
        ("", None),
    ],
)
def test_normal_code(typed, normal):
    assert normal_code(typed) == normal


def test_a_student_joins_with_the_code_as_typed(store):
    rooms = Rooms(store.kv)
    code, _ = open_room(rooms)
    typed = " " + show_code(code).lower().replace("-", " - ") + " "
    rooms.join(typed, client="s1", nickname="Ann")
    assert rooms.room(code).students == 1


def test_wrong_codes_are_limited_per_client_and_a_right_code_still_works(store):
    rooms = Rooms(store.kv)
    code, _ = open_room(rooms)
    wrong = "ABCDEFGH" if code != "ABCDEFGH" else "HGFEDCBA"
    for i in range(JOIN_TRIES_PER_MINUTE):
        with pytest.raises(RoomError, match="No room has that code"):
            rooms.join(wrong if i % 2 else "not a code", client="guesser")
    for _ in range(3):
        with pytest.raises(RoomError, match="Too many wrong codes"):
            rooms.join(wrong, client="guesser")
    # Only wrong codes count: the right one still joins, from the same client.
    rooms.join(code, client="guesser", nickname="late")
    assert rooms.room(code).students == 1
    with pytest.raises(RoomError, match="Too many wrong codes"):
        rooms.join(wrong, client="guesser")
    # Another client is not affected.
    with pytest.raises(RoomError, match="No room has that code"):
        rooms.join(wrong, client="someone else")


def test_the_wrong_code_limit_lasts_a_minute(mem):
    rooms = Rooms(mem.kv)
    for _ in range(JOIN_TRIES_PER_MINUTE):
        with pytest.raises(RoomError, match="No room"):
            rooms.join("ABCDEFGH", client="guesser")
    mem.wait(59)
    with pytest.raises(RoomError, match="Too many"):
        rooms.join("ABCDEFGH", client="guesser")
    mem.wait(1)  # the window started with the first wrong try
    with pytest.raises(RoomError, match="No room"):
        rooms.join("ABCDEFGH", client="guesser")


def test_rooms_opened_are_limited_per_client(store):
    rooms = Rooms(store.kv)
    codes = {open_room(rooms, client="teacher")[0] for _ in range(CREATES_PER_HOUR)}
    assert len(codes) == CREATES_PER_HOUR
    with pytest.raises(RoomError, match="Too many rooms opened from here"):
        open_room(rooms, client="teacher")
    assert all(rooms.version(c) == 1 for c in codes)
    open_room(rooms, client="another teacher")


def test_the_create_limit_lasts_an_hour(mem):
    rooms = Rooms(mem.kv, ttl=7200)
    for _ in range(CREATES_PER_HOUR):
        open_room(rooms)
    mem.wait(3599)
    with pytest.raises(RoomError, match="Too many rooms"):
        open_room(rooms)
    mem.wait(1)
    open_room(rooms)


# -- caps -------------------------------------------------------------------------------------------


def test_a_full_room_refuses_a_new_student_but_not_a_rejoin(store, small_class):
    rooms = Rooms(store.kv)
    code, token = open_room(rooms)
    sids = [rooms.join(code, client=f"s{i}", nickname=f"S{i}") for i in range(small_class)]
    assert len(set(sids)) == 3
    with pytest.raises(RoomError, match=rf"Room {show_code(code)} is full \(3 students\)"):
        rooms.join(code, client="s9", nickname="late")
    assert rooms.pulse(code, sids[0], browser="s0-browser-key-0123456789")  # S0's page polls
    assert rooms.join(code, client="s0", nickname="S0 again", student=sids[0],
                      browser="s0-browser-key-0123456789") == sids[0]  # and reloads
    assert rooms.room(code).students == 3
    assert sorted(rooms.nicknames(code, token)) == ["S0 again", "S1", "S2"]
    rooms.leave(code, sids[1])
    rooms.join(code, client="s9", nickname="late")  # a place is free again
    assert sorted(rooms.nicknames(code, token)) == ["S0 again", "S2", "late"]


def test_answers_are_one_per_current_member_and_the_count_and_reveal_agree(store, small_class):
    rooms = Rooms(store.kv)
    code, token = open_room(rooms)
    sids = [rooms.join(code, client=f"s{i}", nickname=f"S{i}") for i in range(small_class)]
    quiz = rooms.start_quiz(code, token, 0)
    for sid in sids:
        rooms.answer(code, sid, quiz["id"], (97, 97))
    rooms.answer(code, sids[1], quiz["id"], (97, 98))  # replacing an answer is no new one
    assert len(rooms.answers(code, token)) == 3 and rooms.answered(code) == 3
    rooms.leave(code, sids[0])
    # the answer of a member who left counts neither in "n of N" nor in the reveal
    assert (rooms.answered(code), rooms.room(code).students) == (2, 2)
    assert sorted(a["pair"][1] for a in rooms.answers(code, token)) == [97, 98]
    late = rooms.join(code, client="s9", nickname="late")
    rooms.answer(code, late, quiz["id"], (97, 98))  # the gone member's answer makes way
    answers, students = rooms.tally(code)
    assert (len(answers), students, rooms.answered(code)) == (3, 3, 3)
    assert sorted(a["nickname"] for a in answers) == ["S1", "S2", "late"]
    with pytest.raises(RoomError, match="Join the room again"):
        rooms.answer(code, sids[0], quiz["id"], (97, 97))  # no member: no answer


def test_a_members_answer_is_read_back_as_the_room_counts_it(store):
    """What a student's page shows after a reload (which keeps nothing of the answer): the pair
    the room holds for them, the last one sent, for that question only."""
    rooms = Rooms(store.kv)
    code, token = open_room(rooms)
    ann, bob = (rooms.join(code, client=f"s{i}", nickname=n) for i, n in enumerate("AB"))
    quiz = rooms.start_quiz(code, token, 0)
    rooms.answer(code, ann, quiz["id"], (97, 97))
    rooms.answer(code, ann, quiz["id"], (97, 98))  # a change of mind
    assert rooms.answer_of(code, ann, quiz["id"]) == (97, 98)
    assert rooms.answer_of(code, bob, quiz["id"]) is None  # no answer
    assert rooms.answered(code) == 1
    later = rooms.start_quiz(code, token, 1)
    assert rooms.answer_of(code, ann, later["id"]) is None  # a new question: not answered yet


def test_a_state_too_large_is_refused(store, monkeypatch):
    monkeypatch.setattr(rooms_module, "MAX_STATE_BYTES", 100)
    rooms = Rooms(store.kv)
    with pytest.raises(RoomError, match="too large to share"):
        rooms.create({"text": "a" * 100}, client="teacher")
    # Bytes count, not characters: 30 euro signs are 90 bytes, 102 with the JSON around them.
    with pytest.raises(RoomError, match="too large"):
        rooms.create({"text": "€" * 30}, client="teacher")
    code, token = rooms.create({"text": "€" * 29}, client="teacher")
    with pytest.raises(RoomError, match="too large"):
        rooms.update(code, token, text="€" * 30)
    assert rooms.room(code).state == {"text": "€" * 29, "step": 0}  # a room always has a step
    assert rooms.version(code) == 1


def test_unknown_state_fields_are_refused(store):
    rooms = Rooms(store.kv)
    with pytest.raises(RoomError, match=r"does not carry \['owner'\]"):
        rooms.create({**STATE, "owner": "me"}, client="teacher")
    code, token = open_room(rooms)
    with pytest.raises(RoomError, match=r"does not carry \['quiz', 'teacher'\]"):
        rooms.update(code, token, teacher="x", quiz={})
    assert rooms.room(code).state == STATE and rooms.version(code) == 1


# -- the quiz ---------------------------------------------------------------------------------------


def answers_of(rooms: Rooms, code: str, token: str) -> list[tuple[str, list[int]]]:
    return sorted((a["nickname"], a["pair"]) for a in rooms.answers(code, token))


def test_a_class_quiz_from_question_to_reveal(store):
    teacher = Rooms(store.kv)
    students = Rooms(store.other())
    code, token = open_room(teacher)
    ann = students.join(code, client="s1", nickname="Ann")
    bob = students.join(code, client="s2", nickname="Bob")
    assert teacher.answers(code, token) == [] and students.answered(code) == 0

    quiz = teacher.start_quiz(code, token, 4)
    assert quiz == {"id": 1, "k": 4, "revealed": False}
    assert students.version(code) == 2
    assert students.room(code).quiz == quiz

    students.answer(code, ann, 1, (97, 97))
    assert students.answered(code) == 1
    students.answer(code, ann, 1, [97, 98])  # a second answer replaces the first
    assert students.answered(code) == 1
    students.answer(code, bob, 1, (32, 97))
    assert students.answered(code) == 2
    assert answers_of(teacher, code, token) == [("Ann", [97, 98]), ("Bob", [32, 97])]
    assert students.version(code) == 2  # answers are no change of the teacher's

    with pytest.raises(RoomError, match="question is over"):
        students.answer(code, ann, 2, (97, 97))
    with pytest.raises(RoomError, match="Join the room again"):
        students.answer(code, "no such student", 1, (97, 97))

    teacher.reveal_quiz(code, token)
    assert students.version(code) == 3
    assert students.quiz(code) == {"id": 1, "k": 4, "revealed": True}
    with pytest.raises(RoomError, match="already revealed"):
        students.answer(code, bob, 1, (97, 97))
    assert answers_of(teacher, code, token) == [("Ann", [97, 98]), ("Bob", [32, 97])]

    # A new question: the old answers are dropped, and answers to the old one refused.
    assert teacher.start_quiz(code, token, 5) == {"id": 2, "k": 5, "revealed": False}
    assert students.answered(code) == 0 and teacher.answers(code, token) == []
    assert not [t for t in store.dump() if t.endswith(":answers:1")]
    with pytest.raises(RoomError, match="question is over"):
        students.answer(code, ann, 1, (97, 97))
    students.answer(code, bob, 2, (98, 98))
    assert answers_of(teacher, code, token) == [("Bob", [98, 98])]

    teacher.stop_quiz(code, token)
    assert students.quiz(code) is None and students.room(code).quiz is None
    assert students.answered(code) == 0 and teacher.answers(code, token) == []
    assert not [t for t in store.dump() if ":answers:" in t or t.endswith(":quiz")]
    with pytest.raises(RoomError, match="question is over"):
        students.answer(code, bob, 2, (98, 98))
    with pytest.raises(RoomError, match="No quiz is running"):
        teacher.reveal_quiz(code, token)
    assert teacher.start_quiz(code, token, 0)["id"] == 1  # numbering starts again


@pytest.mark.parametrize(
    "pair",
    [(True, 2), (1, False), (-1, 2), (1, -2), (1, 2, 3), (1,), (), "ab", "12", b"ab", (1.0, 2),
     ("1", "2"), (2**31, 0), None, {1: 2}, 97],
)  # fmt: skip
def test_an_answer_must_be_a_pair_of_token_ids(store, pair):
    rooms = Rooms(store.kv)
    code, token = open_room(rooms)
    sid = rooms.join(code, client="s1", nickname="Ann")
    rooms.start_quiz(code, token, 0)
    with pytest.raises(RoomError, match="An answer is a pair of token ids"):
        rooms.answer(code, sid, 1, pair)
    assert rooms.answered(code) == 0
    rooms.answer(code, sid, 1, (0, 2**31 - 1))  # the bounds themselves are fine
    assert rooms.answers(code, token) == [{"pair": [0, 2**31 - 1], "nickname": "Ann"}]


@pytest.mark.parametrize("k", [-1, True, 1.5, "3", None])
def test_the_quiz_step_is_a_whole_number(store, k):
    rooms = Rooms(store.kv)
    code, token = open_room(rooms)
    with pytest.raises(RoomError, match="whole number"):
        rooms.start_quiz(code, token, k)
    assert rooms.quiz(code) is None and rooms.version(code) == 1


# -- expiry -----------------------------------------------------------------------------------------


def test_a_room_nobody_touches_expires(store):
    """The one test that waits for Redis (ttl=1, 1.5 s); on MemoryKV the clock moves."""
    rooms = Rooms(store.kv, ttl=1)
    code, token = open_room(rooms)
    rooms.join(code, client="s1", nickname="Ann")
    rooms.start_quiz(code, token, 0)
    store.wait(1.5)
    assert rooms.room(code) is None and rooms.version(code) is None and rooms.quiz(code) is None
    with pytest.raises(RoomError, match="has ended"):
        rooms.update(code, token, step=1)
    with pytest.raises(RoomError, match="No room has that code"):
        rooms.join(code, client="s2")
    assert not [t for t in store.dump(live_only=True) if code in t]


def test_a_teachers_change_renews_the_room(mem):
    rooms = Rooms(mem.kv, ttl=100)
    code, token = open_room(rooms)
    sid = rooms.join(code, client="s1", nickname="Ann")
    mem.wait(99)
    assert rooms.update(code, token, step=1) == 2
    mem.wait(99)  # 198 s after it opened, 99 s after the change
    assert rooms.room(code) == Room(code, 2, {**STATE, "step": 1}, None, 1,
                                    state_version=1)  # a step alone is not a state change
    assert rooms.nicknames(code, token) == ["Ann"]
    quiz = rooms.start_quiz(code, token, 0)
    rooms.answer(code, sid, quiz["id"], (97, 97))
    mem.wait(99)
    rooms.reveal_quiz(code, token)
    mem.wait(99)
    assert rooms.answered(code) == 1  # the answers were renewed with the room
    mem.wait(1)  # 100 s without a change
    assert rooms.room(code) is None and rooms.version(code) is None
    with pytest.raises(RoomError, match=rf"Room {show_code(code)} has ended"):
        rooms.update(code, token, step=2)


def test_a_join_renews_the_room_and_its_answers(mem):
    rooms = Rooms(mem.kv, ttl=100)
    code, token = open_room(rooms)
    ann = rooms.join(code, client="s1", nickname="Ann")
    rooms.start_quiz(code, token, 0)
    rooms.answer(code, ann, 1, (97, 97))
    mem.wait(90)
    rooms.join(code, client="s2", nickname="Bob")
    mem.wait(90)
    assert rooms.room(code).students == 2
    assert rooms.quiz(code) == {"id": 1, "k": 0, "revealed": False}
    assert answers_of(rooms, code, token) == [("Ann", [97, 97])]
    mem.wait(10)
    assert rooms.room(code) is None


def test_expired_keys_are_swept_from_memory(mem):
    rooms = Rooms(mem.kv, ttl=60)
    for i in range(1000):
        mem.wait(4000)  # every earlier room and rate limit has expired
        open_room(rooms, client=f"teacher {i}")
    # 4 writes (a limit and 3 keys) per room, 4,000 in all; a sweep every SWEEP_EVERY writes.
    assert len(mem.kv._data) <= MemoryKV.SWEEP_EVERY + 4
    assert len(mem.kv._deadline) <= MemoryKV.SWEEP_EVERY + 4


# -- nicknames --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "name, kept",
    [
        ("Ann", "Ann"),
        ("  Ann   Lee  ", "Ann Lee"),
        ("Ann\tLee\nBrown\r\n", "Ann Lee Brown"),  # whitespace controls fold like spaces
        ("A\x00n\x1bn\x7f", "Ann"),  # other controls are dropped
        ("\u202eAnn\u200b\u2066", "Ann"),  # format characters: bidi overrides, zero width
        ("Zoë 🙂 李", "Zoë 🙂 李"),
        ("x" * 100, "x" * MAX_NICKNAME),
        ("", ""),
        (None, ""),
        ("\u202e \n", ""),
        (HOSTILE, HOSTILE),
        ("<img src=x onerror=alert(1)>", "<img src=x onerror=alert"),  # cut, not escaped
    ],
)
def test_clean_nickname(name, kept):
    assert clean_nickname(name) == kept


def test_a_hostile_nickname_is_kept_as_text(store):
    rooms = Rooms(store.kv)
    code, token = open_room(rooms)
    sid = rooms.join(code, client="s1", nickname=HOSTILE)
    rooms.join(code, client="s2", nickname="Bob\u202e\x00")
    rooms.start_quiz(code, token, 0)
    rooms.answer(code, sid, 1, (1, 2))
    assert sorted(rooms.nicknames(code, token)) == [HOSTILE, "Bob"]
    assert rooms.answers(code, token) == [{"pair": [1, 2], "nickname": HOSTILE}]


# -- choosing a store -------------------------------------------------------------------------------


def test_open_kv():
    for setting in (None, "", "  ", "memory", " memory\n"):
        assert isinstance(open_kv(setting), MemoryKV)
    for setting in ("redis://127.0.0.1:1/0", "rediss://127.0.0.1:1", "unix:///tmp/no.sock"):
        kv = open_kv(setting)  # the client connects on its first command, not here
        try:
            assert isinstance(kv, RedisKV)
        finally:
            kv.client.close()
    for setting in ("Memory", "http://127.0.0.1:6379", "redis:/x", "127.0.0.1:6379", "sqlite://"):
        with pytest.raises(RoomError, match="BPE_LAB_ROOMS must be"):
            open_kv(setting)
