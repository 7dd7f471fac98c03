"""AppTest tests for the frame: the shared sidebar, training, and state kept across pages."""

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest
from support import front_counts

import bpe_core
from ui.kit.navigation import SECTIONS
from ui.kit.samples import load_samples

ROOT = Path(__file__).resolve().parents[2]
APP = str(ROOT / "app.py")
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


def sidebar_navigation(at) -> list[str]:
    """The sidebar's navigation, in order: "# section", "link: title", "here: title"."""
    out = []
    for el in at.sidebar:
        if el.type == "page_link":
            out.append(f"link: {el.proto.label}")
        elif el.type == "html" and 'class="bpe-nav-section"' in el.proto.body:
            out.append("# " + re.sub(r"<[^>]+>", "", el.proto.body))
        elif el.type == "html" and 'aria-current="page"' in el.proto.body:
            out.append("here: " + re.sub(r"<[^>]+>", "", el.proto.body.split("</span>", 1)[1]))
    return out


def test_the_sidebar_links_every_other_page_and_marks_the_one_on_screen(at):
    """Drawn by app.py (ui/kit/navigation.py) before the page's own script: the sections in
    order, a link to every page but this one, which is marked; no link adds to the address.
    (AppTest's switch_page runs a page's script without app.py: the mark moving with the learner
    is tested in a browser, tests/browser/test_a11y_browser.py.)"""
    expected = []
    for name, pages in SECTIONS.items():
        expected.append(f"# {name}")
        expected += [f"here: {p.title}" if p.path == "pages/overview.py" else f"link: {p.title}"
                     for p in pages]
    assert sidebar_navigation(at) == expected
    links = [el.proto for el in at.sidebar if el.type == "page_link"]
    assert {link.page for link in links} >= {"lesson", "steps", "forest", "report"}
    assert not any(link.query_string for link in links)


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


def test_a_shared_link_carries_the_special_token_rule():
    """A teacher who reads `<|endoftext|>` as the special token shares a link that does too;
    the default rule is not written in the link (older links read as before)."""
    app = AppTest.from_file(APP, default_timeout=60)
    app.run()
    assert "special" not in app.query_params
    app.radio(key="special_rule").set_value("special").run()
    assert app.query_params["special"] == "special"
    shared = AppTest.from_file(APP, default_timeout=60)
    shared.query_params.update(dict(app.query_params))
    shared.run()
    assert not shared.exception
    assert shared.radio(key="special_rule").value == "special"
    bad = AppTest.from_file(APP, default_timeout=60)
    bad.query_params.update({"special": "maybe"})
    bad.run()
    assert bad.radio(key="special_rule").value == "text"
    assert "special 'maybe'" in " ".join(i.value for i in bad.info).replace("\\", "")


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


def test_a_paste_longer_than_the_app_keeps_is_cut_with_how_much_and_the_command_for_all_of_it(at):
    """Streamlit's box refused a paste over its limit without a word (the old text stayed); now
    it takes it, and the app keeps the first 200,000 characters and says how many it cut."""
    at.text_area(key="text").set_value("word " * 61_000).run()  # 305,000 characters
    assert not at.exception
    assert len(at.session_state["text"]) == 200_000
    notes = " ".join(i.value for i in at.info).replace("\\", "")
    assert "Keeping the first 200,000 of 305,000 characters: the last 105,000 were cut." in notes
    commands = [c.value for c in at.code if c.value.startswith("bpe-lab train")]
    assert commands == ["bpe-lab train my-text.txt --vocab-size=512 --pattern=gpt4 --out my-text.model"]
    # the command follows the sidebar's choices (special tokens count in the vocabulary, in the
    # app as on the command line)
    at.selectbox(key="kind").set_value("Train: GPT-2 split").run()
    at.number_input(key="vocab_size").set_value(1024).run()
    at.text_input(key="specials").set_value("<|endoftext|>").run()
    commands = [c.value for c in at.code if c.value.startswith("bpe-lab train")]
    assert commands == ["bpe-lab train my-text.txt --vocab-size=1024 --pattern=gpt2 "
                        "'--special-token=<|endoftext|>' --out my-text.model"]
    # a text that fits clears the note
    at.text_area(key="text").set_value("a short text").run()
    assert at.session_state["text"] == "a short text"
    assert "were cut" not in " ".join(i.value for i in at.info)
    assert not [c for c in at.code if c.value.startswith("bpe-lab train")]


def test_an_upload_cut_to_the_cap_offers_to_train_on_the_whole_file(at, tmp_path):
    corpus = "".join(f"line {i} of my notes\n" for i in range(12_000))  # about 250,000
    at.file_uploader(key="upload").set_value(("my notes.txt", corpus.encode(), "text/plain")).run()
    assert not at.exception
    assert at.session_state["text"] == corpus[:200_000]
    notes = " ".join(i.value for i in at.info).replace("\\", "")
    assert f"the last {len(corpus) - 200_000:,} were cut" in notes
    [command] = [c.value for c in at.code if c.value.startswith("bpe-lab train")]
    assert command == ("bpe-lab train 'my notes.txt' --vocab-size=512 --pattern=gpt4"
                       " --out my-notes.model")
    # the command as shown trains on every line of the file, and writes what Export & import opens
    (tmp_path / "my notes.txt").write_text(corpus, encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "bpe_lab", *shlex.split(command)[1:],
                           "--workers", "1"], cwd=tmp_path, capture_output=True, text=True,
                          timeout=120, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.returncode == 0, done.stderr
    tok = bpe_core.load(str(tmp_path / "my-notes.model"))
    whole, kept = bpe_core.RegexTokenizer(), bpe_core.RegexTokenizer()
    whole.train(corpus, 512)
    kept.train(corpus[:200_000], 512)
    assert tok.merges == whole.merges != kept.merges  # all of it, not what the app kept
    # picking a sample afterwards drops the note
    at.selectbox(key="sample").set_value("Source code").run()
    assert not [c for c in at.code if c.value.startswith("bpe-lab train")]
