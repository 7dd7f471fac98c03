"""The bpe-lab sidecar: what a saved file cannot hold, in a small JSON file beside it.

tiktoken ranks hold neither the split pattern nor the special tokens; GPT-2's ``vocab.json`` +
``merges.txt`` hold no split pattern; no format holds the training history ("why this merge").
So the save methods write, beside the file they save, ``<file>.bpe-lab.json``::

    {"bpe_lab": "sidecar v2",
     "checksum": "sha256:…",               <- of the sidecar's own content (below)
     "format": "tiktoken",                 <- minbpe, hf, tiktoken or gpt2
     "files": {"file": {"sha256": "…", "bytes": 4711}},   <- gpt2: "vocab" and "merges"
     "kind": "regex",                      <- basic, regex or pipeline (a tokenizer.json's)
     "pattern": "…", "special_tokens": {"<|endoftext|>": 300},
     "bpe_core_pattern": "…",              <- tiktoken: "pattern" is tiktoken's spelling (pat_str;
                                              [\\s\\S]+ for a BasicTokenizer), this bpe_core's
     "patterns": {"regex": "…", "oniguruma": "…", "tiktoken": "…"},   <- tiktoken and gpt2: the
                                              pattern in each engine's own spelling (Hugging
                                              Face's Split reads "oniguruma")
     "vocab_size": 301,
     "history": [{"pair": [98, 32], "id": 256, "count": 3,
                  "candidates": [{"pair": [98, 32], "count": 3, "first": 0}, …]}, …]}

``history`` is there only when the tokenizer has one; ``variant`` only for SuperBPE, BoundlessBPE
and parity-aware tokenizers (variant_files.py: what makes them the variant, so that ``load``
gives them back as themselves). The sidecar of a GPT-2 pair sits beside the
``vocab.json`` (``vocab.json.bpe-lab.json``). tiktoken and GPT-2 files always get one; a ``.model``
or a ``tokenizer.json`` (which hold the pattern and the special tokens) get one only when there
is a history or a variant to keep, and a stale sidecar of the same name is removed.

``bpe_core.load`` reads the sidecar found beside the file and checks that it describes that very
file (its SHA-256); a sidecar written for another file is refused, naming what differs.

The sidecar covers itself too: ``checksum`` is the SHA-256 of the rest of its content (every key
but ``checksum``, as canonical JSON: sorted keys, no spaces, ASCII), so a sidecar edited by hand
or by a tool is refused (reformatting it is not an edit). It guards against silent edits, not
against a forger, who can compute it again: what the files state is cross-checked as well
(files.py). A "sidecar v1" (written before the checksum) is refused: it cannot be told apart
from an edited one; saving the tokenizer again writes a v2.
"""

from __future__ import annotations

import hashlib
import json
import os
from typing import Any, NamedTuple

from .limits import MAX_SIDECAR_BYTES, check_json_depth
from .pipeline import to_oniguruma, to_tiktoken_pattern
from .text import id_problem, shorten
from .training import Candidate, MergeRecord

SIDECAR_SUFFIX = ".bpe-lab.json"
SIDECAR_HEADER = "sidecar v2"
OLD_SIDECAR_HEADERS = ("sidecar v1",)  # without a checksum of their own: refused
CHECKSUM_KEY = "checksum"
SIDECAR_FORMATS = ("minbpe", "hf", "tiktoken", "gpt2")
SIDECAR_KINDS = ("basic", "regex", "pipeline")


def sidecar_path(path: str | os.PathLike) -> str:
    """Where the sidecar of the file at ``path`` lives: ``path + ".bpe-lab.json"``."""
    return os.fspath(path) + SIDECAR_SUFFIX


def is_sidecar(data: bytes) -> bool:
    """Whether ``data`` is a bpe-lab sidecar (a JSON object whose ``bpe_lab`` key says so)."""
    head = data[:200].lstrip(b"\xef\xbb\xbf \t\r\n")
    return head.startswith(b"{") and b'"bpe_lab"' in head


