"""The merge loop's layout and pairs in flat arrays: ``train_bpe``'s memory at web scale.

``training.Nodes`` keeps a pair's count and places in Python dicts keyed by the pair (about
250 bytes a live pair: a dict entry each, an int key, an int count, an ``array`` or int of
places). A web corpus has hundreds of thousands of live pairs late in the loop (624,000 after
9,000 merges on web-like 20 MB), so the pairs, not the nodes, were most of the memory. Here
every pair gets a number (its *id*) when it is first counted, and lives in four arrays indexed
by it; the places of all pairs share one array. Nothing per pair is a Python object.

Data (nodes numbered in layout order, one per token of a chunk, a separator before the first
chunk and after each; a pair key is ``a << SHIFT | b`` as in training.py):

    pid[i]     the id of the pair that starts at node i; or DEAD once node i is merged into
               its left neighbour, SEP at a separator (so neither neighbour walk needs a
               chunk's bounds), LAST - t at a chunk's last node holding token t. A place i of
               pair p is current exactly when pid[i] == p (ids are never reused)
    starts[k]  chunk k's first node; weight[k] its occurrences (a node's chunk by bisection)
    light[i]   the occurrences of node i's chunk when from 1 to HEAVY - 1, else 0: one byte a
               node spares the bisection at most places (a web corpus's long tail occurs a few
               times: on web-like 200 MB, 151,507 of 9.4 million places read need it)
    span[t]    how many nodes token t covers: the live node after i (token a) is i + span[a]
    keys[p]    pair p's key; cnt[p] its count (0 once it can no longer occur)
    places     every pair's places, ascending, pair p's from first[p] to end[p]

The tokens themselves (``tok``, two bytes a node below 65,536 ids) are kept only while the
pairs are first counted: a pair's key gives its tokens after that.

A pair's places are all known at the merge that first counts it (a pair forms only around
the token that merge makes), so each is one slice of ``places``, appended in id order. Places
only go stale (a merge next to them), never come back: ``first_place`` skips the stale ones at
the front, and once a quarter of ``places`` is stale it is compacted in one pass, in id order. A
pair whose count falls to 0 keeps its id (ids are never reused: on web-like 200 MB after
9,000 merges, 1.24 million ids for a million live pairs), so 20 bytes a pair id in the arrays
(24 when a count may pass 2**32) and 4 a place, against about 250 bytes a live pair and 4 a
place.

``merge`` finds a neighbour pair's id in ``pid`` (no lookup by key): the only dict is the
merge's own, of the pairs it makes. The merges are those of ``training.Nodes``, ties included.
"""

from __future__ import annotations

import sys
from array import array
from bisect import bisect_right
from collections.abc import Iterable, Sequence
from itertools import accumulate, chain

from .first_count import (
    DEAD,
    LAST,
    SEP,
    Helper,
    code_tokens,
    count_here,
    join_runs,
    lay_chunks,
    lay_table,
    place,
)

SHIFT = 32  # a pair (a, b) is the int a << SHIFT | b: ids stay below 2**31
LOW = (1 << SHIFT) - 1
HIGH = ~LOW  # key & HIGH: the pair's first token, still in place
COMPACT_AT = 1 << 16  # never compact ``places`` below this many stale entries


