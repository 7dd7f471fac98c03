"""Tables (pandas DataFrames) built from a tokenizer."""

from __future__ import annotations

from typing import Any

import pandas as pd

from bpe_core import render_token

MERGE_COLUMNS = ["step", "id", "left", "right", "token", "bytes", "count"]


def merge_rows(tok: Any) -> list[dict[str, Any]]:
    """One row per merge, in merge order: step, id, left, right, token, bytes (hex), count.

    ``count`` (how often the pair occurred when training chose it) is None for merges that were
    not trained here: pretrained and imported tokenizers have merges but no training history.
    """
    counts = {rec.id: rec.count for rec in tok.history}
    ordered = sorted(tok.merges.items(), key=lambda item: item[1])
    return [
        {
            "step": step,
            "id": idx,
            "left": a,
            "right": b,
            "token": render_token(tok.vocab[idx]),
            "bytes": tok.vocab[idx].hex(" "),
            "count": counts.get(idx),
        }
        for step, ((a, b), idx) in enumerate(ordered, start=1)
    ]


def merges_frame(tok: Any) -> pd.DataFrame:
    """``merge_rows`` as a DataFrame (``count`` may be empty: see merge_rows)."""
    frame = pd.DataFrame(merge_rows(tok), columns=MERGE_COLUMNS)
    return frame.astype(
        {"step": "int64", "id": "int64", "left": "int64", "right": "int64", "count": "Int64"}
    )
