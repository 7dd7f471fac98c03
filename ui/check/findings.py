"""The "Check your BPE" page's tables and words (no Streamlit here): what ``bpe_lab.check``
found, as frames and sentences a learner can read; the task the page starts from (the sidebar's).
Tokens are spelled by ``ui.kit.tokens_html.token_text``, as on every page: whitespace as visible
glyphs, so HTML cannot collapse b"  " into b" ".
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Any, NamedTuple

import pandas as pd

from bpe_core import GPT2_SPLIT_PATTERN, GPT4_SPLIT_PATTERN, GPT4O_SPLIT_PATTERN
from bpe_lab.check import TIE_RULE_NAMES, known_pattern, show_pair
from ui.kit.choices import KINDS
from ui.kit.tokens_html import token_text

PATTERNS = {  # label -> split pattern ("" for none)
    "GPT-2 (CS336)": GPT2_SPLIT_PATTERN,
    "GPT-4 (minbpe's RegexTokenizer)": GPT4_SPLIT_PATTERN,
    "GPT-4o": GPT4O_SPLIT_PATTERN,
    "none (minbpe's BasicTokenizer)": "",
}
CUSTOM_LABEL = "custom: the sidebar's pattern"
RULE_LABELS = {  # label -> tie_rule: each starts with the rule's one name (TIE_RULE_NAMES)
    f"{TIE_RULE_NAMES['seen']} (the seeds, minbpe)": "seen",
    f"{TIE_RULE_NAMES['bytes']} (CS336)": "bytes",
    TIE_RULE_NAMES["ids"]: "ids",
}
AROUND = 3  # merges shown before and after the first difference
SENTENCE_TOKEN_CHARS = 40  # a token in a sentence is cut to this many characters
PRESET_PATTERNS = {"gpt2": GPT2_SPLIT_PATTERN, "cl100k_base": GPT4_SPLIT_PATTERN,
                   "o200k_base": GPT4O_SPLIT_PATTERN}


def spell(token: bytes) -> str:
    """A token in a sentence of the page: the one token spelling, cut to a sentence's length.

    >>> spell(b"  "), spell(b" ")
    ('··', '·')
    """
    return token_text(token, SENTENCE_TOKEN_CHARS)


class Task(NamedTuple):
    """The check's settings as the page's widgets hold them."""

    pattern_label: str  # a key of pattern_options(custom)
    custom: str  # the custom pattern ("" when none)
    vocab_size: int
    specials: str  # as typed: comma-separated


def pattern_options(custom: str) -> dict[str, str]:
    """The split patterns the page offers: label -> pattern; the sidebar's custom one too."""
    return {**PATTERNS, CUSTOM_LABEL: custom} if custom else dict(PATTERNS)


def task_from_sidebar(kind: str | None, custom_pattern: str | None, vocab_size: object,
                      specials: str | None, imported_pattern: str | None = None,
                      least: int = 256, most: int = 256 + 2_000) -> Task:
    """The check's task as the sidebar sets it: its split pattern (a preset's, an imported
    tokenizer's, or the custom one), vocabulary size (kept within ``least``..``most``) and
    special tokens (none when the sidebar has none); ties as the sidebar's trainer breaks them.

    >>> task_from_sidebar("Train: GPT-4 split", "", 512, "")
    Task(pattern_label="GPT-4 (minbpe's RegexTokenizer)", custom='', vocab_size=512, specials='')
    >>> task_from_sidebar("Pretrained: GPT-2", "", 50_000, "<|endoftext|>").vocab_size
    2256
    """
    how, pattern = KINDS.get(kind or "", ("regex", GPT4_SPLIT_PATTERN))
    if how == "regex" and pattern is None:
        pattern = custom_pattern or ""
    elif how == "preset":
        pattern = PRESET_PATTERNS.get(pattern, GPT4_SPLIT_PATTERN)
    elif how == "imported":
        pattern = imported_pattern or ""
    pattern = known_pattern(pattern)
    labels = {p: label for label, p in PATTERNS.items()}
    label = labels.get(pattern, CUSTOM_LABEL)
    try:
        size = int(vocab_size)  # type: ignore[call-overload]
    except (TypeError, ValueError):
        size = 512
    return Task(label, "" if label != CUSTOM_LABEL else pattern, min(max(size, least), most),
                specials or "")


