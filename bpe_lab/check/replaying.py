"""A trainer to bend: the plain BPE loop (``replay_training``), with hooks that put in each
mistake of counting and merging, and ``replay``, which learns the merges of a trainer set up
with one mistake (a ``Setup``) the fastest way it can.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from itertools import islice

from bpe_core.merges import get_stats, merge
from bpe_core.training import TIE_RULES, train_bpe

from .task import MAX_PLAIN_STEPS, ZOO_TIE_RULES, Pair, Setup, training_chunks


def count_pairs_without_overlap(ids: list[int]) -> dict[tuple[int, int], int]:
    """A MISTAKE: count pairs as ``str.count`` counts, skipping a copy that overlaps the last.

    >>> count_pairs_without_overlap([97, 97, 97, 97])   # "aaaa": the right count is 3
    {(97, 97): 2}
    """
    counts: dict[tuple[int, int], int] = {}
    last_pair, last_start = None, -2
    for i, pair in enumerate(zip(ids, ids[1:])):
        if pair == last_pair and i == last_start + 1:
            continue  # this copy shares a token with the one just counted
        counts[pair] = counts.get(pair, 0) + 1
        last_pair, last_start = pair, i
    return counts


def merge_right_to_left(ids: list[int], pair: tuple[int, int], idx: int) -> list[int]:
    """A MISTAKE: replace the pair's occurrences scanning from the right.

    >>> merge_right_to_left([97, 97, 97], (97, 97), 256)   # the right answer is [256, 97]
    [97, 256]
    """
    out = []
    i = len(ids) - 1
    while i >= 0:
        if i >= 1 and ids[i - 1] == pair[0] and ids[i] == pair[1]:
            out.append(idx)
            i -= 2
        else:
            out.append(ids[i])
            i -= 1
    out.reverse()
    return out


def merge_first_only(ids: list[int], pair: tuple[int, int], idx: int) -> list[int]:
    """A MISTAKE: replace only the first occurrence of the pair.

    >>> merge_first_only([1, 2, 3, 1, 2], (1, 2), 256)   # the right answer is [256, 3, 256]
    [256, 3, 1, 2]
    """
    for i in range(len(ids) - 1):
        if ids[i] == pair[0] and ids[i + 1] == pair[1]:
            return ids[:i] + [idx] + ids[i + 2 :]
    return ids


COUNTERS: dict[str, Callable[[list[int]], dict[tuple[int, int], int]]] = {
    "overlapping": get_stats,  # right: every adjacent pair counts
    "no_overlap": count_pairs_without_overlap,
}
MERGERS: dict[str, Callable[[list[int], tuple[int, int], int], list[int]]] = {
    "left_to_right": merge,  # right: every occurrence, from the left
    "right_to_left": merge_right_to_left,
    "first_only": merge_first_only,
}


def replay_training(
    chunks: list[tuple[bytes, int]],
    num_merges: int,
    *,
    tie_rule: str = "seen",
    count_pairs: Callable[[list[int]], dict[tuple[int, int], int]] = get_stats,
    merge_pair: Callable[[list[int], tuple[int, int], int], list[int]] = merge,
) -> Iterator[Pair]:
    """The plain trainer, one merge at a time: count the pairs, take the most frequent (ties by
    the rule), merge it. Yields each merge as a bytes pair.

    ``count_pairs(ids)`` counts the pairs of one chunk; ``merge_pair(ids, pair, new_id)`` merges
    in one chunk: hooks, so that a mistake can be put in. With the defaults it makes exactly
    ``train_bpe``'s merges (the tests check), more slowly.

    It keeps the total counts and, for each pair, which chunks hold it; after a merge only those
    chunks are merged and counted again (every chunk occurs ``n`` times: its counts weigh n).

    >>> list(replay_training([(b"aaabdaaabac", 1)], 3))
    [(b'a', b'a'), (b'aa', b'a'), (b'aaa', b'b')]
    >>> list(replay_training([(b"aaabdaaabac", 1)], 3, merge_pair=merge_right_to_left))
    [(b'a', b'a'), (b'a', b'aa'), (b'aaa', b'b')]
    """
    rules = TIE_RULES + ZOO_TIE_RULES
    if tie_rule not in rules:
        raise ValueError(f"tie_rule must be one of {', '.join(rules)}, not {tie_rule!r}")
    words = [list(chunk) for chunk, _ in chunks]
    weights = [n for _, n in chunks]
    vocab = [bytes([b]) for b in range(256)]
    counts: dict[tuple[int, int], int] = {}  # pair -> occurrences in the whole text
    where: dict[tuple[int, int], set[int]] = {}  # pair -> the chunks that hold it
    pairs_in: list[dict[tuple[int, int], int]] = [{} for _ in words]

    def recount(i: int, sign: int) -> None:
        """Take chunk i's pairs out of the totals (sign -1) or put them in (+1)."""
        for pair, n in pairs_in[i].items():
            total = counts.get(pair, 0) + sign * n * weights[i]
            if total:
                counts[pair] = total
            else:
                del counts[pair]
            if sign > 0:
                where.setdefault(pair, set()).add(i)
            else:
                where[pair].discard(i)
                if not where[pair]:
                    del where[pair]

    def first_seen(pair: tuple[int, int]) -> tuple[int, int]:
        """Where the pair first occurs: (chunk, position); chunks are in first-seen order."""
        i = min(where[pair])
        ids = words[i]
        return i, next(j for j in range(len(ids) - 1) if (ids[j], ids[j + 1]) == pair)

    for i, ids in enumerate(words):
        pairs_in[i] = count_pairs(ids)
        recount(i, +1)
    for step in range(num_merges):
        if not counts:
            return
        top = max(counts.values())
        tied = [pair for pair, n in counts.items() if n == top]
        if tie_rule == "seen":
            pair = min(tied, key=first_seen)
        elif tie_rule == "last_seen":  # a mistake: the last of equals in first-seen order
            pair = max(tied, key=first_seen)
        elif tie_rule == "greatest_ids":  # a mistake: max over (count, pair)
            pair = max(tied)
        elif tie_rule == "bytes":
            pair = max(tied, key=lambda p: (vocab[p[0]], vocab[p[1]]))
        else:  # "ids"
            pair = min(tied)
        new_id = 256 + step
        vocab.append(vocab[pair[0]] + vocab[pair[1]])
        yield vocab[pair[0]], vocab[pair[1]]
        for i in sorted(where[pair]):
            recount(i, -1)
            words[i] = merge_pair(words[i], pair, new_id)
            pairs_in[i] = count_pairs(words[i])
            recount(i, +1)


