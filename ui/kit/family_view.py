"""The tokens of a tokenizer of any family on a text, with its own tool's ids (as ``tokens_html``
pieces). Which family a tokenizer is, its name and a small training of each: ``ui.kit.families``.

Page-free. A token is drawn as what its model sees:

- byte-level BPE (GPT, Whisper's files, Mistral's tekken.json): the token's bytes, a space as
  ``·`` and a part of a character as its bytes (``⟨f0 9f⟩``, said "byte F0 byte 9F");
- SentencePiece-style BPE: the piece as written, ``▁`` for a space (visible, it is a character
  of the piece), and a byte-fallback piece ``<0xE4>`` as its byte (said "byte E4");
- word BPE: subword-nmt's pieces with their ``@@`` (a word goes on) and no id (subword-nmt
  numbers nothing); CLIP's with ``</w>`` at a word's end and CLIPTokenizer's ids.
"""

from __future__ import annotations

from bpe_core.base import Tokenizer
from bpe_core.sentencepiece import BYTE, SentencePieceBPE, piece_byte
from bpe_core.tekken import TekkenTokenizer
from bpe_core.text import bytes_to_unicode
from bpe_core.word_bpe import END_OF_WORD, CLIPWordBPE, WordBPE
from ui.kit.tokens_html import Piece

MAX_FAMILY_CHARS = 2_000  # characters of a text drawn as one family's tokens
_CHAR_BYTE = {c: b for b, c in bytes_to_unicode().items()}


def _clip_token(token: str) -> bytes:
    """A CLIP token (GPT-2's byte characters, ``</w>`` at a word's end) as bytes to draw."""
    end = token.endswith(END_OF_WORD)
    body = token[:-len(END_OF_WORD)] if end else token
    if body in ("<|startoftext|>", "<|endoftext|>"):
        return token.encode()
    return bytes(_CHAR_BYTE[c] for c in body if c in _CHAR_BYTE) + (b"</w>" if end else b"")


def family_pieces(tok: object, text: str) -> list[Piece]:
    """The tokens of ``text`` (at most ``MAX_FAMILY_CHARS`` characters of it) as its own tool
    gives them: sentencepiece's pieces and ids, subword-nmt's segmentation (``id`` None),
    CLIPTokenizer's ids (no start and end tokens), mistral-common's ids for a tekken.json, and
    ``encode_ordinary``'s ids for a byte-level tokenizer (special-token text read as text)."""
    text = text[:MAX_FAMILY_CHARS]
    if isinstance(tok, SentencePieceBPE):
        out = []
        for piece, idx in zip(tok.encode_as_pieces(text), tok.encode(text), strict=True):
            byte = piece_byte(piece) if tok.pieces[idx][2] == BYTE else None
            out.append(Piece(idx, piece.encode("utf-8") if byte is None else bytes([byte])))
        return out
    if isinstance(tok, WordBPE):
        return [Piece(None, piece.encode("utf-8")) for piece in tok.tokens(text)]
    if isinstance(tok, CLIPWordBPE):
        return [Piece(i, _clip_token(tok.tokens[i]))
                for i in tok.encode(text, add_special_tokens=False)]
    if isinstance(tok, TekkenTokenizer):
        shift, vocab = tok.num_special_tokens, tok.encoding.vocab
        return [Piece(i, vocab[i - shift]) for i in tok.encode(text)]
    if isinstance(tok, Tokenizer):
        return [Piece(i, tok.vocab[i]) for i in tok.encode_ordinary(text)]
    raise ValueError(f"{type(tok).__name__}: no way to draw its tokens")
