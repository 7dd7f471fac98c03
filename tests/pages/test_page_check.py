"""AppTest tests for the Check your BPE page: a learner's merges in every form, matched or
diagnosed; the encoder check; the bug zoo; hostile input never runs."""

from __future__ import annotations

import json
import os

import pytest
from support import open_page

from bpe_core import GPT2_SPLIT_PATTERN, BasicTokenizer, RegexTokenizer
from bpe_core.check import MISTAKES, encode_with_mistake
from bpe_core.formats import bytes_to_unicode
from ui.escape import md_escape

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