def uses_plain_loop(setup: Setup) -> bool:
    """Whether ``replay`` runs the plain loop for ``setup`` (at most ``MAX_PLAIN_STEPS`` merges):
    for a mistake in counting or merging, or a tie rule ``train_bpe`` does not have."""
    return (setup.count, setup.merge) != ("overlapping", "left_to_right") or (
        setup.tie_rule not in TIE_RULES)


def replay(text: str, setup: Setup, steps: int | None = None) -> list[Pair]:
    """The first ``steps`` merges (default: all) a trainer set up as ``setup`` learns from text.

    The mistakes that change only the trainer's inputs, or its tie rule to another one
    ``train_bpe`` has, count and merge as the reference does, so ``train_bpe`` gives their
    merges, fast; the others run the plain loop with their hooks (``replay_training``), for at
    most ``MAX_PLAIN_STEPS`` merges.

    >>> replay("abaaa", Setup("", 257)), replay("abaaa", Setup("", 257, count="no_overlap"))
    ([(b'a', b'a')], [(b'a', b'b')])
    """
    chunks = training_chunks(text, setup)
    steps = setup.num_merges if steps is None else min(steps, setup.num_merges)
    if not uses_plain_loop(setup):
        vocab = {i: bytes([i]) for i in range(256)}
        out = []
        for record in train_bpe(chunks, steps, tie_rule=setup.tie_rule).history:
            a, b = record.pair
            out.append((vocab[a], vocab[b]))
            vocab[record.id] = record.token
        return out
    steps = min(steps, MAX_PLAIN_STEPS)
    merges = replay_training(chunks, steps, tie_rule=setup.tie_rule,
                             count_pairs=COUNTERS[setup.count], merge_pair=MERGERS[setup.merge])
    return list(islice(merges, steps))

