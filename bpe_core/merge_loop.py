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
from collections import Counter
from collections.abc import Iterable, Sequence
from itertools import accumulate, chain, compress
from operator import add, mul, sub

SHIFT = 32  # a pair (a, b) is the int a << SHIFT | b: ids stay below 2**31
LOW = (1 << SHIFT) - 1
HIGH = ~LOW  # key & HIGH: the pair's first token, still in place
DEAD, SEP, LAST = -1, -2, -3  # pid of a merged node, of a separator; LAST - t: a chunk's last
COMPACT_AT = 1 << 16  # never compact ``places`` below this many stale entries
HEAVY = 255  # light[i]: a chunk that occurs this often or more is found by bisection
STRIDE = 1 << 16  # nodes whose codes (or pair ids) are made at a time: an even number
BATCH = 1 << 16  # pieces of a table laid out at a time (a list of that many slices at once)
_LIGHT = [bytes((w if w < HEAVY else 0,)) for w in range(HEAVY + 1)]  # a node's light, by weight


class Layout:
    """Chunks laid out for the merge loop, and every pair's count and places by pair id.

    >>> lay = Layout([(b"abab", 2)], last_id=257)
    >>> [(pair >> SHIFT, pair & LOW, count) for pair, count in lay.live()]
    [(97, 98, 4), (98, 97, 2)]
    >>> lay.merge(0, 256), [(pair >> SHIFT, pair & LOW, count) for pair, count in lay.live()]
    ((4, [3]), [(256, 256, 2)])
    """

    def __init__(self, chunks: Iterable[tuple[Sequence[int], int]], last_id: int) -> None:
        """Lay ``(chunk, occurrences)`` out (a ``training.PieceTable`` is emptied once laid out)
        and count the pairs. ``last_id``: the largest token id of the chunks and of training
        (tokens fit in two bytes a node below 65,534); every token of a chunk is one node."""
        wide = last_id >= 0xFFFE
        # the tokens, while the pairs are counted; a separator is all ones (never a token)
        self.tok = array("i" if wide else "H", [-1 if wide else 0xFFFF])
        self.starts = array("q")
        self.weight = array("I")  # "Q" once one needs it
        self.positive = True  # every chunk occurs at least once (see training.Nodes)
        self.total = 0  # tokens in the text: every count is at most this
        self._lay(chunks)
        self.span = array("I", [1]) * (last_id + 1)
        self.keys = array("Q")
        # no count is over the total (with chunks of 0 or fewer occurrences: 8 bytes, signed)
        self.cnt = array("I" if self.positive and self.total >> 32 == 0 else "q")
        self.first = array("I")  # "q" once ``places`` holds 2**32 entries or more
        self.end = array("I")
        self.stale = 0  # entries of ``places`` no pair reads any more
        self.live_pairs = 0  # pairs with a count other than 0
        self._count()

    def _weigh(self, occurrences: int) -> None:
        if occurrences <= 0:
            self.positive = False
        try:
            self.weight.append(occurrences)
        except OverflowError:  # 2**32 occurrences or more: 8 bytes a weight from now on
            self.weight = array("Q", self.weight)
            self.weight.append(occurrences)

    def _lay(self, chunks) -> None:
        tok, starts = self.tok, self.starts
        sep = tok[0]
        if hasattr(chunks, "ends"):  # a training.PieceTable (not imported: no import circle)
            self._lay_table(chunks)
            return
        for chunk, occurrences in chunks:
            if chunk:
                starts.append(len(tok))
                tok.extend(chunk)
                tok.append(sep)
                self._weigh(occurrences)
                self.total += occurrences * len(chunk)

    def _lay_table(self, table) -> None:
        """A ``PieceTable``'s pieces laid out in C, BATCH pieces at a time: joined with a
        byte between them, widened to tokens by one slice assignment, the separators then set
        one by one; the starts and weights from the ends and counts. The table is emptied
        first, so that its bytes are freed once joined. (An empty piece holds no node.)"""
        data, ends, counts = table.data, table.ends, table.counts
        table.data, table.ends, table.counts = b"", array("Q"), array("Q")
        size = self.tok.itemsize
        begins = array("q", chain((0,), ends[:-1]))
        lengths = array("q", map(sub, ends, begins))
        if 0 in lengths:
            counts = array("Q", compress(counts, lengths))
            begins = array("q", compress(begins, lengths))
            lengths = array("q", compress(lengths, lengths))
        try:
            self.weight = array("I", counts)
        except OverflowError:  # 2**32 occurrences or more: 8 bytes a weight
            self.weight = array("Q", counts)
        self.positive = 0 not in counts  # (counts are unsigned)
        self.total = sum(map(mul, counts, lengths))
        laid = bytearray(1)  # the separator before the first chunk
        for lo in range(0, len(lengths), BATCH):
            at = begins[lo:lo + BATCH]
            laid += b"\0".join(map(data.__getitem__, map(slice, at, map(add, at, lengths[lo:lo + BATCH]))))
            laid += b"\0"
        del data
        sep = self.tok[0]
        tok = self.tok = array(self.tok.typecode, bytes(size * len(laid)))
        with memoryview(tok) as view, view.cast("B") as raw:
            raw[0 if sys.byteorder == "little" else size - 1::size] = laid
        del laid
        starts = self.starts
        if lengths:
            starts.extend(accumulate(map((1).__add__, lengths[:-1]), initial=1))
        tok[0] = sep
        for k in starts:
            tok[k - 1] = sep
        tok[-1] = sep

    def _count(self) -> None:
        """Count every adjacent pair, give it an id (first seen, first numbered), its places.

        Every node's *code* (its token and the next, as the bytes of the two give them: one
        read of the tokens' buffer for the even nodes and one for the odd) is made in C, and so
        are the codes' counts in first-seen order (a ``Counter``) and the nodes' pair ids; only
        the chunks that occur other than once are visited in Python (their weight bytes, and
        their pairs grouped by weight), and one pass writes each place into its pair's slice.
        A code with a separator's all ones in it is a separator's (no pair starts there) or a
        chunk's last node's."""
        tok, weight, starts = self.tok, self.weight, self.starts
        keys, first, end = self.keys, self.first, self.end
        n, size = len(tok), tok.itemsize  # n >= 1: the separator before the first chunk
        bits, code_type = 8 * size, "i" if size == 2 else "q"  # (signed: the bits are the code)
        ones = (1 << bits) - 1
        codes = array(code_type, bytes(2 * size * (n - 1)))  # node i's code; none for the last
        half = codes
        with memoryview(tok) as view, view.cast("B") as raw:
            for at in range(0, n - 1, STRIDE):  # STRIDE nodes at a time: no copy of them all
                to = min(at + STRIDE, n - 1)
                for odd in (0, 1):
                    half = array(code_type)
                    half.frombytes(raw[size * (at + odd):size * (to + (to - at - odd) % 2)])
                    codes[at + odd:to:2] = half
        del self.tok, tok, half
        if sys.byteorder == "little":
            def tokens(code: int) -> tuple[int, int]:
                return code & ones, code >> bits & ones
        else:
            def tokens(code: int) -> tuple[int, int]:
                return code >> bits & ones, code & ones
        value: dict[int, int] = {}  # code -> pid: a pair id, SEP or LAST - t
        pairs: list[int] = []  # the pairs' codes in id order
        places_of = Counter(codes)  # a pair's places, in first-seen order (its count adds
        # (w - 1) a place in a chunk of weight w, below)
        for code in places_of:
            a, b = tokens(code)
            if a == ones:
                value[code] = SEP
            elif b == ones:
                value[code] = LAST - a
            else:
                value[code] = len(pairs)
                pairs.append(code)
                keys.append(a << SHIFT | b)
        more: Counter[int] = Counter()  # (w - 1) a place of a pair in a chunk of weight w
        by_weight: dict[int, array] = {}  # codes of the pairs in chunks of one weight, ...
        held = 0  # ... at most about STRIDE of them at a time

        def add_up() -> None:
            for w, there in by_weight.items():
                for code, times in Counter(there).items():
                    more[code] += (w - 1) * times
            by_weight.clear()

        bounds = array("q", starts)
        bounds.append(n)  # the next chunk would start after the last separator
        light = self.light = bytearray(b"\1") * n
        for k, w in enumerate(weight):
            if w != 1:
                light[bounds[k]:bounds[k + 1]] = _LIGHT[min(w, HEAVY)] * (bounds[k + 1] - bounds[k])
                there = by_weight.get(w)
                if there is None:
                    there = by_weight[w] = array(code_type)
                there.extend(codes[bounds[k]:bounds[k + 1] - 2])
                held += bounds[k + 1] - bounds[k]
                if held > STRIDE:
                    add_up()
                    held = 0
        add_up()
        if size == 2:  # each code becomes its node's pid in place, STRIDE at a time
            for at in range(0, n - 1, STRIDE):
                codes[at:at + STRIDE] = array("i", map(value.__getitem__, codes[at:at + STRIDE]))
            pid = codes
        else:
            pid = array("i", map(value.__getitem__, codes))
        self.pid = pid
        pid.append(SEP)
        del codes
        counts = [places_of[code] + more[code] for code in pairs]
        self.cnt = array(self.cnt.typecode, counts)
        at = 0
        for code in pairs:  # each pair's slice, in id order
            first.append(at)
            at += places_of[code]
            end.append(at)
        fill = list(first)
        places = self.places = array("i", bytes(4 * at))
        for i, p in enumerate(pid):
            if p >= 0:
                places[fill[p]] = i
                fill[p] += 1
        self.live_pairs = len(keys) if self.positive else sum(1 for c in counts if c)

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
        made: dict[int, int] = {}  # key -> id of the pairs made here
        lists: list[array] = []  # their places: pair base + k's at lists[k] (4 bytes each)
        gone: list[int] = []  # pairs counted before this merge whose count fell to 0
        fewer = 0
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
                        del made[keys[old]]
                    else:
                        gone.append(old)
                left = keys[old] & HIGH | new_id
                q = made.get(left)
                if q is None:
                    q = made[left] = len(keys)
                    keys.append(left)
                    cnt.append(w)
                    lists.append(array("i", (p,)))
                else:
                    cnt[q] += w
                    lists[q - base].append(p)
                pid[p] = q
            old = pid[j]
            if old >= 0:  # (b, y) at node j becomes (new, y) at node i
                c = cnt[old] = cnt[old] - w
                if not c and old != kid and forget:
                    gone.append(old)  # (b, y) was counted before this merge
                right = new_high | keys[old] & LOW
                q = made.get(right)
                if q is None:
                    q = made[right] = len(keys)
                    keys.append(right)
                    cnt.append(w)
                    lists.append(array("i", (i,)))
                else:
                    cnt[q] += w
                    lists[q - base].append(i)
                pid[i] = q
            else:
                pid[i] = LAST - new_id
            pid[j] = DEAD
            fewer += w
        # The merged pair and the pairs gone are read no more: their places are stale.
        first, end = self.first, self.end
        self.live_pairs -= len(gone) + was_live
        for old in (kid, *gone):
            self.stale += end[old] - first[old]
            first[old] = end[old]
            cnt[old] = 0
        places = self.places
        if first.typecode == "I" and len(places) + sum(map(len, lists)) >> 32:
            first = self.first = array("q", first)  # 8 bytes a slice bound from now on
            end = self.end = array("q", end)
        for q, there in enumerate(lists, base):
            first.append(len(places))
            if cnt[q] or not forget:
                places.extend(there)
                self.live_pairs += cnt[q] != 0
            end.append(len(places))
        if self.stale > COMPACT_AT and 4 * self.stale > len(places):
            self.compact()
        return fewer, list(made.values())

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
