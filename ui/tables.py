"""Tables (pandas DataFrames) built from a trained tokenizer."""

from __future__ import annotations

import unicodedata
from typing import Any

import pandas as pd

MERGE_COLUMNS = ["step", "id", "left", "right", "token", "bytes", "count"]


def replace_control_characters(s: str) -> str:
    """Escape every Unicode control/format/unassigned character (category C*) as ``\\uXXXX``.

    >>> replace_control_characters("a\\nb")
    'a\\\\u000ab'
    """
    return "".join(ch if unicodedata.category(ch)[0] != "C" else f"\\u{ord(ch):04x}" for ch in s)


def render_token(token: bytes) -> str:
    """Show a token's bytes as printable text, the way minbpe does.

    Bytes that are not valid UTF-8 on their own become U+FFFD; control characters are escaped.

    >>> render_token(b"hi\\n")
    'hi\\\\u000a'
    >>> render_token(b"\\xe2\\x82")
    '�'
    """
    return replace_control_characters(token.decode("utf-8", errors="replace"))


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
