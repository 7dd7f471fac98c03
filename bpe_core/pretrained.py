"""The real tokenizers: GPT-2, GPT-4 (cl100k_base) and GPT-4o (o200k_base), offline and byte-exact;
and what tiktoken's ``get_encoding`` gives for them (``shared_encoding``; registry.py finds the
encodings by name, with tiktoken_ext plugins).

    >>> from bpe_core import load_pretrained
    >>> enc = load_pretrained("cl100k_base")
    >>> enc.encode("hello world")
    [15339, 1917]

What ships (in ``bpe_core/data``, package data, so ``pip install`` brings it), and what loading
checks:

* GPT-2: OpenAI's published ``encoder.json`` and ``vocab.bpe``, gzipped and otherwise unchanged.
* cl100k_base and o200k_base: a compact form, ``NAME.bpe.gz``: the ranks of the 256 single bytes
  and, for every longer token in rank order, the two tokens it is merged from (the merges, which
  the step-through and the merge forest need; OpenAI's ``.tiktoken`` files give only a rank per
  token). Every token's bytes follow from them. It is a third the size of the ``.tiktoken``
  file, and quicker to read than its base64.
* Loading checks every file against the SHA-256 that tiktoken expects for OpenAI's file: GPT-2's
  files as they are, and the compact form by writing the ``.tiktoken`` file it stands for
  (``base64(token) rank`` per line, in memory) and hashing that. A damaged file is an error, not
  a silently different tokenizer.
* Once per process: the first load of a preset is checked and kept; ``load_pretrained`` then
  hands out a copy (``Tokenizer.copy``, a few dict copies), so training or extending one never
  changes another caller's. ``get_encoding`` hands out one shared, read-only tokenizer per
  encoding, as tiktoken does.

A rank is both a token's id and its merge priority, so encoding by "lowest new id first"
(``apply_merges``) is exactly tiktoken's encoding.
"""

from __future__ import annotations

import binascii
import gzip
import hashlib
import json
import os
import sys
import threading
from array import array
from pathlib import Path
from types import MappingProxyType

from .core import Encoding
from .formats import bytes_to_unicode, parse_tiktoken_ranks, recover_merges
from .patterns import GPT2_SPLIT_PATTERN, GPT4_SPLIT_PATTERN, GPT4O_SPLIT_PATTERN
from .regex_tokenizer import RegexTokenizer
from .text import shorten
from .words import WHOLE_TOKENS

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

# gpt-oss's chat format "harmony": o200k's ranks and split, with the chat special tokens. Names and
# ids as tiktoken 0.14 defines them (tiktoken_ext/openai_public.py, o200k_harmony). tiktoken also
# lists "<|reserved_200018|>" with id 200018, the id of "<|endofprompt|>": it is a special alias
# here (encoded as 200018, which decodes as "<|endofprompt|>", as in tiktoken).
HARMONY_SPECIAL_TOKENS = {
    **PRESETS["o200k_base"]["special_tokens"],
    "<|startoftext|>": 199998,
    "<|reserved_200000|>": 200000,
    "<|reserved_200001|>": 200001,
    "<|return|>": 200002,
    "<|constrain|>": 200003,
    "<|reserved_200004|>": 200004,
    "<|channel|>": 200005,
    "<|start|>": 200006,
    "<|end|>": 200007,
    "<|message|>": 200008,
    "<|reserved_200009|>": 200009,
    "<|reserved_200010|>": 200010,
    "<|reserved_200011|>": 200011,
    "<|call|>": 200012,
    **{f"<|reserved_{i}|>": i for i in range(200013, 201088) if i != 200018},
}

