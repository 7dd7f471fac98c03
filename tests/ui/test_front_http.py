"""The front page's route (ui/front/route.py): the box's two token views at every key.

The ids are checked against references: tiktoken's ``o200k_base`` for GPT-4o, and the trained
tokenizer's own ``encode`` (itself checked against the seeds' naive BPE elsewhere). What the
route must refuse, it refuses with a status the box understands (it then lets the page's script
draw), and a key is forgotten with its tokenizer.
"""

from __future__ import annotations

import asyncio
import gc
import json
from concurrent.futures import ThreadPoolExecutor

import pytest
from parity_corpus import tiktoken_reference
from starlette.requests import Request

import bpe_core
import ui.kit.state as state
from ui.front.component import MAX_FRONT_CHARS
from ui.front.route import FRONT_ROUTES, MAX_TOKENS_BODY, TOKENS_PATH, front_tokens
from ui.kit.state import route_key, route_pair, route_text

TEXT = "The cat sat on the mat.<|endoftext|> Tokens, tokens: 12345!\n"


@pytest.fixture(scope="module")
def gpt():
    return bpe_core.load_pretrained("o200k_base")


@pytest.fixture(autouse=True)
def session(monkeypatch):
    """A plain dict as the session's state (where the session's key lives)."""
    ss: dict = {}
    monkeypatch.setattr(state.st, "session_state", ss)
    return ss


@pytest.fixture
def mine():
    tok = bpe_core.RegexTokenizer(special_tokens={"<|endoftext|>": 300})
    tok.train("the cat sat on the mat, the cat sat on the hat. " * 20, 300)
    return tok


def ask(body: object) -> tuple[int, dict]:
    if isinstance(body, dict):  # a question as the box asks it, unless the test says otherwise
        body = {"seq": 1, "seed": 1, **body}
    raw = body if isinstance(body, bytes) else json.dumps(body).encode()
    scope = {"type": "http", "method": "POST", "path": TOKENS_PATH, "query_string": b"",
             "headers": [(b"content-length", str(len(raw)).encode())]}  # as a browser sends it

    async def receive():
        return {"type": "http.request", "body": raw, "more_body": False}

    # a thread of its own: an earlier test (Playwright's sync API) may leave an event loop running
    # in this one, where asyncio.run refuses to start
    with ThreadPoolExecutor(1) as pool:
        response = pool.submit(lambda: asyncio.run(front_tokens(Request(scope, receive)))).result()
    return response.status_code, json.loads(response.body)


def text_of(view: dict) -> str:
    return "".join("".join(part for _, part in view["labels"][str(i)][0]) for i in view["ids"])


def test_both_views_have_their_tokenizers_ids(mine, gpt, session):
    # the default rule: <|endoftext|> typed in the box is text (tiktoken's disallowed_special=())
    status, body = ask({"key": route_key(mine, gpt), "text": TEXT})
    assert status == 200
    yours, theirs = body["views"]["yours"], body["views"]["gpt-4o"]
    assert theirs["ids"] == tiktoken_reference("o200k_base").encode(TEXT, disallowed_special=())
    assert yours["ids"] == mine.encode(TEXT, disallowed_special=())
    assert 300 not in yours["ids"] and 199999 not in theirs["ids"]
    assert yours["note"] == theirs["note"] == (
        "special tokens read as text · <|endoftext|> appears 1 time; read as text")
    assert yours["bytes"] == theirs["bytes"] == len(TEXT.encode())
    assert text_of(yours) == text_of(theirs) == TEXT  # every byte drawn, nothing more


def test_the_route_reads_special_token_text_by_the_sessions_rule(mine, gpt, session):
    session["special_rule"] = "special"  # the sidebar's other choice, as the page last ran
    status, body = ask({"key": route_key(mine, gpt), "text": TEXT})
    assert status == 200
    yours, theirs = body["views"]["yours"], body["views"]["gpt-4o"]
    assert theirs["ids"] == tiktoken_reference("o200k_base").encode(TEXT, allowed_special="all")
    assert yours["ids"] == mine.encode(TEXT, allowed_special="all")
    assert 300 in yours["ids"] and 199999 in theirs["ids"]  # the special token, as one token
    assert yours["labels"]["300"][2] is True and yours["labels"][str(yours["ids"][0])][2] is False
    assert "read as the special token" in yours["note"]
    assert text_of(yours) == text_of(theirs) == TEXT


