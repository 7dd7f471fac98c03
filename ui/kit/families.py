"""The three families of BPE the app teaches, and the one way to train one (no Streamlit here).

- ``"byte-level"``: GPT-2's BPE over bytes (``bpe_core.Tokenizer``, the sidebar's split
  patterns and presets);
- ``"sentencepiece"``: SentencePiece's BPE over characters, ``▁`` for a space, ``<0xE4>`` byte
  fallback (Llama 2, Mistral, Gemma: ``bpe_core.sentencepiece.SentencePieceBPE``);
- ``"word"``: the textbook word BPE with an end-of-word marker (Sennrich et al., subword-nmt:
  ``bpe_core.word_bpe.WordBPE``).

``train(text, settings, progress)`` trains the family ``settings.family`` names, bounded as
the sidebar's training is (the text cut to ``train_limit(family)``: ``MAX_TRAIN_CHARS``, word
BPE's ``MAX_WORD_TRAIN_CHARS``; the vocabulary from
``MIN_VOCAB`` to ``MAX_VOCAB``, a ``progress`` callback at every merge, where the app's Stop
button interrupts it); ``train_family(family, text, vocab_size)`` is the same for a page that
wants one family on one text (the byte-level one with the sidebar's default split). A
ValueError says what to change. The caller checks the session's memory bound first
(``ui.kit.budget``), as the sidebar does.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from bpe_core.sentencepiece import train_sentencepiece
from bpe_core.word_bpe import WordBPE, learn_merges
from ui.kit.choices import (
    DEFAULT_KIND,
    KINDS,
    MAX_TRAIN_CHARS,
    MAX_VOCAB,
    MIN_VOCAB,
    Settings,
    cap_text,
    text_problem,
    train_tokenizer,
)

BYTE_LEVEL = "byte-level"
SENTENCEPIECE = "sentencepiece"
WORD = "word"
# family -> its label in the sidebar
FAMILY_LABELS = {
    BYTE_LEVEL: "byte-level (GPT)",
    SENTENCEPIECE: "SentencePiece (Llama 2, Mistral, Gemma)",
    WORD: "word BPE (the textbook, subword-nmt)",
}
FAMILIES = tuple(FAMILY_LABELS)
DEFAULT_FAMILY = BYTE_LEVEL
# what the app trains for each family other than byte-level: sentencepiece's BPE trainer as
# Llama 2 was trained (byte fallback, every character kept, runs of spaces kept), subword-nmt's
# learn_bpe with its default minimum count of a pair
SENTENCEPIECE_OPTIONS = {"byte_fallback": True, "character_coverage": 1.0,
                         "remove_extra_whitespaces": False}
WORD_MIN_FREQUENCY = 2
# Word BPE (subword-nmt's algorithm, pure Python) trains on at most this much of the text: at
# vocabulary 8,192 on random words (benchmarks/family_training.py, load 22-25) it took 2.4 s of
# CPU at 20,000 characters, 16.7 s at 50,000 and 59 s at the sidebar's 200,000 (byte-level BPE
# 0.8 s and SentencePiece 3.1 s at 200,000); Python's help topics 0.5, 2.0 and 6.4 s
MAX_WORD_TRAIN_CHARS = 20_000


def train_limit(family: str) -> int:
    """The characters of the text a family trains on (a longer text is cut, with a note)."""
    return MAX_WORD_TRAIN_CHARS if family == WORD else MAX_TRAIN_CHARS

Progress = Callable[[int, int, Any], Any]


def family_of(tok: object) -> str:
    """The family of a tokenizer the app holds (``"byte-level"`` for bpe_core's own)."""
    return getattr(tok, "family", BYTE_LEVEL)


def family_settings(family: str, vocab_size: int, base: Settings | None = None) -> Settings:
    """Settings that train ``family`` at ``vocab_size``: a byte-level family keeps ``base``'s
    split and special tokens (the sidebar's default split without one); the other families
    take neither (they have no split pattern, and no special tokens of the user's)."""
    if family not in FAMILY_LABELS:
        raise ValueError(f"unknown family {family!r}: one of {list(FAMILY_LABELS)}")
    if base is None:
        base = Settings(DEFAULT_KIND, KINDS[DEFAULT_KIND][1] or "", vocab_size, ())
    if family == BYTE_LEVEL:
        return Settings(base.kind, base.pattern, vocab_size, base.specials)
    return Settings(base.kind, "", vocab_size, (), family)


def train(text: str, settings: Settings, progress: Progress | None = None) -> Any:
    """A new tokenizer of ``settings.family`` trained on (the first ``train_limit(family)``
    characters of) ``text``. ``progress(done, total, what)`` is called at every merge. A ValueError names what
    to change: an empty text, a vocabulary outside ``MIN_VOCAB``..``MAX_VOCAB``, a vocabulary
    that sentencepiece's trainer cannot fill from this text (too small for its characters and
    the 259 special and byte pieces, or larger than the pieces the text can make)."""
    problem = text_problem(text)
    if problem:
        raise ValueError(problem)
    text = cap_text(text, train_limit(settings.family))[0]
    size = settings.vocab_size
    if not MIN_VOCAB <= size <= MAX_VOCAB:
        raise ValueError(f"The vocabulary size must be between {MIN_VOCAB} and {MAX_VOCAB:,}.")
    if settings.family == BYTE_LEVEL:
        return train_tokenizer(text, settings, progress=progress)
    if settings.family == SENTENCEPIECE:
        try:
            return train_sentencepiece(text, size, name=f"SentencePiece BPE, vocabulary {size:,}",
                                       progress=progress, **SENTENCEPIECE_OPTIONS)
        except ValueError as e:
            raise ValueError(f"SentencePiece's BPE trainer: {e}.") from None
    if settings.family == WORD:
        # subword-nmt's --total-symbols: the vocabulary counts the characters, then the merges
        merges = learn_merges(text, size, total_symbols=True, min_frequency=WORD_MIN_FREQUENCY,
                              progress=progress)
        return WordBPE(merges)
    raise ValueError(f"unknown family {settings.family!r}: one of {list(FAMILY_LABELS)}")


def train_family(family: str, text: str, vocab_size: int, progress: Progress | None = None,
                 base: Settings | None = None) -> Any:
    """``family`` (``"byte-level"``, ``"sentencepiece"``, ``"word"``) trained on ``text`` at
    ``vocab_size``, bounded as the sidebar's training (``train``)."""
    return train(text, family_settings(family, vocab_size, base), progress)
