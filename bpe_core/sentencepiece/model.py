"""SentencePiece-style BPE: pieces over Unicode characters, ``▁`` for a space, byte fallback.

``SentencePieceBPE`` encodes and decodes as the ``sentencepiece`` package does for a BPE model
(its ``bpe_model.cc``, normalizer and processor, read and written here anew):

- the text is normalized: leading and trailing spaces dropped and runs of spaces made one
  (``remove_extra_whitespaces``), ``▁`` put in front (``add_dummy_prefix``; at the end with
  ``treat_whitespace_as_suffix``) and every space written ``▁`` (``escape_whitespaces``);
  only the identity normalizer (no character map such as NFKC);
- the text is cut into characters (a USER_DEFINED piece is one symbol, never merged), then the
  adjacent pair whose joined piece has the highest score is merged, again and again; of equal
  scores, the leftmost pair first. An UNUSED piece is merged like any other and then split back
  into the two symbols it was made of;
- a symbol that is no piece is unknown: with ``byte_fallback`` it becomes its UTF-8 bytes'
  pieces (``<0xE4>``), otherwise the unknown piece's id (a run of unknown symbols is one id);
- decoding writes ``▁`` as a space and drops the first piece's leading ``▁``, control pieces
  give nothing, the unknown id gives `` ⁇ `` (``unk_surface``), and a run of byte pieces is
  decoded as UTF-8, each byte of an invalid sequence as U+FFFD.
"""

from __future__ import annotations

import heapq
import struct
from collections.abc import Callable, Iterable

import regex

from ..limits import MAX_SYMBOL_CHARS
from ..text import shorten
from .proto import BYTE, CONTROL, NORMAL, TYPE_NAMES, UNKNOWN, UNUSED, USER_DEFINED

SPACE = "\u2581"  # ▁, sentencepiece's spelling of a space
UNK_SURFACE = " \u2047 "  # " ⁇ ", what the unknown id decodes to by default
_LONE_SURROGATE = regex.compile(r"[\ud800-\udfff]")
_BYTE_PIECE = regex.compile(r"<0x([0-9A-F]{2})>")
_OPTIONS = ("add_dummy_prefix", "remove_extra_whitespaces", "escape_whitespaces",
            "treat_whitespace_as_suffix", "byte_fallback", "unk_surface", "unk_piece",
            "bos_piece", "eos_piece", "pad_piece")


def byte_piece(b: int) -> str:
    """The piece of one byte under byte fallback: ``<0xE4>``."""
    return f"<0x{b:02X}>"


def piece_byte(piece: str) -> int | None:
    """The byte a byte piece stands for (``<0xE4>`` -> 0xE4), None for any other piece."""
    m = _BYTE_PIECE.fullmatch(piece)
    return int(m.group(1), 16) if m else None


def float32(x: float) -> float:
    """``x`` as the 32-bit float a .model file holds (sentencepiece compares scores so)."""
    return struct.unpack("<f", struct.pack("<f", x))[0]


def decode_utf8_like_sentencepiece(data: bytes) -> str:
    """Bytes to text as sentencepiece decodes a run of byte pieces: one character at a time,
    each byte that does not start a valid UTF-8 character is one U+FFFD (Python's "replace"
    would give one U+FFFD for a cut sequence of several bytes)."""
    out = []
    pos = 0
    while pos < len(data):
        lead = data[pos]
        width = (1 if lead < 0x80 else 2 if lead & 0xE0 == 0xC0 else 3 if lead & 0xF0 == 0xE0
                 else 4 if lead & 0xF8 == 0xF0 else 0)
        try:
            if not width:
                raise UnicodeDecodeError("utf-8", data, pos, pos + 1, "invalid start byte")
            out.append(data[pos:pos + width].decode("utf-8"))
            pos += width
        except UnicodeDecodeError:
            out.append("\ufffd")
            pos += 1
    return "".join(out)


