"""The "Check your BPE" page's tables (no Streamlit here): what ``bpe_core.check`` found, as
frames a learner can read. Tokens are spelled by ``ui.tokens_html.token_text``, as on every page.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pandas as pd

from bpe_core import GPT2_SPLIT_PATTERN, GPT4_SPLIT_PATTERN, GPT4O_SPLIT_PATTERN
from ui.tokens_html import token_text

PATTERNS = {  # label -> split pattern ("" for none)
    "GPT-2 (CS336)": GPT2_SPLIT_PATTERN,
    "GPT-4 (minbpe's RegexTokenizer)": GPT4_SPLIT_PATTERN,
    "GPT-4o": GPT4O_SPLIT_PATTERN,
    "none (minbpe's BasicTokenizer)": "",
}
RULE_LABELS = {  # label -> tie_rule
    "seen first (the seeds, minbpe)": "seen",
    "greatest bytes (CS336)": "bytes",
    "smallest ids": "ids",
}
AROUND = 3  # merges shown before and after the first difference


def pair_text(pair: tuple[bytes, bytes] | None) -> str:
    """A merge as two tokens: ``·t + he`` (whitespace as glyphs, like every page).

    >>> pair_text((b" t", b"he"))
    '·t + he'
    """
    if pair is None:
        return "—"
    return f"{token_text(pair[0], 30)} + {token_text(pair[1], 30)}"


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
    """The mistakes that explain some or all of the learner's merges, most likely first."""
    rows = [{"mistake": d.mistake.title, "here": d.detail, "explains your first": d.explains,
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
