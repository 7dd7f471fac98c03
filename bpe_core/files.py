"""Saving and loading tokenizers: minbpe's ``.model`` and ``.vocab`` files.

A ``.model`` file (minbpe's format; the seeds write ``bpe v1`` as the first line instead)::

    minbpe v1                 <- version
    <split pattern>           <- empty line for BasicTokenizer
    1                         <- number of special tokens
    <|endoftext|> 100257      <- one "token id" line per special token
    101 32                    <- one merge per line: the pair that became id 256, 257, ...

The ``.vocab`` file is for people: ``[e][ ] -> [e ] 256`` per merged token, ``[a] 97`` per byte.
"""

from __future__ import annotations

import json
import os
from typing import TYPE_CHECKING

import regex

from .base import id_problem, parse_id, shorten

if TYPE_CHECKING:
    from .base import Tokenizer

MODEL_HEADERS = ("minbpe v1", "bpe v1")
MAX_MODEL_BYTES = 64 * 1024 * 1024  # a GPT-4-sized model file is about 1.5 MB
MAX_TOKEN_BYTES = 4 * 1024 * 1024  # merges may double a token per line: 40 lines would be 1 TB


def save_minbpe(tok: Tokenizer, file_prefix: str | os.PathLike) -> None:
    """Write ``<prefix>.model`` and ``<prefix>.vocab`` as minbpe does."""
    model_text, vocab_text = to_minbpe(tok)
    prefix = os.fspath(file_prefix)
    with open(prefix + ".model", "w", encoding="utf-8", newline="\n") as f:
        f.write(model_text)
    with open(prefix + ".vocab", "w", encoding="utf-8", newline="\n") as f:
        f.write(vocab_text)


def to_minbpe(tok: Tokenizer) -> tuple[str, str]:
    """The text of the ``.model`` and ``.vocab`` files (see the top of this module)."""
    from .base import render_token

    if any(ch in tok.pattern for ch in "\r\n"):
        raise ValueError(
            "this split pattern contains a raw line break, which a .model file cannot hold;"
            r" write it as \n or \r inside the pattern instead"
        )
    expected = range(256, 256 + len(tok.merges))
    if tok.byte_ids is not None or list(tok.merges.values()) != list(expected):
        raise ValueError(
            "a .model file can only hold merges that made ids 256, 257, ... in order;"
            " save this tokenizer in another format"
        )
    lines = ["minbpe v1", tok.pattern, str(len(tok.special_tokens))]
    lines += [f"{special} {idx}" for special, idx in tok.special_tokens.items()]
    lines += [f"{a} {b}" for a, b in tok.merges]
    model_text = "\n".join(lines) + "\n"

    listing = []
    for idx, token in tok.vocab.items():
        s = render_token(token)
        if idx in tok.parents:
            a, b = tok.parents[idx]
            listing.append(f"[{render_token(tok.vocab[a])}][{render_token(tok.vocab[b])}] -> [{s}] {idx}\n")
        else:
            listing.append(f"[{s}] {idx}\n")
    return model_text, "".join(listing)


