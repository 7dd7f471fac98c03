"""The one cache of what a session derives from a tokenizer and a text (ui/kit/state.py ``derived``):
computed once per (kind, tokenizer, text), again for a new tokenizer or a new text, bounded."""

from __future__ import annotations

import pytest

import ui.kit.state as state
import ui.sidebar.panel as sidebar_panel
from bpe_core import BasicTokenizer


@pytest.fixture
def session(monkeypatch):
    """A plain dict as the session's state (what ``derived`` keeps lives there)."""
    ss: dict = {}
    monkeypatch.setattr(state.st, "session_state", ss)
    return ss


def counter():
    calls = []

    def make():
        calls.append(1)
        return object()

    return calls, make


def test_computed_once_per_tokenizer_and_text(session):
    calls, make = counter()
    mine = BasicTokenizer()
    first = state.derived("encoding", mine, "hello", make)
    assert state.derived("encoding", mine, "hello", make) is first and len(calls) == 1
    state.derived("encoding", mine, "other", make)  # a new text
    assert len(calls) == 2
    retrained = BasicTokenizer()  # the same page and label, a newly trained tokenizer
    state.derived("encoding", retrained, "other", make)
    assert len(calls) == 3
    state.derived("summary", mine, "hello", make)  # another kind of result
    assert len(calls) == 4


def test_several_tokenizers_own_an_entry_together(session):
    calls, make = counter()
    a, b = BasicTokenizer(), BasicTokenizer()
    state.derived("marks", (a, b), "text", make)
    state.derived("marks", (a, b), "text", make)
    assert len(calls) == 1
    state.derived("marks", (a, BasicTokenizer()), "text", make)
    assert len(calls) == 2


def test_the_cache_is_bounded_and_keeps_what_was_used_last(session):
    calls, make = counter()
    toks = [BasicTokenizer() for _ in range(state.DERIVED_SIZE + 5)]
    kept = state.derived("x", toks[0], "t", make)
    for tok in toks[1:]:
        state.derived("x", tok, "t", make)
        state.derived("x", toks[0], "t", make)  # used again and again: never the oldest
    assert len(session[state.DERIVED]) == state.DERIVED_SIZE
    assert state.derived("x", toks[0], "t", make) is kept
    before = len(calls)
    state.derived("x", toks[1], "t", make)  # long unused: evicted, computed again
    assert len(calls) == before + 1


def test_a_text_is_hashed_once_per_text_object(session, monkeypatch):
    hashed = []
    real = state.hashlib.sha256

    def counting(data):
        hashed.append(len(data))
        return real(data)

    monkeypatch.setattr(state.hashlib, "sha256", counting)
    text = "x" * 10_000
    tok = BasicTokenizer()
    for kind in ("steps", "counts", "summary"):
        state.derived(kind, tok, text, lambda: None)
    assert hashed == [10_000]


def _registrations(source: str) -> int:
    """How many functions of ``source`` are a component's registration kept once per server: a
    ``@st.cache_resource`` function whose body is ``return register...()`` (a component, no data)."""
    import ast

    found = 0
    for node in ast.walk(ast.parse(source)):
        if (isinstance(node, ast.FunctionDef)
                and [ast.unparse(d) for d in node.decorator_list] == ["st.cache_resource"]):
            body = [b for b in node.body if not (isinstance(b, ast.Expr)
                                                 and isinstance(b.value, ast.Constant))]
            if (len(body) == 1 and isinstance(body[0], ast.Return)
                    and isinstance(body[0].value, ast.Call) and not body[0].value.args
                    and ast.unparse(body[0].value.func).startswith("register")):
                found += 1
    return found


def test_no_page_or_helper_keeps_a_cache_of_its_own():
    """ui/kit/state.py is the one owner of kept data: no other module of pages/ or ui/ caches,
    but the sidebar's classroom room (a room's tokenizer, trained or read once per server for all
    its students) and the registration of a component once per server."""
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    owners = {"ui/kit/state.py", "ui/sidebar/panel.py"}
    idioms = ("cache_resource", "cache_data", "lru_cache", "functools.cache", "WeakKeyDictionary",
              "weakref", "setdefault(\"_")
    found = []
    for folder in ("pages", "ui"):
        for p in sorted((root / folder).rglob("*.py")):
            if str(p.relative_to(root)) in owners:
                continue
            source = p.read_text(encoding="utf-8")
            counts = {word: source.count(word) for word in idioms}
            counts["cache_resource"] -= _registrations(source)
            found += [f"{p.relative_to(root)}: {word}" for word, n in counts.items() if n]
    assert found == []


def test_the_sample_box_names_a_sample_only_while_the_text_is_that_sample(session, monkeypatch):
    monkeypatch.setattr(sidebar_panel, "samples", lambda: {"Prose": "Once upon a time",
                                                           "Code": "x = 1"})
    session.update(sample="Prose", text="Once upon a time, mine")  # the user edited it
    sidebar_panel._match_sample()
    assert session["sample"] is None and session["_keep_sample"] is None  # "Your own text"
    session["text"] = "x = 1"  # pasted exactly a sample's text: that sample again
    sidebar_panel._match_sample()
    assert session["sample"] == "Code" and session["_keep_sample"] == "Code"
    session.update(sample="Prose", text="Once upon a time")  # as picking "Prose" leaves it
    sidebar_panel._match_sample()
    assert session["sample"] == "Prose"
