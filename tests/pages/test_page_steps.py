"""AppTest tests for the step-through page (pages/steps.py)."""

import json
from pathlib import Path

import pyarrow.ipc
import pytest
import streamlit.testing.v1.local_script_runner as local_script_runner
from streamlit.testing.v1 import AppTest
from support import open_page

from ui.kit.samples import load_samples

APP = str(Path(__file__).resolve().parents[2] / "app.py")
TINY = "aaabdaaabac"


def metrics(app):
    return {m.label: m.value for m in app.metric}


def merge_card(app):
    return next(h.value for h in app.html if "bpe-merge" in h.value)


def tokens_view(app):
    return next(h.value for h in app.html if "bpe-merge" not in h.value)


def merge_table(app):
    return next(d.value for d in app.dataframe if "bytes" in d.value.columns)


def chart_data(app):
    """The spec and the datasets (name -> DataFrame) of the page's Altair chart."""
    proto = app.get("vega_lite_chart")[0].proto
    data = {d.name: pyarrow.ipc.open_stream(d.data.data).read_pandas() for d in proto.datasets}
    return json.loads(proto.spec), data


def on_the_server(app):
    """The server path of the page (slider, Play and tokens as Streamlit widgets): what these
    tests drive; the in-browser view is driven in tests/browser/test_steps_in_browser.py."""
    app.toggle(key="step_instant").set_value(False).run()
    assert not app.exception
    return app


@pytest.fixture
def steps_app():
    """The steps page with the sidebar's default text and tokenizer (GPT-4 split, 256 merges)."""
    return on_the_server(open_page("pages/steps.py"))


@pytest.fixture
def tiny_app():
    """The steps page for Basic trained on "aaabdaaabac" to 259 tokens (3 merges)."""
    app = AppTest.from_file(APP, default_timeout=60)
    app.run()
    app.text_area(key="text").set_value(TINY).run()
    app.selectbox(key="kind").set_value("Train: no split (Basic)").run()
    app.number_input(key="vocab_size").set_value(259).run()
    app.button(key="train").click().run()
    app.switch_page("pages/steps.py").run()
    assert not app.exception
    return on_the_server(app)


def test_renders_at_step_1_and_the_slider_changes_the_token_count(steps_app):
    tok = steps_app.session_state["tok"]
    steps = tok.step_through(load_samples()["English prose"])
    assert steps_app.slider(key="step").value == 1
    assert metrics(steps_app)["Step"] == f"1 of {tok.num_merges}"
    assert metrics(steps_app)["Tokens"] == f"{len(steps.tokens_at(1)):,}"
    before = metrics(steps_app)["Tokens"]
    steps_app.slider(key="step").set_value(5).run()
    assert not steps_app.exception
    assert metrics(steps_app)["Tokens"] != before
    assert metrics(steps_app)["Tokens"] == f"{len(steps.tokens_at(5)):,}"
    ratio = steps.num_bytes / len(steps.tokens_at(5))
    assert metrics(steps_app)["Compression ratio"] == f"{ratio:.2f}×"


def test_next_and_prev_move_by_one_on_the_first_click_and_clamp(tiny_app):
    app = tiny_app
    assert app.slider(key="step").value == 1
    app.button(key="step_next").click().run()
    assert app.slider(key="step").value == 2
    assert metrics(app)["Step"] == "2 of 3"
    app.button(key="step_next").click().run()
    app.button(key="step_next").click().run()  # already at the last merge
    assert app.slider(key="step").value == 3
    assert metrics(app)["Tokens"] == "5"
    app.button(key="step_prev").click().run()
    assert app.slider(key="step").value == 2
    app.slider(key="step").set_value(0).run()
    app.button(key="step_prev").click().run()
    assert app.slider(key="step").value == 0
    assert metrics(app)["Tokens"] == "11"
    assert "no merges yet" in merge_card(app)
    assert not app.exception


