"""ui/kit/route_limits.py's gate: the bound on how many of a route's calls hold a worker thread
at once, server-wide (the routes' bodies and JSON are tested against a real server in
tests/browser/test_routes_abuse.py)."""

from __future__ import annotations

import asyncio
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from ui.kit.route_limits import Gate, Refused


def test_the_gate_runs_at_most_its_slots_at_once_and_refuses_past_its_queue():
    gate = Gate(slots=2, queue=3)
    running, most, lock = [0], [0], threading.Lock()

    def work(n: int) -> int:
        with lock:
            running[0] += 1
            most[0] = max(most[0], running[0])
        time.sleep(0.05)
        with lock:
            running[0] -= 1
        return n

    async def all_at_once() -> list:
        calls = [asyncio.ensure_future(gate.run(work, n)) for n in range(7)]
        return await asyncio.gather(*calls, return_exceptions=True)

    with ThreadPoolExecutor(1) as pool:
        answers = pool.submit(lambda: asyncio.run(all_at_once())).result()
    assert answers[:5] == [0, 1, 2, 3, 4]  # two at once, three waiting their turn, in order
    refused = answers[5:]
    assert all(isinstance(r, Refused) and r.status == 503 for r in refused), refused
    assert most[0] == 2 and gate.busy == 0


def test_a_call_that_fails_gives_its_slot_back():
    gate = Gate(slots=1, queue=1)

    def boom() -> None:
        raise ValueError("no")

    async def twice() -> None:
        for _ in range(2):
            with pytest.raises(ValueError):
                await gate.run(boom)

    with ThreadPoolExecutor(1) as pool:
        pool.submit(lambda: asyncio.run(twice())).result()
    assert gate.busy == 0
