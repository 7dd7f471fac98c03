"""Real Streamlit sessions held by a script, over the app's own WebSocket (``/_stcore/stream``),
as issue 44's "scripts that look like students" held them: no browser, Streamlit's protocol.

``HeldSession(base, query)`` connects, asks for a run with that query string (``room=CODE``: the
join link) and waits for it to finish; ``rerun()`` runs the page again with the address the app
last gave it (``room=…&member=…``), as a browser's reload or rerun does. It keeps what it was
sent: ``text()`` (every message's bytes, decoded leniently, to look for what the page said),
``refs`` (how many messages came as a reference to the browser's cache, ``ref_hash``: the cause
of "Cached ForwardMsg MISS"), and it tells the server, with each rerun, that it holds every
message hash it was sent (as a browser does with its cache). ``poll()`` asks the room route as
the page's watcher does (``member`` and ``claim`` read from what the page was sent; the route's
cookie kept like a browser's). ``close()`` closes the WebSocket: the session ends.
"""

from __future__ import annotations

import json
import re
import time
import urllib.error
import urllib.request
from urllib.parse import urlsplit

from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
from websockets.sync.client import connect

RUN_TIMEOUT = 90.0  # seconds for one run of the page on a crowded machine
_WATCH_URL = re.compile(rb"/_bpelab/rooms/([A-Z0-9]+)/version\?member=([A-Za-z0-9_-]{8,64})"
                        rb"&claim=([A-Za-z0-9_-]*)")


class HeldSession:
    """One Streamlit session held over a WebSocket (see the module's docstring)."""

    def __init__(self, base: str, query: str = "", cookie: str = ""):
        parts = urlsplit(base)
        self.base, self.query, self.cookie = base.rstrip("/"), query, cookie
        headers = {"Cookie": cookie} if cookie else None
        self.ws = connect(f"ws://{parts.netloc}/_stcore/stream", subprotocols=["streamlit"],
                          origin=f"{parts.scheme}://{parts.netloc}", additional_headers=headers,
                          open_timeout=RUN_TIMEOUT, max_size=None, max_queue=None)
        self.ws.__enter__()  # held until close(), not for a with-block (websockets asks for one)
        self.raw: list[bytes] = []
        self.hashes: set[str] = set()
        self.refs = 0
        self.closed = False
        self.rerun()

    def rerun(self, timeout: float = RUN_TIMEOUT) -> None:
        """One run of the whole page, as the browser asks for it; waits until it finished."""
        msg = BackMsg()
        msg.rerun_script.query_string = self.query
        msg.rerun_script.cached_message_hashes.extend(sorted(self.hashes))
        self.ws.send(msg.SerializeToString())
        deadline = time.monotonic() + timeout
        while True:
            data = self.ws.recv(timeout=max(0.1, deadline - time.monotonic()))
            self.raw.append(data)
            fm = ForwardMsg()
            fm.ParseFromString(data)
            if fm.ref_hash:
                self.refs += 1
            if fm.hash:
                self.hashes.add(fm.hash)
            kind = fm.WhichOneof("type")
            if kind == "page_info_changed":
                self.query = fm.page_info_changed.query_string
            elif kind == "script_finished" and fm.script_finished in (
                    ForwardMsg.FINISHED_SUCCESSFULLY, ForwardMsg.FINISHED_WITH_COMPILE_ERROR):
                return

    def text(self) -> str:
        return b"\n".join(self.raw).decode("utf-8", "replace")

    def watch(self) -> tuple[str, str, str] | None:
        """(code, member id, claim) as the page's watcher was last told them, or None."""
        found = None
        for data in self.raw:
            for m in _WATCH_URL.finditer(data):
                found = tuple(x.decode() for x in m.groups())
        return found

    def poll(self) -> int:
        """One poll of the room route, as the page's watcher asks; returns the HTTP status."""
        code, member, claim = self.watch()
        request = urllib.request.Request(
            f"{self.base}/_bpelab/rooms/{code}/version?member={member}&claim={claim}",
            headers={"Cookie": self.cookie} if self.cookie else {})
        try:
            with urllib.request.urlopen(request, timeout=30) as answer:
                status, headers = answer.status, answer.headers
                json.loads(answer.read())
        except urllib.error.HTTPError as e:
            status, headers = e.code, e.headers
        for value in headers.get_all("Set-Cookie") or []:
            self.cookie = value.split(";", 1)[0]
        return status

    def connected(self) -> bool:
        try:
            self.ws.ping().wait(5)
            return True
        except Exception:  # noqa: BLE001 - closed, or no answer
            return False

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            self.ws.close()
