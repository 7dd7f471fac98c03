"""CLIP's tokenizer: word BPE over GPT-2's byte characters, read from CLIP's merges file.

CLIP ships ``bpe_simple_vocab_16e6.txt.gz``: a header line, then merges such as ``t h`` and
``th e</w>`` (``</w>`` ends a word). Its vocabulary is not in the file but follows from it:
the 256 byte characters (GPT-2's table, in the order of their code points), then each of them
with ``</w>``, then one token per merge (the two joined), then ``<|startoftext|>`` and
``<|endoftext|>``. CLIP takes the first 48,894 merges of that file (49,152 tokens in all).

The ids are those of transformers' ``CLIPTokenizer`` built from the same merges (transformers
5: backed by ``tokenizers``, no ftfy): the two special tokens are found in the raw text first;
every other stretch is NFC-normalized, every run of whitespace becomes one space, each character
is lowercased on its own; it is cut by CLIP's pattern (what the pattern does not match, spaces
included, is dropped); each piece becomes GPT-2's byte characters with ``</w>`` glued to the
last, and is merged by the merges' order (lowest first, every place of a pair left to right).
``encode`` puts ``<|startoftext|>`` before and ``<|endoftext|>`` after, as ``CLIPTokenizer``'s
``input_ids`` do.
"""

from __future__ import annotations

import functools
import gzip
import io
import unicodedata
import zlib
from collections.abc import Sequence

from ..limits import MAX_MODEL_BYTES, check_size
from ..oniguruma import compile_translated, from_oniguruma
from ..text import bytes_to_unicode
from .apply import merge_symbols
from .train import END_OF_WORD, SymbolPair

START, END = "<|startoftext|>", "<|endoftext|>"
CLIP_MERGES = 49152 - 256 - 2  # the merges CLIP's own code takes from its file
CLIP_PATTERN = (r"""<\|startoftext\|>|<\|endoftext\|>|'s|'t|'re|'ve|'m|'ll|'d|[\p{L}]+|[\p{N}]"""
                r"""|[^\s\p{L}\p{N}]+""")
_BYTE_CHAR = bytes_to_unicode()
_CHAR_BYTE = {c: b for b, c in _BYTE_CHAR.items()}


@functools.cache
def _whitespace_run() -> object:
    """CLIP's whitespace, as Oniguruma reads ``\\s+``: compiled at the first use, not at
    import (the translation builds the Unicode gap's tables: 0.1 s of CPU that every
    ``import bpe_core``, and every worker process, paid before)."""
    return compile_translated(from_oniguruma(r"\s+"))


def read_clip_merges(data: bytes, name: str = "CLIP merges file",
                     num_merges: int | None = None) -> list[SymbolPair]:
    """The merges of CLIP's file (gzip or not): every line after the first, each two symbols;
    ``num_merges``: only the first so many. A bad line is a ValueError naming it."""
    if data[:2] == b"\x1f\x8b":
        try:
            with gzip.GzipFile(fileobj=io.BytesIO(data)) as f:
                data = f.read(MAX_MODEL_BYTES + 1)
        except (OSError, EOFError, zlib.error) as e:
            raise ValueError(f"{name}: a gzip file that cannot be read ({e})") from None
        check_size(len(data), MAX_MODEL_BYTES, f"{name}, unzipped")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise ValueError(f"{name}: not UTF-8 text ({e})") from None
    lines = text.split("\n")[1:]
    while lines and not lines[-1]:
        lines.pop()
    if not lines:
        raise ValueError(f"{name}: CLIP's merges file holds no merges after its first line")
    if num_merges is not None:
        lines = lines[:num_merges]
    merges: list[SymbolPair] = []
    for lineno, line in enumerate(lines, 2):
        parts = line.split()
        if len(parts) != 2:
            raise ValueError(f"{name}, line {lineno}: expected two symbols with a space between"
                             f" them, found {line[:60]!r}")
        merges.append((parts[0], parts[1]))
    return merges


def clip_vocab(merges: Sequence[SymbolPair]) -> dict[str, int]:
    """CLIP's vocabulary for these merges: token string -> id (what its vocab.json holds)."""
    chars = sorted(_BYTE_CHAR.values(), key=ord)
    tokens = chars + [c + END_OF_WORD for c in chars] + [a + b for a, b in merges] + [START, END]
    return {token: i for i, token in enumerate(tokens)}  # a token made twice: its last id, as CLIP


