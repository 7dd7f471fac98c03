"""The Report card page's tables, chart and summary (no Streamlit here): ``bpe_lab.who_pays.report``'s rows
as frames for ``st.dataframe`` and grouped bars for ``st.altair_chart``.

A mark reads without colour: "▲ better", "▼ worse", "= same", with the relative difference in
bytes per token beside it.
"""

from __future__ import annotations

from collections.abc import Mapping

import altair as alt
import pandas as pd

from bpe_lab.who_pays.report import (
    CategoryComparison,
    CategoryScore,
    EncodeSpeed,
    TextOverlap,
    duration_words,
)
from ui.kit.charts import SERIES_COLOURS

YOURS = "yours"  # the column of the sidebar's tokenizer
# the reference tokenizers: a short name for the columns -> the preset (bpe_core.PRESETS)
REPORT_REFERENCES = {"GPT-2": "gpt2", "GPT-4": "cl100k_base", "GPT-4o": "o200k_base"}
MARK_SYMBOLS = {"better": "▲ better", "worse": "▼ worse", "same": "= same"}


def mark_text(row: CategoryComparison) -> str:
    """A comparison as a table cell: the mark in words and the difference in percent.

    >>> from bpe_lab.who_pays.report import CategoryComparison
    >>> mark_text(CategoryComparison("code", "GPT-4", 4.4, 4.0, 10.0, "better"))
    '▲ better (+10.0%)'
    """
    return f"{MARK_SYMBOLS[row.mark]} ({row.percent:+.1f}%)"


def card_frame(
    yours: list[CategoryScore],
    references: Mapping[str, list[CategoryScore]],
    comparisons: Mapping[str, list[CategoryComparison]],
) -> pd.DataFrame:
    """The report card: one row per category; bytes per token of your tokenizer and of each
    reference, then your tokenizer against each reference ("vs GPT-4": "▲ better (+3.2%)")."""
    rows = []
    for i, score in enumerate(yours):
        row = {"category": score.category, YOURS: round(score.bytes_per_token, 2)}
        for name, scores in references.items():
            row[name] = round(scores[i].bytes_per_token, 2)
        for name, compared in comparisons.items():
            row[f"vs {name}"] = mark_text(compared[i])
        rows.append(row)
    return pd.DataFrame(rows)


def card_chart(scores: Mapping[str, list[CategoryScore]]) -> alt.Chart:
    """Grouped bars: bytes per token for each category (groups), one bar per tokenizer, in the
    order given (yours first), with colour-blind-safe colours and the value in the tooltip."""
    names = list(scores)
    frame = pd.DataFrame(
        [(score.category, name, round(score.bytes_per_token, 2))
         for name, rows in scores.items() for score in rows],
        columns=["category", "tokenizer", "bytes/token"],
    )
    categories = list(dict.fromkeys(frame["category"]))
    colour = alt.Color("tokenizer:N", title=None, sort=names,
                       scale=alt.Scale(domain=names, range=SERIES_COLOURS[: len(names)]),
                       legend=alt.Legend(orient="bottom", labelLimit=0))
    return (
        alt.Chart(frame)
        .mark_bar()
        .encode(
            x=alt.X("category:N", sort=categories, title=None, axis=alt.Axis(labelAngle=0)),
            xOffset=alt.XOffset("tokenizer:N", sort=names),
            y=alt.Y("bytes/token:Q", title="bytes per token (higher: fewer tokens)"),
            color=colour,
            tooltip=["category", "tokenizer", alt.Tooltip("bytes/token:Q", format=".2f")],
        )
        .properties(height=320)
    )


def _joined(words: list[str]) -> str:
    """ "a", "a and b", "a, b and c"."""
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]


def card_summary(comparisons: Mapping[str, list[CategoryComparison]]) -> str:
    """The card in sentences, one per reference: where your tokenizer packs more bytes per
    token (better), fewer (worse), or about as many (same).

    >>> from bpe_lab.who_pays.report import CategoryComparison as C
    >>> card_summary({"GPT-2": [C("prose", "GPT-2", 4.4, 4.0, 10.0, "better"),
    ...                         C("code", "GPT-2", 2.0, 4.0, -50.0, "worse"),
    ...                         C("math", "GPT-2", 2.0, 2.0, 0.0, "same")]})
    'Against GPT-2: better on prose; worse on code; the same on math.'
    """
    sentences = []
    for name, rows in comparisons.items():
        parts = []
        for mark, words in (("better", "better on"), ("worse", "worse on"),
                            ("same", "the same on")):
            categories = [row.category for row in rows if row.mark == mark]
            if categories and len(categories) == len(rows):
                parts.append(f"{words} every category")
            elif categories:
                parts.append(f"{words} {_joined(categories)}")
        if parts:
            sentences.append(f"Against {name}: " + "; ".join(parts) + ".")
    return " ".join(sentences)


def speed_frame(speeds: Mapping[str, EncodeSpeed]) -> pd.DataFrame:
    """One row per tokenizer: MB/s of ``encode_ordinary`` and the time a terabyte would take.

    >>> from bpe_lab.who_pays.report import EncodeSpeed
    >>> speed_frame({"yours": EncodeSpeed(3_000_000, 3, 2.0)}).to_dict("records")
    [{'tokenizer': 'yours', 'MB/s': 1.5, 'time for 1 TB': '7.7 days'}]
    """
    rows = [{"tokenizer": name, "MB/s": round(speed.megabytes_per_second, 2),
             "time for 1 TB": duration_words(speed.terabyte_seconds)}
            for name, speed in speeds.items()]
    return pd.DataFrame(rows, columns=["tokenizer", "MB/s", "time for 1 TB"])


def overlap_note(overlaps: list[TextOverlap]) -> str | None:
    """What to say when the tokenizer was trained on text that contains report texts (None when
    it was not): a tokenizer compresses the text it was trained on better than new text.

    >>> from bpe_lab.who_pays.report import TextOverlap
    >>> print(overlap_note([TextOverlap("prose", 3, 30), TextOverlap("code", 0, 40)]))
    Your tokenizer was trained on text that contains 3 of the 30 long lines of prose. Compression on the text a tokenizer learned from flatters it: read that row with care.
    """
    found = [o for o in overlaps if o.lines_found]
    if not found:
        return None
    counts = [f"{o.lines_found} of the {o.lines_checked} long lines of {o.category}" for o in found]
    rows = "that row" if len(found) == 1 else "those rows"
    return (f"Your tokenizer was trained on text that contains {_joined(counts)}. Compression on "
            f"the text a tokenizer learned from flatters it: read {rows} with care.")
