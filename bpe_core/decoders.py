"""A tokenizer.json's ``decoder``: how Hugging Face turns ids back into text, in plain Python.

Hugging Face decodes (``tokenizers``' ``decode(ids, skip_special_tokens=False)``) by spelling
each id as its token string (the vocabulary's key: GPT-2's byte characters such as ``Ġworld``,
or an added token's content), passing the list through the decoder's steps, and joining what
is left. With no decoder (``null``) the strings are joined with spaces, so a byte-level file
decodes to ``'Hello Ġworld'``. bpe_core decodes bytes (``'Hello world'``), which is what the
ByteLevel decoder does for ordinary tokens; a file whose decoder says otherwise decodes here as
Hugging Face decodes it (``Tokenizer.decode``; ``decode_bytes`` stays the bytes).

Steps read (each on the list of strings, as ``decode_chain`` does in ``tokenizers`` 0.23):

    ByteLevel     map each token's characters through GPT-2's table to bytes (a token with
                  a character outside the table is its own UTF-8, whole), join, decode UTF-8
                  (invalid: U+FFFD)
    ByteFallback  runs of ``<0xHH>`` tokens (either case; ``<0x+H>`` too, as Rust parses it)
                  become the text of their bytes (invalid: one U+FFFD per token); others stay
    Strip         drop up to ``start`` copies of ``content`` from each string's start, ``stop``
                  from its end
    Replace       replace a string or an Oniguruma regex in each string (no empty match
                  right after a match; an empty string stays empty)
    Fuse          join everything into one string
    Metaspace     ``replacement`` becomes a space, except in the first string, where it goes
                  (unless ``prepend_scheme`` is ``never``)
    Sequence      the steps in order

Any other decoder (WordPiece, BPEDecoder, CTC) is not followed: it is listed in ``ignored``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import regex

from .limits import check_pattern
from .oniguruma import from_oniguruma
from .text import GPT2_CHAR_TO_BYTE, shorten

DecodeStep = Callable[[list[str]], list[str]]

# a byte as tokenizers reads one: two hex digits of either case, or "+" and one (Rust's
# u8::from_str_radix takes a sign)
_FALLBACK = regex.compile(r"<0x(\+[0-9A-Fa-f]|[0-9A-Fa-f]{2})>")


def _byte_level(tokens: list[str]) -> list[str]:
    data = bytearray()
    for token in tokens:  # a token with a character outside the table stays its own UTF-8
        spelled = [GPT2_CHAR_TO_BYTE.get(ch) for ch in token]
        data += token.encode("utf-8") if None in spelled else bytes(spelled)
    return [data.decode("utf-8", errors="replace")]


def _byte_fallback(tokens: list[str]) -> list[str]:
    out: list[str] = []
    run = bytearray()
    count = 0

    def flush() -> None:
        nonlocal run, count
        if count:
            try:
                out.append(run.decode("utf-8"))
            except UnicodeDecodeError:
                out.extend("\ufffd" for _ in range(count))
        run, count = bytearray(), 0

    for token in tokens:
        m = _FALLBACK.fullmatch(token)
        if m:
            run.append(int(m[1], 16))
            count += 1
        else:
            flush()
            out.append(token)
    flush()
    return out


def _strip(content: str, start: int, stop: int) -> DecodeStep:
    def step(tokens: list[str]) -> list[str]:
        out = []
        for token in tokens:
            left = 0
            while left < start and token.startswith(content, left * len(content)):
                left += 1
            token = token[left * len(content):]
            right = 0
            while right < stop and token[: len(token) - right * len(content)].endswith(content):
                right += 1
            out.append(token[: len(token) - right * len(content)] if right else token)
        return out

    return step


def _metaspace(replacement: str, prepend: bool) -> DecodeStep:
    def step(tokens: list[str]) -> list[str]:
        # as tokenizers 0.23 does: in the first string every replacement goes (not only a
        # leading one) unless prepend_scheme is "never"
        return [token.replace(replacement, "" if k == 0 and prepend else " ")
                for k, token in enumerate(tokens)]

    return step


def _replace(pattern: regex.Pattern, content: str, token: str) -> str:
    """Every match replaced as tokenizers replaces: an empty match right where the previous
    match ended is skipped (``regex.sub`` would replace it too), and an empty token stays
    empty."""
    if not token:
        return token
    out, last, end = [], 0, -1
    for m in pattern.finditer(token):
        if m.start() == m.end() == end:
            continue
        out += [token[last:m.start()], content]
        last = end = m.end()
    return "".join(out) + token[last:]


class Decoder:
    """A tokenizer.json's decoder: ``decode(token strings) -> text`` (see the module's top)."""

    def __init__(self, steps: list[DecodeStep] | None, described: str, byte_level: bool = False) -> None:
        self.steps = steps  # None: no decoder (the strings joined with spaces)
        self.described = described
        self.byte_level = byte_level  # a lone ByteLevel: the bytes' text, for ordinary tokens

    def decode(self, tokens: list[str]) -> str:
        if self.steps is None:
            return " ".join(tokens)
        for step in self.steps:
            tokens = step(tokens)
        return "".join(tokens)

    def __repr__(self) -> str:
        return f"<Decoder: {self.described}>"


def _field(step: dict, field: str, kind: type, name: str, key: str) -> Any:
    value = step.get(field)
    if not isinstance(value, kind) or isinstance(value, bool) != (kind is bool):
        raise ValueError(f"{name}: key '{key}.{field}' should be a {kind.__name__}, found"
                         f" {shorten(value)}")
    return value


def read_decoder(obj: object, name: str) -> tuple[Decoder | None, list[str]]:
    """``(decoder, ignored)`` of a tokenizer.json's ``decoder`` object; ``ignored`` says what is
    not followed (a decoder this module does not read; the decoder is then None)."""
    if obj is None:
        return Decoder(None, "none: Hugging Face joins the token strings with spaces"), []
    if not isinstance(obj, dict):
        raise ValueError(f"{name}: key 'decoder' should be an object or null")
    items = obj.get("decoders") if obj.get("type") == "Sequence" else [obj]
    if not isinstance(items, list):
        raise ValueError(f"{name}: key 'decoder.decoders' should be a list")
    steps: list[DecodeStep] = []
    described = []
    for k, step in enumerate(items):
        key = f"decoder.decoders[{k}]" if obj.get("type") == "Sequence" else "decoder"
        if not isinstance(step, dict):
            raise ValueError(f"{name}: key '{key}' should be an object")
        kind = step.get("type")
        if kind == "ByteLevel":
            steps.append(_byte_level)
            described.append("ByteLevel")
        elif kind == "ByteFallback":
            steps.append(_byte_fallback)
            described.append("ByteFallback")
        elif kind == "Fuse":
            steps.append(lambda tokens: ["".join(tokens)])
            described.append("Fuse")
        elif kind == "Strip":
            content = _field(step, "content", str, name, key)
            start, stop = (_field(step, f, int, name, key) for f in ("start", "stop"))
            steps.append(_strip(content, start, stop))
            described.append(f"Strip {shorten(content, 10)} ({start} left, {stop} right)")
        elif kind == "Replace":
            pattern = step.get("pattern")
            if isinstance(pattern, dict) and isinstance(pattern.get("String"), str):
                compiled = regex.compile(regex.escape(pattern["String"]))
            elif isinstance(pattern, dict) and isinstance(pattern.get("Regex"), str):
                try:
                    translated = from_oniguruma(pattern["Regex"])
                    check_pattern(translated, "the pattern", max_chars=None)
                    compiled = regex.compile(translated)
                except (ValueError, regex.error) as e:
                    raise ValueError(f"{name}: key '{key}.pattern': {e}") from None
            else:
                raise ValueError(f"{name}: key '{key}.pattern' should be {{\"String\": ...}} or"
                                 f" {{\"Regex\": ...}}, found {shorten(pattern)}")
            content = _field(step, "content", str, name, key)
            steps.append(lambda tokens, p=compiled, c=content: [_replace(p, c, t)
                                                                 for t in tokens])
            described.append(f"Replace {shorten(pattern, 30)} by {shorten(content, 10)}")
        elif kind == "Metaspace":
            replacement = _field(step, "replacement", str, name, key)
            scheme = step.get("prepend_scheme", "always")
            if scheme not in ("always", "first", "never"):
                raise ValueError(f"{name}: key '{key}.prepend_scheme' should be always, first"
                                 f" or never, found {shorten(scheme)}")
            steps.append(_metaspace(replacement, scheme != "never"))
            described.append(f"Metaspace {shorten(replacement, 6)}")
        else:
            return None, [f"decoder: {shorten(kind, 30)} is not followed: decode() gives the"
                          " text of the tokens' bytes, which may differ from Hugging Face's"
                          " decode"]
    return Decoder(steps, ", ".join(described), byte_level=described == ["ByteLevel"]), []
