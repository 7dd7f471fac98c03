"""AppTest tests for the first page (app.py)."""

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

import ui.training
from ui.samples import load_samples

APP = str(Path(__file__).resolve().parent.parent / "app.py")
SAMPLES = load_samples()


@pytest.fixture
def at():
    app = AppTest.from_file(APP, default_timeout=30)
    app.run()
    assert not app.exception
    return app


def shown_ids(app):
    """The token ids the page shows, read back from its code block."""
    return [int(part) for part in app.code[0].value.split(",") if part.strip()]


def test_page_loads_with_the_english_sample(at):
    assert at.title[0].value == "bpe-lab"
    assert at.text_area(key="text").value == SAMPLES["English prose"]
    assert at.selectbox(key="sample").value == "English prose"
    assert at.selectbox(key="split").value == "GPT-4 (cl100k) split"
    assert at.number_input(key="vocab_size").value == 512
    assert "tokenizer" not in at.session_state
    assert len(at.dataframe) == 0


def test_train_shows_merges_and_ids_that_decode_back(at):
    at.number_input(key="vocab_size").set_value(300).run()
    at.button(key="train").click().run()
    assert not at.exception
    assert not at.error
    assert not at.warning

    tok = at.session_state["tokenizer"]
    frame = at.dataframe[0].value
    assert list(frame.columns) == ["step", "id", "left", "right", "token", "bytes", "count"]
    if tok.stop_reason is None:
        assert len(frame) == 44
    else:  # only allowed when the text ran out of pairs
        assert len(frame) < 44
    assert list(frame["id"]) == list(range(256, 256 + len(frame)))
    assert list(frame["step"]) == list(range(1, len(frame) + 1))

    text = at.text_area(key="text").value
    ids = shown_ids(at)
    assert ids == tok.encode_ordinary(text)
    assert tok.decode(ids) == text

    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Merges made"] == str(len(frame))
    assert metrics["Tokens before (bytes)"] == f"{len(text.encode('utf-8')):,}"
    assert metrics["Tokens after"] == f"{len(ids):,}"


def test_empty_text_shows_an_error(at):
    at.text_area(key="text").input("").run()
    at.button(key="train").click().run()
    assert not at.exception
    assert len(at.error) == 1
    assert "empty" in at.error[0].value
    assert "tokenizer" not in at.session_state


def test_whitespace_text_shows_a_warning(at):
    at.text_area(key="text").input("  \t\n  ").run()
    at.button(key="train").click().run()
    assert not at.exception
    assert "whitespace" in at.warning[0].value
    assert "tokenizer" not in at.session_state


def test_value_error_from_the_core_is_shown_not_raised(at, monkeypatch):
    class Failing:
        def train(self, text, vocab_size, **kwargs):
            raise ValueError("vocab_size must be at least 256: pick a larger size")

    monkeypatch.setattr(ui.training, "make_tokenizer", lambda label: Failing())
    at.button(key="train").click().run()
    assert not at.exception
    assert at.error[0].value == "vocab_size must be at least 256: pick a larger size"
    assert "tokenizer" not in at.session_state


def test_switching_the_sample_replaces_the_text(at):
    at.selectbox(key="sample").set_value("Source code").run()
    assert not at.exception
    assert at.text_area(key="text").value == SAMPLES["Source code"]

    label = "Tricky: numbers, contractions, whitespace"
    at.selectbox(key="sample").set_value(label).run()
    assert at.text_area(key="text").value == SAMPLES[label]
    assert "\r\n" in at.text_area(key="text").value


@pytest.mark.parametrize("split", list(ui.training.SPLITS))
def test_every_split_trains_on_the_multilingual_sample(at, split):
    at.selectbox(key="sample").set_value("Multilingual + emoji").run()
    at.selectbox(key="split").set_value(split).run()
    at.number_input(key="vocab_size").set_value(264).run()
    at.button(key="train").click().run()
    assert not at.exception
    assert not at.error
    tok = at.session_state["tokenizer"]
    assert len(at.dataframe[0].value) == len(tok.merges) == 8
    assert tok.decode(shown_ids(at)) == SAMPLES["Multilingual + emoji"]


def test_long_id_lists_are_cut_with_a_note(at):
    at.text_area(key="text").input("ab" * 3000).run()
    at.number_input(key="vocab_size").set_value(256).run()
    at.button(key="train").click().run()
    assert not at.exception
    assert len(shown_ids(at)) == 5000
    assert any("1,000 more were left out" in c.value for c in at.caption)
