"""Classroom rooms, continued: members are people (check-ins, expiry, removal, limits; issue 25)
and roles that hold (one driving tab, live members, the room lock, a teacher link that works
once; issue 33). On both stores, as in test_rooms.py."""

from __future__ import annotations

import pytest
from rooms_support import STATE, FakeClock, Store, open_room

import ui.classroom.rooms as rooms_module
from ui.classroom.rooms import (
    RoomError,
    Rooms,
)

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
    sid = rooms.join(code, client="s1", nickname="Ann", claim="her-page")
    key = "ann-browser-key-0123456789"
    assert rooms.pulse(code, sid, browser=key, fresh=True, claim="her-page")  # her first poll
    for _ in range(3):  # reloads: the page joins again with the id it kept, in her browser
        assert rooms.join(code, client="s1", nickname="Ann", student=sid, browser=key) == sid
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
    assert rooms.join(code, client="s1", nickname="Ann", student=sid, own=True) == sid
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
        rooms.pulse(code, sids[0], live=True)  # her page polls
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
    assert rooms.pulse(code, page, live=True)  # Ann's browser polls: her page is live
    clock.now += rooms_module.JOIN_GRACE + 1
    assert rooms.room(code).students == 1  # the bare join never checked in from a page
    for _ in range(5):  # Ann's page polls; the route vouches for her live session
        clock.now += 10
        assert rooms.pulse(code, page, live=True) is not None
        assert rooms.pulse(code, bare, live=False) is not None  # answered, not counted
    assert rooms.members(code, token) == {page: "Ann"}


def test_the_teacher_locks_the_room_and_clears_who_is_not_admitted_or_idle_in_one_click(store):
    """Issue 44: sessions a script holds and polls from look like students who watch; the
    teacher's admission (or an answer) tells the class from them, and the removals of many never
    remove an admitted student, nor one who answered."""
    rooms, clock = timed_rooms(store, member_timeout=60)
    code, token = open_room(rooms)
    class_ = [rooms.join(code, client="school", nickname=f"S{i}") for i in range(5)]
    clock.now += 120  # the lesson goes on: the class's pages poll
    for sid in class_:
        rooms.pulse(code, sid, live=True)
    assert rooms.admit(code, token) == 5  # "Admit everyone here now"
    with pytest.raises(RoomError, match="Only the teacher"):
        rooms.admit(code, "not the token")
    clock.now += 120  # a burst of scripted joins, long before the click
    ghosts = [rooms.join(code, client="school") for _ in range(40)]
    late = rooms.join(code, client="school", nickname="late")  # a real latecomer, in the burst
    quiz = rooms.start_quiz(code, token, 0)
    answered = rooms.join(code, client="school", nickname="answered")
    for _ in range(3):  # every page polls, as a browser does: none of them is idle
        clock.now += 3
        for sid in [*class_, *ghosts, late, answered]:
            rooms.pulse(code, sid, live=True)
    rooms.answer(code, answered, quiz["id"], (97, 98))  # an answer admits
    assert rooms.room(code).students == 47
    assert rooms.remove_idle(code, token) == 0  # they all poll: nothing tells them apart
    assert rooms.admit(code, token, late) == 1  # the teacher admits the one they know
    assert rooms.admitted(code, token) == {*class_, late, answered}
    with pytest.raises(RoomError, match="Only the teacher"):
        rooms.lock(code, "not the token")
    rooms.lock(code, token)
    assert rooms.locked(code)
    with pytest.raises(RoomError, match="is locked"):
        rooms.join(code, client="school", nickname="later")
    assert rooms.remove_unadmitted(code, token) == 40  # one click: the burst, not the latecomer
    assert sorted(rooms.nicknames(code, token)) == ["S0", "S1", "S2", "S3", "S4", "answered",
                                                    "late"]
    assert all(rooms.removed(code, g) for g in ghosts)
    with pytest.raises(RoomError, match="removed you"):
        rooms.join(code, client="school", student=ghosts[0])
    rooms.lock(code, token, locked=False)
    newcomer = rooms.join(code, client="school", nickname="new")  # not admitted yet

    # idle: pages that have not checked in for IDLE_S; an admitted student's is kept
    clock.now += rooms_module.IDLE_S
    for sid in class_[:3]:
        rooms.pulse(code, sid, live=True)
    assert rooms.remove_idle(code, token) == 1  # the newcomer (no live page past the grace)
    assert not rooms.is_member(code, newcomer)
    assert all(rooms.is_member(code, sid) for sid in [*class_, late, answered])  # the quiet
    with pytest.raises(RoomError, match="Only the teacher"):  # admitted ones are kept
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


def test_a_take_over_adopts_the_rooms_step_and_the_taking_tabs_pending_move_is_refused(store):
    """Issue 44: tab 1 drives at 11; tab 2, at its own step 2 (moved from 1), takes over and its
    pending move arrives after, through its page's rerun (``update``): refused, even in a room
    never stepped through the route; its other changes still go through."""
    rooms, _ = timed_rooms(store)
    code, token = rooms.create(dict(STATE), client="teacher", tab="tab1")
    assert rooms.update(code, token, tab="tab1", step=11, step_from=("tab1", 1), base=0)
    taken = rooms.reclaim(code, token, tab="tab2")
    assert taken.state["step"] == 11  # the take-over carries the room's step
    with pytest.raises(rooms_module.StepBehind) as behind:
        rooms.update(code, token, tab="tab2", step=2, step_from=("tab2", 2), base=1,
                     page="pages/steps.py")
    assert behind.value.step == 11
    assert rooms.room(code).state["step"] == 11
    assert rooms.room(code).state["page"] == "pages/steps.py"
    with pytest.raises(rooms_module.StepBehind):  # through the route, likewise
        rooms.push_step(code, token, 3, "tab2", 3, base=2)
    assert rooms.update(code, token, tab="tab2", step=12, step_from=("tab2", 4), base=11)
    assert rooms.update(code, token, tab="tab2", step=14, step_from=("tab2", 6), base=13)
    assert rooms.room(code).state["step"] == 14  # its own moves since: in the order of numbers