# GPT-3's and Codex's encodings, rebuilt from GPT-2's files (tiktoken_ext/openai_public.py in
# tiktoken 0.14): r50k_base is GPT-2's ranks; p50k_base adds runs of 2 to 25 spaces as the tokens
# 50257..50280; p50k_edit adds three fill-in-the-middle tokens. Each is checked against the SHA-256
# tiktoken expects for OpenAI's .tiktoken file, written in memory from the rebuilt ranks.
P50K_SPACE_RUNS = {b" " * n: 50255 + n for n in range(2, 26)}
ENDOFTEXT_50256 = {"<|endoftext|>": 50256}

# what get_encoding knows beyond the presets: encodings that reuse a preset's vocabulary
EXTRA_ENCODINGS = {
    "r50k_base": {
        "title": "GPT-3 (r50k_base)",
        "base": "gpt2",
        "special_tokens": ENDOFTEXT_50256,
        "sha256": "306cd27f03c1a714eca7108e03d66b7dc042abe8c258b44c199a7ed9838dd930",
    },
    "p50k_base": {
        "title": "Codex (p50k_base)",
        "base": "gpt2",
        "extra_tokens": P50K_SPACE_RUNS,
        "special_tokens": ENDOFTEXT_50256,
        "sha256": "94b5ca7dff4d00767bc256fdd1b27e5b17361d7b8a5f968547f9f23eb70d2069",
    },
    "p50k_edit": {
        "title": "Codex edits (p50k_edit)",
        "base": "p50k_base",
        "special_tokens": {**ENDOFTEXT_50256, "<|fim_prefix|>": 50281, "<|fim_middle|>": 50282,
                           "<|fim_suffix|>": 50283},
    },
    "o200k_harmony": {
        "title": "gpt-oss (o200k_harmony)",
        "base": "o200k_base",
        "special_tokens": HARMONY_SPECIAL_TOKENS,
        "special_aliases": {"<|reserved_200018|>": 200018},
    },
}

# tiktoken's model table, written from tiktoken 0.14's tiktoken/model.py (MODEL_TO_ENCODING and
# MODEL_PREFIX_TO_ENCODING): every name answers (GPT-3's and Codex's with EXTRA_ENCODINGS).
MODEL_TO_ENCODING = {
    "o1": "o200k_base", "o3": "o200k_base", "o4-mini": "o200k_base",
    "gpt-5": "o200k_base", "gpt-4.1": "o200k_base", "gpt-4o": "o200k_base",
    "gpt-4": "cl100k_base", "gpt-3.5-turbo": "cl100k_base", "gpt-3.5": "cl100k_base",
    "gpt-35-turbo": "cl100k_base",
    "davinci-002": "cl100k_base", "babbage-002": "cl100k_base",
    "text-embedding-ada-002": "cl100k_base", "text-embedding-3-small": "cl100k_base",
    "text-embedding-3-large": "cl100k_base",
    "text-davinci-003": "p50k_base", "text-davinci-002": "p50k_base",
    "text-davinci-001": "r50k_base", "text-curie-001": "r50k_base",
    "text-babbage-001": "r50k_base", "text-ada-001": "r50k_base",
    "davinci": "r50k_base", "curie": "r50k_base", "babbage": "r50k_base", "ada": "r50k_base",
    "code-davinci-002": "p50k_base", "code-davinci-001": "p50k_base",
    "code-cushman-002": "p50k_base", "code-cushman-001": "p50k_base",
    "davinci-codex": "p50k_base", "cushman-codex": "p50k_base",
    "text-davinci-edit-001": "p50k_edit", "code-davinci-edit-001": "p50k_edit",
    "text-similarity-davinci-001": "r50k_base", "text-similarity-curie-001": "r50k_base",
    "text-similarity-babbage-001": "r50k_base", "text-similarity-ada-001": "r50k_base",
    "text-search-davinci-doc-001": "r50k_base", "text-search-curie-doc-001": "r50k_base",
    "text-search-babbage-doc-001": "r50k_base", "text-search-ada-doc-001": "r50k_base",
    "code-search-babbage-code-001": "r50k_base", "code-search-ada-code-001": "r50k_base",
    "gpt2": "gpt2", "gpt-2": "gpt2",
}
MODEL_PREFIX_TO_ENCODING = {  # tried in this order, after the exact names
    "o1-": "o200k_base", "o3-": "o200k_base", "o4-mini-": "o200k_base",
    "gpt-5": "o200k_base", "gpt-4.5-": "o200k_base", "gpt-4.1-": "o200k_base",
    "chatgpt-4o-": "o200k_base", "gpt-4o-": "o200k_base",
    "gpt-4-": "cl100k_base", "gpt-3.5-turbo-": "cl100k_base", "gpt-35-turbo-": "cl100k_base",
    "gpt-oss-": "o200k_harmony",
    "ft:gpt-4o": "o200k_base", "ft:gpt-4": "cl100k_base", "ft:gpt-3.5-turbo": "cl100k_base",
    "ft:davinci-002": "cl100k_base", "ft:babbage-002": "cl100k_base",
}


