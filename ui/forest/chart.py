"""What the merge-forest page sends to the browser: data frames and Altair charts.

The layout comes from ui/forest/trees.py; here it becomes two frames (nodes and edges) and a layered
chart: edges as rules, nodes as circles, labels as text, tooltips, zoom and pan. Hovering a
node outlines every copy of the same token id (shared sub-trees); clicking one selects it (the
page reads the chart's ``pick`` selection). Text reaches the browser only as chart data, which
Vega draws as text (tooltips are escaped by vega-tooltip), never as HTML.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import altair as alt
import pandas as pd

from bpe_core.base import EncodeTrace
from ui.forest.labels import LINE, Fit, fit_labels, text_width
from ui.forest.trees import Node, copies, count_of, run_piece, token_text

LABEL_CHARS = 12
MIN_TEXT_PX = 12  # every text of the charts, at the least (WCAG: readable on a phone)
# "chain": a node standing for a run of merges that each add a small piece (ui/forest/trees.py);
# its purple stays at least 15 ΔE from the other kinds for colour-blind viewers (palette_check)
KIND_COLOURS = {"byte": "#f0b65a", "merge": "#4a88c2", "chain": "#7b3294", "special": "#222222",
                "cut": "#d55e00"}
NODE_COLUMNS = ["node", "tree", "id", "label", "sub", "text", "hex", "bytes", "step", "count",
                "depth", "x", "y", "kind", "copies", "uses", "merges"]
EDGE_COLUMNS = ["x", "y", "x2", "y2", "parent_id", "child_id", "side"]
LEVELS = ("depth", "step")


def _node_kind(tok: Any, node: Node) -> str:
    if node.collapsed:
        return "cut"
    if node.run:
        return "chain"
    if node.id in tok.parents:
        return "merge"
    return "byte" if len(tok.vocab[node.id]) == 1 else "special"


def _y(node: Node, step: int, levels: str) -> float:
    return float(step) if levels == "step" else float(-node.depth)


def node_frame(
    tok: Any, nodes: Sequence[Node], *, levels: str = "depth", uses: dict[int, int] | None = None
) -> pd.DataFrame:
    """One row per drawn node: what it is (id, text, hex, step, count), where, and how shared.

    ``y`` is ``-depth`` (root on top) or the merge step (``levels="step"``); ``copies`` is how
    many times the id is drawn in this chart; ``uses`` how often a root is used in the text. A
    chain node (``Node.run``) is labelled "⋯ n merges" over the pieces they add ("+ piece");
    ``merges`` is that n.
    """
    if levels not in LEVELS:
        raise ValueError(f"levels must be one of {LEVELS}, not {levels!r}")
    counts = count_of(tok)
    drawn = copies(nodes)
    uses = uses or {}
    rows = []
    for i, n in enumerate(nodes):
        token = tok.vocab[n.id]
        step = tok.step_of.get(n.id, 0)
        count = counts.get(n.id)
        sub = f"{n.id}" + (f" · step {step:,}" if step else "")
        sub += f" · ×{count:,}" if count else ""
        label = token_text(token, LABEL_CHARS)
        if n.run:
            label = f"⋯ {n.run:,} merges"
            sub = "+ " + token_text(run_piece(tok, n, nodes[n.left]), LABEL_CHARS)
        rows.append({
            "node": i,
            "tree": n.tree,
            "id": n.id,
            "label": label,
            "sub": sub,
            "text": token_text(token),
            "hex": token.hex(" "),
            "bytes": len(token),
            "step": step,
            "count": count,
            "depth": n.depth,
            "x": n.x,
            "y": _y(n, step, levels),
            "kind": _node_kind(tok, n),
            "copies": drawn[n.id],
            "uses": uses.get(n.id) if n.parent == -1 else None,
            "merges": n.run or None,
        })
    frame = pd.DataFrame(rows, columns=NODE_COLUMNS)
    return frame.astype(
        {"count": "Int64", "uses": "Int64", "merges": "Int64", "x": "float64", "y": "float64"}
    )


def edge_frame(tok: Any, nodes: Sequence[Node], *, levels: str = "depth") -> pd.DataFrame:
    """One row per edge, from a parent (x, y) to one of its two children (x2, y2); a chain node
    has one child (side "chain")."""
    rows = []
    step_of = tok.step_of
    for n in nodes:
        if n.left < 0:
            continue
        y = _y(n, step_of.get(n.id, 0), levels)
        children = [("chain", nodes[n.left])] if n.run else [("left", nodes[n.left]),
                                                             ("right", nodes[n.right])]
        for side, c in children:
            rows.append({
                "x": n.x, "y": y, "x2": c.x, "y2": _y(c, step_of.get(c.id, 0), levels),
                "parent_id": n.id, "child_id": c.id, "side": side,
            })
    return pd.DataFrame(rows, columns=EDGE_COLUMNS).astype(
        {"x": "float64", "y": "float64", "x2": "float64", "y2": "float64"}
    )


def chart_height(nodes: pd.DataFrame, levels: str = "depth") -> int:
    """Room for every level: about 70 px a level, between 180 and 900 px (more when the labels
    need it: ``label_fit``)."""
    if levels == "step" or nodes.empty:
        return 480
    return max(180, min(900, 70 * (int(nodes["depth"].max()) + 1) + 60))


LABEL_DY, SUB_DY = -16, 20  # a label's middle above its node, a sublabel's below, at scale 1
NODE_SIZE = 240  # a node's area in px² at scale 1
MIN_WIDTH = 320  # a small tree still spreads over this many pixels


def label_fit(nodes: pd.DataFrame, *, levels: str = "depth", sublabels: bool = True,
              scale: float = 1.0) -> Fit:
    """The chart's size and scales for its labels at ``scale`` (``ui.forest.labels``): none
    cut at an edge, none over another."""
    px = MIN_TEXT_PX * scale
    line = LINE * px / 2
    blocks = []
    for label, sub in zip(nodes["label"], nodes["sub"], strict=True):
        wide = text_width(label, px)
        bottom = LABEL_DY * scale + line
        if sublabels:
            wide = max(wide, text_width(sub, px))
            bottom = SUB_DY * scale + line
        blocks.append((wide / 2, LABEL_DY * scale - line, bottom))
    height = chart_height(nodes, levels) * scale
    levels_drawn = int(nodes["depth"].max()) + 1 if len(nodes) else 1
    return fit_labels(
        list(nodes["x"]), list(nodes["y"]), blocks,
        level_px=(height - 60 * scale) / levels_drawn,
        step_height=height if levels == "step" else None,
        min_width=MIN_WIDTH * scale, node_px=(NODE_SIZE / 3.14159) ** 0.5 * scale,
    )


def tree_chart(
    nodes: pd.DataFrame,
    edges: pd.DataFrame,
    *,
    levels: str = "depth",
    title: str = "",
    sublabels: bool = True,
    svg: bool = False,
    large: bool = False,
) -> alt.LayerChart:
    """The layered chart of a tree or a forest: edges, nodes, labels; tooltips, zoom and pan.

    Parameters: ``pick`` (click a node: its id) for the page to read, ``same`` (hover: every
    node with that id is outlined). ``sublabels`` adds "id · step · ×count" under each node.
    ``svg`` asks for SVG rendering (text stays in the page, which browser tests can read).
    ``large`` (projector mode) draws nodes, labels and the legend 1.6 times their size.
    Every text is ``MIN_TEXT_PX`` or more: on a phone the chart is as wide as the screen, and a
    label at Vega's 10 px was too small to read.
    """
    scale = 1.6 if large else 1.0
    text_px = MIN_TEXT_PX * scale
    fit = label_fit(nodes, levels=levels, sublabels=sublabels, scale=scale)
    shown = nodes.assign(label=nodes["label"].where(fit.drawn, ""),
                         sub=nodes["sub"].where(fit.drawn, ""))
    pick = alt.selection_point(name="pick", fields=["id"], on="click")
    same = alt.selection_point(name="same", fields=["id"], on="pointerover", clear="pointerout")
    x = alt.X("x:Q", axis=None,
              scale=alt.Scale(zero=False, nice=False, padding=0, domain=list(fit.x_domain)))
    axis = (alt.Axis(title="merge step", format=",d", labelFontSize=text_px,
                     titleFontSize=text_px) if levels == "step" else None)
    y = alt.Y("y:Q", axis=axis,
              scale=alt.Scale(zero=False, nice=False, padding=0, domain=list(fit.y_domain)))
    kinds = [k for k in KIND_COLOURS if k in set(nodes["kind"])]
    edge_layer = alt.Chart(edges).mark_rule(color="#9a9a9a", strokeWidth=1.2).encode(
        x=x, y=y, x2="x2:Q", y2="y2:Q"
    )
    tooltip = [
        alt.Tooltip("id:Q", title="id"),
        alt.Tooltip("text:N", title="token"),
        alt.Tooltip("hex:N", title="bytes (hex)"),
        alt.Tooltip("step:Q", title="merge step", format=",d"),
        alt.Tooltip("count:Q", title="pair count", format=",d"),
        alt.Tooltip("depth:Q", title="depth"),
        alt.Tooltip("copies:Q", title="copies drawn"),
        alt.Tooltip("uses:Q", title="uses in text", format=",d"),
        alt.Tooltip("merges:Q", title="merges drawn as this one node", format=",d"),
    ]
    node_layer = (
        alt.Chart(nodes)
        .mark_circle(size=NODE_SIZE * scale * scale, opacity=1)
        .encode(
            x=x,
            y=y,
            color=alt.Color(
                "kind:N",
                scale=alt.Scale(domain=kinds, range=[KIND_COLOURS[k] for k in kinds]),
                legend=alt.Legend(title=None, orient="bottom", labelFontSize=text_px,
                                  symbolSize=100 * scale * scale),
            ),
            stroke=alt.when(same, empty=False).then(alt.value("#111111"))
            .otherwise(alt.value("#ffffff")),
            strokeWidth=alt.when(same, empty=False).then(alt.value(3)).otherwise(alt.value(1)),
            tooltip=tooltip,
        )
        .add_params(pick, same)
    )
    layers = [
        edge_layer,
        node_layer,
        alt.Chart(shown)
        .mark_text(dy=LABEL_DY * scale, fontSize=text_px)
        .encode(x=x, y=y, text="label:N"),
    ]
    if sublabels:
        layers.append(
            alt.Chart(shown)
            .mark_text(dy=SUB_DY * scale, fontSize=text_px, color="#555555")
            .encode(x=x, y=y, text="sub:N")
        )
    # the view is width x height, and grows by what lies around it (title, legend, axis): with
    # Streamlit's "fit" the view shrank to make room, under the labels' layout
    chart = alt.layer(*layers).properties(width=round(fit.width), height=round(fit.height),
                                          autosize=alt.AutoSizeParams(type="pad"))
    if title:
        chart = chart.properties(title=alt.Title(title, fontSize=13 * scale) if large else title)
    if svg:
        chart = chart.properties(usermeta={"embedOptions": {"renderer": "svg"}})
    # zoom and pan, named so that the spec is the same on every run
    return chart.add_params(alt.selection_interval(name="zoom", bind="scales"))


def picked_id(state: Any) -> int | None:
    """The token id a chart click selected (``state`` is the chart's selection state), or None."""
    try:
        points = state["selection"]["pick"]
    except (KeyError, TypeError):
        return None
    for point in points or ():
        if isinstance(point, dict) and point.get("id") is not None:
            return int(point["id"])
    return None


VOCAB_COLUMNS = ["id", "token", "bytes", "depth", "step", "count"]


def vocab_frame(rows: list[dict]) -> pd.DataFrame:
    """``vocab_rows`` as a table; the count column only when some token has a count."""
    frame = pd.DataFrame(rows, columns=VOCAB_COLUMNS).astype({"count": "Int64"})
    if frame["count"].isna().all():
        frame = frame.drop(columns="count")
    return frame


TRACE_COLUMNS = ["#", "chunk", "pair", "ids", "token", "id", "rank", "tokens after"]


def word_trace_frame(tok: Any, trace: EncodeTrace) -> pd.DataFrame:
    """The word trace as a table: each merge, its pair (text and ids), rank and the tokens after."""
    vocab = tok.vocab

    def show(t: int) -> str:
        return token_text(vocab[t])

    rows = [
        {
            "#": k,
            "chunk": s.chunk + 1,
            "pair": f"{show(s.left)} + {show(s.right)}",
            "ids": f"{s.left} + {s.right}",
            "token": show(s.new),
            "id": s.new,
            "rank": s.rank,
            "tokens after": " | ".join(map(show, s.tokens)),
        }
        for k, s in enumerate(trace.steps, 1)
    ]
    return pd.DataFrame(rows, columns=TRACE_COLUMNS)
