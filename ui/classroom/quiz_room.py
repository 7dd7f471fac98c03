"""The class quiz's questions in a room: start, reveal, stop (a part of ``Rooms``,
ui/classroom/rooms.py, which inherits it; the answers and their tally are there, with the members).
No Streamlit here."""

from __future__ import annotations

import json
from typing import Any

from ui.classroom.store import RoomError


class QuizMixin:
    """The teacher's quiz operations; ``Rooms`` provides ``kv``, ``ttl``, ``_key``,
    ``_check_teacher``, ``_bump`` and ``quiz``."""

    kv: Any
    ttl: int

    def start_quiz(self, code: str, token: str, k: int, tab: str | None = None) -> dict[str, Any]:
        """Ask the class for merge ``k + 1`` (answers to earlier questions are dropped)."""
        self._check_teacher(code, token, tab)
        if isinstance(k, bool) or not isinstance(k, int) or k < 0:
            raise RoomError("The quiz step must be a whole number.")
        old = self.quiz(code)
        quiz = {"id": (old["id"] + 1) if old else 1, "k": k, "revealed": False}
        if old:
            self.kv.delete(self._key(code, f"answers:{old['id']}"))
        self.kv.set(self._key(code, "quiz"), json.dumps(quiz), ex=self.ttl)
        self._bump(code)
        return quiz

    def reveal_quiz(self, code: str, token: str, tab: str | None = None) -> dict[str, Any]:
        self._check_teacher(code, token, tab)
        quiz = self.quiz(code)
        if quiz is None:
            raise RoomError("No quiz is running in this room.")
        quiz["revealed"] = True
        self.kv.set(self._key(code, "quiz"), json.dumps(quiz), ex=self.ttl)
        self._bump(code)
        return quiz

    def stop_quiz(self, code: str, token: str, tab: str | None = None) -> None:
        self._check_teacher(code, token, tab)
        quiz = self.quiz(code)
        self.kv.delete(self._key(code, "quiz"),
                       *([self._key(code, f"answers:{quiz['id']}")] if quiz else []))
        self._bump(code)
