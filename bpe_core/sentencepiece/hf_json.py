"""Hugging Face's ``tokenizer.json`` of SentencePiece's shape (Llama 2, Mistral 7B, CodeLlama):
read with the ids of HF ``tokenizers``, and written.

The shape: ``model`` is BPE over characters (``byte_fallback``, ``fuse_unk``, ``unk_token``);
spaces become ``▁`` either by the normalizer (``Prepend`` ``▁`` then ``Replace`` " " by ``▁``, in a
``Sequence``: Llama 2's "legacy" file) or by a ``Metaspace`` pre-tokenizer (``prepend_scheme``
first, always or never; ``split``); the decoder is ``Replace`` ``▁`` -> " ", ``ByteFallback``,
``Fuse`` and ``Strip`` (or ``Metaspace``). Anything else that would change ids (a
``Precompiled`` character map, NFKC, a regex, dropout, ...) is refused by name.

``tokenizers`` differs from ``sentencepiece`` in ways this reader keeps: merges go by the file's
merge list (lower rank first, then leftmost), not by scores; added tokens (``<s>``, ``</s>``,
``<unk>``) are found in the text and the text between them is normalized piece by piece;
decoding leaves special tokens out, and an invalid byte run gives one U+FFFD per byte token.
"""

from __future__ import annotations

import json
from collections.abc import Iterable

import regex

from ..formats import hf_merge_pairs
from ..limits import MAX_PIECE_CHARS, check_json_depth
from ..text import shorten
from .model import SPACE, Literals, SentencePieceBPE, byte_piece
from .proto import BYTE, CONTROL, NORMAL, UNKNOWN, USER_DEFINED

_HF_BYTE = regex.compile(r"<0x([0-9A-Fa-f]{2})>")


def sentencepiece_shape(document: dict) -> str | None:
    """Why a tokenizer.json (parsed) is of SentencePiece's shape, or None: a BPE model with byte
    fallback, or whose spaces become ``▁`` by a Metaspace or Prepend step, and no ByteLevel
    pre-tokenizer (which makes it byte-level BPE)."""
    model = document.get("model")
    if not isinstance(model, dict) or model.get("type", "BPE") != "BPE":
        return None
    if '"ByteLevel"' in json.dumps(document.get("pre_tokenizer")):
        return None  # byte-level BPE, whatever its normalizer does
    if model.get("byte_fallback") is True:
        return "its model.byte_fallback is true"
    for key, kind in (("pre_tokenizer", "Metaspace"), ("normalizer", "Prepend"),
                      ("normalizer", "Metaspace")):
        if f'"{kind}"' in json.dumps(document.get(key)):
            return f"its {key} has a {kind} step"
    return None


def is_sentencepiece_shape(document: dict) -> bool:
    """Whether a tokenizer.json (parsed) is of SentencePiece's shape (``sentencepiece_shape``)."""
    return sentencepiece_shape(document) is not None


def _flat_steps(obj: object, key: str, name: str) -> list[dict]:
    if obj is None:
        return []
    if not isinstance(obj, dict):
        raise ValueError(f"{name}: key '{key}' should be an object")
    if obj.get("type") == "Sequence":
        inner = obj.get("normalizers", obj.get("pretokenizers", obj.get("decoders")))
        if not isinstance(inner, list):
            raise ValueError(f"{name}: key '{key}' is a Sequence without its list")
        return [s for step in inner for s in _flat_steps(step, key, name)]
    return [obj]


def _refuse_step(name: str, key: str, step: object, hint: str) -> ValueError:
    return ValueError(f"{name}: key '{key}' holds {shorten(json.dumps(step), 80)}, which"
                      f" bpe_core does not read in a SentencePiece-style file; {hint}")


def _string_pattern(step: dict) -> str | None:
    pattern = step.get("pattern")
    return pattern.get("String") if isinstance(pattern, dict) else None


