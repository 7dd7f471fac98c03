"""Applying merges: the seeds' ``get_stats`` and ``merge``, and the encoder's loop that merges a
chunk's ids by rank (the seeds' loop for short chunks, rank by rank for long ones).

Plain functions on lists of ids; nothing here knows a tokenizer, so ``base.py`` (the tokenizer)
and ``formats.py`` (checking what a file means) both use them.
"""

from __future__ import annotations

import heapq
from array import array
from itertools import repeat
from typing import NamedTuple

SHORT_CHUNK = 64  # up to this many ids the seeds' loop is fastest; longer lists go rank by rank


# ----------------------------------------------------------------------------------------------
# The encoder's walk, one merge at a time (for the lesson, the merge forest and notebooks):
# ``Tokenizer.trace`` gives an ``EncodeTrace``; ``trace_merges`` walks one chunk


class TraceStep(NamedTuple):
    """One merge the encoder applied inside one chunk: ``left`` + ``right`` became ``new``."""

    chunk: int  # which chunk of the text (the split pattern cuts the text before merging)
    left: int
    right: int
    new: int  # the id the pair became; also its priority: the encoder applies lowest first
    rank: int  # the merge's step (1 = the first merge learned; 0 when unknown)
    position: int  # where the new token stands in the chunk's tokens
    tokens: tuple[int, ...]  # the chunk's tokens right after this merge

    @property
    def pair(self) -> tuple[int, int]:
        return (self.left, self.right)


class EncodeTrace(NamedTuple):
    """Every merge ``encode_ordinary`` makes on a text, in the order it makes them."""

    chunks: list[str]  # the text cut by the split pattern
    start: list[list[int]]  # each chunk's bytes as token ids
    steps: list[TraceStep]
    final: list[int]  # all chunks' tokens at the end (== encode_ordinary(text))


def trace_merges(
    ids: list[int], merges: dict[tuple[int, int], int]
) -> list[tuple[int, int, int, int, tuple[int, ...]]]:
    """``apply_merges``, one merge at a time: ``[(a, b, new, position, tokens after), ...]``.

    Like the encoder: the pair whose new id (its rank) is lowest goes first; every occurrence of
    it is merged, left to right, before the next pair is looked for.

    >>> trace_merges([97, 97, 97, 98], {(97, 97): 256, (256, 97): 257})
    [(97, 97, 256, 0, (256, 97, 98)), (256, 97, 257, 0, (257, 98))]
    """
    events = []
    get = merges.get
    while len(ids) >= 2:
        best = None
        for pair in zip(ids, ids[1:]):
            rank = get(pair)
            if rank is not None and (best is None or rank < best):
                best, best_pair = rank, pair
        if best is None:
            break
        a, b = best_pair
        out: list[int] = []
        i = 0
        n = len(ids)
        while i < n:
            if ids[i] == a and i < n - 1 and ids[i + 1] == b:
                out.append(best)
                events.append((a, b, best, len(out) - 1, (*out, *ids[i + 2 :])))
                i += 2
            else:
                out.append(ids[i])
                i += 1
        ids = out
    return events


# ----------------------------------------------------------------------------------------------
# The seeds' helpers, kept for readers and for the tests' reference algorithm.


def get_stats(ids: list[int], counts: dict | None = None) -> dict[tuple[int, int], int]:
    """Count adjacent pairs; overlapping pairs count: ``[1, 1, 1]`` has ``(1, 1)`` twice.

    >>> get_stats([1, 2, 3, 1, 2])
    {(1, 2): 2, (2, 3): 1, (3, 1): 1}
    """
    counts = {} if counts is None else counts
    for pair in zip(ids, ids[1:]):
        counts[pair] = counts.get(pair, 0) + 1
    return counts


def merge(ids: list[int], pair: tuple[int, int], idx: int) -> list[int]:
    """Replace every occurrence of ``pair``, left to right, by ``idx``.

    >>> merge([1, 2, 3, 1, 2], (1, 2), 4)
    [4, 3, 4]
    >>> merge([7, 7, 7], (7, 7), 8)
    [8, 7]
    """
    newids = []
    i = 0
    n = len(ids)
    a, b = pair
    while i < n:
        if ids[i] == a and i < n - 1 and ids[i + 1] == b:
            newids.append(idx)
            i += 2
        else:
            newids.append(ids[i])
            i += 1
    return newids


