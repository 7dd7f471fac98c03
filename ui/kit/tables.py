"""Tables (pandas DataFrames) built from a tokenizer."""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence
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


TABLE_CSS = """<style>
/* projector mode's scale (--bpe-scale, ui/kit/state.py) reaches every table; "large" is the Lesson's own size */
.lesson-table { border-collapse: collapse; margin: 4px 0;
  font-size: var(--lesson-size, calc(0.95rem * var(--bpe-scale, 1))); }
.lesson-table.large { --lesson-size: calc(0.95rem * 1.6); }
.lesson-table th, .lesson-table td { border: 1px solid rgba(128,128,128,0.45); padding: 2px 10px;
  text-align: left; white-space: pre-wrap; }
.lesson-table th { font-weight: 600; }
.lesson-table td.num { text-align: right; font-variant-numeric: tabular-nums; }
.lesson-table-wrap { max-width: 100%; overflow-x: auto; }
.lesson-table-wrap:focus-visible { outline: 3px solid #0b4f9c; outline-offset: 2px; }
</style>"""


def table_html(frame: pd.DataFrame, *, large: bool = False, max_rows: int = 200,
               formats: dict[str, str] | None = None, bar: str | None = None,
               label: str | None = None,
               langs: Mapping[str, Sequence[str | None]] | None = None) -> str:
    """A small table as HTML, every cell escaped (st.table would read cells as markdown).
    ``formats``: column -> format spec of its numbers (``","``, ``".2f"``); ``bar``: a column
    of numbers drawn with a bar behind each, its length against the column's largest;
    ``langs``: column -> each row's BCP 47 tag (or None), for text in other languages: its
    cell carries ``lang`` (a screen reader reads it in that language) and ``dir="auto"``.

    >>> "&lt;b&gt;" in table_html(pd.DataFrame({"x": ["<b>"]}))
    True
    >>> ">1,234<" in table_html(pd.DataFrame({"n": [1234]}), formats={"n": ","})
    True
    >>> '<td lang="de" dir="auto">Tag</td>' in table_html(pd.DataFrame({"x": ["Tag"]}),
    ...                                                   langs={"x": ["de"]})
    True
    """
    formats, langs = formats or {}, langs or {}
    top = max((v for v in frame[bar] if v == v), default=0) if bar else 0
    head = "".join(f"<th>{html.escape(str(c))}</th>" for c in frame.columns)
    rows = []
    for row, values in enumerate(frame.head(max_rows).itertuples(index=False)):
        cells = []
        for column, v in zip(frame.columns, values):
            num = isinstance(v, int | float) and not isinstance(v, bool)
            text = ("" if v is None or (isinstance(v, float) and v != v)
                    else format(v, formats[column]) if num and column in formats else str(v))
            cls = ' class="num"' if num else ""
            if column == bar and num and text and top > 0:
                share = f"{100 * v / top:.1f}%"
                cls += (' style="min-width: 9em; background: linear-gradient(90deg, '
                        f'rgba(74,136,194,0.35) {share}, transparent {share})"')
            lang = langs[column][row] if column in langs else None
            if lang:
                cls += f' lang="{html.escape(lang)}" dir="auto"'
            cells.append(f"<td{cls}>{html.escape(text)}</td>")
        rows.append(f"<tr>{''.join(cells)}</tr>")
    size = " large" if large else ""
    # a table wider than its column (a phone) scrolls inside its own box, not the page: a box the
    # keyboard can focus to scroll it (WCAG 2.1.1), named for a screen reader by ``label`` (by
    # default its columns)
    name = html.escape(label or "Table: " + ", ".join(map(str, frame.columns)))
    return (f'{TABLE_CSS}<div class="lesson-table-wrap" role="region" tabindex="0" '
            f'aria-label="{name}"><table class="lesson-table{size}">'
            f"<thead><tr>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table></div>")
