"""One vocabulary, other ways to use it: BPE-dropout, greedy longest match, fewest tokens.

BPE encodes by replaying the merges it learned, lowest rank first (``merges.apply_merges``).
The same vocabulary can cut a text other ways, and seeing them side by side shows what BPE is:

    dropout_merges   BPE, but each possible merge is skipped with probability p at every step
                     (BPE-dropout, Provilkov et al., 2020): the same text gets different tokens
    greedy_longest   left to right, the longest token that fits: not BPE
    fewest_tokens    a cut into as few tokens as possible: not BPE either

With the merges b+c, a+b, c+d, cd+e, ab+c (in that order), the three cut "abcde" three ways:

    >>> from bpe_core.merges import apply_merges
    >>> merges = {(98, 99): 256, (97, 98): 257, (99, 100): 258, (258, 101): 259, (257, 99): 260}
    >>> tokens = {bytes([b]): b for b in range(256)}
    >>> tokens.update({b"bc": 256, b"ab": 257, b"cd": 258, b"cde": 259, b"abc": 260})
    >>> apply_merges(list(b"abcde"), merges)      # BPE: b+c ranks first, then nothing fits
    [97, 256, 100, 101]
    >>> greedy_longest(b"abcde", tokens, 3)       # abc, then d and e
    [260, 100, 101]
    >>> fewest_tokens(b"abcde", tokens, 3)        # ab cde
    [257, 259]

Plain functions on ids and bytes, like ``merges.py``; ``encode_variants`` runs them all on a
tokenizer's text, chunk by chunk, for the Variants page. Only ``merges.py`` is imported here, so
``base.py`` (the tokenizer) can import this module; ``tok: Any`` below is a bpe_core Tokenizer.
"""

from __future__ import annotations

import heapq
import random
from typing import Any, NamedTuple

from .merges import SHORT_CHUNK

METHODS = ("bpe", "greedy", "fewest")  # what encode_with and encode_variants know
MAX_DROPOUT_SAMPLES = 100  # encode_variants: more samples than a page can show are an error


# ----------------------------------------------------------------------------------------------
# BPE-dropout


def dropout_merges(
    ids: list[int], merges: dict[tuple[int, int], int], p: float, rng: random.Random
) -> list[int]:
    """BPE-dropout on one chunk's ids: merge by rank, but skip each candidate with probability p.

    At every step each adjacent pair that is a merge (a *candidate*) is dropped with
    probability ``p``, independently, and the surviving candidate with the lowest rank (the
    smallest new id; the leftmost among equals) is merged: one position, not every occurrence,
    as the paper's reference implementation and Hugging Face ``tokenizers`` do. The next step
    draws again for every candidate, the dropped ones included. Merging stops when no
    candidate survives a step, so ``p=1`` leaves the bytes and ``p=0`` is exactly
    ``apply_merges`` (merging every occurrence of the lowest rank left to right is merging them
    one at a time: the pairs a merge creates rank above it).

    The candidates are drawn for in order of (rank, position), and drawing stops at the first
    survivor: the candidates after it could not win this step, so their draws would not change
    what is merged. This is what makes the two versions below agree for the same ``rng``.

    >>> merges = {(97, 98): 256, (256, 99): 257}          # "ab", then "abc"
    >>> dropout_merges([97, 98, 99], merges, 0.0, random.Random(0))
    [257]
    >>> dropout_merges([97, 98, 99], merges, 1.0, random.Random(0))
    [97, 98, 99]
    """
    if len(ids) <= SHORT_CHUNK:
        return _dropout_short(ids, merges, p, rng)
    return _dropout_long(ids, merges, p, rng)


def _dropout_short(
    ids: list[int], merges: dict[tuple[int, int], int], p: float, rng: random.Random
) -> list[int]:
    """``dropout_merges`` as the definition reads: every step lists and sorts the candidates."""
    ids = list(ids)
    get = merges.get
    while len(ids) >= 2:
        pairs = enumerate(zip(ids, ids[1:]))
        candidates = sorted((rank, i) for i, pair in pairs if (rank := get(pair)) is not None)
        survivor = None
        for candidate in candidates:
            if rng.random() >= p:  # this one survives (dropped with probability p)
                survivor = candidate
                break
        if survivor is None:  # no candidate, or every one was dropped: done
            break
        rank, i = survivor
        ids[i : i + 2] = [rank]  # a merge's new id is its rank
    return ids