class Literals:
    """The longest of a set of strings (user-defined pieces, added tokens) at a position of a
    text, found by their first character and their lengths: a position costs at most as many
    lookups as there are distinct lengths, and each string is at most ``MAX_SYMBOL_CHARS``
    (a ValueError naming ``name`` otherwise)."""

    def __init__(self, words: Iterable[str], what: str, name: str) -> None:
        self.words = frozenset(words)
        lengths: dict[str, set[int]] = {}
        for word in self.words:
            if len(word) > MAX_SYMBOL_CHARS:
                raise ValueError(f"{name}: the {what} {shorten(word, 40)} is {len(word):,}"
                                 f" characters; bpe_core reads at most {MAX_SYMBOL_CHARS}")
            lengths.setdefault(word[0], set()).add(len(word))
        self._lengths = {first: sorted(ls, reverse=True) for first, ls in lengths.items()}

    def match(self, text: str, pos: int) -> int:
        """The length of the longest string at ``pos``, 0 for none."""
        for length in self._lengths.get(text[pos], ()):
            if text[pos:pos + length] in self.words:
                return length
        return 0

    def units(self, text: str) -> list[str]:
        """``text`` cut into the strings found (longest first, left to right) and characters."""
        if not self.words:
            return list(text)
        out = []
        pos = 0
        while pos < len(text):
            length = self.match(text, pos) or 1
            out.append(text[pos:pos + length])
            pos += length
        return out


