"""Learning word BPE merges as Sennrich et al. (2016) did, with subword-nmt's ``learn_bpe`` rules.

The text is cut into lines at ``"\\n"``, each line stripped of ``"\\r"``, ``"\\n"`` and spaces at
both ends and cut into words at single spaces (so a tab stays inside a word, as in subword-nmt).
A word is its characters with ``</w>`` glued to the last one (``low`` is ``l o w</w>``: the
"0.2" convention, which ``#version: 0.2`` at the top of a codes file announces). Then, merge by
merge:

- the most frequent pair of adjacent symbols wins, counted over every word times its count; of
  equally frequent pairs, the greatest pair (compared as two strings, first then second) wins;
- training stops after ``num_symbols`` merges, or when the best pair occurs fewer than
  ``min_frequency`` times (subword-nmt's default 2);
- a merge replaces the pair's occurrences in a word left to right, never overlapping, where the
  two symbols stand as whole symbols of the word written with spaces between its symbols (the
  test is on that spelling, so a symbol that holds a tab or another non-space blank can take part
  in a merge of its last characters, as in subword-nmt);
- the counts are kept as subword-nmt keeps them: updated where a merge changed a word, with its
  pruning of rare pairs (below a tenth of the best count, then a threshold that falls as merges
  go on) and its reloading of them, so the same pairs win in the same order even where that
  bookkeeping is not a plain recount.

Bounds: the text (``MAX_WORD_BPE_CHARS``) and the merges (``MAX_WORD_BPE_MERGES``) are checked
before any work; a merge costs at most the length of the words that hold its pair, and
``progress(done, total, merge)`` may return False to stop early.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping

from ..limits import MAX_WORD_BPE_CHARS, MAX_WORD_BPE_MERGES, check_size
from ..limits.budget import run_bounded, train_budget

END_OF_WORD = "</w>"
VERSION_LINE = "#version: 0.2"

SymbolPair = tuple[str, str]
Word = tuple[str, ...]


def word_counts(text: str | Iterable[str]) -> dict[str, int]:
    """Each word's count in first-seen order: lines cut at ``"\\n"`` (or given as an iterable
    of lines), stripped of ``"\\r\\n "`` at both ends, words cut at single spaces.

    >>> word_counts("low lower\\nlow  newest\\r\\n")
    {'low': 2, 'lower': 1, 'newest': 1}
    """
    lines = text.split("\n") if isinstance(text, str) else text
    counts: dict[str, int] = {}
    for line in lines:
        for word in line.strip("\r\n ").split(" "):
            if word:
                counts[word] = counts.get(word, 0) + 1
    return counts


def read_word_counts(text: str) -> dict[str, int]:
    """subword-nmt's ``--dict-input``: one ``word count`` line each; a bad line is a ValueError
    naming it."""
    counts: dict[str, int] = {}
    for lineno, line in enumerate(text.split("\n"), 1):
        if not line.strip("\r\n "):
            continue
        parts = line.strip("\r\n ").split(" ")
        if len(parts) != 2 or not (parts[1].isascii() and parts[1].isdigit()):
            raise ValueError(f"word counts, line {lineno}: expected 'word count', found"
                             f" {line[:60]!r}")
        counts[parts[0]] = counts.get(parts[0], 0) + int(parts[1])
    return counts


def _spelled(word: str) -> Word:
    return tuple(word[:-1]) + (word[-1] + END_OF_WORD,)


def _count_pairs(words: list[list]) -> tuple[defaultdict, defaultdict]:
    """Every adjacent pair's count (times the word's count) and, per pair, in how many places
    of which word it stands (word index -> places)."""
    counts: defaultdict = defaultdict(int)
    where: defaultdict = defaultdict(lambda: defaultdict(int))
    for index, (symbols, freq) in enumerate(words):
        for pair in zip(symbols, symbols[1:]):
            counts[pair] += freq
            where[pair][index] += 1
    return counts, where


class _Counts:
    """The pair counts during training: ``live`` (the pairs the best is looked for in) and
    ``kept`` (every pair's count as it was when it was last set aside)."""

    def __init__(self, live: defaultdict) -> None:
        self.live = live
        self.kept: defaultdict = defaultdict(int, live)

    def set_aside(self, threshold: float) -> None:
        """Move the pairs below ``threshold`` out of ``live``; a negative count there is what
        was taken off a pair since it was set aside, so it is added to the kept count."""
        for pair, count in list(self.live.items()):
            if count < threshold:
                del self.live[pair]
                if count < 0:
                    self.kept[pair] += count
                else:
                    self.kept[pair] = count

    def best(self) -> SymbolPair:
        live = self.live
        return max(live, key=lambda pair: (live[pair], pair))

    def reload(self) -> None:
        self.live = defaultdict(int, self.kept)


def _merge_in_words(pair: SymbolPair, words: list[list], where: defaultdict) -> list[tuple]:
    """Replace ``pair`` in every word that holds it: ``(index, new symbols, old symbols, count)``
    for each changed word."""
    first, second = pair
    joined = first + second
    spelled = re.compile(r"(?<!\S)" + re.escape(first + " " + second) + r"(?!\S)")
    changed = []
    for index, places in where[pair].items():
        if places < 1:
            continue
        old, freq = words[index]
        new = tuple(spelled.sub(lambda _: joined, " ".join(old)).split(" "))
        words[index] = (new, freq)
        changed.append((index, new, old, freq))
    return changed


def _positions(symbols: Word, symbol: str) -> Iterable[int]:
    start = 0
    while True:
        try:
            start = symbols.index(symbol, start)
        except ValueError:
            return
        yield start
        start += 1


def _update(pair: SymbolPair, changed: list[tuple], counts: defaultdict, where: defaultdict) -> None:
    """Take the pairs around each replaced occurrence off the counts and add those around each
    new symbol, word by word (the counts of pairs no merge touched stay as they are)."""
    counts[pair] = 0
    where[pair] = defaultdict(int)
    first, second = pair
    joined = first + second
    for index, new, old, freq in changed:
        i = 0
        last = len(old) - 1
        while True:
            try:
                i = old.index(first, i)
            except ValueError:
                break
            if i >= last or old[i + 1] != second:
                i += 1
                continue
            if i:
                before = old[i - 1:i + 1]
                counts[before] -= freq
                where[before][index] -= 1
            if i < last - 1:
                # the pair after, unless it is the space between two occurrences of ``pair``
                # (the next occurrence's pair before takes it off)
                repeated = old[i + 2] == first and i < last - 2 and old[i + 3] == second
                if not repeated:
                    after = old[i + 1:i + 3]
                    counts[after] -= freq
                    where[after][index] -= 1
            i += 2
        for i in _positions(new, joined):
            if i:
                before = new[i - 1:i + 1]
                counts[before] += freq
                where[before][index] += 1
            if i < len(new) - 1 and new[i + 1] != joined:
                after = new[i:i + 2]
                counts[after] += freq
                where[after][index] += 1


def learn_merges(
    text: str | Iterable[str] | None = None,
    num_symbols: int = 10_000,
    *,
    counts: Mapping[str, int] | None = None,
    min_frequency: int = 2,
    total_symbols: bool = False,
    progress: Callable[[int, int, SymbolPair], bool | None] | None = None,
) -> list[SymbolPair]:
    """Up to ``num_symbols`` merges learned from ``text`` (or from ``counts``, word -> count,
    subword-nmt's ``--dict-input``), in order: subword-nmt's ``learn_bpe`` with the same
    ``min_frequency`` gives the same merges in the same order.

    ``total_symbols`` (subword-nmt's ``-t``): ``num_symbols`` counts the characters too, so the
    merges are that many fewer than it (one for each distinct character inside words and each
    distinct last character with ``</w>``).

    Under a training budget (``limits.train_budget()``: the app's) it learns in a worker
    process that is killed past it (``BudgetExceeded`` names the limit); ``progress`` is then
    called here at most every ``limits.budget.PROGRESS_EVERY`` seconds, and returning False
    does not stop it (raise instead).

    >>> learn_merges("low low low lower newest newest widest", 3)
    [('l', 'o'), ('w', 'e'), ('s', 't</w>')]
    """
    budget = train_budget()
    if budget is not None:
        if counts is None and text is not None and not isinstance(text, str):
            text = list(text)
        return run_bounded("bpe_core.word_bpe.train:learn_here",
                           (text, num_symbols, counts, min_frequency, total_symbols), budget,
                           what="word BPE's training", progress=progress,
                           fix="train on a shorter text or with fewer merges (a smaller"
                           " vocabulary size)")
    if counts is None:
        if text is None:
            raise ValueError("learn_merges needs text or counts=")
        if isinstance(text, str):
            check_size(len(text), MAX_WORD_BPE_CHARS, "the text to learn word BPE from",
                       "learn from a sample of it, or from its word counts (counts=)")
        counts = word_counts(text)
    for word, count in counts.items():
        if not isinstance(word, str) or not word or isinstance(count, bool) or not isinstance(count, int) or count < 0:
            raise ValueError(f"counts must map words (non-empty strings) to whole numbers >= 0,"
                             f" found {word!r}: {count!r}")
    check_size(sum(map(len, counts)), MAX_WORD_BPE_CHARS, "the words to learn word BPE from")
    if isinstance(num_symbols, bool) or not isinstance(num_symbols, int) or num_symbols < 0:
        raise ValueError(f"num_symbols must be a whole number >= 0, not {num_symbols!r}")
    check_size(num_symbols, MAX_WORD_BPE_MERGES, "the number of merges asked for")
    spelled = {_spelled(word): count for word, count in counts.items()}
    words = sorted(spelled.items(), key=lambda item: item[1], reverse=True)
    if total_symbols:
        inside = {c for w in spelled for c in w[:-1]}
        last = {w[-1] for w in spelled}
        num_symbols -= len(inside) + len(last)
    pair_counts, where = _count_pairs(words)
    if not pair_counts:
        return []  # no word of two characters: nothing to merge (subword-nmt fails on max())
    stats = _Counts(pair_counts)
    threshold = max(pair_counts.values()) / 10
    merges: list[SymbolPair] = []
    for i in range(num_symbols):
        best = stats.best() if stats.live else None
        if best is None or (i and stats.live[best] < threshold):
            stats.set_aside(threshold)
            stats.reload()
            best = stats.best()
            threshold = stats.live[best] * i / (i + 10000.0)
            stats.set_aside(threshold)
        if stats.live[best] < min_frequency:
            break
        merges.append(best)
        changed = _merge_in_words(best, words, where)
        _update(best, changed, stats.live, where)
        stats.live[best] = 0
        if not i % 100:
            stats.set_aside(threshold)
        if progress is not None and progress(i + 1, num_symbols, best) is False:
            break
    return merges


def learn_here(text: str | list[str] | None, num_symbols: int, counts: Mapping[str, int] | None,
               min_frequency: int, total_symbols: bool,
               progress: Callable[[int, int, SymbolPair], bool | None] | None = None
               ) -> list[SymbolPair]:
    """``learn_merges`` in this process (a worker's call, within its budget)."""
    return learn_merges(text, num_symbols, counts=counts, min_frequency=min_frequency,
                        total_symbols=total_symbols, progress=progress)


def codes_text(merges: Iterable[SymbolPair]) -> str:
    """A codes file as subword-nmt writes it: ``#version: 0.2``, then one merge a line."""
    return "".join([VERSION_LINE + "\n"] + [f"{a} {b}\n" for a, b in merges])
