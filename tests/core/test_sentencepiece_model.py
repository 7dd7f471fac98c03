"""SentencePiece-style BPE in bpe_core gives the ``sentencepiece`` package's ids, pieces and text.

Every model here is trained in the test by ``sentencepiece.SentencePieceTrainer`` (BPE, the
identity normalizer, character coverage 1.0) on English prose, code and a multilingual mix with
emoji and CJK, written to a ``tokenizer.model`` file, and loaded by ``bpe_core.load`` as a user
would. The answers come from ``sentencepiece.SentencePieceProcessor`` on the same file.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest
import sentencepiece as spm
from support import CORPORA

import bpe_core
from bpe_core.sentencepiece import BYTE, CONTROL, NORMAL, UNKNOWN, UNUSED, USER_DEFINED

SAMPLES = Path(__file__).resolve().parents[2] / "assets" / "samples"
MIX = (SAMPLES / "multilingual.txt").read_text(encoding="utf-8") + "\n" + "\n".join([
    "東京は日本の首都です。東京タワーは高い。日本語の文章を書きます。",
    "北京是中国的首都。我喜欢学习中文。今天天气很好。",
    "서울은 한국의 수도입니다. 한국어를 배웁니다.",
    "Emoji: 🙂 😀😀 👍🏽 🇫🇷 and 🙂🙂🙂 again 😀.",
    "नमस्ते दुनिया, यह हिंदी है। مرحبا بالعالم، هذه العربية.",
] * 3)
CORPUS = {"prose": CORPORA["prose"], "code": CORPORA["code"], "mix": MIX}
EDGES = [
    "", " ", "   ", "a", " leading space", "trailing space ", "  both  ", "many    spaces   inside",
    "tab\tand\nnewline\r\n", "unseen: 搞 🦜 ☃ Ꙭ 𝔘𝔫𝔦𝔠𝔬𝔡𝔢", "🦜🦜🦜", "搞搞 搞", "\u2581 literal ▁▁ blocks ▁",
    "<s> </s> <unk> <0x41>", "x" * 300, "é vs e\u0301 (no NFKC here)", "ﬁ ligature ①", "\x00\x01 nul",
    "🙂 end",
]
LONE_SURROGATE = "lone \ud800 surrogate"  # not UTF-8: sentencepiece takes it as bytes


def _texts(corpus: str) -> list[str]:
    lines = [line for line in corpus.splitlines() if line.strip()]
    return lines[:120] + EDGES


def _train(path: Path, text: str, **options) -> Path:
    settings = dict(model_type="bpe", vocab_size=500, character_coverage=1.0,
                    normalization_rule_name="identity", minloglevel=2)
    settings.update(options)
    spm.SentencePieceTrainer.train(sentence_iterator=iter(text.splitlines()),
                                   model_prefix=str(path), **settings)
    return path.with_suffix(".model")


@pytest.fixture(scope="module")
def models(tmp_path_factory):
    """``(corpus, byte_fallback) -> path of a tokenizer.model`` trained by sentencepiece."""
    folder = tmp_path_factory.mktemp("spm")
    return {(name, fallback): _train(folder / f"{name}-{int(fallback)}", text,
                                     byte_fallback=fallback,
                                     vocab_size=1000 if name == "mix" else 800)
            for name, text in CORPUS.items() for fallback in (False, True)}


CASES = [(name, fallback) for name in CORPUS for fallback in (False, True)]


@pytest.mark.parametrize(("name", "fallback"), CASES)
def test_encode_gives_sentencepieces_ids_and_pieces(models, name, fallback):
    path = models[name, fallback]
    sp = spm.SentencePieceProcessor(model_file=str(path))
    tok = bpe_core.load(path)
    assert tok.family == "sentencepiece"
    assert tok.byte_fallback is fallback and tok.vocab_size == sp.get_piece_size()
    texts = _texts(CORPUS[name])
    for text in texts:
        assert tok.encode(text) == sp.encode(text), text
        assert tok.encode_as_pieces(text) == sp.encode(text, out_type=str), text
    as_bytes = LONE_SURROGATE.encode("utf-8", "surrogatepass")
    assert tok.encode(LONE_SURROGATE) == sp.encode(as_bytes)
    unseen = "unseen: 搞 🦜 ☃"
    if fallback:  # the unseen characters are their UTF-8 bytes' pieces
        assert "<0xF0>" in tok.encode_as_pieces(unseen)
    else:
        assert sp.unk_id() in tok.encode(unseen)


@pytest.mark.parametrize(("name", "fallback"), CASES)
def test_decode_gives_sentencepieces_text(models, name, fallback):
    path = models[name, fallback]
    sp = spm.SentencePieceProcessor(model_file=str(path))
    tok = bpe_core.load(path)
    for text in _texts(CORPUS[name]):
        ids = sp.encode(text)
        assert tok.decode(ids) == sp.decode(ids), text
    # any ids: byte pieces that make no UTF-8 character, control pieces, the unknown piece
    rng = random.Random(46)
    every = range(sp.get_piece_size())
    for _ in range(400):
        ids = rng.choices(every, k=rng.randint(0, 10))
        assert tok.decode(ids) == sp.decode(ids), ids
    if fallback:
        cut = [sp.piece_to_id("<0xE4>"), sp.piece_to_id("<0xB8>"), sp.piece_to_id("▁a")]
        assert tok.decode(cut) == sp.decode(cut) == "\ufffd\ufffd a"


@pytest.mark.parametrize(("name", "fallback"), CASES[::3] + CASES[1::3])
def test_the_written_model_gives_the_same_ids_in_sentencepiece(models, name, fallback, tmp_path):
    path = models[name, fallback]
    tok = bpe_core.load(path)
    written = bpe_core.to_sentencepiece_model(tok)
    assert written == path.read_bytes()  # the other fields are kept as they were
    # a model made from pieces alone (the trainer's interface) writes its own options
    sp = spm.SentencePieceProcessor(model_file=str(path))
    pieces = [(sp.id_to_piece(i), sp.get_score(i), _type(sp, i)) for i in range(len(sp))]
    made = bpe_core.SentencePieceBPE.from_pieces(pieces, byte_fallback=fallback)
    out = tmp_path / "made.model"
    out.write_bytes(bpe_core.to_sentencepiece_model(made))
    again = spm.SentencePieceProcessor(model_file=str(out))
    for text in _texts(CORPUS[name]):
        assert again.encode(text) == sp.encode(text) == made.encode(text), text
        assert again.decode(sp.encode(text)) == made.decode(sp.encode(text))


def _type(sp: spm.SentencePieceProcessor, i: int) -> int:
    """A piece's type as sentencepiece's own API says it."""
    for kind, test in ((UNKNOWN, sp.is_unknown), (CONTROL, sp.is_control), (BYTE, sp.is_byte),
                       (UNUSED, sp.is_unused)):
        if test(i):
            return kind
    return NORMAL


OPTIONS = {
    "keep extra spaces": dict(remove_extra_whitespaces=False),
    "no dummy prefix": dict(add_dummy_prefix=False),
    "whitespace as suffix": dict(treat_whitespace_as_suffix=True),
    "user-defined symbols": dict(user_defined_symbols=["<tag>", "==", "数据"],
                                 control_symbols=["<ctl>"]),
    "pad and no bos": dict(pad_id=3, bos_id=-1, byte_fallback=True),
}


@pytest.mark.parametrize("option", OPTIONS)
def test_trainer_options_that_change_encoding_are_followed(option, tmp_path):
    text = CORPUS["prose"][:12_000] + "\n" + MIX + "\n<tag> == 数据 <ctl>\n"
    path = _train(tmp_path / "m", text, vocab_size=1000, **OPTIONS[option])
    sp = spm.SentencePieceProcessor(model_file=str(path))
    tok = bpe_core.load(path)
    for t in _texts(text)[:60] + EDGES + ["a<tag>b == c数据d<ctl>", "  <tag>  "]:
        assert tok.encode(t) == sp.encode(t), t
        assert tok.decode(sp.encode(t)) == sp.decode(sp.encode(t)), t
    assert (tok.bos_id, tok.eos_id, tok.pad_id) == (sp.bos_id(), sp.eos_id(), sp.pad_id())
    if option == "user-defined symbols":
        assert USER_DEFINED in {kind for _, _, kind in tok.pieces}


def test_what_bpe_core_cannot_hold_is_refused_by_name(tmp_path):
    text = CORPUS["prose"][:8_000]
    unigram = _train(tmp_path / "uni", text, model_type="unigram", vocab_size=300)
    with pytest.raises(ValueError, match="unigram model: bpe_core reads BPE only"):
        bpe_core.load(unigram)
    nfkc = _train(tmp_path / "nfkc", text, normalization_rule_name="nmt_nfkc", vocab_size=300)
    with pytest.raises(ValueError, match="nmt_nfkc") as info:
        bpe_core.load(nfkc)
    assert "charsmap" in str(info.value) and "nfkc.model" in str(info.value)
    long = "<" + "x" * 200 + ">"  # matched at every position of a text: bounded
    with pytest.raises(ValueError, match="at most 48"):
        bpe_core.SentencePieceBPE.from_pieces([("<unk>", 0.0, UNKNOWN), (long, 0.0, USER_DEFINED)])
    assert bpe_core.detect_format(nfkc.read_bytes()) == "sentencepiece"
    assert bpe_core.detect_format(b"\n\n\na b\nc d\n") == "gpt2-merges"  # text with blank lines
    cut = tmp_path / "cut.model"
    cut.write_bytes(nfkc.read_bytes()[:1000])
    with pytest.raises(ValueError, match="cut.model"):
        bpe_core.load(cut)
