"""The Lesson's step that puts the three families of BPE side by side on the lesson's text: each
family trained on it at a small size (``ui.kit.families.train_family``), and what each model
sees for a space, for an emoji, for a word it never saw. Pure functions (no Streamlit).

    >>> [p.kind for p in probes("The cat sat.")]
    ['space', 'emoji', 'new word']
    >>> probes("The cat sat.")[0].text
    'The cat'
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

import regex

from ui.kit.families import FAMILIES, FAMILY_LABELS, train_family
from ui.kit.tokens_html import Piece

FAMILY_MERGES = 150  # merges each family learns from the lesson's text
EMOJIS = ("🦜", "🪐", "🧃", "🦔", "🫖")  # the first one the text does not hold is shown
NEW_WORDS = ("blorptastic", "zibbleflux", "snorkelwhump", "quindlebark")
_TWO_WORDS = regex.compile(r"(?<![\p{L}\p{M}])[\p{L}\p{M}]+ [\p{L}\p{M}]+")


class Probe(NamedTuple):
    kind: str  # "space", "emoji", "new word"
    label: str  # the row's heading
    text: str  # what each model is given


def probes(text: str) -> list[Probe]:
    """The three things each model is shown: two words of the text with the space between them,
    an emoji the text does not hold, and a word it does not hold."""
    found = _TWO_WORDS.search(text)
    pair = found.group() if found else "the cat"
    emoji = next((e for e in EMOJIS if e not in text), EMOJIS[0])
    lowered = text.lower()
    word = next((w for w in NEW_WORDS if w not in lowered), NEW_WORDS[0])
    return [Probe("space", "A space between two words of the text", pair),
            Probe("emoji", "An emoji the text does not hold", emoji),
            Probe("new word", "A word the text never had", word)]


def train_three(text: str, merges: int = FAMILY_MERGES) -> dict[str, object]:
    """Each family trained on ``text`` with about ``merges`` merges: family -> tokenizer."""
    return {family: train_family(family, text, merges=merges) for family in FAMILIES}


def probe_view_name(family: str, probe: Probe) -> str:
    """The name a screen reader hears for one family's tokens of one probe."""
    return f"{FAMILY_LABELS[family]}: tokens of {probe.kind} {probe.text}"


def _space_tokens(items: Sequence[Piece], family: str) -> int:
    mark = "\u2581".encode() if family == "sentencepiece" else b" "
    return sum(1 for t in items if mark in t.token)


def what_it_sees(family: str, probe: Probe, items: Sequence[Piece]) -> str:
    """One sentence under a family's tokens of a probe: what became of the space, the emoji, the
    new word (counted from the tokens drawn)."""
    n = len(items)
    tokens = f"{n} token{'' if n == 1 else 's'}"
    if probe.kind == "space":
        if family == "word":
            return f"{tokens}: no token holds the space; the words are cut apart at it."
        spelled = "▁" if family == "sentencepiece" else "a space byte"
        held = _space_tokens(items, family)
        return (f"{tokens}: the space is {spelled}, at the start of the word after it"
                + ("" if held else " (here a token of its own)") + ".")
    if probe.kind == "emoji":
        size = len(probe.text.encode("utf-8"))
        if family == "word":
            return (f"{tokens}: the character itself, merged with nothing; a vocabulary of this"
                    " text's pieces does not hold it.")
        parts = sum(1 for t in items if t.kind == "byte" or len(t.token) == 1 and t.token[0] >= 0x80)
        if family == "sentencepiece":
            return (f"{tokens}: not a piece, so byte fallback spells its {size} UTF-8 bytes,"
                    f" {parts} byte pieces." if parts else f"{tokens}: a piece of its own.")
        return (f"{tokens} for its {size} UTF-8 bytes: "
                + ("one token a byte." if n == size else "pairs of them merged in other text."))
    if n == 1:
        return "1 token: the word is in the vocabulary after all."
    if family == "word":
        return f"Cut into {tokens}; </w> marks the end of the word."
    return f"Cut into {tokens}, pieces learned from other words."
