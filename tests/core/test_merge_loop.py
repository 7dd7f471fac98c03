"""The merge loop's pairs in flat arrays (bpe_core/merge_loop.py): the bytes held per live pair
are counted (tracemalloc and sys.getsizeof, not seconds), and compacting the places, or tokens
past two bytes, change no merge."""

from __future__ import annotations

import random
import tracemalloc

import pytest
import regex
from naive import naive_train

from bpe_core import first_count, merge_loop, training
from bpe_core.merge_loop import SHIFT, Layout
from bpe_core.training import train_bpe


def _many_pairs(n: int) -> tuple[list[tuple[bytes, int]], int]:
    """n distinct 3-byte pieces: for 20,000 about 30,000 distinct pairs over 60,000 nodes, so
    that the pairs, not the nodes, are most of what the merge loop holds."""
    rng = random.Random(5)
    pieces = list(dict.fromkeys(bytes(rng.randrange(256) for _ in range(3)) for _ in range(n)))
    pairs = {p[i:i + 2] for p in pieces for i in range(2)}
    return [(p, 1 + k % 5) for k, p in enumerate(pieces)], len(pairs)


def test_the_merge_loop_holds_at_most_120_bytes_per_live_pair_beside_its_nodes():
    items, n_pairs = _many_pairs(20_000)
    nodes = 3 * len(items)
    held = []

    def progress(done, total, record):
        if done == total:  # what the loop holds after its last merge, the pairs all counted
            held.append(tracemalloc.get_traced_memory()[0])

    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        result = train_bpe(items, 50, progress)
    finally:
        tracemalloc.stop()
    assert len(result.history) == 50
    # 12 bytes a node (its pair id, a place, a share of a chunk's start and weight); a pair:
    # its key, count and slice bounds (24 bytes) and a heap entry. Pairs in dicts, with an
    # int or array of places each, held 226 bytes a pair beside the nodes here.
    per_pair = (held[0] - before - 12 * nodes) / n_pairs
    assert per_pair <= 120, per_pair


def test_a_layouts_arrays_hold_at_most_40_bytes_per_live_pair():
    items, _ = _many_pairs(40_000)
    layout = Layout(items, 256 + 200)
    for step in range(200):  # the most frequent pair each time, as train_bpe would
        best = max(range(len(layout.cnt)), key=layout.cnt.__getitem__)
        layout.merge(best, 256 + step)
    live = sum(1 for _ in layout.live())
    assert live == layout.live_pairs > 40_000
    places = layout.places.itemsize * len(layout.places)  # 4 bytes a place
    per_pair = (layout.held_bytes() - places) / live
    assert per_pair <= 40, per_pair


def _text(seed: int, n: int = 4000) -> str:
    rng = random.Random(seed)
    words = ["the", "then", "aaaa", "abab", "ba", "café", "ünïcode", "12", "x"]
    return " ".join(rng.choice(words) + rng.choice(["", "s", "aa"]) for _ in range(n))


@pytest.mark.parametrize("tie_rule", training.TIE_RULES)
def test_compacting_the_places_after_every_merge_makes_the_same_merges(monkeypatch, tie_rule):

    chunks = {}
    for piece in regex.findall(r" ?\w+| ?[^\w\s]+|\s+", _text(3)):
        chunks[piece.encode()] = chunks.get(piece.encode(), 0) + 1
    items = list(chunks.items())
    monkeypatch.setattr(merge_loop, "COMPACT_AT", 10**9)  # never compacted
    whole = train_bpe(items, 45, tie_rule=tie_rule, candidates=2)
    compactions = []
    monkeypatch.setattr(merge_loop, "COMPACT_AT", -1)  # compacted after every merge
    real = Layout.compact
    monkeypatch.setattr(Layout, "compact", lambda self: compactions.append(1) or real(self))
    compacted = train_bpe(items, 45, tie_rule=tie_rule, candidates=2)
    assert len(whole.history) == 45
    assert len(compactions) >= 10, len(compactions)  # whenever a quarter of the places is stale
    assert compacted.history == whole.history


