"""A tokenizer.json of Llama 2's shape (BPE over characters, ``▁``, byte fallback) loads in
bpe_core with the ids and text of Hugging Face ``tokenizers``; what it cannot follow is refused
by name; and the tokenizer.json bpe_core writes gives ``tokenizers`` sentencepiece's ids.

The files are built in the test: a model trained by ``sentencepiece`` (as Llama 2's was: BPE,
byte fallback, spaces kept), its pieces and transformers' ``generate_merges`` (how transformers
converts a sentencepiece model), assembled by ``tokenizers`` into the two shapes Llama files
have: the "legacy" normalizer (Prepend ``▁`` + Replace) and the Metaspace pre-tokenizer.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import sentencepiece as spm
from support import CORPORA
from tokenizers import AddedToken, Tokenizer, decoders, models, normalizers, pre_tokenizers
from transformers import PreTrainedTokenizerFast
from transformers.tokenization_utils_base import generate_merges

import bpe_core

SAMPLES = Path(__file__).resolve().parents[2] / "assets" / "samples"
TEXT = (CORPORA["prose"][:10_000] + "\n" + CORPORA["code"][:6_000] + "\n"
        + (SAMPLES / "multilingual.txt").read_text(encoding="utf-8")
        + "\n東京は日本の首都です。北京是中国的首都。🙂 😀😀 👍🏽\n")
TEXTS = [line for line in TEXT.splitlines() if line.strip()][:150] + [
    "", " ", "  two  spaces  ", " leading", "trailing ", "unseen 搞 🦜 ☃", "🦜🦜", "\ttab\nline",
    "<s>hello</s>", "a <s> b", "<unk>", "\u2581x ▁", "ok\u00a0nbsp",
]


@pytest.fixture(scope="module")
def spm_model(tmp_path_factory):
    prefix = tmp_path_factory.mktemp("hf") / "llama"
    spm.SentencePieceTrainer.train(
        sentence_iterator=iter(TEXT.splitlines()), model_prefix=str(prefix), model_type="bpe",
        vocab_size=1000, byte_fallback=True, character_coverage=1.0, minloglevel=2,
        normalization_rule_name="identity", remove_extra_whitespaces=False)
    return prefix.with_suffix(".model")


def _llama_json(model_path: Path, shape: str) -> str:
    sp = spm.SentencePieceProcessor(model_file=str(model_path))
    vocab = {sp.id_to_piece(i): i for i in range(len(sp))}
    bare = shape == "no unk, no byte fallback"  # an unknown character is left out
    tok = Tokenizer(models.BPE(vocab, generate_merges(vocab), unk_token=None if bare else "<unk>",
                               fuse_unk=True, byte_fallback=not bare))
    if shape in ("legacy", "no unk, no byte fallback"):
        tok.normalizer = normalizers.Sequence([normalizers.Prepend("\u2581"),
                                               normalizers.Replace(" ", "\u2581")])
    else:
        tok.pre_tokenizer = pre_tokenizers.Metaspace(replacement="\u2581", prepend_scheme=shape,
                                                     split=False)
    tok.decoder = decoders.Sequence([decoders.Replace("\u2581", " "), decoders.ByteFallback(),
                                     decoders.Fuse(), decoders.Strip(" ", 1, 0)])
    tok.add_special_tokens([AddedToken(t, normalized=False, special=True)
                            for t in ("<unk>", "<s>", "</s>")])
    return tok.to_str()


@pytest.mark.parametrize("shape", ["legacy", "first", "always", "no unk, no byte fallback"])
def test_a_llama_shaped_file_gives_tokenizers_ids_and_text(spm_model, shape, tmp_path):
    path = tmp_path / "tokenizer.json"
    path.write_text(_llama_json(spm_model, shape), encoding="utf-8")
    reference = Tokenizer.from_file(str(path))
    tok = bpe_core.load(path)
    assert tok.family == "sentencepiece" and tok.byte_fallback is (shape != "no unk, no byte fallback")
    for text in TEXTS:
        ids = reference.encode(text, add_special_tokens=False).ids
        assert tok.encode(text) == ids, text
        assert tok.decode(ids) == reference.decode(ids), text
    if shape == "legacy":  # transformers reads the file with the same ids
        wrapped = PreTrainedTokenizerFast(tokenizer_file=str(path))
        for text in TEXTS[::5]:
            assert tok.encode(text) == wrapped.encode(text, add_special_tokens=False), text
    if shape == "no unk, no byte fallback":
        assert tok.encode("a 搞 b") == reference.encode("a 搞 b").ids  # 搞 left out
        return
    cut = [reference.token_to_id("<0xE4>"), reference.token_to_id("<0xB8>"), 1,
           reference.token_to_id("\u2581a")]  # a cut UTF-8 sequence and a special token
    assert tok.decode(cut) == reference.decode(cut) == "\ufffd\ufffd a"


def test_the_written_file_gives_sentencepieces_ids_in_tokenizers(spm_model, tmp_path):
    sp = spm.SentencePieceProcessor(model_file=str(spm_model))
    path = tmp_path / "tokenizer.json"
    path.write_text(bpe_core.to_hf_sentencepiece_json(bpe_core.load(spm_model)),
                    encoding="utf-8")
    reference = Tokenizer.from_file(str(path))
    again = bpe_core.load(path)
    for text in TEXTS:
        if "<" in text:
            continue  # tokenizers finds <s> in text, sentencepiece does not
        ids = sp.encode(text)
        assert reference.encode(text, add_special_tokens=False).ids == ids, text
        assert again.encode(text) == ids, text
        assert again.decode(ids) == reference.decode(ids), text


def test_a_file_bpe_core_cannot_follow_is_refused_by_name(spm_model, tmp_path):
    document = json.loads(_llama_json(spm_model, "legacy"))
    path = tmp_path / "tokenizer.json"
    for change, named in [
        (lambda d: d["normalizer"]["normalizers"].insert(0, {"type": "NFKC"}), "NFKC"),
        (lambda d: d.update(normalizer={"type": "Precompiled", "precompiled_charsmap": "AA=="}),
         "Precompiled"),
        (lambda d: d["model"].update(dropout=0.1), "dropout"),
        (lambda d: d["decoder"]["decoders"].append({"type": "CTC"}), "CTC"),
    ]:
        changed = json.loads(json.dumps(document))
        change(changed)
        path.write_text(json.dumps(changed), encoding="utf-8")
        with pytest.raises(ValueError, match=named) as info:
            bpe_core.load(path)
        assert "tokenizer.json" in str(info.value)
        assert "SentencePiece-style" in str(info.value)
    # merges by rank cannot be written as scores
    path.write_text(json.dumps(document), encoding="utf-8")
    with pytest.raises(ValueError, match="to_hf_sentencepiece_json"):
        bpe_core.to_sentencepiece_model(bpe_core.load(path))
    # a model that keeps runs of spaces apart cannot be written in Llama 2's shape
    plain = bpe_core.SentencePieceBPE.from_pieces([("<unk>", 0.0, 2), ("a", -1.0, 1)])
    with pytest.raises(ValueError, match="remove_extra_whitespaces"):
        bpe_core.to_hf_sentencepiece_json(plain)
