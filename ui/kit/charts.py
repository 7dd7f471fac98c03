"""Altair chart builders: pure functions that take plain data and return a chart (or its spec).

Charts carry at most ``MAX_POINTS`` rows of data, whatever the number of merges (GPT-4o has
199 742), so a message to the browser stays small.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

import altair as alt
import pandas as pd

from ui.kit.projector import PROJECTOR_SCALE

MAX_POINTS = 2_000
# Okabe-Ito: distinguishable under the common colour-vision deficiencies
SERIES_COLOURS = ["#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00"]
MARKER_COLOUR = "#444444"
METRICS = ("tokens", "compression ratio")
CHART_TEXT_PX = 12  # Streamlit 1.67's chart theme: axis labels and titles, legends


def chart_config(large: bool) -> dict:
    """The Vega-Lite ``config`` of every chart's text: Streamlit's theme as it is ({}), or in
    projector mode (``large``) every axis, legend, title and text mark ``PROJECTOR_SCALE`` times
    the theme's size. SVG either way: text the page can read (and a test can measure)."""
    if not large:
        return {}
    px = round(CHART_TEXT_PX * PROJECTOR_SCALE, 1)
    return {
        "axis": {"labelFontSize": px, "titleFontSize": px, "labelLimit": 0},
        "legend": {"labelFontSize": px, "titleFontSize": px, "labelLimit": 0},
        "header": {"labelFontSize": px, "titleFontSize": px},
        "title": {"fontSize": round(px * 14 / 12, 1)},
        "text": {"fontSize": px},
    }


SVG = {"embedOptions": {"renderer": "svg"}}


def sized(chart, large: bool):
    """An Altair chart with ``chart_config(large)``, drawn as SVG."""
    config = chart_config(large)
    for part, values in config.items():
        chart = getattr(chart, f"configure_{part}")(**values)
    return chart.properties(usermeta=SVG)


def sized_spec(spec: dict, large: bool) -> dict:
    """A Vega-Lite dict (``steps_spec``'s: no config of its own) with ``chart_config(large)``
    as its config, drawn as SVG (in place, so a kept template follows the switch; returned)."""
    spec["config"] = chart_config(large)
    spec["usermeta"] = SVG
    return spec


class Series(NamedTuple):
    """One text's token counts after each number of merges (``counts[k]`` at step k)."""

    name: str
    counts: Sequence[int]
    num_bytes: int


def downsample_indices(n: int, cap: int, keep: Sequence[int] = ()) -> list[int]:
    """At most ``cap`` indices of ``range(n)``, evenly spread, always with the first and last
    and every index in ``keep`` (so that a marker sits on the line).

    >>> downsample_indices(10, 4)
    [0, 3, 6, 9]
    >>> downsample_indices(3, 100)
    [0, 1, 2]
    """
    if n <= 0:
        return []
    if cap < 2 + len(keep):
        raise ValueError(f"cap must leave room for the first, last and kept points, not {cap}")
    kept = {i for i in keep if 0 <= i < n}
    if n <= cap:
        return list(range(n))
    slots = cap - len(kept - {0, n - 1})  # evenly spread points, first and last included
    spread = {round(j * (n - 1) / (slots - 1)) for j in range(slots)}
    return sorted(spread | kept)


def _value(series: Series, k: int, metric: str) -> float | None:
    tokens = series.counts[k]
    if metric == "tokens":
        return float(tokens)
    return series.num_bytes / tokens if tokens else None


