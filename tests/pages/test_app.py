"""AppTest tests for the frame: the shared sidebar, training, and state kept across pages."""

import re
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest
from support import front_counts

from ui.kit.samples import load_samples

APP = str(Path(__file__).resolve().parents[2] / "app.py")
SAMPLES = load_samples()


@pytest.fixture
def at():
    app = AppTest.from_file(APP, default_timeout=60)
    app.run()
    assert not app.exception
    return app


def test_first_visit_trains_on_the_english_sample(at):
    assert at.text_area(key="text").value == SAMPLES["English prose"]
    assert at.number_input(key="vocab_size").value == 512
    tok = at.session_state["tok"]
    assert tok.num_merges == 256 or tok.stop_reason
    text = SAMPLES["English prose"]
    assert front_counts(at)["Tokens"] == f"{len(tok.encode(text)):,}"
    assert len(at.dataframe[0].value) == tok.num_merges


def test_train_button_retrains_with_the_new_vocabulary_size(at):
    at.number_input(key="vocab_size").set_value(300).run()
    assert "press **Train**" in " ".join(c.value for c in at.caption)
    at.button(key="train").click().run()
    assert not at.exception and not at.error
    tok = at.session_state["tok"]
    assert tok.num_merges == 44
    frame = at.dataframe[0].value
    assert list(frame["id"]) == list(range(256, 300))
    ids = [int(x) for x in at.code[0].value.split(",")]
    assert tok.decode(ids) == at.text_area(key="text").value


def test_empty_text_and_bad_pattern_show_messages_not_tracebacks(at):
    at.text_area(key="text").set_value("").run()
    at.button(key="train").click().run()
    assert not at.exception
    assert "The text is empty" in at.error[0].value
    at.selectbox(key="kind").set_value("Train: custom split pattern").run()
    at.text_input(key="pattern").set_value("(a+").run()
    assert not at.exception
    assert "invalid split pattern" in at.error[0].value


def test_settings_survive_page_changes(at):
    at.number_input(key="vocab_size").set_value(320).run()
    at.text_area(key="text").set_value("hello hello world").run()
    at.selectbox(key="kind").set_value("Train: GPT-2 split").run()
    for page in ["pages/tokens.py", "pages/steps.py", "pages/overview.py"]:
        at.switch_page(page).run()
        assert not at.exception
        assert at.number_input(key="vocab_size").value == 320
        assert at.text_area(key="text").value == "hello hello world"
        assert at.selectbox(key="kind").value == "Train: GPT-2 split"


def test_choosing_a_sample_replaces_the_text_on_any_page(at):
    at.switch_page("pages/tokens.py").run()
    at.selectbox(key="sample").set_value("Source code").run()
    assert at.text_area(key="text").value == SAMPLES["Source code"]


def test_pretrained_gpt4_counts_tokens_like_tiktoken(at):
    at.selectbox(key="kind").set_value("Pretrained: GPT-4 (cl100k_base)").run()
    assert not at.exception
    assert at.number_input(key="vocab_size").disabled
    at.text_area(key="text").set_value("hello world").run()
    assert front_counts(at)["Tokens"] == "2"  # cl100k: [15339, 1917]
    assert at.code[0].value.replace(" ", "") == "15339,1917"


def test_a_shared_link_opens_the_same_view():
    app = AppTest.from_file(APP, default_timeout=60)
    app.query_params.update({"sample": "code", "kind": "gpt2", "vocab": "300", "step": "7"})
    app.run()
    assert not app.exception
    assert app.selectbox(key="sample").value == "Source code"
    assert app.text_area(key="text").value == SAMPLES["Source code"]
    assert app.selectbox(key="kind").value == "Train: GPT-2 split"
    assert app.session_state["tok"].vocab_size == 300
    assert app.session_state["step"] == 7


def test_the_address_follows_the_sidebar_but_never_holds_the_text(at):
    at.number_input(key="vocab_size").set_value(320).run()
    at.selectbox(key="kind").set_value("Train: no split (Basic)").run()
    assert at.query_params["sample"] == "english"
    at.text_area(key="text").set_value("a secret pasted text").run()
    query = dict(at.query_params)
    assert query["vocab"] == "320" and query["kind"] == "basic"
    assert "sample" not in query  # the text is the user's own: the link names no sample
    assert not any("secret" in str(v) for v in query.values())


def test_the_sidebar_calls_the_users_own_text_its_own_until_a_sample_is_picked(at):
    assert at.selectbox(key="sample").value == "English prose"
    at.text_area(key="text").set_value(SAMPLES["English prose"] + " And mine.").run()
    assert at.selectbox(key="sample").value is None
    assert at.selectbox(key="sample").placeholder == "Your own text"
    at.switch_page("pages/tokens.py").run()  # still the user's text on another page
    assert not at.exception and at.selectbox(key="sample").value is None
    assert "sample" not in at.query_params
    at.selectbox(key="sample").set_value("Source code").run()
    assert at.selectbox(key="sample").value == "Source code"
    assert at.text_area(key="text").value == SAMPLES["Source code"]
    assert at.query_params["sample"] == "code"
    at.text_area(key="text").set_value(SAMPLES["Multilingual + emoji"]).run()  # pasted: a sample
    assert at.selectbox(key="sample").value == "Multilingual + emoji"


def test_a_bad_link_is_explained_not_crashed():
    app = AppTest.from_file(APP, default_timeout=60)
    app.query_params.update({"vocab": "lots", "kind": "<script>", "step": "-3"})
    app.run()
    assert not app.exception
    note = re.sub(r"\\(.)", r"\1", " ".join(i.value for i in app.info))  # as Markdown shows it
    assert "vocab 'lots'" in note and "kind '<script>'" in note and "step '-3'" in note
    assert app.number_input(key="vocab_size").value == 512
