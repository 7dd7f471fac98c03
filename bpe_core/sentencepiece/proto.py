"""SentencePiece's ``tokenizer.model``: the protobuf wire format of ``sentencepiece_model.proto``,
read and written by hand (the library stays standard library + ``regex``).

Only what a BPE model needs is read: the pieces (piece 1, score 2, type 3 of
``ModelProto.SentencePiece``), the trainer options that change encoding (model_type 3,
treat_whitespace_as_suffix 24, byte_fallback 35, unk_surface 44, the unk/bos/eos/pad pieces
45-48; the ids 40-43 are the pieces' own) and the
normalizer (name 1, precompiled_charsmap 2, add_dummy_prefix 3, remove_extra_whitespaces 4,
escape_whitespaces 5). A file that says something bpe_core cannot do (a unigram model, a
normalizer with a character map such as ``nmt_nfkc``, a denormalizer) is a ValueError naming it,
never a model that encodes differently. The other fields are kept as bytes and written back as
they were.
"""

from __future__ import annotations

import struct
from typing import NamedTuple

from ..limits import MAX_MODEL_BYTES, MAX_TOKENS

# ModelProto.SentencePiece.Type
NORMAL, UNKNOWN, CONTROL, USER_DEFINED, UNUSED, BYTE = 1, 2, 3, 4, 5, 6
TYPE_NAMES = {NORMAL: "NORMAL", UNKNOWN: "UNKNOWN", CONTROL: "CONTROL",
              USER_DEFINED: "USER_DEFINED", UNUSED: "UNUSED", BYTE: "BYTE"}
_MODEL_TYPES = {1: "unigram", 2: "bpe", 3: "word", 4: "char"}

VARINT, FIXED64, LENGTH, FIXED32 = 0, 1, 2, 5


class Field(NamedTuple):
    number: int
    wire: int
    value: int | bytes  # an int for VARINT, bytes for the others (FIXED32/64 as raw bytes)
    raw: bytes  # the field as it was written (tag and value), to write it back unchanged


def _varint(data: bytes, pos: int, name: str) -> tuple[int, int]:
    result = shift = 0
    while True:
        if pos >= len(data):
            raise ValueError(f"{name}: the protobuf ends inside a number (is this a"
                             " sentencepiece .model file?)")
        b = data[pos]
        pos += 1
        result |= (b & 0x7F) << shift
        if not b & 0x80:
            return result, pos
        shift += 7
        if shift >= 70:
            raise ValueError(f"{name}: a protobuf number longer than 10 bytes")


def fields(data: bytes, name: str) -> list[Field]:
    """The fields of one protobuf message, in order (a ValueError naming ``name`` when the
    bytes are not a well-formed message)."""
    out = []
    pos = 0
    while pos < len(data):
        start = pos
        tag, pos = _varint(data, pos, name)
        number, wire = tag >> 3, tag & 7
        if number == 0:
            raise ValueError(f"{name}: protobuf field number 0 at byte {start}")
        if wire == VARINT:
            value, pos = _varint(data, pos, name)
        elif wire == LENGTH:
            size, pos = _varint(data, pos, name)
            if pos + size > len(data):
                raise ValueError(f"{name}: a protobuf field at byte {start} runs past the end"
                                 f" ({size:,} bytes announced)")
            value, pos = data[pos:pos + size], pos + size
        elif wire in (FIXED32, FIXED64):
            width = 4 if wire == FIXED32 else 8
            if pos + width > len(data):
                raise ValueError(f"{name}: a protobuf field at byte {start} runs past the end")
            value, pos = data[pos:pos + width], pos + width
        else:
            raise ValueError(f"{name}: protobuf wire type {wire} at byte {start} (groups are"
                             " not part of sentencepiece_model.proto)")
        out.append(Field(number, wire, value, data[start:pos]))
    return out


