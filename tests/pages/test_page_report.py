"""AppTest tests for the Report card page: the card against the GPT tokenizers, the speed table,
and the note when the tokenizer was trained on a report text."""

from __future__ import annotations

import html
import re

import pytest
from support import open_page

from bpe_lab.who_pays.languages import load_parallel
from bpe_lab.who_pays.report import REPORT_CATEGORIES, REPORT_DIR, load_report_texts, score_texts


@pytest.fixture
def at():
    return open_page("pages/report.py")


def frame_with(app, column: str):
    return next(d for d in app.dataframe if column in d.value.columns).value


def test_the_card_and_the_speed_table_render(at):
    card = frame_with(at, "vs GPT-4o")
    assert card["category"].tolist() == list(REPORT_CATEGORIES)
    # the sidebar's first training (GPT-4 split, 512 tokens) on the library's own count
    expected = score_texts(at.session_state["tok"], load_report_texts())
    assert card["yours"].tolist() == [round(s.bytes_per_token, 2) for s in expected]
    # 256 merges against GPT-4's 100,000: worse on every text
    assert all(cell.startswith("▼ worse") for cell in card["vs GPT-4"])
    assert any("Against GPT-4: worse on every category." in m.value for m in at.markdown)
    assert at.get("vega_lite_chart")
    assert not at.warning  # trained on the first sample, not on a report text
    speed = frame_with(at, "time for 1 TB")
    assert speed["tokenizer"].tolist() == ["yours", "GPT-2", "GPT-4", "GPT-4o"]
    assert (speed["MB/s"] > 0).all()
    at.button(key="report_measure").click().run()
    assert not at.exception
    assert frame_with(at, "time for 1 TB")["tokenizer"].tolist()[0] == "yours"


def test_gpt4_chosen_in_the_sidebar_is_the_same_as_gpt4(at):
    at.selectbox(key="kind").set_value("Pretrained: GPT-4 (cl100k_base)").run()
    assert not at.exception
    card = frame_with(at, "vs GPT-4")
    assert card["vs GPT-4"].tolist() == ["= same (+0.0%)"] * len(REPORT_CATEGORIES)
    assert card["yours"].tolist() == card["GPT-4"].tolist()
    assert any("GPT-4 (cl100k\\_base)" in c.value or "GPT-4 (cl100k_base)" in c.value
               for c in at.caption)


def test_training_on_a_report_text_is_flagged(at):
    prose = (REPORT_DIR / "prose.txt").read_text(encoding="utf-8")
    at.text_area(key="text").set_value(prose).run()
    at.button(key="train").click().run()
    assert not at.exception
    (warning,) = at.warning
    assert "long lines of prose" in warning.value and "flatters" in warning.value


def test_the_other_languages_are_read_each_in_its_own_language(at):
    at.selectbox(key="report_text").set_value("other languages").run()
    assert not at.exception
    [table] = [h.value for h in at.html if "The story in every language but English" in h.value]
    rows = re.findall(r'<tr><td>([^<]*)</td><td lang="([^"]+)" dir="auto">([^<]*)</td></tr>',
                      table)
    others = [x for x in load_parallel() if x.code != "en"]
    assert [(name, lang) for name, lang, _ in rows] == [(x.name, x.lang) for x in others]
    assert [html.unescape(text) for *_, text in rows] == [x.text for x in others]
    at.selectbox(key="report_text").set_value("code").run()
    assert load_report_texts()["code"].strip() in [c.value.strip() for c in at.code]
