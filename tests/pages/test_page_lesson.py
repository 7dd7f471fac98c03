"""AppTest tests for the lesson page (pages/lesson.py): every step on every sample, on an empty
and a hostile text, the links, projector mode, and the "predict the next merge" quiz."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow.ipc
import pytest
import regex
from streamlit.testing.v1 import AppTest
from support import open_page

import ui.kit.state
import ui.lesson.tutorial as le
import ui.quiz.questions as qz
from bpe_core import GPT2_SPLIT_PATTERN, GPT4_SPLIT_PATTERN
from ui.kit.palette import CVD_SAFE_PALETTE, neighbour_report
from ui.kit.samples import load_samples
from ui.kit.tokens_html import PALETTE

APP = str(Path(__file__).resolve().parents[2] / "app.py")
SAMPLES = load_samples()
HOSTILE = "<script>alert(1)</script>\ud800\x00"
HOSTILE_TYPED = "<script>alert(1)</script><img src=x onerror=alert(1)>**bold** ![i](http://x/y.png)\x00"
TINY = "aaabdaaabac"
QUIZ_MODE = "Predict the next merge"


@pytest.fixture
def at():
    return open_page("pages/lesson.py")


def metrics(app) -> dict[str, str]:
    return {m.label: m.value for m in app.metric}


def chart_rows(app):
    """The spec and data frames of the step's one Altair chart."""
    (found,) = [c.proto for c in app.get("vega_lite_chart")]
    frames = [pyarrow.ipc.open_stream(d.data.data).read_pandas() for d in found.datasets]
    return json.loads(found.spec), frames


def page_links(app) -> list[str]:
    """The url path of every page link (pages/bytes.py -> "bytes")."""
    return [link.proto.page for link in app.get("page_link")]


def assert_inert(app) -> None:
    """No user text became live HTML, and markdown shows user text only in code spans."""
    for h in app.html:
        body = h.value.lower()
        for raw in ("<script", "<img", "onerror=alert"):
            assert raw not in body
    for m in [*app.markdown, *app.caption, *app.warning, *app.success]:
        outside = regex.sub(r"(`+).*?\1", "", m.value)
        assert "<script" not in outside and "![i]" not in outside and "**bold**" not in outside


def walk(app, text: str) -> dict[str, dict[str, str]]:
    """Open every step of the guided lesson; check what each shows. Returns the metrics."""
    lesson, _ = le.lesson_text(text)
    seen = {}
    for i, step in enumerate(le.STEPS):
        app.radio(key="lesson_step").set_value(step).run()
        assert not app.exception, step
        assert not app.main.error, (step, [e.value for e in app.main.error])
        assert app.header[0].value == step
        assert page_links(app) == [Path(le.FULL_PAGE[i][0]).stem]
        assert_inert(app)
        seen[step] = metrics(app)
    if not lesson:
        return seen
    n_bytes = len(lesson.encode("utf-8"))
    assert seen[le.STEPS[0]]["UTF-8 bytes"] == f"{n_bytes:,}"
    assert seen[le.STEPS[0]]["Characters (code points)"] == f"{len(lesson):,}"
    k = min(le.START_MERGES, le.train_lesson(lesson).num_merges)
    assert seen[le.STEPS[3]]["Merges"] == str(k)
    assert seen[le.STEPS[3]]["Vocabulary"] == f"{256 + k:,}"
    for name, pattern in (("GPT-2", GPT2_SPLIT_PATTERN), ("GPT-4", GPT4_SPLIT_PATTERN)):
        assert seen[le.STEPS[6]][f"{name} chunks"] == f"{len(regex.findall(pattern, lesson)):,}"
    return seen


@pytest.mark.parametrize("label", list(SAMPLES))
def test_every_step_on_every_sample(at, label):
    at.selectbox(key="sample").set_value(label).run()
    assert not at.exception
    seen = walk(at, SAMPLES[label])
    assert seen[le.STEPS[2]]["Length before"] == seen[le.STEPS[0]]["UTF-8 bytes"]


