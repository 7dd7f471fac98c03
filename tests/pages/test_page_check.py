"""AppTest tests for the Check your BPE page: a learner's merges in every form, matched or
diagnosed; the encoder check; the bug zoo; hostile input never runs."""

from __future__ import annotations

import json
import os

import pytest
from learners import learner_train, prefix
from support import open_page

from bpe_core import GPT2_SPLIT_PATTERN, BasicTokenizer, RegexTokenizer
from bpe_core.formats import bytes_to_unicode
from bpe_lab.check import MAX_CHECK_CHARS, MISTAKES, encode_with_mistake
from ui.kit.escape import md_escape

TEXT = ("the cat sat on the mat.<|endoftext|>the dog sat on the log. the cat and the dog ran "
        "to the mat, and the dog sat there.<|endoftext|>'It's the cat's mat', they said. aaaaaa zzzz "
        ) * 3
VOCAB = 256 + 1 + 30  # 30 merges and the special token, counted as CS336 counts it


@pytest.fixture
def at():
    """The page on TEXT, set to CS336's task (the GPT-2 pattern, <|endoftext|>, 30 merges)."""
    app = open_page("pages/check.py")
    app.radio(key="check_source").set_value("A text of my own").run()
    app.text_area(key="check_text").set_value(TEXT).run()
    app.selectbox(key="check_pattern").set_value("GPT-2 (CS336)")
    app.text_input(key="check_specials").set_value("<|endoftext|>").run()
    app.number_input(key="check_vocab").set_value(VOCAB).run()
    assert not app.exception
    return app


def trained(tie_rule: str = "seen", pattern: str = GPT2_SPLIT_PATTERN, specials=("<|endoftext|>",),
            vocab_size: int = VOCAB):
    tok = RegexTokenizer(pattern) if pattern else BasicTokenizer()
    tok.train(TEXT, vocab_size, tie_rule=tie_rule, special_tokens=list(specials))
    return tok


def byte_pairs(tok) -> list[tuple[bytes, bytes]]:
    return [(tok.vocab[a], tok.vocab[b]) for a, b in tok.merges]


def paste(app, text: str):
    return app.text_area(key="check_paste").set_value(text).run()


def upload(app, name, data, vocab_json=None):
    """Upload a merges file (replacing any before it), and a merges.txt's vocab.json."""
    app.file_uploader(key="check_file").set_value((name, data, "application/octet-stream"))
    if vocab_json is not None:
        app.file_uploader(key="check_vocab_json").set_value(
            ("vocab.json", vocab_json, "application/json"))
    return app.run()


def errors(app) -> list[str]:
    return [e.value for e in app.error]


def test_the_task_is_shown_with_a_download_and_the_settings(at):
    assert any("Paste or upload" in i.value for i in at.info)
    assert at.get("download_button")
    code = at.code[0].value
    assert f"vocab_size={VOCAB}" in code and "'<|endoftext|>'" in code
    assert any("30 merges to make" in c.value for c in at.caption)


def test_the_reference_s_own_merges_match(at):
    paste(at, "merges = " + repr(byte_pairs(trained())))
    assert not at.exception
    assert [s.value for s in at.success] and not errors(at)
    assert "match" in at.success[0].value


def test_cs336_output_with_the_bytes_rule_is_diagnosed_as_another_tie_rule(at):
    tok = trained("bytes")
    # CS336 students often number the special token 0 and the bytes from 1
    vocab = {0: b"<|endoftext|>", **{i + 1: bytes([i]) for i in range(256)}}
    for k, (a, b) in enumerate(byte_pairs(tok)):
        vocab[257 + k] = a + b
    paste(at, f"vocab = {vocab!r}\nmerges = {byte_pairs(tok)!r}")
    assert not at.exception
    assert errors(at)  # the reference breaks ties by "seen"
    assert any("Ties broken by another rule" in w.value for w in at.warning)
    step = next(d.value for d in at.dataframe if "who" in d.value.columns)
    yours, reference = step["count"].tolist()[:2]
    assert yours == reference  # a tie: both pairs are equally frequent there
    at.selectbox(key="check_rule").set_value("greatest bytes (CS336)").run()
    assert [s.value for s in at.success] and not errors(at)


def test_a_minbpe_model_upload_matches_a_basic_tokenizer(at, tmp_path):
    at.selectbox(key="check_pattern").set_value("none (minbpe's BasicTokenizer)")
    at.text_input(key="check_specials").set_value("").run()
    at.number_input(key="check_vocab").set_value(256 + 20).run()
    tok = trained(pattern="", specials=(), vocab_size=256 + 20)
    tok.save(str(tmp_path / "mine"))
    upload(at, "mine.model", (tmp_path / "mine.model").read_bytes())
    assert not at.exception
    assert [s.value for s in at.success] and not errors(at), errors(at)


