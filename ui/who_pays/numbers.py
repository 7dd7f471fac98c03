"""The Numbers page's frames and charts (no Streamlit here): heatmaps of what numbers cost in
tokens, the digit groups of example numbers, and the digit rules compared.

The tables come from ``bpe_lab.who_pays.numbers``; here they become data frames and Altair charts. Text
reaches the browser only as table cells or chart data (Vega draws it as text), never as HTML.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import altair as alt
import pandas as pd

from bpe_lab.who_pays.numbers import DigitPresetRow, NumberCount, NumberSplit, tokens_needed
from ui.kit.escape import md_escape
from ui.kit.tokens_html import token_text

PIECE_SEPARATOR = "|"  # between two tokens of a number: "123|456|7"
HEATMAP_COLUMNS = ["tokenizer", "row", "column", "number", "text", "tokens", "pieces"]
CELL_PX = 7  # a heatmap cell's width: 100 columns make 700 px


def joined_pieces(pieces: Sequence[str]) -> str:
    """A number's tokens with a visible separator and visible spaces (``·``), one line of text.

    >>> joined_pieces(("123", "456", "7")), joined_pieces((" 19", "99"))
    ('123|456|7', '·19|99')
    """
    return PIECE_SEPARATOR.join(token_text(p.encode("utf-8", errors="surrogatepass"))
                                for p in pieces)


def split_text(split: NumberSplit) -> str:
    """A ``NumberSplit``'s tokens joined like ``joined_pieces`` (bytes that are not whole UTF-8
    characters as hex in ``⟨ ⟩``).

    >>> split_text(NumberSplit("1,0", (16, 11, 15), (b"1", b",", b"0")))
    '1|,|0'
    """
    return PIECE_SEPARATOR.join(token_text(b) for b in split.token_bytes)


# -- heatmaps -------------------------------------------------------------------------------------


def numbers_heatmap_frame(counts: Mapping[str, Sequence[NumberCount]]) -> pd.DataFrame:
    """One row per (tokenizer, number): its heatmap cell (``row``: the number without its last
    two digits, ``column``: its last two digits), its tokens and pieces.

    >>> frame = numbers_heatmap_frame({"t": [NumberCount(1905, "1905", 2, ("19", "05"))]})
    >>> frame[["row", "column", "tokens", "pieces"]].values.tolist()
    [['19', '05', 2, '19|05']]
    """
    rows = [
        {"tokenizer": label, "row": str(c.number // 100), "column": f"{c.number % 100:02d}",
         "number": c.number, "text": c.text, "tokens": c.tokens, "pieces": joined_pieces(c.pieces)}
        for label, table in counts.items()
        for c in table
    ]
    return pd.DataFrame(rows, columns=HEATMAP_COLUMNS).astype({"number": "int64",
                                                               "tokens": "int64"})


def numbers_heatmap(frame: pd.DataFrame, *, row_title: str = "hundreds") -> alt.FacetChart:
    """A heatmap per tokenizer, one under the other: rows are the hundreds (or the century),
    columns the last two digits, the colour the number of tokens (the same scale for all);
    hovering a cell shows the number and its pieces."""
    labels = list(dict.fromkeys(frame["tokenizer"]))
    rows = sorted(set(frame["row"]), key=int)
    most = int(frame["tokens"].max()) if len(frame) else 1
    base = alt.Chart(frame).mark_rect(stroke="white", strokeWidth=0.3).encode(
        x=alt.X("column:O", title="last two digits",
                axis=alt.Axis(values=[f"{n:02d}" for n in range(0, 100, 10)], labelAngle=0)),
        y=alt.Y("row:O", title=row_title, sort=rows),
        color=alt.Color("tokens:O", title="tokens",
                        scale=alt.Scale(domain=list(range(1, most + 1)), scheme="viridis",
                                        reverse=True)),
        tooltip=[alt.Tooltip("text:N", title="number"), alt.Tooltip("tokens:Q"),
                 alt.Tooltip("pieces:N")],
    ).properties(width=100 * CELL_PX, height=max(40, 18 * len(rows)))
    return base.facet(
        facet=alt.Facet("tokenizer:N", sort=labels, title=None,
                        header=alt.Header(labelAnchor="start", labelFontSize=13,
                                          labelFontWeight="bold")),
        columns=1,
    )


def _amount(n: int) -> str:
    return "one token" if n == 1 else f"{n} tokens"


def numbers_sentence(
    label: str, counts: Sequence[NumberCount], noun: str = "numbers", written: str = ""
) -> str:
    """What to notice about one tokenizer's counts, as Markdown (``label`` must already be safe
    for Markdown; the pieces are escaped here). ``written`` follows the range: " with a space".

    >>> one = [NumberCount(n, str(n), 1, (str(n),)) for n in range(3)]
    >>> numbers_sentence("GPT-4", one)
    'GPT-4 writes every one of the numbers 0–2 as one token.'
    >>> two = [NumberCount(9, "9", 1, ("9",)), NumberCount(10, "10", 2, ("1", "0")),
    ...        NumberCount(11, "11", 2, ("1", "1"))]
    >>> numbers_sentence("T", two)
    'T writes 1 of the 3 numbers 9–11 as one token and needs 2 tokens for 2 of them (the first: 10 → 1\\\\|0, while 9 is one token).'
    """
    if not counts:
        return f"{label} has no {noun} to show."
    span = f"{noun} {counts[0].number}–{counts[-1].number}{written}"
    needed = tokens_needed(counts)
    if len(needed) == 1:
        return f"{label} writes every one of the {span} as {_amount(next(iter(needed)))}."
    (fewest, n_fewest), *others = needed.items()
    parts = [f"{_amount(k)} for {n:,} of them" for k, n in others]
    most = max(needed)
    at = next(i for i, c in enumerate(counts) if c.tokens == most)
    first = counts[at]
    example = f"{md_escape(first.text.strip())} → {md_escape(joined_pieces(first.pieces))}"
    if at > 0:  # its neighbour just before costs less
        before = counts[at - 1]
        example += f", while {md_escape(before.text.strip())} is {_amount(before.tokens)}"
    return (f"{label} writes {n_fewest:,} of the {len(counts):,} {span} as {_amount(fewest)} "
            f"and needs {', '.join(parts)} (the first: {example}).")


# -- digit groups ---------------------------------------------------------------------------------


def digit_groups_frame(splits: Mapping[str, Sequence[NumberSplit]]) -> pd.DataFrame:
    """One row per number, one column per tokenizer: its tokens as ``123|456|7``.

    >>> a = [NumberSplit("1234", (1, 2), (b"123", b"4"))]
    >>> b = [NumberSplit("1234", (1, 2), (b"12", b"34"))]
    >>> digit_groups_frame({"A": a, "B": b}).values.tolist()
    [['1234', '123|4', '12|34']]
    """
    texts = list(dict.fromkeys(s.text for table in splits.values() for s in table))
    columns: dict[str, list[str]] = {"number": texts}
    for label, table in splits.items():
        by_text = {s.text: split_text(s) for s in table}
        columns[label] = [by_text.get(t, "") for t in texts]
    return pd.DataFrame(columns, columns=["number", *splits])


# -- the digit rules compared ---------------------------------------------------------------------


def digit_presets_frame(rows: Sequence[DigitPresetRow], rules: Mapping[str, str]) -> pd.DataFrame:
    """One row per trained digit rule: its rule, what 0-999, the years and the text cost, and
    the pieces of each example number (a column each)."""
    records = []
    for r in rows:
        record = {"digit rule": r.preset, "pattern part": rules.get(r.preset, ""),
                  "merges": r.merges, "tokens for 0–999": r.tokens_0_999,
                  "tokens for 1900–2099": r.tokens_years, "tokens on the text": r.text_tokens,
                  "bytes/token": round(r.text_bytes / r.text_tokens, 2) if r.text_tokens else None}
        for split in r.examples:
            record[split.text] = split_text(split)
        records.append(record)
    return pd.DataFrame(records)
