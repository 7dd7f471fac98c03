"""Fixtures the hostile-input matrix shares (tests/pages/test_hostile.py, test_hostile_files.py)."""

from __future__ import annotations

import pytest
from hostile import SAMPLES

from bpe_core import RegexTokenizer
from bpe_core.formats import to_gpt2_files, to_hf_json, to_tiktoken
from ui.exchange.files import minbpe_model_bytes


@pytest.fixture(scope="module")
def valid_files() -> dict[str, bytes]:
    """A small tokenizer with a special token, in every format the page reads."""
    tok = RegexTokenizer()
    tok.train(SAMPLES["English prose"], 400)
    tok.register_special_tokens({"<|end|>": 500})
    vocab, merges = to_gpt2_files(tok)
    return {"x.model": minbpe_model_bytes(tok), "tokenizer.json": to_hf_json(tok).encode(),
            "x.tiktoken": to_tiktoken(tok), "vocab.json": vocab.encode(),
            "merges.txt": merges.encode()}