def rank_parts(token: bytes, ranks: dict[bytes, int], below: int | None = None,
               parts_left: int = 1) -> list[bytes]:
    """``token``'s bytes merged as tiktoken merges a piece (its ``_byte_pair_merge``): the
    adjacent pair whose joined bytes rank lowest first (the leftmost among equals), until no
    pair joins into a token of ``ranks`` (ranked below ``below``, when given) or ``parts_left``
    parts are left. Short tokens rescan (the seeds' loop); long ones use a heap."""
    if len(token) <= SHORT_CHUNK:
        parts = [token[i : i + 1] for i in range(len(token))]
        while len(parts) > parts_left:
            best = None
            for i in range(len(parts) - 1):
                r = ranks.get(parts[i] + parts[i + 1])
                if r is not None and (below is None or r < below) and (best is None or r < best):
                    best, where = r, i
            if best is None:
                break
            parts[where : where + 2] = [parts[where] + parts[where + 1]]
        return parts
    part = [token[i : i + 1] for i in range(len(token))]  # part[i] is b"" once merged away
    nxt = list(range(1, len(token) + 1))
    prv = list(range(-1, len(token) - 1))
    nxt[-1] = -1

    def ranked(i: int, j: int) -> int | None:
        r = ranks.get(part[i] + part[j])
        return r if r is not None and (below is None or r < below) else None

    heap = [(r, i) for i in range(len(token) - 1) if (r := ranked(i, i + 1)) is not None]
    heapq.heapify(heap)
    alive = len(token)
    while heap and alive > parts_left:
        r, i = heapq.heappop(heap)
        j = nxt[i]
        if j == -1 or not part[i] or ranked(i, j) != r:
            continue  # stale: a neighbour changed since this entry was pushed
        part[i] += part[j]
        part[j] = b""
        alive -= 1
        nxt[i] = nxt[j]
        if nxt[i] != -1:
            prv[nxt[i]] = i
            if (r2 := ranked(i, nxt[i])) is not None:
                heapq.heappush(heap, (r2, i))
        if prv[i] != -1 and (r2 := ranked(prv[i], i)) is not None:
            heapq.heappush(heap, (r2, prv[i]))
    return [p for p in part if p]


def apply_merges(ids: list[int], merges: dict[tuple[int, int], int]) -> list[int]:
    """Merge by rank, lowest first, until no pair of ``ids`` is in ``merges``: the seeds' encode.

    A merge's new id is its rank, so "lowest rank" is "smallest new id". Short lists use the
    seeds' loop; long ones (a 200 000-byte run with no split point) go rank by rank, in
    O(n log n): see ``_apply_merges_long``.
    """
    if len(ids) <= SHORT_CHUNK:
        return _apply_merges_short(ids, merges)
    return _apply_merges_long(ids, merges)


_NONE = 1 << 62  # the rank of a pair that is no merge: above every id


def _apply_merges_short(ids: list[int], merges: dict[tuple[int, int], int]) -> list[int]:
    """``apply_merges`` for short lists: the ranks of the adjacent pairs sit in a list beside
    the ids; each step merges the leftmost pair of the lowest rank and looks up only the two
    pairs it changed (tiktoken's byte-pair loop, on ids). One occurrence at a time is the seeds'
    every occurrence left to right: the pairs a merge makes rank above it, so the next lowest
    is the same rank again while an occurrence is left, and the leftmost goes first.

    >>> _apply_merges_short([97, 97, 97, 97, 98], {(97, 97): 256, (256, 256): 257})
    [257, 98]
    """
    return _merge_between_sentinels([-1, *ids, -1], merges.get)


def _merge_between_sentinels(ids: list[int], get) -> list[int]:
    """``_apply_merges_short``'s loop on ``ids`` with a sentinel id (-1, never a merge's part)
    at each end, so a merge's two neighbours are looked up without checking for the ends; ``get``
    is the merges' ``get``. Changes ``ids`` in place; returns it without the sentinels."""
    ranks = list(map(get, zip(ids, ids[1:]), repeat(_NONE)))
    ranks[0] = ranks[-1] = _NONE  # the pairs with a sentinel
    best = min(ranks)
    while best != _NONE:
        i = ranks.index(best)
        ids[i] = best
        del ids[i + 1]
        del ranks[i]
        ranks[i - 1] = get((ids[i - 1], best), _NONE)
        ranks[i] = get((best, ids[i + 1]), _NONE)
        best = min(ranks)
    del ids[0]
    ids.pop()
    return ids


