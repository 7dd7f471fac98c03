"""BPE training that makes exactly the merges of the seeds' loop, without rescanning the text.

The seeds' loop, for every merge, counts every adjacent pair in the whole text and then rewrites
the whole text: O(merges x text). This module gives the same merges, ties included, but

1. counts each distinct chunk once, with how often it occurs (" the" may occur 20 000 times),
2. keeps the pair counts and, for every pair, the places where it occurs,
3. after a merge, updates only the places the merge touched,
4. picks the next pair from a priority queue ordered like the seeds' ``max(stats, key=stats.get)``.

The tie rule. ``max`` over a dict returns the first of the equally frequent pairs in insertion
order, and ``get_stats`` inserts pairs in the order it meets them in the current token stream.
So among the most frequent pairs the winner is the one whose first occurrence comes earliest.
We lay the distinct chunks out in the order they first appear in the text, one node per byte,
so the node number of a pair's first occurrence orders pairs exactly as the stream does.

``train_bpe`` keeps its layout and pairs in ``merge_loop.Layout`` (every pair by a number, in
flat arrays; see that module). ``Nodes`` below, which parity-aware BPE (parity.py) shares, keeps
them in dicts by pair:

Data (arrays and dicts, indexed by node number; a pair (a, b) is the int ``a << 32 | b``):

    tok[i]     token id at node i; -1 once node i has been merged into its left neighbour
    nxt[i]     next live node in the same chunk, or -1 at the end of the chunk
    starts[k]  chunk k's first node (bisection finds a node's chunk; its left neighbour is
               the first live node before it, never before its chunk's first node)
    weight[k]  how many times chunk k occurs in the text
    counts     pair -> how many times it occurs in the text (every copy of a chunk counts)
    where      pair -> node numbers where it started, ascending (some may be stale): an int
               while it has one place (most new pairs), an ``array("i")`` from the second on
    heap       entries (-count, tie key, pair)

Every per-node value lives in an ``array`` (4 bytes each; a weight of 2**32 or more turns the
weights into 8-byte ones) rather than a list of Python ints (8 bytes of pointer, plus an int
object for most values): a corpus of millions of distinct chunks has tens of millions of nodes
and places. A pair as one int rather than a tuple of two saves a tuple per pair in the counts,
places and heap. The distinct chunks may come as a ``PieceTable`` (their bytes one after another
in one buffer, their ends and counts in arrays), which lays out without an object per chunk.

Other tie rules (``tie_rule``). The seeds' rule is "seen". Courses use others: Stanford's CS336
breaks ties toward the lexicographically greater pair of token bytes ("bytes"); "ids" takes the
smallest pair of ids. Only the heap's second field changes: the place of the first occurrence for
"seen", the pair for "ids", and for "bytes" a string that sorts the pairs' bytes backwards (see
``_descending``), so that the heap's smallest entry is still the rule's best pair.

Two facts keep the queue simple. A pair's count only ever falls after it is first counted (new
occurrences only ever form around the new token, and those are new pairs), and so does the set of
its places. So an entry in the heap is never worse than the truth: when the top entry still
matches the pair's current count it is the true maximum; when it does not, we push the pair back
with its current count and first place and look again ("lazy" deletion).
"""

from __future__ import annotations

import heapq
from array import array
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Container, Iterable, Iterator, Sequence
from itertools import accumulate, islice
from typing import NamedTuple

from .merge_loop import LOW, SHIFT, Layout  # a pair (a, b) is the int a << SHIFT | b


class Candidate(NamedTuple):
    """A pair that could have been merged at a step: its count and where it first occurs.

    ``first`` orders first occurrences in the text (smaller is earlier); it is a position in
    the training layout, comparable between candidates of one step, not a text offset.
    """

    pair: tuple[int, int]
    count: int
    first: int


class MergeRecord(NamedTuple):
    """One step of training: ``pair`` became token ``id`` (bytes ``token``); it occurred ``count`` times.

    ``candidates`` (when training was asked to keep them) are the best pairs at that step,
    the chosen one first, in the order the rule ranks them: higher count, then earlier first.
    """

    pair: tuple[int, int]
    id: int
    token: bytes
    count: int
    candidates: tuple[Candidate, ...] = ()


# progress(done, total, record) -> False to stop training early
ProgressCallback = Callable[[int, int, MergeRecord], "bool | None"]


