"""Helpers shared by the test modules (fixtures live in conftest.py)."""

from __future__ import annotations

import inspect
import json.decoder
import os
import pydoc_data.topics
import re
import textwrap
from html.parser import HTMLParser
from pathlib import Path

from naive import naive_train_stream


def in_ci() -> bool:
    """True when the environment variable CI is true, 1 or yes (any case): the one test of "are we
    in CI" in the suite. There a test that cannot run fails instead of skipping."""
    return os.environ.get("CI", "").strip().lower() in ("true", "1", "yes")


CORPUS_CHARS = 24_000
CORPUS_VOCAB = 456  # 200 merges
KINDS = ("basic", "gpt2", "gpt4", "gpt4o")


def _prose() -> str:
    topics = pydoc_data.topics.topics
    return "\n\n".join(topics[key] for key in sorted(topics))[:CORPUS_CHARS]


def _code() -> str:
    return (inspect.getsource(textwrap) + inspect.getsource(json.decoder))[:CORPUS_CHARS]


CORPORA = {"prose": _prose(), "code": _code()}


def pattern_of(kind: str) -> str:
    """The core's split pattern for a tokenizer kind ("" for basic)."""
    import bpe_core

    return {
        "basic": "",
        "gpt2": bpe_core.GPT2_SPLIT_PATTERN,
        "gpt4": bpe_core.GPT4_SPLIT_PATTERN,
        "gpt4o": bpe_core.GPT4O_SPLIT_PATTERN,
    }[kind]


def new_tokenizer(kind: str):
    """A fresh, untrained tokenizer of the given kind."""
    import bpe_core

    if kind == "basic":
        return bpe_core.BasicTokenizer()
    return bpe_core.RegexTokenizer(pattern_of(kind))


def trained(kind: str, text: str, vocab_size: int):
    """A fresh tokenizer of the given kind trained on text."""
    tok = new_tokenizer(kind)
    tok.train(text, vocab_size)
    return tok


_naive_cache: dict = {}
_core_cache: dict = {}


def naive_corpus_result(kind: str, corpus: str):
    """(merges, counts, stream) of the naive reference on a corpus; computed once per session."""
    key = (kind, corpus)
    if key not in _naive_cache:
        _naive_cache[key] = naive_train_stream(CORPORA[corpus], CORPUS_VOCAB, pattern_of(kind))
    return _naive_cache[key]


def core_corpus_tokenizer(kind: str, corpus: str):
    """A core tokenizer trained on a corpus; shared, so callers must not modify it."""
    key = (kind, corpus)
    if key not in _core_cache:
        _core_cache[key] = trained(kind, CORPORA[corpus], CORPUS_VOCAB)
    return _core_cache[key]


def line_numbers_in(message: str) -> set[int]:
    """The line numbers a parse-error message names ("line 5", "line: 5", "file.model:5:")."""
    found = re.findall(r"\blines?\s*(?:no\.?|number)?\s*[:#]?\s*(\d+)", message, re.IGNORECASE)
    found += re.findall(r"\.model:(\d+)", message)
    return {int(n) for n in found}


APP_PATH = str(Path(__file__).resolve().parent.parent / "app.py")


def open_page(page: str | None = None, query: dict[str, str] | None = None):
    """The app in AppTest after its first run (the sidebar trains on the first sample), switched
    to ``page`` (e.g. "pages/tokens.py"); ``query`` is the address's query (``?room=...``);
    fails if either run raised."""
    from streamlit.testing.v1 import AppTest

    app = AppTest.from_file(APP_PATH, default_timeout=60)
    for key, value in (query or {}).items():
        app.query_params[key] = value
    app.run()
    assert not app.exception
    if page is not None:
        app.switch_page(page).run()
        assert not app.exception
    return app