def test_a_merges_txt_with_its_vocab_json_matches(at):
    to_unicode = bytes_to_unicode()

    def spell(token: bytes) -> str:
        return "".join(to_unicode[b] for b in token)

    tok = trained()
    merges_txt = "\n".join(f"{spell(a)} {spell(b)}" for a, b in byte_pairs(tok)) + "\n"
    vocab_json = json.dumps({spell(t): i for i, t in tok.vocab.items()
                             if i not in tok.special_tokens.values()} | {"<|endoftext|>": 0})
    upload(at, "merges.txt", merges_txt.encode(), vocab_json.encode())
    assert not at.exception
    assert [s.value for s in at.success] and not errors(at), errors(at)


def test_merges_across_special_tokens_are_diagnosed(at):
    # the learner forgot to cut the text at <|endoftext|>
    wrong = RegexTokenizer(GPT2_SPLIT_PATTERN)
    wrong.train(TEXT, VOCAB - 1)
    paste(at, repr(byte_pairs(wrong)))
    assert not at.exception
    assert errors(at)
    assert at.warning, "a likely cause is named"


@pytest.mark.parametrize(
    ("pasted", "says"),
    [
        ("__import__('os').system('touch {marker}')", "nothing is run"),
        ("open('{marker}', 'w')", "nothing is run"),
        ("(lambda: 1)()", "nothing is run"),
        ("[" * 100_000, "nest"),
        ("x" * 9_000_000, "at most 8\\,000\\,000"),
        ("merges = [(b'a', 5)]", "item 1"),
        ("This is not Python at all, just words { and braces", ""),
    ],
)
def test_hostile_pastes_get_a_message_and_never_run(at, tmp_path, pasted, says):
    marker = tmp_path / "pwned"
    paste(at, pasted.replace("{marker}", str(marker)))
    assert not at.exception
    assert errors(at)
    assert says.lower() in errors(at)[0].lower()
    assert not os.path.exists(marker)


def test_a_million_merges_are_refused(at):
    paste(at, "[" + "(1, 2), " * 1_000_000 + "]")
    assert not at.exception
    assert errors(at)


@pytest.mark.parametrize("mistake", [m.key for m in MISTAKES if m.stage == "encoding"])
def test_the_encoder_check_matches_bpe_and_names_each_encoding_mistake(at, mistake):
    ref = trained()
    sentence = next((s for s in [*TEXT.split("."), "thethe", "aaaaa", "'the cat"]
                     if encode_with_mistake(mistake, ref, s) != ref.encode(s, allowed_special="all")),
                    None)
    assert sentence is not None, "a sentence that shows the mistake"
    at.text_input(key="check_sentence").set_value(sentence)
    at.text_input(key="check_ids").set_value(str(ref.encode(sentence, allowed_special="all")))
    at.run()
    assert not at.exception
    assert [s.value for s in at.success] and not errors(at)
    wrong = encode_with_mistake(mistake, ref, sentence)
    at.text_input(key="check_ids").set_value(" ".join(map(str, wrong))).run()
    assert errors(at)
    title = next(m.title for m in MISTAKES if m.key == mistake)
    assert any(md_escape(title) in w.value for w in at.warning), [w.value for w in at.warning]


@pytest.mark.parametrize("mistake", [m.key for m in MISTAKES])
def test_every_mistake_in_the_zoo_shows_itself(at, mistake):
    at.selectbox(key="check_zoo").set_value(mistake).run()
    at.button(key="check_zoo_show").click().run()
    assert not at.exception
    assert errors(at), "the demo shows the symptom"


def test_hostile_text_of_my_own_stays_text(at):
    at.text_area(key="check_text").set_value('<script>alert(1)</script> <img src=x onerror=alert(2)>'
                                             * 5).run()
    at.text_area(key="check_paste").set_value("[(b'<', b's')]").run()
    assert not at.exception
    for value in [m.value for m in at.markdown] + errors(at):
        assert "<script>" not in value and "<img" not in value


# -- the task starts from the sidebar; the newest input is checked ------------------------------


def code_settings(app) -> str:
    return app.code[0].value


