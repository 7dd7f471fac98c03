"""Fixtures of the room tests: a store of each kind (memory, and a redis-server of the test
module's own on loopback), and a small class."""

from __future__ import annotations

import pytest
from redis_server import require_redis, start_redis
from rooms_support import Store, memory_store

import ui.classroom.rooms as rooms_module
from ui.classroom.rooms import (
    RedisKV,
)


@pytest.fixture(scope="module")
def redis_url():
    """A redis-server of this module's own, on a free loopback port, stopped at the end."""
    require_redis("the Redis tests")
    with start_redis() as url:
        yield url


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