def _dropout_long(
    ids: list[int], merges: dict[tuple[int, int], int], p: float, rng: random.Random
) -> list[int]:
    """``dropout_merges`` for long lists, in O(n log n) steps rather than O(n²).

    The candidates wait in a heap ordered by (rank, position), so the lowest comes first;
    the tokens are a linked list over the original positions (as in
    ``merges._apply_merges_long``): ``tok[i]`` the token starting at position i (-1 once merged
    into its left neighbour), ``nxt``/``prv`` the next and previous live positions, position n
    a sentinel whose token is -1. A candidate popped from the heap is *stale* when its tokens
    changed since it was pushed (the tokens at a position only grow, so it never comes back);
    stale candidates are skipped without a draw. Dropped candidates are set aside and go back
    into the heap after the next merge, so that the next step draws for them again.
    """
    n = len(ids)
    tok = list(ids)
    tok.append(-1)
    nxt = list(range(1, n + 2))
    prv = list(range(-1, n))
    get = merges.get
    heap = [(rank, i, ids[i], ids[i + 1])
            for i, rank in enumerate(map(get, zip(ids, ids[1:]))) if rank is not None]
    heapq.heapify(heap)
    dropped: list[tuple[int, int, int, int]] = []
    while heap:
        candidate = heapq.heappop(heap)
        rank, i, a, b = candidate
        if tok[i] != a or tok[nxt[i]] != b:
            continue  # stale: one of its two tokens was merged since
        if rng.random() < p:
            dropped.append(candidate)
            continue
        j = nxt[i]
        k = nxt[j]
        tok[i] = rank  # the new token takes the left position...
        tok[j] = -1  # ...and the right one leaves the list
        nxt[i] = k
        prv[k] = i
        for waiting in dropped:  # a new step: the dropped candidates get a new draw
            heapq.heappush(heap, waiting)
        dropped.clear()
        left = prv[i]  # the new token's pairs with its neighbours
        if left >= 0 and (new := get((tok[left], rank))) is not None:
            heapq.heappush(heap, (new, left, tok[left], rank))
        if (new := get((rank, tok[k]))) is not None:  # tok[n] is -1: never a merge's part
            heapq.heappush(heap, (new, i, rank, tok[k]))
    return [t for t in tok if t >= 0]


# ----------------------------------------------------------------------------------------------
# Greedy longest match and fewest tokens


def _no_token(data: bytes, i: int) -> ValueError:
    return ValueError(f"no token of the vocabulary starts with byte {data[i]:#04x} (at {i}):"
                      " a byte-level vocabulary has a token for each of the 256 bytes")


def greedy_longest(data: bytes, token_ids: dict[bytes, int], max_len: int) -> list[int]:
    """Left to right, the longest token that the rest of ``data`` starts with (maximal munch).

    ``token_ids`` maps each token's bytes to its id (``Tokenizer.token_ids``); ``max_len`` is
    the longest token's length in bytes. Every single byte is a token, so this always ends.
    A long first token can leave a rest that cuts badly, so greedy does not always find the
    fewest tokens (here "ab" "cde" is shorter; see ``fewest_tokens``), and it is not BPE
    (``encode_variants`` has a vocabulary where the three differ).

    >>> tokens = {b"a": 97, b"b": 98, b"c": 99, b"d": 100, b"e": 101,
    ...           b"ab": 256, b"abc": 257, b"cd": 258, b"cde": 259}
    >>> greedy_longest(b"abcde", tokens, 3)     # "abc" "d" "e"
    [257, 100, 101]
    """
    out = []
    i, n = 0, len(data)
    while i < n:
        for size in range(min(max_len, n - i), 0, -1):  # longest first
            idx = token_ids.get(data[i : i + size])
            if idx is not None:
                out.append(idx)
                i += size
                break
        else:
            raise _no_token(data, i)
    return out


def fewest_tokens(data: bytes, token_ids: dict[bytes, int], max_len: int) -> list[int]:
    """A cut of ``data`` into as few tokens as possible (dynamic programming over positions).

    From the end back to the start, ``count[i]`` is the fewest tokens that spell ``data[i:]``:
    one token ``data[i:i+size]`` and then the best cut of the rest, ``1 + count[i+size]``,
    minimised over every size up to ``max_len``. O(len(data) × max_len) dictionary lookups.
    Ties: among cuts with equally few tokens, the one whose first token is longest, then whose
    second token is longest, and so on (sizes are tried longest first, and only a strictly
    smaller count replaces the best so far).

    >>> tokens = {b"a": 97, b"b": 98, b"c": 99, b"d": 100, b"e": 101,
    ...           b"ab": 256, b"abc": 257, b"cd": 258, b"cde": 259}
    >>> fewest_tokens(b"abcde", tokens, 3)      # "ab" "cde": greedy takes "abc", then "d" "e"
    [256, 259]
    """
    n = len(data)
    count = [0] * (n + 1)  # count[n] = 0: nothing left to spell
    size_at = [0] * (n + 1)  # the length of the first token of the best cut of data[i:]
    id_at = [0] * (n + 1)  # and its id
    for i in range(n - 1, -1, -1):
        best = n + 1  # more tokens than any cut has
        for size in range(min(max_len, n - i), 0, -1):  # longest first: it wins ties
            if count[i + size] + 1 < best:
                idx = token_ids.get(data[i : i + size])
                if idx is not None:
                    best, size_at[i], id_at[i] = count[i + size] + 1, size, idx
        if best > n:
            raise _no_token(data, i)
        count[i] = best
    out = []
    i = 0
    while i < n:
        out.append(id_at[i])
        i += size_at[i]
    return out


# ----------------------------------------------------------------------------------------------
# On a tokenizer's text, chunk by chunk


