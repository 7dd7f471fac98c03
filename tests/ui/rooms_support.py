"""What the room tests share (tests/ui/test_rooms.py, test_room_members.py): the state a
teacher shares, a store of either kind with a clock the test can move."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from ui.classroom.rooms import (
    MemoryKV,
    RedisKV,
    Rooms,
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


def memory_store() -> Store:
    clock = FakeClock()
    return Store("memory", MemoryKV(clock), clock=clock)


def open_room(rooms: Rooms, state: dict | None = None, client: str = "teacher"):
    return rooms.create(dict(STATE if state is None else state), client=client)
