"""Members are people, not joins (issue 44): a page that closes stops counting within the join
grace, on the server that held its Streamlit session. No Streamlit here but its runtime's
"is this session connected" (through ui/classroom/route.py).

Each app server runs one small thread (started by the first member page it holds): every
SWEEP_S seconds it asks which of the member sessions it holds are no longer connected
(``route.closed_members``) and tells the room (``Rooms.page_closed``): such a member counts
only for JOIN_GRACE after its last check-in, as one whose browser never polled. A reload
comes back as the same member (a new session, held anew).
"""

from __future__ import annotations

import threading
import time

from ui.classroom import route
from ui.classroom.rooms import RoomError, shared_rooms

SWEEP_S = 1.0

_started = threading.Event()
_start_lock = threading.Lock()


def sweep_once() -> int:
    """Tell the rooms of every member page here that closed; returns how many."""
    closed = route.closed_members()
    rooms = shared_rooms()
    for member, code in closed:
        if code:
            try:
                rooms.page_closed(code, member)
            except RoomError:  # the store did not answer: the member times out by itself
                pass
    return len(closed)


def _loop() -> None:
    while True:
        time.sleep(SWEEP_S)
        try:
            sweep_once()
        except Exception:  # noqa: BLE001 - the sweeper must outlive any one failure
            pass


def start_sweeper() -> None:
    """Start this server's sweeper once (a daemon thread)."""
    if _started.is_set():
        return
    with _start_lock:
        if not _started.is_set():
            threading.Thread(target=_loop, name="bpelab-room-liveness", daemon=True).start()
            _started.set()
