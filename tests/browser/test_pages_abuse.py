"""The issue's (43) attacks through the app's pages, each in a Chromium session of its own, on a
real ``streamlit run app.py`` (conftest.py's shared server), while a second user works:

- the Check page with a backtracking custom pattern (the issue's link and paste);
- parity-aware BPE on the Superwords page with the sidebar's pattern that backtracks on the
  parallel texts with no spaces;
- a 5 KB tokenizer.json uploaded on Export & import whose normalizer backtracks on its added
  token; and one of 4,000 overlapping added tokens, then text typed with it on the front page;
- the Check page's attack again, its tab closed in the middle.

For each: the attacker's page says a message naming the limit (or, for the 4,000 added tokens,
draws its tokens or the limit's message); the second user's front page draws and typing in its
box shows the typed text's tokens, checked against tiktoken's o200k_base; the server, read in
/proc, has no worker process killed later than 1 s past its budget (``ServerWatch``), and a second
after the attacker's answer no worker and no thread of it is still busy; and its VmRSS grew by at
most ``SESSION_MB``, docs/LIMITS.md's bound of one session (for the 4,000 added tokens, from the
moment the file is imported: the import's own cost is printed, and said in docs/LIMITS.md).

The attacks, and the /proc readings, are benchmarks/page_abuse.py's, which measures the second
user's typing beside each.
"""

from __future__ import annotations

import re
import time

import pytest
from conftest import IDLE
from parity_corpus import tiktoken_reference

from benchmarks.front_typing import load
from benchmarks.page_abuse import (
    ServerWatch,
    busy_now,
    errors,
    go_front,
    hostile_tokenizer_json,
    open_check,
    open_exchange,
    open_parity,
    plain_tokenizer_json,
    start_check,
    start_parity,
    type_in_box,
    upload,
    yours,
)
from benchmarks.route_abuse import rss_kb
from bpe_core.limits import DEFAULT_MEMORY, DEFAULT_SECONDS
from bpe_core.limits.budget import CPU_WALL_FACTOR, FILE_MEMORY, FILE_SECONDS, read_budget

try:
    from playwright.sync_api import expect
except ImportError:  # conftest.py skips these tests, or fails them when CI=true
    expect = None

pytestmark = [pytest.mark.browser, pytest.mark.timeout(600)]

SESSION_MB = 90  # docs/LIMITS.md: at the limits, "a session kept under 90 MB"
LATE = 1.0  # seconds a worker may outlive its budget (the target)
SAMPLE = 0.1  # ServerWatch's period: a death is seen up to one sample late
COLD_START = 10.0  # a worker's start (not in its budget) at a load average of 20
# the app's budgets (ui/kit/choices.install_budget), known by a worker's address space: seconds,
# and how many times that on the wall clock (a read's budget is its worker's CPU time, and at most
# CPU_WALL_FACTOR times it on the wall)
BUDGETS = {DEFAULT_MEMORY: (DEFAULT_SECONDS, 1), FILE_MEMORY: (FILE_SECONDS, CPU_WALL_FACTOR)}
WAIT = 180_000  # ms: a Playwright wait at a load average of 20 and more


@pytest.fixture(scope="module")
def second_user(browser, served_app):
    """A second user on the front page, in a session of their own: ``types(text)`` types in the
    box and checks the GPT-4o view against tiktoken; ``draws()`` opens a new front page."""
    gpt4o = tiktoken_reference("o200k_base")
    ctx = browser.new_context(viewport={"width": 1400, "height": 1600})
    ctx.set_default_timeout(WAIT)
    page = ctx.new_page()
    page.goto(served_app.url, wait_until="domcontentloaded")
    view = page.locator('[data-view="gpt-4o"]')
    view.wait_for(state="visible")

    class User:
        @staticmethod
        def types(text: str) -> None:
            type_in_box(page, text)
            expect(view).to_have_text(text, timeout=WAIT)
            expect(view).to_have_attribute("data-tokens", str(len(gpt4o.encode(text))),
                                           timeout=WAIT)
            assert view.text_content() == text

        @staticmethod
        def draws() -> None:
            fresh = ctx.new_page()
            try:
                fresh.goto(served_app.url, wait_until="domcontentloaded")
                fresh.locator('[data-view="gpt-4o"]').wait_for(state="visible")
            finally:
                fresh.close()

    yield User
    ctx.close()


