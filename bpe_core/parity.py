"""Parity-aware BPE (Foroutan et al., "Parity-Aware Byte-Pair Encoding: Improving Cross-lingual
Fairness in Tokenization", ACL 2026): each merge serves the language that is worst compressed.

Given one text per language, cut by the split pattern as ordinary BPE cuts it:

1. **The worst language.** Before each merge, every language's cost is measured on its own
   text with the merges so far. With ``parallel=True`` (the texts say the same thing, as the
   paper's multi-parallel development set does) the cost is the number of tokens; otherwise it
   is tokens per byte of the text (the paper's compression rate, bytes per token, turned over;
   the authors' ``--ratio`` mode with equal ratios). The highest cost is the worst; between equal
   costs, the language given first.
2. **The merge.** The most frequent pair in the worst language's text, counted in that language
   only, ties broken by ``tie_rule`` inside that text ("seen": the pair that occurs first in
   it; "bytes" and "ids" as ``train_bpe``). The merge is then made in every language's text.
3. A language with no pair occurring at least ``max(1, min_frequency)`` times is passed over
   for the next worst; training stops when no language has one (the authors' code stops at the
   first such language instead).

``global_merges=J`` makes the first J merges by the counts of all texts together, as classical
BPE on the texts joined in the order given (the paper's hybrid variant). ``window=W`` is the
authors' moving-window variant: of the last W merges chosen for a language (global merges do
not count), a language that was served more than ``alpha * W / L`` of them (L languages, or
L + 1 when there are global merges, as the authors' script counts the totals as one more column;
``alpha`` 2 by default, as theirs) is passed over for the next worst, so that no language holds
the merges for long; if every language with a pair is passed over so, the worst of them is
served all the same (the authors' script fails there: its argmax runs over no language; on the
33 parallel texts at 1,500 with alpha 1 that happens 117 times). The texts here are both the training data and where the cost is measured
(the authors' code can measure on a separate development set).

``special_tokens`` (e.g. ``["<|endoftext|>"]``) are as in classical training: every language's
text is cut at them before it is split, so no merge is learned across or inside them, and they
take the ids after the merges, counted in ``vocab_size``.

The merges depend only on the texts, their order and the options; from a corpus on disk each
language's pieces are counted in first-seen order with any number of workers (corpus.py), so
the merges are the same with 1 and N workers.
"""

from __future__ import annotations

import heapq
from array import array
from collections import Counter, deque
from collections.abc import Callable, Iterable, Sequence

from .corpus import DEFAULT_BLOCK_BYTES, CorpusSources, count_pieces
from .patterns import GPT4_SPLIT_PATTERN
from .regex_tokenizer import RegexTokenizer
from .split import compile_pattern, cut_at_specials, split_by_pattern, training_specials
from .text import clean_text
from .training import (
    LOW,
    SHIFT,
    MergeRecord,
    Nodes,
    PieceTable,
    ProgressCallback,
    _descending,
    check_train_options,
    pair_of,
    piece_table,
)

MAX_LANGUAGES = 1000


class ParityTokenizer(RegexTokenizer):
    """A parity-aware BPE tokenizer: an ordinary BPE tokenizer (encoding is the same) that also
    knows ``languages`` (the names, in the order given) and ``served[k]``, the language merge k
    was chosen for (None for the hybrid variant's global merges)."""

    variant = "parity"

    def __init__(self, pattern: str | None = None, *, languages: Sequence[str] = (),
                 served: Sequence[str | None] = (), **data) -> None:
        super().__init__(pattern, **data)
        self.languages = list(languages)
        self.served = list(served)

    def copy(self) -> ParityTokenizer:
        other = super().copy()
        other.languages, other.served = list(self.languages), list(self.served)
        return other


def _check_languages(names: list[str]) -> None:
    if not names:
        raise ValueError("parity-aware BPE needs a text for at least one language; give some")
    if len(names) > MAX_LANGUAGES:
        raise ValueError(f"at most {MAX_LANGUAGES} languages, not {len(names)}")
    seen = set()
    for name in names:
        if not isinstance(name, str) or not name:
            raise ValueError(f"a language's name must be a non-empty str, not {name!r}")
        if name in seen:
            raise ValueError(f"the language {name!r} is given twice; give each language once")
        seen.add(name)


