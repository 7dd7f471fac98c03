"""The Lesson's step "Three families of BPE" (AppTest): each family is trained on the lesson's
text and shown a space, an emoji and a word it never saw. The known answers come from the
families' own tools trained on the same text with the same settings: sentencepiece's pieces and
ids (byte fallback for the emoji), subword-nmt's segmentation of the new word."""

from __future__ import annotations

import html
import io
import re

import pytest
import sentencepiece as spm
from subword_nmt import apply_bpe, learn_bpe
from support import open_page

import ui.lesson.tutorial as le
from ui.kit.samples import load_samples
from ui.lesson import families as lf

STEP = le.STEPS[-1]
SAMPLE = "English prose"


@pytest.fixture(scope="module")
def shown():
    """The step on the English sample: the lesson's text, and each view's tokens by its name."""
    app = open_page("pages/lesson.py")
    app.selectbox(key="sample").set_value(SAMPLE).run()
    app.radio(key="lesson_step").set_value(STEP).run()
    assert not app.exception and not app.main.error
    assert app.header[0].value == STEP == "9 · Three families of BPE"
    text, _ = le.lesson_text(load_samples()[SAMPLE])
    views = {}
    for h in app.html:
        for name, body in re.findall(r'aria-label="([^"]*)">(.*?)</div>', h.value, re.S):
            views[html.unescape(name)] = [
                (html.unescape(title), html.unescape(said)) for title, said in re.findall(
                    r'role="listitem" title="([^"]*)" aria-label="([^"]*)"', body)]
    captions = [c.value for c in app.caption]
    return text, views, captions


def tokens(shown, family: str, kind: str) -> list[tuple[str, str]]:
    text, views, _ = shown
    probe = next(p for p in lf.probes(text) if p.kind == kind)
    return views[lf.probe_view_name(family, probe)]


@pytest.fixture(scope="module")
def reference_spm(shown, tmp_path_factory):
    """sentencepiece's own BPE trainer on the lesson's text, with the step's settings."""
    text, _, _ = shown
    prefix = tmp_path_factory.mktemp("lesson") / "spm"
    lines = text.split("\n")
    size = lf.train_three(text)["sentencepiece"].vocab_size  # the step's option, not its output
    spm.SentencePieceTrainer.train(
        sentence_iterator=iter(lines), model_prefix=str(prefix), model_type="bpe",
        vocab_size=size, byte_fallback=True, character_coverage=1.0,
        normalization_rule_name="identity", minloglevel=2,
        max_sentence_length=max(4192, max(len(x.encode()) for x in lines) + 16))
    return spm.SentencePieceProcessor(model_file=str(prefix.with_suffix(".model")))


def ids_of(drawn: list[tuple[str, str]]) -> list[int]:
    return [int(re.search(r"(?:^|· )id (\d+)", title).group(1)) for title, _ in drawn]


def pieces_of(drawn: list[tuple[str, str]]) -> list[str]:
    """The pieces as their hover text names them (``piece '▁the' · id 5``)."""
    return [re.match(r"piece '(.*?)'(?: · |$)", title).group(1) for title, _ in drawn]


def said(piece: str) -> str:
    """A SentencePiece piece as a screen reader hears it: ``▁`` as "space"."""
    return " ".join(piece.replace("\u2581", " space ").split())


def subword_nmt_pieces(segmented: list[str]) -> list[str]:
    """subword-nmt's output as the merges spell pieces: ``low@@ er`` -> ``low``, ``er</w>``."""
    return [t[:-2] if t.endswith("@@") else t + "</w>" for t in segmented]


def test_sentencepiece_sees_the_space_as_sentencepiece_does(shown, reference_spm):
    text, _, _ = shown
    pair = next(p for p in lf.probes(text) if p.kind == "space").text
    drawn = tokens(shown, "sentencepiece", "space")
    assert ids_of(drawn) == reference_spm.encode(pair)
    pieces = reference_spm.encode(pair, out_type=str)
    assert pieces_of(drawn) == pieces
    assert [s.split(", id ")[0] for _, s in drawn] == [said(p) for p in pieces]
    assert sum(p.startswith("\u2581") for p in pieces) == 2  # ▁ drawn: one per word


def test_the_emoji_falls_back_to_bytes_as_in_sentencepiece(shown, reference_spm):
    text, _, _ = shown
    emoji = next(p for p in lf.probes(text) if p.kind == "emoji").text
    drawn = tokens(shown, "sentencepiece", "emoji")
    assert ids_of(drawn) == reference_spm.encode(emoji)
    byte_pieces = [p for p in reference_spm.encode(emoji, out_type=str) if p.startswith("<0x")]
    assert byte_pieces == [f"<0x{b:02X}>" for b in emoji.encode()]
    said = [s.split(",")[0] for _, s in drawn]
    assert said[-4:] == [f"byte {b:02X}" for b in emoji.encode()]  # named for the ear
    # byte-level BPE learned nothing of it either: one token per UTF-8 byte
    assert [s.split(",")[0] for _, s in tokens(shown, "byte-level", "emoji")] == [
        f"byte {b:02X}" for b in emoji.encode()]


def test_word_bpe_cuts_the_new_word_as_subword_nmt(shown):
    text, _, captions = shown
    word = next(p for p in lf.probes(text) if p.kind == "new word").text
    codes = io.StringIO()
    learn_bpe.learn_bpe(io.StringIO(text), codes, lf.FAMILY_MERGES)
    theirs = apply_bpe.BPE(io.StringIO(codes.getvalue())).process_line(word).split(" ")
    drawn = tokens(shown, "word", "new word")
    assert pieces_of(drawn) == subword_nmt_pieces(theirs) and len(theirs) > 1
    assert drawn[-1][1].endswith(" end of word")  # </w> said so
    assert f"Cut into {len(theirs)} tokens; </w> marks the end of the word." in captions
    pair = next(p for p in lf.probes(text) if p.kind == "space").text
    spaced = pieces_of(tokens(shown, "word", "space"))
    assert "".join(spaced).replace("</w>", "") == pair.replace(" ", "")  # no token for the space