def test_a_sessions_key_stands_for_its_tokenizers_and_not_beyond_them(gpt, session):
    mine = bpe_core.RegexTokenizer()  # not the fixture's: pytest would keep that one alive
    mine.train("the cat sat on the mat", 260)
    key = route_key(mine, gpt)
    assert route_key(mine, gpt) == key and len(key) >= 20
    assert route_pair(key) == (mine, gpt)
    other = bpe_core.RegexTokenizer()  # the session retrains: the same key, the new tokenizer
    other.train("abcabcabc", 258)
    assert route_key(other, gpt) == key and route_pair(key) == (other, gpt)
    del other
    gc.collect()
    assert route_pair(key) is None  # the registry kept nothing alive
    assert ask({"key": key, "text": "hi"}) == (404, {"views": None})  # the box lets the page draw
    session.clear()  # another session gets another key
    assert route_key(mine, gpt) != key


def test_the_newest_text_asked_is_kept_for_the_session(mine, gpt):
    key = route_key(mine, gpt)
    for seq, text in ((5, "first"), (7, "first and more"), (6, "first and")):  # 6 comes late
        assert ask({"key": key, "text": text, "seq": seq, "seed": 2})[0] == 200
    assert route_text(key, 2) == (7, "first and more")
    assert route_text(key, 3) is None  # the box started again from a new sidebar text
    assert route_text("not a key", 2) is None


def test_what_the_route_refuses(mine, gpt):
    key = route_key(mine, gpt)
    assert ask({"key": "not a key", "text": "hi"})[0] == 404
    assert ask(b"{not json")[0] == 400
    assert ask({"key": key})[0] == 400
    assert ask({"key": key, "text": 3})[0] == 400
    assert ask({"key": key, "text": "hi", "seq": "1"})[0] == 400
    assert ask({"key": key, "text": "hi", "seq": True})[0] == 400
    assert ask(b"x" * (MAX_TOKENS_BODY + 1))[0] == 413


def test_the_longest_text_the_box_holds_is_answered_and_longer_is_cut(mine, gpt):
    key = route_key(mine, gpt)
    longest = "😀" * MAX_FRONT_CHARS  # the worst case for the body's size: two escapes each
    status, body = ask({"key": key, "text": longest})
    assert status == 200 and body["views"]["gpt-4o"]["bytes"] == 4 * MAX_FRONT_CHARS
    status, body = ask({"key": key, "text": "a" * (MAX_FRONT_CHARS + 10)})
    assert status == 200 and body["views"]["yours"]["bytes"] == MAX_FRONT_CHARS


def test_a_split_pattern_that_times_out_is_a_message_in_its_view(gpt):
    slow = bpe_core.Tokenizer("(a|aa)+$", timeout=0.05)  # backtracks without end on "aaa…!"
    status, body = ask({"key": route_key(slow, gpt), "text": ("a" * 40 + "!") * 50})
    assert status == 200
    assert "took longer than 0.05 s" in body["views"]["yours"]["error"]
    assert len(body["views"]["gpt-4o"]["ids"]) >= 1  # the other view is drawn all the same


def test_the_route_is_a_post_on_its_path():
    (route,) = FRONT_ROUTES
    assert route.path == "/_bpelab/front/tokens" and route.methods == {"POST"}


def test_one_key_tokenizes_one_text_at_a_time_and_the_newest_waiting_wins(mine, gpt):
    """Four questions of one key at once: the first is tokenized, the second and third wait in
    turn and are superseded (409) by the next, the fourth (the newest) is tokenized; a question
    older than the one waiting is superseded at once."""
    key = route_key(mine, gpt)

    async def together() -> list:
        def request(seq: int, text: str) -> Request:
            raw = json.dumps({"key": key, "text": text, "seq": seq, "seed": 1}).encode()
            scope = {"type": "http", "method": "POST", "path": TOKENS_PATH, "query_string": b"",
                     "headers": [(b"content-length", str(len(raw)).encode())]}

            async def receive():
                return {"type": "http.request", "body": raw, "more_body": False}

            return Request(scope, receive)

        asked = [(10, "one"), (11, "one two"), (12, "one two three"), (9, "late and old"),
                 (13, "one two three four")]
        tasks = []
        for seq, text in asked:  # each in order: the route sees them one after the other
            tasks.append(asyncio.ensure_future(front_tokens(request(seq, text))))
            await asyncio.sleep(0)
            await asyncio.sleep(0)
        return [await t for t in tasks]

    with ThreadPoolExecutor(1) as pool:
        answers = pool.submit(lambda: asyncio.run(together())).result()
    said = [(r.status_code, json.loads(r.body)) for r in answers]
    assert [s for s, _ in said] == [200, 409, 409, 409, 200]
    assert said[1][1] == {"views": None, "superseded": True}
    assert said[0][1]["views"]["gpt-4o"]["ids"] == tiktoken_reference("o200k_base").encode("one")
    assert said[4][1]["views"]["yours"]["ids"] == mine.encode("one two three four")
    assert route_text(key, 1) == (13, "one two three four")
