"""AppTest tests for the Numbers page: heatmaps and sentences, the user's own number, and the
digit presets trained, compared and handed to the sidebar."""

from __future__ import annotations

import json

import pandas as pd
import pyarrow as pa
import pytest
from support import open_page

from bpe_core.patterns import DIGIT_PRESETS


@pytest.fixture
def at():
    return open_page("pages/numbers.py")


def heatmaps(app) -> list[tuple[list[str], pd.DataFrame]]:
    """Each heatmap on the page: its tokenizers, in order, and its data."""
    found = []
    for chart in app.get("vega_lite_chart"):
        spec = json.loads(chart.proto.spec)
        (data,) = [pa.ipc.open_stream(d.data.data).read_pandas() for d in chart.proto.datasets]
        found.append((spec["facet"]["sort"], data))
    return found


def frame_with(app, column: str):
    return next(d.value for d in app.dataframe if column in d.value.columns)


def test_the_page_shows_a_sentence_and_a_heatmap_per_tokenizer(at):
    assert not at.exception
    sentences = [m.value for m in at.markdown if m.value.startswith("- **")]
    assert len(sentences) == 4  # yours, GPT-2, GPT-4, GPT-4o
    assert "- **GPT-4 (cl100k_base)** writes every one of the numbers 0–999 as one token." in sentences
    ((labels, data),) = heatmaps(at)
    assert labels == ["Yours: GPT-4 split, vocabulary 512", "GPT-2", "GPT-4 (cl100k_base)",
                      "GPT-4o (o200k_base)"]
    assert len(data) == 4 * 1000 and set(data["tokens"][data["tokenizer"] == labels[2]]) == {1}
    at.radio(key="numbers_range").set_value("Years 1900–2099")
    at.toggle(key="numbers_space").set_value(True).run()
    assert not at.exception
    ((_, data),) = heatmaps(at)
    assert len(data) == 4 * 200 and {" 1900", " 2099"} <= set(data["text"])
    assert any("years 1900–2099 written with a space" in m.value for m in at.markdown)


def test_a_hostile_number_stays_text(at):
    hostile = '<img src=x onerror="alert(1)">'
    at.text_input(key="numbers_own").set_value(hostile).run()
    assert not at.exception
    groups = frame_with(at, "number")
    assert groups["number"].tolist()[0] == hostile
    assert all("<img" not in h.value for h in at.html)
    assert all("<img" not in m.value for m in at.markdown)


def test_the_digit_presets_train_compare_and_go_to_the_sidebar(at):
    # chunks under each rule, merged whole at the sidebar's 512 tokens: "1" "234" "567" (threes
    # from the right), "123" "456" "7" (GPT-4), "12" "34" "56" "7", single digits (no merges)
    at.text_area(key="text").set_value("Counts: " + "1234567 " * 50).run()
    at.button(key="numbers_train").click().run()
    assert not at.exception
    presets = frame_with(at, "tokens for 0–999")
    assert presets["digit rule"].tolist() == list(DIGIT_PRESETS)
    assert presets["tokens for 0–999"].tolist()[0] == 2890  # one token a digit, by hand
    assert presets["1234567"].tolist() == ["1|2|3|4|5|6|7", "12|34|56|7", "123|456|7",
                                           "1|234|567"]
    (_, (labels, data)) = heatmaps(at)
    assert labels == list(DIGIT_PRESETS) and len(data) == 4 * 1000

    at.selectbox(key="numbers_use_pick").set_value("threes from the right")
    at.button(key="numbers_use").click().run()
    assert not at.exception
    assert at.session_state["kind"] == "Train: custom split pattern"
    assert at.session_state["pattern"] == DIGIT_PRESETS["threes from the right"]
    assert any("press **Train**" in s.value for s in at.success)
    at.run()  # the sidebar keeps the choice on the next run, and trains it when asked
    assert at.session_state["pattern"] == DIGIT_PRESETS["threes from the right"]
    at.button(key="train").click().run()
    assert not at.exception
    assert at.session_state["tok"].pattern == DIGIT_PRESETS["threes from the right"]
    assert any("Your tokenizer (the sidebar's) cuts digits" in s.value for s in at.success)
    groups = frame_with(at, "number")
    assert groups[groups["number"] == "1234567"].iloc[0, 1] == "1|234|567"  # yours, trained
