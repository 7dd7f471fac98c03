"""The merge loop's memory is bounded per byte of the distinct pieces: counted with tracemalloc
(bytes, not seconds), on pieces with few distinct pairs so that the nodes dominate."""

from __future__ import annotations

import random
import tracemalloc

import pytest

from bpe_core import training
from bpe_core.training import train_bpe


def test_the_layout_holds_at_most_16_bytes_per_byte_of_the_distinct_pieces():
    rng = random.Random(3)
    pieces = list(dict.fromkeys(bytes(rng.choice(b"acgt") for _ in range(12))
                                for _ in range(20_000)))
    nodes = 12 * len(pieces)
    tracemalloc.start()
    try:
        result = train_bpe(((p, 1000 + k) for k, p in enumerate(pieces)), 1)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert len(result.history) == 1
    # a node: its token, its link forward and a place of its pair, 4 bytes each; a piece's
    # start and weight once per piece (Python lists of ints took 32 bytes a node, arrays with a
    # weight and a link back per node 20)
    assert peak <= 16 * nodes, peak / nodes


def test_weights_of_2_to_the_32_or_more_are_kept_whole():
    big = 5 << 32
    result = train_bpe([(b"ab", big), (b"cd", big - 1)], 2)
    assert [(m.token, m.count) for m in result.history] == [(b"ab", big), (b"cd", big - 1)]


@pytest.mark.parametrize("tie_rule", training.TIE_RULES)
def test_a_heap_of_the_frequent_pairs_only_makes_the_same_merges(monkeypatch, tie_rule):
    """The heap holds only the pairs above a floor (refilled from the counts when it runs dry),
    pairs that fall to 0 are forgotten, and a heap of stale entries is rebuilt: with a refill
    at every halving of the counts and a rebuild after every merge, the merges and their
    candidates are those of one heap of every pair."""
    rng = random.Random(11)
    pieces = {}
    for _ in range(3000):
        piece = bytes(rng.choice(b"abcde ") for _ in range(rng.randint(1, 10)))
        pieces[piece] = pieces.get(piece, 0) + rng.choice([1, 2, 3, 50])
    items = list(pieces.items())
    monkeypatch.setattr(training, "FLOOR_SHIFT", 62)  # every pair in the heap from the start
    monkeypatch.setattr(training, "HEAP_SLACK", 10**9)  # never rebuilt
    whole = train_bpe(items, 400, tie_rule=tie_rule, candidates=3)
    monkeypatch.setattr(training, "FLOOR_SHIFT", 1)
    monkeypatch.setattr(training, "HEAP_SLACK", -(10**9))  # rebuilt after every merge
    refilled = train_bpe(items, 400, tie_rule=tie_rule, candidates=3)
    assert len(whole.history) == 400
    assert refilled.history == whole.history
