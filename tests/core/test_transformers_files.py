"""``save_hf`` writes what ``transformers`` reads: ``tokenizer_config.json`` and
``special_tokens_map.json`` beside ``tokenizer.json``, so that ``AutoTokenizer.from_pretrained``
on the folder knows the end-of-text token and gives the same ids (issue 27). Offline: a local
folder, ``HF_HUB_OFFLINE=1``."""

from __future__ import annotations

import json

import pytest
from parity_corpus import CORPUS

import bpe_core
from bpe_core import GPT4_SPLIT_PATTERN, BasicTokenizer, RegexTokenizer

TEXTS = [bpe_core.clean_text(text) for _, text in CORPUS][:20] + [
    "a<|endoftext|>b", "<|endoftext|>", "two  spaces . and ,commas", ""]


@pytest.fixture
def auto_tokenizer(monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")  # a local folder: nothing to fetch
    monkeypatch.setenv("TRANSFORMERS_OFFLINE", "1")
    from transformers import AutoTokenizer

    return AutoTokenizer.from_pretrained


@pytest.mark.parametrize("kind", ["regex", "basic"])
def test_auto_tokenizer_knows_the_end_of_text_and_gives_the_same_ids(auto_tokenizer, kind,
                                                                     tmp_path):
    tok = RegexTokenizer(GPT4_SPLIT_PATTERN) if kind == "regex" else BasicTokenizer()
    tok.train(" ".join(text for _, text in CORPUS)[:8000], 400,
              special_tokens=["<|endoftext|>", "<|pad|>"])
    tok.save_hf(str(tmp_path / "tokenizer.json"))
    assert json.loads((tmp_path / "special_tokens_map.json").read_text()) == {
        "eos_token": "<|endoftext|>"}
    fast = auto_tokenizer(str(tmp_path))
    assert fast.eos_token == "<|endoftext|>"
    assert fast.eos_token_id == tok.special_tokens["<|endoftext|>"] == 398
    assert fast.convert_tokens_to_ids("<|pad|>") == 399
    for text in TEXTS:
        ids = tok.encode(text, allowed_special="all")
        assert fast(text)["input_ids"] == ids  # no post-processor: nothing added around
        assert fast.decode(ids) == tok.decode(ids)  # and no clean-up of spaces


def test_a_tokenizer_without_an_end_of_text_token_has_no_eos(auto_tokenizer, tmp_path):
    tok = RegexTokenizer()
    tok.train("hello world " * 50, 270)
    tok.save_hf(str(tmp_path / "tokenizer.json"))
    fast = auto_tokenizer(str(tmp_path))
    assert fast.eos_token is None
    assert fast("hello world")["input_ids"] == tok.encode("hello world")


def test_only_a_file_named_tokenizer_json_gets_the_transformers_files(tmp_path):
    tok = RegexTokenizer()
    tok.train("hello world " * 50, 270)
    tok.save_hf(str(tmp_path / "mine.json"))
    names = sorted(p.name for p in tmp_path.iterdir())
    assert names == ["mine.json", "mine.json.bpe-lab.json"]  # and the history's sidecar
