"""The merge forest's labels are never cut at the view's edge or drawn over each other (issue 45).

Each chart's spec is read as Vega reads it: its view's width and height, the scales' domains, the
text layers' offsets and sizes, and their data. Every label's box is measured with the fonts
themselves (Source Sans, the font Streamlit gives charts, from Streamlit's own files; DejaVu Sans,
Debian's fallback, when installed) through Pillow, not with the app's estimate, and the test
asserts that no box leaves the view and no two boxes overlap.
"""

from __future__ import annotations

import string
from functools import cache
from pathlib import Path

import pytest
import streamlit
from PIL import ImageFont

from bpe_core import RegexTokenizer
from bpe_lab.who_pays.report import load_report_texts
from ui.forest import trees as fo
from ui.forest.chart import edge_frame, node_frame, tree_chart
from ui.forest.labels import text_width

SOURCE_SANS = next((Path(streamlit.__file__).parent / "static").rglob("SourceSansVF-Upright*"))
DEJAVU = Path("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf")
GLYPHS = "·→↵␍⍽⟨⟩…⋯×+éüß"  # what token_text and the labels draw besides ASCII


@cache
def fonts(px: float) -> list[ImageFont.FreeTypeFont]:
    paths = [SOURCE_SANS] + ([DEJAVU] if DEJAVU.exists() else [])
    return [ImageFont.truetype(str(p), round(px * 10)) for p in paths]  # 10x for precision


def measured(text: str, px: float) -> tuple[float, float, float, float]:
    """The box (left, top, right, bottom) of ``text`` drawn centred on (0, 0) at ``px``: the
    union over the fonts, from their own metrics."""
    boxes = [f.getbbox(text, anchor="mm") for f in fonts(px)]
    widths = [f.getlength(text) for f in fonts(px)]
    half = max(max(widths) / 2, *(max(-b[0], b[2]) for b in boxes)) / 10
    return -half, min(b[1] for b in boxes) / 10, half, max(b[3] for b in boxes) / 10


def test_the_width_estimate_bounds_both_fonts():
    for ch in string.printable.strip() + " " + GLYPHS:
        assert text_width(ch, 20) >= measured(ch, 20)[2] * 2 - 0.01, ch
    label = "265 · step 10 · ×1,234"
    assert text_width(label, 12) >= measured(label, 12)[2] * 2


def label_boxes(chart) -> tuple[float, float, list[tuple[str, tuple]]]:
    """The view's size and every drawn label's box, in the view's pixels, from the spec."""
    spec = chart.to_dict()
    assert spec["autosize"] == {"type": "pad"}  # the view is width x height (Streamlit's "fit"
    width, height = spec["width"], spec["height"]  # shrank it to make room for title and legend)
    boxes = []
    for layer in spec["layer"]:
        mark = layer["mark"]
        if mark["type"] != "text":
            continue
        enc = layer["encoding"]
        (x0, x1), (y0, y1) = enc["x"]["scale"]["domain"], enc["y"]["scale"]["domain"]
        assert enc["x"]["scale"]["padding"] == 0 and enc["y"]["scale"]["padding"] == 0
        field = enc["text"]["field"]
        for row in spec["datasets"][layer["data"]["name"]]:
            text = row[field]
            if not text:
                continue
            cx = (row["x"] - x0) / (x1 - x0) * width
            cy = (1 - (row["y"] - y0) / (y1 - y0)) * height + mark.get("dy", 0)
            left, top, right, bottom = measured(text, mark["fontSize"])
            boxes.append((text, (cx + left, cy + top, cx + right, cy + bottom)))
    return width, height, boxes


def assert_clear(chart) -> int:
    """No label leaves the view, none overlaps another; the number of labels drawn."""
    width, height, boxes = label_boxes(chart)
    for text, (left, top, right, bottom) in boxes:
        assert left >= 0 and top >= 0 and right <= width and bottom <= height, (
            text, (left, top, right, bottom), (width, height))
    boxes.sort(key=lambda b: b[1][0])
    for i, (text, a) in enumerate(boxes):  # a sweep over the boxes by their left edges
        for other, b in boxes[i + 1:]:
            if b[0] >= a[2]:
                break
            assert not (a[1] < b[3] and b[1] < a[3]), f"{text!r} {a} overlaps {other!r} {b}"
    return len(boxes)


@pytest.fixture(scope="module")
def tok():
    text = load_report_texts()["prose"]
    t = RegexTokenizer()
    t.train(text, 600)
    return t, text


@pytest.mark.parametrize("large", [False, True], ids=["normal", "projector"])
def test_token_trees_labels_stay_in_view_and_apart(tok, large):
    tok, _ = tok
    deepest = max(tok.parents, key=lambda t: len(tok.vocab[t]))
    for token_id in (deepest, 265, min(tok.parents)):
        tree = fo.token_tree(tok, token_id)
        nodes = node_frame(tok, tree.nodes)
        chart = tree_chart(nodes, edge_frame(tok, tree.nodes), title="t", large=large, svg=True)
        # every node keeps its label and its "id · step · ×count" line
        assert assert_clear(chart) == 2 * len(nodes)


@pytest.mark.parametrize("large", [False, True], ids=["normal", "projector"])
@pytest.mark.parametrize("levels", ["depth", "step"])
def test_the_forest_of_the_texts_labels_never_overlap(tok, large, levels):
    tok, text = tok
    at_k = fo.most_used(tok.encode(text))
    forest = fo.forest_layout(tok, [t for t, _ in at_k[:30]], runs=True)
    nodes = node_frame(tok, forest.nodes, levels=levels)
    chart = tree_chart(nodes, edge_frame(tok, forest.nodes, levels=levels), levels=levels,
                       sublabels=False, large=large)
    drawn = assert_clear(chart)
    if levels == "depth":  # levels apart and neighbours apart: every label drawn
        assert drawn == len(nodes)
    else:  # nodes a merge step apart can sit a pixel apart: the roots' labels are drawn first
        roots = {i for i, n in enumerate(forest.nodes) if n.parent == -1}
        assert drawn >= len(roots)