def _check_sha256(data: bytes, sha256: str, what: str) -> None:
    digest = hashlib.sha256(data).hexdigest()
    if digest != sha256:
        raise ValueError(f"{what} is damaged: its SHA-256 is {digest}, expected {sha256}"
                         " (the hash of OpenAI's published file)")


def _read_gzip(path: Path) -> bytes:
    try:
        return gzip.decompress(path.read_bytes())
    except (OSError, EOFError, gzip.BadGzipFile) as e:
        raise ValueError(f"cannot read the shipped file {path}: {e}; reinstall bpe-lab, or rebuild"
                         " the files with build_assets (python -m bpe_core.pretrained FOLDER)") from e


def _read_checked(directory: Path, name: str, sha256: str) -> bytes:
    path = directory / (name + ".gz")
    data = _read_gzip(path)
    _check_sha256(data, sha256, str(path))
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


def tiktoken_file_text(tokens: list[bytes]) -> bytes:
    """OpenAI's ``.tiktoken`` file for tokens of ranks 0, 1, 2...: ``base64(token) rank`` lines."""
    b64 = binascii.b2a_base64
    return b"".join([b64(token, newline=False) + b" %d\n" % rank
                     for rank, token in enumerate(tokens)])


def compact_form(ranks: dict[bytes, int], merges: list[tuple[int, int]]) -> bytes:
    """The compact form of a ``.tiktoken`` vocabulary (ranks 0..n-1) and its merges, as
    ``NAME.bpe.gz`` holds it (before gzip): little-endian 32-bit numbers: how many tokens,
    the ranks of bytes 0..255, then each longer token's two parents, in rank order."""
    numbers = array("I", [len(ranks), *(ranks[bytes([b])] for b in range(256))])
    numbers.extend(i for pair in merges for i in pair)
    if sys.byteorder != "little":
        numbers.byteswap()
    return numbers.tobytes()


def _load_compact(name: str, directory: Path) -> RegexTokenizer:
    """A cl100k/o200k preset from ``NAME.bpe.gz``, checked against the published hash."""
    (filename, sha256), = PRESETS[name]["files"].items()
    path = directory / f"{name}.bpe.gz"
    numbers = array("I")
    data = _read_gzip(path)
    try:
        numbers.frombytes(data)
    except ValueError as e:
        raise ValueError(f"{path} is damaged: {e}") from e
    if sys.byteorder != "little":
        numbers.byteswap()
    count, byte_ids = numbers[0] if numbers else 0, list(numbers[1:257])
    single = set(byte_ids)
    merged = range(256, count) if single == set(range(256)) else [
        rank for rank in range(count) if rank not in single]
    if len(byte_ids) != 256 or len(single) != 256 or len(numbers) != 257 + 2 * len(merged):
        raise ValueError(f"{path} is damaged: it does not hold {count} tokens")
    try:  # in rank order, a token merged from a later one is a KeyError; the hash checks the rest
        tok = _tokenizer(name, byte_ids, dict(zip(zip(numbers[257::2], numbers[258::2]), merged)))
        tokens = list(map(tok.vocab.__getitem__, range(count)))
    except (KeyError, ValueError) as e:
        raise ValueError(f"{path} is damaged: its merges do not make {count} tokens ({e})") from e
    _check_sha256(tiktoken_file_text(tokens), sha256, f"{path} (as {filename})")
    return tok


