"""A learner's BPE trainer, written plainly the way a student writes it, with switches that put
in one mistake each: the wrong trainers the Check your BPE tests (core and page) check. Nothing
here comes from bpe_lab.check, whose own trainer is what its diagnosis replays.

Tie rules: "seen" (the first of equals, as ``max`` over a dict), "bytes" (CS336), "ids", and
three that are mistakes against any of those: "last_seen" (a loop that keeps the last of equals
with ``>=``), "greatest_ids" (``max`` over (count, pair)) and "gpt2_strings" (tokens kept as
strings in GPT-2's byte alphabet and the greatest pair of strings taken: ``Ġ``, a space, sorts
after the letters, where b" " sorts before them). bpe_lab.check knows the first five.
"""

from __future__ import annotations

from collections import Counter

import regex

from bpe_core.formats import bytes_to_unicode

_GPT2_ALPHABET = bytes_to_unicode()


def gpt2_string(token: bytes) -> str:
    """A token in GPT-2's byte alphabet, as a merges.txt writes it: b" t" -> "Ġt"."""
    return "".join(_GPT2_ALPHABET[b] for b in token)


def learner_train(text, vocab_size, pattern="", specials=(), tie_rule="seen", *,
                  count_overlaps=True, cut_specials=True, specials_in_size=True, extra=0,
                  use_counts=True, merge_from="left", merge_all=True):
    """BPE as a student writes it; the keywords after * put in one mistake each."""
    parts = [text]
    if specials and cut_specials:
        alternatives = "|".join(regex.escape(s) for s in sorted(specials, key=len, reverse=True))
        parts = [p for p in regex.split(alternatives, text) if p]
    words = []
    for part in parts:
        words += regex.findall(pattern, part) if pattern else [part]
    counted = Counter(words)  # each distinct chunk once, with how often it occurs
    chunks = [list(w.encode("utf-8")) for w in counted]
    weights = [n if use_counts else 1 for n in counted.values()]
    vocab = {i: bytes([i]) for i in range(256)}
    num_merges = vocab_size - 256 - (len(specials) if specials_in_size else 0) + extra
    merges = []
    for step in range(num_merges):
        stats = {}
        for ids, n in zip(chunks, weights):
            i = 0
            while i < len(ids) - 1:
                pair = (ids[i], ids[i + 1])
                stats[pair] = stats.get(pair, 0) + n
                # counted like str.count: in a run x x x the second (x, x) overlaps the first
                if not count_overlaps and ids[i] == ids[i + 1] and i + 2 < len(ids) \
                        and ids[i + 2] == ids[i]:
                    i += 2
                else:
                    i += 1
        if not stats:
            break
        if tie_rule == "seen":
            pair = max(stats, key=stats.get)
        elif tie_rule == "bytes":
            pair = max(stats, key=lambda p: (stats[p], vocab[p[0]], vocab[p[1]]))
        elif tie_rule == "ids":
            pair = min(stats, key=lambda p: (-stats[p], p))
        elif tie_rule == "last_seen":
            best = 0
            for candidate, n in stats.items():
                if n >= best:  # >= keeps the last of equals
                    pair, best = candidate, n
        elif tie_rule == "greatest_ids":
            pair = max(stats, key=lambda p: (stats[p], p))
        elif tie_rule == "gpt2_strings":
            pair = max(stats, key=lambda p: (stats[p], gpt2_string(vocab[p[0]]),
                                             gpt2_string(vocab[p[1]])))
        else:
            raise ValueError(f"unknown tie rule {tie_rule!r}")
        idx = 256 + step
        vocab[idx] = vocab[pair[0]] + vocab[pair[1]]
        merges.append((vocab[pair[0]], vocab[pair[1]]))
        for c, ids in enumerate(chunks):
            if merge_from == "right":  # the mistake: scan from the right (the list reversed)
                chunks[c] = merge_ids(ids[::-1], (pair[1], pair[0]), idx, merge_all)[::-1]
            else:
                chunks[c] = merge_ids(ids, pair, idx, merge_all)
    return merges


def merge_ids(ids, pair, idx, merge_all=True):
    """Replace the pair, left to right, everywhere (or, the mistake, only its first time)."""
    out, i, merged = [], 0, False
    while i < len(ids):
        if (merge_all or not merged) and i + 1 < len(ids) and (ids[i], ids[i + 1]) == pair:
            out.append(idx)
            merged = True
            i += 2
        else:
            out.append(ids[i])
            i += 1
    return out


def prefix(a: list, b: list) -> int:
    """How many merges two lists share from the first."""
    n = 0
    while n < min(len(a), len(b)) and a[n] == b[n]:
        n += 1
    return n