def test_a_session_that_only_runs_or_whose_page_closed_counts_only_for_the_grace(store):
    """Issue 44: a join through a real Streamlit session (its runs check in) whose browser never
    polls, and a page that polled and then closed, leave the count within JOIN_GRACE, not
    member_timeout (60 s)."""
    rooms, clock = timed_rooms(store, member_timeout=60)
    code, _ = open_room(rooms)
    script = rooms.join(code, client="school")
    closed = rooms.join(code, client="school")
    ann = rooms.join(code, client="school", nickname="Ann")
    for sid in (script, closed, ann):
        assert rooms.check_in(code, sid)  # each session's first run
    assert rooms.pulse(code, closed, live=True) and rooms.pulse(code, ann, live=True)
    rooms.page_closed(code, closed)  # its server saw the session disconnect
    assert rooms.room(code).students == 3
    for _ in range(int(rooms_module.JOIN_GRACE)):  # the script's session runs every second:
        clock.now += 1  # its runs are not check-ins
        assert rooms.check_in(code, script)
    clock.now += 0.5
    assert rooms.pulse(code, ann, live=True)  # Ann polls and stays
    assert rooms.room(code).students == 1  # the closed page and the script are out
    clock.now += 30
    assert rooms.pulse(code, ann, live=True)
    assert rooms.room(code).students == 1


def test_a_member_is_bound_to_the_browser_that_first_polled_as_them(store):
    """Issue 44: Ann's id opened from another browser (another key, or none) is a new member,
    and its polls with her id are not hers; from her own browser she comes back as Ann."""
    rooms, _ = timed_rooms(store)
    code, token = open_room(rooms)
    ann = rooms.join(code, client="school", nickname="Ann")
    assert rooms.pulse(code, ann, live=True, browser="ann-browser-key-0123456789")  # binds
    assert rooms.pulse(code, ann, live=True, browser="someone-else-key-0123456789") is None
    other = rooms.join(code, client="school", student=ann, browser="someone-else-key-0123456789")
    assert other != ann
    assert rooms.join(code, client="school", student=ann, browser=None) not in (ann, other)
    assert rooms.join(code, client="school", student=ann,
                      browser="ann-browser-key-0123456789") == ann  # her reload
    assert rooms.nickname(code, ann) == "Ann"
    assert rooms.pulse(code, ann, live=True, browser="ann-browser-key-0123456789")  # still bound
    assert len(rooms.members(code, token)) == 3


def test_a_page_that_brought_its_browsers_key_binds_its_member_at_once(store):
    """Issue 44 (CI: a reload before the page's first poll made a new member): a page whose
    browser brought its key (the page's load gives one) binds the member to it at the join, so
    its reload, before any poll, is the same member; the address in another browser is not."""
    rooms, _ = timed_rooms(store)
    code, token = open_room(rooms)
    mine, theirs = "ann-browser-key-0123456789", "someone-else-key-0123456789"
    ann = rooms.join(code, client="school", nickname="Ann", browser=mine, claim="ann-page-claim")
    assert rooms.join(code, client="school", student=ann, browser=mine) == ann  # her reload
    other = rooms.join(code, client="school", student=ann, browser=theirs)
    assert other != ann
    assert rooms.pulse(code, ann, live=True, browser=theirs, claim="ann-page-claim") is None
    assert rooms.pulse(code, ann, live=True, browser=mine, claim="ann-page-claim")
    assert rooms.nickname(code, ann) == "Ann" and len(rooms.members(code, token)) == 2


def test_a_page_joins_with_a_claim_and_until_its_first_poll_its_address_is_nobodys(store):
    """Issue 44: before Ann's page first polls (it has not yet given her browser its key), her
    address opened in another browser is a new member, and a poll with her id but without her
    page's claim is refused; her page's first poll binds her to her browser."""
    rooms, _ = timed_rooms(store)
    code, token = open_room(rooms)
    ann = rooms.join(code, client="school", nickname="Ann", claim="ann-page-claim")
    other = rooms.join(code, client="school", student=ann, browser="someone-else-key-0123456789")
    assert other != ann
    assert rooms.pulse(code, ann, live=True, browser="someone-else-key-0123456789") is None
    assert rooms.pulse(code, ann, live=True, browser="someone-else-key-0123456789",
                       claim="a-guessed-claim") is None
    assert rooms.pulse(code, ann, live=True, browser="ann-browser-key-0123456789",
                       fresh=True, claim="ann-page-claim")  # her first poll: bound
    assert rooms.pulse(code, ann, live=True, browser="someone-else-key-0123456789",
                       claim="ann-page-claim") is None  # her claim from elsewhere: too late
    assert rooms.join(code, client="school", student=ann,
                      browser="ann-browser-key-0123456789") == ann  # her reload
    assert rooms.join(code, client="school", student=ann, browser="someone-else-key-0123456789",
                      own=False) not in (ann, other)
    assert rooms.join(code, client="school", student=ann, own=True) == ann  # her own session
    assert len(rooms.members(code, token)) == 3