class TrainResult(NamedTuple):
    merges: dict[tuple[int, int], int]
    history: list[MergeRecord]
    stop_reason: str | None  # None when every requested merge was made


TIE_RULES = ("seen", "bytes", "ids")  # see the module's docstring
_INVERT = bytes(range(255, -1, -1))  # byte x -> 255 - x


def _descending(token: bytes) -> str:
    """A string that sorts token bytes backwards: the greater ``token``, the smaller the string.

    Each byte x becomes the character 255 - x, and a final character 256 (above every byte's)
    makes a token sort after the longer tokens it begins, as ``b"ab" < b"abc"`` wants. A pair's key
    is its two tokens' strings joined: the end mark decides before the second token is reached.

    >>> sorted([b"a", b"ab", b"b"], key=_descending)
    [b'b', b'ab', b'a']
    """
    return token.translate(_INVERT).decode("latin-1") + "\u0100"


HEAP_SLACK = 100_000  # stale heap entries allowed beyond one per live pair, before a rebuild
FLOOR_SHIFT = 6  # the heap holds pairs at least 1/64 as frequent as its best, then 1/64 of that...


def pair_of(key: int) -> tuple[int, int]:
    """The pair ``(a, b)`` a pair key stands for."""
    return key >> SHIFT, key & LOW


class PieceTable:
    """Distinct pieces and their counts in flat arrays, in first-seen order: ``data`` holds
    their bytes one after another, piece k ends at ``ends[k]`` and occurs ``counts[k]`` times.
    About 16 bytes a piece beside its bytes, where a dict holds a bytes object, an int and an
    entry (about 100); ``Nodes`` lays it out without a Python object per piece, and empties it
    (so its memory is free for the merge loop). Iterating it gives ``(piece, count)`` in order,
    as the dict it was counted in did.

    >>> table = piece_table({b"the": 3, b" cat": 1})
    >>> table.data, list(table.ends), list(table.counts), list(table)
    (b'the cat', [3, 7], [3, 1], [(b'the', 3), (b' cat', 1)])
    >>> [m.token for m in train_bpe(table, 2).history], len(table)
    ([b'th', b'the'], 0)
    """

    __slots__ = ("data", "ends", "counts")

    def __init__(self, data: bytes, ends: array, counts: array) -> None:
        self.data, self.ends, self.counts = data, ends, counts  # ends, counts: array("Q")

    def __reduce__(self) -> tuple:  # pickles as its three buffers
        return PieceTable, (self.data, self.ends, self.counts)

    def __iter__(self) -> Iterator[tuple[bytes, int]]:
        data, start = self.data, 0
        for end, count in zip(self.ends, self.counts):
            yield data[start:end], count
            start = end

    items = __iter__

    def __len__(self) -> int:
        return len(self.ends)


def piece_table(counts: dict[bytes, int] | PieceTable) -> PieceTable:
    """``counts`` (piece -> occurrences, in first-seen order) as a ``PieceTable``; the dict is
    emptied, so that its memory is free before the merge loop lays the pieces out. The bytes
    are joined 65,536 pieces at a time: ``bytes.join`` holds 80 bytes a piece while it joins
    (a buffer view each), 95 MB for the 1.19 million pieces of web-like 200 MB at once. A
    ``PieceTable`` (what ``count_pieces`` gives when worker processes counted) is returned as
    it is."""
    if isinstance(counts, PieceTable):
        return counts
    pieces = iter(counts)
    data = b"".join([b"".join(islice(pieces, 1 << 16)) for _ in range(0, len(counts), 1 << 16)])
    table = PieceTable(data, array("Q", accumulate(map(len, counts))), array("Q", counts.values()))
    counts.clear()
    return table


def piece_table_of_text(counts: dict[str, int]) -> PieceTable:
    """``counts`` (str piece -> occurrences, in first-seen order) as a ``PieceTable`` of their
    UTF-8 bytes, in C: the pieces joined and encoded at once (a worker's block: no bytes object
    and no dict entry per piece), their lengths in bytes from the str lengths when all are
    ASCII.

    >>> table = piece_table_of_text({"the": 3, " café": 1})
    >>> table.data, list(table.ends), list(table.counts)
    (b'the caf\xc3\xa9', [3, 9], [3, 1])
    """
    text = "".join(counts)
    data = text.encode("utf-8")
    lengths = map(len, counts) if len(data) == len(text) else map(len, map(str.encode, counts))
    return PieceTable(data, array("Q", accumulate(lengths)), array("Q", counts.values()))


