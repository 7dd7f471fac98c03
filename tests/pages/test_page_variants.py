"""AppTest tests for the Variants page: the variants beside the classic, and the encoders."""

from __future__ import annotations

import re

import pytest
from support import open_page

import bpe_core
from bpe_core.encoders import encode_variants


@pytest.fixture
def at():
    return open_page("pages/variants.py")


def summary(app) -> dict[str, dict]:
    frame = next(d for d in app.dataframe if "parts at merge" in d.value.columns).value
    return {row["variant"]: row for row in frame.to_dict("records")}


def encoders(app) -> dict[str, int]:
    frame = next(d for d in app.dataframe if "encoder" in d.value.columns).value
    return dict(zip(frame["encoder"], frame["tokens"], strict=True))


def token_views(app) -> list[str]:
    return [h.value for h in app.html if "bpe-tokens" in h.value]


def test_the_default_variants_part_from_the_classic_with_a_reason(at):
    rows = summary(at)
    assert list(rows) == ["classic (ties: seen first)", "ties: greatest bytes (CS336)",
                          "ties: smallest ids", "min_frequency=3"]
    classic = rows["classic (ties: seen first)"]
    assert classic["merges"] == 256  # the sidebar's default: vocab 512, GPT-4 split
    for name in ("ties: greatest bytes (CS336)", "ties: smallest ids"):
        assert 1 <= rows[name]["parts at merge"] <= 256
    # the reason for the variant in the selectbox (the first: the bytes rule) is a tie
    reason = next(m.value for m in at.markdown if m.value.startswith("**Merge "))
    assert "A tie" in reason
    candidates = next(d for d in at.dataframe if "classic" in d.value.columns).value
    assert candidates["classic"].tolist().count("✔") == 1
    assert candidates["variant"].tolist().count("✔") == 1
    assert at.get("vega_lite_chart")


def test_each_variant_can_be_explained(at):
    for name in at.selectbox(key="variants_pick").options:
        at.selectbox(key="variants_pick").set_value(name).run()
        assert not at.exception
        texts = [m.value for m in at.markdown] + [s.value for s in at.success]
        assert any(t.startswith("**Merge ") or "same" in t for t in texts), name


def test_max_token_bytes_keeps_every_token_short(at):
    at.number_input(key="variants_max_bytes").set_value(4).run()
    assert not at.exception
    assert "max_token_bytes=4" in summary(at)
    at.selectbox(key="variants_pick").set_value("max_token_bytes=4").run()
    reason = next(m.value for m in at.markdown if m.value.startswith("**Merge "))
    assert "more than max\\_token\\_bytes\\=4" in reason or "max_token_bytes=4" in reason


def test_turning_variants_off_leaves_the_classic_alone(at):
    at.toggle(key="variants_ties").set_value(False)
    at.number_input(key="variants_min_freq").set_value(0)
    at.number_input(key="variants_max_bytes").set_value(0).run()
    assert not at.exception
    assert list(summary(at)) == ["classic (ties: seen first)"]


def test_special_tokens_in_the_sidebar_offer_training_over_their_text(at):
    at.text_input(key="specials").set_value("<|endoftext|>")
    at.text_area(key="text").set_value("one two three<|endoftext|>" * 40 + "four").run()
    at.button(key="train").click().run()
    assert not at.exception
    assert at.toggle(key="variants_as_text").value is True
    rows = summary(at)
    name = "special tokens as text, added after (minbpe)"
    # the classic (the sidebar's) never sees "<|endoftext|>" as text: the cut text runs out of
    # pairs sooner; the variant learns merges inside it too
    assert rows[name]["merges"] > rows["classic (ties: seen first)"]["merges"]
    assert rows[name]["tokens the classic lacks"] > 0


def test_the_encoders_show_dropout_samples_and_three_encoders(at):
    sentence = at.text_input(key="variants_sentence").value
    assert sentence  # the text's first line
    views = token_views(at)
    assert len(views) == 4 + 3  # four dropout samples, then BPE, greedy, fewest
    counts = encoders(at)
    assert list(counts) == ["BPE", "greedy longest match", "fewest tokens"]
    assert counts["fewest tokens"] <= min(counts["BPE"], counts["greedy longest match"])


def test_encoder_counts_are_the_library_s_on_the_whole_text(at):
    tok = at.session_state["tok"]
    text = at.session_state["text"]
    expected = encode_variants(tok, text)
    assert encoders(at) == {"BPE": len(expected.bpe), "greedy longest match":
                            len(expected.greedy), "fewest tokens": len(expected.fewest)}
    assert len(expected.bpe) == len(tok.encode(text, allowed_special="all"))


def test_dropout_zero_gives_plain_bpe_in_every_sample(at):
    at.slider(key="variants_dropout").set_value(0.0)
    at.number_input(key="variants_samples").set_value(2).run()
    # the same tokens; each view keeps its own name ("Tokens of sample 1")
    views = [re.sub(r'(<div class="bpe-tokens"[^>]*) aria-label="[^"]*"', r"\1", v)
             for v in token_views(at)]
    assert views[0] == views[1] == views[2]  # two samples and BPE itself


def test_a_preset_gets_the_encoders_and_a_note_about_training(at):
    at.selectbox(key="kind").set_value("Pretrained: GPT-2").run()
    assert not at.exception
    assert any("need a tokenizer you trained" in i.value for i in at.info)
    at.text_input(key="variants_sentence").set_value("hello world").run()
    gpt2 = bpe_core.load_pretrained("gpt2")
    assert encoders(at)["BPE"] == len(gpt2.encode(at.session_state["text"], allowed_special="all"))


def test_a_hostile_sentence_stays_text(at):
    at.text_input(key="variants_sentence").set_value('<img src=x onerror="alert(1)"><b>x</b>')
    at.run()
    assert not at.exception
    for view in token_views(at):
        assert "<img" not in view and "<b>" not in view
        assert "&lt;" in view


def test_an_empty_sentence_asks_for_one(at):
    at.text_input(key="variants_sentence").set_value("").run()
    assert any("Write a sentence" in i.value for i in at.info)
