"""The bug zoo: the mistakes learners make (``MISTAKES``), each with what the learner sees and
the idea of the fix; how each applies to a task's settings (``mistake_variants``); and a demo of
each on a small text (``zoo_demo``). Encoding mistakes are replayed in ``encoding``.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from typing import Any, NamedTuple

from bpe_core.patterns import GPT4_SPLIT_PATTERN
from bpe_core.training import TIE_RULES

from .replaying import replay
from .task import (
    PATTERN_NAMES,
    TIE_RULE_WORDS,
    ZOO_TIE_RULES,
    Pair,
    Setup,
    check_settings,
    known_pattern,
    pattern_name,
    rule_name,
)


class Mistake(NamedTuple):
    """A known mistake: what the learner sees, and the idea of the fix (in words, not code)."""

    key: str
    title: str
    symptom: str
    fix: str
    stage: str  # "training" or "encoding"
    demo_text: str  # a small text that shows it (zoo_demo's default)


_DEMO_PROSE = (
    "the cat sat on the mat. the dog sat on the log. then the cat and the dog ran to the mat,"
    " and the dog sat there. 'It's the cat's mat', they said; the cat's owner said it's 1984."
)

MISTAKES: list[Mistake] = [
    Mistake(
        "tie_rule", "Ties broken by another rule",
        "Your merges agree with the reference's for a while and then differ at a step where"
        " your pair and the reference's are equally frequent.",
        "Decide which of the equally frequent pairs wins and use the reference's rule: the pair"
        " seen first in the text (a dict keeps pairs in the order they were first counted, and"
        " max returns the first of equals), the greatest pair of token bytes (CS336), or the"
        " smallest pair of ids. A loop that keeps the last of equals (>= instead of >) picks the"
        " pair seen last; max over (count, pair) picks the greatest ids.",
        "training", "abcd bcde cdef defg abcd bcde",
    ),
    Mistake(
        "overlap", "Overlapping pairs counted once",
        "In a run such as b'aaaa' you count the pair b'a' + b'a' twice instead of three times:"
        " texts with runs of one character (spaces, '----', 'aaaa') part first.",
        "Every adjacent pair counts, even two that share a token: move one position at a time"
        " and count each pair of neighbours. Only merging has to skip the token it has used.",
        "training", "aaaa aaa aaaaa baaab aaaaaa ab ab ab ab",
    ),
    Mistake(
        "no_split", "Pairs counted across chunks",
        "You learn merges that join a word to the space or the punctuation after it"
        " (b'e' + b' ', b'.' + b'\\n'), which a tokenizer with a split pattern never makes.",
        "Split the text with the pattern first and count pairs inside each chunk only; keep the"
        " chunks apart (a list of chunks, or a count per distinct chunk), never one long stream.",
        "training", _DEMO_PROSE,
    ),
    Mistake(
        "other_pattern", "Another split pattern",
        "Your merges differ around numbers, contractions ('s, 're), capitals, newlines or runs"
        " of spaces: where the GPT-2, GPT-4 and GPT-4o patterns cut the text differently.",
        "Use exactly the reference's pattern (copy the constant), with the regex module rather"
        " than re, which does not know \\p{L}.",
        "training", "TheCat saw 12345 cats. TheCat saw 12345 dogs. TheCat and TheDog saw 123456"
        " birds.",
    ),
    Mistake(
        "specials_not_cut", "Special tokens not cut out",
        "You learn merges made of a special token's text, such as b'<|' or b'endoftext', or"
        " merges that join the text on both sides of it.",
        "Cut the text at every special token first (the longest first), train on the pieces"
        " between them, and add the special tokens to the vocabulary afterwards.",
        "training", "the end.<|endoftext|>the start.<|endoftext|>the end of the start."
        "<|endoftext|>the cat.<|endoftext|>the dog.",
    ),
    Mistake(
        "specials_not_counted", "Special tokens not counted in the vocabulary size",
        "Your merges are the reference's with one more at the end for every special token, so"
        " your vocabulary is larger than vocab_size.",
        "The vocabulary holds the 256 bytes, the merges and the special tokens: make vocab_size"
        " - 256 - (the number of special tokens) merges.",
        "training", "the end.<|endoftext|>the start.<|endoftext|>the cat sat on the mat.",
    ),
    Mistake(
        "vocab_off_by_one", "Vocabulary size off by one",
        "Your merges are the reference's with one more, or one fewer, at the end.",
        "Make exactly vocab_size - 256 merges (minus the special tokens): check the loop's range"
        " and that the first new id is 256.",
        "training", _DEMO_PROSE,
    ),
    Mistake(
        "ignore_counts", "Chunk counts ignored",
        "Your merges favour pairs that occur in many different words over pairs in a few very"
        " frequent words (' the', ' of'): each distinct chunk counted once.",
        "When you count each distinct chunk once (a dict of chunk -> how often it occurs),"
        " multiply the pairs it holds by how often it occurs.",
        "training", "the the the the the the cat hat mat bat sat rat the the the the",
    ),
    Mistake(
        "right_to_left", "Merges applied right to left",
        "In a run such as b'aaa' your merge of b'a' + b'a' leaves b'a', b'aa' instead of b'aa',"
        " b'a', so merges built on runs of one character differ.",
        "Replace the pair's occurrences from the left, and after replacing one, go on after it"
        " (skip both of its tokens).",
        "training", "aaa aaa aaab aaab caaa caaa baaa",
    ),
    Mistake(
        "first_only", "Merge applied to the first occurrence only",
        "The same pair comes back in later merges (your list repeats a pair) and your counts"
        " fall more slowly than the reference's.",
        "After choosing a pair, replace every occurrence of it in every chunk before counting"
        " again.",
        "training", "abababab abababab cdcd",
    ),
    Mistake(
        "encode_by_frequency", "Encoding by frequency instead of rank",
        "Training agrees with the reference but encoding a sentence gives other ids: the"
        " sentence's own most frequent pair is merged first.",
        "When encoding, apply merges in the order they were learned: among the chunk's pairs"
        " that are merges, take the one learned first (the lowest rank), not the most frequent.",
        "encoding", "banana bandana",
    ),
    Mistake(
        "encode_right_to_left", "Encoding: merges applied right to left",
        "Encoding agrees except in runs of one character ('aaa', spaces), where the tokens are"
        " grouped from the right.",
        "Replace a pair's occurrences from the left, skipping both tokens of each one replaced.",
        "encoding", "aaa aaaaa",
    ),
    Mistake(
        "encode_first_only", "Encoding: each merge applied once",
        "Words with a repeated piece ('banana', runs of spaces) keep unmerged copies of it.",
        "Apply a merge to every occurrence in the chunk before moving on to the next merge.",
        "encoding", "banana abab",
    ),
    Mistake(
        "encode_no_split", "Encoding without the split pattern",
        "Ids differ where a learned pair stands across two chunks, e.g. digits or spaces"
        " merged across the places the pattern cuts.",
        "Split the text with the same pattern as in training and encode each chunk on its own.",
        "encoding", "1234 12345",
    ),
]

MISTAKES_BY_KEY = {m.key: m for m in MISTAKES}


def mistake_variants(key: str, reference: Setup) -> list[tuple[str, Setup]]:
    """The ways the mistake ``key`` applies to the reference's settings: ``(in words, setup)``.
    None when it cannot happen there (no special tokens, no split pattern to ignore)."""
    ref = reference
    specials = ref.special_tokens
    if key == "tie_rule":
        return [
            (f"you broke ties by the {rule_name(rule)} rule ({TIE_RULE_WORDS[rule]}); the"
             f" reference uses {rule_name(ref.tie_rule)} ({TIE_RULE_WORDS[ref.tie_rule]})",
             replace(ref, tie_rule=rule))
            for rule in TIE_RULES + ZOO_TIE_RULES if rule != ref.tie_rule
        ]
    if key == "overlap":
        return [("a run such as b'aaa' counted one pair b'a' + b'a' instead of two",
                 replace(ref, count="no_overlap"))]
    if key == "no_split" and ref.pattern:
        return [(f"you counted and merged across the chunks of {pattern_name(ref.pattern)}",
                 replace(ref, pattern=""))]
    if key == "other_pattern":
        theirs = pattern_name(ref.pattern)
        return [(f"you split with {pattern_name(p)}; the reference uses {theirs}",
                 replace(ref, pattern=p)) for p in PATTERN_NAMES
                if p != known_pattern(ref.pattern)]
    if key == "specials_not_cut" and specials:
        return [(f"you trained on the text of {', '.join(specials)} as ordinary text",
                 replace(ref, cut_at_specials=False))]
    if key == "specials_not_counted" and specials:
        setup = replace(ref, specials_in_vocab=False)
        return [(f"you made vocab_size - 256 = {setup.num_merges:,} merges; the reference makes"
                 f" {ref.num_merges:,}, since special tokens count in vocab_size", setup)]
    if key == "vocab_off_by_one":
        out = [(f"you made one merge too many ({ref.num_merges + 1:,})",
                replace(ref, vocab_size=ref.vocab_size + 1))]
        if ref.num_merges > 0:
            out.append((f"you made one merge too few ({ref.num_merges - 1:,})",
                        replace(ref, vocab_size=ref.vocab_size - 1)))
        return out
    if key == "ignore_counts":
        return [("every distinct chunk counted once, however often it occurs",
                 replace(ref, use_counts=False))]
    if key == "right_to_left":
        return [("merges applied from the right", replace(ref, merge="right_to_left"))]
    if key == "first_only":
        return [("each merge applied to the first occurrence in each chunk only",
                 replace(ref, merge="first_only"))]
    return []



class ZooDemo(NamedTuple):
    """A mistake's merges on a small text, with the settings to check them with."""

    merges: list[Pair]
    text: str
    settings: dict[str, Any]  # check_merges(merges, text, **settings) shows the symptom
    detail: str


