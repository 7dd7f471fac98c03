"""Applying word BPE merges as subword-nmt's ``apply_bpe`` does: ``WordBPE``.

A word is its characters with ``</w>`` glued to the last one (codes of ``#version: 0.2``; a
codes file without a version line is "0.1": ``</w>`` a symbol of its own). Then, round by round,
the pair of adjacent symbols whose merge comes first in the codes is merged at every place it
stands, left to right, never overlapping; the rounds end when no adjacent pair is a merge.
``</w>`` is taken off again, and every piece but a word's last gets the separator (``@@``), so
that ``" ".join`` of the pieces reads ``low@@ er``.

A round in a long word finds its pair from a heap of the word's pairs rather than by looking at
every pair (subword-nmt's way, kept for words of up to 24 symbols), so a word of n characters
costs about n log n, not n squared: the segmentation is subword-nmt's either way. The pieces of
the last 65,536 distinct words are remembered (then forgotten all at once), so memory is bounded.

Glossaries (subword-nmt's ``--glossaries``): Python ``re`` patterns; a word that matches one
whole is kept whole, and a glossary's matches inside a word are cut out and kept whole. They are
the caller's own patterns and run without a time budget.
"""

from __future__ import annotations

import heapq
import re
from collections.abc import Iterable, Sequence

from ..limits import MAX_MODEL_BYTES, MAX_WORD_BPE_MERGES, check_size
from ..merges import merge
from .train import END_OF_WORD, SymbolPair, codes_text, learn_merges

SEPARATOR = "@@"


def read_codes(text: str, name: str = "codes file", merges: int = -1) -> tuple[tuple[int, ...], list[SymbolPair]]:
    """A codes file's version and merges: ``(version, [(a, b), ...])``. ``merges``: only the
    first so many (-1: all). A line that is not two symbols is a ValueError naming it."""
    check_size(len(text), MAX_MODEL_BYTES, f"{name}")
    lines = text.split("\n")
    version: tuple[int, ...] = (0, 1)
    first_line = 1
    if lines and lines[0].startswith("#version:"):
        field = lines[0].split()[-1] if lines[0].split()[1:] else ""
        number = re.sub(r"(\.0+)*$", "", field)
        try:
            version = tuple(int(x) for x in number.split("."))
        except ValueError:
            raise ValueError(f"{name}, line 1: {lines[0][:60]!r} is not a version such as"
                             " '#version: 0.2'") from None
        lines, first_line = lines[1:], 2
    if version not in ((0, 1), (0, 2)):
        raise ValueError(f"{name}, line 1: subword-nmt codes of version"
                         f" {'.'.join(map(str, version))} are not read here (0.1 and 0.2 are)")
    body = "\n".join(lines).rstrip("\n")
    pairs: list[SymbolPair] = []
    if body:
        for n, line in enumerate(body.split("\n")):
            if merges != -1 and n >= merges:
                break
            parts = tuple(line.strip("\r\n ").split(" "))
            if len(parts) != 2:
                raise ValueError(f"{name}, line {n + first_line}: expected two symbols with a"
                                 f" space between them, found {line[:60]!r}")
            pairs.append(parts)  # type: ignore[arg-type]
    check_size(len(pairs), MAX_WORD_BPE_MERGES, f"the merges in {name}")
    return version, pairs


def _isolate(word: str, glossary: str) -> list[str]:
    """``word`` cut around ``glossary``'s matches, which stay whole (subword-nmt's rule: a word
    that is a match, or holds none, stays as it is)."""
    if re.match("^" + glossary + "$", word) or not re.search(glossary, word):
        return [word]
    parts = re.split("(" + glossary + ")", word)
    head, ending = [p for p in parts[:-1] if p], parts[-1]
    return head + [ending.strip("\r\n ")] if ending != "" else head


SHORT_WORD = 24  # symbols up to which looking at every pair each round beats a heap
CACHE_WORDS = 65_536  # words whose pieces ``WordBPE`` remembers (then it forgets them all)


