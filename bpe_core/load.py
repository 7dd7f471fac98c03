"""tiktoken's ``tiktoken.load`` under bpe_core's name: reading ranks from local files.

``load_tiktoken_bpe(path, expected_hash=None)`` reads a ``.tiktoken`` file (``base64(token) rank``
per line) into ``{token bytes: rank}``, the ``mergeable_ranks`` of ``Encoding``;
``data_gym_to_mergeable_bpe_ranks`` reads GPT-2's ``vocab.bpe`` and ``encoder.json`` so;
``dump_tiktoken_bpe`` writes ranks back. Only local files: nothing is fetched from the network,
so an address (``https://...``, ``az://...``) is a ValueError that says to download the file and
pass its path (OpenAI's own encodings ship with bpe_core: ``get_encoding(name)``).

The module is also callable: ``bpe_core.load(path)`` is ``files.load``, bpe_core's reader of
every tokenizer format (it was a function before this module took its name).
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import types

from .files import load as load_any_format
from .formats import parse_tiktoken_ranks
from .text import bytes_to_unicode, shorten

MAX_FILE_BYTES = 64 * 1024 * 1024  # a .tiktoken file of 200 000 tokens is about 3.6 MB


def read_file(blobpath: str | os.PathLike) -> bytes:
    """A local file's bytes (tiktoken's ``read_file``, without the network)."""
    name = os.fspath(blobpath)
    if isinstance(name, str) and "://" in name:
        raise ValueError(
            f"bpe_core reads local files only and fetches nothing from the network:"
            f" download {shorten(name)} yourself and pass its path (OpenAI's encodings ship"
            " with bpe_core: get_encoding('cl100k_base') and the like)")
    try:
        size = os.path.getsize(name)
        if size > MAX_FILE_BYTES:
            raise ValueError(f"{name}: {size:,} bytes is more than a vocabulary file holds"
                             f" (at most {MAX_FILE_BYTES:,} read)")
        with open(name, "rb") as f:
            return f.read()
    except OSError as e:
        raise ValueError(f"cannot read {name}: {e.strerror or e}") from e


def check_hash(data: bytes, expected_hash: str) -> bool:
    """Whether ``data``'s SHA-256 is ``expected_hash`` (hex)."""
    return hashlib.sha256(data).hexdigest() == expected_hash


def read_file_cached(blobpath: str | os.PathLike, expected_hash: str | None = None) -> bytes:
    """``read_file``, checked against ``expected_hash`` when given (there is no cache: the file
    is local already)."""
    data = read_file(blobpath)
    if expected_hash is not None and not check_hash(data, expected_hash):
        raise ValueError(f"{os.fspath(blobpath)}: its SHA-256 is {hashlib.sha256(data).hexdigest()},"
                         f" expected {expected_hash}; the file is another one or damaged")
    return data


def load_tiktoken_bpe(tiktoken_bpe_file: str | os.PathLike,
                      expected_hash: str | None = None) -> dict[bytes, int]:
    """A ``.tiktoken`` file's ranks: ``{token bytes: rank}``. A bad line is a ValueError naming
    it."""
    name = os.fspath(tiktoken_bpe_file)
    return parse_tiktoken_ranks(read_file_cached(name, expected_hash), str(name))


def dump_tiktoken_bpe(bpe_ranks: dict[bytes, int], tiktoken_bpe_file: str | os.PathLike) -> None:
    """Write ranks as a ``.tiktoken`` file, in rank order (a local path; written whole or not at
    all)."""
    import base64

    from .sidecar import write_atomic

    name = os.fspath(tiktoken_bpe_file)
    if isinstance(name, str) and "://" in name:
        raise ValueError(f"bpe_core writes local files only, not {shorten(name)}")
    lines = [base64.b64encode(token) + b" %d\n" % rank
             for token, rank in sorted(bpe_ranks.items(), key=lambda item: item[1])]
    write_atomic(name, b"".join(lines))


def data_gym_to_mergeable_bpe_ranks(
    vocab_bpe_file: str | os.PathLike,
    encoder_json_file: str | os.PathLike,
    vocab_bpe_hash: str | None = None,
    encoder_json_hash: str | None = None,
    clobber_one_byte_tokens: bool = False,
) -> dict[bytes, int]:
    """GPT-2's ``vocab.bpe`` (the merges) and ``encoder.json`` (the ids) as tiktoken ranks: the
    256 bytes first, in GPT-2's order of its byte characters, then one rank per merge. The ranks
    must be encoder.json's ids (ValueError otherwise: the two files do not belong together);
    ``clobber_one_byte_tokens`` takes the single bytes' ids from encoder.json instead."""
    table = bytes_to_unicode()  # byte -> GPT-2's character for it
    char_to_byte = {char: b for b, char in table.items()}
    order = sorted(range(256), key=lambda b: ord(table[b]))  # printable bytes first, as GPT-2
    ranks = {bytes([b]): rank for rank, b in enumerate(order)}

    def spelled(word: str, where: str) -> bytes:
        try:
            return bytes(char_to_byte[c] for c in word)
        except KeyError:
            raise ValueError(f"{where}: {shorten(word)} is not spelled in GPT-2's byte"
                             " characters") from None

    merges_name = os.fspath(vocab_bpe_file)
    try:
        lines = read_file_cached(merges_name, vocab_bpe_hash).decode("utf-8").split("\n")
    except UnicodeDecodeError as e:
        raise ValueError(f"{merges_name} is not UTF-8 text: {e}") from None
    for lineno, line in enumerate(lines[1:-1], 2):  # after "#version: 0.2", to the last newline
        parts = line.split()
        if len(parts) != 2:
            raise ValueError(f"{merges_name}, line {lineno}: expected two tokens, found"
                             f" {shorten(line)}")
        where = f"{merges_name}, line {lineno}"
        ranks[spelled(parts[0], where) + spelled(parts[1], where)] = len(ranks)
    encoder_name = os.fspath(encoder_json_file)
    try:
        encoder = json.loads(read_file_cached(encoder_name, encoder_json_hash))
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise ValueError(f"{encoder_name} is not a JSON object of token ids: {e}") from None
    if not isinstance(encoder, dict):
        raise ValueError(f"{encoder_name} is not a JSON object of token ids")
    ids = {spelled(k, encoder_name): v for k, v in encoder.items()}
    ids.pop(b"<|endoftext|>", None)
    ids.pop(b"<|startoftext|>", None)
    if clobber_one_byte_tokens:
        ranks.update({k: v for k, v in ids.items() if len(k) == 1})
    if ranks != ids:
        differ = next((k for k in ranks if ids.get(k) != ranks[k]), None)
        detail = (f"{shorten(differ)} is rank {ranks[differ]} by the merges and"
                  f" {ids.get(differ)} in {encoder_name}") if differ is not None else (
                      f"{encoder_name} has {len(ids) - len(ranks)} more tokens")
        raise ValueError(f"{merges_name} and {encoder_name} do not belong together: {detail}")
    return ranks


class _CallableModule(types.ModuleType):
    """``bpe_core.load`` is this module and, called, bpe_core's reader of every format."""

    def __call__(self, path: str | os.PathLike, **options: object) -> object:
        return load_any_format(path, **options)


sys.modules[__name__].__class__ = _CallableModule
