"""The merge loop of SentencePiece's BPE trainer, step for step, with the counts kept up to date.

What is learnt from the ``sentencepiece`` package's ``bpe_model_trainer.cc`` (read, not copied):

- a *symbol* is a character, or a pair of two symbols (its *derivation*: ``"ab" + "c"`` and
  ``"a" + "bc"`` are two symbols with one string). Every pair met in the words is a candidate
  if its string is a valid piece (``PieceRules.valid``);
- the best pair is the most frequent; among equally frequent ones the shortest (in characters),
  then the smallest string (by code points, as its UTF-8 bytes sort); then the one made first;
- a pair whose string was already chosen through another derivation is dropped, and its
  places stay unmerged;
- the search looks only at the *active* pairs: every 100 pieces (and again after a dropped
  duplicate at such a count) the active set becomes the most frequent pairs, at least 1,000 or
  5 % of every symbol made so far (characters, pairs, dropped pairs remade), and every pair a
  merge forms joins it in between;
- merging a pair rewrites every place it occurs, left to right, and forms the new pairs with the
  neighbours. When the pairs run out, pairs that no longer occur (count 0) are still candidates,
  chosen the same way, until none is left.

Counts are kept exact incrementally (a merge changes only its neighbours' pairs), which
``sentencepiece`` gets lazily by recounting a pair's places when a neighbour changed: the same
numbers. Which pairs of the lowest count enter the active set when more tie than fit is decided
in ``sentencepiece`` by its hash map's order; here by the tie rule above (see docs/SENTENCEPIECE_TRAINING.md).
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Sequence

from .model import float32  # (sentencepiece computes its 5 % in single precision)

ACTIVE_EVERY = 100  # pieces between two rebuilds of the active set
ACTIVE_MIN = 1_000  # the active set's least size
ACTIVE_SHARE = 0.05  # ... or this share of every symbol made


class MergeLoop:
    """Symbols, the words as linked nodes, the pairs' counts and places, and the active set.

    ``words`` are ``(string, count)`` in sentencepiece's order; ``unk`` is the character that
    stands for the characters left out (it never pairs); ``valid(string)`` says whether a pair's
    string may become a piece.
    """

    def __init__(self, words: Sequence[tuple[str, int]], unk: str,
                 valid: Callable[[str], bool]) -> None:
        self.valid = valid
        self.text: list[str] = []  # symbol id -> its string
        self.left: list[int] = []  # symbol id -> its left symbol (-1 for a character)
        self.right: list[int] = []
        self.count: list[int] = []  # symbol id -> occurrences now (pairs; 0 for a remade one)
        self.places: list[list[int] | None] = []  # symbol id -> left nodes where it was formed
        self.pairs: dict[tuple[int, int], int] = {}  # (left, right) -> pair symbol, while kept
        self.invalid: set[tuple[int, int]] = set()  # pairs whose string is not a valid piece
        self.chars: dict[str, int] = {}
        self.unk = -1
        self.active: set[int] = set()
        self.heap: list[tuple[int, int, str, int]] = []
        self.dirty: set[int] = set()
        tok: list[int] = []
        nxt: list[int] = []
        prv: list[int] = []
        weight: list[int] = []
        for word, n in words:
            start = len(tok)
            for c in word:
                sid = self.chars.get(c)
                if sid is None:
                    sid = self.chars[c] = self._new(c, -1, -1)
                    if c == unk:
                        self.unk = sid
                tok.append(sid)
                weight.append(n)
            end = len(tok)
            nxt.extend(range(start + 1, end))
            nxt.append(-1)
            prv.append(-1)
            prv.extend(range(start, end - 1))
        self.tok, self.nxt, self.prv, self.weight = tok, nxt, prv, weight
        for i in range(len(tok) - 1):
            if nxt[i] != -1:
                self._add(i, tok[i], tok[i + 1], weight[i])
        self.dirty.clear()

    # -- symbols ----------------------------------------------------------------------------------
    def _new(self, text: str, left: int, right: int) -> int:
        self.text.append(text)
        self.left.append(left)
        self.right.append(right)
        self.count.append(0)
        self.places.append(None if left < 0 else [])
        return len(self.text) - 1

    def _pair(self, a: int, b: int) -> tuple[int, bool]:
        """The pair symbol of ``a`` then ``b`` (-1 if it cannot be a piece), and whether it is new."""
        key = (a, b)
        sid = self.pairs.get(key)
        if sid is not None:
            return sid, False
        if a == self.unk or b == self.unk or key in self.invalid:
            return -1, False
        text = self.text[a] + self.text[b]
        if not self.valid(text):
            self.invalid.add(key)
            return -1, False
        sid = self.pairs[key] = self._new(text, a, b)
        return sid, True

    def _add(self, node: int, a: int, b: int, w: int) -> None:
        """A pair formed at ``node`` and the next live node (sentencepiece's AddNewPair)."""
        sid, _ = self._pair(a, b)
        if sid < 0:
            return
        self.active.add(sid)
        self.places[sid].append(node)  # type: ignore[union-attr]
        self.count[sid] += w
        self.dirty.add(sid)

    def _lose(self, a: int, b: int, w: int, best: int) -> None:
        """A pair's place is gone (sentencepiece's ResetFreq): one fewer, unless it is ``best``.

        A pair looked up here that is not kept any more (dropped as a duplicate, its places
        unmerged) is made again, with no places: it only counts among the symbols made.
        """
        sid, new = self._pair(a, b)
        if sid < 0 or sid == best or new or self.places[sid] is None:
            return
        if not self.places[sid]:  # a remade pair: it never had this place
            return
        self.count[sid] -= w
        self.dirty.add(sid)

    # -- the active set ---------------------------------------------------------------------------
    def _key(self, sid: int) -> tuple[int, int, str, int]:
        return (-self.count[sid], len(self.text[sid]), self.text[sid], sid)

    def refresh_active(self) -> None:
        """The most frequent kept pairs become the active set (sentencepiece's UpdateActiveSymbols)."""
        made = len(self.pairs) + len(self.chars)
        pairs = list(self.pairs.values())
        size = min(max(ACTIVE_MIN, int(float32(float32(float(made)) * float32(ACTIVE_SHARE)))), len(pairs))
        if size >= len(pairs):
            chosen = pairs
        else:
            count = self.count
            floor = sorted((count[s] for s in pairs), reverse=True)[size - 1]
            chosen = [s for s in pairs if count[s] > floor]
            ties = sorted((s for s in pairs if count[s] == floor), key=self._key)
            chosen.extend(ties[: size - len(chosen)])
        self.active = set(chosen)
        self.heap = [self._key(s) for s in chosen]
        heapq.heapify(self.heap)
        self.dirty.clear()

    def best(self) -> int:
        """The best active pair, or -1 when none is left."""
        heap, active, count = self.heap, self.active, self.count
        for sid in self.dirty:
            if sid in active:
                heapq.heappush(heap, self._key(sid))
        self.dirty.clear()
        while heap:
            negative, _, _, sid = heap[0]
            if sid in active and count[sid] == -negative:
                return sid
            heapq.heappop(heap)
        return -1

    def drop(self, sid: int) -> None:
        """Forget a pair (chosen, or a duplicate of a chosen string)."""
        self.pairs.pop((self.left[sid], self.right[sid]), None)
        self.active.discard(sid)

    # -- merging ----------------------------------------------------------------------------------
    def merge(self, best: int) -> int:
        """Rewrite every place of ``best``, left to right; returns how many places were merged."""
        a, b = self.left[best], self.right[best]
        tok, nxt, prv, weight = self.tok, self.nxt, self.prv, self.weight
        merged = 0
        places = sorted(set(self.places[best] or ()))
        for node in places:
            if tok[node] != a:
                continue
            right = nxt[node]
            if right < 0 or tok[right] != b:
                continue
            w = weight[node]
            before, after = prv[node], nxt[right]
            if before >= 0:
                self._lose(tok[before], a, w, best)
            if after >= 0:
                self._lose(b, tok[after], w, best)
            tok[node] = best
            tok[right] = -1
            nxt[node] = after
            if after >= 0:
                prv[after] = node
            if before >= 0:
                self._add(before, tok[before], best, w)
            if after >= 0:
                self._add(node, best, tok[after], w)
            merged += 1
        self.places[best] = []
        self.drop(best)
        return merged


def run(loop: MergeLoop, wanted: int,
        progress: Callable[[int, int, str], object] | None = None) -> list[str]:
    """Choose up to ``wanted`` pieces, as sentencepiece's main loop does; fewer when none is left.
    ``progress(done, wanted, piece)`` is called after each piece (to show it, or to interrupt
    the loop by raising)."""
    chosen: list[str] = []
    seen: set[str] = set()
    while len(chosen) < wanted:
        if len(chosen) % ACTIVE_EVERY == 0:
            loop.refresh_active()
        best = loop.best()
        if best < 0:
            break
        text = loop.text[best]
        if text in seen:
            loop.drop(best)
            continue
        seen.add(text)
        chosen.append(text)
        loop.merge(best)
        if progress is not None:
            progress(len(chosen), wanted, text)
    return chosen