def test_merge_info_and_why_for_the_classic_example(tiny_app):
    app = tiny_app
    app.slider(key="step").set_value(2).run()
    card = merge_card(app)
    assert "Merge 2 of 3" in card
    assert "(256, 97) → 257, seen 2 times" in card
    assert ">aa<" in card and ">aaa<" in card
    why = next(d.value for d in app.dataframe if "note" in d.value.columns)
    assert list(why["pair"][:2]) == ["aa + a", "a + b"]
    assert list(why["count"][:2]) == [2, 2]
    assert list(why["note"][:2]) == ["chosen", "tie: also 2"]
    rule = next(m.value for m in app.markdown if m.value.startswith("Tie on count 2"))
    assert "occurs first in the text" in rule and "max(stats, key=stats.get)" in rule
    # the text after 2 merges, with the two "aaa" just made outlined
    view = tokens_view(app)
    assert view.count(" new") == 2
    assert metrics(app)["Tokens"] == "7" and metrics(app)["Made by this merge"] == "2"
    app.slider(key="step").set_value(1).run()
    assert next(m.value for m in app.markdown if m.value.startswith("Most frequent pair"))


def test_chart_has_the_training_and_held_out_texts_and_a_marker_at_k(tiny_app):
    app = tiny_app
    app.slider(key="step").set_value(2).run()
    spec, data = chart_data(app)
    lines = data[spec["layer"][0]["data"]["name"]]
    rule = data[spec["layer"][1]["data"]["name"]]
    assert set(rule["merges"]) == {2}
    texts = list(dict.fromkeys(lines["text"]))
    assert texts[0].startswith("training text") and texts[1].startswith("held-out: ")
    training = lines[lines["text"] == texts[0]]
    assert list(training["value"]) == [11, 9, 7, 5]
    assert app.selectbox(key="step_heldout").value == "English prose"  # not the training text
    app.radio(key="step_metric").set_value("Compression ratio").run()
    spec, data = chart_data(app)
    dots = data[spec["layer"][2]["data"]["name"]]
    assert dots.loc[dots["text"] == texts[0], "value"].item() == pytest.approx(11 / 7)
    app.selectbox(key="step_heldout").set_value("Source code").run()
    spec, data = chart_data(app)
    assert "held-out: Source code" in set(data[spec["layer"][0]["data"]["name"]]["text"])


def test_merge_search_filters_the_table(tiny_app):
    app = tiny_app
    assert list(merge_table(app)["token"]) == ["aa", "aaa", "aaab"]
    app.text_input(key="merge_search").input("aab").run()
    assert list(merge_table(app)["id"]) == [258]
    app.text_input(key="merge_search").input("zzz").run()
    assert merge_table(app).empty
    assert not app.exception


@pytest.mark.parametrize("kind", ["Pretrained: GPT-2", "Pretrained: GPT-4o (o200k_base)"])
def test_pretrained_presets_show_parents_without_counts(steps_app, kind):
    app = steps_app
    app.slider(key="step").set_value(200).run()
    app.selectbox(key="kind").set_value(kind).run()
    assert not app.exception and not app.error
    assert app.slider(key="step").value == 200
    card = merge_card(app)
    assert "Merge 200 of " in card and "count not known" in card
    assert any("Counts are not known for pretrained" in c.value for c in app.caption)
    spec, data = chart_data(app)
    lines = data[spec["layer"][0]["data"]["name"]]
    assert len(lines) <= 2000
    assert not any(t.startswith("training text") for t in set(lines["text"]))
    table = merge_table(app)
    assert "count" not in table.columns and len(table) == 2000
    app.text_input(key="merge_search").input(" the").run()
    table = merge_table(app)
    assert 0 < len(table) < 2000 and table["token"].str.lower().str.contains("·the").all()
    app.button(key="step_next_change").click().run()
    assert app.slider(key="step").value > 200
    assert int(metrics(app)["Made by this merge"].replace(",", "")) > 0  # it occurs in the text
    assert not app.exception


def test_step_is_clamped_when_the_tokenizer_gets_fewer_merges(steps_app):
    app = steps_app
    app.slider(key="step").set_value(200).run()
    app.number_input(key="vocab_size").set_value(300).run()
    app.button(key="train").click().run()
    assert not app.exception
    assert app.slider(key="step").value == 44
    assert metrics(app)["Step"] == "44 of 44"


def test_step_and_choices_survive_a_visit_to_another_page(tiny_app):
    app = tiny_app
    app.slider(key="step").set_value(3).run()
    app.radio(key="step_metric").set_value("Compression ratio").run()
    app.switch_page("pages/overview.py").run()
    app.switch_page("pages/steps.py").run()
    assert not app.exception
    assert app.slider(key="step").value == 3
    assert app.radio(key="step_metric").value == "Compression ratio"


