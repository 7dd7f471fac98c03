"""The merge loop's memory is bounded per byte of the distinct pieces: counted with tracemalloc
(bytes, not seconds), on pieces with few distinct pairs so that the nodes dominate."""

from __future__ import annotations

import random
import tracemalloc

from bpe_core.training import train_bpe


def test_the_layout_holds_at_most_24_bytes_per_byte_of_the_distinct_pieces():
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
    # a node: its token, its piece's weight, two links and a place of its pair, 4 bytes each
    # (Python lists of ints took 32 bytes a node, with a list entry per piece for the cuts)
    assert peak <= 24 * nodes, peak / nodes


def test_weights_of_2_to_the_32_or_more_are_kept_whole():
    big = 5 << 32
    result = train_bpe([(b"ab", big), (b"cd", big - 1)], 2)
    assert [(m.token, m.count) for m in result.history] == [(b"ab", big), (b"cd", big - 1)]