def _load_extra(name: str, base: RegexTokenizer) -> RegexTokenizer:
    """An encoding of EXTRA_ENCODINGS from its base's tokenizer: the extra tokens' merges
    recovered, the special tokens replaced, the ranks checked against the published hash."""
    extra = EXTRA_ENCODINGS[name]
    merges = dict(base.merges)
    if "extra_tokens" in extra:
        ranks = {**base.token_ids, **extra["extra_tokens"]}
        merges.update(recover_merges(ranks, from_rank=min(extra["extra_tokens"].values())))
    tok = RegexTokenizer(base.pattern, merges=merges, byte_ids=base.byte_ids,
                         special_tokens=extra["special_tokens"], name=name, title=extra["title"],
                         special_aliases=extra.get("special_aliases"))
    if "sha256" in extra:
        text = b"".join(binascii.b2a_base64(token, newline=False) + b" %d\n" % idx
                        for idx, token in sorted(tok.vocab.items())
                        if idx not in tok.special_tokens.values())
        _check_sha256(text, extra["sha256"], f"{name} rebuilt from {base.name}'s files")
    return tok


_LOADED: dict[tuple[str, str], RegexTokenizer] = {}  # (name, folder) -> the checked tokenizer
_ENCODINGS: dict[str, ReadOnlyTokenizer] = {}  # name -> what get_encoding hands out
_LOCK = threading.RLock()  # one load per preset, also when several threads (sessions) ask at once


def _load_once(name: str, folder: Path) -> RegexTokenizer:
    key = (name, str(folder))
    tok = _LOADED.get(key)
    if tok is None:
        with _LOCK:
            tok = _LOADED.get(key)
            if tok is None:
                if name in EXTRA_ENCODINGS:
                    tok = _load_extra(name, _load_once(EXTRA_ENCODINGS[name]["base"], folder))
                elif name == "gpt2":
                    tok = _load_gpt2(folder)
                else:
                    tok = _load_compact(name, folder)
                if folder == ASSETS:  # every shipped token merges to itself (test_words.py)
                    object.__setattr__(tok, WHOLE_TOKENS, True)
                    tok.token_ids  # noqa: B018 - bytes -> id, built once: every copy shares it
                _LOADED[key] = tok
    return tok


def load_pretrained(name: str, directory: str | os.PathLike | None = None) -> RegexTokenizer:
    """GPT-2 (``"gpt2"``), GPT-4 (``"cl100k_base"``), GPT-4o (``"o200k_base"``), gpt-oss's chat
    encoding (``"o200k_harmony"``) or GPT-3's and Codex's (``"r50k_base"``, ``"p50k_base"``,
    ``"p50k_edit"``, rebuilt from GPT-2's), from the files shipped in ``bpe_core/data``; nothing
    is downloaded.

    The files are read and checked once per process; every call returns a copy of its own
    (train it, add special tokens: no other caller sees the change).
    """
    if not isinstance(name, str) or (name not in PRESETS and name not in EXTRA_ENCODINGS):
        raise ValueError(f"unknown pretrained tokenizer {shorten(name)}; choose one of"
                         f" {[*PRESETS, *EXTRA_ENCODINGS]}")
    folder = ASSETS if directory is None else Path(directory)
    return _load_once(name, folder).copy()


