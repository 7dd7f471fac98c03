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


def test_the_hybrid_and_the_window_are_settings_of_the_page(at):
    at.radio(key="beyond_variant").set_value("Parity-aware BPE: fair merges").run()
    plain = {r["tokenizer"]: r for r in frame(at, "beyond_parity_summary").to_dict("records")}
    at.radio(key="beyond_parity_kind").set_value("hybrid: first half classical").run()
    assert not at.exception
    # vocabulary 512: 256 merges, the first 128 classical; the hybrid keeps more compression
    hybrid = parity_comparison(load_parallel(), 512, global_merges=128)
    rows = {r["tokenizer"]: r for r in frame(at, "beyond_parity_summary").to_dict("records")}
    assert rows["parity-aware BPE"]["tokens, all languages"] == hybrid.parity_total
    assert hybrid.parity_total < plain["parity-aware BPE"]["tokens, all languages"]
    assert frame(at, "beyond_parity_table")["merges chosen for it"].sum() == 128
    at.radio(key="beyond_parity_kind").set_value("moving window of 100").run()
    assert not at.exception
    window = parity_comparison(load_parallel(), 512, window=100)
    rows = {r["tokenizer"]: r for r in frame(at, "beyond_parity_summary").to_dict("records")}
    assert rows["parity-aware BPE"]["tokens, all languages"] == window.parity_total
    assert rows["parity-aware BPE"]["Gini over languages"] == pytest.approx(window.parity_gini)


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


# ---------------------------------------------------------------------------------------------
# Step through SuperBPE: the page marks the merge where stage two begins


def stage_texts(app) -> list[str]:
    """The stage sentences the steps page shows (an info box at the start of stage two, a
    caption elsewhere)."""
    return [e.value for e in [*app.info, *app.caption]
            if e.value.startswith(("Stage ", "SuperBPE: ", "Phase ", "BoundlessBPE: "))]


def test_step_through_superbpe_marks_where_stage_two_begins(at):
    at.button(key="beyond_step").click().run()
    assert not at.exception
    # the session's tokenizer is now this SuperBPE (t = 80% of 256 merges = 204)
    tok = at.session_state["imported"][0]
    assert tok.variant == "superbpe" and tok.transition == 204 and tok.num_merges == 256
    assert "stage two from merge 205" in at.session_state["imported"][1]
    at.switch_page("pages/steps.py").run()  # (AppTest stays on the page it was given)
    assert not at.exception
    # the in-browser view told the server it stopped at 205 (ui/stepping/component.py)
    at.session_state["step"] = 205
    at.run()
    assert [i.value for i in at.info if i.value.startswith("Stage two begins here: merge 205")]
    at.toggle(key="step_instant").set_value(False).run()
    assert "SuperBPE of the Superwords page" in " ".join(c.value for c in at.caption)

    at.slider(key="step").set_value(205).run()
    assert not at.exception
    marker = [i.value for i in at.info if "Stage two begins here" in i.value]
    assert marker == ["Stage two begins here: merge 205 is the first of 52 made across spaces,"
                      " line breaks and single punctuation marks (superword merges); merges 1"
                      " to 204 were stage one's."]

    at.slider(key="step").set_value(204).run()
    assert stage_texts(at) == ["Stage one, merge 204 of 204: inside the split pattern's pieces,"
                               " as classical BPE. Stage two begins at merge 205."]
    assert not [i for i in at.info if "Stage two begins here" in i.value]

    at.slider(key="step").set_value(230).run()
    assert stage_texts(at) == ["Stage two, merge 26 of 52 (merge 230): across spaces, line"
                               " breaks and single punctuation marks (superword merges). It"
                               " began at merge 205."]

    table = next(d.value for d in at.dataframe if "bytes" in d.value.columns)
    stages = dict(zip(table["step"], table["stage"], strict=True))
    assert {stages[k] for k in range(1, 205)} == {"one"}
    assert {stages[k] for k in range(205, 257)} == {"two (superword merges)"}
    # a superword token is made in stage two, and none in stage one
    words = dict(zip(table["step"], table["token"], strict=True))
    assert any(" " in words[k].strip(" ·") or "·" in words[k].strip("·")
               for k in range(205, 257))


def test_a_classical_tokenizer_has_no_stages_on_the_steps_page():
    from support import open_page as open_app

    app = open_app("pages/steps.py")
    app.toggle(key="step_instant").set_value(False).run()
    app.slider(key="step").set_value(3).run()
    assert not app.exception
    assert stage_texts(app) == []
    table = next(d.value for d in app.dataframe if "bytes" in d.value.columns)
    assert "stage" not in table.columns