def train_parity_chunks(
    languages: Sequence[Iterable[tuple[bytes, int]] | PieceTable],
    num_merges: int,
    *,
    parallel: bool = True,
    global_merges: int = 0,
    window: int = 0,
    alpha: float = 2,
    tie_rule: str = "seen",
    min_frequency: int = 0,
    max_token_bytes: int | None = None,
    progress: ProgressCallback | None = None,
) -> tuple[dict[tuple[int, int], int], list[MergeRecord], list[int | None], str | None]:
    """The merge loop: ``languages[l]`` is language l's ``(piece bytes, occurrences)`` in
    first-seen order. Returns ``(merges, history, served, stop_reason)``, where ``served[k]`` is
    the index of the language merge k served (None: a global merge)."""
    check_train_options(tie_rule, min_frequency, max_token_bytes)
    check_window(window, alpha)
    n_lang = len(languages)
    # 1. Lay out every language's distinct pieces, one node per byte (as train_bpe does), and
    # count each language's pairs on its own nodes.
    nodes = Nodes()
    bounds = [0]
    tokens = []  # each language's current number of tokens
    for pieces in languages:
        tokens.append(nodes.add(pieces))
        bounds.append(len(nodes.tok))
    size = list(tokens)  # each language's bytes
    nodes.link()
    counts: list[dict[int, int]] = []  # pairs as int keys (training.SHIFT)
    where: list[dict[int, array | int]] = []
    for lang in range(n_lang):
        c, w = nodes.count_pairs(bounds[lang], bounds[lang + 1])
        counts.append(c)
        where.append(w)

    vocab = {i: bytes([i]) for i in range(256)}
    backwards = {i: _descending(vocab[i]) for i in range(256)} if tie_rule == "bytes" else {}

    def first_place(lang: int, pair: int) -> int:
        return nodes.first_place(where[lang], pair)

    def tie_key(lang: int, pair: int) -> object:
        if tie_rule == "seen":
            if lang == n_lang:  # global: the first place in the texts joined in order
                return min(first_place(m, pair) for m in range(n_lang)
                           if counts[m].get(pair, 0) > 0)
            return first_place(lang, pair)
        if tie_rule == "ids":
            return pair  # (a, b) in order
        return backwards[pair >> SHIFT] + backwards[pair & LOW]

    def count_of(lang: int, pair: int) -> int:
        if lang == n_lang:
            return sum(c.get(pair, 0) for c in counts)
        return counts[lang].get(pair, 0)

    def fits(pair: int) -> bool:
        return (max_token_bytes is None
                or len(vocab[pair >> SHIFT]) + len(vocab[pair & LOW]) <= max_token_bytes)

    # One heap per language, and one (index n_lang) of the totals for the global merges.
    heaps: list[list] = [[(-c, tie_key(lang, p), p) for p, c in counts[lang].items() if fits(p)]
                         for lang in range(n_lang)]
    if global_merges:
        totals: Counter[int] = Counter()
        for c in counts:
            totals.update(c)
        heaps.append([(-c, tie_key(n_lang, p), p) for p, c in totals.items() if fits(p)])
    for heap in heaps:
        heapq.heapify(heap)

    def best(lang: int, floor: int) -> tuple[int, int] | None:
        """The best pair of heap ``lang`` if it occurs at least ``floor`` times (kept on it)."""
        heap = heaps[lang]
        while heap:
            neg, key, pair = heap[0]
            count = count_of(lang, pair)
            if count == -neg:
                return (count, pair) if count >= floor else None
            heapq.heappop(heap)
            if count > 0:
                heapq.heappush(heap, (-count, tie_key(lang, pair), pair))
        return None

    def cost(lang: int) -> float:
        return tokens[lang] if parallel else tokens[lang] / size[lang] if size[lang] else 0.0

    floor = max(1, min_frequency)
    merges: dict[tuple[int, int], int] = {}
    history: list[MergeRecord] = []
    served: list[int | None] = []
    recent: deque[int] = deque(maxlen=window or None)  # the moving window's languages
    # served more often than this in the window: passed over. The authors' share counts the
    # global merges' column as one more language when there are global merges (their
    # ``alpha / len(threshold)``, with one threshold per language plus one for the totals).
    limit = alpha * window / (n_lang + (1 if global_merges else 0))
    stop_reason = None
    for step in range(num_merges):
        # 3. The worst language that has a pair to merge, and its best pair.
        chosen = None
        if step < global_merges:
            found = best(n_lang, floor)
            if found is not None:
                chosen = (None, *found)
        else:
            order = sorted(range(n_lang), key=lambda m: (-cost(m), m))
            if window:  # the languages over the window's share go last
                over = {m for m in set(recent) if recent.count(m) > limit}
                order = [m for m in order if m not in over] + [m for m in order if m in over]
            for lang in order:
                found = best(lang, floor)
                if found is not None:
                    chosen = (lang, *found)
                    break
            if chosen is not None and window:
                recent.append(chosen[0])
        if chosen is None:
            stop_reason = (f"no language has a pair occurring at least {floor} times, after"
                           f" {step} merges")
            break
        lang, count, key = chosen
        # 4. Merge it in every language's text, updating only the neighbours' pairs.
        a, b = pair = pair_of(key)
        new_id = 256 + step
        new_pairs: set[tuple[int, int]] = set()  # (language, pair key)
        for m in range(n_lang):
            made, fewer = nodes.merge(key, new_id, counts[m], where[m])
            new_pairs.update((m, p) for p in made)
            tokens[m] -= fewer

        merges[pair] = new_id
        vocab[new_id] = vocab[a] + vocab[b]
        if tie_rule == "bytes":
            backwards[new_id] = _descending(vocab[new_id])
        for m, new_pair in new_pairs:
            if counts[m].get(new_pair, 0) > 0 and fits(new_pair):
                heapq.heappush(heaps[m], (-counts[m][new_pair], tie_key(m, new_pair), new_pair))
                if global_merges and step + 1 < global_merges:
                    heapq.heappush(heaps[n_lang], (-count_of(n_lang, new_pair),
                                                   tie_key(n_lang, new_pair), new_pair))
        record = MergeRecord(pair, new_id, vocab[new_id], count)
        history.append(record)
        served.append(lang)
        if progress is not None and progress(step + 1, num_merges, record) is False:
            if step + 1 < num_merges:
                stop_reason = f"stopped by the progress callback after {step + 1} merges"
            break
    return merges, history, served, stop_reason


