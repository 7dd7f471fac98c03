"""ui/who_pays/report.py: the report card's table, chart, summary and speed table, on numbers worked by
hand."""

from __future__ import annotations

from bpe_lab.who_pays.report import CategoryScore, EncodeSpeed, TextOverlap, compare_scores
from ui.who_pays import report as rc


def scores(*pairs: tuple[str, float]) -> list[CategoryScore]:
    """Scores with the given bytes per token (bytes and tokens made to match)."""
    return [CategoryScore(category, round(bpt * 100), 100, bpt) for category, bpt in pairs]


YOURS = scores(("prose", 5.0), ("code", 3.0), ("math", 2.02))
GPT2 = scores(("prose", 4.0), ("code", 4.0), ("math", 2.0))
GPT4 = scores(("prose", 5.0), ("code", 2.5), ("math", 2.5))
REFERENCES = {"GPT-2": GPT2, "GPT-4": GPT4}
COMPARED = {name: compare_scores(YOURS, s, name) for name, s in REFERENCES.items()}


def test_the_card_has_a_row_per_category_and_marks_in_words():
    frame = rc.card_frame(YOURS, REFERENCES, COMPARED)
    assert list(frame.columns) == ["category", "yours", "GPT-2", "GPT-4", "vs GPT-2", "vs GPT-4"]
    assert frame["category"].tolist() == ["prose", "code", "math"]
    assert frame["yours"].tolist() == [5.0, 3.0, 2.02]
    # 5/4 = +25 %, 3/4 = -25 %, 2.02/2 = +1 % (same); 5/5 = 0, 3/2.5 = +20 %, 2.02/2.5 = -19.2 %
    assert frame["vs GPT-2"].tolist() == ["▲ better (+25.0%)", "▼ worse (-25.0%)",
                                         "= same (+1.0%)"]
    assert frame["vs GPT-4"].tolist() == ["= same (+0.0%)", "▲ better (+20.0%)",
                                         "▼ worse (-19.2%)"]


def test_the_summary_says_where_it_is_better_and_worse():
    assert rc.card_summary(COMPARED) == (
        "Against GPT-2: better on prose; worse on code; the same on math. "
        "Against GPT-4: better on code; worse on math; the same on prose.")
    everywhere = {"GPT-4o": compare_scores(YOURS, scores(("prose", 9.0), ("code", 9.0),
                                                         ("math", 9.0)), "GPT-4o")}
    assert rc.card_summary(everywhere) == "Against GPT-4o: worse on every category."


def test_the_chart_groups_bars_by_category_with_yours_first():
    chart = rc.card_chart({rc.YOURS: YOURS, **REFERENCES})
    spec = chart.to_dict()
    assert spec["mark"]["type"] == "bar"
    assert spec["encoding"]["xOffset"]["field"] == "tokenizer"
    assert spec["encoding"]["color"]["scale"]["domain"] == ["yours", "GPT-2", "GPT-4"]
    rows = chart.data.to_dict("records")
    assert len(rows) == 3 * 3  # categories x tokenizers
    assert {"category": "math", "tokenizer": "GPT-4", "bytes/token": 2.5} in rows


def test_the_speed_table_gives_mb_per_second_and_a_terabyte_in_words():
    frame = rc.speed_frame({
        "yours": EncodeSpeed(num_bytes=2_000_000, passes=3, seconds=1.0),  # 2 MB/s
        "GPT-4": EncodeSpeed(num_bytes=10_000, passes=3, seconds=1.0),  # 0.01 MB/s
    })
    # 10^12 / (2 * 10^6) = 500,000 s = 5.8 days; 10^12 / 10^4 = 10^8 s = 3.2 years
    assert frame.to_dict("records") == [
        {"tokenizer": "yours", "MB/s": 2.0, "time for 1 TB": "5.8 days"},
        {"tokenizer": "GPT-4", "MB/s": 0.01, "time for 1 TB": "3.2 years"},
    ]


def test_the_overlap_note_names_the_texts_trained_on():
    assert rc.overlap_note([TextOverlap("prose", 0, 30)]) is None
    note = rc.overlap_note([TextOverlap("prose", 30, 30), TextOverlap("code", 2, 40),
                            TextOverlap("math", 0, 20)])
    assert note.startswith("Your tokenizer was trained on text that contains 30 of the 30 long "
                           "lines of prose and 2 of the 40 long lines of code.")
    assert "those rows" in note and "math" not in note