def tokenizer_kind(tok: Any) -> str:
    """``basic``, ``regex`` or ``pipeline`` (a tokenizer.json that does more than split)."""
    if tok.pipeline is not None:
        return "pipeline"
    return "regex" if tok.pattern else "basic"


def _describe(data: bytes) -> dict[str, Any]:
    return {"sha256": hashlib.sha256(data).hexdigest(), "bytes": len(data)}


def history_json(history: list[MergeRecord]) -> list[dict[str, Any]]:
    """The training history as JSON-ready data (the token's bytes are left out: the merges
    spell them)."""
    return [
        {"pair": list(r.pair), "id": r.id, "count": r.count,
         **({"candidates": [{"pair": list(c.pair), "count": c.count, "first": c.first}
                            for c in r.candidates]} if r.candidates else {})}
        for r in history
    ]


def pattern_spellings(pattern: str) -> dict[str, str]:
    """The split pattern for each engine that reads these files, spelled so that it means there
    what it means here: ``regex`` (Python's regex package: bpe_core, transformers' slow GPT-2
    tokenizer), ``oniguruma`` (Hugging Face tokenizers' Split), ``tiktoken`` (tiktoken's
    ``pat_str``, Rust's fancy-regex). An engine that cannot mean the same is left out."""
    out = {"regex": pattern}
    for engine, spell in (("oniguruma", to_oniguruma), ("tiktoken", to_tiktoken_pattern)):
        try:
            out[engine] = spell(pattern)
        except ValueError:
            pass
    return out


def variant_json(tok: Any) -> dict[str, Any] | None:
    """The sidecar's ``"variant"`` entry of ``tok``, or None for a tokenizer of no variant."""
    name = getattr(tok, "variant", None)
    if name in ("superbpe", "boundless"):
        out = {"name": name, "stage_one_pattern": tok.stage_one_pattern,
               "transition": tok.transition}
        if name == "superbpe":
            out.update(asked_transition=tok.asked_transition, stage_two=tok.stage_two)
        else:
            out.update(phase_one_merges=tok.phase_one_merges, asked_merges=tok.asked_merges,
                       stopping=tok.stopping)
        return out
    if name == "parity":
        return {"name": name, "languages": list(tok.languages), "served": list(tok.served)}
    return None


def content_checksum(document: dict[str, Any]) -> str:
    """``"sha256:…"`` of a sidecar's content: every key but ``checksum``, as canonical JSON."""
    rest = {key: value for key, value in document.items() if key != CHECKSUM_KEY}
    canonical = json.dumps(rest, sort_keys=True, ensure_ascii=True, separators=(",", ":"))
    return "sha256:" + hashlib.sha256(canonical.encode("ascii")).hexdigest()


def make_sidecar(tok: Any, fmt: str, files: dict[str, bytes]) -> bytes:
    """The sidecar of ``tok`` saved as ``fmt`` in ``files`` (role -> the bytes written:
    ``{"file": …}``, or ``{"vocab": …, "merges": …}`` for GPT-2)."""
    history = history_json(tok.history) if tok.history else None
    document: dict[str, Any] = {
        "bpe_lab": SIDECAR_HEADER,
        CHECKSUM_KEY: "",
        "format": fmt,
        "files": {role: _describe(data) for role, data in files.items()},
        "kind": tokenizer_kind(tok),
        "pattern": tok.pattern,
        "special_tokens": dict(tok.special_tokens),
        "vocab_size": tok.vocab_size,
    }
    if fmt in ("tiktoken", "gpt2") and tok.pattern:  # the pattern in each engine's spelling
        document["patterns"] = pattern_spellings(tok.pattern)
    variant = variant_json(tok)
    if variant is not None:  # what makes it SuperBPE, BoundlessBPE or parity-aware (variant_files)
        document["variant"] = variant
    if fmt == "tiktoken":  # the pattern as tiktoken.Encoding takes it (pat_str); bpe_core's own
        try:               # spelling beside it, when it differs, for bpe_core.load
            spelled = to_tiktoken_pattern(tok.pattern)
        except ValueError:
            spelled = tok.pattern  # tiktoken cannot read this one either way (save_tiktoken says)
        if spelled != tok.pattern:
            document["pattern"], document["bpe_core_pattern"] = spelled, tok.pattern
    document[CHECKSUM_KEY] = content_checksum({**document, **({"history": history} if history else {})})
    text = json.dumps(document, ensure_ascii=False, indent=1)
    if history:  # one merge a line: a long history stays readable and small
        records = ",\n  ".join(json.dumps(r, ensure_ascii=False, separators=(",", ":"))
                                for r in history)
        text = text[:-2] + f',\n "history": [\n  {records}\n ]\n}}'
    return (text + "\n").encode("utf-8")


