"""The command line's inputs, checked before any work starts: every problem becomes a
``UsageError`` whose message names the file or option and says what fixes it.
"""

from __future__ import annotations

import os
import stat

from bpe_core import (
    GPT2_SPLIT_PATTERN,
    GPT4_SPLIT_PATTERN,
    GPT4O_SPLIT_PATTERN,
    BasicTokenizer,
    RegexTokenizer,
    Tokenizer,
)
from bpe_core.base import training_specials
from bpe_core.limits import (
    DEFAULT_MEMORY,
    DEFAULT_SECONDS,
    MAX_PATTERN_CHARS,
    MAX_VOCAB_SIZE,
    set_untrusted_budget,
)
from bpe_core.oniguruma import unguarded

PATTERNS = {"gpt2": GPT2_SPLIT_PATTERN, "gpt4": GPT4_SPLIT_PATTERN, "gpt4o": GPT4O_SPLIT_PATTERN,
            "none": ""}
PATTERN_WORDS = {GPT2_SPLIT_PATTERN: "GPT-2", GPT4_SPLIT_PATTERN: "GPT-4",
                 GPT4O_SPLIT_PATTERN: "GPT-4o", "": "none (no split)"}

# A custom split pattern gets the app's bound (ui/kit/choices.py: REGEX_TIMEOUT on MAX_TEXT_CHARS):
# it must split the first 200,000 characters of the corpus within 2 seconds (wall time, in a
# worker process: bpe_core.limits), and each block of the corpus within its share of that rate.
PATTERN_SECONDS = DEFAULT_SECONDS
PROBE_CHARS = 200_000


def install_budget() -> None:
    """The command line's budget for untrusted work (bpe_core.limits), installed by ``main``:
    every split by a pattern that is not built in, a tokenizer file's regexes and every read of
    a tokenizer file, in every command."""
    set_untrusted_budget(PATTERN_SECONDS, DEFAULT_MEMORY)


class UsageError(Exception):
    """Bad input: the message is the whole story (no traceback), the exit code 2."""


def pattern_from(value: str) -> str:
    """The split pattern that ``--pattern`` names: a preset's name, ``none``, or a regex."""
    if value in PATTERNS:
        return PATTERNS[value]
    if not value.strip():
        raise UsageError("--pattern is empty: give gpt2, gpt4, gpt4o, none (no split) or a"
                         " regular expression such as '\\w+|\\s+|[^\\w\\s]+'")
    if len(value) > MAX_PATTERN_CHARS:
        raise UsageError(f"--pattern is {len(value):,} characters long; write one of at most"
                         f" {MAX_PATTERN_CHARS:,} (GPT-4o's is about 350)")
    try:
        RegexTokenizer(value)
    except ValueError as e:
        raise UsageError(f"--pattern {value!r} is not a usable regular expression: {e}") from None
    return value


def pattern_words(pattern: str) -> str:
    plain = unguarded(pattern)  # a tokenizer.json's: guarded for Oniguruma's older Unicode
    words = PATTERN_WORDS.get(plain, f"custom {plain!r}")
    return words if plain == pattern else words + " (read with Hugging Face's Unicode tables)"


def block_timeout(pattern: str, block_bytes: int) -> float | None:
    """The seconds a custom split pattern may take on one block (of at most ``block_bytes``)
    while training: the app's rate (2 s for 200,000 characters), scaled to the block, so that a
    pattern that backtracks only somewhere deep in the corpus is stopped there too. None for the
    presets (no bound)."""
    if not pattern or pattern in PATTERN_WORDS:
        return None
    return PATTERN_SECONDS * max(1.0, block_bytes / PROBE_CHARS)


def new_tokenizer(pattern: str, timeout: float | None = None) -> Tokenizer:
    return RegexTokenizer(pattern, timeout=timeout) if pattern else BasicTokenizer()


def specials_from(values: list[str] | None) -> list[str]:
    try:
        return training_specials(values or [])
    except ValueError as e:
        raise UsageError(f"--special-token: {e}") from None


def check_vocab_size(vocab_size: int, specials: list[str]) -> None:
    least = 256 + len(specials)
    if vocab_size < least:
        have = (f"the 256 byte tokens and {len(specials)} special token"
                f"{'s' if len(specials) != 1 else ''}" if specials else "the 256 byte tokens")
        raise UsageError(f"--vocab-size {vocab_size:,} has no room for {have}: use at least"
                         f" {least:,} (CS336 trains TinyStories at 10,000)")
    if vocab_size > MAX_VOCAB_SIZE:
        raise UsageError(f"--vocab-size {vocab_size:,} is too large: use at most"
                         f" {MAX_VOCAB_SIZE:,} (GPT-4o has about 200,000)")