@pytest.fixture
def attacker(browser):
    ctx = browser.new_context(viewport={"width": 1400, "height": 2200})
    ctx.set_default_timeout(WAIT)
    yield ctx.new_page()
    ctx.close()


def the_server_is_clear(served_app, watch: ServerWatch, rss_before: int,
                        killed: bool = True, read_seconds: float = FILE_SECONDS) -> None:
    """After an attack, while ``watch`` still samples: the server's workers come to rest, and
    no busy stretch of a worker lasted more than its budget and ``LATE`` (a worker's budget is
    known by its address-space limit: the app's calls on text, the app's reads; one never seen
    idle has its start counted in: ``COLD_START`` more); with ``killed``, one was killed at its
    budget (the attack reached a worker), and then no thread of the server is busy over the
    second after the attacker's answer. The server comes to rest (over a second, no thread and
    no worker of it busy) within the longest budget and ``LATE`` and ``COLD_START`` (the attacker's
    page may start more bounded work as it draws); its memory grew by at most a session's.
    ``read_seconds``: the budget of the read the attack made (``read_budget(size)``)."""
    budgets = {**BUDGETS, FILE_MEMORY: (read_seconds, CPU_WALL_FACTOR)}
    end = time.monotonic() + FILE_SECONDS + LATE + COLD_START
    busy = busy_now(served_app.pid, window=LATE)
    if killed:  # the answer came once the budget was spent: no thread of the server is still
        assert busy["threads"] == [], busy  # at work on it over the next second
    while busy != {"children": [], "threads": []}:
        assert time.monotonic() < end, (busy, watch.runs())  # it comes to rest
        busy = busy_now(served_app.pid, window=LATE)
    runs = watch.runs()
    print(f"\nworkers' busy stretches (s, seen idle before, ended, address space): {runs}; "
          f"load {load()}")
    for s, warm, _, memory, cpu in runs.values():  # a worker with no limit yet is starting
        seconds, wall = budgets.get(memory, (0, 1))
        assert s <= seconds * wall + LATE + 2 * SAMPLE + (0 if warm else COLD_START), runs
        assert cpu <= seconds + LATE + (0 if warm else COLD_START), runs  # a worker's own CPU
    if killed:  # a stretch starts when a sample sees it: up to a sample or two late
        assert any(ended and s >= budgets[m][0] - 2 * SAMPLE
                   for s, _, ended, m, _ in runs.values()), runs
    grew = (rss_kb(served_app.pid) - rss_before) / 1024
    print(f"the server's VmRSS grew by {grew:.1f} MB")
    assert grew <= SESSION_MB
    assert "Traceback" not in served_app.output()


def names_the_limit(page, seconds: float, clock: str = "") -> str:
    """The page's error that names the budget: "longer than 2 s", "more than 10 s of CPU"."""
    words = rf"more than {seconds:g} s of CPU" if clock == "cpu" else rf"longer than {seconds:g} s"
    said = errors(page).filter(has_text=re.compile(words))
    # a budget on the CPU clock may take CPU_WALL_FACTOR times its seconds of wall time to run out
    said.first.wait_for(state="visible",
                        timeout=WAIT + (seconds * CPU_WALL_FACTOR * 1000 if clock else 0))
    return said.first.inner_text()


def test_the_check_pages_backtracking_pattern(served_app, attacker, second_user):
    open_check(attacker, served_app.url)  # the sidebar trained with the pattern: a worker is up
    before = rss_kb(served_app.pid)
    with ServerWatch(served_app.pid) as watch:
        start_check(attacker)
        second_user.types("While one student attacks, another one types: tokens!")
        second_user.draws()
        said = names_the_limit(attacker, DEFAULT_SECONDS)
        the_server_is_clear(served_app, watch, before)
    assert "simplify the pattern" in said


def test_parity_aware_bpe_with_the_sidebars_backtracking_pattern(served_app, attacker,
                                                                  second_user):
    open_parity(attacker, served_app.url)
    before = rss_kb(served_app.pid)
    with ServerWatch(served_app.pid) as watch:
        start_parity(attacker)
        second_user.types("Fair merges for every language, said the second user.")
        said = names_the_limit(attacker, DEFAULT_SECONDS)
        the_server_is_clear(served_app, watch, before)
    assert "pattern" in said