def test_the_sidebars_special_tokens_are_cut_out_of_both_trainings(at):
    eot = "<|endoftext|>"
    text = (at.session_state["text"][:1500] + eot) * 2
    at.text_area(key="text").set_value(text)
    at.text_input(key="specials").set_value(eot)
    at.button(key="train").click().run()
    at.switch_page("pages/beyond.py").run()
    assert not at.exception
    # 512 tokens: the special token, and 255 merges of which 80% (204) are stage one's
    superbpe = train_superbpe(text, 512, 204, special_tokens=[eot])
    assert superbpe.special_tokens == {eot: 256 + superbpe.num_merges}
    assert not any(b"<|" in superbpe.vocab[i] for i in superbpe.merges.values())
    classical = RegexTokenizer()
    classical.train(text, 512, special_tokens=[eot])
    # the sidebar's rule: special-token text read as text by default, then as the special token
    rows = {r["tokenizer"]: r for r in frame(at, "beyond_summary").to_dict("records")}
    assert rows["SuperBPE"]["tokens"] == len(superbpe.encode(text, allowed_special="none"))
    assert rows["classical BPE"]["tokens"] == len(classical.encode(text, allowed_special="none"))
    at.radio(key="special_rule").set_value("special").run()
    assert not at.exception
    rows = {r["tokenizer"]: r for r in frame(at, "beyond_summary").to_dict("records")}
    assert rows["SuperBPE"]["tokens"] == len(superbpe.encode(text, allowed_special="all"))
    assert rows["classical BPE"]["tokens"] == len(classical.encode(text, allowed_special="all"))
    assert rows["SuperBPE"]["tokens"] < len(superbpe.encode(text, allowed_special="none"))
    assert rows["SuperBPE"]["merges"] == superbpe.num_merges
    assert "stage one of SuperBPE made 204 merges" in " ".join(c.value for c in at.caption)


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


def test_boundless_is_cut_at_the_sidebars_special_tokens_too(at):
    from bpe_core.boundless import train_boundless

    eot = "<|endoftext|>"
    text = (at.session_state["text"][:1500] + eot) * 2
    at.text_area(key="text").set_value(text)
    at.text_input(key="specials").set_value(eot)
    at.button(key="train").click().run()
    at.switch_page("pages/beyond.py").run()
    at.radio(key="beyond_variant").set_value("BoundlessBPE: the transition found").run()
    assert not at.exception
    assert not [i for i in at.info if "special tokens" in i.value]
    boundless = train_boundless(text, 512, special_tokens=[eot])
    assert boundless.special_tokens == {eot: 256 + boundless.num_merges}
    assert not any(b"<|" in boundless.vocab[i] for i in boundless.merges.values())
    rows = {r["tokenizer"]: r for r in frame(at, "beyond_summary").to_dict("records")}
    assert rows["BoundlessBPE"]["tokens"] == len(boundless.encode(text, allowed_special="none"))
    at.radio(key="special_rule").set_value("special").run()  # the sidebar's rule
    rows = {r["tokenizer"]: r for r in frame(at, "beyond_summary").to_dict("records")}
    assert rows["BoundlessBPE"]["tokens"] == len(boundless.encode(text, allowed_special="all"))
    assert rows["BoundlessBPE"]["merges"] == boundless.num_merges == 255


def test_step_through_boundless_marks_where_phase_two_begins(at):
    from bpe_core.boundless import train_boundless

    at.radio(key="beyond_variant").set_value("BoundlessBPE: the transition found").run()
    assert at.button(key="beyond_step").proto.label == "Step through BoundlessBPE's merges"
    at.button(key="beyond_step").click().run()
    assert not at.exception
    expected = train_boundless(at.session_state["text"], 512)
    t, n = expected.transition, expected.num_merges
    assert 0 < t < n == 256
    tok = at.session_state["imported"][0]
    assert tok.variant == "boundless" and tok.transition == t
    assert list(tok.merges.items()) == list(expected.merges.items())
    assert f"phase two from merge {t + 1}" in at.session_state["imported"][1]
    at.switch_page("pages/steps.py").run()
    assert not at.exception
    at.toggle(key="step_instant").set_value(False).run()
    assert "BoundlessBPE of the Superwords page" in " ".join(c.value for c in at.caption)

    at.slider(key="step").set_value(t + 1).run()
    assert not at.exception
    marker = [i.value for i in at.info if "Phase two begins here" in i.value]
    assert marker == [f"Phase two begins here: merge {t + 1} is the first of {n - t}"
                      " supermerges, each joining whole words (pretokens) into a superword;"
                      f" merges 1 to {t} were phase one's."]
    at.slider(key="step").set_value(t).run()
    assert stage_texts(at) == [f"Phase one, merge {t} of {t}: inside the split pattern's"
                               " pieces, as classical BPE (the ones phase two kept). Phase two"
                               f" begins at merge {t + 1}."]
    at.slider(key="step").set_value(n).run()
    assert stage_texts(at) == [f"Phase two, merge {n - t} of {n - t} (merge {n}): a supermerge,"
                               " joining whole words (pretokens) into a superword. It began at"
                               f" merge {t + 1}."]
    table = next(d.value for d in at.dataframe if "bytes" in d.value.columns)
    stages = dict(zip(table["step"], table["stage"], strict=True))
    assert {stages[k] for k in range(1, t + 1)} == {"one"}
    assert {stages[k] for k in range(t + 1, n + 1)} == {"two (supermerges)"}
    # every supermerge's token holds two words or more: a space or line break inside it
    words = dict(zip(table["step"], table["token"], strict=True))
    assert all(any(c in words[k].strip(" ·↵") for c in " ·↵") for k in range(t + 1, n + 1))


