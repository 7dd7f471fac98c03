"""How a tokenizer cuts numbers: what every number 0-999 and every year 1900-2099 costs in tokens,
the digit groups it makes of longer numbers, and tokenizers trained with other rules for digits.

Plain tables (lists of NamedTuples) for the Numbers page or a notebook:

    >>> from bpe_core import RegexTokenizer
    >>> tok = RegexTokenizer()                      # GPT-4's split, no merges yet: one token a byte
    >>> [c.tokens for c in number_counts(tok, [7, 42, 512])]
    [1, 2, 3]
    >>> number_split(tok, "1234").pieces
    ('1', '2', '3', '4')

Digits are cut in two stages: the split pattern first cuts a run of digits into chunks (GPT-4:
groups of up to three from the left), then the merges join the digits inside each chunk as far
as the vocabulary has tokens for them. GPT-2's pattern keeps the whole run as one chunk, so its
merges decide alone, and they were learned from whatever numbers its training text had.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from typing import NamedTuple

from bpe_core.base import Tokenizer
from bpe_core.patterns import DIGIT_PRESETS
from bpe_core.regex_tokenizer import RegexTokenizer

NUMBERS = range(1000)  # 0 to 999
YEARS = range(1900, 2100)  # 1900 to 2099
# Numbers as they appear in text: long integers, a decimal, a price, a date, a phone number, and
# a million with thousands separators.
NUMBER_EXAMPLES = (
    "1234567",
    "12345678901234",
    "3.14159",
    "$1,299.99",
    "2024-03-15",
    "555-867-5309",
    "1,000,000",
)


class NumberCount(NamedTuple):
    """What one number costs: its text as encoded, its number of tokens, and the pieces."""

    number: int
    text: str  # "42", or " 42" with a leading space
    tokens: int
    pieces: tuple[str, ...]  # the tokens' text: ("4", "2"), or (" 42",)


class NumberSplit(NamedTuple):
    """The tokens a tokenizer makes of one piece of text (a number as written)."""

    text: str
    ids: tuple[int, ...]
    token_bytes: tuple[bytes, ...]

    @property
    def pieces(self) -> tuple[str, ...]:
        """Each token as text; bytes that are not whole UTF-8 characters as ``\\xNN``.

        >>> NumberSplit("é", (195, 169), (b"\\xc3", b"\\xa9")).pieces
        ('\\\\xc3', '\\\\xa9')
        """
        return tuple(b.decode("utf-8", errors="backslashreplace") for b in self.token_bytes)


def number_split(tok: Tokenizer, text: str) -> NumberSplit:
    """The tokens of ``text`` as ordinary text (special-token text is not special here)."""
    ids = tuple(tok.encode_ordinary(text))
    return NumberSplit(text, ids, tuple(tok.decode_single_token_bytes(i) for i in ids))


def number_splits(tok: Tokenizer, texts: Iterable[str] = NUMBER_EXAMPLES) -> list[NumberSplit]:
    """``number_split`` of each text, in order."""
    return [number_split(tok, text) for text in texts]


def number_counts(
    tok: Tokenizer, numbers: Iterable[int] = NUMBERS, *, space: bool = False
) -> list[NumberCount]:
    """The tokens of each number, written in plain digits ("42") or, with ``space``, with the
    space before it that running text gives it (" 42": GPT-2's pattern joins the two).

    >>> [c.text for c in number_counts(RegexTokenizer(), [5, 1999], space=True)]
    [' 5', ' 1999']
    """
    out = []
    for number in numbers:
        split = number_split(tok, (" " if space else "") + str(number))
        out.append(NumberCount(number, split.text, len(split.ids), split.pieces))
    return out


def tokens_needed(counts: Iterable[NumberCount]) -> dict[int, int]:
    """How many numbers need 1 token, 2 tokens, ...: ``{tokens: how many numbers}``, fewest first.

    >>> tokens_needed(number_counts(RegexTokenizer(), range(95, 105)))
    {2: 5, 3: 5}
    """
    return dict(sorted(Counter(c.tokens for c in counts).items()))


class NumberFacts(NamedTuple):
    """Everything the Numbers page shows about one vocabulary (a fact about the vocabulary: it
    does not depend on the user's text)."""

    numbers: list[NumberCount]  # 0-999 in plain digits
    numbers_spaced: list[NumberCount]  # " 0" to " 999"
    years: list[NumberCount]  # 1900-2099
    years_spaced: list[NumberCount]  # " 1900" to " 2099"
    examples: list[NumberSplit]  # NUMBER_EXAMPLES

    def counts(self, years: bool, space: bool) -> list[NumberCount]:
        """One of the four tables: 0-999 or the years, with or without a leading space."""
        if years:
            return self.years_spaced if space else self.years
        return self.numbers_spaced if space else self.numbers


def number_facts(tok: Tokenizer) -> NumberFacts:
    """The four tables of counts and the examples' pieces for one tokenizer (2,400 short
    encodes: a few hundredths of a second for the GPT vocabularies)."""
    return NumberFacts(
        numbers=number_counts(tok, NUMBERS),
        numbers_spaced=number_counts(tok, NUMBERS, space=True),
        years=number_counts(tok, YEARS),
        years_spaced=number_counts(tok, YEARS, space=True),
        examples=number_splits(tok, NUMBER_EXAMPLES),
    )


# -- other rules for digits, trained and compared -----------------------------------------------


def train_digit_presets(
    text: str,
    vocab_size: int,
    presets: Mapping[str, str] = DIGIT_PRESETS,
    *,
    timeout: float | None = None,
) -> dict[str, RegexTokenizer]:
    """One tokenizer per split pattern (by default the four digit rules of ``DIGIT_PRESETS``),
    each trained on ``text`` to ``vocab_size``; ``timeout`` bounds each pattern's split.

    >>> toks = train_digit_presets("12345 12345 12345", 258)
    >>> {name: number_split(tok, "12345").pieces for name, tok in toks.items()}["single digits"]
    ('1', '2', '3', '4', '5')
    """
    made = {}
    for name, pattern in presets.items():
        tok = RegexTokenizer(pattern, timeout=timeout)
        tok.train(text, vocab_size)
        made[name] = tok
    return made


class DigitPresetRow(NamedTuple):
    """One trained tokenizer of a digit rule, measured: on 0-999, the years, and the text."""

    preset: str
    pattern: str
    merges: int
    tokens_0_999: int  # all of 0..999 in plain digits, summed
    tokens_years: int  # all of 1900..2099, summed
    text_tokens: int  # the text it was trained on
    text_bytes: int
    examples: tuple[NumberSplit, ...]


def compare_digit_presets(
    tokenizers: Mapping[str, Tokenizer], text: str, examples: Iterable[str] = NUMBER_EXAMPLES
) -> list[DigitPresetRow]:
    """A row per tokenizer (the output of ``train_digit_presets``): what numbers and the text
    cost under each."""
    examples = tuple(examples)
    num_bytes = len(text.encode("utf-8", errors="surrogatepass"))
    rows = []
    for name, tok in tokenizers.items():
        rows.append(DigitPresetRow(
            preset=name,
            pattern=tok.pattern,
            merges=tok.num_merges,
            tokens_0_999=sum(c.tokens for c in number_counts(tok, NUMBERS)),
            tokens_years=sum(c.tokens for c in number_counts(tok, YEARS)),
            text_tokens=len(tok.encode_ordinary(text)),
            text_bytes=num_bytes,
            examples=tuple(number_splits(tok, examples)),
        ))
    return rows