def zoo_demo(
    key: str,
    text: str | None = None,
    *,
    pattern: str = GPT4_SPLIT_PATTERN,
    vocab_size: int = 256 + 12,
    special_tokens: Iterable[str] | None = None,
    tie_rule: str = "seen",
    variant: int = 0,
) -> ZooDemo:
    """Run a training mistake's trainer on a small text (default: the mistake's ``demo_text``).

    ``special_tokens`` defaults to ``["<|endoftext|>"]`` for the special-token mistakes;
    ``variant`` picks among a mistake's forms (another tie rule: which one).

    >>> demo = zoo_demo("first_only")   # "abababab ...": the same pair again and again
    >>> demo.merges[:3]
    [(b'a', b'b'), (b'a', b'b'), (b'a', b'b')]
    """
    mistake = MISTAKES_BY_KEY.get(key)
    if mistake is None:
        raise ValueError(f"unknown mistake {key!r}; the zoo has {', '.join(MISTAKES_BY_KEY)}")
    if mistake.stage != "training":
        raise ValueError(f"{key!r} is an encoding mistake: use encode_with_mistake(key, tok, text)")
    text = mistake.demo_text if text is None else text
    if special_tokens is None:
        special_tokens = ["<|endoftext|>"] if key.startswith("specials") else []
    pattern, specials = check_settings(text, pattern, special_tokens)
    reference = Setup(pattern, vocab_size, specials, tie_rule)
    variants = mistake_variants(key, reference)
    if not variants:
        raise ValueError(f"the mistake {key!r} cannot happen with these settings (it needs"
                         " special tokens, or a split pattern to ignore)")
    if not 0 <= variant < len(variants):
        raise ValueError(f"variant must be 0..{len(variants) - 1} for {key!r}, not {variant!r}")
    detail, setup = variants[variant]
    settings = dict(pattern=pattern, vocab_size=vocab_size, special_tokens=list(specials),
                    tie_rule=tie_rule)
    return ZooDemo(replay(text, setup), text, settings, detail)

