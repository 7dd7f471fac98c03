"""Applying merges: the seeds' ``get_stats`` and ``merge``, and the encoder's loop that merges a
chunk's ids by rank (the seeds' loop for short chunks, rank by rank for long ones).

Plain functions on lists of ids; nothing here knows a tokenizer, so ``base.py`` (the tokenizer)
and ``formats.py`` (checking what a file means) both use them.
"""

from __future__ import annotations

import heapq

SHORT_CHUNK = 64  # up to this many ids the seeds' loop is fastest; longer lists go rank by rank


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


def apply_merges(
    ids: list[int], merges: dict[tuple[int, int], int], keyed: dict[int, int] | None = None
) -> list[int]:
    """Merge by rank, lowest first, until no pair of ``ids`` is in ``merges``: the seeds' encode.

    A merge's new id is its rank, so "lowest rank" is "smallest new id". Short lists use the
    seeds' loop; long ones (a 200 000-byte run with no split point) go rank by rank, O(n log n):
    see ``_apply_merges_long``, which takes the merges as ``pair_keys(merges)`` (``keyed``).
    """
    if len(ids) <= SHORT_CHUNK:
        get = merges.get
        while len(ids) >= 2:
            best = None
            for pair in zip(ids, ids[1:]):
                rank = get(pair)
                if rank is not None and (best is None or rank < best):
                    best = rank
                    best_pair = pair
            if best is None:
                break
            ids = merge(ids, best_pair, best)
        return ids
    return _apply_merges_long(ids, pair_keys(merges) if keyed is None else keyed)


def pair_keys(merges: dict[tuple[int, int], int]) -> dict[int, int]:
    """The merges keyed by one int per pair, ``a << 32 | b`` (ids are below 2**31): a lookup
    with no tuple to build, for the long-input encoder's inner loop."""
    return {(a << 32) | b: idx for (a, b), idx in merges.items()}


def _apply_merges_long(ids: list[int], keyed: dict[int, int]) -> list[int]:
    """``apply_merges`` for long inputs, rank by rank.

    The tokens are a linked list (``nxt``/``prv``; a merged-away token becomes -1). ``waiting``
    holds, for each rank, the positions where a pair of that rank was seen, and ``ranks`` is a
    heap of the ranks waiting. The lowest rank is taken, its positions sorted (left to right, as
    the seeds merge), and each pair still there is merged. A merge only makes pairs of higher
    ranks (a token's id is larger than its parts'), so no rank is ever needed twice.
    """
    n = len(ids)
    tok = list(ids)
    nxt = list(range(1, n + 1))
    nxt[-1] = -1
    prv = list(range(-1, n - 1))
    get = keyed.get
    waiting: dict[int, list[int]] = {}
    waiting_at, push, pop = waiting.get, heapq.heappush, heapq.heappop  # local names: faster
    for i, r in enumerate(map(get, [(a << 32) | b for a, b in zip(tok, tok[1:])])):
        if r is not None:
            here = waiting_at(r)
            if here is None:
                waiting[r] = [i]
            else:
                here.append(i)
    ranks = list(waiting)
    heapq.heapify(ranks)
    while ranks:
        rank = pop(ranks)
        positions = waiting.pop(rank)
        if len(positions) > 1:
            positions.sort()
        for i in positions:
            left = tok[i]
            if left < 0:
                continue  # merged away since
            j = nxt[i]
            if j < 0 or get((left << 32) | tok[j]) != rank:
                continue  # its right neighbour changed since
            tok[i] = rank
            tok[j] = -1
            q = nxt[j]
            nxt[i] = q
            if q >= 0:  # the new token and its right neighbour
                prv[q] = i
                r = get((rank << 32) | tok[q])
                if r is not None:
                    here = waiting_at(r)
                    if here is None:
                        waiting[r] = [i]
                        push(ranks, r)
                    else:
                        here.append(i)
            p = prv[i]
            if p >= 0:  # its left neighbour and the new token
                r = get((tok[p] << 32) | rank)
                if r is not None:
                    here = waiting_at(r)
                    if here is None:
                        waiting[r] = [p]
                        push(ranks, r)
                    else:
                        here.append(p)
    return [t for t in tok if t >= 0]