class HFSentencePieceBPE(SentencePieceBPE):
    """A SentencePiece-style tokenizer.json, encoded and decoded as HF ``tokenizers`` does."""

    needs_unk = False  # model.unk_token may be null

    def __init__(self, pieces, *, merges: list[tuple[str, str]], prepend: str,
                 split: bool = False, fuse_unk: bool = True, ignore_merges: bool = False,
                 added: dict[str, tuple[int, bool]] | None = None, strip_first: bool = True,
                 **options) -> None:
        super().__init__(pieces, add_dummy_prefix=prepend != "never",
                         remove_extra_whitespaces=False, **options)
        self.prepend = prepend  # "normalizer" (Prepend: every text between added tokens),
        # "first" (Metaspace: only at the start of the text), "always", "never"
        self.split = split
        self.fuse_unk = fuse_unk
        self.ignore_merges = ignore_merges
        self.added = dict(added or {})  # content -> (id, special)
        self.strip_first = strip_first
        self.merges = list(merges)
        self._ranks = {pair: rank for rank, pair in reversed(list(enumerate(self.merges)))}
        self._vocab = {piece: i for i, (piece, _, _) in enumerate(self.pieces)}
        self._added_match = Literals(self.added, "added token", self.name)

    def _rank(self, left: str, right: str) -> float | None:
        rank = self._ranks.get((left, right))
        return None if rank is None else -rank

    def _segments(self, text: str) -> Iterable[tuple[str, int, bool]]:
        """``(text, start, is an added token)``: the text cut at its added tokens."""
        start = pos = 0
        while pos < len(text) and self.added:
            length = self._added_match.match(text, pos)
            if not length:
                pos += 1
                continue
            if pos > start:
                yield text[start:pos], start, False
            yield text[pos:pos + length], pos, True
            start = pos = pos + length
        if start < len(text):
            yield text[start:], start, False

    def _normalize_segment(self, segment: str, start: int) -> str:
        out = segment.replace(" ", SPACE)
        if self.prepend == "normalizer" or (
                self.prepend == "always" or (self.prepend == "first" and start == 0)
        ) and not out.startswith(SPACE):
            out = SPACE + out
        return out

    def _word_ids(self, word: str) -> list[int]:
        if self.ignore_merges and word in self._vocab:
            return [self._vocab[word]]
        symbols: list[str] = []
        frozen: list[bool] = []
        for ch in word:
            if ch in self._vocab:
                symbols.append(ch)
                frozen.append(False)
                continue
            if self.byte_fallback:
                spelled = [byte_piece(b) for b in ch.encode("utf-8")]
                if all(p in self._vocab for p in spelled):
                    symbols.extend(spelled)
                    frozen.extend([False] * len(spelled))
                    continue
            if self.unk_id is not None and not (self.fuse_unk and frozen and frozen[-1]):
                symbols.append(self.pieces[self.unk_id][0])
                frozen.append(True)
        merged, _ = self._merge(symbols, frozen, self._rank)
        return [self._vocab[s] for s in merged]

    def _pieces_and_ids(self, text: str) -> list[tuple[str, int]]:
        ids: list[int] = []
        for segment, start, is_added in self._segments(text):
            if is_added:
                ids.append(self.added[segment][0])
                continue
            normalized = self._normalize_segment(segment, start)
            words = (regex.split(f"(?={SPACE})", normalized) if self.split else [normalized])
            for word in words:
                if word:
                    ids.extend(self._word_ids(word))
        return [(self._token(i), i) for i in ids]

    def _token(self, idx: int) -> str:
        return self.pieces[idx][0]

    def decode(self, ids: Iterable[int], skip_special_tokens: bool = True) -> str:
        """The text of ``ids`` as ``tokenizers``' ``decode`` (special tokens left out)."""
        special = {i for i, is_special in self.added.values() if is_special}
        tokens = []
        for idx in ids:
            self._check_id(idx)
            if not (skip_special_tokens and idx in special):
                tokens.append(self.pieces[idx][0].replace(SPACE, " "))
        out: list[str] = []
        run: list[int] = []
        for token in [*tokens, None]:
            m = _HF_BYTE.fullmatch(token) if token is not None else None
            if m:
                run.append(int(m.group(1), 16))
                continue
            if run:
                try:
                    out.append(bytes(run).decode("utf-8"))
                except UnicodeDecodeError:
                    out.append("\ufffd" * len(run))
                run = []
            if token is not None:
                out.append(token)
        text = "".join(out)
        if self.strip_first and text.startswith(" "):
            text = text[1:]
        return text


