"""A SentencePiece file, which bpe_core now reads, is said by name where the app takes only
byte-level BPE: the Export & import page's reader (``read_uploads``) refuses it with its family
named, never with a traceback (``bpe-lab encode`` encodes it, ``info`` and ``check`` refuse it:
tests/cli/test_sentencepiece_cli.py)."""

from __future__ import annotations

import pytest
import sentencepiece as spm
from support import CORPORA

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
