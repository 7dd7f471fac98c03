"""Tables (pandas DataFrames) built from a trained tokenizer."""

from __future__ import annotations

from typing import Any

import pandas as pd

from bpe_core import render_token

MERGE_COLUMNS = ["step", "id", "left", "right", "token", "bytes", "count"]


def merges_frame(tok: Any) -> pd.DataFrame:
    """One row per merge of a trained tokenizer, in merge order.

    Columns: ``step`` (1-based), ``id`` (the new token id), ``left``/``right`` (the ids that were
    merged), ``token`` (rendered text), ``bytes`` (hex, space separated) and ``count`` (how often
    the pair occurred when it was chosen). Uses ``tok.history``.
    """
    rows = [
        {
            "step": step,
            "id": rec.id,
            "left": rec.pair[0],
            "right": rec.pair[1],
            "token": render_token(rec.token),
            "bytes": rec.token.hex(" "),
            "count": rec.count,
        }
        for step, rec in enumerate(tok.history, start=1)
    ]
    frame = pd.DataFrame(rows, columns=MERGE_COLUMNS)
    # An empty history still gives integer columns, not object ones.
    return frame.astype(
        {"step": "int64", "id": "int64", "left": "int64", "right": "int64", "count": "int64"}
    )