def test_play_advances_each_run_and_stops_at_the_end(tiny_app, monkeypatch):
    intervals = []
    parse = local_script_runner.parse_tree_from_messages

    def recording(msgs):
        intervals.extend(m.auto_rerun.interval for m in msgs if m.HasField("auto_rerun"))
        return parse(msgs)

    monkeypatch.setattr(local_script_runner, "parse_tree_from_messages", recording)
    app = tiny_app
    app.run()
    assert intervals == []  # paused: no timer
    app.select_slider(key="step_speed").set_value("1 merge/s").run()
    app.toggle(key="step_play").set_value(True).run()  # a tick happens at once
    assert app.slider(key="step").value == 2
    assert intervals == [1.0]  # the fragment asks the browser to rerun it every second
    app.run()  # the next tick reaches the last merge: playing stops, with no timer left
    assert app.slider(key="step").value == 3
    assert app.toggle(key="step_play").value is False
    assert intervals == [1.0]
    app.run()
    assert app.slider(key="step").value == 3 and intervals == [1.0]
    app.toggle(key="step_play").set_value(True).run()  # play at the end starts again from 0
    assert app.slider(key="step").value == 1 and intervals == [1.0, 1.0]
    app.select_slider(key="step_speed").set_value("2 merges/s").run()
    assert app.slider(key="step").value == 2 and intervals[-1] == 0.5
    app.button(key="step_prev").click().run()  # the buttons still work while playing
    assert app.slider(key="step").value == 2
    assert not app.exception


def test_empty_text_and_a_tokenizer_without_merges_give_messages_not_tracebacks(steps_app):
    app = steps_app
    app.text_area(key="text").set_value("").run()
    assert not app.exception
    assert metrics(app)["Tokens"] == "0" and metrics(app)["Compression ratio"] == "–"
    app.text_area(key="text").set_value("ab ab ab").run()
    app.number_input(key="vocab_size").set_value(256).run()
    app.button(key="train").click().run()
    assert not app.exception
    assert "no merges" in app.info[0].value
    app.number_input(key="vocab_size").set_value(258).run()
    app.button(key="train").click().run()
    assert not app.exception
    assert app.slider(key="step").value == 0 and metrics(app)["Step"] == "0 of 2"
    app.button(key="step_next").click().run()
    assert "seen 3 times" in merge_card(app)


def test_quiz_mode_on_the_step_through_starts_at_the_slider_step_and_scores():
    from ui.quiz import questions as qz
    app = on_the_server(open_page("pages/steps.py"))
    app.text_area(key="text").set_value("aaabdaaabac").run()
    app.selectbox(key="kind").set_value("Train: no split (Basic)").run()
    app.number_input(key="vocab_size").set_value(259).run()
    app.button(key="train").click().run()
    app.slider(key="step").set_value(1).run()
    app.toggle(key="step_quiz").set_value(True).run()
    assert not app.exception
    assert [m.value for m in app.metric if m.label == "Question: merge"] == ["2 of 3"]
    # merge 2 joins (256, 97), "aa" + "a": tied on count 2 with (97, 98) and first in the text
    question = qz.make_question(app.session_state["tok"], 1)
    label = next(o.label for o in question.options if o.pair == (256, 97))
    app.radio(key="quiz_guess").set_value(label).run()
    app.button(key="quiz_reveal").click().run()
    assert not app.exception
    assert app.session_state["quiz_score"] == (1, 1)
    app.toggle(key="step_quiz").set_value(False).run()
    assert app.slider(key="step").value == 1  # the step view is back where it was


def test_two_sessions_importing_same_named_files_each_see_their_own_merges():
    import bpe_core
    from bpe_core.files import to_minbpe

    def merges_shown(tok):
        app = open_page("pages/exchange.py")
        model = to_minbpe(tok)[0].encode()
        app.file_uploader(key="import_file").set_value(
            [("model.model", model, "application/octet-stream")]).run()
        app.switch_page("pages/steps.py").run()
        assert not app.exception
        table = next(d.value for d in app.dataframe if "bytes" in d.value.columns)
        return " ".join(table["token"])  # the tokens as the page writes them

    tok_a = bpe_core.RegexTokenizer()
    tok_a.train("alpha alpha alpha alpha beta " * 20, 262)
    tok_b = bpe_core.RegexTokenizer()
    tok_b.train("zzz yyy zzz yyy xxx qqq " * 20, 262)
    assert "al" in merges_shown(tok_a)
    shown_b = merges_shown(tok_b)
    assert "zz" in shown_b and "al" not in shown_b  # B's merges, not A's
