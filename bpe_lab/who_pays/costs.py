"""The language tax: what the same content costs in tokens, language by language.

Measure one text under one tokenizer (``measure_text``), a table of many languages under many
tokenizers with the cost relative to English (``language_costs``), and the experiment that shows
why: train one tokenizer on English only and one on every language, at the same size, and measure
both on sentences neither saw (``train_comparison``). Plain rows (NamedTuples), as a notebook
wants them; the texts are the parallel set of ``languages.py`` and any text of one's own
(``own_language``).

    >>> from bpe_core import BasicTokenizer
    >>> m = measure_text(BasicTokenizer(), "héllo wörld")   # no merges: one token per byte
    >>> m.tokens, m.bytes, m.chars, m.words, m.tokens_per_word
    (13, 13, 11, 2, 6.5)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import NamedTuple

from bpe_core.base import Tokenizer
from bpe_core.basic import BasicTokenizer
from bpe_core.patterns import GPT4_SPLIT_PATTERN
from bpe_core.regex_tokenizer import RegexTokenizer
from bpe_core.text import clean_text

from .languages import Language

ENGLISH = "en"  # the code of the language every cost is relative to
# train_comparison trains two tokenizers on a few kilobytes of text (about 0.1 s on a 2-core box
# at this size). The English-only one runs out of pairs after about 250 merges, the all-languages
# one after about 7,750 (GPT-4 split): a bigger vocabulary would change nothing.
MAX_TAX_VOCAB = 8_192
TRAIN_SHARE = 2 / 3  # the first two thirds of every language's lines train; the rest is held out
OWN_SCRIPT = "your text"  # the script of a text of one's own (``own_language``)


class TextCost(NamedTuple):
    """What one text costs under one tokenizer."""

    tokens: int
    bytes: int  # UTF-8 bytes
    chars: int  # characters (code points)
    words: int | None  # whitespace-separated words; None for a script without spaces
    bytes_per_token: float | None  # None for an empty text
    tokens_per_word: float | None  # None without words


def measure_text(tok: Tokenizer, text: str, spaced: bool = True) -> TextCost:
    """Tokens, bytes, characters and words of ``text`` under ``tok``.

    Special-token text counts as ordinary text (``encode_ordinary``): a pasted "<|endoftext|>"
    is characters like any other. ``spaced=False`` (Thai, Chinese, Japanese, Burmese, Khmer):
    spaces there separate phrases, not words, so there are no words to count.

    >>> from bpe_core import BasicTokenizer
    >>> measure_text(BasicTokenizer(), "ab cd")
    TextCost(tokens=5, bytes=5, chars=5, words=2, bytes_per_token=1.0, tokens_per_word=2.5)
    >>> measure_text(BasicTokenizer(), "ภาษา", spaced=False).words is None
    True
    """
    text = clean_text(text)
    tokens = len(tok.encode_ordinary(text))
    num_bytes = len(text.encode("utf-8"))
    words = len(text.split()) if spaced else None
    return TextCost(
        tokens=tokens,
        bytes=num_bytes,
        chars=len(text),
        words=words,
        bytes_per_token=num_bytes / tokens if tokens else None,
        tokens_per_word=tokens / words if words else None,
    )


class LanguageCost(NamedTuple):
    """One row of the language-tax table: one text under one tokenizer."""

    tokenizer: str  # the name the caller gave the tokenizer
    code: str
    language: str
    script: str
    tokens: int
    bytes: int
    chars: int
    words: int | None
    bytes_per_token: float | None
    tokens_per_word: float | None
    relative: float | None  # tokens / tokens of English under the same tokenizer


def language_costs(
    tokenizers: Mapping[str, Tokenizer],
    languages: Sequence[Language],
    english: Language | None = None,
) -> list[LanguageCost]:
    """Every language under every tokenizer (tokenizer by tokenizer, languages in their order),
    with the cost relative to English: this language's tokens over English's, same tokenizer.

    ``english`` is the text costs are relative to: by default the language coded "en" among
    ``languages`` (``relative`` is None if there is none). To measure texts of one's own beside
    the parallel set, pass the set's English (``own_language`` makes a text a ``Language``);
    their relative cost means "as much as the same story in English" only when they tell it.

    >>> from bpe_core import BasicTokenizer
    >>> en = Language("en", "English", "Latin", True, ("a cat",))
    >>> el = Language("el", "Greek", "Greek", True, ("μια γάτα",))
    >>> [(r.code, r.tokens, r.relative) for r in language_costs({"bytes": BasicTokenizer()},
    ...                                                           [en, el])]
    [('en', 5, 1.0), ('el', 15, 3.0)]
    """
    if english is None:
        english = next((lang for lang in languages if lang.code == ENGLISH), None)
    rows = []
    for label, tok in tokenizers.items():
        baseline = None if english is None else measure_text(tok, english.text).tokens
        for lang in languages:
            cost = measure_text(tok, lang.text, lang.spaced)
            relative = cost.tokens / baseline if baseline else None
            rows.append(LanguageCost(label, lang.code, lang.name, lang.script, *cost, relative))
    return rows


def own_language(name: str, text: str, spaced: bool = True, code: str | None = None) -> Language:
    """A text of one's own as a ``Language``, to measure beside the parallel set.

    >>> own_language("my notes", "one\\ntwo").lines
    ('one', 'two')
    """
    return Language(code or name, name, OWN_SCRIPT, spaced, tuple(clean_text(text).split("\n")))


# -- the experiment: who is in the training data decides who pays -------------------------------


class TaxRow(NamedTuple):
    """One language's held-out lines under the two tokenizers of ``train_comparison``."""

    code: str
    language: str
    script: str
    english_only_tokens: int
    all_languages_tokens: int
    english_only_relative: float  # tokens / English tokens, under the English-only tokenizer
    all_languages_relative: float  # the same under the all-languages tokenizer


