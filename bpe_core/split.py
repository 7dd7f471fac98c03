"""How text is cut before BPE counts anything: at the special tokens, then by the split pattern.

Both the tokenizer (``base.py``) and the corpus reader (``corpus.py``) cut text this way, so that
training on files gives exactly the pieces that training on one string gives.

    >>> cut_at_specials("ab<|x|>cd", ["<|x|>"])
    ['ab', 'cd']
    >>> split_by_pattern(compile_pattern(r"\\p{L}+"), "hi, you")
    ['hi', ', ', 'you']
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable

import regex

from .limits import MAX_PATTERN_CHARS, MAX_REPEAT, check_pattern  # noqa: F401 - MAX_REPEAT: read here too
from .oniguruma import compile_translated, unguarded
from .text import shorten


def compile_pattern(pattern: str, what: str = "the split pattern") -> regex.Pattern | None:
    """The compiled split pattern (None for ``""``: no split), or ValueError saying what is wrong:
    its cost is checked first (``limits.check_pattern``), since compiling a costly one takes
    gigabytes."""
    if not pattern:
        return None
    # a pattern from_oniguruma wrote with guards is several times its file's (bounded there)
    check_pattern(pattern, what, max_chars=None if unguarded(pattern) != pattern else MAX_PATTERN_CHARS)
    try:
        compiled = compile_translated(pattern)  # regex.compile, fast for an Oniguruma translation
    except (regex.error, OverflowError, RecursionError) as e:
        raise ValueError(f"invalid split pattern: {e}") from e
    if compiled.flags & regex.REVERSE:  # limits reads (?r) too; this is the engine's own word
        raise ValueError(f"{what} matches in reverse (?r); a split reads the text forwards:"
                         " write it without (?r)")
    return compiled


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


def split_by_pattern(
    compiled, text: str, remaining: Callable[[], float | None] = lambda: None
) -> list[str]:
    """``text`` cut by a compiled pattern; text the pattern does not match is a chunk of its own
    (minbpe would drop it), so ``"".join(chunks) == text``. ``remaining()`` gives the seconds the
    split may still take (None: no bound); the regex engine raises TimeoutError past them.
    A chunk is always a whole match, even when the pattern has capture groups (``findall``
    would give the groups)."""
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


def cut_at_specials(text: str, specials: list[str]) -> list[str]:
    """The text between the special tokens (the longest special wins where two overlap)."""
    if not specials:
        return [text]
    return [part for part in specials_pattern(specials).split(text) if part]