def _merge_short(symbols: list[str], ranks: dict[SymbolPair, int]) -> list[str]:
    """``merge_symbols`` for a short word: each round looks at every adjacent pair."""
    while len(symbols) > 1:
        best = None
        for pair in zip(symbols, symbols[1:]):
            rank = ranks.get(pair)
            if rank is not None and (best is None or rank < best[0]):
                best = (rank, pair)
        if best is None:
            break
        symbols = merge(symbols, best[1], best[1][0] + best[1][1])  # type: ignore[arg-type]
    return symbols


def merge_symbols(symbols: list[str], ranks: dict[SymbolPair, int],
                  pair_of_rank: dict[int, SymbolPair]) -> list[str]:
    """Rounds of merges on a word's symbols: the adjacent pair of lowest rank, merged at each of
    its places left to right, never overlapping (subword-nmt's and CLIP's rule), until no
    adjacent pair has a rank. ``pair_of_rank`` is ``ranks`` turned around."""
    n = len(symbols)
    if n < 2:
        return list(symbols)
    if n <= SHORT_WORD:
        return _merge_short(list(symbols), ranks)
    symbols = list(symbols)
    after = list(range(1, n + 1))
    after[-1] = -1
    before = list(range(-1, n - 1))
    heap = [(ranks[pair], i) for i, pair in enumerate(zip(symbols, symbols[1:]))
            if pair in ranks]
    heapq.heapify(heap)

    def still(rank: int, i: int) -> bool:
        j = after[i]
        return (symbols[i] is not None and j != -1
                and (symbols[i], symbols[j]) == pair_of_rank[rank])

    def push(i: int) -> None:
        j = after[i] if i != -1 else -1
        if j != -1:
            rank = ranks.get((symbols[i], symbols[j]))
            if rank is not None:
                heapq.heappush(heap, (rank, i))

    while heap:
        rank = heap[0][0]
        places = []
        while heap and heap[0][0] == rank:
            _, i = heapq.heappop(heap)
            if still(rank, i):
                places.append(i)
        merged = []
        for i in sorted(set(places)):
            if not still(rank, i):  # its first symbol was the second of the place before
                continue
            j = after[i]
            symbols[i] = symbols[i] + symbols[j]
            symbols[j] = None  # type: ignore[call-overload]
            after[i] = after[j]
            if after[j] != -1:
                before[after[j]] = i
            merged.append(i)
        for i in merged:
            push(before[i])
            push(i)
    return [s for s in symbols if s is not None]