def test_step_details_on_the_english_sample(at):
    text, _ = le.lesson_text(SAMPLES["English prose"])
    ids = list(text.encode())
    top = le.top_pairs(ids)
    at.radio(key="lesson_step").set_value(le.STEPS[1]).run()
    _, (frame,) = chart_rows(at)
    assert list(frame["count"]) == [p.count for p in top]

    at.radio(key="lesson_step").set_value(le.STEPS[2]).run()
    options = at.selectbox(key="lesson_pair").options
    assert len(options) == le.HAND_PAIRS
    at.selectbox(key="lesson_pair").set_value(options[3]).run()
    done = le.hand_merge(ids, le.top_pairs(ids, le.HAND_PAIRS)[3].pair)
    assert metrics(at)["Length after"] == f"{len(done.after):,}"
    assert any('class="t c' in h.value and " new" in h.value for h in at.html)

    at.radio(key="lesson_step").set_value(le.STEPS[3]).run()
    at.slider(key="lesson_merges").set_value(50).run()
    m = metrics(at)
    assert m["Merges"] == "50" and m["Vocabulary"] == "306"
    tok = le.train_lesson(text)
    counts = tok.step_through(text).token_counts()
    assert m["Tokens"] == f"{counts[50]:,}"
    assert m["Compression ratio"] == f"{len(ids) / counts[50]:.2f}×"
    _, frames = chart_rows(at)
    line = next(f for f in frames if len(f) == le.LESSON_MERGES + 1)
    assert line["value"].iloc[0] == 1.0  # the compression ratio before any merge
    assert len(at.dataframe[0].value) == 50

    at.radio(key="lesson_step").set_value(le.STEPS[4]).run()
    assert any("UnicodeDecodeError" in w.value for w in at.warning)  # the demonstration
    at.text_input(key="lesson_ids").input("72, 105, 33").run()
    assert not at.main.error and "'Hi!'" in [c.value for c in at.code]
    at.text_input(key="lesson_ids").input("72, lots").run()
    assert "is not an id" in at.error[0].value
    at.text_input(key="lesson_ids").input("72, 99999").run()
    assert "unknown token id 99999" in at.error[0].value

    at.radio(key="lesson_step").set_value(le.STEPS[5]).run()
    at.text_input(key="lesson_word").input("tokenizer").run()
    assert "The same ids as `encode`." in " ".join(c.value for c in at.caption)
    tok = at.session_state["tok"]
    final = tok.encode_ordinary("tokenizer")
    assert f"tokens: {', '.join(map(str, final))}." in " ".join(c.value for c in at.caption)

    at.radio(key="lesson_step").set_value(le.STEPS[7]).run()
    table = next(h.value for h in at.html if "lesson-table" in h.value)
    for name in ("Lesson (step 4, 200 merges)", "Yours: GPT-4 split", "GPT-2", "GPT-4 (cl100k_base)",
                 "GPT-4o (o200k_base)"):
        assert name in table
    at.selectbox(key="lesson_real").set_value("GPT-2").run()
    assert not at.exception


def test_split_differences_show_on_the_tricky_sample(at):
    at.selectbox(key="sample").set_value("Tricky: numbers, contractions, whitespace").run()
    at.radio(key="lesson_step").set_value(le.STEPS[6]).run()
    assert int(metrics(at)["Places cut differently"].replace(",", "")) > 5
    frame = at.dataframe[0].value
    assert list(frame.columns) == ["text", "GPT-2 chunks", "GPT-4 chunks"]
    assert any(" new" in h.value for h in at.html)  # differing chunks are outlined


def test_empty_text_every_step_and_the_quiz():
    app = AppTest.from_file(APP, default_timeout=60)
    app.session_state["text"] = ""  # a first visit with nothing to train on
    app.run()
    app.switch_page("pages/lesson.py").run()
    assert not app.exception
    walk(app, "")
    for step in (0, 1, 2, 3, 6, 7):
        app.radio(key="lesson_step").set_value(le.STEPS[step]).run()
        assert "The text is empty" in app.main.info[0].value
    app.radio(key="lesson_mode").set_value(QUIZ_MODE).run()
    assert not app.exception and "needs a tokenizer trained here" in app.main.info[0].value


