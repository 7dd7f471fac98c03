"""Tables (pandas DataFrames) built from a tokenizer."""

from __future__ import annotations

from typing import Any

import pandas as pd

from ui.tokens_html import _cut_utf8, token_text

MERGE_COLUMNS = ["step", "id", "left", "right", "token", "bytes", "count"]
# Bytes of a token shown in a table cell. Without a split pattern, merges of pairs seen once chain
# into tokens of many KB (60 000 random characters to 20 000 tokens: 240 MB of token bytes), and a
# table of all of them would be hundreds of MB for the server and the browser.
MAX_CELL_BYTES = 100
SEARCH_BYTES = 1_000  # bytes of each token that a search of the vocabulary or the merges looks in


def cell_bytes(token: bytes, limit: int | None = MAX_CELL_BYTES) -> tuple[bytes, str]:
    """The start of ``token`` for a table cell (whole characters), and what to write after it.

    >>> cell_bytes(b"abc"), cell_bytes("é".encode() * 3, 5)
    ((b'abc', ''), (b'\xc3\xa9\xc3\xa9', '… (6 bytes)'))
    """
    if limit is None or len(token) <= limit:
        return token, ""
    return _cut_utf8(token, limit), f"… ({len(token):,} bytes)"


def merge_rows(tok: Any, max_bytes: int | None = None) -> list[dict[str, Any]]:
    """One row per merge, in merge order: step, id, left, right, token, bytes (hex), count.

    ``count`` (how often the pair occurred when training chose it) is None for merges that were
    not trained here: pretrained and imported tokenizers have merges but no training history.
    With ``max_bytes``, a longer token's text and hex are cut there (for a table on a page).
    """
    counts = {rec.id: rec.count for rec in tok.history}
    ordered = sorted(tok.merges.items(), key=lambda item: item[1])
    rows = []
    for step, ((a, b), idx) in enumerate(ordered, start=1):
        shown, more = cell_bytes(tok.vocab[idx], max_bytes)
        rows.append({
            "step": step,
            "id": idx,
            "left": a,
            "right": b,
            "token": token_text(shown) + more,
            "bytes": shown.hex(" ") + (" …" if more else ""),
            "count": counts.get(idx),
        })
    return rows


def merges_frame(tok: Any) -> pd.DataFrame:
    """``merge_rows`` as a DataFrame (``count`` may be empty: see merge_rows); long tokens cut."""
    frame = pd.DataFrame(merge_rows(tok, MAX_CELL_BYTES), columns=MERGE_COLUMNS)
    return frame.astype(
        {"step": "int64", "id": "int64", "left": "int64", "right": "int64", "count": "Int64"}
    )