class Sidecar(NamedTuple):
    """A sidecar, read and checked for shape (``read_sidecar``)."""

    name: str
    format: str
    files: dict[str, dict[str, Any]]
    kind: str
    pattern: str
    special_tokens: dict[str, int]
    vocab_size: int
    history: list[dict[str, Any]] | None
    variant: dict[str, Any] | None = None  # a research variant's own facts (variant_files.py)

    def check_files(self, files: dict[str, tuple[str, bytes]]) -> None:
        """ValueError unless ``files`` (role -> (name, bytes)) are the files this sidecar was
        written for, byte for byte."""
        for role, (file_name, data) in files.items():
            expected = self.files.get(role)
            if expected is None:
                raise ValueError(f"{self.name} describes a {self.format} file, not"
                                 f" {file_name}; load the file it was written for")
            if hashlib.sha256(data).hexdigest() != expected.get("sha256"):
                raise ValueError(
                    f"{self.name} was written for another file than {file_name}: it describes"
                    f" {expected.get('bytes', '?'):,} bytes with another SHA-256 (this file has"
                    f" {len(data):,} bytes; the sidecar's tokenizer has {self.vocab_size:,}"
                    " tokens). The file was changed after it was saved: save it again, or"
                    " delete the sidecar and pass pattern= and special_tokens= yourself"
                )

    def records(self, tok: Any) -> list[MergeRecord]:
        """The history as ``MergeRecord``s of ``tok`` (the loaded tokenizer); ValueError when a
        record is not one of its merges."""
        out = []
        for k, entry in enumerate(self.history or []):
            where = f"{self.name}: key 'history[{k}]'"
            pair, idx = _pair(entry.get("pair"), where + ".pair"), entry.get("id")
            if pair not in tok.merges or tok.merges[pair] != idx:  # (a missing id is no merge)
                raise ValueError(f"{where}: the merge {list(pair)} -> {shorten(idx)} is not one"
                                 " of the file's merges (is the sidecar from another tokenizer?)")
            candidates = []
            for j, c in enumerate(entry.get("candidates") or []):
                cwhere = f"{where}.candidates[{j}]"
                if not isinstance(c, dict):
                    raise ValueError(f"{cwhere} should be an object")
                candidates.append(Candidate(_pair(c.get("pair"), cwhere + ".pair"),
                                            _count(c.get("count"), cwhere + ".count"),
                                            _count(c.get("first"), cwhere + ".first")))
            out.append(MergeRecord(pair, idx, tok.vocab[idx],
                                   _count(entry.get("count"), where + ".count"),
                                   tuple(candidates)))
        return out


def _pair(value: object, where: str) -> tuple[int, int]:
    if not (isinstance(value, list) and len(value) == 2
            and all(not id_problem(v) for v in value)):
        raise ValueError(f"{where} should be two token ids such as [97, 98], found"
                         f" {shorten(value)}")
    return (value[0], value[1])