def test_hostile_text_typed_in_the_sidebar(at):
    at.text_area(key="text").input(HOSTILE_TYPED).run()
    at.button(key="train").click().run()
    assert not at.exception
    walk(at, HOSTILE_TYPED)
    at.radio(key="lesson_step").set_value(le.STEPS[5]).run()
    at.text_input(key="lesson_word").input("<img src=x>").run()
    assert not at.exception and not at.main.error
    assert_inert(at)
    at.radio(key="lesson_mode").set_value(QUIZ_MODE).run()
    assert not at.exception
    assert_inert(at)


@pytest.mark.parametrize("where", [*le.STEPS, QUIZ_MODE])
def test_hostile_text_with_a_lone_surrogate(monkeypatch, where):
    # Streamlit's st.text_area cannot hold a lone surrogate (it raises UnicodeEncodeError in
    # the sidebar, and a browser never sends one), so the text reaches the page past the
    # sidebar: what the page's current_text() returns is replaced.
    monkeypatch.setattr(ui.kit.state, "current_text", lambda: HOSTILE)
    app = AppTest.from_file(APP, default_timeout=60)
    app.run()
    if where == QUIZ_MODE:
        app.session_state["lesson_mode"] = QUIZ_MODE
    else:
        app.session_state["lesson_step"] = where
    app.switch_page("pages/lesson.py").run()
    assert not app.exception
    assert not app.main.error, [e.value for e in app.main.error]
    assert_inert(app)
    if where == le.STEPS[0]:
        assert metrics(app)["Characters (code points)"] == f"{len(HOSTILE)}"
        chars = app.dataframe[0].value
        assert "U+FFFD" in list(chars["code point"])  # the surrogate, replaced
        assert "\\x00" in list(chars["character"])


def test_step_buttons_and_the_step_survive_a_page_change(at):
    assert at.radio(key="lesson_step").value == le.STEPS[0]
    at.button(key="lesson_next").click().run()
    at.button(key="lesson_next").click().run()
    assert at.radio(key="lesson_step").value == le.STEPS[2]
    at.button(key="lesson_prev").click().run()
    assert at.radio(key="lesson_step").value == le.STEPS[1]
    at.switch_page("pages/tokens.py").run()
    at.switch_page("pages/lesson.py").run()
    assert not at.exception
    assert at.radio(key="lesson_step").value == le.STEPS[1]


def test_projector_mode_uses_large_tokens_and_the_checked_palette(at):
    at.radio(key="lesson_step").set_value(le.STEPS[2]).run()
    assert not any("bpe-tokens large" in h.value for h in at.html)
    at.toggle(key="projector").set_value(True).run()
    assert not at.exception
    styles = " ".join(h.value for h in at.html)
    # the token colours are the checked ones: the token view's own, or the lesson's override
    if le.projector_palette_css():
        for i, colour in enumerate(CVD_SAFE_PALETTE):
            assert f"span.c{i} {{ background: {colour}; }}" in styles
    else:
        assert all(row.ok for row in neighbour_report(PALETTE))
        assert "div.bpe-tokens span.c0" not in styles
    assert "stMetricValue" in styles
    assert any('class="bpe-tokens large"' in h.value for h in at.html)
    at.radio(key="lesson_step").set_value(le.STEPS[0]).run()
    assert any('class="lesson-table large"' in h.value for h in at.html)  # tables as large HTML
    at.radio(key="lesson_step").set_value(le.STEPS[1]).run()
    spec, _ = chart_rows(at)
    assert spec["config"]["axis"]["labelFontSize"] == 18


# -- the quiz ---------------------------------------------------------------------------------