def read_hf_sentencepiece(document: dict, name: str = "tokenizer.json") -> HFSentencePieceBPE:
    """A SentencePiece-style tokenizer.json (parsed) as a model with ``tokenizers``' ids; a
    ValueError naming the key bpe_core cannot hold."""
    try:
        return _build_hf_sentencepiece(document, name)
    except ValueError as e:
        why = sentencepiece_shape(document)
        if why is None:
            raise
        raise ValueError(f"{e} (read as SentencePiece-style BPE: {why})") from None


def _build_hf_sentencepiece(document: dict, name: str) -> HFSentencePieceBPE:
    model = document["model"]
    for key, harmless in (("dropout", (None, 0, 0.0)), ("continuing_subword_prefix", (None, "")),
                          ("end_of_word_suffix", (None, ""))):
        if model.get(key) not in harmless:
            raise ValueError(f"{name}: key 'model.{key}' is {shorten(model.get(key))}, which"
                             " bpe_core does not read")
    vocab, merges = model.get("vocab"), model.get("merges")
    if not isinstance(vocab, dict) or not isinstance(merges, list):
        raise ValueError(f"{name}: 'model.vocab' must be an object and 'model.merges' a list")
    by_id = sorted(vocab.items(), key=lambda item: item[1])
    if [i for _, i in by_id] != list(range(len(by_id))):
        raise ValueError(f"{name}: 'model.vocab' ids must be 0 to {len(by_id) - 1}, each once")
    pairs = hf_merge_pairs(merges, name)
    added: dict[str, tuple[int, bool]] = {}
    for k, entry in enumerate(document.get("added_tokens") or []):
        if not (isinstance(entry, dict) and isinstance(entry.get("content"), str)
                and entry.get("content") and isinstance(entry.get("id"), int)):
            raise ValueError(f"{name}: key 'added_tokens[{k}]' needs 'content' and 'id'")
        if any(entry.get(f) is True for f in ("single_word", "lstrip", "rstrip", "normalized")):
            raise ValueError(f"{name}: key 'added_tokens[{k}]' ({shorten(entry['content'])}) is"
                             " single_word, lstrip, rstrip or normalized, which bpe_core does not"
                             " read in a SentencePiece-style file")
        if entry["content"] not in vocab or vocab[entry["content"]] != entry["id"]:
            raise ValueError(f"{name}: added token {shorten(entry['content'])} (id {entry['id']})"
                             " is not the vocabulary's token of that id")
        added.setdefault(entry["content"], (entry["id"], entry.get("special") is True))
    unk = model.get("unk_token")  # null: an unknown character is left out, as tokenizers does
    if unk is not None and unk not in vocab:
        raise ValueError(f"{name}: key 'model.unk_token' must name a token of the vocabulary"
                         f" (found {shorten(unk)})")
    byte_fallback = model.get("byte_fallback") is True
    pieces = []
    for piece, i in by_id:
        if piece == unk:
            kind = UNKNOWN
        elif piece in added:
            kind = CONTROL if added[piece][1] else USER_DEFINED
        elif byte_fallback and regex.fullmatch(r"<0x[0-9A-F]{2}>", piece):
            kind = BYTE
        else:
            kind = NORMAL
        pieces.append((piece, -float(i), kind))
    prepend, split = _spaces(document, name)
    strip_first = _decoder(document.get("decoder"), name)
    try:
        return HFSentencePieceBPE(pieces, merges=pairs, prepend=prepend, split=split,
                                  fuse_unk=model.get("fuse_unk") is True,
                                  ignore_merges=model.get("ignore_merges") is True, added=added,
                                  strip_first=strip_first, byte_fallback=byte_fallback,
                                  unk_piece=unk, name=name)
    except ValueError as e:
        raise ValueError(f"{name}: {e}") from None


