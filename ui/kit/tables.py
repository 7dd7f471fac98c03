"""Tables (pandas DataFrames) built from a tokenizer."""

from __future__ import annotations

from typing import Any

import pandas as pd

from ui.kit.tokens_html import _cut_utf8, token_text

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


def merge_table(tok: Any, k: int | None = None, max_bytes: int | None = MAX_CELL_BYTES
                ) -> pd.DataFrame:
    """The one table of merges every page and download starts from: the first ``k`` merges (all
    by default), in merge order, one column each: step, id, token, left id, left, right id, right,
    bytes (hex) and count. Texts are ``token_text``; with ``max_bytes`` a longer token's text and
    hex are cut there. ``count`` (how often the pair occurred when training chose it) is NA for
    merges not trained here: pretrained and imported tokenizers have no training history.

    >>> from bpe_core import BasicTokenizer
    >>> tok = BasicTokenizer(); tok.train("aaabdaaabac", 259)
    >>> merge_table(tok)[["step", "id", "token", "left id", "right id", "count"]].values.tolist()
    [[1, 256, 'aa', 97, 97, 4], [2, 257, 'aaa', 256, 97, 2], [3, 258, 'aaab', 257, 98, 2]]
    """
    vocab, parents = tok.vocab, tok.parents
    counts = {rec.id: rec.count for rec in tok.history}
    ids = list(tok.merges.values())[:k]
    lefts = [parents[i][0] for i in ids]
    rights = [parents[i][1] for i in ids]
    cells = {i: cell_bytes(vocab[i], max_bytes) for i in {*ids, *lefts, *rights}}
    texts = {i: token_text(shown) + more for i, (shown, more) in cells.items()}
    frame = pd.DataFrame({
        "step": range(1, len(ids) + 1),
        "id": ids,
        "token": [texts[i] for i in ids],
        "left id": lefts,
        "left": [texts[i] for i in lefts],
        "right id": rights,
        "right": [texts[i] for i in rights],
        "bytes": [cells[i][0].hex(" ") + (" …" if cells[i][1] else "") for i in ids],
        "count": pd.array([counts.get(i) for i in ids], dtype="Int64"),
    })
    return frame.astype({"step": "int64", "id": "int64", "left id": "int64", "right id": "int64"})


def merge_rows(tok: Any, max_bytes: int | None = None) -> list[dict[str, Any]]:
    """``merges_frame``'s rows as dicts (the CSV download: whole tokens), unknown counts None."""
    frame = merges_frame(tok, max_bytes)
    rows = frame.astype({"count": object}).to_dict("records")
    for row in rows:
        row["count"] = None if pd.isna(row["count"]) else int(row["count"])
    return rows


def merges_frame(tok: Any, max_bytes: int | None = MAX_CELL_BYTES) -> pd.DataFrame:
    """The merges page's table: step, id, the parents' ids as left and right, token, bytes, count."""
    frame = merge_table(tok, max_bytes=max_bytes)
    return frame.rename(columns={"left id": "left", "right id": "right", "left": "left text",
                                 "right": "right text"})[MERGE_COLUMNS]