@pytest.fixture
def quiz_app():
    """The quiz for Basic trained by the sidebar on "aaabdaaabac" to 259 tokens (3 merges)."""
    app = AppTest.from_file(APP, default_timeout=60)
    app.run()
    app.text_area(key="text").input(TINY).run()
    app.selectbox(key="kind").set_value("Train: no split (Basic)").run()
    app.number_input(key="vocab_size").set_value(259).run()
    app.button(key="train").click().run()
    app.switch_page("pages/lesson.py").run()
    app.radio(key="lesson_mode").set_value(QUIZ_MODE).run()
    assert not app.exception
    return app


def guess(app, pair) -> None:
    q = qz.make_question(app.session_state["tok"], app.session_state["quiz_k"])
    label = next(o.label for o in q.options if o.pair == pair)
    app.radio(key="quiz_guess").set_value(label).run()
    app.button(key="quiz_reveal").click().run()
    assert not app.exception


def test_quiz_asks_reveals_and_keeps_the_score(quiz_app):
    at = quiz_app
    assert metrics(at)["Question: merge"] == "1 of 3"
    assert metrics(at)["Score"] == "no answers yet"
    assert at.radio(key="quiz_guess").value is None
    assert len(at.radio(key="quiz_guess").options) == len(at.session_state["tok"].history[0].candidates)

    guess(at, (97, 97))  # right: "aa" occurs 4 times
    assert at.session_state["quiz_score"] == (1, 1)
    assert at.success[0].value.startswith("**Right!**")
    assert at.radio(key="quiz_guess").disabled and at.button(key="quiz_reveal").disabled

    at.button(key="quiz_next").click().run()
    assert metrics(at)["Question: merge"] == "2 of 3"
    assert at.radio(key="quiz_guess").value is None and not at.success

    guess(at, (97, 98))  # wrong: tied with (256, 97) at 2, which occurs first
    assert at.session_state["quiz_score"] == (1, 2)
    verdict = at.warning[0].value
    assert "**Not this time.**" in verdict and "(256, 97)" in verdict
    assert "**tie**" in verdict and "lost only on the tie rule" in verdict
    table = next(h.value for h in at.html if "lesson-table" in h.value)
    assert "✔ merged" in table and "tie, but later" in table
    assert metrics(at)["Score"] == "1 of 2 right"

    at.button(key="quiz_next").click().run()
    guess(at, (257, 98))
    assert at.session_state["quiz_score"] == (2, 3)
    assert at.button(key="quiz_next").disabled
    assert "That was the last merge" in at.main.info[0].value

    at.button(key="quiz_restart").click().run()
    assert at.session_state["quiz_score"] == (0, 0)
    assert metrics(at)["Question: merge"] == "1 of 3"


def test_quiz_reveal_without_a_guess_is_not_scored(quiz_app):
    at = quiz_app
    at.button(key="quiz_reveal").click().run()
    assert not at.exception
    assert "Pick a pair first" in at.warning[0].value
    assert at.session_state["quiz_score"] == (0, 0)


def test_quiz_counts_are_hidden_until_asked_for(quiz_app):
    at = quiz_app
    assert not any("lesson-table" in h.value for h in at.html)
    at.toggle(key="quiz_show_counts").set_value(True).run()
    table = next(h.value for h in at.html if "lesson-table" in h.value)
    assert "<th>count</th>" in table and "first occurs" not in table


def test_quiz_score_survives_a_page_change(quiz_app):
    at = quiz_app
    guess(at, (97, 97))
    at.switch_page("pages/steps.py").run()
    at.switch_page("pages/lesson.py").run()
    assert not at.exception
    assert at.radio(key="lesson_mode").value == QUIZ_MODE
    assert metrics(at)["Score"] == "1 of 1 right"


def test_quiz_with_a_pretrained_tokenizer_says_what_to_do(at):
    at.selectbox(key="kind").set_value("Pretrained: GPT-2").run()
    at.radio(key="lesson_mode").set_value(QUIZ_MODE).run()
    assert not at.exception
    assert "needs a tokenizer trained here" in at.main.info[0].value