def check_window(window: object, alpha: object) -> None:
    """ValueError unless ``window`` is a whole number of merges (0: no window) and ``alpha`` a
    number of at least 1 (below 1 every language could be over its share at once)."""
    if isinstance(window, bool) or not isinstance(window, int) or window < 0:
        raise ValueError(f"window must be a whole number of merges, 0 (none) or more, not {window!r}")
    if isinstance(alpha, bool) or not isinstance(alpha, int | float) or not alpha >= 1:
        raise ValueError(f"alpha must be a number of at least 1 (the authors' default is 2),"
                         f" not {alpha!r}")


def _pieces(text: str, compiled, specials: list[str]) -> Iterable[tuple[bytes, int]]:
    counted: Counter[str] = Counter()
    for part in cut_at_specials(text, specials):
        counted.update(split_by_pattern(compiled, part) if compiled else [part])
    return [(p.encode("utf-8"), n) for p, n in counted.items() if p]


def _num_merges(vocab_size: object, specials: list[str]) -> int:
    if isinstance(vocab_size, bool) or not isinstance(vocab_size, int) or vocab_size < 256:
        raise ValueError(f"vocab_size must be a whole number of at least 256, not {vocab_size!r}")
    if vocab_size < 256 + len(specials):
        raise ValueError(f"vocab_size {vocab_size} has no room for the 256 bytes and"
                         f" {len(specials)} special tokens; it must be at least"
                         f" {256 + len(specials)}")
    return vocab_size - 256 - len(specials)


