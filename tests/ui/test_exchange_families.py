"""A SentencePiece file, which bpe_core now reads, is said by name where the app and the command
line take only byte-level BPE: the Export & import page's reader (``read_uploads``) and
``bpe-lab encode`` refuse it with its family named, never with a traceback."""

from __future__ import annotations

import pytest
import sentencepiece as spm
from support import CORPORA

from bpe_lab.cli import main
from ui.exchange.files import read_uploads


@pytest.fixture(scope="module")
def model_file(tmp_path_factory):
    prefix = tmp_path_factory.mktemp("family") / "llama"
    spm.SentencePieceTrainer.train(
        sentence_iterator=iter(CORPORA["prose"][:6_000].splitlines()), model_prefix=str(prefix),
        model_type="bpe", vocab_size=400, byte_fallback=True, character_coverage=1.0,
        normalization_rule_name="identity", minloglevel=2)
    return prefix.with_suffix(".model")


def test_the_import_page_names_the_family_it_does_not_show(model_file):
    with pytest.raises(ValueError, match=r"tokenizer.model is a SentencePiece model \(sentencepiece BPE\)") as info:
        read_uploads([("tokenizer.model", model_file.read_bytes())])
    assert "byte-level tokenizers only" in str(info.value)


def test_bpe_lab_encode_names_the_family_it_does_not_encode(model_file, tmp_path, capsys):
    text = tmp_path / "a.txt"
    text.write_text("hello world\n", encoding="utf-8")
    assert main(["encode", str(model_file), str(text), "--workers", "1",
                 "--out", str(tmp_path / "ids.npy")]) == 2
    err = capsys.readouterr().err
    assert "(sentencepiece BPE)" in err and "Traceback" not in err
    assert not (tmp_path / "ids.npy").exists()