def sentencepiece_as_the_app(folder: Path, text: str, vocab_size: int):
    """The ``sentencepiece`` package's BPE trainer run on ``text`` with the options the sidebar's
    SentencePiece family trains with (ui/kit/families.py: byte fallback, character coverage 1.0,
    runs of spaces kept; no normalization, every line used in order): its processor."""
    import sentencepiece as spm

    source = folder / "input.txt"
    source.write_text(text, encoding="utf-8")
    spm.SentencePieceTrainer.train(
        input=str(source), model_prefix=str(folder / "m"), vocab_size=vocab_size, model_type="bpe",
        character_coverage=1.0, normalization_rule_name="identity", byte_fallback=True,
        remove_extra_whitespaces=False, input_sentence_size=0, shuffle_input_sentence=False,
        num_threads=1, minloglevel=2)
    return spm.SentencePieceProcessor(model_file=str(folder / "m.model"))


# What a browser test's failed page showed: the app's state attributes and the start of its text.
PAGE_STATE_JS = """() => {
  const app = document.querySelector('[data-testid=stApp]');
  const attrs = app ? [...app.attributes].filter(a => a.name.startsWith('data-'))
    .map(a => a.name + '=' + a.value).join(' ') : 'no stApp';
  return location.href + ' | ' + attrs + ' | ' + document.body.innerText.slice(0, 600);
}"""


def metric_value(main, label: str):
    """A Playwright locator (sync or async API alike) for the number shown under ``label`` in
    ``main``: an ``st.metric``'s value, or one of the front page box's counts (ui/front/component.py draws
    them in its component, as the views follow every key)."""
    page = main.page
    streamlit = main.get_by_test_id("stMetric").filter(
        has=page.get_by_test_id("stMetricLabel").get_by_text(label, exact=True))
    front = main.locator(".bpe-type .stat").filter(
        has=page.locator(".name").get_by_text(label, exact=True))
    return streamlit.get_by_test_id("stMetricValue").or_(front.locator(".value"))


def front_box(at) -> dict:
    """What the front page hands its box component (ui/front/component.py) in an AppTest run: the text,
    the headings and both views (ids, labels, bytes)."""
    import json

    def walk(node):
        yield node
        for child in getattr(node, "children", {}).values():
            yield from walk(child)

    (box,) = [n for n in walk(at.main)
              if getattr(n.proto, "component_name", "") == "bpe_lab.type"]
    return json.loads(box.proto.json)


def front_counts(at) -> dict[str, str]:
    """The numbers the box draws over each view, worked out as its JavaScript does: the token
    count with thousands separators, and bytes per token to two places."""
    out = {}
    for which, prefix in (("yours", ""), ("gpt-4o", "GPT-4o ")):
        view = front_box(at)["views"][which]
        n = len(view["ids"])
        out[f"{prefix}tokens" if prefix else "Tokens"] = f"{n:,}"
        out[f"{prefix}bytes per token"] = f"{view['bytes'] / n:.2f}" if n else "–"
    return {k[0].upper() + k[1:]: v for k, v in out.items()}


# -- the app's HTML tables (ui.kit.tables.table_html), as a browser reads them -----------------------


class _Table(HTMLParser):
    """The header and body cells of an HTML table, as the browser would read them."""

    def __init__(self, markup: str):
        super().__init__()
        self.head, self.body, self._cell = [], [], None
        self.feed(markup)

    def handle_starttag(self, tag, attrs):
        if tag == "tr" and self.head:
            self.body.append([])
        if tag in ("th", "td"):
            self._cell = []

    def handle_data(self, data):
        if self._cell is not None:
            self._cell.append(data)

    def handle_endtag(self, tag):
        if tag in ("th", "td"):
            (self.head if tag == "th" else self.body[-1]).append("".join(self._cell))
            self._cell = None


def cell_number(cell: str):
    """ "100,261" -> 100261, "4.60" -> 4.6; other text as it is."""
    for kind in (int, float):
        try:
            return kind(cell.replace(",", ""))
        except ValueError:
            pass
    return cell


def html_table(app, first_header: str) -> list[dict]:
    """The rows of the page's HTML table whose first column is ``first_header``."""
    found = [_Table(h.value) for h in app.html if f"<th>{first_header}</th>" in h.value]
    assert len(found) == 1, f"one table of {first_header!r} expected, found {len(found)}"
    return [dict(zip(found[0].head, map(cell_number, r), strict=True)) for r in found[0].body]


