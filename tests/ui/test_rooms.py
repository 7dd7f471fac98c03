"""Classroom rooms (ui/classroom/rooms.py): one teacher, students, a shared state, a class quiz.

Every behaviour is checked on both stores: ``MemoryKV`` (with a clock the test moves) and
``RedisKV`` on a ``redis-server`` this module starts on loopback (tests/redis_server.py). Without
/usr/bin/redis-server the Redis variants are skipped, except in CI (CI=true), where they fail.
A few tests that need time to pass run on MemoryKV only; one waits for a real Redis expiry.
"""

from __future__ import annotations

import hashlib
import time
from dataclasses import dataclass, field
from typing import Any

import pytest
from redis_server import require_redis, start_redis

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

STATE = {"text": "aaab aaab", "kind": "basic", "vocab_size": 260, "step": 0}
HOSTILE = "<svg onload=alert(1)>\"&'"  # MAX_NICKNAME (24) characters, kept as they are


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@dataclass
class Store:
    """One store under test: its kind, a client of it, and a few things tests need of it."""

    kind: str
    kv: Any
    clock: FakeClock | None = None
    url: str | None = None
    _opened: list = field(default_factory=list)

    def other(self) -> Any:
        """Another client of the same store: a second app server's (Redis), or the same (memory)."""
        if self.kind == "memory":
            return self.kv
        kv = RedisKV(self.url)
        self._opened.append(kv)
        return kv

    def wait(self, seconds: float) -> None:
        if self.clock is not None:
            self.clock.now += seconds
        else:
            time.sleep(seconds)

    def dump(self, live_only: bool = False) -> list[str]:
        """Every key, hash field and value in the store, as text (MemoryKV: expired ones too,
        until they are touched or swept, unless ``live_only``)."""
        texts: list[str] = []
        if self.kind == "memory":
            items = [(k, v) for k, v in list(self.kv._data.items())
                     if not live_only or self.kv.exists(k)]
        else:
            client = self.kv.client
            items = [(k, client.hgetall(k) if client.type(k) == "hash" else client.get(k))
                     for k in client.scan_iter(match="*", count=1000)]
        for key, value in items:
            texts.append(key)
            if isinstance(value, dict):
                for f, v in value.items():
                    texts += [f, v]
            else:
                texts.append(value)
        return texts

    def close(self) -> None:
        for kv in self._opened:
            kv.client.close()


@pytest.fixture(scope="module")
def redis_url():
    """A redis-server of this module's own, on a free loopback port, stopped at the end."""
    require_redis("the Redis tests")
    with start_redis() as url:
        yield url


def memory_store() -> Store:
    clock = FakeClock()
    return Store("memory", MemoryKV(clock), clock=clock)


@pytest.fixture(params=["memory", "redis"])
def store(request):
    if request.param == "memory":
        s = memory_store()
    else:
        url = request.getfixturevalue("redis_url")
        kv = RedisKV(url)
        s = Store("redis", kv, url=url, _opened=[kv])
        kv.client.flushdb()  # nothing left by an earlier test (rate limits, rooms)
    try:
        yield s
    finally:
        s.close()


@pytest.fixture
def mem() -> Store:
    return memory_store()


@pytest.fixture
def small_class(monkeypatch):
    """Rooms of 3 students (Rooms reads MAX_STUDENTS when it joins or takes an answer)."""
    monkeypatch.setattr(rooms_module, "MAX_STUDENTS", 3)
    return 3


def open_room(rooms: Rooms, state: dict | None = None, client: str = "teacher"):
    return rooms.create(dict(STATE if state is None else state), client=client)


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
    assert rooms.join(code, client="s0", nickname="S0 again", student=sids[0]) == sids[0]
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


# -- members are people: check-ins, expiry, removal, limits (issue 25) -----------------------------


def timed_rooms(store: Store, member_timeout: float = 60, teacher_timeout: float = 6):
    """Rooms over ``store`` whose check-ins run on a clock the test moves (on Redis too: the
    check-in times are data, not Redis expiries)."""
    clock = store.clock or FakeClock()
    return Rooms(store.kv, clock=clock, member_timeout=member_timeout,
                 teacher_timeout=teacher_timeout), clock


def test_a_member_who_stops_checking_in_leaves_the_count_and_comes_back_by_checking_in(store):
    rooms, clock = timed_rooms(store, member_timeout=60)
    code, token = open_room(rooms)
    polling = rooms.join(code, client="s1", nickname="Ann")
    silent = rooms.join(code, client="s2", nickname="Bob")
    assert rooms.room(code).students == 2
    for _ in range(7):  # Ann's browser polls every 10 s for 70 s; Bob's tab is gone
        clock.now += 10
        assert rooms.pulse(code, polling)["version"] == 1
    assert rooms.room(code).students == 1
    assert sorted(rooms.nicknames(code, token)) == ["Ann"]
    assert rooms.pulse(code, silent) is not None  # Bob's laptop wakes up: he checks in again
    assert rooms.room(code).students == 2


