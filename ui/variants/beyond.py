"""The Superwords and fair merges page's data (no Streamlit here): SuperBPE or BoundlessBPE and
classical BPE on one text, parity-aware and classical BPE on the parallel texts, as tables and drawable tokens.

    >>> from bpe_core.superbpe import train_superbpe
    >>> tok = train_superbpe("a b a b", 259, transition=1)
    >>> [(p.token, p.new) for p in superword_pieces(tok, tok.encode("a b a b"))]
    [(b'a b ', True), (b'a b', True)]
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pandas as pd

from bpe_core.superbpe import is_superword
from ui.kit.special_rule import encode_by_rule
from ui.kit.tokens_html import Piece

CLASSICAL = "classical BPE"
SUPERBPE = "SuperBPE"
BOUNDLESS = "BoundlessBPE"
PARITY = "parity-aware BPE"
MAX_VIEW_BYTES = 1_200  # the stretch of text whose tokens are drawn side by side
CHECKPOINTS = 6  # rows of the compression table besides the transition


def superword_set(tok: Any) -> set[int]:
    """The ids of a tokenizer's superword tokens: the ones it names (a SuperBPE or BoundlessBPE
    tokenizer: ``superword_ids``), else the tokens that span a word boundary (``is_superword``)."""
    if hasattr(tok, "superword_ids"):
        return set(tok.superword_ids())
    return {i for i in tok.merges.values() if is_superword(tok.vocab[i])}


def superword_pieces(tok: Any, ids: Sequence[int]) -> list[Piece]:
    """Ids as drawable tokens; a superword token (one that spans a word boundary) is outlined."""
    vocab = tok.vocab
    supers = superword_set(tok)
    return [Piece(i, vocab[i], i in supers) for i in ids]


def view_text(text: str, limit: int = MAX_VIEW_BYTES) -> str:
    """The start of ``text`` whose tokens are drawn: about ``limit`` bytes, whole lines when a
    line ends near there.

    >>> view_text("ab\\ncd\\nef", 5)
    'ab\\ncd'
    """
    if len(text.encode("utf-8", "replace")) <= limit:
        return text
    cut = text.encode("utf-8", "replace")[:limit].decode("utf-8", "ignore")
    line_end = cut.rfind("\n")
    return cut[:line_end] if line_end > len(cut) // 2 else cut


def superbpe_frame(text: str, classical: Any, superbpe: Any, label: str = SUPERBPE,
                   allowed_special: str = "none") -> pd.DataFrame:
    """One row each (``label``: the superword tokenizer's name): merges, tokens of the text, tokens
    per byte, superword tokens in the vocabulary and among the text's tokens; special-token text
    read by ``allowed_special`` ("none": as text; "all": as the special token; the page passes the
    sidebar's rule)."""
    num_bytes = len(text.encode("utf-8", "replace"))
    rows = []
    for name, tok in ((CLASSICAL, classical), (label, superbpe)):
        ids = encode_by_rule(tok, text, allowed_special)
        supers = superword_set(tok)
        rows.append({
            "tokenizer": name,
            "merges": tok.num_merges,
            "tokens": len(ids),
            "tokens per byte": len(ids) / num_bytes if num_bytes else 0.0,
            "superword tokens in the vocabulary": len(supers),
            "superword tokens in the text": sum(i in supers for i in ids),
        })
    return pd.DataFrame(rows)


def gain_words(frame: pd.DataFrame) -> str:
    """The saving in a sentence: the superword tokenizer's tokens (the second row) against
    classical BPE's."""
    name = frame["tokenizer"].iloc[1]
    classical, superbpe = (int(frame.loc[frame["tokenizer"] == n, "tokens"].iloc[0])
                           for n in (CLASSICAL, name))
    if not classical:
        return "The text has no tokens."
    change = 1 - superbpe / classical
    more_or_fewer = "fewer" if change >= 0 else "more"
    return (f"{name} encodes this text with {superbpe:,} tokens against classical BPE's"
            f" {classical:,}: {abs(change):.1%} {more_or_fewer}.")


def compression_frame(counts: dict[str, Sequence[int]], num_bytes: int, transition: int,
                      ) -> pd.DataFrame:
    """The compression curves as a table (the chart's text alternative): tokens and bytes per
    token of each tokenizer after evenly spaced numbers of merges, and at the transition.

    >>> compression_frame({"a": [10, 8, 5], "b": [10, 7, 4]}, 20, 1)["merges"].tolist()
    [0, 1, 2]
    """
    longest = max(len(c) for c in counts.values()) - 1
    steps = sorted({*(round(longest * k / CHECKPOINTS) for k in range(CHECKPOINTS + 1)),
                    min(transition, longest)})
    rows = []
    for k in steps:
        row: dict[str, Any] = {"merges": k, "stage": "two" if k > transition else "one"}
        for name, c in counts.items():
            tokens = c[min(k, len(c) - 1)]
            row[f"{name}: tokens"] = tokens
            row[f"{name}: bytes per token"] = num_bytes / tokens if tokens else 0.0
        rows.append(row)
    return pd.DataFrame(rows)


def stage_two_words(tok: Any) -> str:
    """Where stage two begins, in a sentence; and, when stage one ran out of pairs before the
    transition asked for, that this is not SuperBPE at that transition.

    >>> from bpe_core.superbpe import train_superbpe
    >>> print(stage_two_words(train_superbpe("the cat the cat", 300, transition=20)))
    Stage one ran out of pairs after 6 merges, before the transition asked for (20): stage two began early, so these numbers are not SuperBPE's at that transition (the text is too small for it). Stage one made merges 1 to 6 inside the split pattern's pieces; stage two made the other 3 (merge 7 on) across spaces and single punctuation marks, within a line, at most 4 words a token and never ": " (the authors' rules). The vertical rule marks the transition.
    """
    stage_two = tok.num_merges - tok.transition
    early = ""
    if tok.ran_out_early:
        early = (f"Stage one ran out of pairs after {tok.transition:,} merges, before the"
                 f" transition asked for ({tok.asked_transition:,}): stage two began early, so"
                 " these numbers are not SuperBPE's at that transition (the text is too small"
                 " for it). ")
    rules = (" across spaces and single punctuation marks, within a line, at most 4 words a"
             ' token and never ": " (the authors\' rules)' if tok.stage_two == "authors" else
             " across spaces, line breaks and single punctuation marks")
    return (f"{early}Stage one made merges 1 to {tok.transition:,} inside the split pattern's"
            f" pieces; stage two made the other {stage_two:,} (merge {tok.transition + 1:,} on)"
            f"{rules}. The vertical rule marks the transition.")


def step_name(tok: Any) -> str:
    """What the sidebar calls a SuperBPE or BoundlessBPE tokenizer sent to Step through merges.

    >>> from bpe_core.superbpe import train_superbpe
    >>> step_name(train_superbpe("a b a b", 259, transition=1))
    'SuperBPE of the Superwords page (stage two from merge 2)'
    >>> from bpe_core.boundless import train_boundless
    >>> step_name(train_boundless("ab ab ab ab cd", 260))
    'BoundlessBPE of the Superwords page (phase two from merge 4)'
    """
    return (f"{tok.variant_title} of the Superwords page ({tok.part} two from merge"
            f" {tok.transition + 1:,})")


# Parity-aware BPE's variants (Foroutan et al.'s code): the plain one, the hybrid (the first half
# of the merges classical) and the moving window (100 merges, alpha 2: the authors' defaults).
PARITY_KINDS = {
    "every merge fair": (0.0, 0),
    "hybrid: first half classical": (0.5, 0),
    "moving window of 100": (0.0, 100),
}
PARITY_KINDS_HELP = (
    "The authors' variants. Hybrid: the first half of the merges count all languages together, "
    "as classical BPE, and only the rest go to the worst-off language (it keeps more of "
    "classical BPE's compression). Moving window: a language served more than 2 × 100 ÷ 33 of "
    "the last 100 merges waits for the others.")


def parity_settings(kind: str, num_merges: int) -> tuple[int, int]:
    """(global merges, window) of a choice in ``PARITY_KINDS`` for ``num_merges`` merges.

    >>> parity_settings("hybrid: first half classical", 768), parity_settings("nonsense", 768)
    ((384, 0), (0, 0))
    """
    share, window = PARITY_KINDS.get(kind, (0.0, 0))
    return int(num_merges * share), window


def phase_two_words(tok: Any) -> str:
    """Where BoundlessBPE's supermerges begin, in a sentence; and, when phase one ran out of
    pairs before the merges asked for, that the vocabulary stopped short, as the authors' code
    stops."""
    supers = tok.num_merges - tok.transition
    early = ""
    if tok.ran_out_early:
        early = (f"Phase one ran out of pairs after {tok.phase_one_merges:,} of the"
                 f" {tok.asked_merges:,} merges asked for (the text is too small for this"
                 " vocabulary): "
                 + ("as the authors' code does, phase two stopped at phase one's size or"
                    f" when no superword was left, so the tokenizer has {tok.num_merges:,}"
                    " merges, not the size asked for. " if tok.stopping == "authors" else
                    "supermerges filled the rest (this project's rule, not the authors'). "))
    return (f"{early}Phase one learned {tok.phase_one_merges:,} merges inside the split"
            f" pattern's pieces; phase two kept the first {tok.transition:,} (the transition it"
            " found by itself: each later one occurred less often than a superword) and made"
            f" {supers:,} supermerges (merge {tok.transition + 1:,} on), each joining whole"
            " words. The vertical rule marks the transition.")


def parity_frame(result: Any) -> pd.DataFrame:
    """The language tax of the held-out sentences, before (classical) and after (parity-aware):
    one row per language."""
    return pd.DataFrame([{
        "language": r.language,
        "script": r.script,
        f"{CLASSICAL}: tokens": r.classical_tokens,
        f"{PARITY}: tokens": r.parity_tokens,
        f"{CLASSICAL}: × English": r.classical_relative,
        f"{PARITY}: × English": r.parity_relative,
        "merges chosen for it": r.merges_served,
    } for r in result.rows])


def parity_summary(result: Any) -> pd.DataFrame:
    """Gini coefficient of the languages' token counts and all tokens together, both ways."""
    return pd.DataFrame([
        {"tokenizer": CLASSICAL, "Gini over languages": result.classical_gini,
         "tokens, all languages": result.classical_total},
        {"tokenizer": PARITY, "Gini over languages": result.parity_gini,
         "tokens, all languages": result.parity_total},
    ])


def parity_words(result: Any) -> str:
    before, after = result.classical_gini, result.parity_gini
    drop = 1 - after / before if before else 0.0
    change = result.compression_change
    return (f"The Gini coefficient of the languages' token counts falls from {before:.3f} to"
            f" {after:.3f} ({drop:.0%} lower); all languages together need {abs(change):.1%}"
            f" {'more' if change >= 0 else 'fewer'} tokens than with classical BPE.")