def parse_minbpe(text: str, name: str = "model file") -> tuple[str, dict[str, int], list[tuple[int, int]]]:
    """Read a ``.model`` file's text: ``(pattern, special tokens, merges in order)``.

    Any problem is a ValueError naming the file, the line and what was expected.
    """
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()  # the file's final newline

    def fail(lineno: int, message: str) -> ValueError:
        return ValueError(f"{name}, line {lineno}: {message}")

    def line(lineno: int, what: str) -> str:
        if lineno > len(lines):
            raise fail(lineno, f"the file ends early; expected {what}")
        return lines[lineno - 1].rstrip("\r")

    header = line(1, "the version line 'minbpe v1'").strip()
    if header not in MODEL_HEADERS:
        raise fail(1, f"expected 'minbpe v1' (or the seeds' 'bpe v1'), found {header[:40]!r}")
    pattern = line(2, "the split pattern (an empty line for no split)")
    count_line = line(3, "the number of special tokens").strip()
    if not count_line.isdigit() or not count_line.isascii():
        raise fail(3, f"expected the number of special tokens, found {count_line[:40]!r}")
    num_special = int(count_line)
    if num_special > len(lines):
        raise fail(3, f"says {num_special} special tokens, but the file has only {len(lines)} lines")

    special_tokens: dict[str, int] = {}
    for lineno in range(4, 4 + num_special):
        entry = line(lineno, "a special token line 'token id'")
        special, _, idx = entry.rpartition(" ")
        if not special or not idx.isdigit() or not idx.isascii():
            raise fail(lineno, f"expected a special token line 'token id', found {entry[:60]!r}")
        if special in special_tokens:
            raise fail(lineno, f"special token {shorten(special)} appears twice")
        value = parse_id(idx)
        if id_problem(value):
            raise fail(lineno, f"the id of special token {shorten(special)} {id_problem(value)}")
        special_tokens[special] = value

    merges: list[tuple[int, int]] = []
    seen: set[tuple[int, int]] = set()
    length = [1] * 256  # bytes of each token so far
    for lineno in range(4 + num_special, len(lines) + 1):
        fields = line(lineno, "a merge").split()
        if len(fields) != 2 or not all(f.isdigit() and f.isascii() and len(f) <= 10 for f in fields):
            raise fail(
                lineno, f"expected a merge: two token ids such as '101 32', found {lines[lineno - 1][:60]!r}"
            )
        a, b = int(fields[0]), int(fields[1])
        new_id = 256 + len(merges)
        if a >= new_id or b >= new_id:
            raise fail(
                lineno,
                f"merge '{a} {b}' makes token {new_id} but uses token {max(a, b)}, which does"
                " not exist yet (merges may only use bytes 0..255 and earlier merges)",
            )
        if (a, b) in seen:
            raise fail(lineno, f"the merge '{a} {b}' appears twice")
        length.append(length[a] + length[b])
        if length[-1] > MAX_TOKEN_BYTES:
            raise fail(lineno, f"the merge '{a} {b}' makes a token of {length[-1]:,} bytes; this"
                       f" tool reads tokens of at most {MAX_TOKEN_BYTES:,} bytes")
        seen.add((a, b))
        merges.append((a, b))
    return pattern, special_tokens, merges


def _read(path: str | os.PathLike) -> bytes:
    name = os.fspath(path)
    try:
        size = os.path.getsize(name)
        if size > MAX_MODEL_BYTES:
            raise ValueError(f"{name}: {size:,} bytes is too large for a tokenizer file")
        with open(name, "rb") as f:
            return f.read()
    except OSError as e:
        raise ValueError(f"cannot read {name}: {e.strerror or e}") from e


def _text(data: bytes, name: str) -> str:
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        lineno = data.count(b"\n", 0, e.start) + 1
        raise ValueError(f"{name}, line {lineno}: not UTF-8 text (is this a tokenizer file?)") from e


def detect_format(data: bytes) -> str:
    """Which kind of tokenizer file ``data`` is, from its content.

    One of "minbpe", "hf" (tokenizer.json), "gpt2-vocab" (vocab.json / encoder.json),
    "gpt2-merges" (merges.txt / vocab.bpe), "tiktoken"; ValueError when it is none of them.

    >>> detect_format(b"minbpe v1\\n\\n0\\n")
    'minbpe'
    >>> detect_format(b"IQ== 0\\nIg== 1\\n")
    'tiktoken'
    """
    head = data[:4096].lstrip(b"\xef\xbb\xbf \t\r\n")
    first = head.split(b"\n", 1)[0].rstrip(b"\r")
    if first.strip() in (b"minbpe v1", b"bpe v1"):
        return "minbpe"
    if head.startswith(b"{"):
        try:
            document = json.loads(data)
        except (ValueError, RecursionError):
            return "hf"  # the reader says what is wrong with it
        if isinstance(document, dict) and isinstance(document.get("model"), dict):
            return "hf"
        is_vocab = (  # token -> id; GPT-2's own encoder.json even has a token "model"
            isinstance(document, dict)
            and len(document) > 0
            and all(isinstance(v, int) for v in list(document.values())[:100])
        )
        return "gpt2-vocab" if is_vocab else "hf"  # the tokenizer.json reader says what is wrong
    if first.startswith(b"#version"):
        return "gpt2-merges"
    if regex.fullmatch(rb"[A-Za-z0-9+/]+={0,2} \d+", first):
        return "tiktoken"
    first_lines = [line.rstrip(b"\r") for line in head.split(b"\n")[:5] if line.strip()]
    if first_lines and all(len(line.split(b" ")) == 2 for line in first_lines):
        return "gpt2-merges"
    raise ValueError(
        "not a tokenizer file this tool reads: expected a minbpe .model, a Hugging Face"
        " tokenizer.json, tiktoken ranks, or GPT-2 vocab.json / merges.txt"
    )