class ReadOnlyTokenizer(Encoding):
    """What ``get_encoding`` returns: one tokenizer per encoding and process, shared by every
    caller as tiktoken's ``Encoding`` is. It encodes and decodes; it refuses to change."""

    def __setattr__(self, key: str, value: object) -> None:
        raise ValueError(
            f"{self.name} from get_encoding is shared by all of this process and cannot change;"
            f" load_pretrained({self.name!r}) gives a copy of your own to train or extend"
        )

    def train(self, *args: object, **kwargs: object) -> None:
        self.__setattr__("merges", None)

    def register_special_tokens(self, special_tokens: dict[str, int]) -> None:
        self.__setattr__("special_tokens", None)

    def load(self, model_file: str) -> None:
        self.__setattr__("merges", None)

    def copy(self) -> RegexTokenizer:
        """A tokenizer of your own with the same vocabulary, free to change."""
        other = super().copy()  # plain dicts again; back to an ordinary RegexTokenizer:
        object.__setattr__(other, "__class__", RegexTokenizer)
        for key, value in vars(other).items():
            if isinstance(value, tuple):
                setattr(other, key, list(value))
        return other

    def __reduce__(self) -> tuple[object, tuple[str]]:  # pickled by name, as tiktoken's are
        return shared_encoding, (self.name,)


def built_in_names() -> list[str]:
    """The encodings that ship here (tiktoken's seven: ``"gpt2"``, ``"r50k_base"``,
    ``"p50k_base"``, ``"p50k_edit"``, ``"cl100k_base"``, ``"o200k_base"``, ``"o200k_harmony"``)."""
    return [*PRESETS, *EXTRA_ENCODINGS]


def encoding_args(name: str) -> dict[str, object]:
    """``tiktoken.Encoding``'s arguments for a built-in encoding, as tiktoken's
    ``tiktoken_ext.openai_public`` constructors give them (registry.ENCODING_CONSTRUCTORS)."""
    tok = _load_once(name, ASSETS)
    return {"name": name, "pat_str": tok.pattern, "mergeable_ranks": dict(tok.token_ids),
            "special_tokens": {**tok.special_tokens, **tok.special_aliases}}


def shared_encoding(encoding_name: str) -> ReadOnlyTokenizer:
    """What ``get_encoding`` gives for a built-in encoding (``built_in_names``): the same
    shared, read-only tokenizer on every call (ValueError for another name)."""
    shared = _ENCODINGS.get(encoding_name) if isinstance(encoding_name, str) else None
    if shared is None:
        if not isinstance(encoding_name, str) or (encoding_name not in PRESETS
                                                  and encoding_name not in EXTRA_ENCODINGS):
            known = ", ".join([*PRESETS, *EXTRA_ENCODINGS])
            raise ValueError(f"unknown encoding {shorten(encoding_name)};"
                             f" bpe_core has {known}")
        tok = _load_once(encoding_name, ASSETS).copy()
        tok.token_ids, tok.parents, tok.step_of  # noqa: B018 - built now, shared read-only
        shared = object.__new__(ReadOnlyTokenizer)
        for key, value in vars(tok).items():
            if isinstance(value, dict) and key != "_cache":
                value = MappingProxyType(value)
            elif isinstance(value, list):
                value = tuple(value)
            object.__setattr__(shared, key, value)
        shared = _ENCODINGS.setdefault(encoding_name, shared)
    return shared


def encoding_name_for_model(model_name: str) -> str:
    """The encoding a model uses, by tiktoken's table: exact names first, then prefixes
    (``"gpt-4o-2024-05-13"`` is ``"o200k_base"``). KeyError for a model it does not know."""
    if model_name in MODEL_TO_ENCODING:
        return MODEL_TO_ENCODING[model_name]
    for prefix, encoding in MODEL_PREFIX_TO_ENCODING.items():
        if isinstance(model_name, str) and model_name.startswith(prefix):
            return encoding
    raise KeyError(f"no known encoding for the model {shorten(model_name)}; name the encoding"
                   " with get_encoding (e.g. get_encoding('o200k_base'))")


