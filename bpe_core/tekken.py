"""Mistral's ``tekken.json``: byte-level BPE in a JSON of its own, with mistral-common's ids.

The file holds ``config`` (``pattern``: tiktoken's split pattern; ``default_vocab_size``: all
tokens, special ones included; ``default_num_special_tokens``; ``version``: "v3", "v7", ...),
``vocab`` (``{"rank", "token_bytes": base64, "token_str"}`` in rank order, the 256 single bytes
first) and ``special_tokens`` (``{"rank", "token_str", "is_control"}``).

mistral-common's ``Tekkenizer`` (read in its source: ``tokens/tokenizers/tekken.py``) gives the
ids so, and so does ``TekkenTokenizer`` here:

- the special tokens come first, ids 0 .. n-1, n = ``default_num_special_tokens``; when the
  file lists fewer, the rest are ``<SPECIAL_k>`` at id k; a file without ``special_tokens`` of
  version v7 or older has mistral-common's 20 old ones (``<unk>``, ``<s>``, ``</s>``, ...);
- the vocabulary is the first ``default_vocab_size - n`` entries of ``vocab`` (the rest are
  left out), a tiktoken encoding with no special tokens, and its ids are shifted by n;
- ``encode(text, bos, eos)`` never reads special-token text as a special token (it is
  ordinary text), and puts ``<s>``/``</s>`` around when asked; ``decode`` leaves the special
  tokens out (mistral-common's default policy, "ignore"), or keeps their text ("keep").

``family`` is ``"byte-level"``.
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Sequence

from .core import Encoding
from .limits import MAX_MODEL_BYTES, MAX_TOKENS, check_json_depth, check_size
from .text import shorten

WHAT = "Mistral tekken.json"
VERSIONS = ("v1", "v2", "v3", "v7", "v11", "v13", "v15")  # mistral-common's TokenizerVersion
OLD_SPECIALS = ("<unk>", "<s>", "</s>", "[INST]", "[/INST]", "[AVAILABLE_TOOLS]",
                "[/AVAILABLE_TOOLS]", "[TOOL_RESULTS]", "[/TOOL_RESULTS]", "[TOOL_CALLS]", "[IMG]",
                "<pad>", "[IMG_BREAK]", "[IMG_END]", "[PREFIX]", "[MIDDLE]", "[SUFFIX]",
                "[SYSTEM_PROMPT]", "[/SYSTEM_PROMPT]", "[TOOL_CONTENT]")


def is_tekken(document: object) -> bool:
    """Whether a parsed JSON document is shaped like a tekken.json (``config`` and ``vocab``)."""
    return (isinstance(document, dict) and isinstance(document.get("config"), dict)
            and "vocab" in document and "model" not in document)


class TekkenTokenizer:
    """A tekken.json's tokenizer with mistral-common's ids (see the module's text)."""

    family = "byte-level"

    def __init__(self, encoding: Encoding, specials: Sequence[str], version: str,
                 name: str = WHAT) -> None:
        self.encoding = encoding  # the vocabulary alone: ids before the shift
        self.special_tokens = list(specials)
        self.version = version
        self.name = name
        self.num_special_tokens = len(self.special_tokens)
        self._special_id = {token: i for i, token in enumerate(self.special_tokens)}

    def __repr__(self) -> str:
        return (f"TekkenTokenizer({self.name!r}, {self.n_words:,} tokens,"
                f" {self.num_special_tokens} special)")

    @property
    def n_words(self) -> int:
        return self.num_special_tokens + self.encoding.n_vocab

    vocab_size = n_words

    def special_id(self, token: str) -> int:
        """A special token's id (ValueError when the file has no such token)."""
        if token not in self._special_id:
            raise ValueError(f"{self.name} has no special token {shorten(token)}")
        return self._special_id[token]

    @property
    def bos_id(self) -> int:
        return self.special_id("<s>")

    @property
    def eos_id(self) -> int:
        return self.special_id("</s>")

    def encode(self, text: str, bos: bool = False, eos: bool = False) -> list[int]:
        """mistral-common's ``Tekkenizer.encode(text, bos, eos)``."""
        shift = self.num_special_tokens
        ids = [i + shift for i in self.encoding.encode_ordinary(text)]
        return [self.bos_id] * bos + ids + [self.eos_id] * eos

    def decode(self, ids: Sequence[int], special_token_policy: str = "ignore") -> str:
        """Text back; special tokens left out ("ignore"), written ("keep") or refused
        ("raise")."""
        if special_token_policy not in ("ignore", "keep", "raise"):
            raise ValueError("special_token_policy is 'ignore', 'keep' or 'raise'")
        shift, out, run = self.num_special_tokens, [], []
        for i in ids:
            if i < shift:
                if special_token_policy == "raise":
                    raise ValueError(f"{i} is a special token ({self.special_tokens[i]})")
                if run:
                    out.append(self.encoding.decode(run))
                    run = []
                if special_token_policy == "keep":
                    out.append(self.special_tokens[i])
            else:
                run.append(i - shift)
        if run:
            out.append(self.encoding.decode(run))
        return "".join(out)


def _need(condition: bool, name: str, message: str) -> None:
    if not condition:
        raise ValueError(f"{name} ({WHAT}): {message}")


def read_tekken(data: bytes | str, name: str = "tekken.json") -> TekkenTokenizer:
    """A tekken.json's tokenizer; a file that lacks what mistral-common needs is a ValueError
    that names the format and what is missing."""
    text = data.decode("utf-8") if isinstance(data, bytes) else data
    check_size(len(text), MAX_MODEL_BYTES, name)
    check_json_depth(text, name)
    document = json.loads(text)
    _need(isinstance(document, dict), name, "not a JSON object")
    config = document.get("config")
    _need(isinstance(config, dict), name, "it has no \"config\" object (pattern, vocabulary size"
          " and number of special tokens)")
    for key, kind in (("pattern", str), ("default_vocab_size", int),
                      ("default_num_special_tokens", int)):
        value = config.get(key)
        _need(isinstance(value, kind) and not isinstance(value, bool), name,
              f"config.{key} is missing or not a {'string' if kind is str else 'whole number'}")
    version = config.get("version")
    _need(version in VERSIONS, name, f"config.version {shorten(version)} is not one that"
          f" mistral-common knows ({', '.join(VERSIONS)})")
    vocab = document.get("vocab")
    _need(isinstance(vocab, list), name, "it has no \"vocab\" list")
    check_size(len(vocab), MAX_TOKENS, f"the vocab of {name}")
    n_special = config["default_num_special_tokens"]
    size = config["default_vocab_size"]
    _need(0 <= n_special <= size, name, f"config.default_num_special_tokens ({n_special}) must"
          f" be between 0 and config.default_vocab_size ({size})")
    inner = size - n_special
    _need(inner <= len(vocab), name, f"config.default_vocab_size ({size:,}) asks for {inner:,}"
          f" tokens beside the {n_special} special ones, but \"vocab\" holds {len(vocab):,}")
    _need(inner >= 256, name, "the vocabulary must hold the 256 single bytes first")
    ranks: dict[bytes, int] = {}
    for i, entry in enumerate(vocab[:inner]):
        _need(isinstance(entry, dict) and entry.get("rank") == i
              and isinstance(entry.get("token_bytes"), str), name,
              f"vocab entry {i} must be {{\"rank\": {i}, \"token_bytes\": base64, ...}}, found"
              f" {shorten(entry)}")
        try:
            token = base64.b64decode(entry["token_bytes"], validate=True)
        except (binascii.Error, ValueError):
            raise ValueError(f"{name} ({WHAT}): vocab entry {i}'s token_bytes is not base64") from None
        _need(i >= 256 or token == bytes([i]), name, f"vocab entry {i} must be the byte {i}")
        _need(token not in ranks, name, f"vocab entries {ranks.get(token)} and {i} are the same"
              " token")
        ranks[token] = i
    listed = document.get("special_tokens")
    if listed is None:
        _need(VERSIONS.index(version) <= VERSIONS.index("v7"), name,
              f"it lists no \"special_tokens\", which mistral-common needs from version v11 on"
              f" (this file is {version})")
        specials = list(OLD_SPECIALS)
    else:
        _need(isinstance(listed, list), name, "\"special_tokens\" must be a list")
        specials = []
        for i, entry in enumerate(listed):
            _need(isinstance(entry, dict) and isinstance(entry.get("token_str"), str)
                  and entry.get("rank") == i, name,
                  f"special token {i} must be {{\"rank\": {i}, \"token_str\": ...}}, found"
                  f" {shorten(entry)}")
            specials.append(entry["token_str"])
    _need(len(set(specials)) == len(specials), name, "two special tokens are the same")
    _need(len(specials) <= n_special, name, f"it lists {len(specials)} special tokens, more than"
          f" config.default_num_special_tokens ({n_special})")
    specials += [f"<SPECIAL_{i}>" for i in range(len(specials), n_special)]
    _need(len(set(specials)) == n_special, name, "a filler <SPECIAL_k> is also a listed token")
    try:
        encoding = Encoding(name, pat_str=config["pattern"], mergeable_ranks=ranks,
                            special_tokens={})
    except ValueError as e:
        raise ValueError(f"{name} ({WHAT}): {e}") from None
    encoding.from_file = True  # its pattern is the file's: bounded as a file's
    return TekkenTokenizer(encoding, specials, version, name)