def test_a_tokenizer_json_whose_normalizer_backtracks(served_app, attacker, second_user,
                                                      tmp_path):
    plain, hostile = tmp_path / "plain.json", tmp_path / "tokenizer.json"
    plain.write_bytes(plain_tokenizer_json())
    hostile.write_bytes(hostile_tokenizer_json("normalizer"))
    assert hostile.stat().st_size <= 5_000
    open_exchange(attacker, served_app.url, warm=plain)
    before = rss_kb(served_app.pid)
    with ServerWatch(served_app.pid) as watch:
        upload(attacker, hostile)
        second_user.types("An upload hangs nothing: the box still answers.")
        seconds = read_budget(hostile.stat().st_size).seconds  # 10 s of CPU for 5 KB
        said = names_the_limit(attacker, seconds, "cpu")
        the_server_is_clear(served_app, watch, before, read_seconds=seconds)
    assert said.startswith("Not imported") and "tokenizer.json" in said


def test_4000_overlapping_added_tokens_then_text_typed_with_them(served_app, attacker,
                                                                second_user, tmp_path):
    hostile = tmp_path / "tokenizer.json"
    hostile.write_bytes(hostile_tokenizer_json("added"))
    assert 8_000_000 < hostile.stat().st_size < 10 * 1024 * 1024  # the 8.5 MB, allowed
    open_exchange(attacker, served_app.url)
    before = rss_kb(served_app.pid)
    with ServerWatch(served_app.pid) as watch:
        upload(attacker, hostile)
        attacker.get_by_role("heading", name="Loaded").wait_for(state="visible", timeout=WAIT)
        # the file's tokenizer is the session's now: heavy but bounded by the upload's 10 MB, its
        # cost is the import's, said in docs/LIMITS.md (no per-session bound is stated for it);
        # the attack is what comes next, and the bound is on that
        loaded = rss_kb(served_app.pid)
        print(f"\nthe import: the server's VmRSS grew by {(loaded - before) / 1024:.1f} MB")
        go_front(attacker)  # the imported file is the session's tokenizer on every page
        typed = "b" + "a" * 5 + "b"
        type_in_box(attacker, typed)
        second_user.types("Four thousand added tokens slow nobody else down.")
        view = yours(attacker)
        expect(view.locator(".error").or_(view.locator(f'[data-tokens="{3}"]'))).to_be_visible(
            timeout=WAIT)
        attacker.locator(IDLE).wait_for(state="attached", timeout=WAIT)
        # the read (a worker of FILE_MEMORY) and the encode (of DEFAULT_MEMORY), each bounded
        the_server_is_clear(served_app, watch, loaded, killed=False)
    print(f"the attacker's view: {view.inner_text()[:200]!r}")
    if view.locator(".error").count():  # compiling the matcher: past the budget, said
        assert re.search(r"longer than 2 s|more than 512 MB", view.inner_text())
    else:  # or it fits: the longest added token wins, as in Hugging Face's tokenizers
        assert view.get_attribute("data-tokens") == "3" and view.text_content() == typed


def test_the_attackers_tab_closed_mid_attack_leaves_no_worker(served_app, attacker,
                                                              second_user):
    open_check(attacker, served_app.url)
    before = rss_kb(served_app.pid)
    with ServerWatch(served_app.pid) as watch:
        start_check(attacker)
        deadline = time.monotonic() + 60  # the worker takes the paste's split
        while not any(i["busy_since"] and i["idle"] for i in watch.seen.values()):
            assert time.monotonic() < deadline, watch.seen
            time.sleep(0.05)
        at_work = [c for c, i in watch.seen.items() if i["busy_since"] and i["idle"]]
        attacker.context.close()  # the tab and its session end mid-attack
        closed = time.monotonic()
        second_user.types("The attacker left; the second user stays.")
        while any(watch.seen[c]["gone"] is None for c in at_work) and time.monotonic() < closed + 5:
            time.sleep(0.05)
        gone = {c: watch.seen[c]["gone"] for c in at_work}
        runs = watch.runs()
        the_server_is_clear(served_app, watch, before)
    print(f"\nworkers at work when the tab closed: {at_work}, gone "
          f"{[round(g - closed, 2) if g else None for g in gone.values()]} s after; "
          f"busy stretches {runs} s; load {load()}")
    assert all(g is not None and g - closed <= 5 for g in gone.values()), gone
    # the budget, not the close, ended it: its busy stretch is the budget's, to the kill
    assert all(runs[c][0] <= DEFAULT_SECONDS + LATE + 2 * SAMPLE for c in at_work), runs