class EncoderVariants(NamedTuple):
    """One text encoded by each encoder of ``encode_variants``, all with one vocabulary."""

    bpe: list[int]  # == tok.encode(text, allowed_special, disallowed_special)
    greedy: list[int]
    fewest: list[int]
    dropout: list[list[int]]  # sample k == tok.encode(text, ..., dropout=p, seed=seed + k)
    p: float
    seed: int

    @property
    def by_method(self) -> dict[str, list[int]]:
        """``{"bpe": ids, "greedy": ids, "fewest": ids}``, in that order."""
        return {"bpe": self.bpe, "greedy": self.greedy, "fewest": self.fewest}


def _longest_token(tok: Any) -> int:
    """The length in bytes of the tokenizer's longest ordinary token (at least 1)."""
    return max(map(len, tok.token_ids), default=1)


def _encode_pieces(
    tok: Any, pieces: list[tuple[str, int | None]], method: str, max_len: int
) -> list[int]:
    """The ids of ``tok.chunks()``'s pieces by one method; a special token stays whole."""
    ids: list[int] = []
    for chunk, special_id in pieces:
        if special_id is not None:
            ids.append(special_id)
        elif method == "bpe":
            ids += tok.encode_chunk(chunk)
        elif method == "greedy":
            ids += greedy_longest(chunk.encode("utf-8"), tok.token_ids, max_len)
        else:
            ids += fewest_tokens(chunk.encode("utf-8"), tok.token_ids, max_len)
    return ids


def encode_with(
    tok: Any,
    text: str,
    method: str,
    *,
    allowed_special: object = "all",
    disallowed_special: object = "all",
) -> list[int]:
    """``text`` encoded with ``tok``'s vocabulary by ``method``: "bpe", "greedy" or "fewest".

    The text is cut as ``encode`` cuts it (``tok.chunks``: the split pattern, and the special
    tokens, which stay whole); each chunk is then encoded on its own, so no token crosses a
    chunk boundary whatever the method. "bpe" is ``tok.encode(text, allowed_special, ...)``.
    Unlike ``encode``, every special token is allowed by default.

    >>> from bpe_core import Tokenizer
    >>> tok = Tokenizer(merges={(98, 99): 256, (97, 98): 257, (257, 99): 258})  # bc, ab, abc
    >>> [tok.decode_tokens_bytes(encode_with(tok, "abcd", m)) for m in METHODS]
    [[b'a', b'bc', b'd'], [b'abc', b'd'], [b'abc', b'd']]
    """
    if method not in METHODS:
        raise ValueError(f"method must be one of {', '.join(METHODS)}, not {method!r}")
    pieces = tok.chunks(text, allowed_special, disallowed_special)
    return _encode_pieces(tok, pieces, method, _longest_token(tok))


def encode_variants(
    tok: Any,
    text: str,
    *,
    dropout_samples: int = 0,
    p: float = 0.1,
    seed: int = 0,
    allowed_special: object = "all",
    disallowed_special: object = "all",
) -> EncoderVariants:
    """``text`` by BPE, greedy longest match and fewest tokens, and ``dropout_samples``
    BPE-dropout samples with probability ``p``: sample k is seeded with ``seed + k``, so it is
    ``tok.encode(text, ..., dropout=p, seed=seed + k)`` and the same call gives the same samples.

    The text is cut once by ``tok.chunks`` and each method encodes the chunks (see
    ``encode_with``). Work is bounded by the text: fewest tokens looks up O(bytes × the longest
    token's length) byte strings, BPE-dropout redoes the merges of every chunk per sample.

    >>> from bpe_core import Tokenizer
    >>> tok = Tokenizer(merges={(98, 99): 256, (97, 98): 257, (99, 100): 258,
    ...                         (258, 101): 259, (257, 99): 260})
    >>> found = encode_variants(tok, "abcde", dropout_samples=1, p=1.0)
    >>> {name: tok.decode_tokens_bytes(ids) for name, ids in found.by_method.items()}
    {'bpe': [b'a', b'bc', b'd', b'e'], 'greedy': [b'abc', b'd', b'e'], 'fewest': [b'ab', b'cde']}
    >>> found.dropout
    [[97, 98, 99, 100, 101]]
    """
    if isinstance(dropout_samples, bool) or not isinstance(dropout_samples, int) or not (
        0 <= dropout_samples <= MAX_DROPOUT_SAMPLES
    ):
        raise ValueError(f"dropout_samples must be a whole number from 0 to"
                         f" {MAX_DROPOUT_SAMPLES}, not {dropout_samples!r}")
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise ValueError(f"seed must be a whole number, not {seed!r}")
    if isinstance(p, bool) or not isinstance(p, int | float) or not 0 <= p <= 1:
        raise ValueError(f"dropout p must be a probability from 0 to 1, such as 0.1, not {p!r}")
    pieces = tok.chunks(text, allowed_special, disallowed_special)
    max_len = _longest_token(tok)
    by_method = {method: _encode_pieces(tok, pieces, method, max_len) for method in METHODS}
    samples = [tok.encode(text, allowed_special, disallowed_special, dropout=p, seed=seed + k)
               for k in range(dropout_samples)]
    return EncoderVariants(by_method["bpe"], by_method["greedy"], by_method["fewest"], samples,
                           p, seed)