# ---------------------------------------------------------------------------------------------
# The progress bar says what it counts: each stage or phase from 1, by name


def _halted_training(transition, label, halt_words, halt_at):
    """The page's training (classical BPE, then the variant) with a bar that an error stops
    at merge ``halt_at`` of ``halt_words``: the bar stays where training got to."""
    from pydoc_data.topics import topics

    from bpe_core import GPT4_SPLIT_PATTERN
    from ui.variants.panel import PageProgress, run_training, train_beside_classical

    text = "\n\n".join(v for _, v in sorted(topics.items()))[:6000]  # 144 merges in words

    class Halting(PageProgress):
        def __call__(self, done, total, record):
            self.last = -1  # draw every merge
            super().__call__(done, total, record)
            if self.words == halt_words and done == halt_at:
                raise RuntimeError("halted")

    def make(progress):
        progress.__class__ = Halting
        return train_beside_classical(progress, text, 400, GPT4_SPLIT_PATTERN, [], transition,
                                      label)

    run_training(("halted",), make)


@pytest.mark.parametrize("transition, label, halt_words, halt_at, says", [
    (None, "BoundlessBPE", "classical BPE", 10, "Classical BPE: merge 10 of 144"),
    (None, "BoundlessBPE", "BoundlessBPE, phase one", 144, "BoundlessBPE, phase one: merge 144 of 144"),
    (None, "BoundlessBPE", "BoundlessBPE, phase two", 7, "BoundlessBPE, phase two: merge 7 of 144"),
    (100, "SuperBPE", "SuperBPE, stage one", 100, "SuperBPE, stage one: merge 100 of 100"),
    (100, "SuperBPE", "SuperBPE, stage two", 3, "SuperBPE, stage two: merge 3 of 44"),
])
def test_the_progress_bar_says_which_stage_or_phase_it_counts(transition, label, halt_words,
                                                             halt_at, says):
    from streamlit.testing.v1 import AppTest

    app = AppTest.from_function(_halted_training,
                                args=(transition, label, halt_words, halt_at)).run(timeout=60)
    assert app.exception and "halted" in app.exception[0].message
    (bar,) = app.get("progress")
    assert bar.proto.text == says


def test_a_text_too_small_for_the_transition_says_so_beside_the_numbers(at):
    # 512 tokens asked on one short line: stage one runs out of pairs long before merge 204,
    # and BoundlessBPE's phase one before 256; the captions say so, with the library's numbers
    from bpe_core.boundless import train_boundless

    text = "the cat sat on the mat by the door, the dog sat on the log by the fire. " * 3
    at.text_area(key="text").set_value(text)
    at.button(key="train").click().run()
    at.switch_page("pages/beyond.py").run()
    assert not at.exception
    superbpe = train_superbpe(text, 512, 204)
    assert superbpe.ran_out_early and superbpe.transition < 204
    captions = " ".join(c.value for c in at.caption).replace("\\", "")  # markdown escapes
    assert (f"Stage one ran out of pairs after {superbpe.transition:,} merges, before the"
            " transition asked for (204)") in captions
    at.radio(key="beyond_variant").set_value("BoundlessBPE: the transition found").run()
    assert not at.exception
    boundless = train_boundless(text, 512)
    assert boundless.ran_out_early
    captions = " ".join(c.value for c in at.caption).replace("\\", "")  # markdown escapes
    assert (f"Phase one ran out of pairs after {boundless.phase_one_merges:,} of the 256 merges"
            " asked for") in captions
    assert f"the tokenizer has {boundless.num_merges:,} merges" in captions