def _parity_tokenizer(names: list[str], pattern: str, result: tuple,
                      specials: list[str]) -> ParityTokenizer:
    merges, history, served, stop_reason = result
    first = 256 + len(merges)  # the special tokens take the ids after the merges
    tok = ParityTokenizer(pattern, languages=names, merges=merges,
                          special_tokens={s: first + i for i, s in enumerate(specials)},
                          served=[None if s is None else names[s] for s in served])
    tok.history = history
    tok.stop_reason = stop_reason
    return tok


def train_parity(
    texts: dict[str, str],
    vocab_size: int,
    *,
    pattern: str = GPT4_SPLIT_PATTERN,
    parallel: bool = True,
    global_merges: int = 0,
    window: int = 0,
    alpha: float = 2,
    special_tokens: Iterable[str] | None = None,
    tie_rule: str = "seen",
    min_frequency: int = 0,
    max_token_bytes: int | None = None,
    progress: ProgressCallback | None = None,
) -> ParityTokenizer:
    """Parity-aware BPE on ``texts`` ({language name: its text}, in the order that breaks ties
    between languages) up to ``vocab_size`` (see the module for the rules).

    >>> tok = train_parity({"en": "aaaa bb", "xx": "cbcbcb"}, 258)
    >>> [tok.vocab[i] for i in (256, 257)], tok.served
    ([b'aa', b'cb'], ['en', 'xx'])
    """
    if not isinstance(texts, dict):
        raise TypeError(f"texts must be a dict of language name -> text, not {type(texts).__name__}")
    names = list(texts)
    _check_languages(names)
    for name, text in texts.items():
        if not isinstance(text, str):
            raise TypeError(f"the text of {name!r} must be str, not {type(text).__name__}")
    specials = training_specials(special_tokens)
    num_merges = _num_merges(vocab_size, specials)
    compiled = compile_pattern(pattern)
    languages = [_pieces(clean_text(texts[name]), compiled, specials) for name in names]
    result = train_parity_chunks(languages, num_merges, parallel=parallel,
                                 global_merges=global_merges, window=window, alpha=alpha,
                                 tie_rule=tie_rule, min_frequency=min_frequency,
                                 max_token_bytes=max_token_bytes, progress=progress)
    return _parity_tokenizer(names, pattern, result, specials)


def train_parity_corpus(
    sources: dict[str, CorpusSources],
    vocab_size: int,
    *,
    pattern: str = GPT4_SPLIT_PATTERN,
    parallel: bool = False,
    global_merges: int = 0,
    window: int = 0,
    alpha: float = 2,
    special_tokens: Iterable[str] | None = None,
    workers: int | None = None,
    errors: str = "strict",
    block_bytes: int = DEFAULT_BLOCK_BYTES,
    on_bytes: Callable[[int, int | None], object] | None = None,
    tie_rule: str = "seen",
    min_frequency: int = 0,
    max_token_bytes: int | None = None,
    progress: ProgressCallback | None = None,
) -> ParityTokenizer:
    """``train_parity`` with each language's text read from disk ({name: a path, a list of
    paths or an iterator of str}), its pieces counted by ``count_pieces`` in ``workers``
    processes. ``parallel`` is False by default here: files of different languages rarely say
    the same thing, so the cost is tokens per byte."""
    if not isinstance(sources, dict):
        raise TypeError(f"sources must be a dict of language name -> files, not {type(sources).__name__}")
    names = list(sources)
    _check_languages(names)
    specials = training_specials(special_tokens)
    num_merges = _num_merges(vocab_size, specials)
    check_train_options(tie_rule, min_frequency, max_token_bytes)
    check_window(window, alpha)
    languages = [piece_table(count_pieces(sources[name], pattern=pattern, workers=workers,
                                          special_tokens=specials, errors=errors,
                                          block_bytes=block_bytes, on_bytes=on_bytes).counts)
                 for name in names]
    result = train_parity_chunks(languages, num_merges, parallel=parallel,
                                 global_merges=global_merges, window=window, alpha=alpha,
                                 tie_rule=tie_rule, min_frequency=min_frequency,
                                 max_token_bytes=max_token_bytes, progress=progress)
    return _parity_tokenizer(names, pattern, result, specials)
