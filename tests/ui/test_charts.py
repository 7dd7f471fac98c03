"""Chart builders: the data inside the chart, the marker at k, and downsampling."""

import pandas as pd
import pytest

from ui.kit.charts import (
    MAX_POINTS,
    Series,
    downsample_indices,
    steps_chart,
    steps_data,
    steps_spec,
)


def layers(chart):
    """The DataFrame behind each layer: (lines, rule, dots)."""
    return [layer.data for layer in chart.layer]


def test_tokens_chart_holds_every_step_of_a_small_series():
    chart = steps_chart([Series("training text", [11, 9, 7, 5], 11)], 2)
    lines, rule, dots = layers(chart)
    assert list(lines["merges"]) == [0, 1, 2, 3]
    assert list(lines["value"]) == [11, 9, 7, 5]
    assert set(lines["text"]) == {"training text"}
    assert list(rule["merges"]) == [2]
    assert dots.to_dict("records") == [{"merges": 2, "value": 7.0, "text": "training text"}]
    spec = chart.to_dict()
    assert spec["layer"][0]["mark"]["type"] == "line"
    assert spec["layer"][1]["mark"]["type"] == "rule"
    assert spec["layer"][0]["encoding"]["y"]["title"] == "tokens"


def test_compression_ratio_is_bytes_over_tokens():
    chart = steps_chart(
        [Series("a", [11, 9, 7, 5], 11), Series("b", [4, 4, 2, 2], 4)], 3,
        metric="compression ratio",
    )
    lines, _, dots = layers(chart)
    a = lines[lines["text"] == "a"]
    assert list(a["value"]) == pytest.approx([1.0, 11 / 9, 11 / 7, 11 / 5])
    assert dots.set_index("text")["value"].to_dict() == pytest.approx({"a": 11 / 5, "b": 2.0})
    assert chart.to_dict()["layer"][0]["encoding"]["y"]["scale"]["zero"] is False


def test_empty_text_has_no_ratio_but_still_draws():
    chart = steps_chart([Series("empty", [0, 0], 0)], 1, metric="compression ratio")
    lines, _, dots = layers(chart)
    assert lines["value"].isna().all() and dots["value"].isna().all()


def test_long_series_are_downsampled_keeping_ends_and_marker():
    n = 199_743  # o200k_base: 199 742 merges
    counts = list(range(n, 0, -1))
    k = 12_345
    chart = steps_chart(
        [Series("this text", counts, n), Series("held-out", counts, n), Series("t", counts, n)], k
    )
    lines, _, dots = layers(chart)
    assert len(lines) <= MAX_POINTS
    for _, one in lines.groupby("text"):
        steps = list(one["merges"])
        assert steps[0] == 0 and steps[-1] == n - 1 and k in steps
        assert steps == sorted(set(steps))
        assert list(one["value"]) == [counts[s] for s in steps]
    assert set(dots["merges"]) == {k} and len(dots) == 3


@pytest.mark.parametrize(("n", "cap"), [(10, 4), (1000, 7), (2001, 2000), (5, 2), (1, 5)])
def test_downsample_indices_bounds(n, cap):
    idx = downsample_indices(n, cap)
    assert idx[0] == 0 and idx[-1] == n - 1
    assert len(idx) <= cap and idx == sorted(set(idx))


def test_downsample_keeps_requested_points_within_the_cap():
    idx = downsample_indices(10_000, 100, keep=[1, 5_001])
    assert {0, 1, 5_001, 9_999} <= set(idx) and len(idx) <= 100
    assert downsample_indices(0, 10) == []
    with pytest.raises(ValueError):
        downsample_indices(100, 2, keep=[50])


def test_bad_input_raises_value_error():
    s = Series("a", [3, 2], 3)
    with pytest.raises(ValueError, match="metric"):
        steps_chart([s], 0, metric="bytes")
    with pytest.raises(ValueError, match="step"):
        steps_chart([s], 2)
    with pytest.raises(ValueError, match="every series"):
        steps_chart([s, Series("b", [1], 1)], 0)
    with pytest.raises(ValueError, match="at least one"):
        steps_chart([], 0)


def test_chart_data_is_plain_dataframes():
    chart = steps_chart([Series("a", [3, 2], 3)], 0)
    assert all(isinstance(d, pd.DataFrame) for d in layers(chart))


def test_spec_is_the_altair_chart_with_named_datasets():
    series = [Series("a", [11, 9, 7, 5], 11), Series("b", [4, 4, 2, 2], 4)]
    for metric in ("tokens", "compression ratio"):
        spec = steps_spec(series, 1, metric=metric)
        altair = steps_chart(series, 1, metric=metric).to_dict()
        assert [layer["data"]["name"] for layer in spec["layer"]] == ["lines", "marker", "marker"]
        for ours, theirs in zip(spec["layer"], altair["layer"]):
            assert {**ours, "data": None} == {**theirs, "data": None}
        lines, marker = steps_data(series, 1, metric=metric)
        pd.testing.assert_frame_equal(spec["datasets"]["lines"], lines)
        pd.testing.assert_frame_equal(spec["datasets"]["marker"], marker)
    # the cached template is not shared between calls
    spec["layer"].clear()
    assert len(steps_spec(series, 2, metric="compression ratio")["layer"]) == 3


def test_spec_for_a_huge_vocabulary_stays_small():
    counts = list(range(200_000, 0, -1))
    spec = steps_spec([Series("x", counts, 10**6)], 150_000)
    lines = spec["datasets"]["lines"]
    assert len(lines) <= MAX_POINTS and 150_000 in set(lines["merges"])
    assert list(spec["datasets"]["marker"]["merges"]) == [150_000]
