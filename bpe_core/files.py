"""Loading tokenizers: ``load(path)`` and ``read_tokenizer(data, name)`` for every format in
formats.py, detected from the content, built into a ``BasicTokenizer`` or ``RegexTokenizer``.
"""

from __future__ import annotations

import json
import os

import regex

from .base import Tokenizer
from .basic import BasicTokenizer
from .formats import (  # noqa: F401 - to_minbpe and parse_minbpe: read from here too
    MODEL_HEADERS,
    TokenizerData,
    parse_gpt2_files,
    parse_hf_json,
    parse_minbpe,
    parse_tiktoken,
    to_minbpe,
)
from .regex_tokenizer import RegexTokenizer

MAX_MODEL_BYTES = 64 * 1024 * 1024  # a GPT-4-sized model file is about 1.5 MB


def build(data: TokenizerData, name: str, **extra) -> Tokenizer:
    """The tokenizer a file describes: a ``RegexTokenizer`` with its split pattern, or a
    ``BasicTokenizer`` when it has none. ``extra``: ``timeout``, ``name``, ``title``. A bad pattern
    or special token is a ValueError that names the file."""
    common = dict(merges=data.merges, byte_ids=data.byte_ids, special_tokens=data.special_tokens,
                  pipeline=data.pipeline, ignored=data.ignored, **extra)
    pre_split = data.pipeline is not None and data.pipeline.pre_tokenizer is not None
    try:
        if data.pattern or pre_split:
            return RegexTokenizer(data.pattern, **common)
        return BasicTokenizer(**common)
    except ValueError as e:
        raise ValueError(f"{name}: {e}") from None


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
        return build(parse_hf_json(_text(data, name), name), name)
    if kind == "tiktoken":
        return build(parse_tiktoken(data, pattern=pattern, special_tokens=special_tokens,
                                    name=name), name)
    if kind == "gpt2-vocab":
        if merges is None:
            raise ValueError(f"{name} is a GPT-2 style vocab.json: it needs its merges.txt too")
        other = partner_name or "merges.txt"
        return build(parse_gpt2_files(_text(data, name), _text(merges, other), pattern=pattern,
                                      special_tokens=special_tokens, names=(name, other)), name)
    if vocab is None:
        raise ValueError(f"{name} is a GPT-2 style merges.txt: it needs its vocab.json too")
    other = partner_name or "vocab.json"
    return build(parse_gpt2_files(_text(vocab, other), _text(data, name), pattern=pattern,
                                  special_tokens=special_tokens, names=(other, name)), other)


def _from_minbpe(text: str, name: str) -> Tokenizer:
    pattern, special_tokens, merges = parse_minbpe(text, name)
    try:
        RegexTokenizer(pattern)  # the pattern alone first, so that the message names line 2
    except ValueError as e:
        raise ValueError(f"{name}, line 2: {e}") from e
    data = TokenizerData({pair: 256 + i for i, pair in enumerate(merges)}, None, pattern,
                         special_tokens)
    return build(data, f"{name}, special tokens (lines 4-{3 + len(special_tokens)})")


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