def looks_like_model(data: bytes) -> bool:
    """Whether ``data`` starts as a sentencepiece ModelProto does: field 1, a piece message
    holding a piece string and a 32-bit score (text files, even ones that start with blank
    lines, do not)."""
    if len(data) < 4 or data[0] != 0x0A:
        return False
    try:
        size, pos = _varint(data, 1, "")
        if pos + size > len(data) or data[pos] != 0x0A:
            return False
        first = fields(data[pos:pos + size], "")
    except ValueError:
        return False
    return ({(f.number, f.wire) for f in first} >= {(1, LENGTH), (2, FIXED32)})


def _utf8_field(value: object, name: str, what: str) -> str:
    if not isinstance(value, bytes):
        raise ValueError(f"{name}: {what} is not a string field")
    try:
        return value.decode("utf-8")
    except UnicodeDecodeError:
        raise ValueError(f"{name}: {what} is not UTF-8") from None


class ModelFile(NamedTuple):
    """What bpe_core reads of a ``tokenizer.model``."""

    pieces: list[tuple[str, float, int]]
    options: dict  # SentencePieceBPE's keyword options
    kept: list[bytes]  # ModelProto's fields 2-5 and any other, as written (to write them back)


def read_model_proto(data: bytes, name: str = "tokenizer.model") -> ModelFile:
    """A sentencepiece ``tokenizer.model``'s pieces and options; a ValueError naming what
    bpe_core cannot hold."""
    if len(data) > MAX_MODEL_BYTES:
        raise ValueError(f"{name}: {len(data):,} bytes is too large for a tokenizer file"
                         f" (at most {MAX_MODEL_BYTES:,})")
    pieces: list[tuple[str, float, int]] = []
    trainer: list[Field] = []
    normalizer: list[Field] = []
    kept: list[bytes] = []
    for f in fields(data, name):
        if f.number == 1 and f.wire == LENGTH:
            if len(pieces) >= MAX_TOKENS:
                raise ValueError(f"{name}: more than {MAX_TOKENS:,} pieces")
            pieces.append(_piece(f.value, name, len(pieces)))
            continue
        kept.append(f.raw)
        if f.number == 2 and f.wire == LENGTH:
            trainer = fields(f.value, f"{name}, trainer_spec")
        elif f.number == 3 and f.wire == LENGTH:
            normalizer = fields(f.value, f"{name}, normalizer_spec")
        elif f.number == 5 and f.wire == LENGTH:
            _refuse_charsmap(fields(f.value, f"{name}, denormalizer_spec"), name,
                             "denormalizer_spec")
    options = _trainer_options(trainer, name)
    options.update(_normalizer_options(normalizer, name))
    return ModelFile(pieces, options, kept)


def _piece(data: bytes, name: str, index: int) -> tuple[str, float, int]:
    piece, score, kind = None, 0.0, NORMAL
    where = f"{name}, piece {index}"
    for f in fields(data, where):
        if f.number == 1:
            piece = _utf8_field(f.value, where, "its text")
        elif f.number == 2 and f.wire == FIXED32:
            score = struct.unpack("<f", f.value)[0]
        elif f.number == 3 and f.wire == VARINT:
            kind = f.value
    if not piece:
        raise ValueError(f"{where}: a piece must not be empty")
    if kind not in TYPE_NAMES:
        raise ValueError(f"{where} ({piece!r}): type {kind} is none of sentencepiece's types")
    return piece, score, kind


_PIECE_NAMES = {44: "unk_surface", 45: "unk_piece", 46: "bos_piece", 47: "eos_piece",
                48: "pad_piece"}