def test_the_task_starts_from_the_sidebar_and_follows_it():
    app = open_page("pages/check.py")
    # the sidebar's defaults: GPT-4 split, 512 tokens, no special tokens (minbpe's RegexTokenizer)
    assert app.selectbox(key="check_pattern").value == "GPT-4 (minbpe's RegexTokenizer)"
    assert app.text_input(key="check_specials").value == ""
    assert "vocab_size=512, special_tokens=[]" in code_settings(app)
    assert "seen first" in app.selectbox(key="check_rule").value
    app.selectbox(key="kind").set_value("Train: GPT-2 split")
    app.number_input(key="vocab_size").set_value(320)
    app.text_input(key="specials").set_value("<|endoftext|>").run()
    assert not app.exception
    assert app.selectbox(key="check_pattern").value == "GPT-2 (CS336)"
    assert "vocab_size=320, special_tokens=['<|endoftext|>']" in code_settings(app)
    # a change made here stays until the sidebar changes again
    app.number_input(key="check_vocab").set_value(300).run()
    assert "vocab_size=300" in code_settings(app)
    app.selectbox(key="kind").set_value("Train: custom split pattern").run()
    app.text_input(key="pattern").set_value(r"\w+|\s+|[^\w\s]+").run()
    assert not app.exception
    assert app.selectbox(key="check_pattern").value == "custom: the sidebar's pattern"
    assert "vocab_size=320" in code_settings(app)


def test_a_correct_minbpe_file_matches_with_the_settings_the_page_starts_with(tmp_path):
    from bpe_lab.check import MINBPE_GPT4_SPLIT_PATTERN

    app = open_page("pages/check.py")
    tok = RegexTokenizer(MINBPE_GPT4_SPLIT_PATTERN)  # minbpe's RegexTokenizer, minbpe's pattern
    tok.train(app.session_state["text"], 512)
    tok.save(str(tmp_path / "mine"))
    upload(app, "mine.model", (tmp_path / "mine.model").read_bytes())
    assert not app.exception
    assert [s.value for s in app.success] and not errors(app), errors(app)
    captions = [c.value for c in app.caption]
    assert any(md_escape("the GPT-4 pattern (as minbpe writes it)") in c for c in captions)


def test_a_new_upload_or_paste_replaces_the_last_and_its_result(at, tmp_path):
    wrong, right = trained("bytes"), trained()
    wrong.save(str(tmp_path / "wrong"))
    right.save(str(tmp_path / "right"))
    upload(at, "wrong.model", (tmp_path / "wrong.model").read_bytes())
    assert errors(at) and not at.success
    upload(at, "right.model", (tmp_path / "right.model").read_bytes())
    assert not at.exception
    assert [s.value for s in at.success] and not errors(at)
    assert any("right\\.model" in c.value for c in at.caption)
    assert not any("wrong\\.model" in c.value for c in at.caption)
    paste(at, "merges = " + repr(byte_pairs(wrong)))  # the paste is newer than the upload
    assert errors(at) and not at.success
    assert any("Checking the pasted text" in c.value for c in at.caption)
    upload(at, "right.model", (tmp_path / "right.model").read_bytes())  # uploaded again
    assert [s.value for s in at.success] and not errors(at)


# -- what the page calls a cause, and what it does not ------------------------------------------


def subheaders(app) -> list[str]:
    return [s.value for s in app.subheader]


def said(app) -> str:
    return " ".join(e.value for e in [*app.warning, *app.info])


def test_a_learner_with_last_seen_ties_gets_the_cause_with_all_its_merges(at):
    mine = learner_train(TEXT, VOCAB, GPT2_SPLIT_PATTERN, ["<|endoftext|>"], tie_rule="last_seen")
    paste(at, "merges = " + repr(mine))
    assert not at.exception
    assert "The cause" in subheaders(at)
    assert md_escape("you broke ties by the “seen last” rule") in said(at)
    assert md_escape(f"it explains all your {len(mine)} merges") in said(at)
    assert not any("Most likely" in s for s in subheaders(at))


def test_a_learner_with_two_mistakes_gets_the_closest_known_mistake_and_its_numbers(at):
    specials = ["<|endoftext|>"]
    mine = learner_train(TEXT, VOCAB, GPT2_SPLIT_PATTERN, specials, tie_rule="bytes",
                         merge_from="right")
    alone = prefix(learner_train(TEXT, VOCAB, GPT2_SPLIT_PATTERN, specials, tie_rule="bytes"),
                   mine)
    reference = prefix(learner_train(TEXT, VOCAB, GPT2_SPLIT_PATTERN, specials), mine)
    assert reference < alone < len(mine)
    paste(at, "merges = " + repr(mine))
    assert not at.exception
    assert "Closest known mistake" in subheaders(at)
    assert not any("cause" in s.lower() for s in subheaders(at))
    assert md_escape(f"it explains your first {alone} of {len(mine)} merges (the reference: the"
                     f" first {reference})") in said(at)
    table = next(d.value for d in at.dataframe if "explains your first" in d.value.columns)
    assert f"{alone} of {len(mine)}" in table["explains your first"].tolist()