def test_the_teacher_removes_a_member_who_is_told_and_cannot_come_back_as_that_member(store):
    rooms, _ = timed_rooms(store)
    code, token = open_room(rooms)
    ghost = rooms.join(code, client="s1", nickname="ghost")
    stays = rooms.join(code, client="s2", nickname="Ann")
    assert rooms.remove(code, token, ghost)
    assert sorted(rooms.members(code, token).values()) == ["Ann"]
    assert rooms.room(code).students == 1
    assert rooms.pulse(code, ghost) is None and rooms.removed(code, ghost)  # the watcher's 404
    with pytest.raises(RoomError, match="removed you"):
        rooms.join(code, client="s1", student=ghost)
    with pytest.raises(RoomError, match="Only the teacher"):
        rooms.remove(code, "not the token", stays)
    assert rooms.pulse(code, stays) is not None


def test_a_full_room_makes_way_for_a_new_student_once_its_ghosts_expire(store, small_class):
    rooms, clock = timed_rooms(store, member_timeout=60)
    code, _ = open_room(rooms)
    ghosts = [rooms.join(code, client=f"script{i}") for i in range(small_class)]
    with pytest.raises(RoomError, match="is full"):
        rooms.join(code, client="real", nickname="Ann")
    clock.now += 30
    keeps = ghosts[0]
    rooms.pulse(code, keeps)  # one of them is a real student who polls
    clock.now += 40  # the others have not checked in for 70 s
    ann = rooms.join(code, client="real", nickname="Ann")
    assert rooms.room(code).students == 2
    assert rooms.pulse(code, ann) is not None and rooms.pulse(code, keeps) is not None
    assert rooms.pulse(code, ghosts[1]) is None  # its place was taken: a 404, it must rejoin
    rooms.join(code, client="real2")
    with pytest.raises(RoomError, match="is full"):  # three current members: full again
        rooms.join(code, client="real3")


def test_a_student_who_comes_back_stays_the_same_member(store):
    rooms, _ = timed_rooms(store)
    code, _ = open_room(rooms)
    sid = rooms.join(code, client="s1", nickname="Ann")
    for _ in range(3):  # reloads: the page joins again with the id it kept
        assert rooms.join(code, client="s1", nickname="Ann", student=sid) == sid
    assert rooms.room(code).students == 1


def test_the_teacher_is_gone_when_their_browser_stops_checking_in(store):
    rooms, clock = timed_rooms(store, teacher_timeout=6)
    code, token = open_room(rooms)
    sid = rooms.join(code, client="s1")
    presence = rooms_module.presence_id(token)
    assert presence not in token and token not in presence
    for _ in range(4):
        clock.now += 2
        assert rooms.pulse(code, teacher=presence) == {"version": 1, "students": 1,
                                                       "answered": 0, "drives": True}
        assert rooms.pulse(code, sid)["teacher"] is True
    clock.now += 7
    assert rooms.pulse(code, sid)["teacher"] is False
    assert rooms.pulse(code, teacher="a guess") is None  # no counts without the presence id
    rooms.reclaim(code, token)  # the teacher reloads and comes back
    assert rooms.pulse(code, sid)["teacher"] is True


def test_a_room_the_store_lost_is_put_back_under_its_code_by_its_teacher(store):
    rooms, _ = timed_rooms(store)
    code, token = open_room(rooms, dict(STATE, step=4))
    sid = rooms.join(code, client="s1", nickname="Ann")
    rooms.update(code, token, text="the teacher's text")
    before = rooms.version(code)
    for key in rooms._keys(code):  # a Redis restart: everything gone, no tombstone
        store.kv.delete(key)
    assert rooms.room(code) is None and not rooms.closed(code)
    quiz = {"id": 3, "k": 5, "revealed": False}
    assert rooms.restore(code, token, dict(STATE, text="the teacher's text", step=4), quiz)
    room = rooms.room(code)
    assert (room.state["text"], room.state["step"], room.quiz) == ("the teacher's text", 4, quiz)
    assert room.version != before  # every student's watcher sees a change
    assert rooms.pulse(code, sid) is None  # the student is no member yet: their page rejoins
    assert rooms.join(code, client="s1", nickname="Ann", student=sid) == sid
    assert rooms.restore(code, token, STATE) is False  # there already: nothing to do
    with pytest.raises(RoomError, match="Only the teacher"):
        rooms.restore(code, "another token", STATE)
    rooms.close(code, token)
    with pytest.raises(RoomError, match="was closed"):  # closed is closed
        rooms.restore(code, token, STATE)