def _trainer_options(trainer: list[Field], name: str) -> dict:
    options: dict = {}
    model_type = 1  # the proto's default: unigram
    for f in trainer:
        if f.number == 3 and f.wire == VARINT:
            model_type = f.value
        elif f.number == 24 and f.wire == VARINT:
            options["treat_whitespace_as_suffix"] = bool(f.value)
        elif f.number == 35 and f.wire == VARINT:
            options["byte_fallback"] = bool(f.value)
        elif f.number in _PIECE_NAMES and f.wire == LENGTH:
            key = _PIECE_NAMES[f.number]
            options[key] = _utf8_field(f.value, name, f"trainer_spec.{key}")
    if model_type != 2:
        kind = _MODEL_TYPES.get(model_type, f"model_type {model_type}")
        raise ValueError(f"{name}: {kind} model: bpe_core reads BPE only (trainer_spec.model_type"
                         " is not BPE)")
    return options


def _refuse_charsmap(spec: list[Field], name: str, key: str) -> None:
    rule = next((f.value for f in spec if f.number == 1 and f.wire == LENGTH), b"")
    charsmap = next((f.value for f in spec if f.number == 2 and f.wire == LENGTH), b"")
    tsv = next((f.value for f in spec if f.number == 6 and f.wire == LENGTH), b"")
    if charsmap or tsv:
        label = rule.decode("utf-8", "replace") or "custom"
        raise ValueError(
            f"{name}: its {key} '{label}' maps characters with a precompiled charsmap"
            f" ({len(charsmap or tsv):,} bytes), which bpe_core does not apply; only the"
            " identity normalizer is read (train with normalization_rule_name='identity')")


def _normalizer_options(spec: list[Field], name: str) -> dict:
    _refuse_charsmap(spec, name, "normalizer")
    keys = {3: "add_dummy_prefix", 4: "remove_extra_whitespaces", 5: "escape_whitespaces"}
    return {keys[f.number]: bool(f.value) for f in spec
            if f.number in keys and f.wire == VARINT}


# ---------------------------------------------------------------------------------------------
# writing


def _put_varint(value: int) -> bytes:
    value &= 0xFFFFFFFFFFFFFFFF  # a negative int32 is written as ten bytes, as protobuf does
    out = bytearray()
    while True:
        b = value & 0x7F
        value >>= 7
        if value:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def _put(number: int, value: int | bytes | str | float) -> bytes:
    if isinstance(value, float):
        return _put_varint(number << 3 | FIXED32) + struct.pack("<f", value)
    if isinstance(value, (bool, int)):
        return _put_varint(number << 3 | VARINT) + _put_varint(int(value))
    if isinstance(value, str):
        value = value.encode("utf-8")
    return _put_varint(number << 3 | LENGTH) + _put_varint(len(value)) + value


def write_model(pieces: list[tuple[str, float, int]], options: dict,
                kept: list[bytes] | None = None) -> bytes:
    """A ``tokenizer.model``: the pieces, then ``kept`` (the other fields of the file read) or,
    for a model made from pieces, a trainer and a normalizer spec that say ``options``."""
    out = bytearray()
    for piece, score, kind in pieces:
        body = _put(1, piece) + _put(2, float(score))
        if kind != NORMAL:
            body += _put(3, kind)
        out += _put(1, body)
    if kept is not None:
        return bytes(out) + b"".join(kept)
    trainer = _put(3, 2)  # model_type: BPE
    trainer += _put(4, len(pieces))  # vocab_size
    if options.get("treat_whitespace_as_suffix"):
        trainer += _put(24, True)
    trainer += _put(35, bool(options.get("byte_fallback")))
    for number, key in ((40, "unk_id"), (41, "bos_id"), (42, "eos_id"), (43, "pad_id")):
        if options.get(key) is not None:
            trainer += _put(number, options[key])
    for number, key in _PIECE_NAMES.items():
        if options.get(key) is not None:
            trainer += _put(number, options[key])
    normalizer = _put(1, "identity")
    for number, key in ((3, "add_dummy_prefix"), (4, "remove_extra_whitespaces"),
                        (5, "escape_whitespaces")):
        normalizer += _put(number, bool(options.get(key, True)))
    return bytes(out) + _put(2, trainer) + _put(3, normalizer)
