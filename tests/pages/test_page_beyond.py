"""AppTest tests for the Superwords and fair merges page: SuperBPE beside classical BPE on the
sidebar's text, parity-aware BPE beside classical BPE on the parallel texts."""

from __future__ import annotations

import re

import pytest
from support import open_page

from bpe_core import RegexTokenizer
from bpe_core.superbpe import train_superbpe
from bpe_lab.who_pays.languages import load_parallel
from bpe_lab.who_pays.parity import parity_comparison


@pytest.fixture
def at():
    return open_page("pages/beyond.py")


COLUMNS = {  # a column that tells each table apart (AppTest does not give a dataframe's key)
    "beyond_summary": "superword tokens in the text",
    "beyond_curve_table": "stage",
    "beyond_parity_summary": "Gini over languages",
    "beyond_parity_table": "merges chosen for it",
}


def frame(app, key):
    return next(d for d in app.dataframe if COLUMNS[key] in d.value.columns).value


def test_superbpe_beside_classical_on_the_sidebars_text(at):
    text = at.session_state["text"]
    rows = {r["tokenizer"]: r for r in frame(at, "beyond_summary").to_dict("records")}
    # the sidebar's default: vocabulary 512, GPT-4 split; transition 80% of 256 merges
    classical = RegexTokenizer()
    classical.train(text, 512)
    superbpe = train_superbpe(text, 512, 204)
    assert rows["classical BPE"]["tokens"] == len(classical.encode_ordinary(text))
    assert rows["SuperBPE"]["tokens"] == len(superbpe.encode_ordinary(text))
    assert rows["SuperBPE"]["tokens"] < rows["classical BPE"]["tokens"]
    assert rows["classical BPE"]["superword tokens in the vocabulary"] == 0
    assert rows["SuperBPE"]["superword tokens in the vocabulary"] == len(superbpe.superword_ids()) > 0
    views = [h.value for h in at.html if "bpe-tokens" in h.value]
    assert len(views) == 2
    outlined = [len(re.findall(r'class="t [^"]*\bnew"', v)) for v in views]
    assert outlined[0] == 0 and outlined[1] > 0  # only SuperBPE's superwords are outlined
    curve = frame(at, "beyond_curve_table")
    assert 204 in curve["merges"].tolist()
    at_transition = curve[curve["merges"] == 204].iloc[0]
    # up to the transition SuperBPE's merges are classical BPE's: they have one token count
    assert at_transition["classical BPE: tokens"] == len(
        RegexTokenizer(merges=dict(list(classical.merges.items())[:204])).encode_ordinary(text))
    assert "merge 205 on" in " ".join(c.value for c in at.caption)


def test_the_download_is_a_tokenizer_json_with_the_same_ids(at, tmp_path):
    import tokenizers

    button = next(b for b in at.get("download_button") if "tokenizer.json" in str(b.proto.label))
    assert button.proto.label == "Download SuperBPE as tokenizer.json"
    text = at.session_state["text"]
    superbpe = train_superbpe(text, 512, 204)
    path = tmp_path / "t.json"
    from bpe_core.formats import to_hf_json
    path.write_text(to_hf_json(superbpe), encoding="utf-8")
    hf = tokenizers.Tokenizer.from_file(str(path))
    assert hf.encode(text).ids == superbpe.encode_ordinary(text)


def test_moving_the_transition_to_100_percent_is_classical_bpe(at):
    at.slider(key="beyond_transition").set_value(100).run()
    assert not at.exception
    rows = {r["tokenizer"]: r for r in frame(at, "beyond_summary").to_dict("records")}
    assert rows["SuperBPE"]["tokens"] == rows["classical BPE"]["tokens"]
    assert rows["SuperBPE"]["superword tokens in the vocabulary"] == 0


def test_parity_lowers_the_gini_on_the_parallel_texts(at):
    at.radio(key="beyond_variant").set_value("Parity-aware BPE: fair merges").run()
    assert not at.exception
    expected = parity_comparison(load_parallel(), 512)
    summary = {r["tokenizer"]: r for r in frame(at, "beyond_parity_summary").to_dict("records")}
    assert summary["classical BPE"]["Gini over languages"] == pytest.approx(expected.classical_gini)
    assert summary["parity-aware BPE"]["Gini over languages"] == pytest.approx(expected.parity_gini)
    assert expected.parity_gini < expected.classical_gini
    table = frame(at, "beyond_parity_table")
    assert len(table) == 33
    assert table["merges chosen for it"].sum() == 256
    english = table[table["language"] == "English"].iloc[0]
    assert english["classical BPE: × English"] == english["parity-aware BPE: × English"] == 1.0


def test_stop_keeps_training_from_starting_until_train_is_pressed(at):
    before = frame(at, "beyond_summary")
    # Stop pressed as the transition moves: nothing trains, the page says so and waits
    at.slider(key="beyond_transition").set_value(25)
    at.button(key="beyond_stop").click().run()
    assert not at.exception
    assert any("Training was stopped" in w.value for w in at.warning)
    assert not any("superword tokens in the text" in d.value.columns for d in at.dataframe)
    at.button(key="beyond_train").click().run()
    assert not at.exception
    after = frame(at, "beyond_summary")
    assert after["tokens"].tolist()[0] == before["tokens"].tolist()[0]  # classical: the same
    expected = train_superbpe(at.session_state["text"], 512, 64)  # 25% of 256 merges
    assert after["tokens"].tolist()[1] == len(expected.encode_ordinary(at.session_state["text"]))
    assert after["tokens"].tolist()[1] != before["tokens"].tolist()[1]


def test_boundless_beside_classical_finds_its_transition(at, tmp_path):
    import tokenizers

    from bpe_core.boundless import train_boundless
    from bpe_core.formats import to_hf_json

    at.radio(key="beyond_variant").set_value("BoundlessBPE: the transition found").run()
    assert not at.exception
    assert not at.slider  # no transition to set: phase two finds it
    text = at.session_state["text"]
    boundless = train_boundless(text, 512)
    assert boundless.superword_ids(), "the sample text should make supermerges"
    rows = {r["tokenizer"]: r for r in frame(at, "beyond_summary").to_dict("records")}
    assert rows["BoundlessBPE"]["tokens"] == len(boundless.encode_ordinary(text))
    assert rows["BoundlessBPE"]["tokens"] < rows["classical BPE"]["tokens"]
    assert rows["BoundlessBPE"]["superword tokens in the vocabulary"] == len(
        boundless.superword_ids())
    captions = " ".join(c.value for c in at.caption)
    assert f"BoundlessBPE kept {boundless.transition:,} of its phase one's merges" in captions
    assert f"merge {boundless.transition + 1:,} on" in captions
    assert boundless.transition in frame(at, "beyond_curve_table")["merges"].tolist()
    views = [h.value for h in at.html if "bpe-tokens" in h.value]
    outlined = [len(re.findall(r'class="t [^"]*\bnew"', v)) for v in views]
    assert outlined[0] == 0 and outlined[1] > 0
    button = next(b for b in at.get("download_button") if "tokenizer.json" in str(b.proto.label))
    assert button.proto.label == "Download BoundlessBPE as tokenizer.json"
    path = tmp_path / "b.json"
    path.write_text(to_hf_json(boundless), encoding="utf-8")
    assert tokenizers.Tokenizer.from_file(str(path)).encode(text).ids == boundless.encode_ordinary(
        text)