def _spaces(document: dict, name: str) -> tuple[str, bool]:
    """How spaces become ``▁``: ``(prepend, split)``."""
    prepend, replaced, split = "never", False, False
    for step in _flat_steps(document.get("normalizer"), "normalizer", name):
        kind = step.get("type")
        if kind == "Prepend" and step.get("prepend") == SPACE and not replaced:
            prepend = "normalizer"
        elif kind == "Replace" and _string_pattern(step) == " " and step.get("content") == SPACE:
            replaced = True
        else:
            raise _refuse_step(name, "normalizer", step, "it reads Prepend '▁' and Replace ' ' by"
                          " '▁' (a Precompiled character map or NFKC changes the text in ways"
                          " it does not follow)")
    for step in _flat_steps(document.get("pre_tokenizer"), "pre_tokenizer", name):
        if step.get("type") != "Metaspace" or step.get("replacement", SPACE) != SPACE or replaced:
            raise _refuse_step(name, "pre_tokenizer", step, "it reads one Metaspace with '▁'")
        scheme = step.get("prepend_scheme")
        if scheme is None:
            scheme = "always" if step.get("add_prefix_space", True) else "never"
        if scheme not in ("first", "always", "never"):
            raise _refuse_step(name, "pre_tokenizer", step, "prepend_scheme is first, always or never")
        prepend, replaced, split = scheme, True, step.get("split", True) is True
    if not replaced:
        raise ValueError(f"{name}: neither its normalizer nor its pre_tokenizer writes a space"
                         " as '▁', so this is not a SentencePiece-style file bpe_core reads")
    return prepend, split


def _decoder(obj: object, name: str) -> bool:
    """Whether the decoder strips the first space (``Strip`` of one " " or ``Metaspace``)."""
    strip_first = False
    for step in _flat_steps(obj, "decoder", name):
        kind = step.get("type")
        if kind in ("ByteFallback", "Fuse"):
            continue
        if kind == "Replace" and _string_pattern(step) == SPACE and step.get("content") == " ":
            continue
        if kind == "Strip" and step.get("content") == " " and step.get("stop", 0) == 0 and \
                step.get("start") in (0, 1):
            strip_first = step.get("start") == 1
            continue
        if kind == "Metaspace" and step.get("replacement", SPACE) == SPACE:
            strip_first = step.get("prepend_scheme", "always") != "never"
            continue
        raise _refuse_step(name, "decoder", step, "it reads Replace '▁' by ' ', ByteFallback, Fuse,"
                      " Strip and Metaspace")
    return strip_first


def parse_hf_sentencepiece(text: str, name: str = "tokenizer.json") -> HFSentencePieceBPE:
    """``read_hf_sentencepiece`` from the file's text."""
    check_json_depth(text, name)
    try:
        document = json.loads(text)
    except (json.JSONDecodeError, RecursionError) as e:
        raise ValueError(f"{name}: not valid JSON ({e})") from None
    if not isinstance(document, dict) or not isinstance(document.get("model"), dict):
        raise ValueError(f"{name}: expected a JSON object with a 'model' object")
    return read_hf_sentencepiece(document, name)


