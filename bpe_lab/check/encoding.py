"""The encoding mistakes of the zoo, replayed: a learner's encoder with each mistake
(``encode_with_mistake``), and a learner's ids for a sentence checked against the tokenizer's and
against those mistakes (``diagnose_encoding``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

from bpe_core.base import Tokenizer
from bpe_core.merges import apply_merges, get_stats, merge
from bpe_core.text import clean_text

from .comparing import common_prefix
from .reading import read_ids
from .replaying import merge_first_only, merge_right_to_left
from .task import MAX_CHECK_CHARS
from .zoo import MISTAKES, MISTAKES_BY_KEY, Mistake


def _encode_by_frequency(ids: list[int], merges: dict[tuple[int, int], int]) -> list[int]:
    """A MISTAKE: merge the chunk's most frequent pair among the learned ones, not the earliest."""
    while len(ids) >= 2:
        stats = {p: n for p, n in get_stats(ids).items() if p in merges}
        if not stats:
            break
        pair = max(stats, key=stats.get)
        ids = merge(ids, pair, merges[pair])
    return ids


def _encode_most_frequent_or_stop(ids: list[int], merges: dict[tuple[int, int], int]) -> list[int]:
    """A MISTAKE: take the chunk's most frequent pair of all; stop when it is not a merge."""
    while len(ids) >= 2:
        stats = get_stats(ids)
        pair = max(stats, key=stats.get)
        if pair not in merges:
            break
        ids = merge(ids, pair, merges[pair])
    return ids


def _encode_by_rank(ids: list[int], merges: dict[tuple[int, int], int],
                    merge_pair: Callable = merge) -> list[int]:
    """By rank (the lowest new id first), merging with ``merge_pair``."""
    while len(ids) >= 2:
        ranked = [(merges[p], p) for p in zip(ids, ids[1:]) if p in merges]
        if not ranked:
            break
        rank, pair = min(ranked)
        ids = merge_pair(ids, pair, rank)
    return ids


def _encode_each_merge_once(ids: list[int], merges: dict[tuple[int, int], int]) -> list[int]:
    """A MISTAKE: every merge in rank order, once each, replacing the first occurrence only."""
    last = -1
    while len(ids) >= 2:
        ranked = [(merges[p], p) for p in zip(ids, ids[1:]) if merges.get(p, -1) > last]
        if not ranked:
            break
        rank, pair = min(ranked)
        ids = merge_first_only(ids, pair, rank)
        last = rank
    return ids


_CHUNK_ENCODERS: dict[str, list[Callable[[list[int], dict], list[int]]]] = {
    "encode_by_frequency": [_encode_by_frequency, _encode_most_frequent_or_stop],
    "encode_right_to_left": [lambda ids, m: _encode_by_rank(ids, m, merge_right_to_left)],
    "encode_first_only": [_encode_each_merge_once],
}


def encode_with_mistake(key: str, tok: Tokenizer, text: str, variant: int = 0) -> list[int]:
    """``tok.encode(text, allowed_special="all")`` as a learner's encoder with mistake ``key``
    would do it (``variant``: "encode_by_frequency" has two forms: 0 merges the most frequent
    learned pair; 1 stops as soon as the most frequent pair is not a merge).

    >>> from bpe_core import BasicTokenizer
    >>> tok = BasicTokenizer()
    >>> tok.train("aaa aaa", 257)
    >>> tok.encode("aaa"), encode_with_mistake("encode_right_to_left", tok, "aaa")
    ([256, 97], [97, 256])
    """
    if key not in MISTAKES_BY_KEY or MISTAKES_BY_KEY[key].stage != "encoding":
        keys = [m.key for m in MISTAKES if m.stage == "encoding"]
        raise ValueError(f"unknown encoding mistake {key!r}; expected one of {', '.join(keys)}")
    byte_ids = tok.byte_token_ids
    out: list[int] = []
    if key == "encode_no_split":  # each piece between special tokens, unsplit, by rank
        for piece, special in tok.segments(text, "all"):
            if special is None:
                out += apply_merges([byte_ids[b] for b in piece.encode("utf-8")], tok.merges)
            else:
                out.append(special)
        return out
    encoders = _CHUNK_ENCODERS[key]
    if not 0 <= variant < len(encoders):
        raise ValueError(f"variant must be 0..{len(encoders) - 1} for {key!r}, not {variant!r}")
    encode_chunk = encoders[variant]
    for chunk, special in tok.chunks(text, "all"):
        if special is None:
            out += encode_chunk([byte_ids[b] for b in chunk.encode("utf-8")], tok.merges)
        else:
            out.append(special)
    return out


class EncodingCheck(NamedTuple):
    """A learner's ids for a sentence beside the tokenizer's own."""

    matches: bool
    expected: list[int]  # tok.encode(sentence, allowed_special="all")
    first_difference: int | None  # the 1-based position of the first differing id
    mistakes: list[Mistake]  # the encoding mistakes that give exactly the learner's ids
    summary: str


def diagnose_encoding(tok: Tokenizer, sentence: str, their_ids: object) -> EncodingCheck:
    """Compare a learner's ids for ``sentence`` with ``tok.encode`` and with the encoding
    mistakes of the zoo (``tok`` holds the merges both encoders use).

    >>> from bpe_core import BasicTokenizer
    >>> tok = BasicTokenizer()
    >>> tok.train("aaa aaa", 257)
    >>> check = diagnose_encoding(tok, "aaa", [97, 256])
    >>> check.matches, [m.key for m in check.mistakes]
    (False, ['encode_right_to_left'])
    """
    ids = read_ids(their_ids)
    if not isinstance(sentence, str) or len(sentence) > MAX_CHECK_CHARS:
        raise ValueError(f"the sentence must be a str of at most {MAX_CHECK_CHARS:,} characters")
    expected = tok.encode(sentence, allowed_special="all")
    if ids == expected:
        said = f"Your {len(ids):,} ids match the tokenizer's."
        return EncodingCheck(True, expected, None, [], said)
    position = common_prefix(ids, expected) + 1
    mistakes = []
    for mistake in MISTAKES:
        if mistake.stage == "encoding":
            forms = len(_CHUNK_ENCODERS.get(mistake.key, [None]))
            if any(encode_with_mistake(mistake.key, tok, sentence, v) == ids for v in range(forms)):
                mistakes.append(mistake)
    if position > min(len(ids), len(expected)):
        longer = "yours are" if len(ids) > len(expected) else "the tokenizer's are"
        said = (f"Your ids match the tokenizer's first {min(len(ids), len(expected)):,};"
                f" {longer} longer ({len(ids):,} against {len(expected):,}).")
    else:
        said = (f"Your ids differ at position {position:,}: you have {ids[position - 1]}, the"
                f" tokenizer {expected[position - 1]}.")
    spelled = all(i in tok.vocab for i in ids) and tok.decode_bytes(ids) == clean_text(
        sentence).encode("utf-8")
    if not spelled:
        said += (" Your ids do not spell the sentence with this tokenizer's tokens (another"
                 " numbering, or another sentence?).")
    if mistakes:
        said += " They are exactly what this mistake gives: " + mistakes[0].title + "."
    return EncodingCheck(False, expected, position, mistakes, said)