class CLIPWordBPE:
    """CLIP's tokenizer from its merges: ``encode(text)`` gives ``CLIPTokenizer``'s input ids.
    ``family`` is ``"word"`` (over byte characters, as GPT-2's files spell bytes)."""

    family = "word"

    def __init__(self, merges: Sequence[SymbolPair], name: str = "CLIP merges") -> None:
        self.name = name
        self.merges = [tuple(pair) for pair in merges]
        self.ranks: dict[SymbolPair, int] = {}
        for rank, pair in enumerate(self.merges):
            self.ranks.setdefault(pair, rank)
        self._pair_of_rank = {rank: pair for pair, rank in self.ranks.items()}
        self.vocab = clip_vocab(self.merges)  # token -> id (a repeated token: its first id)
        self.tokens = {i: t for t, i in self.vocab.items()}
        self.start_id, self.end_id = self.vocab[START], self.vocab[END]
        self._split = compile_translated(from_oniguruma(CLIP_PATTERN))

    @classmethod
    def from_file(cls, data: bytes, name: str = "CLIP merges file",
                  num_merges: int | None = None) -> CLIPWordBPE:
        """From the merges file's bytes (``bpe_simple_vocab_16e6.txt.gz`` or a merges.txt)."""
        return cls(read_clip_merges(data, name, num_merges), name)

    @property
    def vocab_size(self) -> int:
        return len(self.merges) + 512 + 2

    def __repr__(self) -> str:
        return f"CLIPWordBPE({self.name!r}, {len(self.merges)} merges)"

    def pieces(self, text: str) -> list[str]:
        """The pieces BPE sees, in GPT-2's byte characters (no ``</w>``; special tokens as
        they are)."""
        out: list[str] = []
        for part, special in _cut_specials(text):
            if special:
                out.append(part)
                continue
            normal = "".join(c.lower() for c in _whitespace_run().sub(" ", unicodedata.normalize("NFC", part)))
            for piece in self._split.findall(normal):
                out.append("".join(_BYTE_CHAR[b] for b in piece.encode("utf-8")))
        return out

    def bpe(self, piece: str) -> list[str]:
        """One piece's tokens (``</w>`` on the last)."""
        symbols = list(piece[:-1]) + [piece[-1] + END_OF_WORD]
        return merge_symbols(symbols, self.ranks, self._pair_of_rank)

    def encode(self, text: str, add_special_tokens: bool = True) -> list[int]:
        """The ids of ``CLIPTokenizer(...)(text)["input_ids"]``."""
        ids = [self.start_id] if add_special_tokens else []
        for piece in self.pieces(text):
            if piece in (START, END):
                ids.append(self.vocab[piece])
                continue
            ids.extend(self.vocab.get(token, self.end_id) for token in self.bpe(piece))
        if add_special_tokens:
            ids.append(self.end_id)
        return ids

    def decode(self, ids: Sequence[int], skip_special_tokens: bool = False) -> str:
        """Text back: the tokens' bytes, every ``</w>`` a space, the ends stripped."""
        tokens = [self.tokens[i] for i in ids
                  if not (skip_special_tokens and i in (self.start_id, self.end_id))]
        data = bytes(_CHAR_BYTE[c] for c in "".join(tokens) if c in _CHAR_BYTE)
        return data.decode("utf-8", errors="replace").replace(END_OF_WORD, " ").strip()


def clip_token_bytes(token: str) -> bytes:
    """A CLIP token's bytes as they are drawn: GPT-2's byte characters back to bytes, the
    ``</w>`` at a word's end kept as its text, the two special tokens as their text.

    >>> clip_token_bytes("hello</w>"), clip_token_bytes("Ġ"), clip_token_bytes(START)
    (b'hello</w>', b' ', b'<|startoftext|>')
    """
    end = token.endswith(END_OF_WORD)
    body = token[:-len(END_OF_WORD)] if end else token
    if body in (START, END):
        return token.encode()
    return bytes(_CHAR_BYTE[c] for c in body if c in _CHAR_BYTE) + (END_OF_WORD.encode() if end else b"")


def _cut_specials(text: str) -> list[tuple[str, bool]]:
    """``text`` cut at CLIP's two special tokens: ``(part, is special)``."""
    parts: list[tuple[str, bool]] = []
    i = 0
    while i < len(text):
        found = [(text.find(s, i), s) for s in (START, END)]
        found = [(at, s) for at, s in found if at != -1]
        if not found:
            parts.append((text[i:], False))
            break
        at, special = min(found)
        if at > i:
            parts.append((text[i:at], False))
        parts.append((special, True))
        i = at + len(special)
    return parts