def test_right_codes_are_not_limited_per_address_but_answers_are_per_member(store, monkeypatch):
    """A class behind one school router shares one address: 60 of them join at once, and a
    script on that address that joins 200 times keeps nobody out; answers are limited per member,
    so the script's answers do not use up the class's."""
    monkeypatch.setattr(rooms_module, "ANSWERS_PER_MINUTE", 4)
    rooms, clock = timed_rooms(store)
    code, token = open_room(rooms)
    for _ in range(200):  # a script: joins two a second, and keeps no page open
        rooms.join(code, client="203.0.113.9")
        clock.now += 0.5
    assert rooms.room(code).students == 19  # those of the last 10 s (0.5 to 9.5 s ago)
    clock.now += rooms_module.JOIN_GRACE  # none of them checked in from a live page
    sids = [rooms.join(code, client="203.0.113.9", nickname=f"S{i}") for i in range(60)]
    assert len(set(sids)) == 60 and rooms.room(code).students == 60
    quiz = rooms.start_quiz(code, token, 0)
    for _ in range(4):
        rooms.answer(code, sids[0], quiz["id"], (97, 97), client="203.0.113.9")
    with pytest.raises(RoomError, match="Too many answers from you"):
        rooms.answer(code, sids[0], quiz["id"], (97, 98), client="203.0.113.9")
    rooms.answer(code, sids[1], quiz["id"], (97, 98), client="203.0.113.9")  # a classmate
    if store.kind == "memory":  # a minute later (Redis's own expiry: the wrong-code test's)
        store.wait(61)
        rooms.check_in(code, sids[0])
        rooms.answer(code, sids[0], quiz["id"], (97, 98), client="203.0.113.9")


FORGED = [f"10.9.{i}.{i}" for i in range(5)]  # what a script puts in X-Forwarded-For


@pytest.mark.parametrize("trusted, peer, counted_as", [
    ("", "203.0.113.9", "203.0.113.9"),  # no proxy named: the header is ignored
    ("", None, "127.0.0.1"),  # a script on the server's own machine (uvicorn believed it)
    ("10.0.0.5", "203.0.113.9", "203.0.113.9"),  # a direct client: not the proxy
    ("10.0.0.0/24", "10.0.0.5", "forged"),  # through the named proxy: the address it saw
])
def test_a_forged_x_forwarded_for_gives_no_fresh_tries(store, monkeypatch, trusted, peer,
                                                       counted_as):
    """Wrong codes from one script that writes a new X-Forwarded-For each time: without a
    trusted proxy they all count against the script's own address; through a trusted proxy
    (which appends the address it saw), against that address."""
    monkeypatch.setattr(rooms_module, "JOIN_TRIES_PER_MINUTE", 3)
    rooms, _ = timed_rooms(store)
    proxies = rooms_module.trusted_proxies(trusted)
    refused = []
    for fake in FORGED:
        if counted_as == "forged":  # the proxy appends the one real client's address
            header = f"{fake}, 192.0.2.44"
        else:
            header = fake
        seen = fake if peer is None else peer  # uvicorn replaces a loopback peer by the header
        client = rooms_module.client_address(seen, header, proxies)
        assert client == ("192.0.2.44" if counted_as == "forged" else counted_as)
        try:
            rooms.join("ZZZZ-ZZZZ", client=client)
        except RoomError as e:
            refused.append("Too many" in str(e))
    assert refused == [False, False, False, True, True]


def test_trusted_proxies_are_addresses_or_networks():
    assert rooms_module.trusted_proxies("") == ()
    with pytest.raises(RoomError, match="not an address"):
        rooms_module.trusted_proxies("proxy.example")


# -- roles that hold (issue 33) ---------------------------------------------------------------------


def test_a_member_counts_while_its_page_checks_in_and_a_join_alone_only_for_a_grace(store):
    rooms, clock = timed_rooms(store, member_timeout=60)
    code, token = open_room(rooms)
    page = rooms.join(code, client="school", nickname="Ann")
    bare = rooms.join(code, client="school", nickname="script")
    assert rooms.room(code).students == 2
    rooms.check_in(code, page)  # Ann's page is live (a run of her session)
    clock.now += rooms_module.JOIN_GRACE + 1
    assert rooms.room(code).students == 1  # the bare join never checked in from a page
    for _ in range(5):  # Ann's page polls; the route vouches for her live session
        clock.now += 10
        assert rooms.pulse(code, page, live=True) is not None
        assert rooms.pulse(code, bare, live=False) is not None  # answered, not counted
    assert rooms.members(code, token) == {page: "Ann"}


