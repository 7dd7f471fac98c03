"""The Variants page's data (no Streamlit here): the classic trainer against its variants on one
text (where they part, and why), and one vocabulary used by other encoders.

A variant is a name and the ``Tokenizer.train`` options that make it (``ui.kit.choices.train_tokenizer``
takes them as ``variant``). The classic is the seeds' rule: ties go to the pair seen first.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NamedTuple

import pandas as pd

from ui.kit.tokens_html import token_text

CLASSIC = "classic (ties: seen first)"
TIE_VARIANTS = {
    "ties: greatest bytes (CS336)": {"tie_rule": "bytes"},
    "ties: smallest ids": {"tie_rule": "ids"},
}
RULE_WORDS = {
    "seen": "the pair that occurs first in the text",
    "bytes": "the lexicographically greatest pair of token bytes",
    "ids": "the pair with the smallest ids",
}
MAX_CANDIDATES_SHOWN = 6
AS_TEXT = "special tokens as text, added after (minbpe)"


def variant_set(
    ties: bool, min_frequency: int | None, max_token_bytes: int | None, specials_as_text: bool
) -> dict[str, dict]:
    """The variants a user picked, by name, with their training options.

    >>> list(variant_set(True, 3, None, False))
    ['ties: greatest bytes (CS336)', 'ties: smallest ids', 'min_frequency=3']
    """
    chosen: dict[str, dict] = dict(TIE_VARIANTS) if ties else {}
    if min_frequency:
        chosen[f"min_frequency={min_frequency}"] = {"min_frequency": min_frequency}
    if max_token_bytes:
        chosen[f"max_token_bytes={max_token_bytes}"] = {"max_token_bytes": max_token_bytes}
    if specials_as_text:
        chosen[AS_TEXT] = {"specials_as_text": True}
    return chosen


def merged_tokens(tok: Any) -> list[bytes]:
    """The tokens a tokenizer's merges made, in merge order."""
    return [tok.vocab[idx] for idx in tok.merges.values()]


class Parting(NamedTuple):
    """Where a variant parts from the classic: the first merge step that differs (1-based)."""

    step: int | None  # None: no step differs (one may still have more merges)
    classic: Any  # the classic's MergeRecord at that step (None if it had stopped)
    variant: Any  # the variant's MergeRecord at that step (None if it had stopped)
    same_steps: int  # steps where both made the same token
    only_variant: int  # tokens the variant made that the classic never makes
    reason: str  # why, in words


def _pair_text(tok: Any, pair: tuple[int, int]) -> str:
    a, b = pair
    return f"{token_text(tok.vocab[a], 24)} + {token_text(tok.vocab[b], 24)}"


def part_ways(classic: Any, variant: Any, options: Mapping[str, Any]) -> Parting:
    """Compare a variant with the classic, merge by merge, and say why they first differ."""
    ours, theirs = merged_tokens(classic), merged_tokens(variant)
    same = sum(a == b for a, b in zip(ours, theirs))
    only = len(set(theirs) - set(ours))
    step = next((k for k, (a, b) in enumerate(zip(ours, theirs), 1) if a != b), None)
    if step is None:
        if len(ours) == len(theirs):
            return Parting(None, None, None, same, only, "Every merge is the same.")
        shorter = "variant" if len(theirs) < len(ours) else "classic"
        stopped = variant if shorter == "variant" else classic
        reason = (f"The same merges while both run; the {shorter} stops after "
                  f"{min(len(ours), len(theirs)):,}: {stopped.stop_reason or 'vocabulary full'}.")
        return Parting(None, None, None, same, only, reason)
    mine, other = classic.history[step - 1], variant.history[step - 1]
    return Parting(step, mine, other, same, only, _why(classic, mine, other, options))


def _why(classic: Any, mine: Any, other: Any, options: Mapping[str, Any]) -> str:
    """Why the variant chose another pair than the classic at the same step."""
    ours, theirs = _pair_text(classic, mine.pair), f"{token_text(other.token, 24)}"
    rule = options.get("tie_rule")
    if rule and mine.count == other.count:
        return (f"A tie: several pairs occur {mine.count:,} times. The classic takes "
                f"{RULE_WORDS['seen']} ({ours}); this variant takes {RULE_WORDS[rule]} "
                f"(making {theirs}).")
    limit = options.get("max_token_bytes")
    if limit and len(mine.token) > limit:
        return (f"The classic's pair ({ours}) would make a token of {len(mine.token)} bytes, more "
                f"than max_token_bytes={limit}: the variant skips it and makes {theirs}.")
    if options.get("specials_as_text"):
        return (f"The classic cuts the text at the special tokens before counting; this variant "
                f"counts their text too, so the counts differ: the classic merges {ours} "
                f"({mine.count:,} times in the cut text), the variant makes {theirs} "
                f"({other.count:,} times).")
    return (f"The classic merges {ours} ({mine.count:,} times); the variant makes {theirs} "
            f"({other.count:,} times).")


def stop_note(classic: Any, variant: Any) -> str | None:
    """Why a variant made fewer merges than the classic, when it did."""
    if variant.num_merges < classic.num_merges and variant.stop_reason:
        return f"stopped early: {variant.stop_reason}"
    return None


def variants_frame(classic: Any, variants: Mapping[str, tuple[Any, Parting]]) -> pd.DataFrame:
    """One row per variant: merges, first step that differs, same steps, tokens of its own."""
    rows = [{"variant": CLASSIC, "merges": classic.num_merges, "parts at merge": None,
             "same merge, same step": classic.num_merges, "tokens the classic lacks": 0}]
    for name, (tok, parting) in variants.items():
        rows.append({"variant": name, "merges": tok.num_merges, "parts at merge": parting.step,
                     "same merge, same step": parting.same_steps,
                     "tokens the classic lacks": parting.only_variant})
    return pd.DataFrame(rows).astype({"parts at merge": "Int64"})


def candidates_frame(tok: Any, classic: Any, variant: Any) -> pd.DataFrame:
    """The best pairs at the step where a variant parts (as the classic's training kept them),
    with their counts, the classic's pick and the variant's."""
    rows = []
    for c in classic.candidates[:MAX_CANDIDATES_SHOWN]:
        a, b = c.pair
        token = tok.vocab[a] + tok.vocab[b]
        rows.append({"pair": _pair_text(tok, c.pair), "count": c.count,
                     "classic": "✔" if c.pair == classic.pair else "",
                     "variant": "✔" if variant is not None and token == variant.token else ""})
    return pd.DataFrame(rows, columns=["pair", "count", "classic", "variant"])


# -- one vocabulary, several encoders -----------------------------------------------------------


ENCODER_NAMES = {"bpe": "BPE", "greedy": "greedy longest match", "fewest": "fewest tokens"}


def encoders_frame(counts: Mapping[str, int], num_bytes: int) -> pd.DataFrame:
    """Tokens and bytes per token for each encoder of one vocabulary, BPE first.

    >>> encoders_frame({"BPE": 4, "greedy": 5}, 20)["bytes/token"].tolist()
    [5.0, 4.0]
    """
    bpe = counts.get("BPE")
    rows = [{"encoder": name, "tokens": n,
             "bytes/token": round(num_bytes / n, 2) if n else None,
             "vs BPE": f"{(n - bpe) / bpe:+.1%}" if bpe else ""}
            for name, n in counts.items()]
    return pd.DataFrame(rows)