def cores() -> int:
    """The machine's cores (the most workers bpe_core's corpus counting takes)."""
    return os.cpu_count() or 1


def workers_from(value: int | None, *, remote: bool = False) -> tuple[int, str | None]:
    """``(workers, a warning or None)``. None means one per core. 0 or less is refused; more
    than the cores is lowered to the cores, with a warning (extra processes on a busy machine
    only cost memory). With a Dask scheduler (``remote``) the number is not bounded here."""
    if value is None:
        return cores(), None
    if value < 1:
        raise UsageError(f"--workers {value} is not a number of processes: use 1 or more (or"
                         f" leave it out for one per core; this machine has {cores()})")
    if not remote and value > cores():
        n = cores()
        return n, (f"--workers {value} is more than the {n} core{'s' if n != 1 else ''} here;"
                   f" using {n}")
    return value, None


def check_block_bytes(n: int) -> None:
    if n < 1:
        raise UsageError(f"--block-bytes {n} must be 1 or more (the default is 2 MiB)")


def check_corpus(paths: list[str]) -> int:
    """The corpus files' total size in bytes, after checking that each is a readable regular
    file and that not all are empty."""
    if not paths:
        raise UsageError("no corpus files given: name one or more text files")
    total = 0
    for path in paths:
        total += readable_file(path, "corpus file")
    if total == 0:
        names = paths[0] if len(paths) == 1 else f"all {len(paths)} corpus files"
        raise UsageError(f"{names}: empty corpus (0 bytes); give a text file with something in"
                         " it to train on")
    return total


def readable_file(path: str, what: str) -> int:
    """The size of ``path``; UsageError when it is missing, a directory or unreadable."""
    try:
        info = os.stat(path)
    except FileNotFoundError:
        raise UsageError(f"{path}: no such {what}; check the path (the folder here is"
                         f" {os.getcwd()})") from None
    except OSError as e:
        raise UsageError(f"{path}: cannot read this {what}: {e.strerror}") from None
    if stat.S_ISDIR(info.st_mode):
        raise UsageError(f"{path} is a directory, not a {what}: name the files in it (e.g."
                         f" {os.path.join(path, '*.txt')})")
    if not stat.S_ISREG(info.st_mode):
        raise UsageError(f"{path} is not a regular file (a pipe, socket or device), so it cannot"
                         f" be read as a {what}: save the text to a file and name that")
    try:
        with open(path, "rb") as f:
            f.read(1)
    except OSError as e:
        raise UsageError(f"{path}: cannot read this {what}: {e.strerror or e} (check its"
                         " permissions)") from None
    return info.st_size


def probe_text(paths: list[str]) -> tuple[str, str]:
    """``(file, text)``: the first ``PROBE_CHARS`` characters of the first non-empty corpus
    file, for trying the split pattern on (bytes that are not UTF-8 become U+FFFD here)."""
    for path in paths:
        with open(path, "rb") as f:
            data = f.read(PROBE_CHARS * 4)
        if data:
            return path, data.decode("utf-8", errors="replace")[:PROBE_CHARS]
    return paths[0], ""


def check_pattern_speed(pattern: str, paths: list[str]) -> None:
    """Refuse a custom split pattern that backtracks catastrophically: it must split the start
    of the corpus (up to 200,000 characters) within 2 seconds, the app's bound."""
    if not pattern or pattern in PATTERN_WORDS:
        return
    name, text = probe_text(paths)
    try:
        RegexTokenizer(pattern, timeout=PATTERN_SECONDS).split(text)
    except ValueError as e:
        if "took longer" not in str(e):
            raise UsageError(f"--pattern: {e}") from None
        raise UsageError(
            f"the split pattern took longer than {PATTERN_SECONDS:g} s on the first"
            f" {min(len(text), PROBE_CHARS):,} characters of {name} (the app's bound): it"
            " backtracks catastrophically, as (a+)+$ does on a run of a's. Rewrite it without"
            " nested repeats, or use --pattern gpt2, gpt4 or gpt4o"
        ) from None