def _merges_of(tok: SentencePieceBPE) -> list[tuple[str, str]]:
    """Every pair of pieces that makes a piece, the highest-scoring piece's first (the order
    ``tokenizers`` merges in stands for sentencepiece's scores)."""
    ids = {p: i for i, (p, _, kind) in enumerate(tok.pieces) if kind in (NORMAL, USER_DEFINED)}
    order = sorted((i for i, (_, _, kind) in enumerate(tok.pieces) if kind == NORMAL),
                   key=lambda i: (-tok.pieces[i][1], i))
    merges = []
    for i in order:
        piece = tok.pieces[i][0]
        if len(piece) > MAX_PIECE_CHARS:
            raise ValueError(f"{tok.name}: the piece {shorten(piece, 40)} is {len(piece):,}"
                             f" characters; a tokenizer.json's merges are written for pieces of"
                             f" at most {MAX_PIECE_CHARS:,}")
        splits = [(piece[:k], piece[k:]) for k in range(1, len(piece))
                  if piece[:k] in ids and piece[k:] in ids]
        merges.extend(sorted(splits, key=lambda pair: (ids[pair[0]], ids[pair[1]])))
    return merges


def to_hf_sentencepiece_json(tok: SentencePieceBPE) -> str:
    """``tok`` as a tokenizer.json of Llama 2's shape (Prepend and Replace normalizer, BPE with
    byte fallback, Replace/ByteFallback/Fuse/Strip decoder). A model whose options that shape
    cannot say is a ValueError naming them."""
    if isinstance(tok, HFSentencePieceBPE):
        merges, prepend = tok.merges, tok.prepend
    else:
        for option, fine in (("remove_extra_whitespaces", False),
                             ("treat_whitespace_as_suffix", False), ("escape_whitespaces", True)):
            if getattr(tok, option) != fine:
                raise ValueError(f"{tok.name}: {option}={getattr(tok, option)} is not said by a"
                                 " tokenizer.json of Llama 2's shape (which keeps every space and"
                                 f" writes it '▁' in front); it needs {option}={fine}")
        merges, prepend = _merges_of(tok), "normalizer" if tok.add_dummy_prefix else "never"
    added = [{"id": i, "content": p, "single_word": False, "lstrip": False, "rstrip": False,
              "normalized": False, "special": kind == CONTROL or kind == UNKNOWN}
             for i, (p, _, kind) in enumerate(tok.pieces) if kind in (CONTROL, UNKNOWN,
                                                                        USER_DEFINED)]
    replace = {"type": "Replace", "pattern": {"String": " "}, "content": SPACE}
    if prepend == "normalizer":
        normalizer = {"type": "Sequence", "normalizers": [
            {"type": "Prepend", "prepend": SPACE}, replace]}
        pre = None
    elif prepend == "never":
        normalizer, pre = replace, None
    else:
        normalizer = None
        pre = {"type": "Metaspace", "replacement": SPACE, "prepend_scheme": prepend,
               "split": getattr(tok, "split", False)}
    decoders = [{"type": "Replace", "pattern": {"String": SPACE}, "content": " "},
                {"type": "ByteFallback"}, {"type": "Fuse"}]
    if getattr(tok, "strip_first", prepend != "never"):
        decoders.append({"type": "Strip", "content": " ", "start": 1, "stop": 0})
    document = {
        "version": "1.0", "truncation": None, "padding": None, "added_tokens": added,
        "normalizer": normalizer, "pre_tokenizer": pre, "post_processor": None,
        "decoder": {"type": "Sequence", "decoders": decoders},
        "model": {"type": "BPE", "dropout": None, "unk_token": None if tok.unk_id is None else tok.pieces[tok.unk_id][0],
                  "continuing_subword_prefix": None, "end_of_word_suffix": None,
                  "fuse_unk": getattr(tok, "fuse_unk", True), "byte_fallback": tok.byte_fallback,
                  "ignore_merges": getattr(tok, "ignore_merges", False),
                  "vocab": {p: i for i, (p, _, _) in enumerate(tok.pieces)},
                  "merges": [list(pair) for pair in merges]},
    }
    return json.dumps(document, ensure_ascii=False, indent=2)