def test_a_tie_rule_the_page_cannot_name_is_another_tie_rule_with_the_tied_pairs(at):
    at.text_area(key="check_text").set_value("ab c dzyef")
    at.selectbox(key="check_pattern").set_value("none (minbpe's BasicTokenizer)")
    at.text_input(key="check_specials").set_value("").run()
    at.number_input(key="check_vocab").set_value(257).run()
    mine = learner_train("ab c dzyef", 257, tie_rule="gpt2_strings")  # (Ġ, d): see test_check_words
    paste(at, "merges = " + repr(mine))
    assert not at.exception
    assert "Another tie rule" in subheaders(at)
    assert "another tie rule" in said(at)
    step = next(d.value for d in at.dataframe if "who" in d.value.columns)
    assert len(step) == 9 and set(step["count"]) == {1}  # the nine pairs, each once: all tied
    assert step["pair"].tolist()[:2] == ["· + d", "a + b"]  # yours, the reference's


def test_byte_labels_keep_two_spaces_apart_from_one(at):
    # "a    b    c": the reference merges " " + " ", then "  " + "  "; the learner "  " + "b"
    at.text_area(key="check_text").set_value("a    b    c")
    at.selectbox(key="check_pattern").set_value("none (minbpe's BasicTokenizer)")
    at.text_input(key="check_specials").set_value("").run()
    at.number_input(key="check_vocab").set_value(258).run()
    paste(at, "merges = [(b' ', b' '), (b'  ', b'b')]")
    assert not at.exception
    assert errors(at)[0] == md_escape("Your merges match the first 1; at merge 2 you merged ·· + b"
                                      " and the reference merged ·· + ··.")


def test_a_file_with_another_split_pattern_than_the_task_s_is_flagged(tmp_path):
    app = open_page("pages/check.py")  # the task: GPT-4, from the sidebar
    tok = trained(pattern=GPT2_SPLIT_PATTERN, specials=(), vocab_size=256 + 20)
    tok.save(str(tmp_path / "gpt2"))
    upload(app, "gpt2.model", (tmp_path / "gpt2.model").read_bytes())
    assert not app.exception
    assert any(md_escape("Your file's split pattern is the GPT-2 pattern; the task's is the GPT-4"
                         " pattern") in w.value for w in app.warning)


def test_the_page_shows_the_sentences_of_the_plain_report_the_command_line_prints(at):
    from bpe_lab import check
    from ui.check.findings import spell

    mine_pairs = learner_train(TEXT, VOCAB, GPT2_SPLIT_PATTERN, ["<|endoftext|>"],
                               tie_rule="bytes", merge_from="right")
    pasted = "merges = " + repr(mine_pairs)
    paste(at, pasted)
    assert not at.exception
    mine = check.read_merges(pasted)
    report = check.check_merges(mine, TEXT, pattern=GPT2_SPLIT_PATTERN, vocab_size=VOCAB,
                                special_tokens=["<|endoftext|>"])
    said = check.check_verdict(report, spell)
    lines = check.report_lines(report, mine, spell=spell)
    assert f"{said.heading}: {said.text}" in lines and len(lines) >= 5
    shown = [e.value for kind in ("caption", "error", "markdown", "info", "warning", "success")
             for e in getattr(at, kind)]
    for line in lines:
        if line == f"{said.heading}: {said.text}":
            assert said.heading in subheaders(at) and md_escape(said.text) in shown
        else:
            label, _, rest = line.partition(": ")
            assert md_escape(line) in shown or f"**{label}:** {md_escape(rest)}" in shown, line


def test_a_text_longer_than_the_check_reads_is_cut_with_how_much(at):
    """Streamlit's box refused a paste over its max_chars without a word; the page now keeps the
    first MAX_CHECK_CHARS characters and says how many it cut."""
    at.text_area(key="check_text").set_value("the cat sat. " * 20_000).run()  # 260,000
    assert not at.exception
    assert at.session_state["check_text"] == ("the cat sat. " * 20_000)[:MAX_CHECK_CHARS]
    assert (f"Keeping the first {MAX_CHECK_CHARS:,} of 260,000 characters: the last "
            f"{260_000 - MAX_CHECK_CHARS:,} were cut.") in [i.value for i in at.info]
    at.text_area(key="check_text").set_value(TEXT).run()
    assert not any("were cut" in i.value for i in at.info)
