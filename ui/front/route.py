"""The front page's one HTTP route: the box's tokens at every key, without running a script.

``POST /_bpelab/front/tokens`` with ``{"key": K, "text": T, "seq": N, "seed": S}`` (JSON) answers
``{"views": {"yours": ..., "gpt-4o": ...}}`` (``ui.front.component.views_data``): the text under the
session's tokenizer and GPT-4o, special-token text read by the session's rule as its page last
ran (``route_rule``, ``ui.kit.special_rule``). The key is what ``ui.kit.state.route_key`` gave the
session's page (128 random bits, handed only to that page); it stands for the session's tokenizer
and GPT-4o, held weakly. The text is also kept as the session's newest (``route_heard``; ``seq`` numbers the
box's texts, ``seed`` names the text it started from): the box asks at every key, so the page's
next run shows what was typed even if the learner left the page before the box told the script.

404 for a key it does not know, or whose tokenizer is gone (a restarted server, a retrained
tokenizer: the box then lets the page's script draw), 400 for anything malformed, 413 for a body
over ``MAX_TOKENS_BODY``.

Why a route: a Streamlit rerun, even of one fragment, is a round trip through the script runner
that cost 150 to 200 ms per key here (measured in Chromium); this answers in a few milliseconds
of tokenizing. app.py serves it beside the app (``st.App``), like the classroom's route
(ui/classroom/route.py).
"""

from __future__ import annotations

import json

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from ui.classroom.route import NO_STORE  # an answer cached by the browser would freeze the view
from ui.front.component import MAX_FRONT_CHARS, views_data
from ui.kit.state import route_heard, route_pair, route_rule

TOKENS_PATH = "/_bpelab/front/tokens"
# the body's JSON: the text is at most MAX_FRONT_CHARS characters, each at most 12 bytes as JSON
# ("\ud83d\ude00" is two escapes for one character), with room for the key
MAX_TOKENS_BODY = 12 * MAX_FRONT_CHARS + 1024


async def front_tokens(request: Request) -> JSONResponse:
    body = await request.body()
    if len(body) > MAX_TOKENS_BODY:
        return JSONResponse({"views": None}, status_code=413, headers=NO_STORE)
    try:
        told = json.loads(body)
        key, text, seq, seed = told["key"], told["text"], told["seq"], told["seed"]
        if not (isinstance(key, str) and isinstance(text, str)
                and all(type(n) is int for n in (seq, seed))):
            raise TypeError
    except (ValueError, TypeError, KeyError):
        return JSONResponse({"views": None}, status_code=400, headers=NO_STORE)
    pair = route_pair(key)
    if pair is None:
        return JSONResponse({"views": None}, status_code=404, headers=NO_STORE)
    text = text[:MAX_FRONT_CHARS]
    route_heard(key, text, seq, seed)  # the newest text is the server's, whatever comes next
    # in a thread: tokenizing must not hold up the server's event loop
    # special-token text read as the session's page reads it (ui.kit.special_rule)
    views = await run_in_threadpool(views_data, *pair, text, None, None, route_rule(key))
    return JSONResponse({"views": views}, headers=NO_STORE)


FRONT_ROUTES = [Route(TOKENS_PATH, front_tokens, methods=["POST"])]