def read_tokenizer(
    data: bytes,
    name: str = "tokenizer file",
    *,
    merges: bytes | None = None,
    vocab: bytes | None = None,
    pattern: str | None = None,
    special_tokens: dict[str, int] | None = None,
    partner_name: str | None = None,
) -> Tokenizer:
    """A tokenizer from a file's bytes (e.g. an upload); the format is detected from the content.

    GPT-2 style files come in pairs: give the other one as ``merges=`` or ``vocab=`` (and its
    name as ``partner_name``, for messages). tiktoken
    and GPT-2 files do not store the split pattern: ``pattern`` defaults to GPT-4's (tiktoken)
    or GPT-2's (vocab.json + merges.txt).
    """
    from .formats import from_gpt2_files, from_hf_json, from_tiktoken

    if len(data) > MAX_MODEL_BYTES:
        raise ValueError(f"{name}: {len(data):,} bytes is too large for a tokenizer file")
    if name.endswith(".model"):
        kind = "minbpe"  # minbpe's own extension: its reader says which line is wrong
    else:
        try:
            kind = detect_format(data)
        except ValueError as e:
            raise ValueError(f"{name}, line 1: {e}") from None
    if kind == "minbpe":
        return _from_minbpe(_text(data, name), name)
    if kind == "hf":
        return from_hf_json(_text(data, name), name)
    if kind == "tiktoken":
        return from_tiktoken(data, pattern=pattern, special_tokens=special_tokens, name=name)
    if kind == "gpt2-vocab":
        if merges is None:
            raise ValueError(f"{name} is a GPT-2 style vocab.json: it needs its merges.txt too")
        other = partner_name or "merges.txt"
        return from_gpt2_files(_text(data, name), _text(merges, other), pattern=pattern,
                               special_tokens=special_tokens, names=(name, other))
    if vocab is None:
        raise ValueError(f"{name} is a GPT-2 style merges.txt: it needs its vocab.json too")
    other = partner_name or "vocab.json"
    return from_gpt2_files(_text(vocab, other), _text(data, name), pattern=pattern,
                           special_tokens=special_tokens, names=(other, name))


def _from_minbpe(text: str, name: str) -> Tokenizer:
    from .basic import BasicTokenizer
    from .regex_tokenizer import RegexTokenizer

    pattern, special_tokens, merges = parse_minbpe(text, name)
    try:
        tok = RegexTokenizer(pattern) if pattern else BasicTokenizer()
    except ValueError as e:
        raise ValueError(f"{name}, line 2: {e}") from e
    tok.merges = {pair: 256 + i for i, pair in enumerate(merges)}
    tok._rebuild()
    try:
        tok.register_special_tokens(special_tokens)
    except ValueError as e:
        raise ValueError(f"{name}, special tokens (lines 4-{3 + len(special_tokens)}): {e}") from e
    return tok


_PARTNERS = {"gpt2-vocab": ("merges.txt", "vocab.bpe"), "gpt2-merges": ("vocab.json", "encoder.json")}


def load(
    path: str | os.PathLike,
    *,
    merges_path: str | os.PathLike | None = None,
    vocab_path: str | os.PathLike | None = None,
    pattern: str | None = None,
    special_tokens: dict[str, int] | None = None,
) -> Tokenizer:
    """Load a tokenizer file of any supported kind, detected from its content.

    A minbpe ``.model`` (or the seeds' ``bpe v1``) gives a ``BasicTokenizer`` when its pattern
    line is empty, else a ``RegexTokenizer``. For ``vocab.json`` / ``merges.txt`` the partner file
    is taken from ``merges_path`` / ``vocab_path`` or found beside it (merges.txt or vocab.bpe,
    vocab.json or encoder.json).
    """
    name = os.fspath(path)
    data = _read(name)
    try:
        kind = detect_format(data)
    except ValueError:
        kind = "unknown"  # read_tokenizer says what is wrong
    partner: dict[str, bytes] = {}
    partner_name = None
    if kind in _PARTNERS:
        given = merges_path if kind == "gpt2-vocab" else vocab_path
        candidates = [given] if given is not None else [
            os.path.join(os.path.dirname(name), c) for c in _PARTNERS[kind]
        ]
        found = next((c for c in candidates if os.path.exists(c)), None)
        if found is not None:
            partner["merges" if kind == "gpt2-vocab" else "vocab"] = _read(found)
            partner_name = os.fspath(found)
    return read_tokenizer(data, name, pattern=pattern, special_tokens=special_tokens,
                          partner_name=partner_name, **partner)
