"""How text is cut before BPE counts anything: at the special tokens, then by the split pattern.

Both the tokenizer (``base.py``) and the corpus reader (``corpus.py``) cut text this way, so that
training on files gives exactly the pieces that training on one string gives.

    >>> list(cut_at_specials("ab<|x|>cd", ["<|x|>"]))
    ['ab', 'cd']
    >>> split_by_pattern(compile_pattern(r"\\p{L}+"), "hi, you")
    ['hi', ', ', 'you']
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import replace

import regex

from .limits import MAX_PATTERN_CHARS, MAX_REPEAT, check_pattern  # noqa: F401 - MAX_REPEAT: read here too
from .limits.budget import Budget, budget_for, run_bounded
from .oniguruma import compile_translated, unguarded
from .patterns import (
    BYTE_LEVEL_PATTERN,
    DIGIT_PRESETS,
    GPT2_SPLIT_PATTERN,
    GPT4_SPLIT_PATTERN,
    GPT4O_SPLIT_PATTERN,
    WORD_RUN_PATTERNS,
)
from .text import shorten


def compile_pattern(pattern: str, what: str = "the split pattern",
                    max_chars: int | None = MAX_PATTERN_CHARS) -> regex.Pattern | None:
    """The compiled split pattern (None for ``""``: no split), or ValueError saying what is wrong:
    its cost is checked first (``limits.check_pattern``), since compiling a costly one takes
    gigabytes."""
    if not pattern:
        return None
    # a pattern from_oniguruma wrote with guards is several times its file's (bounded there)
    check_pattern(pattern, what, max_chars=None if unguarded(pattern) != pattern else max_chars)
    try:
        compiled = compile_translated(pattern)  # regex.compile, fast for an Oniguruma translation
    except (regex.error, OverflowError, RecursionError) as e:
        raise ValueError(f"invalid split pattern: {e}") from e
    if compiled.flags & regex.REVERSE:  # limits reads (?r) too; this is the engine's own word
        raise ValueError(f"{what} matches in reverse (?r); a split reads the text forwards:"
                         " write it without (?r)")
    return compiled


# ----------------------------------------------------------------------------------------------
# Where a corpus may be cut into blocks without changing the split

# A cut at c is sound when the split of the whole text is the split of text[:c] followed by the
# split of text[c:]. bpe_core proves this for its three built-in patterns only, each by a local
# rule on the characters around c (below); for any other pattern it is not proven (a pattern
# can look arbitrarily far: `(?s).{1,4}` counts from the start, `(?:\S+\s*){1,3}` groups words
# in threes), so the corpus reader cuts such text only right after a special token.
#
# The proof, for each pattern P of the three (none has a lookbehind, \b, ^ or \G; `$` appears
# only right after a run of \s):
#
# R1 "before a line break": text[c-1] is X and text[c] is \r or \n, with X any non-space
#    character for GPT-2 and a letter or digit (\p{L}, \p{N}) for GPT-4 and GPT-4o.
#    - Every match attempt that starts before c reads text[c] only where it tests whether
#      text[c] belongs to a class that holds no \r or \n (letters, digits, [^\s\p{L}\p{N}],
#      [^\r\n\p{L}\p{N}], a contraction's letters, the "'" of GPT-4o's contraction): there a line
#      break fails exactly as the end of the text does. The only elements that accept a line
#      break are \s runs (which cannot cross X, a non-space) and the [\r\n]* / [\r\n/]* that
#      GPT-4 / GPT-4o put after a run of [^\s\p{L}\p{N}], which X, a letter or digit, ends.
#      (GPT-2 has no such element, so any non-space X does.) `$` and (?!\S) follow a \s run,
#      which ends before X. So text[:c] and the whole text give the same matches before c,
#      and the one that covers X ends at c (no element that can hold X can also hold \r/\n).
#    - From c on, both scans start a match at c on the same text, and no element looks behind,
#      so they give the same matches.
# R2 "after a line-break run that ends a punctuation run" (GPT-4, GPT-4o): text[c-k..c-1] is a
#    maximal run of \r/\n, the character before it is P in [^\s\p{L}\p{N}] (GPT-4o: not a
#    mark \p{M} either, since its word alternatives take marks), and text[c] is not \r/\n
#    (GPT-4) or is a letter or digit (GPT-4o, whose [\r\n/]* would go on through a "/").
#    - The match that covers P can only be the ` ?[^\s\p{L}\p{N}]++[\r\n]*+` alternative
#      (GPT-4o: ` ?[^\s\p{L}\p{N}]+[\r\n/]*`): the others hold no such P or need a letter or
#      digit after it. Its punctuation run stops at P and its [\r\n]* takes the whole run, up
#      to c, where text[c] stops it exactly as the end of the text does. Attempts before it read
#      nothing past the run (as in R1). From c on, as in R1.
# X and P are never a surrogate (\p{Cs}): the text is cut before it is cleaned (clean_text joins
# a surrogate pair of an iterator's strings into one character, maybe a letter), and a byte that
# is not UTF-8 is one surrogate where the reader looks for cuts.
# tests/core/test_corpus_cuts.py checks the rules against the split of the whole text on hostile
# texts (runs of spaces and line breaks, "/", marks, CRLF, every block size).

_PROVEN_CUTS = {
    GPT2_SPLIT_PATTERN: r"(?<=[^\s\p{Cs}])(?=[\r\n])",
    GPT4_SPLIT_PATTERN: r"(?<=[\p{L}\p{N}])(?=[\r\n])"
                        r"|(?<=[^\s\p{L}\p{N}\p{Cs}][\r\n]+)(?=[^\r\n])",
    GPT4O_SPLIT_PATTERN: r"(?<=[\p{L}\p{N}])(?=[\r\n])"
                         r"|(?<=[^\s\p{L}\p{N}\p{M}\p{Cs}][\r\n]+)(?=[\p{L}\p{N}])",
}
# A word-run pattern (patterns.WORD_RUN_PATTERNS, BoundlessBPE's) cuts as its pattern does, with
# consecutive word pieces joined. Both rules cut beside a line break, so the piece on that side
# holds one: it is no word piece (no word alternative takes \r or \n) and is never joined. The
# run's alternative, tried first at each place, fails at a line break as at the end of the text
# (R1), and reads nothing past the piece it ends in; so the base rule holds for the runs too.
_PROVEN_CUTS.update({runs: _PROVEN_CUTS[base] for base, runs in WORD_RUN_PATTERNS.items()})


def add_proven_cut(pattern: str, rule: str) -> None:
    """Register ``rule`` (a pattern matching "" where a cut is harmless) for ``pattern``, a split
    defined outside this module with its own proof (SuperBPE's stage two read line by line,
    superbpe.py)."""
    _PROVEN_CUTS[pattern] = rule


def proven_cuts(pattern: str) -> regex.Pattern | None:
    """The places where text split by ``pattern`` may be cut without changing its pieces (a
    compiled pattern matching the empty string at each such place), or None when bpe_core
    cannot prove any for this pattern. See the proof above.

    >>> [m.start() for m in proven_cuts(GPT2_SPLIT_PATTERN).finditer("ab\\ncd \\n")]
    [2]
    >>> proven_cuts(r"(?s).{1,4}") is None
    True
    """
    rule = _PROVEN_CUTS.get(pattern)
    return None if rule is None else regex.compile(rule)


def time_left(deadline: float | None) -> Callable[[], float | None]:
    """``remaining()`` for a split that must end by ``deadline`` (a ``time.monotonic()`` value;
    None: no bound): the seconds left, or TimeoutError once they are spent."""

    def remaining() -> float | None:
        if deadline is None:
            return None
        left = deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError
        return left

    return remaining


# The split patterns bpe_core ships (patterns.py, and the byte-level one of tokenizer.json's
# ByteLevel step): each is linear on any text, so it is split in-process with no overhead.
# Any other pattern is a user's or a file's: it is split in a worker process whenever a budget
# applies (limits/budget.py).
BUILT_IN_PATTERNS = frozenset({
    GPT2_SPLIT_PATTERN, GPT4_SPLIT_PATTERN, GPT4O_SPLIT_PATTERN, *DIGIT_PRESETS.values(),
    *WORD_RUN_PATTERNS.values(),
    BYTE_LEVEL_PATTERN,
})
SPLIT_FIX = "simplify the pattern (nested repeats such as (a+)+ or (a|aa)+ backtrack badly)"
_POLICY = "policy"  # split_by_pattern's default budget: the process's policy (budget_for())


@functools.lru_cache(maxsize=8)
def _compiled(pattern: str) -> regex.Pattern | None:
    return compile_pattern(pattern, max_chars=None)


def split_here(pattern: str, text: str) -> list[str]:
    """``split_by_pattern`` of ``pattern`` (compiled once per process): what a worker runs."""
    return split_by_pattern(_compiled(pattern), text, budget=None)


def split_by_pattern(
    compiled, text: str, remaining: Callable[[], float | None] = lambda: None,
    budget: Budget | str | None = _POLICY,
) -> list[str]:
    """``text`` cut by a compiled pattern; text the pattern does not match is a chunk of its own
    (minbpe would drop it), so ``"".join(chunks) == text``. ``remaining()`` gives the seconds the
    split may still take (None: no bound). A chunk is always a whole match, even when the pattern
    has capture groups (``findall`` would give the groups).

    ``budget`` (default: the process's policy, ``limits.budget_for()``): a pattern that is not
    built in (``BUILT_IN_PATTERNS``) is split in a worker process within it, and past it
    ``BudgetExceeded`` (a ValueError) names the limit. With no budget, or a built-in pattern, the
    split runs here (the regex engine's own timeout from ``remaining()``)."""
    if budget == _POLICY:
        budget = budget_for()
    if budget is not None and compiled.pattern not in BUILT_IN_PATTERNS:
        left = remaining()
        if left is not None and left < budget.seconds:
            budget = replace(budget, seconds=left)
        return run_bounded("bpe_core.split:split_here", (compiled.pattern, text), budget,
                           what="the split pattern", fix=SPLIT_FIX)
    if not compiled.groups:
        chunks = compiled.findall(text, timeout=remaining())
        if sum(map(len, chunks)) == len(text):
            if "" in chunks:  # a pattern may match "" too (the test is 5x cheaper than the filter)
                return [chunk for chunk in chunks if chunk]
            return chunks
    out, end = [], 0
    for m in compiled.finditer(text, timeout=remaining()):
        if m.start() > end:
            out.append(text[end : m.start()])
        if m.end() > m.start():
            out.append(m.group())
        end = m.end()
    if end < len(text):
        out.append(text[end:])
    return out


def training_specials(special_tokens: object) -> list[str]:
    """``train``'s special tokens as a list of distinct, non-empty strings (in the given order)."""
    if special_tokens is None:
        return []
    if isinstance(special_tokens, str | bytes) or not isinstance(special_tokens, Iterable):
        raise ValueError(
            "special_tokens must be a list of strings such as ['<|endoftext|>'],"
            f" not {shorten(special_tokens)}"
        )
    specials = list(special_tokens)
    for s in specials:
        if not isinstance(s, str) or not s:
            raise ValueError(f"a special token must be a non-empty str, not {shorten(s)}")
    if len(set(specials)) != len(specials):
        twice = next(s for s in specials if specials.count(s) > 1)
        raise ValueError(f"special token {shorten(twice)} is given twice")
    return specials


def specials_pattern(specials: list[str]) -> regex.Pattern | None:
    """One pattern matching any special token, the longest first where two start at one place."""
    if not specials:
        return None
    return regex.compile("|".join(regex.escape(s) for s in sorted(specials, key=len, reverse=True)))


def cut_at_specials(text: str, specials: list[str]) -> Iterator[str]:
    """The text between the special tokens (the longest special wins where two overlap), one
    part at a time: never a second copy of the whole text (a corpus worker's 2 MB block)."""
    if not specials:
        return iter((text,))
    return filter(None, specials_pattern(specials).splititer(text))