def test_the_naive_loop_agrees_on_one_chunk_of_repeats():
    text = "aaaaaaa abababab aaaa" * 3  # overlapping pairs ("aaa") and pairs of new tokens
    merges, *_ = naive_train(text, 256 + 12)
    assert train_bpe([(text.encode(), 1)], 12).merges == merges


def test_token_ids_past_two_bytes_make_the_same_merges():
    """A base vocabulary with ids of 65,534 or more (4 bytes a token while counting) trains as
    the same vocabulary under small ids."""
    items = [(piece.encode(), n) for piece, n in [("abcab", 3), ("cabca", 2), ("bb", 5)]]
    small = train_bpe(items, 6)
    offset = 70_000
    vocab = {offset + i: bytes([i]) for i in range(256)}
    big = train_bpe([([offset + b for b in p], n) for p, n in items], 6, base_vocab=vocab)
    assert [m.token for m in big.history] == [m.token for m in small.history]
    assert [m.count for m in big.history] == [m.count for m in small.history]
    assert min(big.merges.values()) == offset + 256
    assert max(k >> SHIFT for k, _ in Layout(items, 300).live()) < 256


_WEIGHTED = [("abcab", 1), ("cabca", 254), ("bcbc", 255), ("abab", 256), ("cccab", 300),
             ("ba", 2), ("aab", 1), ("cab", 257)]


@pytest.mark.parametrize("offset", [0, 70_000])
def test_chunks_on_both_sides_of_the_light_weights_train_as_the_naive_loop(monkeypatch, offset):
    """Weights under and over HEAVY (a node's weight byte, or the bisection), with codes made
    a few nodes at a time (STRIDE), under small ids and ids past two bytes: the merges and
    counts of the naive loop on the text written out, every piece as often as its weight."""
    monkeypatch.setattr(first_count, "STRIDE", 4)
    text = " ".join(" ".join([piece] * w) for piece, w in _WEIGHTED)
    merges, counts = naive_train(text, 256 + 14, r"[a-z]+| ")
    vocab = {offset + i: bytes([i]) for i in range(256)}
    items = [([offset + b for b in piece.encode()], w) for piece, w in _WEIGHTED]
    result = train_bpe(items, 14, base_vocab=vocab if offset else None)
    assert [m.count for m in result.history] == counts
    naive_tokens = []
    spell = {i: bytes([i]) for i in range(256)}
    for (a, b), idx in merges.items():
        spell[idx] = spell[a] + spell[b]
        naive_tokens.append(spell[idx])
    assert [m.token for m in result.history] == naive_tokens


def test_only_the_places_in_heavy_chunks_look_their_weight_up_by_bisection(monkeypatch):
    """A chunk that occurs fewer than HEAVY times keeps its weight in a byte a node: merging
    a pair bisects the chunk starts only at places in chunks that occur HEAVY times or more."""
    looked_up = []
    real = merge_loop.bisect_right
    monkeypatch.setattr(merge_loop, "bisect_right",
                        lambda *args: looked_up.append(args[1]) or real(*args))
    light = [(piece.encode(), w) for piece, w in _WEIGHTED if w < first_count.HEAVY]
    train_bpe(light, 10)
    assert looked_up == []
    train_bpe([(b"abab", 1), (b"ab", first_count.HEAVY), (b"xab", 3)], 1)  # merges "ab" at 4
    assert len(looked_up) == 1  # places: abab twice, ab once (heavy), xab once


def test_a_piece_table_with_an_empty_piece_huge_and_zero_counts_trains_as_its_items():
    """A table is laid out in C (joined, widened, its starts from its ends): an empty piece,
    a count past 2**32 and a count of 0 give the merges of the same pieces given one by one."""
    items = [(b"abab", 2), (b"", 5), (b"ab", 5 << 32), (b"ba", 0), (b"babx", 3), (b"x", 1)]
    by_items = train_bpe(items, 4)
    by_table = train_bpe(training.piece_table(dict(items)), 4)
    assert [(m.token, m.count) for m in by_table.history] == \
        [(m.token, m.count) for m in by_items.history]
    assert by_items.history[0].count == (5 << 32) + 2 * 2 + 3  # ab, abab twice, babx thrice