def _count(value: object, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError(f"{where} should be a whole number >= 0, found {shorten(value)}")
    return value


def read_sidecar(data: bytes, name: str) -> Sidecar:
    """A sidecar's bytes, checked for shape; any problem is a ValueError naming the key."""
    if len(data) > MAX_SIDECAR_BYTES:
        raise ValueError(f"{name}: {len(data):,} bytes is too large for a bpe-lab sidecar")
    try:
        text = data.decode("utf-8-sig")
        check_json_depth(text, name)
        document = json.loads(text)
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as e:
        raise ValueError(f"{name}: not a readable bpe-lab sidecar (not UTF-8 JSON: {e})") from None
    if isinstance(document, dict) and document.get("bpe_lab") in OLD_SIDECAR_HEADERS:
        raise ValueError(f"{name} is a {document['bpe_lab']}, written before sidecars carried a"
                         " checksum of their own content, so an edit to it cannot be told apart;"
                         " save the tokenizer again (it writes a checked sidecar), or delete the"
                         " sidecar and pass pattern= and special_tokens= yourself")
    if not isinstance(document, dict) or document.get("bpe_lab") != SIDECAR_HEADER:
        raise ValueError(f"{name}: not a bpe-lab sidecar (expected \"bpe_lab\":"
                         f" \"{SIDECAR_HEADER}\")")
    if document.get(CHECKSUM_KEY) != content_checksum(document):
        raise ValueError(f"{name} was changed after bpe-lab wrote it: its key '{CHECKSUM_KEY}'"
                         " does not match its content. Save the tokenizer again, or delete the"
                         " sidecar and pass pattern= and special_tokens= yourself")

    def field(key: str, kind: type | tuple, choices: tuple = ()) -> Any:
        value = document.get(key)
        if not isinstance(value, kind) or isinstance(value, bool) or (choices and value not in choices):
            expected = f"one of {', '.join(choices)}" if choices else f"a {getattr(kind, '__name__', 'value')}"
            raise ValueError(f"{name}: key '{key}' should be {expected}, found {shorten(value)}")
        return value

    fmt = field("format", str, SIDECAR_FORMATS)
    files = field("files", dict)
    for role, entry in files.items():
        if not (isinstance(entry, dict) and isinstance(entry.get("sha256"), str)):
            raise ValueError(f"{name}: key 'files.{role}' should hold the file's sha256")
    kind = field("kind", str, SIDECAR_KINDS)
    pattern = field("pattern", str)
    if "bpe_core_pattern" in document:  # "pattern" is then tiktoken's spelling of it
        pattern = field("bpe_core_pattern", str)
    specials = field("special_tokens", dict)
    for s, idx in specials.items():
        if id_problem(idx):
            raise ValueError(f"{name}: key 'special_tokens.{shorten(s)}' {id_problem(idx)}")
    vocab_size = field("vocab_size", int)
    history = document.get("history")
    if history is not None and not (isinstance(history, list)
                                    and all(isinstance(r, dict) for r in history)):
        raise ValueError(f"{name}: key 'history' should be a list of merge records")
    variant = document.get("variant")
    if variant is not None and not isinstance(variant, dict):
        raise ValueError(f"{name}: key 'variant' should be an object, found {shorten(variant)}")
    return Sidecar(name, fmt, files, kind, pattern, specials, vocab_size, history, variant)


def write_atomic(path: str | os.PathLike, data: bytes) -> None:
    """Write ``data`` to ``path`` through a temporary file and a rename, so that a file that
    looks complete is complete."""
    path = os.fspath(path)
    temporary = f"{path}.tmp-{os.getpid()}"
    try:
        with open(temporary, "wb") as f:
            f.write(data)
        os.replace(temporary, path)
    finally:
        if os.path.exists(temporary):
            os.remove(temporary)


def write_with_sidecar(fmt: str, tok: Any, files: dict[str, tuple[str, bytes]],
                       *, needed: bool) -> None:
    """Write ``files`` (role -> (path, bytes)) and their sidecar beside the first one.

    ``needed``: the format cannot hold the pattern or special tokens (tiktoken, GPT-2). Else a
    sidecar is written only for a history or a research variant, and a stale one is removed. The sidecar goes first:
    a save cut short leaves files that ``load`` refuses (the sidecar describes other bytes),
    never files that load without what the sidecar would have said.
    """
    first = sidecar_path(next(iter(files.values()))[0])
    if needed or tok.history or variant_json(tok) is not None:
        write_atomic(first, make_sidecar(tok, fmt, {r: d for r, (_, d) in files.items()}))
    elif os.path.exists(first):
        os.remove(first)
    for path, data in files.values():
        write_atomic(path, data)