def merge_chunks(
    chunks: list[bytes], merges: dict[tuple[int, int], int], byte_ids: list[int] | None = None
) -> list[list[int]]:
    """``apply_merges`` of each chunk's bytes (as ids: ``byte_ids[b]``, or b itself when None),
    in one call: what a text's new chunks cost when encoded together (``Tokenizer.encode_chunks``).

    The short chunks go through ``_apply_merges_short``'s loop (``_merge_between_sentinels``),
    their bytes made ids by one C-level ``bytes.translate`` when every byte's id is below 256
    (tiktoken's vocabularies).

    >>> merge_chunks([b"aaaab", b"ab"], {(97, 97): 256, (256, 256): 257})
    [[257, 98], [97, 98]]
    >>> byte_ids = [*range(97), 300, 301, *range(99, 256)]  # "a" is 300, "b" 301
    >>> merge_chunks([b"ab", b"abc"], {(300, 301): 302}, byte_ids)
    [[302], [302, 99]]
    """
    table = None
    if byte_ids is None:
        table = bytes(range(256))
    elif max(byte_ids) < 256:
        table = bytes(byte_ids)
    get, merge = merges.get, _merge_between_sentinels
    out: list[list[int]] = []
    append = out.append
    for data in chunks:
        if len(data) > SHORT_CHUNK:
            ids = list(data) if byte_ids is None else list(map(byte_ids.__getitem__, data))
            append(_apply_merges_long(ids, merges))
            continue
        if table is not None:
            append(merge([-1, *data.translate(table), -1], get))
        else:
            append(merge([-1, *map(byte_ids.__getitem__, data), -1], get))
    return out


ARRAY_FROM = 50_000  # from this many ids on, the links are arrays (see _apply_merges_long)


def _apply_merges_long(ids: list[int], merges: dict[tuple[int, int], int]) -> list[int]:
    """``apply_merges`` for long lists, rank by rank.

    A merge's new id is larger than its parts' ids, so the pairs a merge creates rank above it:
    once the lowest rank present has been merged everywhere, it never comes back. So each rank is
    handled once, in increasing order:

        waiting[rank]  the positions where a pair of that rank was seen (a bucket);
        ranks          a heap of (rank, a, b), one entry per bucket, with its pair.

    Pop the lowest rank, sort its bucket (left to right, as the seeds merge), merge every
    position that still holds a, b, then put the new tokens' pairs with their neighbours into
    buckets. The tokens are a linked list over the original positions, so a merge is O(1):
    ``tok[i]`` the token starting at position i (-1 once merged into its left neighbour),
    ``nxt``/``prv`` the next and previous live positions; position n is a sentinel whose token
    is -1 (it is never part of a pair, and ``tok[-1]`` is it too, left of the first token).
    From ``ARRAY_FROM`` ids on, ``nxt`` and ``prv`` are arrays (4 bytes an entry: they stay in
    the CPU cache; about 30 % faster on random text, 20 % slower on one repeated letter).
    """
    n = len(ids)
    tok = list(ids)
    tok.append(-1)
    if n < ARRAY_FROM:
        nxt: list[int] | array = list(range(1, n + 2))
        prv: list[int] | array = list(range(-1, n))
    else:
        nxt = array("i", range(1, n + 2))
        prv = array("i", range(-1, n))
    get = merges.get
    waiting: dict[int, list[int]] = {}
    ranks: list[tuple[int, int, int]] = []
    for i, r in enumerate(map(get, zip(ids, ids[1:]))):  # left to right: buckets start sorted
        if r is not None:
            here = waiting.get(r)
            if here is None:
                waiting[r] = [i]
                ranks.append((r, ids[i], ids[i + 1]))
            else:
                here.append(i)
    heapq.heapify(ranks)
    pop, push, waiting_get = heapq.heappop, heapq.heappush, waiting.get  # local names: faster

    def wait(rank: int, position: int, a: int, b: int) -> None:
        here = waiting_get(rank)
        if here is None:
            waiting[rank] = [position]
            push(ranks, (rank, a, b))
        else:
            here.append(position)

    while ranks:
        r, a, b = pop(ranks)
        positions = waiting.pop(r)
        if len(positions) > 1:
            positions.sort()  # a bucket filled over several rounds
        merged = []  # the positions of the new tokens, left to right
        for i in positions:
            # stale if its token was merged since (ids only grow: it is never a again) or its
            # right neighbour changed; with a == b ("x x x") the middle x is gone after the
            # first merge, so overlapping pairs merge left to right, as the seeds' merge()
            if tok[i] != a:
                continue
            j = nxt[i]
            if tok[j] != b:
                continue
            tok[i] = r  # the new token takes the left position...
            tok[j] = -1  # ...and the right one leaves the list
            k = nxt[j]
            nxt[i] = k
            prv[k] = i
            merged.append(i)
        # the new tokens' pairs, once the round is over (during it a neighbour could still merge)
        before = -2
        for i in merged:
            p = prv[i]
            if p != before:  # else the pair (r, r) on its left is the previous one's right pair
                left = tok[p]
                if (s := get((left, r))) is not None:
                    wait(s, p, left, r)
            right = tok[nxt[i]]
            if (s := get((r, right))) is not None:
                wait(s, i, r, right)
            before = i
    return [t for t in tok if t >= 0]
