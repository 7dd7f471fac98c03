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
button interrupts it). SentencePiece's and word BPE's trainers obey the app's training budget
(``bpe_core.limits.train_budget``, installed by ``choices.install_budget``): they train in a
worker process, killed past its CPU seconds or memory (a ``BudgetExceeded`` names the limit)
or when ``progress`` raises (Stop), their progress reported at most every 0.05 s.
``train_family(family, text, vocab_size)`` is the same for a page that
wants one family on one text (the byte-level one with the sidebar's default split, or
``base``'s), at a vocabulary size or at a number of merges (the Lesson's side-by-side step:
``train_family(family, text, merges=150)``). A ValueError says what to change. The caller
checks the session's memory bound first (``ui.kit.budget``), as the sidebar does.

``family_of(tok)`` and ``family_title(tok)`` say which family a tokenizer is and how the app
names it (``FAMILY_LABELS``), for the sidebar's tokenizers and a file loaded on Export & import
alike.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from bpe_core.limits import BudgetExceeded
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
WORD_BPE = "word"
# family -> its label in the sidebar
FAMILY_LABELS = {
    BYTE_LEVEL: "byte-level (GPT)",
    SENTENCEPIECE: "SentencePiece (Llama 2, Mistral, Gemma)",
    WORD_BPE: "word BPE (the textbook, subword-nmt)",
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
# 0.8 s and SentencePiece 3.1 s at 200,000); Python's help topics 0.5, 2.0 and 6.4 s. Kept with
# the training budget (30 s of a worker's CPU): 50,000 took 12.3 s of CPU and 199 s of wall time
# at load 8-13, past the budget's 120 s of wall (docs/LIMITS.md)
MAX_WORD_TRAIN_CHARS = 20_000


def train_limit(family: str) -> int:
    """The characters of the text a family trains on (a longer text is cut, with a note)."""
    return MAX_WORD_TRAIN_CHARS if family == WORD_BPE else MAX_TRAIN_CHARS

Progress = Callable[[int, int, Any], Any]


def family_of(tok: object) -> str:
    """The family of a tokenizer the app holds (``"byte-level"`` for bpe_core's own, which
    name none); a ValueError for a family the app does not know."""
    family = getattr(tok, "family", BYTE_LEVEL)
    if family not in FAMILY_LABELS:
        raise ValueError(f"{type(tok).__name__} is of no family the app draws ({family!r})")
    return family


def family_title(tok: object) -> str:
    """How the app names a tokenizer's family (its label in the sidebar).

    >>> from bpe_core import RegexTokenizer
    >>> family_title(RegexTokenizer())
    'byte-level (GPT)'
    """
    return FAMILY_LABELS[family_of(tok)]


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
        except BudgetExceeded:
            raise  # it names its limit
        except ValueError as e:
            raise ValueError(f"SentencePiece's BPE trainer: {e}.") from None
    if settings.family == WORD_BPE:
        # subword-nmt's --total-symbols: the vocabulary counts the characters, then the merges
        merges = learn_merges(text, size, total_symbols=True, min_frequency=WORD_MIN_FREQUENCY,
                              progress=progress)
        return WordBPE(merges)
    raise ValueError(f"unknown family {settings.family!r}: one of {list(FAMILY_LABELS)}")


SPM_META = 3 + 256  # <unk>, <s>, </s> and the 256 byte pieces of byte fallback


def _spm_characters(text: str) -> int:
    """How many characters sentencepiece keeps from ``text`` at character coverage 1.0, at most
    (its lines as it normalizes them: a space is ``▁``, and one comes first)."""
    return len(set(text.replace(" ", "\u2581").replace("\n", "")) | {"\u2581"})


def merges_vocab_size(family: str, text: str, merges: int) -> int:
    """The vocabulary size of ``family`` trained on ``text`` with ``merges`` merges: byte-level
    BPE's 256 bytes, SentencePiece's special and byte pieces and the text's characters (at
    most), word BPE's merges alone (subword-nmt's ``learn_bpe`` without ``--total-symbols``).

    >>> merges_vocab_size("byte-level", "ab", 150), merges_vocab_size("sentencepiece", "ab", 150)
    (406, 412)
    """
    if family == BYTE_LEVEL:
        return 256 + merges
    if family == SENTENCEPIECE:
        return SPM_META + _spm_characters(text) + merges
    if family == WORD_BPE:
        return merges
    raise ValueError(f"unknown family {family!r}: one of {list(FAMILY_LABELS)}")


def train_family(family: str, text: str, vocab_size: int | None = None,
                 progress: Progress | None = None, base: Settings | None = None, *,
                 merges: int | None = None) -> Any:
    """``family`` (``"byte-level"``, ``"sentencepiece"``, ``"word"``) trained on ``text``.

    At ``vocab_size``: bounded as the sidebar's training (``train``). With ``merges`` instead
    (the Lesson's small side-by-side models), the size is ``merges_vocab_size``'s and each
    family trains as its own tool would at that size: byte-level BPE through ``train`` (with
    ``base``'s split, GPT-4's by default); sentencepiece's BPE trainer with byte fallback and
    character coverage 1.0 (fewer merges when the text holds fewer: sentencepiece refuses a
    vocabulary larger than the pieces it finds, so the merges are halved until it fits);
    subword-nmt's ``learn_bpe`` with ``merges`` merges. A ValueError says why it cannot train.
    """
    if merges is None:
        if vocab_size is None:
            raise ValueError("train_family needs a vocabulary size or a number of merges")
        return train(text, family_settings(family, vocab_size, base), progress)
    size = merges_vocab_size(family, text, merges)
    if family == BYTE_LEVEL:
        return train(text, family_settings(family, size, base), progress)
    if family == WORD_BPE:
        return WordBPE(learn_merges(text, size, min_frequency=WORD_MIN_FREQUENCY,
                                    progress=progress))
    longest = max((len(line.encode("utf-8")) for line in text.split("\n")), default=0)
    wanted = merges
    while True:
        try:
            return train_sentencepiece(text, size - merges + wanted, byte_fallback=True,
                                       character_coverage=1.0, progress=progress,
                                       max_sentence_length=max(4192, longest + 16))
        except ValueError as e:
            if "too high" not in str(e) or wanted == 0:
                raise
            wanted //= 2