class Nodes:
    """The training layout (see the module): distinct chunks one after another, one node per
    token, linked inside each chunk; pair counts and places are kept by the caller (train_bpe
    keeps one table, parity.py one per language) and updated by ``merge``. Pairs are int keys
    (``a << SHIFT | b``; ``pair_of`` gives the tuple back).

    Per node it keeps its token and the next live node (4 bytes each); per chunk its first node
    and its occurrences. A node's chunk is found by bisection of the starts (in C), and its left
    neighbour by stepping back over the merged nodes (-1) of the token before it, never past
    the chunk's first node (which is never merged away): a chunk's weight and a node's link back
    would cost 8 more bytes a node.

    >>> nodes = Nodes(); nodes.add([(b"abab", 2)]); nodes.link()
    8
    >>> counts, where = nodes.count_pairs(0, len(nodes.tok))
    >>> {pair_of(k): c for k, c in counts.items()}
    {(97, 98): 4, (98, 97): 2}
    >>> new_pairs, fewer = nodes.merge(97 << SHIFT | 98, 256, counts, where)
    >>> {pair_of(k): c for k, c in counts.items() if c}, fewer, list(nodes.tok)
    ({(256, 256): 2}, 4, [256, -1, 256, -1])
    """

    def __init__(self) -> None:
        self.tok = array("i")  # token at node i; -1 once merged into its left neighbour
        self.starts = array("q")  # chunk k's first node
        self.weight = array("I")  # chunk k's occurrences ("Q" once one needs it)
        # Every chunk occurs at least once: a pair whose count falls to 0 has no place left,
        # and is forgotten (``merge``). A chunk given 0 occurrences keeps every pair.
        self.positive = True

    def _weigh(self, occurrences: int) -> None:
        try:
            self.weight.append(occurrences)
        except OverflowError:  # 2**32 occurrences or more: 8 bytes a weight from now on
            self.weight = array("Q", self.weight)
            self.weight.append(occurrences)

    def add(self, chunks: Iterable[tuple[Sequence[int], int]] | PieceTable) -> int:
        """Lay ``(chunk, occurrences)`` (or a ``PieceTable``, which is emptied once laid out)
        out after the nodes so far; their tokens, counted."""
        tok, starts = self.tok, self.starts
        total = 0
        if isinstance(chunks, PieceTable):  # its bytes are already one after another
            base = len(tok)
            tok.extend(chunks.data)
            start = 0
            for end, occurrences in zip(chunks.ends, chunks.counts):
                if end > start:
                    if occurrences <= 0:
                        self.positive = False
                    starts.append(base + start)
                    self._weigh(occurrences)
                    total += occurrences * (end - start)
                start = end
            # Laid out, the table is emptied (as piece_table empties its dict): its buffers are
            # free before the links, places and pairs are made.
            chunks.data, chunks.ends, chunks.counts = b"", array("Q"), array("Q")
            return total
        for chunk, occurrences in chunks:
            if chunk:
                if occurrences <= 0:
                    self.positive = False
                starts.append(len(tok))
                tok.extend(chunk)
                self._weigh(occurrences)
                total += occurrences * len(chunk)
        return total

    def link(self) -> None:
        """Link the nodes inside each chunk (``nxt``: -1 at a chunk's end)."""
        n = len(self.tok)
        nxt = self.nxt = array("i", range(1, n + 1))
        for s in self.starts:  # cut the links between neighbouring chunks
            if s:
                nxt[s - 1] = -1
        if n:
            nxt[n - 1] = -1

    def count_pairs(self, lo: int, hi: int) -> tuple[dict[int, int], dict[int, array | int]]:
        """Every adjacent pair of nodes ``lo..hi-1`` (whole chunks, before any merge): its
        count and the nodes where it starts."""
        tok, weight, starts = self.tok, self.weight, self.starts
        counts: dict[int, int] = {}
        where: dict[int, array | int] = {}
        n, n_chunks = len(tok), len(starts)
        for k in range(bisect_left(starts, lo), bisect_left(starts, hi)):
            end = starts[k + 1] if k + 1 < n_chunks else n
            w = weight[k]
            for i in range(starts[k], end - 1):
                key = tok[i] << SHIFT | tok[i + 1]
                if key in counts:
                    counts[key] += w
                    there = where[key]
                    if there.__class__ is int:
                        where[key] = array("i", (there, i))
                    else:
                        there.append(i)
                else:
                    counts[key] = w
                    where[key] = i
        return counts, where

    def first_place(self, where: dict[int, array | int], key: int) -> int:
        """The first node where the pair ``key`` still occurs; forget the stale places before it."""
        places = where[key]
        if places.__class__ is int:  # one place: it is the pair's while its count is not 0
            return places
        tok, nxt = self.tok, self.nxt
        a, b = key >> SHIFT, key & LOW
        k = 0
        while True:
            i = places[k]
            j = nxt[i]
            if tok[i] == a and j != -1 and tok[j] == b:
                break
            k += 1
        if k:
            del places[:k]
        return places[0]

    def merge(self, key: int, new_id: int, counts: dict[int, int],
              where: dict[int, array | int]) -> tuple[set[int], int]:
        """Merge the pair ``key`` at its places in ``where``, left to right, updating only the
        neighbours' pairs in ``counts`` and ``where``: the pairs it made that were not counted
        before, and how many tokens fewer the text has (the merges made, with their weights).
        A pair whose count falls to 0 leaves ``counts`` and ``where`` (it can never occur again:
        new pairs only form around the new token), so their size follows the live pairs."""
        tok, weight, nxt, starts = self.tok, self.weight, self.nxt, self.starts
        forget = self.positive
        a, b = key >> SHIFT, key & LOW
        new_high = new_id << SHIFT
        new_pairs: set[int] = set()
        fewer = 0
        places = where.pop(key, ())
        for i in ((places,) if places.__class__ is int else places):
            if tok[i] != a:
                continue  # stale: node i was merged since
            j = nxt[i]
            if j == -1 or tok[j] != b:
                continue  # stale: its right neighbour changed (e.g. "aaa": the second "aa")
            chunk = bisect_right(starts, i) - 1
            w = weight[chunk]
            q = nxt[j]
            if i != starts[chunk]:  # (x, a) becomes (x, new); x ends just before node i
                p = i - 1
                while tok[p] == -1:
                    p -= 1
                x = tok[p] << SHIFT
                old = x | a
                left_count = counts[old] - w
                if left_count or old == key or not forget:
                    counts[old] = left_count
                else:
                    del counts[old], where[old]
                left = x | new_id
                if left in counts:
                    counts[left] += w
                    there = where[left]
                    if there.__class__ is int:
                        where[left] = array("i", (there, p))
                    else:
                        there.append(p)
                else:
                    counts[left] = w
                    where[left] = p  # one place: a plain int until a second comes
                    new_pairs.add(left)
            if q != -1:  # (b, y) becomes (new, y)
                y = tok[q]
                old = b << SHIFT | y
                right_count = counts[old] - w
                if right_count or old == key or not forget:
                    counts[old] = right_count
                else:
                    del counts[old], where[old]
                right = new_high | y
                if right in counts:
                    counts[right] += w
                    there = where[right]
                    if there.__class__ is int:
                        where[right] = array("i", (there, i))
                    else:
                        there.append(i)
                else:
                    counts[right] = w
                    where[right] = i
                    new_pairs.add(right)
            tok[i] = new_id
            tok[j] = -1
            nxt[i] = q
            fewer += w
        counts.pop(key, None)
        return new_pairs, fewer


