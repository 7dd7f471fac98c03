"""The real tokenizers: GPT-2, GPT-4 (cl100k_base) and GPT-4o (o200k_base), offline and byte-exact.

    >>> from bpe_core import load_pretrained
    >>> enc = load_pretrained("cl100k_base")
    >>> enc.encode("hello world")
    [15339, 1917]

What ships (in ``bpe_core/data``, package data, so ``pip install`` brings it), and what loading
checks:

* OpenAI's published files, gzipped and otherwise unchanged: ``gpt2/encoder.json`` and
  ``gpt2/vocab.bpe``, ``cl100k_base.tiktoken``, ``o200k_base.tiktoken``. Loading checks each
  file's SHA-256 against the hash tiktoken expects, so a damaged file is an error, not a
  silently different tokenizer.
* For the two ``.tiktoken`` files, the merges (which two tokens make each token). Those files give
  only a rank per token; the merges are what the step-through and the merge forest need. They
  are recovered by running BPE on each token's bytes with the lower-ranked tokens (slow: about
  1.5 s for o200k), so ``build_assets`` does it once and loading checks every merge:
  both parents must rank below the token and their bytes must join to the token's bytes.

A rank is both a token's id and its merge priority, so encoding by "lowest new id first"
(``apply_merges``) is exactly tiktoken's encoding.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import sys
from array import array
from pathlib import Path

from .formats import bytes_to_unicode, parse_tiktoken_ranks, recover_merges
from .patterns import GPT2_SPLIT_PATTERN, GPT4_SPLIT_PATTERN, GPT4O_SPLIT_PATTERN
from .regex_tokenizer import RegexTokenizer
from .text import shorten

ASSETS = Path(__file__).resolve().parent / "data"  # package data: installed with the library

PRESETS = {
    "gpt2": {
        "title": "GPT-2",
        "pattern": GPT2_SPLIT_PATTERN,
        "special_tokens": {"<|endoftext|>": 50256},
        "files": {
            "encoder.json": "196139668be63f3b5d6574427317ae82f612a97c5d1cdaf36ed2256dbf636783",
            "vocab.bpe": "1ce1664773c50f3e0cc8842619a93edc4624525b728b188a9e0be33b7726adc5",
        },
    },
    "cl100k_base": {
        "title": "GPT-4 (cl100k_base)",
        "pattern": GPT4_SPLIT_PATTERN,
        "special_tokens": {
            "<|endoftext|>": 100257,
            "<|fim_prefix|>": 100258,
            "<|fim_middle|>": 100259,
            "<|fim_suffix|>": 100260,
            "<|endofprompt|>": 100276,
        },
        "files": {
            "cl100k_base.tiktoken": "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7",
        },
    },
    "o200k_base": {
        "title": "GPT-4o (o200k_base)",
        "pattern": GPT4O_SPLIT_PATTERN,
        "special_tokens": {"<|endoftext|>": 199999, "<|endofprompt|>": 200018},
        "files": {
            "o200k_base.tiktoken": "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d",
        },
    },
}


def _read_checked(directory: Path, name: str, sha256: str) -> bytes:
    path = directory / (name + ".gz")
    try:
        data = gzip.decompress(path.read_bytes())
    except (OSError, EOFError, gzip.BadGzipFile) as e:
        raise ValueError(f"cannot read the shipped file {path}: {e}") from e
    digest = hashlib.sha256(data).hexdigest()
    if digest != sha256:
        raise ValueError(f"{path} is damaged: its SHA-256 is {digest}, expected {sha256}")
    return data


def _tokenizer(name: str, byte_ids: list[int], merges: dict[tuple[int, int], int]) -> RegexTokenizer:
    preset = PRESETS[name]
    return RegexTokenizer(preset["pattern"], merges=merges, byte_ids=byte_ids,
                          special_tokens=preset["special_tokens"], name=name,
                          title=preset["title"])


def _load_gpt2(directory: Path) -> RegexTokenizer:
    files = PRESETS["gpt2"]["files"]
    encoder = json.loads(_read_checked(directory, "encoder.json", files["encoder.json"]))
    merge_lines = _read_checked(directory, "vocab.bpe", files["vocab.bpe"]).decode("utf-8")
    table = bytes_to_unicode()
    byte_ids = [encoder[table[b]] for b in range(256)]
    merges = {}
    for line in merge_lines.split("\n")[1:]:  # the first line is "#version: 0.2"
        if line:
            a, b = line.split(" ")
            merges[(encoder[a], encoder[b])] = encoder[a + b]
    return _tokenizer("gpt2", byte_ids, merges)


def _load_tiktoken(name: str, directory: Path) -> RegexTokenizer:
    (filename, sha256), = PRESETS[name]["files"].items()
    ranks = parse_tiktoken_ranks(_read_checked(directory, filename, sha256), filename)
    byte_ids = [ranks[bytes([b])] for b in range(256)]
    token_of = {rank: token for token, rank in ranks.items()}
    pairs = array("I")
    try:
        pairs.frombytes(gzip.decompress((directory / f"{name}.merges.gz").read_bytes()))
    except (OSError, EOFError, gzip.BadGzipFile, ValueError) as e:
        raise ValueError(f"cannot read {name}.merges.gz: {e}; rebuild it with build_assets") from e
    if sys.byteorder != "little":
        pairs.byteswap()
    merged = sorted(rank for token, rank in ranks.items() if len(token) > 1)
    if len(pairs) != 2 * len(merged):
        raise ValueError(f"{name}.merges.gz has {len(pairs) // 2} merges, expected {len(merged)}")
    merges = {}
    for rank, a, b in zip(merged, pairs[0::2], pairs[1::2]):
        if not (a < rank and b < rank and token_of[a] + token_of[b] == token_of[rank]):
            raise ValueError(f"{name}.merges.gz: the merge for rank {rank} does not make its token")
        merges[(a, b)] = rank
    return _tokenizer(name, byte_ids, merges)


def load_pretrained(name: str, directory: str | os.PathLike | None = None) -> RegexTokenizer:
    """GPT-2 (``"gpt2"``), GPT-4 (``"cl100k_base"``) or GPT-4o (``"o200k_base"``), from the
    files shipped in ``bpe_core/data``; nothing is downloaded."""
    if name not in PRESETS:
        raise ValueError(f"unknown pretrained tokenizer {shorten(name)}; choose one of {list(PRESETS)}")
    folder = ASSETS if directory is None else Path(directory)
    if name == "gpt2":
        return _load_gpt2(folder)
    return _load_tiktoken(name, folder)


def build_assets(source: str | os.PathLike, target: str | os.PathLike = ASSETS) -> None:
    """Copy OpenAI's files from ``source`` (gzipped) and store the recovered merges beside them."""
    source, target = Path(source), Path(target)
    target.mkdir(parents=True, exist_ok=True)
    for name, preset in PRESETS.items():
        for filename, sha256 in preset["files"].items():
            data = (source / ("gpt2" if name == "gpt2" else "") / filename).read_bytes()
            if hashlib.sha256(data).hexdigest() != sha256:
                raise ValueError(f"{filename} in {source} does not have the published hash")
            (target / (filename + ".gz")).write_bytes(gzip.compress(data, 9, mtime=0))
            if filename.endswith(".tiktoken"):
                merges = recover_merges(parse_tiktoken_ranks(data, filename))
                pairs = array("I", [i for pair in merges for i in pair])
                if sys.byteorder != "little":
                    pairs.byteswap()
                (target / f"{name}.merges.gz").write_bytes(gzip.compress(pairs.tobytes(), 9, mtime=0))


if __name__ == "__main__":  # python -m bpe_core.pretrained FOLDER_WITH_OPENAIS_FILES
    if len(sys.argv) != 2:
        sys.exit("usage: python -m bpe_core.pretrained FOLDER (with gpt2/encoder.json,"
                 " gpt2/vocab.bpe, cl100k_base.tiktoken, o200k_base.tiktoken)")
    build_assets(sys.argv[1])
