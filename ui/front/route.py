"""The front page's one HTTP route: the box's tokens at every key, without running a script.

``POST /_bpelab/front/tokens`` with ``{"key": K, "text": T, "seq": N, "seed": S}`` (JSON) answers
``{"views": {"yours": ..., "gpt-4o": ...}}`` (``ui.front.component.views_data``): the text under the
session's tokenizer and GPT-4o, special-token text read by the session's rule as its page last
ran (``route_rule``, ``ui.kit.special_rule``). The key is what ``ui.kit.state.route_key`` gave the
session's page (128 random bits, handed only to that page); it stands for the session's tokenizer
and GPT-4o, held weakly. The text is also kept as the session's newest (``route_heard``; ``seq`` numbers the
box's texts, ``seed`` names the text it started from): the box asks at every key, so the page's
next run shows what was typed even if the learner left the page before the box told the script.

Refused, with ``{"views": null, "error": why}``: 411, 400 or 413 for a body without a length, a
malformed one or one over ``MAX_TOKENS_BODY`` (``ui.kit.route_limits``: read no further than the
limit), 404 for a key it does not know, or whose tokenizer is gone (a restarted server, a
retrained tokenizer: the box then lets the page's script draw).

The newest text wins (``Turns``): one tokenizing per key at a time, at most ``TOKENIZE_RATE`` a
second; a question that comes meanwhile waits, and replaces the one waiting, which is answered
409 ``{"superseded": true}`` at once (as is a question older, by ``seq``, than the one waiting).
More than ``MAX_ASKS`` questions from one key in a second are answered 429. The box asks again
after either (ui/front/component.py), so the newest text is always drawn. Server-wide, at most
``TOKENIZE_GATE.slots`` tokenizings run in Starlette's worker threads at once.

Why a route: a Streamlit rerun, even of one fragment, is a round trip through the script runner
that cost 150 to 200 ms per key here (measured in Chromium); this answers in a few milliseconds
of tokenizing. app.py serves it beside the app (``st.App``), like the classroom's route
(ui/classroom/route.py).
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict

from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from ui.front.component import MAX_FRONT_CHARS, views_data
from ui.kit.route_limits import (
    NO_STORE,
    Gate,
    Refused,
    int_field,
    json_object,
    read_body,
    text_field,
)
from ui.kit.state import ROUTE_KEYS, route_heard, route_pair, route_rule

TOKENS_PATH = "/_bpelab/front/tokens"
# the body's JSON: the text is at most MAX_FRONT_CHARS characters, each at most 12 bytes as JSON
# ("\ud83d\ude00" is two escapes for one character), with room for the key
MAX_TOKENS_BODY = 12 * MAX_FRONT_CHARS + 1024
TOKENIZE_RATE = 20  # tokenizings a second per key: a typist's keys; a flood's are superseded
MAX_ASKS = 100  # questions a second per key (each costs reading at most MAX_TOKENS_BODY bytes)
TOKENIZE_GATE = Gate(slots=2, queue=ROUTE_KEYS)  # one waits per key at most, so the queue is keys


class _Key:
    __slots__ = ("running", "waiting", "next_at", "second", "asks")

    def __init__(self) -> None:
        self.running = False
        self.waiting: tuple[int, asyncio.Future] | None = None  # (seq, its turn)
        self.next_at = 0.0  # the event loop's clock: when this key may tokenize again
        self.second, self.asks = -1, 0


class Turns:
    """Whose text of one key is tokenized next: the running one, then the newest waiting."""

    def __init__(self, rate: float, max_asks: int, keys: int) -> None:
        self.every, self.max_asks, self.keys = 1.0 / rate, max_asks, keys
        self._keys: OrderedDict[str, _Key] = OrderedDict()

    def _entry(self, key: str) -> _Key:
        k = self._keys.get(key)
        if k is None:
            k = self._keys[key] = _Key()
            for old in list(self._keys)[: max(0, len(self._keys) - self.keys)]:
                if not self._keys[old].running and self._keys[old].waiting is None:
                    del self._keys[old]  # idle keys are forgotten first
        self._keys.move_to_end(key)
        return k

    def ask(self, key: str) -> None:
        """Count a question of ``key``: ``Refused`` 429 past ``max_asks`` in this second."""
        k = self._entry(key)
        second = int(asyncio.get_running_loop().time())
        if second != k.second:
            k.second, k.asks = second, 0
        k.asks += 1
        if k.asks > self.max_asks:
            raise Refused(429, f"more than {self.max_asks} questions a second from one page",
                          headers={"Retry-After": "1"})

    async def turn(self, key: str, seq: int) -> bool:
        """Wait for this text's turn: True when it is to be tokenized now, False when a newer
        text of the same key took its place (then ``done`` is not called)."""
        k = self._entry(key)
        loop = asyncio.get_running_loop()
        if not k.running and k.waiting is None and loop.time() >= k.next_at:
            k.running = True
            return True
        if k.waiting is not None:
            if seq < k.waiting[0]:
                return False  # an older text than the one waiting
            k.waiting[1].set_result(False)
        mine = loop.create_future()
        k.waiting = (seq, mine)
        if not k.running:
            loop.call_at(k.next_at, self._start, key)
        try:
            return await mine
        except asyncio.CancelledError:
            if mine.done() and not mine.cancelled() and mine.result():
                self.done(key)
            elif k.waiting is not None and k.waiting[1] is mine:
                k.waiting = None
            raise

    def done(self, key: str) -> None:
        """The key's tokenizing ended: the one waiting goes next, once the rate allows."""
        k = self._keys.get(key)
        if k is None:
            return
        loop = asyncio.get_running_loop()
        k.running = False
        k.next_at = loop.time() + self.every
        if k.waiting is not None:
            loop.call_at(k.next_at, self._start, key)

    def _start(self, key: str) -> None:
        k = self._keys.get(key)
        if k is None or k.running or k.waiting is None:
            return
        _, turn = k.waiting
        k.waiting = None
        k.running = True
        turn.set_result(True)


TURNS = Turns(TOKENIZE_RATE, MAX_ASKS, ROUTE_KEYS)


def _refused(status: int, **fields) -> JSONResponse:
    return JSONResponse({"views": None, **fields}, status_code=status, headers=NO_STORE)


async def front_tokens(request: Request) -> JSONResponse:
    try:
        told = json_object(await read_body(request, MAX_TOKENS_BODY))
        key, text = text_field(told, "key", 64), text_field(told, "text")
        seq, seed = int_field(told, "seq"), int_field(told, "seed")
    except Refused as e:
        return e.response(views=None)
    if route_pair(key) is None:
        return _refused(404)
    try:
        TURNS.ask(key)
    except Refused as e:
        return e.response(views=None)
    text = text[:MAX_FRONT_CHARS]
    route_heard(key, text, seq, seed)  # the newest text is the server's, whatever comes next
    if not await TURNS.turn(key, seq):
        return _refused(409, superseded=True)
    try:
        pair = route_pair(key)  # still there after the wait?
        if pair is None:
            return _refused(404)
        # in a worker thread (the gate bounds how many): tokenizing must not hold up the
        # server's event loop; special-token text read as the session's page reads it
        views = await TOKENIZE_GATE.run(views_data, *pair, text, None, None, route_rule(key))
    except Refused as e:
        return e.response(views=None)
    finally:
        TURNS.done(key)
    return JSONResponse({"views": views}, headers=NO_STORE)


FRONT_ROUTES = [Route(TOKENS_PATH, front_tokens, methods=["POST"])]
