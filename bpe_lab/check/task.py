"""The task a learner's trainer was given, and the reference trained on it: the bounds of the
check, the settings (``Setup``), the chunks a trainer counts, and how messages name patterns,
tie rules and merges. Every other part of ``bpe_lab.check`` builds on this one.

Bounds (a learner's output for a text of the page is far smaller; the first five live in
bpe_core/limits.py with every other bound):

    MAX_INPUT_CHARS    8,000,000  characters of a file (a .model, merges.txt, tokenizer.json)
    MAX_PYTHON_CHARS   2,000,000  characters of Python literals (parsing them takes about
                                  100 bytes of memory per character, briefly)
    MAX_NESTING        10         brackets inside brackets (merges need 2: a list of pairs)
    MAX_MERGES         100,000    merges
    MAX_CHECK_CHARS    200,000    characters of the text trained on (the reference and every
                                  replayed mistake train on it)
    WINDOW             20         steps a mistake is replayed past the learner's first difference
                                  (the best ones are then replayed to the end)
    MAX_PLAIN_STEPS    2,000      merges of the plain trainer (the mistakes in counting and
                                  merging): about a second on 100 KB of text
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from bpe_core.base import Tokenizer, cut_at_specials, training_specials
from bpe_core.basic import BasicTokenizer
from bpe_core.limits import (  # noqa: F401 - the check's bounds live with bpe_core's, read here
    MAX_CHECK_CHARS,
    MAX_INPUT_CHARS,
    MAX_MERGES,
    MAX_NESTING,
    MAX_PYTHON_CHARS,
)
from bpe_core.oniguruma import unguarded
from bpe_core.patterns import GPT2_SPLIT_PATTERN, GPT4_SPLIT_PATTERN, GPT4O_SPLIT_PATTERN
from bpe_core.regex_tokenizer import RegexTokenizer
from bpe_core.text import clean_text, shorten

WINDOW = 20
MAX_PLAIN_STEPS = 2_000

Pair = tuple[bytes, bytes]  # a merge as the bytes of its two tokens: (b" t", b"he")

TIE_RULE_WORDS = {
    "seen": "the pair seen first in the text, as minbpe's max over a dict",
    "bytes": "the greatest pair of token bytes, as CS336",
    "ids": "the smallest pair of token ids",
    "last_seen": "the pair seen last in the text, as a loop that keeps the last of equals (>=)",
    "greatest_ids": "the greatest pair of token ids, as max over (count, pair)",
}
# One name per tie rule, in a student's words: every sentence of the page and the command names
# a rule this way (the code names above are the API's and --tie-rule's values).
TIE_RULE_NAMES = {
    "seen": "seen first",
    "bytes": "greatest bytes",
    "ids": "smallest ids",
    "last_seen": "seen last",
    "greatest_ids": "greatest ids",
}


def rule_name(rule: str) -> str:
    """A tie rule as a sentence names it.

    >>> rule_name("last_seen")
    '“seen last”'
    """
    return f"“{TIE_RULE_NAMES[rule]}”"


# The tie rules the reference trains with are training.TIE_RULES; these two are only mistakes,
# which the zoo replays with its own trainer (replaying.replay_training).
ZOO_TIE_RULES = ("last_seen", "greatest_ids")

PATTERN_NAMES = {
    GPT2_SPLIT_PATTERN: "GPT-2",
    GPT4_SPLIT_PATTERN: "GPT-4",
    GPT4O_SPLIT_PATTERN: "GPT-4o",
}

# minbpe's own spellings of the GPT-2 and GPT-4 patterns (karpathy/minbpe, minbpe/regex.py). They
# differ from tiktoken's (patterns.py) in small ways: no ``\s++$`` alternative, ``\s+`` for the
# last one, and fewer possessive quantifiers. On 20,000 random short texts GPT-2's two spellings
# cut alike, and GPT-4's differ only where a piece of text ends in whitespace holding a line break
# followed by more whitespace (``"a\n  "``: tiktoken keeps ``"\n  "`` together, minbpe cuts
# ``"\n"``, ``"  "``).
MINBPE_GPT2_SPLIT_PATTERN = (
    r"""'(?:[sdmt]|ll|ve|re)| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"""
)
MINBPE_GPT4_SPLIT_PATTERN = (
    r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]++[\r\n]*"""
    r"""|\s*[\r\n]|\s+(?!\S)|\s+"""
)
OTHER_SPELLINGS = {  # another tool's spelling -> the pattern it spells (one of PATTERN_NAMES)
    MINBPE_GPT2_SPLIT_PATTERN: GPT2_SPLIT_PATTERN,
    MINBPE_GPT4_SPLIT_PATTERN: GPT4_SPLIT_PATTERN,
}


def known_pattern(pattern: str) -> str:
    """The pattern of ``PATTERN_NAMES`` that ``pattern`` spells (minbpe's spelling of GPT-4 is
    GPT-4), or ``pattern`` itself.

    >>> known_pattern(MINBPE_GPT4_SPLIT_PATTERN) == GPT4_SPLIT_PATTERN
    True
    """
    pattern = unguarded(pattern)  # a tokenizer.json's, guarded for Oniguruma's older Unicode
    return OTHER_SPELLINGS.get(pattern, pattern)


def pattern_name(pattern: str) -> str:
    """How messages name a split pattern.

    >>> pattern_name(GPT2_SPLIT_PATTERN), pattern_name(""), pattern_name(r"\\w+")
    ('the GPT-2 pattern', 'no split pattern', 'a custom pattern')
    >>> pattern_name(MINBPE_GPT4_SPLIT_PATTERN)
    'the GPT-4 pattern (as minbpe writes it)'
    """
    pattern = unguarded(pattern)
    if not pattern:
        return "no split pattern"
    if pattern in PATTERN_NAMES:
        return f"the {PATTERN_NAMES[pattern]} pattern"
    if pattern in OTHER_SPELLINGS:
        return f"the {PATTERN_NAMES[OTHER_SPELLINGS[pattern]]} pattern (as minbpe writes it)"
    return "a custom pattern"


def show_pair(pair: Pair, spell: Callable[[bytes], str] = repr) -> str:
    """A merge as messages write it: ``b' t' + b'he'`` (``spell``: how a token is written; the
    app passes its one token spelling, ``ui.kit.tokens_html.token_text``).

    >>> show_pair((b" t", b"he")), show_pair((b" t", b"he"), lambda t: t.decode())
    ("b' t' + b'he'", ' t + he')
    """
    return f"{spell(pair[0])} + {spell(pair[1])}"


def counted(n: int, word: str) -> str:
    """``n`` of a thing in words: "1 merge", "2 merges"."""
    return f"{n:,} {word}" if n == 1 else f"{n:,} {word}s"



@dataclass(frozen=True)
class Setup:
    """How one trainer is set up: the reference's settings, or the same with one mistake.

    The last five fields are the mistakes' switches; the reference leaves them as they are.
    """

    pattern: str
    vocab_size: int
    special_tokens: tuple[str, ...] = ()
    tie_rule: str = "seen"
    cut_at_specials: bool = True  # False: the special tokens' text is trained on as text
    specials_in_vocab: bool = True  # False: vocab_size - 256 merges, specials not counted
    use_counts: bool = True  # False: each distinct chunk counts once, however often it occurs
    count: str = "overlapping"  # how pairs are counted in a chunk: a key of COUNTERS
    merge: str = "left_to_right"  # how a merge is applied in a chunk: a key of MERGERS

    @property
    def num_merges(self) -> int:
        specials = len(self.special_tokens) if self.specials_in_vocab else 0
        return max(self.vocab_size - 256 - specials, 0)


def training_chunks(text: str, setup: Setup) -> list[tuple[bytes, int]]:
    """The distinct chunks a trainer counts, with how often each occurs, in first-seen order:
    cut at the special tokens, then split with the pattern (as ``Tokenizer.train`` does).

    >>> training_chunks("ab ab!", Setup(GPT4_SPLIT_PATTERN, 300))
    [(b'ab', 1), (b' ab', 1), (b'!', 1)]
    """
    text = clean_text(text)
    specials = list(setup.special_tokens)
    parts = cut_at_specials(text, specials) if setup.cut_at_specials else [text]
    splitter = Tokenizer(setup.pattern)
    counts = Counter(piece for part in parts for piece in splitter.split(part))
    return [(chunk.encode("utf-8"), n if setup.use_counts else 1) for chunk, n in counts.items()]


def check_settings(text: object, pattern: object, special_tokens: object) -> tuple[str, tuple]:
    if not isinstance(text, str):
        raise ValueError(f"the text must be a str, not {type(text).__name__}")
    if len(text) > MAX_CHECK_CHARS:
        raise ValueError(f"the text has {len(text):,} characters; the check trains on at most"
                         f" {MAX_CHECK_CHARS:,} (a few thousand show most mistakes)")
    if pattern is None:
        pattern = ""
    if not isinstance(pattern, str):
        raise ValueError(f"pattern must be a split pattern (str) or '' for none, not"
                         f" {shorten(pattern)}")
    return pattern, tuple(training_specials(special_tokens))


def train_reference(
    text: str,
    *,
    pattern: str,
    vocab_size: int,
    special_tokens: Iterable[str] = (),
    tie_rule: str = "seen",
) -> Tokenizer:
    """The reference: ``Tokenizer.train`` with the learner's inputs (``pattern=""``: no split)."""
    pattern, specials = check_settings(text, pattern, special_tokens)
    tok = RegexTokenizer(pattern) if pattern else BasicTokenizer()
    tok.train(text, vocab_size, tie_rule=tie_rule, special_tokens=list(specials))
    return tok