class Layout:
    """Chunks laid out for the merge loop, and every pair's count and places by pair id.

    >>> lay = Layout([(b"abab", 2)], last_id=257)
    >>> [(pair >> SHIFT, pair & LOW, count) for pair, count in lay.live()]
    [(97, 98, 4), (98, 97, 2)]
    >>> lay.merge(0, 256), [(pair >> SHIFT, pair & LOW, count) for pair, count in lay.live()]
    ((4, [3]), [(256, 256, 2)])
    """

    def __init__(self, chunks: Iterable[tuple[Sequence[int], int]], last_id: int,
                 parallel: bool = False) -> None:
        """Lay ``(chunk, occurrences)`` out (a ``training.PieceTable`` is emptied once laid out)
        and count the pairs (first_count.py). ``last_id``: the largest token id of the chunks
        and of training (tokens fit in two bytes a node below 65,534); every token of a chunk is
        one node. ``parallel``: a large table is laid out and counted in two processes."""
        typecode = "i" if last_id >= 0xFFFE else "H"
        helper = None
        try:
            if hasattr(chunks, "ends"):  # a training.PieceTable (not imported: no import circle)
                if parallel:
                    chunks, helper = Helper.share(chunks, typecode)
                laid = lay_table(chunks, typecode)
            else:
                laid = lay_chunks(chunks, typecode)
            counted = count_here(laid, told=None if helper is None else helper.tell)
            if helper is not None:
                counted = join_runs(counted, helper.tail(counted.pairs))
        finally:
            if helper is not None:
                helper.close()
        laid = counted.laid
        self.starts, self.weight = laid.starts, laid.weight  # chunk k's first node, occurrences
        self.positive = laid.positive  # every chunk occurs at least once (see training.Nodes)
        self.total = laid.total  # tokens in the text: every count is at most this
        self.span = array("I", [1]) * (last_id + 1)
        self.pid, self.light = counted.pid, counted.light
        self.places = place(self.pid, counted.sizes)
        bits = 16 if typecode == "H" else 32
        self.keys = array("Q", (a << SHIFT | b
                                for a, b in (code_tokens(c, bits) for c in counted.pairs)))
        # no count is over the total (with chunks of 0 or fewer occurrences: 8 bytes, signed)
        counts = counted.counts
        self.cnt = array("I" if self.positive and self.total >> 32 == 0 else "q", counts)
        bounds = array("I", accumulate(counted.sizes, initial=0))  # "q" once ``places`` holds
        self.first, self.end = bounds[:-1], bounds[1:]  # 2**32 entries or more
        self.stale = 0  # entries of ``places`` no pair reads any more
        self.live_pairs = len(self.keys) if self.positive else sum(1 for c in counts if c)

    # -- reading -------------------------------------------------------------------------------

    def live(self) -> Iterable[tuple[int, int]]:
        """``(pair key, count)`` of every pair with a count other than 0, in id order."""
        keys = self.keys
        return ((keys[p], c) for p, c in enumerate(self.cnt) if c)

    def first_place(self, p: int) -> int:
        """The first node where pair ``p`` still occurs; forget the stale places before it."""
        places, pid = self.places, self.pid
        k, e = self.first[p], self.end[p]
        while k < e:
            i = places[k]
            if pid[i] == p:
                if k > self.first[p]:
                    self.stale += k - self.first[p]
                    self.first[p] = k
                return i
            k += 1
        return places[self.first[p]]  # none left (a pair of chunks given 0 occurrences)

    def held_bytes(self) -> int:
        """Bytes held by the per-pair arrays and the places (``sys.getsizeof``)."""
        return sum(map(sys.getsizeof, (self.keys, self.cnt, self.first, self.end, self.places)))

    # -- merging -------------------------------------------------------------------------------

    def merge(self, kid: int, new_id: int) -> tuple[int, list[int]]:
        """Merge pair ``kid`` into token ``new_id`` at its places, left to right, updating only
        the neighbours' pairs: how many tokens fewer the text has, and the ids of the pairs
        the merge made (some may have a count of 0 again)."""
        pid, cnt, keys = self.pid, self.cnt, self.keys
        starts, weight, light = self.starts, self.weight, self.light
        forget = self.positive
        key = keys[kid]
        a, b = key >> SHIFT, key & LOW
        sa = self.span[a]
        self.span[new_id] = sa + self.span[b]
        new_high = new_id << SHIFT
        was_live = cnt[kid] != 0
        base = len(keys)
        # The pairs made here, found by the pair they replace: (x, a) at node p becomes
        # (x, new), and (b, y) at node j becomes (new, y). Among the places still current a
        # pair counted before this merge has one id a key, so its id finds the new pair
        # without making a key. A pair made here may have two ids (one forgotten, its count
        # at 0, then made again): left of a place it is (new, a), found as -1, for (new, new);
        # to the right no pair is made yet. ``origin`` says where each made pair is found, so
        # that one whose count falls to 0 is forgotten (made again, it gets a new id).
        made_left: dict[int, int] = {}  # id of (x, a) (-1: made here) -> id of (x, new)
        made_right: dict[int, int] = {}  # id of (b, y) -> id of (new, y)
        origin: list[tuple[dict[int, int], int]] = []  # pair base + k's: (its dict, its entry)
        lists: dict[int, array] = {}  # their places, by id (4 bytes each)
        gone: list[int] = []  # pairs counted before this merge whose count fell to 0
        s, e = self.first[kid], self.end[kid]
        for i in self.places[s:e]:
            if pid[i] != kid:
                continue  # stale: node i was merged since, or its right neighbour changed
            j = i + sa  # b's node
            w = light[i]
            if not w:  # a chunk of HEAVY occurrences or more (or of 0 or fewer)
                w = weight[bisect_right(starts, i) - 1]
            p = i - 1
            old = pid[p]
            while old == DEAD:
                p -= 1
                old = pid[p]
            if old != SEP:  # (x, a) at node p becomes (x, new)
                c = cnt[old] = cnt[old] - w
                if not c and old != kid and forget:
                    if old >= base:
                        found, by = origin[old - base]
                        del found[by]
                    else:
                        gone.append(old)
                via = old if old < base else -1
                q = made_left.get(via)
                if q is None:
                    q = made_left[via] = len(keys)
                    origin.append((made_left, via))
                    keys.append(keys[old] & HIGH | new_id)
                    cnt.append(w)
                    lists[q] = array("i", (p,))
                else:
                    cnt[q] += w
                    lists[q].append(p)
                pid[p] = q
            old = pid[j]
            if old >= 0:  # (b, y) at node j becomes (new, y) at node i
                c = cnt[old] = cnt[old] - w
                if not c and old != kid and forget:
                    gone.append(old)  # (b, y) was counted before this merge
                q = made_right.get(old)
                if q is None:
                    q = made_right[old] = len(keys)
                    origin.append((made_right, old))
                    keys.append(new_high | keys[old] & LOW)
                    cnt.append(w)
                    lists[q] = array("i", (i,))
                else:
                    cnt[q] += w
                    lists[q].append(i)
                pid[i] = q
            else:
                pid[i] = LAST - new_id
            pid[j] = DEAD
        # The merged pair and the pairs gone are read no more: their places are stale.
        # Each place of the pair either merged or went stale here (a merge just left of it),
        # and only those took from its count: what is left is what merged.
        fewer = cnt[kid]
        first, end = self.first, self.end
        self.live_pairs -= len(gone) + was_live
        for old in (kid, *gone):
            self.stale += end[old] - first[old]
            first[old] = end[old]
            cnt[old] = 0
        places = self.places
        if first.typecode == "I" and len(places) + sum(map(len, lists.values())) >> 32:
            first = self.first = array("q", first)  # 8 bytes a slice bound from now on
            end = self.end = array("q", end)
        for q, there in lists.items():  # (in id order)
            first.append(len(places))
            if cnt[q] or not forget:
                places.extend(there)
                self.live_pairs += cnt[q] != 0
            end.append(len(places))
        if self.stale > COMPACT_AT and 4 * self.stale > len(places):
            self.compact()
        return fewer, sorted(chain(made_left.values(), made_right.values()))

    def compact(self) -> None:
        """Drop the stale slices of ``places`` in one pass, in id order (their order there)."""
        places, first, end = self.places, self.first, self.end
        at = 0
        for p in range(len(first)):
            s, e = first[p], end[p]
            first[p] = at
            if e > s:
                if s != at:
                    places[at:at + e - s] = places[s:e]
                at += e - s
            end[p] = at
        del places[at:]
        self.stale = 0
