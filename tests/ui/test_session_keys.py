"""The session's keys are declared in one place (ui/kit/session_keys.py): the pages and helpers use no
key that is not listed there, and every key listed there is used."""

from __future__ import annotations

import re
from pathlib import Path

from ui.kit.session_keys import SESSION_KEYS

ROOT = Path(__file__).resolve().parents[2]
SOURCES = [p for folder in ("pages", "ui") for p in sorted((ROOT / folder).rglob("*.py"))
           if p.name != "session_keys.py"]
USED = re.compile(r"""(?:\bkey=|\b(?:ss|session_state)(?:\.get\(|\.pop\(|\.setdefault\(|\[))"([a-z_]+)\"""")


def test_every_key_the_code_uses_is_declared():
    used = {(p.name, k) for p in SOURCES for k in USED.findall(p.read_text(encoding="utf-8"))}
    assert len(used) > 80  # the scan sees the pages' widgets
    undeclared = sorted((name, k) for name, k in used if k not in SESSION_KEYS)
    assert undeclared == []


def test_every_declared_key_is_used():
    # session_keys.py uses one key itself (the sidebar's mirror prefix): its code counts, the
    # declarations do not
    own = (ROOT / "ui" / "kit" / "session_keys.py").read_text(encoding="utf-8")
    own = own[:own.index("SESSION_KEYS: dict")]
    code = "\n".join([own] + [p.read_text(encoding="utf-8") for p in SOURCES])
    unused = [k for k in SESSION_KEYS if f'"{k}' not in code]
    assert unused == []
