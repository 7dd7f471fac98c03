"""Messages put quotes where they belong and name the keyword that fixes the problem
(issue 27)."""

from __future__ import annotations

import json

import pytest

from bpe_core import RegexTokenizer, read_tokenizer
from bpe_core.formats import to_hf_json


@pytest.fixture(scope="module")
def document() -> dict:
    tok = RegexTokenizer()
    tok.train("hello world " * 20, 260)
    return json.loads(to_hf_json(tok))


@pytest.mark.parametrize(("key", "step", "quoted"), [
    ("pre_tokenizer", {"type": "UnicodeScripts"}, "(pre-tokenizer type 'UnicodeScripts')"),
    ("normalizer", {"type": "BertNormalizer"}, "(normalizer type 'BertNormalizer')"),
])
def test_an_unsupported_step_is_quoted_with_the_parenthesis_outside(document, key, step, quoted):
    with pytest.raises(ValueError) as info:
        read_tokenizer(json.dumps(dict(document, **{key: step})).encode(), "tokenizer.json")
    assert quoted in str(info.value)
    assert f"{step['type']})'" not in str(info.value)


def test_a_gpt2_vocabulary_alone_names_the_keyword_for_its_partner(document):
    vocab = json.dumps({"a": 0, "b": 1}).encode()
    with pytest.raises(ValueError, match="merges="):
        read_tokenizer(vocab, "words.json")
    with pytest.raises(ValueError, match="vocab="):
        read_tokenizer(b"#version: 0.2\na b\n", "pairs.txt")
