"""The seeds' naive byte-level BPE, written plainly (minbpe style).

This is the reference the core is checked against. It is deliberately slow and simple:
every merge recounts every pair. Nothing here imports bpe_core.
"""

from __future__ import annotations

import regex


def get_stats(ids: list[int], counts: dict[tuple[int, int], int] | None = None):
    """Count adjacent pairs, overlapping, in order of first occurrence.

    >>> get_stats([1, 2, 3, 1, 2])
    {(1, 2): 2, (2, 3): 1, (3, 1): 1}
    """
    counts = {} if counts is None else counts
    for pair in zip(ids, ids[1:], strict=False):
        counts[pair] = counts.get(pair, 0) + 1
    return counts


def best_pair(stats: dict, vocab: dict, tie_rule: str):
    """The most frequent pair of ``stats``; among equals the first seen ("seen", the seeds'),
    the smallest ids ("ids"), or the greatest pair of token bytes ("bytes", CS336's: the first
    tokens compared, then the second); ``vocab`` spells the ids."""
    top = max(stats.values())
    tied = [p for p, c in stats.items() if c == top]  # in the order first seen
    if tie_rule == "seen":
        return tied[0]
    if tie_rule == "ids":
        return min(tied)
    return max(tied, key=lambda p: (vocab[p[0]], vocab[p[1]]))


def merge(ids: list[int], pair: tuple[int, int], idx: int) -> list[int]:
    """Replace every occurrence of pair, left to right and without overlap, with idx.

    >>> merge([1, 2, 3, 1, 2], (1, 2), 4)
    [4, 3, 4]
    """
    newids = []
    i = 0
    while i < len(ids):
        if i < len(ids) - 1 and ids[i] == pair[0] and ids[i + 1] == pair[1]:
            newids.append(idx)
            i += 2
        else:
            newids.append(ids[i])
            i += 1
    return newids


def chunks_of(text: str, pattern: str | None = None) -> list[str]:
    """The training / encoding chunks: regex.findall with a pattern, else the whole text."""
    if pattern:
        return regex.findall(pattern, text)
    return [text] if text else []


def naive_train_stream(text: str, vocab_size: int, pattern: str | None = None):
    """Train; return (merges, counts, ids) where ids is the merged stream, one list per chunk."""
    ids = [list(ch.encode("utf-8")) for ch in chunks_of(text, pattern)]
    merges: dict[tuple[int, int], int] = {}  # (int, int) -> int, in merge order
    counts: list[int] = []  # counts[i]: how often the pair of merge i occurred when chosen
    for i in range(vocab_size - 256):
        stats: dict[tuple[int, int], int] = {}
        for chunk_ids in ids:
            get_stats(chunk_ids, stats)
        if not stats:
            break  # nothing left to merge
        pair = max(stats, key=stats.get)  # ties: first inserted = earliest occurrence
        idx = 256 + i
        ids = [merge(chunk_ids, pair, idx) for chunk_ids in ids]
        merges[pair] = idx
        counts.append(stats[pair])
    return merges, counts, ids


def naive_train(text: str, vocab_size: int, pattern: str | None = None):
    """Train; return (merges, counts)."""
    merges, counts, _ = naive_train_stream(text, vocab_size, pattern)
    return merges, counts


def naive_vocab(merges: dict[tuple[int, int], int]) -> dict[int, bytes]:
    vocab = {idx: bytes([idx]) for idx in range(256)}
    for (p0, p1), idx in merges.items():
        vocab[idx] = vocab[p0] + vocab[p1]
    return vocab


def _encode_chunk(ids: list[int], merges: dict[tuple[int, int], int]) -> list[int]:
    while len(ids) >= 2:
        stats = get_stats(ids)
        pair = min(stats, key=lambda p: merges.get(p, float("inf")))
        if pair not in merges:
            break  # nothing else can be merged
        ids = merge(ids, pair, merges[pair])
    return ids


def naive_encode(text: str, merges: dict[tuple[int, int], int], pattern: str | None = None):
    """Per chunk, merge the lowest-ranked pair until no pair of the chunk is a merge."""
    out: list[int] = []
    for chunk in chunks_of(text, pattern):
        out.extend(_encode_chunk(list(chunk.encode("utf-8")), merges))
    return out


def naive_decode(ids: list[int], merges: dict[tuple[int, int], int], errors="replace") -> str:
    vocab = naive_vocab(merges)
    return b"".join(vocab[idx] for idx in ids).decode("utf-8", errors=errors)


def first_merges(merges: dict[tuple[int, int], int], k: int) -> dict[tuple[int, int], int]:
    """The first k merges (ids 256 .. 256+k-1)."""
    return {pair: idx for pair, idx in merges.items() if idx < 256 + k}


def cut_at_specials(text: str, specials) -> list[str]:
    """The text between special tokens (longest special first), the specials left out."""
    if not specials:
        return [text]
    alternatives = "|".join(regex.escape(s) for s in sorted(specials, key=len, reverse=True))
    return [part for part in regex.split(alternatives, text) if part]


def naive_train_rule(text, vocab_size, pattern=None, tie_rule="seen", special_tokens=()):
    """The seeds' loop with a tie rule and special tokens, as a course states it.

    Cut the text at the special tokens, split each part with the pattern, then for each merge:
    count every pair, take the most frequent one, ties broken by the rule, and merge it.
    The special tokens count in vocab_size. Returns the merges as (bytes, bytes) pairs, in order.
    """
    vocab = {i: bytes([i]) for i in range(256)}
    ids = [
        list(chunk.encode("utf-8"))
        for part in cut_at_specials(text, special_tokens)
        for chunk in chunks_of(part, pattern)
    ]
    merges = []
    for i in range(vocab_size - 256 - len(special_tokens)):
        stats = {}
        for chunk_ids in ids:
            get_stats(chunk_ids, stats)
        if not stats:
            break
        if tie_rule == "seen":
            pair = max(stats, key=stats.get)
        elif tie_rule == "bytes":
            pair = max(stats, key=lambda p: (stats[p], (vocab[p[0]], vocab[p[1]])))
        else:  # "ids": the smallest pair of ids
            pair = min(stats, key=lambda p: (-stats[p], p))
        idx = 256 + i
        ids = [merge(chunk_ids, pair, idx) for chunk_ids in ids]
        vocab[idx] = vocab[pair[0]] + vocab[pair[1]]
        merges.append((vocab[pair[0]], vocab[pair[1]]))
    return merges