def fingerprint(data: str | bytes | None, *more: object) -> str | None:
    """What identifies an input, to tell a new paste or upload from the one already checked."""
    if data is None:
        return None
    raw = data.encode("utf-8", "surrogatepass") if isinstance(data, str) else bytes(data)
    return hashlib.sha256(raw + repr(more).encode()).hexdigest()


def newest(inputs: dict[str, str | None], seen: dict[str, str | None],
           latest: str | None) -> str | None:
    """Which input to check: the one that changed last (a new paste or upload replaces the
    previous one), else the one last checked, else any that is there.

    >>> newest({"paste": "a", "upload": "b"}, {"paste": "a", "upload": None}, "paste")
    'upload'
    >>> newest({"paste": "a", "upload": None}, {"paste": "a", "upload": "b"}, "upload")
    'paste'
    """
    changed = [k for k, v in inputs.items() if v is not None and v != seen.get(k)]
    if changed:
        return changed[-1]
    if latest is not None and inputs.get(latest) is not None:
        return latest
    return next((k for k, v in inputs.items() if v is not None), None)


def pair_text(pair: tuple[bytes, bytes] | None) -> str:
    """A merge as two tokens: ``·t + he`` (whitespace as glyphs, like every page).

    >>> pair_text((b" t", b"he"))
    '·t + he'
    """
    if pair is None:
        return "—"
    return show_pair(pair, lambda t: token_text(t, 30))


def side_by_side(mine: Sequence, reference: Sequence, step: int | None) -> pd.DataFrame:
    """The merges around ``step`` (1-based; the end of the shorter list when None), yours beside
    the reference's, with a mark where they differ."""
    if step is None:
        step = min(len(mine), len(reference)) + 1
    first, last = max(1, step - AROUND), step + AROUND
    rows = []
    for k in range(first, last + 1):
        a = mine[k - 1] if k <= len(mine) else None
        b = reference[k - 1] if k <= len(reference) else None
        if a is None and b is None:
            break
        rows.append({"merge": k, "yours": pair_text(a), "reference": pair_text(b),
                     "same": "✔" if a == b else "✘"})
    return pd.DataFrame(rows, columns=["merge", "yours", "reference", "same"])


def step_frame(explanation: Any) -> pd.DataFrame:
    """At the first difference: your pair, the reference's, and every pair tied with it, with
    their counts in the reference's tokens at that step and which tie rule picks each."""
    picks: dict[tuple[bytes, bytes], list[str]] = {}
    for rule, pair in explanation.winners.items():
        picks.setdefault(pair, []).append(rule)
    rows, seen = [], set()
    for role, pc in (("yours", explanation.mine), ("reference", explanation.reference)):
        rows.append({"pair": pair_text(pc.pair), "count": pc.count, "who": role,
                     "the rule that picks it": ", ".join(picks.get(pc.pair, []))})
        seen.add(pc.pair)
    for pc in explanation.tied:
        if pc.pair not in seen and len(rows) < 12:
            rows.append({"pair": pair_text(pc.pair), "count": pc.count, "who": "tied",
                         "the rule that picks it": ", ".join(picks.get(pc.pair, []))})
            seen.add(pc.pair)
    return pd.DataFrame(rows, columns=["pair", "count", "who", "the rule that picks it"])


def diagnoses_frame(diagnoses: Sequence) -> pd.DataFrame:
    """The mistakes that explain some or all of the learner's merges, those that explain the
    most first: how many of the learner's merges each explains, of how many."""
    rows = [{"mistake": d.mistake.title, "here": d.detail,
             "explains your first": f"{d.explains:,} of {d.of:,}",
             "all of them": "✔" if d.explains_all else ""} for d in diagnoses]
    return pd.DataFrame(rows, columns=["mistake", "here", "explains your first", "all of them"])


def settings_call(text_name: str, vocab_size: int, specials: Sequence[str], pattern_label: str,
                  rule_label: str) -> str:
    """The task in one line a learner can copy into a notebook (the settings, not a solution).

    >>> print(settings_call("bpe-lab-text.txt", 500, ["<|endoftext|>"], "GPT-2 (CS336)",
    ...                     "greatest bytes (CS336)"))
    # split pattern: GPT-2 (CS336); ties: greatest bytes (CS336)
    train_bpe(input_path="bpe-lab-text.txt", vocab_size=500, special_tokens=['<|endoftext|>'])
    """
    return (f"# split pattern: {pattern_label}; ties: {rule_label}\n"
            f'train_bpe(input_path="{text_name}", vocab_size={vocab_size}, '
            f"special_tokens={list(specials)!r})")