def check_train_options(tie_rule: object, min_frequency: object, max_token_bytes: object) -> None:
    if tie_rule not in TIE_RULES:
        raise ValueError(f"tie_rule must be one of {', '.join(TIE_RULES)}, not {tie_rule!r}")
    if isinstance(min_frequency, bool) or not isinstance(min_frequency, int) or min_frequency < 0:
        raise ValueError(f"min_frequency must be a whole number of 0 or more, not {min_frequency!r}")
    if max_token_bytes is not None and (
        isinstance(max_token_bytes, bool)
        or not isinstance(max_token_bytes, int)
        or max_token_bytes < 2
    ):
        raise ValueError(
            f"max_token_bytes must be None or a whole number of 2 or more, not {max_token_bytes!r}"
        )


def train_bpe(
    chunks: Iterable[tuple[bytes, int]] | PieceTable,
    num_merges: int,
    progress: ProgressCallback | None = None,
    verbose: bool = False,
    candidates: int = 0,
    *,
    tie_rule: str = "seen",
    min_frequency: int = 0,
    max_token_bytes: int | None = None,
    base_vocab: dict[int, bytes] | None = None,
    parallel: bool = False,
    allow: Callable[[bytes], bool] | None = None,
) -> TrainResult:
    """Learn up to ``num_merges`` merges from ``(chunk bytes, occurrences)`` in first-seen order
    (or a ``PieceTable`` of them).

    ``base_vocab`` (id -> bytes) lets training go on from tokens made before: the chunks are
    then sequences of its ids, and the new ids follow its largest (SuperBPE's stage two starts
    so, superbpe.py). By default the chunks are bytes and the vocabulary the 256 bytes.

    With ``candidates=n`` every MergeRecord also keeps the n best pairs of its step.
    ``tie_rule`` picks among equally frequent pairs: "seen" (the first to occur, as the seeds),
    "bytes" (the greatest pair of token bytes, as CS336) or "ids" (the smallest pair of ids).
    Training stops when the best pair occurs fewer than ``min_frequency`` times; a pair whose
    token would be longer than ``max_token_bytes`` bytes, or whose token ``allow(token bytes)``
    refuses, is never merged (SuperBPE's stage-two rules, superbpe.py). ``parallel``: a large
    ``PieceTable`` is laid out and first counted in two processes (first_count.py; the corpus
    trainer's choice with 2 workers or more); the merges are the same.

    >>> r = train_bpe([(b"aaabdaaabac", 1)], 3)
    >>> [(m.pair, m.id, m.token, m.count) for m in r.history]
    [((97, 97), 256, b'aa', 4), ((256, 97), 257, b'aaa', 2), ((257, 98), 258, b'aaab', 2)]
    >>> [m.token for m in train_bpe([(b"abcd", 1)], 2, tie_rule="bytes").history]
    [b'cd', b'bcd']
    """
    check_train_options(tie_rule, min_frequency, max_token_bytes)
    vocab = {i: bytes([i]) for i in range(256)} if base_vocab is None else dict(base_vocab)
    first_id = max(vocab) + 1 if vocab else 0
    # 1. Lay the distinct chunks out one after another, one node per byte, and count every
    # adjacent pair inside them, remembering where each occurs (merge_loop.Layout: pairs by id).
    layout = Layout(chunks, max(first_id + num_merges, 256), parallel)
    total = layout.total  # every pair's count is at most this
    counts, keys = layout.cnt, layout.keys
    first_place = layout.first_place

    # The heap and the rules below name a pair by its id in the layout (``keys[p]`` its key).
    if tie_rule == "bytes" or total >> 63:
        # A heap entry is (-count, tie key, pair id): for "bytes", a string that sorts the
        # pair's bytes backwards; for "seen" and "ids" only when a count may not fit in 63 bits.
        if tie_rule == "seen":
            tie_key: Callable[[int], object] = first_place
        elif tie_rule == "ids":
            def tie_key(p):
                return keys[p]  # (a, b) in order: a first, then b
        else:
            backwards = {i: _descending(t) for i, t in vocab.items()}

            def tie_key(p):
                key = keys[p]
                return backwards[key >> SHIFT] + backwards[key & LOW]

        def entry(count: int, p: int) -> object:
            return (-count, tie_key(p), p)

        def opened(e: tuple) -> tuple[int, int]:
            return -e[0], e[2]
    else:
        # A heap entry is one int that sorts as that tuple would: (TOP - count, first place,
        # pair id) in bit fields for "seen", (TOP - count, pair key, pair id) for "ids"; a
        # third of a tuple's memory. A live pair's first place (and key) is its own, so the
        # id only names the pair.
        fields = 2 * SHIFT + (SHIFT if tie_rule == "ids" else 0)
        top = (1 << 63) - 1
        low = LOW
        if tie_rule == "seen":
            def entry(count: int, p: int) -> object:
                return (top - count) << fields | first_place(p) << SHIFT | p
        else:
            def entry(count: int, p: int) -> object:
                return (top - count) << fields | keys[p] << SHIFT | p

        def opened(e: int) -> tuple[int, int]:
            return top - (e >> fields), e & low

    def fits(p: int) -> bool:
        if max_token_bytes is None and allow is None:
            return True
        key = keys[p]
        first, second = vocab[key >> SHIFT], vocab[key & LOW]
        if max_token_bytes is not None and len(first) + len(second) > max_token_bytes:
            return False
        return allow is None or allow(first + second)

    def at_least(least: int, taken: Container[int] = ()) -> list:
        return [entry(c, p) for p, c in enumerate(counts)
                if c >= least and fits(p) and p not in taken]

    # The heap holds the pairs that occur at least ``floor[0]`` times (most pairs are rare and
    # are never merged); when none is left, the floor goes down and the heap is filled again
    # from the counts. Counts only fall, so a pair below the floor stays below it until then,
    # and the heap's best is the best of all pairs. A chunk given 0 occurrences: floor 0.
    floor = [max(1, max(counts, default=0) >> FLOOR_SHIFT) if layout.positive else 0]
    heap = [entry(c, p) for p, c in enumerate(counts) if c >= floor[0] and fits(p)]
    heapq.heapify(heap)

    def pop_best(taken: Container[int] = ()) -> tuple[int, object, int] | None:
        """Take the best pair off the heap: ``(count, its entry, pair id)``, or None. ``taken``:
        the pairs taken off before and not put back yet (a refill leaves them out)."""
        while True:
            least = floor[0]
            while heap:
                e = heapq.heappop(heap)
                was, p = opened(e)
                count = counts[p]
                if count == was:
                    return count, e, p
                if count > 0 and count >= least:  # stale: put it back with what is true now
                    heapq.heappush(heap, entry(count, p))
            if least <= 1:
                return None
            floor[0] = max(1, least >> FLOOR_SHIFT)  # no pair left at least that frequent
            heap[:] = at_least(floor[0], taken)
            heapq.heapify(heap)

    merges: dict[tuple[int, int], int] = {}
    history: list[MergeRecord] = []
    stop_reason = None
    for step in range(num_merges):
        # 3. The most frequent pair, ties broken by the rule.
        best = pop_best()
        if best is None:
            stop_reason = f"no pair left to merge after {step} merges"
            break
        count, _, kid = best
        if count < min_frequency:
            stop_reason = (
                f"the most frequent pair occurs {count} times, fewer than min_frequency"
                f" {min_frequency}, after {step} merges"
            )
            break
        ranked: tuple[Candidate, ...] = ()
        if candidates:
            runners_up = []
            taken = {kid}
            while len(runners_up) < candidates - 1 and (top_one := pop_best(taken)) is not None:
                runners_up.append(top_one)
                taken.add(top_one[2])
            for _, e, _ in runners_up:  # put them back as they were
                heapq.heappush(heap, e)
            ranked = tuple(Candidate(pair_of(keys[p]), c, first_place(p))
                           for c, _, p in [best, *runners_up])

        # 4. Merge it everywhere, left to right, updating only the neighbours' pairs.
        a, b = pair = pair_of(keys[kid])
        new_id = first_id + step
        _, new_pairs = layout.merge(kid, new_id)

        # 5. Record the merge, then queue the pairs it made (unless their token would be too long).
        merges[pair] = new_id
        vocab[new_id] = vocab[a] + vocab[b]
        if tie_rule == "bytes":
            backwards[new_id] = _descending(vocab[new_id])
        least = max(floor[0], 1)
        for p in new_pairs:
            if counts[p] >= least and fits(p):
                heapq.heappush(heap, entry(counts[p], p))
        if len(heap) > 2 * layout.live_pairs + HEAP_SLACK and layout.positive:
            # Mostly stale entries: one entry per live pair, as true as the entries it replaces
            # (every chunk occurs at least once, so an entry whose count is still true has a
            # true tie key too, and the best entry is the same).
            heap[:] = at_least(floor[0])
            heapq.heapify(heap)
        record = MergeRecord(pair, new_id, vocab[new_id], count, ranked)
        history.append(record)
        if verbose:
            print(
                f"merge {step + 1}/{num_merges}: {pair} -> {new_id} ({vocab[new_id]!r})"
                f" had {count} occurrences"
            )
        if progress is not None and progress(step + 1, num_merges, record) is False:
            if step + 1 < num_merges:
                stop_reason = f"stopped by the progress callback after {step + 1} merges"
            break
    return TrainResult(merges, history, stop_reason)
