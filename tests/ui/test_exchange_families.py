"""The downloads the Export & import page offers for a file of another family (``ui.exchange.
families``; AppTest cannot read a download's bytes, so its bytes are made here by the same
functions): each is read back by the family's own tool with the ids it gave for the uploaded
file. The files uploaded are written by sentencepiece and subword-nmt in the test."""

from __future__ import annotations

import io

import pytest
import sentencepiece as spm
from subword_nmt import apply_bpe, learn_bpe
from support import CORPORA
from tokenizers import Tokenizer

from ui.exchange.families import (
    SPM_EXPORTS,
    export_problem,
    family_exports,
    spm_hf_json_bytes,
    spm_model_bytes,
    word_codes_bytes,
)
from ui.exchange.files import read_uploads, sidebar_refusal
from ui.exchange.panel import SAMPLE_TEXT

TEXT = CORPORA["prose"][:6_000]
TEXTS = [SAMPLE_TEXT, "two  spaces and 搞 🦜", *TEXT.splitlines()[:20]]


@pytest.fixture(scope="module")
def model_file(tmp_path_factory):
    """Llama 2's settings: BPE, byte fallback, every space kept."""
    prefix = tmp_path_factory.mktemp("family") / "llama"
    spm.SentencePieceTrainer.train(
        sentence_iterator=iter(TEXT.splitlines()), model_prefix=str(prefix), model_type="bpe",
        vocab_size=400, byte_fallback=True, character_coverage=1.0, minloglevel=2,
        normalization_rule_name="identity", remove_extra_whitespaces=False)
    return prefix.with_suffix(".model")


def test_a_sentencepiece_upload_downloads_as_model_and_tokenizer_json(model_file, tmp_path):
    imported = read_uploads([("tokenizer.model", model_file.read_bytes())])
    assert "SentencePiece model (sentencepiece BPE) and loads" in sidebar_refusal(imported)
    assert family_exports(imported.tok) == SPM_EXPORTS
    assert [export_problem(e, imported.tok) for e in SPM_EXPORTS] == [None, None]
    sp = spm.SentencePieceProcessor(model_file=str(model_file))
    again = tmp_path / "again.model"
    again.write_bytes(spm_model_bytes(imported.tok))
    json_path = tmp_path / "tokenizer.json"
    json_path.write_bytes(spm_hf_json_bytes(imported.tok))
    theirs_again = spm.SentencePieceProcessor(model_file=str(again))
    hf = Tokenizer.from_file(str(json_path))
    for text in TEXTS:
        ids = sp.encode(text)
        assert theirs_again.encode(text) == ids, text
        assert hf.encode(text, add_special_tokens=False).ids == ids, text


def test_subword_nmt_codes_download_as_codes_that_segment_the_same(tmp_path):
    codes = io.StringIO()
    learn_bpe.learn_bpe(io.StringIO(TEXT), codes, 300)
    imported = read_uploads([("codes.bpe", codes.getvalue().encode())])
    theirs = apply_bpe.BPE(io.StringIO(codes.getvalue()))
    again = apply_bpe.BPE(io.StringIO(word_codes_bytes(imported.tok).decode()))
    for text in TEXTS:
        assert again.process_line(text) == theirs.process_line(text), text