class SentencePieceBPE:
    """A SentencePiece BPE model: pieces with scores and types, and the options that change
    encoding. ``family`` is ``"sentencepiece"``.

    ``encode(text)`` gives the ids ``sentencepiece.SentencePieceProcessor.encode`` gives,
    ``encode_as_pieces(text)`` its pieces, ``decode(ids)`` its text. Read a file with
    ``read_model`` (a ``tokenizer.model``) or ``hf_json.read_hf_sentencepiece`` (a
    tokenizer.json), write one with ``to_model_file`` / ``hf_json.to_hf_json``.
    """

    family = "sentencepiece"
    needs_unk = True  # sentencepiece needs an UNKNOWN piece (a tokenizer.json may have none)

    def __init__(self, pieces: Iterable[tuple[str, float, int]], *,
                 add_dummy_prefix: bool = True, remove_extra_whitespaces: bool = True,
                 escape_whitespaces: bool = True, treat_whitespace_as_suffix: bool = False,
                 byte_fallback: bool = False, unk_surface: str = UNK_SURFACE,
                 unk_piece: str = "<unk>", bos_piece: str = "<s>", eos_piece: str = "</s>",
                 pad_piece: str = "<pad>", name: str = "sentencepiece BPE",
                 kept_fields: list[bytes] | None = None) -> None:
        self.name = name
        # the fields of the tokenizer.model it was read from, other than the pieces, as written
        self.kept_fields = kept_fields
        self.add_dummy_prefix = add_dummy_prefix
        self.remove_extra_whitespaces = remove_extra_whitespaces
        self.escape_whitespaces = escape_whitespaces
        self.treat_whitespace_as_suffix = treat_whitespace_as_suffix
        self.byte_fallback = byte_fallback
        self.unk_surface = unk_surface
        self.unk_piece, self.bos_piece = unk_piece, bos_piece
        self.eos_piece, self.pad_piece = eos_piece, pad_piece
        self.pieces: list[tuple[str, float, int]] = []
        self._normal: dict[str, int] = {}  # NORMAL, USER_DEFINED and UNUSED pieces
        self._reserved: dict[str, int] = {}  # UNKNOWN, CONTROL and BYTE pieces
        self._byte_ids: dict[int, int] = {}
        user_defined = []
        unk = None
        for i, entry in enumerate(pieces):
            try:
                piece, score, kind = entry
            except (TypeError, ValueError):
                raise ValueError(f"{name}: piece {i} should be (piece, score, type), found"
                                 f" {entry!r:.80}") from None
            if not isinstance(piece, str) or not piece:
                raise ValueError(f"{name}: piece {i} must be a non-empty string")
            if kind not in TYPE_NAMES:
                raise ValueError(f"{name}: piece {i} ({piece!r}) has type {kind!r}, none of"
                                 f" sentencepiece's types {sorted(TYPE_NAMES)}")
            table = self._normal if kind in (NORMAL, USER_DEFINED, UNUSED) else self._reserved
            if piece in table:
                raise ValueError(f"{name}: piece {i} ({piece!r}) is already piece"
                                 f" {table[piece]}")
            table[piece] = i
            self.pieces.append((piece, float32(float(score)), kind))
            if kind == USER_DEFINED:
                user_defined.append(piece)
            elif kind == UNKNOWN:
                if unk is not None:
                    raise ValueError(f"{name}: piece {i} ({piece!r}) is a second UNKNOWN piece"
                                     f" (the first is {unk})")
                unk = i
            elif kind == BYTE:
                b = piece_byte(piece)
                if b is None:
                    raise ValueError(f"{name}: piece {i} ({piece!r}) is a BYTE piece, which"
                                     " must be written <0x00> to <0xFF>")
                if not byte_fallback:
                    raise ValueError(f"{name}: piece {i} ({piece!r}) is a BYTE piece although"
                                     " byte_fallback is off")
                self._byte_ids[b] = i
        if unk is None and self.needs_unk:
            raise ValueError(f"{name}: no UNKNOWN piece (sentencepiece needs one, such as"
                             " <unk>)")
        if byte_fallback and len(self._byte_ids) != 256:
            raise ValueError(f"{name}: byte_fallback is on but {256 - len(self._byte_ids)} of"
                             " the 256 byte pieces <0x00>..<0xFF> are missing")
        self.unk_id = unk
        self._scores = [score for _, score, _ in self.pieces]
        self._user_defined_match = Literals(user_defined, "user-defined piece", name)
        self._user_defined = frozenset(user_defined)
        self._unused = frozenset(p for p, _, kind in self.pieces if kind == UNUSED)

    @classmethod
    def from_pieces(cls, pieces: list[tuple[str, float, int]], **options) -> SentencePieceBPE:
        """A model from its pieces, in id order: ``pieces[i] = (piece, score, type)``.

        - ``piece``: the piece's text, ``▁`` for a space (``<0xE4>`` for a byte piece);
        - ``score``: a float (stored as the 32-bit float a .model holds); the encoder merges
          the pair whose joined piece scores highest (a trainer gives later merges lower
          scores: sentencepiece's BPE trainer scores the i-th merged piece ``-i``);
        - ``type``: ``NORMAL`` 1, ``UNKNOWN`` 2, ``CONTROL`` 3, ``USER_DEFINED`` 4,
          ``UNUSED`` 5, ``BYTE`` 6 (``bpe_core.sentencepiece.NORMAL`` and so on).

        Exactly one UNKNOWN piece; with ``byte_fallback=True`` the 256 BYTE pieces. Options
        (keywords, sentencepiece's defaults): ``add_dummy_prefix=True``,
        ``remove_extra_whitespaces=True``, ``escape_whitespaces=True``,
        ``treat_whitespace_as_suffix=False``, ``byte_fallback=False``,
        ``unk_surface=" ⁇ "``, ``unk_piece="<unk>"``, ``bos_piece="<s>"``,
        ``eos_piece="</s>"``, ``pad_piece="<pad>"``, ``name=``. A bad piece is a ValueError
        naming it.
        """
        return cls(pieces, **options)

    # -----------------------------------------------------------------------------------------
    # the vocabulary

    @property
    def vocab_size(self) -> int:
        return len(self.pieces)

    def __len__(self) -> int:
        return len(self.pieces)

    def options(self) -> dict:
        """The keyword options this model was made with (``from_pieces(pieces, **options)``)."""
        return {key: getattr(self, key) for key in _OPTIONS}

    def _control_id(self, piece: str) -> int:
        idx = self.piece_to_id(piece)
        return idx if idx is not None and self.pieces[idx][2] == CONTROL else -1

    @property
    def bos_id(self) -> int:
        return self._control_id(self.bos_piece)

    @property
    def eos_id(self) -> int:
        return self._control_id(self.eos_piece)

    @property
    def pad_id(self) -> int:
        return self._control_id(self.pad_piece)

    def piece_to_id(self, piece: str) -> int:
        """A piece's id (the unknown id for a text that is no piece), as sentencepiece."""
        found = self._reserved.get(piece)
        if found is None:
            found = self._normal.get(piece, self.unk_id)
        return found

    def id_to_piece(self, idx: int) -> str:
        self._check_id(idx)
        return self.pieces[idx][0]

    def _check_id(self, idx: int) -> None:
        if not isinstance(idx, int) or isinstance(idx, bool) or not 0 <= idx < len(self.pieces):
            raise ValueError(f"{self.name}: invalid id {idx!r} (ids are 0 to"
                             f" {len(self.pieces) - 1})")

    @property
    def vocab(self) -> dict[int, bytes]:
        """Each id's bytes as text shows them: a space for ``▁``, a byte piece's byte, nothing
        for a control or unknown piece."""
        out = {}
        for i, (piece, _, kind) in enumerate(self.pieces):
            if kind == BYTE:
                out[i] = bytes([piece_byte(piece)])
            elif kind in (CONTROL, UNKNOWN):
                out[i] = b""
            else:
                out[i] = piece.replace(SPACE, " ").encode("utf-8")
        return out

    # -----------------------------------------------------------------------------------------
    # encoding

    def normalize(self, text: str) -> str:
        """The text the pieces are found in (sentencepiece's normalizer, identity rule)."""
        if not text:
            return ""
        rew, escape = self.remove_extra_whitespaces, self.escape_whitespaces
        if _LONE_SURROGATE.search(text):  # not UTF-8: sentencepiece reads each of its 3 bytes as U+FFFD
            text = _LONE_SURROGATE.sub("\ufffd" * 3, text)
        units = self._user_defined_match.units(text)
        start = 0
        if rew:
            while start < len(units) and units[start] == " ":
                start += 1
        if start == len(units):
            return ""
        out = []
        if self.add_dummy_prefix and not self.treat_whitespace_as_suffix:
            out.append(SPACE if escape else " ")
        prev_space = rew
        for unit in units[start:]:
            if prev_space:
                unit = unit.lstrip(" ")
            if unit:
                out.append(unit.replace(" ", SPACE) if escape else unit)
                prev_space = unit.endswith(" ")
            if not rew:
                prev_space = False
        normalized = "".join(out)
        if rew:
            normalized = normalized.rstrip(SPACE if escape else " ")
        if self.add_dummy_prefix and self.treat_whitespace_as_suffix:
            normalized += SPACE if escape else " "
        return normalized

    def _priority(self, left: str, right: str) -> float | None:
        """How eagerly the pair is merged (higher first), None when it is not merged."""
        idx = self._normal.get(left + right)
        return None if idx is None else self._scores[idx]

    def _merge(self, symbols: list[str], frozen: list[bool],
               priority: Callable[[str, str], float | None]
               ) -> tuple[list[str], dict[str, tuple[str, str]]]:
        """``symbols`` once no pair can be merged: the pair of highest ``priority`` first, the
        leftmost of equal ones (sentencepiece's agenda; a ``frozen`` symbol is never merged);
        and, for each UNUSED piece a pair could make, the last such pair (to split it back)."""
        rev: dict[str, tuple[str, str]] = {}
        if not symbols:
            return [], rev
        prev = list(range(-1, len(symbols) - 1))
        nxt = list(range(1, len(symbols) + 1))
        nxt[-1] = -1
        agenda: list[tuple[float, int, int, int]] = []

        def consider(left: int, right: int) -> None:
            if left == -1 or right == -1 or frozen[left] or frozen[right]:
                return
            a, b = symbols[left], symbols[right]
            p = priority(a, b)
            if p is not None:
                heapq.heappush(agenda, (-p, left, right, len(a) + len(b)))
                if a + b in self._unused:
                    rev[a + b] = (a, b)

        for i in range(1, len(symbols)):
            consider(i - 1, i)
        while agenda:
            _, left, right, size = heapq.heappop(agenda)
            a, b = symbols[left], symbols[right]
            if not a or not b or len(a) + len(b) != size:
                continue  # one of its symbols was merged since
            symbols[left], symbols[right] = a + b, ""
            nxt[left] = nxt[right]
            if nxt[right] >= 0:
                prev[nxt[right]] = left
            consider(prev[left], left)
            consider(left, nxt[left])
        out = []
        i = 0
        while i != -1:
            out.append(symbols[i])
            i = nxt[i]
        return out, rev

    def _unmerge_unused(self, symbols: list[str], rev: dict[str, tuple[str, str]]) -> list[str]:
        """An UNUSED piece the merges made is split back into the two it was made of."""
        if not rev:
            return symbols
        out: list[str] = []

        def resegment(piece: str) -> None:
            parts = rev.get(piece) if piece in self._unused else None
            if parts is None:
                out.append(piece)
            else:
                resegment(parts[0])
                resegment(parts[1])

        for s in symbols:
            resegment(s)
        return out

    def _pieces_and_ids(self, text: str) -> list[tuple[str, int]]:
        symbols = self._user_defined_match.units(self.normalize(text))
        frozen = [s in self._user_defined for s in symbols]
        symbols = self._unmerge_unused(*self._merge(symbols, frozen, self._priority))
        out: list[tuple[str, int]] = []
        prev_unk = False
        for s in symbols:
            idx = self.piece_to_id(s)
            unk = idx == self.unk_id
            if unk and self.byte_fallback:
                out.extend((byte_piece(b), self._byte_ids[b]) for b in s.encode("utf-8"))
            elif unk and prev_unk:
                out[-1] = (out[-1][0] + s, idx)  # a run of unknown symbols is one piece
            else:
                out.append((s, idx))
            prev_unk = unk
        return out

    def encode(self, text: str) -> list[int]:
        """The ids of ``text`` (``sentencepiece``'s ``encode(text)``; no bos/eos added)."""
        return [idx for _, idx in self._pieces_and_ids(text)]

    def encode_as_pieces(self, text: str) -> list[str]:
        """The pieces of ``text`` (``encode(text, out_type=str)``): an unknown run is its own
        text, a byte fallback ``<0xE4>``."""
        return [piece for piece, _ in self._pieces_and_ids(text)]

    # -----------------------------------------------------------------------------------------
    # decoding

    def decode(self, ids: Iterable[int]) -> str:
        """The text of ``ids``, as ``sentencepiece``'s ``decode(ids)``."""
        ids = list(ids)
        for idx in ids:
            self._check_id(idx)
        return self.decode_pieces([self.pieces[idx][0] for idx in ids])

    def decode_pieces(self, pieces: Iterable[str]) -> str:
        """The text of pieces (``decode_pieces``): a piece that is none is the unknown one."""
        text: list[str] = []
        run: list[int] = []
        bos_ws = True  # whether the next piece's leading ▁ is the dummy prefix
        bos_ws_seen = False
        strip_first = self.add_dummy_prefix or self.remove_extra_whitespaces
        for piece in pieces:
            idx = self.piece_to_id(piece)
            kind = self.pieces[idx][2]
            if kind == BYTE:
                run.append(piece_byte(self.pieces[idx][0]))
                continue
            if run:
                text.append(decode_utf8_like_sentencepiece(bytes(run)))
                run = []
            if bos_ws_seen or any(text):
                bos_ws = False
            bos_ws_seen = False
            if kind == CONTROL:
                continue
            if kind == UNKNOWN:
                text.append(self.unk_surface if piece == self.pieces[idx][0] else piece)
                continue
            if bos_ws and strip_first and piece.startswith(SPACE):
                piece = piece[1:]
                bos_ws_seen = not self.remove_extra_whitespaces
            text.append(piece.replace(SPACE, " "))
        if run:
            text.append(decode_utf8_like_sentencepiece(bytes(run)))
        return "".join(text)

    def __repr__(self) -> str:
        return (f"SentencePieceBPE({self.name!r}, {len(self.pieces)} pieces,"
                f" byte_fallback={self.byte_fallback})")


def read_model(data: bytes, name: str = "tokenizer.model") -> SentencePieceBPE:
    """A model from a sentencepiece ``tokenizer.model``'s bytes (a ValueError naming what
    bpe_core cannot hold: a unigram model, an NFKC character map, ...)."""
    from .proto import read_model_proto

    parsed = read_model_proto(data, name)
    return SentencePieceBPE(parsed.pieces, name=name, kept_fields=parsed.kept, **parsed.options)


def to_model_file(tok: SentencePieceBPE) -> bytes:
    """``tok`` as a sentencepiece ``tokenizer.model``; a model read from one keeps that file's
    other fields (trainer options, normalizer) as they were."""
    from .proto import write_model

    if getattr(tok, "merges", None) is not None:  # hf_json's model
        raise ValueError(f"{tok.name} was read from a tokenizer.json, whose merges go by their"
                         " order, pair by pair; a tokenizer.model holds one score per piece and"
                         " cannot say that exactly: write it back with to_hf_sentencepiece_json")
    options = tok.options()
    options.update(unk_id=tok.unk_id, bos_id=tok.bos_id, eos_id=tok.eos_id, pad_id=tok.pad_id)
    return write_model(tok.pieces, options, tok.kept_fields)