def published_files(name: str, directory: str | os.PathLike | None = None) -> dict[str, bytes]:
    """OpenAI's published file(s) of a preset, byte for byte, from what ships here, checked
    against the published SHA-256: ``{"o200k_base.tiktoken": b"IQ== 0\n..."}``, or GPT-2's
    ``encoder.json`` and ``vocab.bpe``. For tiktoken and other tools that read those files."""
    if name not in PRESETS:
        raise ValueError(f"unknown pretrained tokenizer {shorten(name)}; choose one of {list(PRESETS)}")
    folder = ASSETS if directory is None else Path(directory)
    out = {}
    for filename, sha256 in PRESETS[name]["files"].items():
        if name == "gpt2":
            out[filename] = _read_checked(folder, filename, sha256)
        else:
            tok = _load_once(name, folder)  # its ordinary tokens have the ranks 0..n-1
            out[filename] = tiktoken_file_text([tok.vocab[i] for i in range(len(tok.token_ids))])
            _check_sha256(out[filename], sha256, f"{filename} rebuilt from {folder}")
    return out


def preload(names: tuple[str, ...] = tuple(PRESETS)) -> threading.Thread:
    """Read and check the presets' files in a background thread (a server calls it at start, so
    that a first visit finds them loaded; a caller that asks sooner waits for that one load)."""
    def load_all() -> None:
        for name in names:
            _load_once(name, ASSETS)

    thread = threading.Thread(target=load_all, name="bpe_core preload", daemon=True)
    thread.start()
    return thread


def unchanged_preset(tok: object) -> str | None:
    """The preset ``tok`` is, unchanged (same merges, bytes and split pattern as the shipped
    files give; special tokens may have been added), or None. Loads that preset if needed."""
    name = getattr(tok, "name", None)
    if name not in PRESETS or not isinstance(tok, RegexTokenizer):
        return None
    preset = _load_once(name, ASSETS)
    if tok is preset or (tok.pattern == preset.pattern
                         and tok.byte_token_ids == preset.byte_token_ids
                         and tok.pipeline is None and tok.merges == preset.merges):
        return name
    return None


def build_assets(source: str | os.PathLike, target: str | os.PathLike = ASSETS) -> None:
    """Write the shipped files from OpenAI's (in ``source``): GPT-2's gzipped, the ``.tiktoken``
    vocabularies in the compact form, each checked to give back the published file."""
    source, target = Path(source), Path(target)
    target.mkdir(parents=True, exist_ok=True)
    for name, preset in PRESETS.items():
        for filename, sha256 in preset["files"].items():
            data = (source / ("gpt2" if name == "gpt2" else "") / filename).read_bytes()
            _check_sha256(data, sha256, f"{filename} in {source}")
            if not filename.endswith(".tiktoken"):
                out, compressed = target / (filename + ".gz"), gzip.compress(data, 9, mtime=0)
            else:
                ranks = parse_tiktoken_ranks(data, filename)
                tokens = sorted(ranks, key=ranks.__getitem__)
                if tiktoken_file_text(tokens) != data:
                    raise ValueError(f"{filename}: its ranks are not 0..n-1 in order; the compact"
                                     " form cannot stand for it")
                out = target / f"{name}.bpe.gz"
                compressed = gzip.compress(compact_form(ranks, recover_merges(ranks)), 9, mtime=0)
            partial = out.with_name(out.name + ".partial")
            partial.write_bytes(compressed)
            partial.replace(out)


if __name__ == "__main__":  # python -m bpe_core.pretrained FOLDER_WITH_OPENAIS_FILES
    if len(sys.argv) != 2:
        sys.exit("usage: python -m bpe_core.pretrained FOLDER (with gpt2/encoder.json,"
                 " gpt2/vocab.bpe, cl100k_base.tiktoken, o200k_base.tiktoken)")
    build_assets(sys.argv[1])