def live_processes(field: str, value: int) -> list[int]:
    """The pids of the processes alive (not zombies) whose ``field`` in /proc/<pid>/stat is
    ``value``: "ppid" (the children of a process) or "session" (all a command started)."""
    index = {"ppid": 1, "session": 3}[field]  # after the name: state, ppid, pgrp, session
    alive = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[index]) == value and fields[0] != "Z":
            alive.append(int(entry))
    return alive


def llama_shaped_json(vocab: dict[str, int]):
    """A Llama-2-shaped ``tokenizers.Tokenizer`` (BPE with byte fallback, ``▁`` for a space
    through Prepend/Replace, ByteFallback/Fuse/Strip decoders), built by HF tokenizers from a
    SentencePiece model's pieces (``vocab``: piece -> id), as transformers' converter builds it."""
    from tokenizers import AddedToken, Tokenizer, decoders, models, normalizers
    from transformers.tokenization_utils_base import generate_merges

    tok = Tokenizer(models.BPE(vocab, generate_merges(vocab), unk_token="<unk>", fuse_unk=True,
                               byte_fallback=True))
    tok.normalizer = normalizers.Sequence([normalizers.Prepend("\u2581"),
                                           normalizers.Replace(" ", "\u2581")])
    tok.decoder = decoders.Sequence([decoders.Replace("\u2581", " "), decoders.ByteFallback(),
                                     decoders.Fuse(), decoders.Strip(" ", 1, 0)])
    tok.add_special_tokens([AddedToken(t, normalized=False, special=True)
                            for t in ("<unk>", "<s>", "</s>")])
    return tok


def _reload_script(source: dict, name: str, text: str) -> None:
    """(An AppTest script.) F5's server side for an imported file: the sidebar hands the tab the
    session's ``_import_source`` (``_keep_import``), and the next session reads what the tab
    gave back (``_restore_import``); the pieces of ``text`` under what came back."""
    import streamlit as st

    from ui.kit.family_tokens import family_pieces
    from ui.sidebar.panel import _keep_import, _restore_import

    ss = st.session_state
    ss["_import_source"], ss["imported"] = source, (None, name)
    lesson, data = {}, {}
    _keep_import(lesson, data, {})
    ss.clear()  # a new session
    ss["said"], back = _restore_import(lesson, data.get("import"))
    assert back
    ss["pieces"] = [(p.id, p.token) for p in family_pieces(ss["imported"][0], text)]


def after_reload(app, text: str) -> list:
    """The AppTest session's imported file, kept for a reload and read back (a new session):
    its pieces of ``text`` as ``(id, bytes)``."""
    from streamlit.testing.v1 import AppTest

    source, name = app.session_state["_import_source"], app.session_state["imported"][1]
    back = AppTest.from_function(_reload_script, args=(source, name, text),
                                 default_timeout=30).run()
    assert not back.exception and back.session_state["said"] == (
        f"The imported file {name} came back too.")
    return back.session_state["pieces"]


def live_workers(server: int | None = None) -> list[int]:
    """The pids of this process's worker processes that are running (not zombies): children
    started for untrusted work (bpe_core.limits.worker; other children, such as
    multiprocessing's resource tracker that an earlier test started, live on and are not
    counted). ``server``: a served app's pid instead, its workers found in its session."""
    def is_worker(pid: int) -> bool:
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                return b"bpe_core.limits.worker" in f.read()
        except OSError:
            return False
    found = live_processes("ppid", os.getpid()) if server is None else live_processes(
        "session", server)
    return [pid for pid in found if is_worker(pid)]


def random_words(chars: int, seed: int = 0) -> str:
    """Text where nothing repeats much (words of 1 to 9 letters drawn afresh): the costliest to
    train for SentencePiece and word BPE (benchmarks/family_training.py's ``distinct``)."""
    import random

    rng = random.Random(seed)
    words = " ".join("".join(rng.choices("abcdefghijklmnopqrstuvwxyzéü", k=rng.randint(1, 9)))
                     for _ in range(chars // 5 + 1))
    return "\n".join(words[i:i + 300] for i in range(0, len(words), 300))[:chars]