class WordBPE:
    """Word BPE merges and how to apply them: ``segment_word("lower") -> ("low", "er")``,
    ``segment("the lower")`` -> ``"the low@@ er"``. ``family`` is ``"word"``."""

    family = "word"

    def __init__(self, merges: Sequence[SymbolPair], *, version: tuple[int, ...] = (0, 2),
                 separator: str = SEPARATOR, glossaries: Sequence[str] | None = None) -> None:
        if version not in ((0, 1), (0, 2)):
            raise ValueError(f"version must be (0, 1) or (0, 2), not {version!r}")
        check_size(len(merges), MAX_WORD_BPE_MERGES, "the merges")
        self.merges = [tuple(pair) for pair in merges]
        self.version = version
        self.separator = separator
        self.glossaries = list(glossaries or [])
        self._whole = (re.compile("^({})$".format("|".join(self.glossaries)))
                       if self.glossaries else None)
        self.ranks: dict[SymbolPair, int] = {}
        for rank, pair in enumerate(self.merges):
            self.ranks.setdefault(pair, rank)  # the first place of a merge given twice
        self._pair_of_rank = {rank: pair for pair, rank in self.ranks.items()}
        self._cache: dict[str, tuple[str, ...]] = {}

    @classmethod
    def learn(cls, text: str, num_symbols: int, **options: object) -> WordBPE:
        """Merges learned from ``text`` (``train.learn_merges``: ``min_frequency``,
        ``total_symbols``, ``progress``), ready to apply."""
        return cls(learn_merges(text, num_symbols, **options))  # type: ignore[arg-type]

    @classmethod
    def from_codes(cls, text: str, name: str = "codes file", *, merges: int = -1,
                   separator: str = SEPARATOR, glossaries: Sequence[str] | None = None) -> WordBPE:
        """The merges of a codes file (``learn_bpe``'s output, or ours)."""
        version, pairs = read_codes(text, name, merges)
        return cls(pairs, version=version, separator=separator, glossaries=glossaries)

    def codes(self) -> str:
        """The codes file of these merges (``#version: 0.2`` first, for version 0.2)."""
        text = codes_text(self.merges)
        return text if self.version == (0, 2) else text.split("\n", 1)[1]

    def __repr__(self) -> str:
        return f"WordBPE({len(self.merges)} merges, version {'.'.join(map(str, self.version))})"

    # -- one word ---------------------------------------------------------------------------
    def segment_word(self, word: str) -> tuple[str, ...]:
        """One word's pieces (no separator), as subword-nmt's ``encode``."""
        pieces = self._cache.get(word)
        if pieces is None:
            if len(self._cache) >= CACHE_WORDS:
                self._cache.clear()
            pieces = self._cache[word] = self._segment_word(word)
        return pieces

    def _segment_word(self, word: str) -> tuple[str, ...]:
        if self._whole is not None and self._whole.match(word):
            return (word,)
        if len(word) == 1:
            return (word,)
        if self.version == (0, 1):
            symbols = list(word) + [END_OF_WORD]
        else:
            symbols = list(word[:-1]) + [word[-1] + END_OF_WORD]
        symbols = merge_symbols(symbols, self.ranks, self._pair_of_rank)
        if symbols[-1] == END_OF_WORD:
            symbols.pop()
        elif symbols[-1].endswith(END_OF_WORD):
            symbols[-1] = symbols[-1][:-len(END_OF_WORD)]
        return tuple(symbols)

    # -- words, sentences, lines ------------------------------------------------------------
    def _pieces(self, word: str) -> list[str]:
        parts = [word]
        for glossary in self.glossaries:
            parts = [piece for part in parts for piece in _isolate(part, glossary)]
        return [piece for part in parts for piece in self.segment_word(part)]

    def segment_tokens(self, tokens: Iterable[str]) -> list[str]:
        """Every word's pieces in a row, each piece but a word's last with the separator."""
        out: list[str] = []
        for word in tokens:
            if not word:
                continue
            pieces = self._pieces(word)
            out.extend(piece + self.separator for piece in pieces[:-1])
            out.extend(pieces[-1:])
        return out

    def segment(self, sentence: str) -> str:
        """A line's words (cut at single spaces, ends stripped of ``"\\r\\n "``), segmented and
        joined by spaces."""
        return " ".join(self.segment_tokens(sentence.strip("\r\n ").split(" ")))

    def process_line(self, line: str) -> str:
        """A line segmented with its leading and trailing ``"\\r\\n "`` kept, as ``apply_bpe``
        writes each line of a file."""
        lead = len(line) - len(line.lstrip("\r\n "))
        trail = len(line) - len(line.rstrip("\r\n "))
        out = line[:lead] + self.segment(line)
        if trail and trail != len(line):
            out += line[-trail:]
        return out

    def apply(self, text: str) -> str:
        """A whole text, line by line (lines end at ``"\\n"``), as ``apply_bpe`` on a file whose
        lines end so."""
        return "".join(self.process_line(line) for line in _line_ends(text))

    def tokens(self, text: str) -> list[str]:
        """The pieces of a text, separators on (every line's, in a row)."""
        return [piece for line in text.split("\n") for piece in self.segment(line).split(" ")
                if piece]


def _line_ends(text: str) -> list[str]:
    """Lines ending at ``"\\n"`` only, each with its end."""
    parts = text.split("\n")
    lines = [part + "\n" for part in parts[:-1]]
    return lines + ([parts[-1]] if parts[-1] else [])