def test_the_teacher_locks_the_room_and_clears_idle_or_recent_members_in_one_click(store):
    rooms, clock = timed_rooms(store, member_timeout=60)
    code, token = open_room(rooms)
    class_ = [rooms.join(code, client="school", nickname=f"S{i}") for i in range(5)]
    clock.now += 120  # the lesson goes on: the class's pages check in
    for sid in class_:
        rooms.check_in(code, sid)
    ghosts = [rooms.join(code, client="school") for _ in range(40)]  # a burst of scripted joins
    assert rooms.room(code).students == 45
    with pytest.raises(RoomError, match="Only the teacher"):
        rooms.lock(code, "not the token")
    rooms.lock(code, token)
    assert rooms.locked(code)
    with pytest.raises(RoomError, match="is locked"):
        rooms.join(code, client="school", nickname="late")
    # a member comes back through the lock (a reload)
    assert rooms.join(code, client="school", student=class_[0]) == class_[0]
    assert rooms.remove_recent(code, token) == 40  # one click: who joined in the last minute
    assert sorted(rooms.nicknames(code, token)) == [f"S{i}" for i in range(5)]
    assert all(rooms.removed(code, g) for g in ghosts)
    with pytest.raises(RoomError, match="removed you"):
        rooms.join(code, client="school", student=ghosts[0])
    rooms.lock(code, token, locked=False)
    late = rooms.join(code, client="school", nickname="late")  # a real latecomer gets in

    # idle: members whose page has not checked in for IDLE_S (not the late one's: in grace)
    clock.now += rooms_module.IDLE_S
    rooms.check_in(code, late)
    for sid in class_[:3]:
        rooms.check_in(code, sid)
    assert rooms.remove_idle(code, token) == 2  # S3 and S4's pages went quiet
    assert sorted(rooms.nicknames(code, token)) == ["S0", "S1", "S2", "late"]
    with pytest.raises(RoomError, match="Only the teacher"):
        rooms.remove_idle(code, "not the token")


def test_one_tab_drives_a_take_over_moves_it_and_the_old_tab_is_refused(store):
    rooms, _ = timed_rooms(store)
    code, token = rooms.create(dict(STATE), client="teacher", tab="tab1")
    presence = rooms_module.presence_id(token)
    assert rooms.update(code, token, tab="tab1", step=3, step_from=("tab1", 1))
    assert rooms.pulse(code, teacher=presence, tab="tab1")["drives"] is True
    with pytest.raises(rooms_module.NotDriver, match="another tab"):  # same token, other tab
        rooms.update(code, token, tab="tab2", step=1)
    with pytest.raises(rooms_module.NotDriver):
        rooms.start_quiz(code, token, 0, tab="tab2")
    assert rooms.room(code).state["step"] == 3
    rooms.reclaim(code, token, tab="tab2")  # "Take over here" in tab 2
    assert rooms.pulse(code, teacher=presence, tab="tab1")["drives"] is False  # tab 1 sees it
    with pytest.raises(rooms_module.NotDriver):
        rooms.push_step(code, token, 2, "tab1", 99, base=3)  # the stale tab: never backwards
    with pytest.raises(rooms_module.StepBehind) as behind:  # tab 2's view was behind tab 1's
        rooms.push_step(code, token, 1, "tab2", 1, base=0)
    assert behind.value.step == 3
    assert rooms.push_step(code, token, 4, "tab2", 1, base=3)
    assert rooms.push_step(code, token, 6, "tab2", 3, base=4)  # its own moves: by number
    assert not rooms.push_step(code, token, 5, "tab2", 2, base=4)  # an older one of its own
    assert rooms.room(code).state["step"] == 6


def test_the_teacher_link_works_once_and_takes_the_role_from_the_old_tab(store):
    rooms, _ = timed_rooms(store)
    code, token = rooms.create(dict(STATE), client="teacher", tab="tab1")
    first = rooms.new_link(code, token)
    key = rooms.new_link(code, token)  # asked again: the earlier link stops working
    with pytest.raises(RoomError, match="used already"):
        rooms.redeem_link(code, first, "device2")
    new_token = rooms.redeem_link(code, key, "device2")
    assert new_token != token
    with pytest.raises(RoomError, match="used already"):
        rooms.redeem_link(code, key, "device3")  # a second use, or the browser's history
    with pytest.raises(RoomError, match="Only the teacher"):
        rooms.update(code, token, tab="tab1", step=1)  # the old tab's token is dead
    assert rooms.update(code, new_token, tab="device2", step=2)
    assert all(key not in v and new_token not in v for v in store.dump())
