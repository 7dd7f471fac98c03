"""The tokens of a SentencePiece or word-BPE tokenizer, drawn as what they are (no Streamlit here).

A byte-level token is bytes (``ui.kit.tokens_html``). A piece of the other families is text as
its family writes it, and is drawn so:

- SentencePiece: ``▁`` (its spelling of a space) is drawn as a space-marker and said "space";
  a byte-fallback piece ``<0xE4>`` (one UTF-8 byte of a character no piece holds) is drawn
  ``<0xE4>`` as a byte and said "byte E4"; the unknown piece and control pieces by name;
- word BPE: a word's last piece carries the end-of-word marker ``</w>`` (as the merges spell it),
  drawn as a marker and said "end of word"; spaces between words are no token at all.

``family_pieces(tok, text)`` gives the pieces with their ids (sentencepiece's ids; word BPE, as
subword-nmt, has pieces and no ids). ``after_merges(tok, k)`` is the tokenizer with only its
first k merges (Step through merges).
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from typing import NamedTuple

from bpe_core.sentencepiece import BYTE, CONTROL, NORMAL, UNKNOWN, SentencePieceBPE, piece_byte
from bpe_core.sentencepiece.model import SPACE
from bpe_core.word_bpe import END_OF_WORD, WordBPE
from ui.kit.tokens_html import (
    CSS,
    MAX_SPANS,
    PALETTE,
    TITLE_CHARS,
    TOKEN_ROLE,
    label_parts,
    view_attrs,
)

SPACE_MARK = SPACE  # drawn as it is, greyed like the byte-level view's whitespace markers


class FamilyPiece(NamedTuple):
    """One token of a SentencePiece or word-BPE encoding."""

    id: int | None  # sentencepiece's id; None for word BPE (subword-nmt gives no ids)
    piece: str  # as the family writes it: "▁the", "<0xE4>", "low", "er</w>"
    kind: str  # "piece", "byte", "unknown", "control"


def family_pieces(tok: object, text: str) -> list[FamilyPiece]:
    """The pieces of ``text`` under a SentencePiece or word-BPE tokenizer, in order.

    SentencePiece: ``encode_as_pieces``, each piece with its id (``piece_to_id``: a byte piece's
    is its BYTE piece's, an unknown run's the unknown id; no NORMAL piece is spelled as a byte
    piece), one encoding. Word BPE: each line's words (cut at single spaces, as subword-nmt's
    ``apply_bpe``), each word's pieces, the last with ``</w>``."""
    if isinstance(tok, SentencePieceBPE):
        out = []
        for piece in tok.encode_as_pieces(text):
            idx = tok.piece_to_id(piece)
            kind = tok.pieces[idx][2]
            out.append(FamilyPiece(idx, piece, {BYTE: "byte", UNKNOWN: "unknown",
                                                CONTROL: "control"}.get(kind, "piece")))
        return out
    if isinstance(tok, WordBPE):
        out = []
        for line in text.split("\n"):
            for word in line.strip("\r\n ").split(" "):
                if not word:
                    continue
                parts = tok.segment_word(word)
                out.extend(FamilyPiece(None, p, "piece") for p in parts[:-1])
                out.append(FamilyPiece(None, parts[-1] + END_OF_WORD, "piece"))
        return out
    raise TypeError(f"not a SentencePiece or word-BPE tokenizer: {type(tok).__name__}")


def merges_made(tok: object) -> list[str]:
    """What each merge made, in order: word BPE's merged symbols (``a + b``, with ``</w>`` when
    ``b`` ends a word), SentencePiece's merged pieces (its NORMAL pieces of two characters or
    more, in the order training chose them)."""
    if isinstance(tok, WordBPE):
        return [a + b for a, b in tok.merges]
    return [p for p, _, kind in tok.pieces if kind == NORMAL and len(p) > 1]


def after_merges(tok: object, k: int, **options: object) -> object:
    """``tok`` with only its first ``k`` merges: word BPE's first k merges (subword-nmt's
    ``apply_bpe --merges k``); SentencePiece without its merged pieces past the k-th (their ids
    are not the model's: ``family_pieces`` of the result is mapped back by ``same_ids``), with
    ``options`` changed (``from_pieces``' options)."""
    if isinstance(tok, WordBPE):
        return WordBPE(tok.merges[:k], version=tok.version)
    kept, seen = [], 0
    for piece, score, kind in tok.pieces:
        if kind == NORMAL and len(piece) > 1:
            seen += 1
            if seen > k:
                continue
        kept.append((piece, score, kind))
    return SentencePieceBPE.from_pieces(kept, **{**tok.options(), **options})


def same_ids(pieces: Sequence[FamilyPiece], tok: object) -> list[FamilyPiece]:
    """Pieces of ``after_merges(tok, k)`` with ``tok``'s own ids."""
    if not isinstance(tok, SentencePieceBPE):
        return list(pieces)
    return [p._replace(id=tok.piece_to_id(p.piece) if p.kind != "unknown" else tok.unk_id)
            for p in pieces]


# -- the forest of merges: a piece as the tree of the merges that made it -----------------------

class MergeNode(NamedTuple):
    piece: str
    merge: int  # the merge that made it (1 for the first), 0 for a piece no merge made
    parts: tuple  # the MergeNodes it was made of: two (none for a character)


