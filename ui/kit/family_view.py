"""The three families of BPE as the app draws them: which family a tokenizer is, its tokens on a
text with its own tool's ids (as ``tokens_html`` pieces), and a small training of each family.

Page-free. A token is drawn as what its model sees:

- byte-level BPE (GPT, Whisper's files, Mistral's tekken.json): the token's bytes, a space as
  ``·`` and a part of a character as its bytes (``⟨f0 9f⟩``, said "byte F0 byte 9F");
- SentencePiece-style BPE: the piece as written, ``▁`` for a space (visible, it is a character
  of the piece), and a byte-fallback piece ``<0xE4>`` as its byte (said "byte E4");
- word BPE: subword-nmt's pieces with their ``@@`` (a word goes on) and no id (subword-nmt
  numbers nothing); CLIP's with ``</w>`` at a word's end and CLIPTokenizer's ids.

``train_family(family, text, merges)`` trains one family on a text at a small size (the Lesson's
side-by-side step): GPT-4's split for byte-level BPE, sentencepiece's BPE trainer with byte
fallback, subword-nmt's ``learn_bpe`` settings for word BPE.
"""

from __future__ import annotations

from bpe_core import GPT4_SPLIT_PATTERN, RegexTokenizer
from bpe_core.base import Tokenizer
from bpe_core.sentencepiece import BYTE, SentencePieceBPE, piece_byte, train_sentencepiece
from bpe_core.tekken import TekkenTokenizer
from bpe_core.text import bytes_to_unicode
from bpe_core.word_bpe import END_OF_WORD, CLIPWordBPE, WordBPE, learn_merges
from ui.kit.tokens_html import Piece

# a family (a tokenizer's ``family``) -> how the app names it
FAMILY_TITLES = {
    "byte-level": "byte-level (GPT)",
    "sentencepiece": "SentencePiece (Llama 2, Mistral, Gemma)",
    "word": "word BPE (the textbook, subword-nmt)",
}
FAMILIES = tuple(FAMILY_TITLES)
MAX_FAMILY_CHARS = 2_000  # characters of a text drawn as one family's tokens
_CHAR_BYTE = {c: b for b, c in bytes_to_unicode().items()}


def family_of(tok: object) -> str:
    """A tokenizer's family: ``"byte-level"``, ``"sentencepiece"`` or ``"word"``."""
    family = getattr(tok, "family", "byte-level")
    if family not in FAMILY_TITLES:
        raise ValueError(f"{type(tok).__name__} is of no family the app draws ({family!r})")
    return family


def family_title(tok: object) -> str:
    """How the app names a tokenizer's family.

    >>> family_title(RegexTokenizer())
    'byte-level (GPT)'
    """
    return FAMILY_TITLES[family_of(tok)]


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


# -- a small training of each family (the Lesson) -------------------------------------------------

SPM_META = 3 + 256  # <unk>, <s>, </s> and the 256 byte pieces of byte fallback


def _spm_characters(text: str) -> int:
    """How many characters sentencepiece keeps from ``text`` at character coverage 1.0, at most
    (its lines as it normalizes them: a space is ``▁``, and one comes first)."""
    return len(set(text.replace(" ", "\u2581").replace("\n", "")) | {"\u2581"})


def train_family(family: str, text: str, merges: int) -> object:
    """``family`` trained on ``text`` with about ``merges`` merges, as its own tool trains:

    - ``"byte-level"``: a ``RegexTokenizer`` with GPT-4's split pattern, ``256 + merges`` tokens;
    - ``"sentencepiece"``: ``train_sentencepiece`` (sentencepiece's BPE trainer) with byte
      fallback and character coverage 1.0, its special pieces, bytes and characters plus
      ``merges`` pieces (fewer when the text holds fewer: sentencepiece refuses a vocabulary
      larger than the pieces it finds, so the size is halved until it fits);
    - ``"word"``: ``WordBPE`` of ``learn_merges(text, merges)`` (subword-nmt's ``learn_bpe``,
      ``min_frequency`` 2).

    A ValueError when the family cannot be trained on this text (it says why).
    """
    if family == "byte-level":
        tok = RegexTokenizer(GPT4_SPLIT_PATTERN)
        tok.train(text, 256 + merges)
        return tok
    if family == "word":
        return WordBPE(learn_merges(text, merges))
    if family != "sentencepiece":
        raise ValueError(f"no family {family!r}: one of {', '.join(FAMILIES)}")
    base = SPM_META + _spm_characters(text)
    longest = max((len(line.encode("utf-8")) for line in text.split("\n")), default=0)
    wanted = merges
    while True:
        try:
            return train_sentencepiece(text, base + wanted, byte_fallback=True,
                                       character_coverage=1.0,
                                       max_sentence_length=max(4192, longest + 16))
        except ValueError as e:
            if "too high" not in str(e) or wanted == 0:
                raise
            wanted //= 2
