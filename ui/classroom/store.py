"""The stores under the classroom's rooms (ui/classroom/rooms.py), and the errors of a room operation.

Two stores with one small interface, the few Redis commands ``Rooms`` uses: ``MemoryKV``, a
server's own (the default), and ``RedisKV``, over the official ``redis`` client, for several app
servers (``BPE_LAB_ROOMS=redis://...``); ``open_kv`` picks one from that setting.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any


class RoomError(ValueError):
    """A room operation that cannot be done; the message is for the person who asked."""


class StoreDown(RoomError):
    """The store (Redis) did not answer."""


class NotTeacher(RoomError):
    """Only the room's teacher may do that."""


class RoomGone(RoomError):
    """The room has ended (or is not there)."""


class NotDriver(NotTeacher):
    """The teacher's token, from a tab that no longer drives the room (another tab took over)."""


class MemoryKV:
    """The few Redis commands ``Rooms`` uses, for one process: strings, counters, hashes and
    expiry, behind one lock (Streamlit runs each session's script in a thread of its own).

    ``clock`` is injectable so that tests can move time; expired keys are dropped when touched
    and in a sweep every SWEEP_EVERY writes, so a server that sees many rooms stays bounded.
    """

    SWEEP_EVERY = 256

    def __init__(self, clock: Callable[[], float] = time.monotonic):
        self._clock = clock
        self._data: dict[str, Any] = {}
        self._deadline: dict[str, float] = {}
        self._lock = threading.Lock()
        self._writes = 0

    def _live(self, key: str) -> bool:
        deadline = self._deadline.get(key)
        if deadline is not None and self._clock() >= deadline:
            self._data.pop(key, None)
            self._deadline.pop(key, None)
        return key in self._data

    def _wrote(self) -> None:
        self._writes += 1
        if self._writes % self.SWEEP_EVERY == 0:
            for key in [k for k, d in self._deadline.items() if self._clock() >= d]:
                self._data.pop(key, None)
                self._deadline.pop(key, None)

    def get(self, key: str) -> str | None:
        with self._lock:
            return self._data[key] if self._live(key) and isinstance(self._data[key], str) else None

    def mget(self, *keys: str) -> list[str | None]:
        with self._lock:
            return [self._data[k] if self._live(k) and isinstance(self._data[k], str) else None
                    for k in keys]

    def set(self, key: str, value: str, ex: int | None = None, nx: bool = False) -> bool:
        with self._lock:
            if nx and self._live(key):
                return False
            self._data[key] = value
            self._deadline.pop(key, None)
            if ex is not None:
                self._deadline[key] = self._clock() + ex
            self._wrote()
            return True

    def incr(self, key: str) -> int:
        with self._lock:
            value = int(self._data[key]) + 1 if self._live(key) else 1
            self._data[key] = str(value)
            self._wrote()
            return value

    def expire(self, key: str, seconds: int, nx: bool = False) -> bool:
        with self._lock:
            if not self._live(key) or (nx and key in self._deadline):
                return False
            self._deadline[key] = self._clock() + seconds
            return True

    def delete(self, *keys: str) -> int:
        with self._lock:
            gone = 0
            for key in keys:
                gone += self._live(key)
                self._data.pop(key, None)
                self._deadline.pop(key, None)
            return gone

    def exists(self, key: str) -> int:
        with self._lock:
            return int(self._live(key))

    def _hash(self, key: str, create: bool = False) -> dict[str, str] | None:
        if not self._live(key):
            if not create:
                return None
            self._data[key] = {}
        value = self._data[key]
        return value if isinstance(value, dict) else None

    def hset(self, key: str, field: str, value: str) -> int:
        with self._lock:
            h = self._hash(key, create=True)
            new = field not in h
            h[field] = value
            self._wrote()
            return int(new)

    def hget(self, key: str, field: str) -> str | None:
        with self._lock:
            return (self._hash(key) or {}).get(field)

    def hgetall(self, key: str) -> dict[str, str]:
        with self._lock:
            return dict(self._hash(key) or {})

    def hlen(self, key: str) -> int:
        with self._lock:
            return len(self._hash(key) or {})

    def hdel(self, key: str, field: str) -> int:
        with self._lock:
            h = self._hash(key)
            return int(h is not None and h.pop(field, None) is not None)

    def capped_hset(self, key: str, field: str, value: str, cap: int, ttl: int) -> bool:
        """Set ``field`` if it is there already or the hash has fewer than ``cap`` fields;
        the hash lives ``ttl`` seconds from now. (Redis: one Lua script, equally atomic.)"""
        with self._lock:
            h = self._hash(key, create=True)
            if field not in h and len(h) >= cap:
                return False
            h[field] = value
            self._deadline[key] = self._clock() + ttl
            self._wrote()
            return True


# Redis runs this as one step, so that concurrent joins on several servers cannot pass the cap.
CAPPED_HSET_LUA = """
if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 1 or redis.call('HLEN', KEYS[1]) < tonumber(ARGV[3]) then
  redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
  redis.call('EXPIRE', KEYS[1], tonumber(ARGV[4]))
  return 1
end
return 0
"""


class RedisKV:
    """The same interface over the official ``redis`` client (imported only when asked for)."""

    def __init__(self, url: str):
        import redis  # the one extra runtime dependency, for rooms on several servers

        self.client = redis.Redis.from_url(url, decode_responses=True, socket_timeout=2,
                                           socket_connect_timeout=2)
        self._errors = redis.RedisError
        self._capped = self.client.register_script(CAPPED_HSET_LUA)
        for name in ("get", "mget", "set", "incr", "expire", "delete", "exists", "hset", "hget",
                     "hgetall", "hlen", "hdel"):
            setattr(self, name, self._answered(getattr(self.client, name)))

    def _answered(self, command: Callable[..., Any]) -> Callable[..., Any]:
        """``command``, with Redis's failures (down, timed out) said as a RoomError."""

        def call(*args: Any, **kwargs: Any) -> Any:
            try:
                return command(*args, **kwargs)
            except self._errors as e:
                raise StoreDown(f"The classroom's Redis server did not answer ({type(e).__name__})"
                                ": try again in a moment, or ask whoever runs the app.") from e

        return call

    def capped_hset(self, key: str, field: str, value: str, cap: int, ttl: int) -> bool:
        return bool(self._answered(self._capped)(keys=[key], args=[field, value, cap, ttl]))


def open_kv(setting: str | None) -> MemoryKV | RedisKV:
    """The store a setting names: empty or ``memory`` for this process's own, ``redis://...``
    (or ``rediss://``, ``unix://``) for a Redis server shared by several app servers."""
    setting = (setting or "").strip()
    if setting in ("", "memory"):
        return MemoryKV()
    if setting.split("://", 1)[0] in ("redis", "rediss", "unix"):
        return RedisKV(setting)
    raise RoomError(f"BPE_LAB_ROOMS must be empty, 'memory' or a redis:// URL, not {setting[:40]!r}")
