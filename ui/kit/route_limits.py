"""What every HTTP route beside the app (a feature's ``route.py``) does with a request before its
own work: the one owner of reading a body, reading it as JSON, and bounding the server's threads.

- ``read_body``: ``Content-Length`` is read first (413 over the route's limit, 400 when it is not
  a number, 411 when it is missing on a body that is not chunked), and the body is read from the
  stream only until it passes the limit (a chunked body has no length; a length can be false):
  a refused body is never read whole, and the connection is closed after the answer.
- ``json_object``: the body as a JSON object, or 400: bad UTF-8, brackets nested deeper than
  ``bpe_core.limits.MAX_JSON_DEPTH``, NaN or Infinity, a number of more than ``MAX_DIGITS``
  digits, anything but an object.
- ``text_field`` and ``int_field``: one field of the right type, or 400 (a string with a lone
  surrogate, which UTF-8 cannot encode; an integer outside JavaScript's safe integers; a bool).
- ``Gate``: at most ``slots`` of a route's calls in Starlette's worker threads at once, server-wide,
  and at most ``queue`` more waiting their turn (503 beyond), so no one client holds all the
  threads that Streamlit's own work needs.

Each refusal is a ``Refused``, answered by its ``response()``: a short JSON body, never a traceback.
"""

from __future__ import annotations

import asyncio
import json
import math
import re
from collections import deque
from collections.abc import Callable
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse

from bpe_core.limits import check_json_depth

NO_STORE = {"Cache-Control": "no-store"}  # an answer cached by the browser would be stale
MAX_DIGITS = 16  # digits of a number in a route's JSON (2**53, JavaScript's safe integers: 16)
SAFE_INT = 2**53 - 1
_SURROGATE = re.compile("[\ud800-\udfff]")


class Refused(Exception):
    """A request the route refuses: ``status`` (4xx or 503), ``reason`` in a few words, and
    ``close``: whether the body was left unread (then the connection is closed)."""

    def __init__(self, status: int, reason: str, close: bool = False,
                 headers: dict[str, str] | None = None) -> None:
        super().__init__(reason)
        self.status, self.reason, self.close = status, reason, close
        self.headers = headers or {}

    def response(self, **fields: Any) -> JSONResponse:
        """The answer: the route's own ``fields`` (what its browser code reads) and the reason."""
        headers = {**NO_STORE, **self.headers}
        if self.close:
            headers["Connection"] = "close"
        return JSONResponse({**fields, "error": self.reason}, status_code=self.status,
                            headers=headers)


async def read_body(request: Request, limit: int) -> bytes:
    """The request's body, at most ``limit`` bytes, read only as far as the limit; ``Refused``
    (411, 400 or 413) otherwise, before the body is read when its stated length says so."""
    length = request.headers.get("content-length")
    chunked = "chunked" in request.headers.get("transfer-encoding", "").lower()
    if length is None and not chunked:
        raise Refused(411, "a body needs its Content-Length")
    if length is not None:
        if not (length.isascii() and length.isdigit()) or len(length) > MAX_DIGITS:
            raise Refused(400, "Content-Length is not a number", close=True)
        if int(length) > limit:
            raise Refused(413, f"the body is {int(length):,} bytes; this route reads at most "
                               f"{limit:,}", close=True)
    parts, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise Refused(413, f"the body is over {limit:,} bytes; this route reads at most "
                               f"{limit:,}", close=True)
        parts.append(chunk)
    return b"".join(parts)


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a number JSON allows")


def _small_int(digits: str) -> int:
    if len(digits.lstrip("-")) > MAX_DIGITS:
        raise ValueError("a number of more than 16 digits")
    return int(digits)


def _small_float(digits: str) -> float:
    number = float(digits) if len(digits) <= 2 * MAX_DIGITS else math.inf
    if not math.isfinite(number):
        raise ValueError(f"{digits[:20]} is too large a number")
    return number


def json_object(body: bytes, name: str = "the body") -> dict[str, Any]:
    """``body`` as a JSON object (``Refused`` 400 otherwise, saying why)."""
    try:
        text = body.decode("utf-8")
        check_json_depth(text, name)
        told = json.loads(text, parse_constant=_no_constant, parse_int=_small_int,
                          parse_float=_small_float)
    except UnicodeDecodeError:
        raise Refused(400, f"{name} is not UTF-8") from None
    except ValueError as e:  # JSONDecodeError is one, and so is what the checks above raise
        raise Refused(400, f"{name} is not JSON this route reads: {str(e)[:160]}") from None
    if not isinstance(told, dict):
        raise Refused(400, f"{name} is not a JSON object")
    return told


def text_field(told: dict[str, Any], field: str, max_chars: int | None = None) -> str:
    """The string ``told[field]`` (400 when missing, not a string, holding a lone surrogate, or
    over ``max_chars``)."""
    value = told.get(field)
    if not isinstance(value, str):
        raise Refused(400, f'"{field}" must be a string')
    if max_chars is not None and len(value) > max_chars:
        raise Refused(400, f'"{field}" is over {max_chars:,} characters')
    if _SURROGATE.search(value):
        raise Refused(400, f'"{field}" holds a lone surrogate, which UTF-8 cannot encode')
    return value


def int_field(told: dict[str, Any], field: str, optional: bool = False) -> int | None:
    """The integer ``told[field]`` (400 when missing, a bool, a float or beyond JavaScript's
    safe integers); None for a missing or null ``optional`` field."""
    value = told.get(field)
    if value is None and optional:
        return None
    if type(value) is not int or not -SAFE_INT <= value <= SAFE_INT:
        raise Refused(400, f'"{field}" must be an integer of at most 16 digits')
    return value


class Gate:
    """At most ``slots`` calls in worker threads at once (``run``), the rest waiting in order;
    with ``queue`` already waiting, ``Refused`` 503 at once. Server-wide: one gate per route
    kind, shared by every session, on the server's one event loop."""

    def __init__(self, slots: int, queue: int) -> None:
        self.slots, self.queue = slots, queue
        self.busy = 0
        self._waiting: deque[asyncio.Future] = deque()

    async def run(self, fn: Callable[..., Any], *args: Any) -> Any:
        if self.busy >= self.slots or self._waiting:
            if len(self._waiting) >= self.queue:
                raise Refused(503, "the server is busy: ask again in a moment",
                              headers={"Retry-After": "1"})
            turn = asyncio.get_running_loop().create_future()
            self._waiting.append(turn)
            try:
                await turn  # a finished call hands its slot over
            except asyncio.CancelledError:
                if turn.done() and not turn.cancelled():
                    self._release()
                else:
                    self._waiting.remove(turn)
                raise
        else:
            self.busy += 1
        try:
            return await run_in_threadpool(fn, *args)
        finally:
            self._release()

    def _release(self) -> None:
        while self._waiting:
            turn = self._waiting.popleft()
            if not turn.done():
                turn.set_result(None)  # the slot goes to the next one: busy stays the same
                return
        self.busy -= 1