class TaxComparison(NamedTuple):
    """The result of ``train_comparison``: one row per language, and the two tokenizers."""

    rows: list[TaxRow]
    vocab_size: int
    pattern: str
    train_lines: int  # lines of every language used for training (the first ones)
    test_lines: int  # lines held out (the last ones), the ones measured
    english_only: Tokenizer
    all_languages: Tokenizer

    @property
    def english_only_merges(self) -> int:
        return self.english_only.num_merges

    @property
    def all_languages_merges(self) -> int:
        return self.all_languages.num_merges

    def shortfall(self) -> list[str]:
        """A sentence for each tokenizer that made fewer merges than the vocabulary size asked
        (it ran out of pairs to merge), else nothing."""
        asked = self.vocab_size - 256
        notes = []
        for label, tok in (("English-only", self.english_only),
                           ("All-languages", self.all_languages)):
            if tok.num_merges < asked:
                notes.append(f"The {label} tokenizer made {tok.num_merges:,} of the {asked:,} "
                             f"merges asked: its training text has no pair left to merge.")
        return notes


def _new_tokenizer(pattern: str, timeout: float | None) -> Tokenizer:
    if pattern == "":
        return BasicTokenizer()
    return RegexTokenizer(pattern, timeout=timeout)


def train_comparison(
    languages: Sequence[Language],
    vocab_size: int = 1024,
    pattern: str = GPT4_SPLIT_PATTERN,
    *,
    timeout: float | None = None,
) -> TaxComparison:
    """Train one tokenizer on English only and one on every language, then measure both on the
    sentences neither saw: the language tax comes from the training data.

    The design, so that the training data is the only difference:

    - The same trainer, vocabulary size and split pattern (``""``: no split, BasicTokenizer).
    - The first two thirds of each language's lines train (``TRAIN_SHARE``, at least one line);
      the last third is held out, and only it is measured. A parallel set has the same sentences
      in every language, so the all-languages tokenizer sees the same content in each language,
      English included (as many lines of English as the English-only one): English is not short-
      changed by having less to learn from, only by sharing the vocabulary. A script that needs
      more bytes for a sentence weighs more in the pair counts, as it would in any corpus.
    - Costs are relative to English under the same tokenizer, on the same held-out sentences.
    - The English-only text is small: it may run out of pairs before reaching ``vocab_size``.
      Its merges are counted (``english_only_merges``) and ``shortfall()`` says so.

    ``vocab_size`` is capped at ``MAX_TAX_VOCAB`` (ValueError above it): the texts are a few
    kilobytes, and both trainers run out of pairs before that size.

    >>> from bpe_lab.who_pays.languages import load_parallel
    >>> result = train_comparison(load_parallel(), 512)
    >>> en = next(r for r in result.rows if r.code == "en")
    >>> en.english_only_relative, en.all_languages_relative
    (1.0, 1.0)
    >>> en.english_only_tokens < en.all_languages_tokens     # English pays less on its own
    True
    """
    if not 256 <= vocab_size <= MAX_TAX_VOCAB:
        raise ValueError(f"vocab_size must be from 256 to {MAX_TAX_VOCAB:,}, not {vocab_size:,}: "
                         "the parallel texts are too small for more")
    english = next((lang for lang in languages if lang.code == ENGLISH), None)
    if english is None:
        raise ValueError("the languages must include English (code 'en'): costs are relative to it")
    n = min(len(lang.lines) for lang in languages)
    if n < 2:
        raise ValueError("every language needs at least 2 lines: some to train, some to measure")
    train = min(n - 1, max(1, round(n * TRAIN_SHARE)))

    def training_text(langs: Sequence[Language]) -> str:
        return "\n".join(line for lang in langs for line in lang.lines[:train])

    english_only = _new_tokenizer(pattern, timeout)
    english_only.train(training_text([english]), vocab_size)
    all_languages = _new_tokenizer(pattern, timeout)
    all_languages.train(training_text(languages), vocab_size)

    def held_out(lang: Language) -> str:
        return "\n".join(lang.lines[train:n])

    base_en = measure_text(english_only, held_out(english)).tokens
    base_all = measure_text(all_languages, held_out(english)).tokens
    rows = []
    for lang in languages:
        ours = measure_text(english_only, held_out(lang), lang.spaced).tokens
        theirs = measure_text(all_languages, held_out(lang), lang.spaced).tokens
        rows.append(TaxRow(lang.code, lang.name, lang.script, ours, theirs, ours / base_en,
                           theirs / base_all))
    return TaxComparison(rows, vocab_size, pattern, train, n - train, english_only,
                         all_languages)