def steps_data(
    series: Sequence[Series], k: int, *, metric: str = "tokens", max_points: int = MAX_POINTS
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The rows of the steps chart: ``(lines, marker)``, both with columns merges, value, text.

    The lines share at most ``max_points`` rows between them; each keeps its first and last
    point and the point at ``k``. ``marker`` has one row per series, at step ``k``.
    """
    if metric not in METRICS:
        raise ValueError(f"metric must be 'tokens' or 'compression ratio', not {metric!r}")
    if not series:
        raise ValueError("a chart needs at least one series")
    n = len(series[0].counts)
    if any(len(s.counts) != n for s in series):
        raise ValueError("every series needs a count for each step 0..N")
    if not 0 <= k < n:
        raise ValueError(f"step must be from 0 to {n - 1}, not {k}")
    steps = downsample_indices(n, max_points // len(series), keep=[k])
    columns = ["merges", "value", "text"]
    lines = pd.DataFrame(
        [(i, _value(s, i, metric), s.name) for s in series for i in steps], columns=columns
    )
    marker = pd.DataFrame([(k, _value(s, k, metric), s.name) for s in series], columns=columns)
    return lines, marker


def _layers(names: Sequence[str], metric: str, n: int, lines: object, marker: object):
    """The chart's three layers over ``lines`` and ``marker`` (DataFrames or named data)."""
    title = metric  # "tokens" or "compression ratio" (bytes per token)
    colour = alt.Color(
        "text:N",
        title=None,
        sort=list(names),
        scale=alt.Scale(domain=list(names), range=SERIES_COLOURS[: len(names)]),
        legend=alt.Legend(orient="bottom", direction="vertical", labelLimit=400),
    )
    x = alt.X("merges:Q", title="merges applied (k)", scale=alt.Scale(domain=[0, max(n - 1, 1)]))
    y = alt.Y("value:Q", title=title, scale=alt.Scale(zero=metric == "tokens"))
    tooltip = [
        alt.Tooltip("text:N", title="text"),
        alt.Tooltip("merges:Q", title="merges", format=","),
        alt.Tooltip("value:Q", title=title, format="," if metric == "tokens" else ",.2f"),
    ]
    line_layer = alt.Chart(lines).mark_line().encode(x=x, y=y, color=colour, tooltip=tooltip)
    rule = alt.Chart(marker).mark_rule(color=MARKER_COLOUR, strokeDash=[4, 3]).encode(x=x)
    dots = (
        alt.Chart(marker)
        .mark_point(filled=True, size=80, opacity=1)
        .encode(x=x, y=y, color=colour, tooltip=tooltip)
    )
    return alt.layer(line_layer, rule, dots).properties(height=320)


def steps_chart(
    series: Sequence[Series], k: int, *, metric: str = "tokens", max_points: int = MAX_POINTS,
    large: bool = False,
) -> alt.LayerChart:
    """Tokens (or compression ratio, bytes per token) against merges, one line per text, with a
    vertical rule and a dot on every line at step ``k``; the data is ``steps_data``'s. The one
    chart of this kind: Step through draws it (as ``steps_spec``), and so does the lesson
    (``large`` for projector mode: bigger labels)."""
    lines, marker = steps_data(series, k, metric=metric, max_points=max_points)
    chart = _layers([s.name for s in series], metric, len(series[0].counts), lines, marker)
    if large:
        chart = chart.properties(height=360)
    return sized(chart, large)


def steps_alt(series: Sequence[Series], k: int, *, metric: str = "tokens") -> str:
    """What ``steps_chart`` says, in words, as its name for a screen reader: each line's value
    before any merge, at step ``k`` and after the last merge.

    >>> steps_alt([Series("this text", [10, 8, 7], 10)], 1)
    'Tokens against merges applied, step 1 marked. this text: 10 at 0 merges, 8 at 1, 7 at 2.'
    """
    def at(s: Series, i: int) -> str:
        v = _value(s, i, metric)
        return "–" if v is None else f"{v:,.0f}" if metric == "tokens" else f"{v:,.2f}"

    last = len(series[0].counts) - 1
    said = [f"{s.name}: {at(s, 0)} at 0 merges, "
            + (f"{at(s, k)} at {k:,}, " if 0 < k < last else "")
            + f"{at(s, last)} at {last:,}." for s in series]
    return f"{metric.capitalize()} against merges applied, step {k:,} marked. " + " ".join(said)


def steps_template(names: tuple[str, ...], metric: str, n: int) -> dict:
    """``steps_chart`` as a Vega-Lite dict whose data are the named datasets lines and marker
    (a page keeps it per set of names, metric and length: ``ui.kit.state.chart_template``)."""
    chart = _layers(names, metric, n, alt.NamedData("lines"), alt.NamedData("marker"))
    spec = chart.to_dict(validate=False)
    spec.pop("config", None)  # Altair's default theme: fixed view sizes that Streamlit overrides
    return spec


def steps_spec(
    series: Sequence[Series], k: int, *, metric: str = "tokens", max_points: int = MAX_POINTS,
    template: dict | None = None,
) -> dict:
    """The same chart as ``steps_chart``, as a Vega-Lite spec for ``st.vega_lite_chart``.

    Converting an Altair chart costs about 100 ms (it is validated against the schema every
    time), too slow for a slider: given a kept ``template`` (a copy of ``steps_template``'s),
    only the two small datasets are new at each step.
    """
    lines, marker = steps_data(series, k, metric=metric, max_points=max_points)
    if template is None:
        template = steps_template(tuple(s.name for s in series), metric, len(series[0].counts))
    template["datasets"] = {"lines": lines, "marker": marker}
    # what a screen reader says for the chart (Vega makes it the view's aria-label), instead of
    # its axes' tick labels
    template["description"] = steps_alt(series, k, metric=metric)
    return template


RIGHT_COLOUR, OTHER_COLOUR = "#009E73", "#999999"  # Okabe-Ito green; grey


def answers_chart(frame: pd.DataFrame) -> alt.Chart:
    """The class's answers to one quiz question (``ui.quiz.questions.tally``): a bar per option, the merge
    training made in green and marked "✔ merged"."""
    data = frame.assign(verdict=frame["right"].map({True: "✔ merged", False: "not merged"}))
    y = alt.Y("pair:N", sort=None, title=None, axis=alt.Axis(labelLimit=400))
    colour = alt.Color("verdict:N", title=None,
                       scale=alt.Scale(domain=["✔ merged", "not merged"],
                                       range=[RIGHT_COLOUR, OTHER_COLOUR]),
                       legend=alt.Legend(orient="bottom"))
    bars = alt.Chart(data).mark_bar().encode(
        x=alt.X("answers:Q", title="students", axis=alt.Axis(tickMinStep=1)), y=y, color=colour,
        tooltip=["pair:N", "answers:Q", "verdict:N"])
    labels = bars.mark_text(align="left", dx=4).encode(text="answers:Q", color=alt.value("#222"))
    return (bars + labels).properties(height=max(120, 44 * len(frame)))
