"""Fair merges on the parallel texts: classical BPE against parity-aware BPE (bpe_core/parity.py)
at the same vocabulary size, measured on sentences neither saw, with the Gini coefficient of the
languages' token counts.

The design follows ``costs.train_comparison``: the first two thirds of every language's lines
train, the last third is measured. Classical BPE trains on every language's training lines
joined (English first, as the set lists them); parity-aware BPE trains on the same lines, one
text per language, with ``parallel=True`` (the texts say the same thing, so a language's cost is
its number of tokens). Both use the same split pattern.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from bpe_core import RegexTokenizer, Tokenizer
from bpe_core.parity import ParityTokenizer, train_parity
from bpe_core.patterns import GPT4_SPLIT_PATTERN
from bpe_core.training import ProgressCallback

from .costs import MAX_TAX_VOCAB, TRAIN_SHARE, measure_text
from .languages import Language


def gini(values: Sequence[float]) -> float:
    """The Gini coefficient of ``values`` (0: all equal; near 1: one holds everything): the mean
    absolute difference of every pair over twice the mean.

    >>> gini([5, 5, 5]), gini([0, 0, 3]), round(gini([1, 2, 3, 4]), 4)
    (0.0, 0.6666666666666666, 0.25)
    """
    n = len(values)
    total = sum(values)
    if n == 0 or total == 0:
        return 0.0
    ordered = sorted(values)
    # sum over pairs |x_i - x_j| = 2 * sum_i (2i - n + 1) x_(i) for sorted x (0-based i)
    weighted = sum((2 * i - n + 1) * x for i, x in enumerate(ordered))
    return 2 * weighted / (2 * n * total)


class ParityRow(NamedTuple):
    code: str
    language: str
    script: str
    classical_tokens: int
    parity_tokens: int
    classical_relative: float  # tokens / English tokens, under classical BPE
    parity_relative: float
    merges_served: int  # parity-aware merges chosen for this language


class ParityComparison(NamedTuple):
    rows: list[ParityRow]
    vocab_size: int
    train_lines: int
    test_lines: int
    classical: Tokenizer
    parity: ParityTokenizer

    @property
    def classical_gini(self) -> float:
        return gini([r.classical_tokens for r in self.rows])

    @property
    def parity_gini(self) -> float:
        return gini([r.parity_tokens for r in self.rows])

    @property
    def classical_total(self) -> int:
        return sum(r.classical_tokens for r in self.rows)

    @property
    def parity_total(self) -> int:
        return sum(r.parity_tokens for r in self.rows)

    @property
    def compression_change(self) -> float:
        """How many more tokens (a fraction: 0.01 is 1% more) parity-aware BPE needs for all
        the held-out sentences together than classical BPE: the cost to global compression."""
        return self.parity_total / self.classical_total - 1 if self.classical_total else 0.0


def split_lines(languages: Sequence[Language]) -> tuple[int, int]:
    """(lines that train, lines measured), as ``train_comparison`` cuts the set."""
    n = min(len(lang.lines) for lang in languages)
    if n < 2:
        raise ValueError("every language needs at least 2 lines: some to train, some to measure")
    return min(n - 1, max(1, round(n * TRAIN_SHARE))), n


def fold_lines(languages: Sequence[Language], folds: int) -> list[range]:
    """The held-out lines of each of ``folds`` folds: the lines every language has, cut into
    ``folds`` consecutive runs of (nearly) equal length; each fold trains on the others.

    >>> from bpe_lab.who_pays.languages import load_parallel
    >>> fold_lines(load_parallel(), 4)
    [range(0, 4), range(4, 8), range(8, 12), range(12, 16)]
    """
    n = min(len(lang.lines) for lang in languages)
    if not 2 <= folds <= n:
        raise ValueError(f"folds must be from 2 to {n} (the lines every language has), not"
                         f" {folds}")
    cuts = [round(k * n / folds) for k in range(folds + 1)]
    return [range(cuts[k], cuts[k + 1]) for k in range(folds)]


def parity_folds(languages: Sequence[Language], vocab_size: int = 1024, folds: int = 4,
                 pattern: str = GPT4_SPLIT_PATTERN, *, global_merges: int = 0,
                 window: int = 0) -> list[ParityComparison]:
    """``parity_comparison`` once per fold of ``fold_lines``: each fold's lines held out and the
    rest trained on, so that a claim about compression rests on every line, not on one cut."""
    return [parity_comparison(languages, vocab_size, pattern, global_merges=global_merges,
                              window=window, held_out=held)
            for held in fold_lines(languages, folds)]


def parity_comparison(
    languages: Sequence[Language],
    vocab_size: int = 1024,
    pattern: str = GPT4_SPLIT_PATTERN,
    *,
    global_merges: int = 0,
    window: int = 0,
    progress: ProgressCallback | None = None,
    held_out: range | None = None,
) -> ParityComparison:
    """Classical and parity-aware BPE trained on the same lines, measured on the held-out ones.
    ``global_merges`` and ``window`` choose the authors' hybrid and moving-window variants
    (bpe_core/parity.py). ``progress(done, total, record)`` follows parity-aware training (the
    longer one). ``held_out``: the lines measured (the others train); by default the last third,
    as ``split_lines`` cuts.

    >>> from bpe_lab.who_pays.languages import load_parallel
    >>> result = parity_comparison(load_parallel(), 1024)
    >>> result.parity_gini < result.classical_gini
    True
    """
    if not 256 <= vocab_size <= MAX_TAX_VOCAB:
        raise ValueError(f"vocab_size must be from 256 to {MAX_TAX_VOCAB:,}, not {vocab_size:,}:"
                         " the parallel texts are too small for more")
    if not any(lang.code == "en" for lang in languages):
        raise ValueError("the languages must include English (code 'en'): costs are relative to it")
    train, n = split_lines(languages)
    held = range(train, n) if held_out is None else held_out
    texts = {lang.code: "\n".join(line for k, line in enumerate(lang.lines[:n]) if k not in held)
             for lang in languages}
    classical = RegexTokenizer(pattern)
    classical.train("\n".join(texts.values()), vocab_size)
    parity = train_parity(texts, vocab_size, pattern=pattern, parallel=True,
                          global_merges=global_merges, window=window, progress=progress)
    measured = {lang.code: "\n".join(lang.lines[k] for k in held) for lang in languages}
    before = {c: measure_text(classical, t).tokens for c, t in measured.items()}
    after = {c: measure_text(parity, t).tokens for c, t in measured.items()}
    rows = [ParityRow(lang.code, lang.name, lang.script, before[lang.code], after[lang.code],
                      before[lang.code] / before["en"], after[lang.code] / after["en"],
                      parity.served.count(lang.code))
            for lang in languages]
    return ParityComparison(rows, vocab_size, n - len(held), len(held), classical, parity)
