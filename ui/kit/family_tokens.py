"""The tokens of a tokenizer of any family on a text, with its own tool's ids, as the kit's
``Piece`` (drawn by ``ui.kit.tokens_html``); and a SentencePiece or word-BPE tokenizer's merges,
one at a time (no Streamlit here).

A byte-level token is bytes (GPT's, Whisper's files, Mistral's tekken.json: a part of a
character drawn as its bytes, said "byte F0"). A piece of the other families is text as its
family writes it (``Piece.kind``), and is drawn so (``tokens_html.piece_parts``):

- SentencePiece: ``▁`` (its spelling of a space) is drawn as a space-marker and said "space";
  a byte-fallback piece ``<0xE4>`` (one UTF-8 byte of a character no piece holds) is drawn
  ``<0xE4>`` as a byte and said "byte E4"; the unknown piece and control pieces by name;
- word BPE: a word's last piece carries the end-of-word marker ``</w>`` (as the merges spell it),
  drawn as a marker and said "end of word"; spaces between words are no token at all; CLIP's
  pieces (bytes, ``</w>`` at a word's end) likewise, with CLIPTokenizer's ids.

``family_pieces(tok, text)`` gives the tokens with their ids (sentencepiece's, CLIPTokenizer's,
mistral-common's; word BPE, as subword-nmt, has pieces and no ids). ``after_merges(tok, k)`` is
the tokenizer with only its first k merges (Step through merges).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from bpe_core.base import Tokenizer
from bpe_core.sentencepiece import BYTE, CONTROL, NORMAL, UNKNOWN, SentencePieceBPE
from bpe_core.tekken import TekkenTokenizer
from bpe_core.word_bpe import END_OF_WORD, CLIPWordBPE, WordBPE
from bpe_core.word_bpe.clip import clip_token_bytes
from ui.kit.tokens_html import Piece

_KIND = {BYTE: "byte", UNKNOWN: "unknown", CONTROL: "control"}  # SentencePiece's -> Piece.kind


def family_pieces(tok: object, text: str) -> list[Piece]:
    """The tokens of ``text`` under ``tok``, in order, as its own tool gives them.

    SentencePiece: ``encode_as_pieces`` with ``encode``'s ids (a byte piece's is its BYTE
    piece's, an unknown run's the unknown id). Word BPE: each line's words (cut at single
    spaces, as subword-nmt's ``apply_bpe``), each word's pieces, the last with ``</w>``, no id.
    CLIP: CLIPTokenizer's ids (no start and end tokens). A tekken.json: mistral-common's ids. A
    byte-level tokenizer: ``encode_ordinary``'s ids (special-token text read as text)."""
    if isinstance(tok, SentencePieceBPE):
        return [Piece(idx, piece.encode("utf-8"), kind=_KIND.get(tok.pieces[idx][2], "piece"))
                for piece, idx in zip(tok.encode_as_pieces(text), tok.encode(text), strict=True)]
    if isinstance(tok, WordBPE):
        out = []
        for line in text.split("\n"):
            for word in line.strip("\r\n ").split(" "):
                if not word:
                    continue
                parts = tok.segment_word(word)
                out.extend(Piece(None, p.encode("utf-8"), kind="word") for p in parts[:-1])
                out.append(Piece(None, (parts[-1] + END_OF_WORD).encode("utf-8"), kind="word"))
        return out
    if isinstance(tok, CLIPWordBPE):
        return [Piece(i, clip_token_bytes(tok.tokens[i]), kind="word")
                for i in tok.encode(text, add_special_tokens=False)]
    if isinstance(tok, TekkenTokenizer):
        shift, vocab = tok.num_special_tokens, tok.encoding.vocab
        return [Piece(i, vocab[i - shift]) for i in tok.encode(text)]
    if isinstance(tok, Tokenizer):
        return [Piece(i, tok.vocab[i]) for i in tok.encode_ordinary(text)]
    raise ValueError(f"{type(tok).__name__}: no way to draw its tokens")


def piece_text(p: Piece) -> str:
    """A piece as its family writes it (``"▁the"``, ``"er</w>"``)."""
    return p.token.decode("utf-8", "replace")


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


def same_ids(pieces: Sequence[Piece], tok: object) -> list[Piece]:
    """Pieces of ``after_merges(tok, k)`` with ``tok``'s own ids."""
    if not isinstance(tok, SentencePieceBPE):
        return list(pieces)
    return [p._replace(id=tok.piece_to_id(piece_text(p)) if p.kind != "unknown" else tok.unk_id)
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