def merge_tree(tok: object, piece: str, made: Sequence[str]) -> MergeNode:
    """``piece`` as the tree of the merges that made it (``made``: ``merges_made(tok)``). Word
    BPE: each merge's pair. SentencePiece, whose model keeps pieces and not pairs: the pieces
    its encoder cuts the piece's text into with only the merges before it (two, for a piece the
    encoder can make; more, when only the trainer could)."""
    rank = {p: i for i, p in reversed(list(enumerate(made)))}

    def node(p: str) -> MergeNode:
        k = rank.get(p)
        if k is None:
            return MergeNode(p, 0, ())
        if isinstance(tok, WordBPE):
            parts = tok.merges[k]
        else:
            parts = after_merges(tok, k, add_dummy_prefix=False).encode_as_pieces(p)
        if len(parts) < 2:  # (a piece a merge could not have made: a leaf)
            return MergeNode(p, k + 1, ())
        return MergeNode(p, k + 1, tuple(node(q) for q in parts))

    return node(piece)


def tree_lines(tree: MergeNode) -> list[str]:
    """The tree as lines of text, a merged piece above its parts:

    >>> leaf = lambda p: MergeNode(p, 0, ())
    >>> print("\\n".join(tree_lines(MergeNode("low", 2, (MergeNode("lo", 1, (leaf("l"), leaf("o"))), leaf("w"))))))
    low  (merge 2)
    ├─ lo  (merge 1)
    │  ├─ l
    │  └─ o
    └─ w
    """
    def label(n: MergeNode) -> str:
        return f"{n.piece}  (merge {n.merge:,})" if n.merge else n.piece

    lines = [label(tree)]

    def walk(n: MergeNode, prefix: str) -> None:
        for i, part in enumerate(n.parts):
            last = i == len(n.parts) - 1
            lines.append(prefix + ("└─ " if last else "├─ ") + label(part))
            walk(part, prefix + ("   " if last else "│  "))

    walk(tree, "")
    return lines


# -- one piece, for the eye and for the ear ------------------------------------------------------

def piece_parts(p: FamilyPiece) -> list[tuple[str, str]]:
    """A piece's visible content as ``(class, text)`` parts, as ``tokens_html.label_parts``:
    ``"ws"`` for the markers ``▁`` and ``</w>``, ``"bytes"`` for a byte-fallback piece.

    >>> piece_parts(FamilyPiece(5, "▁the", "piece")), piece_parts(FamilyPiece(231, "<0xE4>", "byte"))
    ([('ws', '▁'), ('', 'the')], [('bytes', '<0xE4>')])
    >>> piece_parts(FamilyPiece(None, "er</w>", "piece"))
    [('', 'er'), ('ws', '</w>')]
    """
    if p.kind in ("byte", "control"):
        return [("bytes" if p.kind == "byte" else "ctl", p.piece)]
    body, end = p.piece, ""
    if p.id is None and body.endswith(END_OF_WORD):
        body, end = body[:-len(END_OF_WORD)], END_OF_WORD
    out: list[tuple[str, str]] = []
    for i, run in enumerate(body.split(SPACE_MARK)):
        if i:
            out.append(("ws", SPACE_MARK))
        if run:
            out.extend(label_parts(run.encode("utf-8", "surrogatepass")))
    if end:
        out.append(("ws", end))
    return out


def piece_spoken(p: FamilyPiece) -> str:
    """What a screen reader says for a piece: ``▁`` as "space", ``<0xE4>`` as "byte E4",
    ``</w>`` as "end of word", and the id.

    >>> piece_spoken(FamilyPiece(5, "▁the", "piece")), piece_spoken(FamilyPiece(231, "<0xE4>", "byte"))
    ('space the, id 5', 'byte E4, id 231')
    >>> piece_spoken(FamilyPiece(None, "er</w>", "piece"))
    'er end of word'
    """
    if p.kind == "byte":
        words = f"byte {piece_byte(p.piece):02X}"
    elif p.kind in ("unknown", "control"):
        words = f"{p.kind} piece {p.piece[:TITLE_CHARS]}"
    else:
        words = " ".join("space" if cls == "ws" and text == SPACE_MARK else
                         "end of word" if cls == "ws" else text
                         for cls, text in piece_parts(p))
    return words if p.id is None else f"{words}, id {p.id}"


def piece_title(p: FamilyPiece) -> str:
    """The hover text: the piece as its family writes it, its id, and what a marker means."""
    title = f"piece '{p.piece[:TITLE_CHARS]}'" + (f" · id {p.id}" if p.id is not None else "")
    if p.kind == "byte":
        title += f" · byte fallback: byte {piece_byte(p.piece):02X} of a character no piece holds"
    elif p.kind == "unknown":
        title += " · no piece holds it (unknown)"
    elif SPACE_MARK in p.piece:
        title += " · ▁ is a space"
    elif p.id is None and p.piece.endswith(END_OF_WORD):
        title += " · </w>: the end of a word"
    return title


def family_tokens_html(pieces: Sequence[FamilyPiece], *, ids: bool = False,
                       large: bool = False, name: str = "Tokens",
                       max_tokens: int = MAX_SPANS) -> tuple[str, int]:
    """HTML for pieces, as ``tokens_html`` draws tokens (same styles, neighbours in different
    colours, a list for a screen reader); returns ``(html, how many were left out)``."""
    spans = []
    for i, p in enumerate(pieces[:max_tokens]):
        if ids and p.id is not None:
            label = f'<span class="id">{int(p.id)}</span>'
        else:
            label = "".join(f'<span class="{cls}">{html.escape(text)}</span>' if cls
                            else html.escape(text) for cls, text in piece_parts(p))
        title = html.escape(piece_title(p))
        spoken = html.escape(piece_spoken(p))
        spans.append(f'<span class="t c{i % len(PALETTE)}" {TOKEN_ROLE} title="{title}"'
                     f' aria-label="{spoken}">{label}</span>')
    classes = "bpe-tokens" + (" large" if large else "") + (" ids" if ids else "")
    body = f'<div class="{classes}" {view_attrs(name)}>{"".join(spans)}</div>'
    return CSS + body, len(pieces) - len(spans)
