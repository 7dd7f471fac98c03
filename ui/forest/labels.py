"""Where the merge forest's labels go: the charts' sizes and scales, from the labels' own sizes
(no Streamlit, no Altair here).

A chart that stretched to its column put its nodes one leaf slot apart whatever the labels said:
"265 · step 10" lost its left at the edge, and the forest of the text drew its labels over each
other. Here the chart's width and height come from the labels instead:

* ``text_width`` bounds a label's drawn width from above, by character class (measured in Source
  Sans, the charts' font, and DejaVu Sans, Debian's fallback: ``tests/ui/test_forest_labels.py``
  checks the bound against both fonts' own metrics);
* ``fit_labels`` picks the pixels per leaf slot so that two neighbours at one height never
  touch, the margins so that no label leaves the view, the levels' spacing so that a level's
  labels clear the one above, and which labels to leave out where nothing else helps (the
  "step" height puts nodes at their merge step, which can be a pixel apart: a label there that
  would cover another is left to the tooltip). Under "depth" every label is drawn.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

# A character's advance in em, at most (the larger of Source Sans 3 and DejaVu Sans, rounded up)
NARROW = " ·il.,:;'|!⟨⟩"
NARROW_EM = 0.65  # lower case but m and w, digits, the punctuation below, ␍ é ü ß
CAPITAL = 0.8  # capitals but M and W
WIDE = 1.0  # m w M W @ % # & + < = > ^ ~, arrows, ⋯ … ×, CJK and anything else not listed
NARROW_CHARS = set('"$()*-./?[\\]_{}') | set("␍") | set("éèáàóòúùüöäëïíìñçß")
LINE = 1.25  # a line of text, in em: the box a label needs from top to bottom
GAP_PX = 4.0  # room between two labels, and between a label and the view's edge


def char_em(ch: str) -> float:
    """``ch``'s advance in em, an upper bound."""
    if ch in NARROW:
        return 0.42
    if ch.isascii():
        if ch in "mwMW":
            return WIDE
        if ch.isupper():
            return CAPITAL
        if ch.islower() or ch.isdigit() or ch in NARROW_CHARS:
            return NARROW_EM
        return WIDE
    return NARROW_EM if ch in NARROW_CHARS else WIDE


def text_width(text: str, px: float) -> float:
    """The drawn width of ``text`` at ``px`` pixels, at most.

    >>> text_width("", 12), text_width("ab", 10)
    (0.0, 13.0)
    """
    return sum((char_em(ch) for ch in text), 0.0) * px


class Fit(NamedTuple):
    """A chart laid out for its labels: its view's size in pixels, the scales' domains (no
    padding), and which rows' labels are drawn."""

    width: float
    height: float
    x_domain: tuple[float, float]
    y_domain: tuple[float, float]
    drawn: list[bool]  # per row: its labels are drawn (False: left to the tooltip)


def fit_labels(
    xs: Sequence[float],
    ys: Sequence[float],
    blocks: Sequence[tuple[float, float, float]],
    *,
    level_px: float,
    step_height: float | None = None,
    min_width: float = 0.0,
    node_px: float = 0.0,
) -> Fit:
    """Sizes and domains for nodes at data positions (``xs``, ``ys``; larger y drawn higher),
    each with a block of text ``(half_width, top, bottom)`` in pixels around it (``top`` < 0
    above the node, ``bottom`` > 0 below).

    Nodes at one y are levels (the "depth" height, ``step_height=None``): neighbours are spaced
    so that their blocks clear each other by ``GAP_PX``, and levels ``level_px`` apart or more,
    so that a level's blocks clear the level above. With ``step_height`` the y positions are
    merge steps on a view of that height: blocks that would still touch one drawn earlier (the
    highest nodes first) are left out. ``node_px`` is a node's radius: the view keeps room for
    it too. ``min_width`` widens the view (never narrows it).
    """
    n = len(xs)
    if not n:
        return Fit(max(min_width, 1.0), level_px, (0.0, 1.0), (0.0, 1.0), [])
    blocks = [(max(h, node_px), min(t, -node_px), max(b, node_px)) for h, t, b in blocks]
    half = [b[0] + GAP_PX / 2 for b in blocks]
    # pixels per unit of x: neighbours at one y clear each other
    unit = 1.0
    by_y: dict[float, list[int]] = {}
    for i, y in enumerate(ys):
        by_y.setdefault(y, []).append(i)
    for row in by_y.values():
        row.sort(key=lambda i: xs[i])
        for a, b in zip(row, row[1:]):
            if xs[b] > xs[a]:
                unit = max(unit, (half[a] + half[b]) / (xs[b] - xs[a]))
    x_min, x_max = min(xs), max(xs)
    left = max(half[i] + GAP_PX / 2 - (xs[i] - x_min) * unit for i in range(n))
    right = max(half[i] + GAP_PX / 2 - (x_max - xs[i]) * unit for i in range(n))
    width = (x_max - x_min) * unit + left + right
    if width < min_width:
        if x_max > x_min:
            unit = (min_width - left - right) / (x_max - x_min)
        else:
            left = right = min_width / 2
        width = min_width
    top = max(-b[1] for b in blocks) + GAP_PX  # room above the highest nodes
    bottom = max(b[2] for b in blocks) + GAP_PX
    y_min, y_max = min(ys), max(ys)
    if step_height is None:
        levels = sorted(by_y)
        need = max((max(blocks[i][2] for i in by_y[upper]) - min(blocks[i][1] for i in by_y[lower])
                    + GAP_PX for lower, upper in zip(levels, levels[1:])), default=0.0)
        level = max(level_px, need)
        span = (y_max - y_min) / max(len(levels) - 1, 1) if len(levels) > 1 else 1.0
        y_unit = level / span if span else level
        inner = (y_max - y_min) * y_unit
    else:
        inner = max(step_height - top - bottom, 1.0)
        y_unit = inner / (y_max - y_min) if y_max > y_min else 1.0
    height = inner + top + bottom
    x_domain = (x_min - left / unit, x_max + right / unit)
    y_domain = (y_min - bottom / y_unit, y_max + top / y_unit)
    drawn = [True] * n
    if step_height is not None:
        drawn = _clear(xs, ys, blocks, half, unit, y_unit, x_min, y_max)
    return Fit(width, height, x_domain, y_domain, drawn)


def _clear(xs, ys, blocks, half, unit, y_unit, x_min, y_max) -> list[bool]:
    """Which blocks to draw so that none covers another: the highest first, then left to right;
    a block that would touch one already drawn is left out."""
    order = sorted(range(len(xs)), key=lambda i: (-ys[i], xs[i]))
    kept: list[tuple[float, float, float, float]] = []
    drawn = [False] * len(xs)
    cell = 64.0
    grid: dict[tuple[int, int], list[int]] = {}
    for i in order:
        cx, cy = (xs[i] - x_min) * unit, (y_max - ys[i]) * y_unit
        box = (cx - half[i], cy + blocks[i][1] - GAP_PX / 2, cx + half[i],
               cy + blocks[i][2] + GAP_PX / 2)
        cells = [(gx, gy) for gx in range(int(box[0] // cell), int(box[2] // cell) + 1)
                 for gy in range(int(box[1] // cell), int(box[3] // cell) + 1)]
        if any(_touch(box, kept[k]) for c in cells for k in grid.get(c, ())):
            continue
        drawn[i] = True
        kept.append(box)
        for c in cells:
            grid.setdefault(c, []).append(len(kept) - 1)
    return drawn


def _touch(a: tuple[float, float, float, float], b: tuple[float, float, float, float]) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]
