"""Bad input is a ValueError that tells the user what to do; never an assert."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from support import KINDS, new_tokenizer

import bpe_core
from bpe_core import BasicTokenizer, RegexTokenizer


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize(
    ("vocab_size", "must_mention"),
    [
        (100, ["256"]),
        (255, ["256"]),
        (-1, ["256"]),
        (10**9, ["1000000", "1_000_000", "1,000,000", "10**6", "1e6", "million"]),
        (1_000_001, ["1000000", "1_000_000", "1,000,000", "10**6", "1e6", "million"]),
        ("512", ["int", "whole number"]),
        (None, ["int", "whole number"]),
    ],
)
def test_bad_vocab_size_is_a_helpful_value_error(kind, vocab_size, must_mention):
    tok = new_tokenizer(kind)
    with pytest.raises(ValueError) as info:
        tok.train("hello world", vocab_size)
    message = str(info.value)
    assert "vocab_size" in message, f"say which argument is wrong: {message!r}"
    assert any(word in message.lower() for word in must_mention), (
        f"say what is allowed ({must_mention[0]}): {message!r}"
    )
    assert tok.merges == {} and tok.vocab_size == 256, "a rejected call must not train"


def test_vocab_size_bounds_are_inclusive():
    tok = BasicTokenizer()
    tok.train("abcabc", 256)
    assert tok.merges == {} and tok.stop_reason is None
    tok.train("abcabc", 1_000_000)  # (a,b) x2 -> 256; (256,c) x2 -> 257; (257,257) -> 258
    assert tok.merges == {(97, 98): 256, (256, 99): 257, (257, 257): 258}
    assert tok.stop_reason is not None


@pytest.mark.parametrize("pattern", ["(", "[a-", "a{2,1}", "*a", r"\p{NotAProperty}"])
def test_invalid_regex_is_a_value_error_at_construction(pattern):
    with pytest.raises(ValueError) as info:
        RegexTokenizer(pattern)
    message = str(info.value).lower()
    assert "pattern" in message or "regex" in message or "regular expression" in message


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("text", [b"bytes", None, 42, ["a", "b"]])
def test_non_str_text_is_a_value_error(kind, text):
    tok = new_tokenizer(kind)
    with pytest.raises(ValueError) as info:
        tok.train(text, 300)
    assert "str" in str(info.value)
    assert tok.merges == {}


@pytest.mark.parametrize("kind", KINDS)
def test_encode_non_str_is_a_value_error(kind):
    tok = new_tokenizer(kind)
    with pytest.raises(ValueError) as info:
        tok.encode(b"bytes")
    assert "str" in str(info.value)
    with pytest.raises(ValueError):
        tok.encode_ordinary(b"bytes")


@pytest.mark.parametrize("kind", KINDS)
def test_empty_text_trains_zero_merges_with_a_stop_reason(kind):
    tok = new_tokenizer(kind)
    tok.train("", 300)
    assert tok.merges == {} and tok.history == []
    assert tok.vocab_size == 256
    assert isinstance(tok.stop_reason, str) and tok.stop_reason
    assert tok.encode("") == [] and tok.decode([]) == ""


@pytest.mark.parametrize("kind", KINDS)
def test_single_character_text_has_no_pair_to_merge(kind):
    tok = new_tokenizer(kind)
    tok.train("x", 300)
    assert tok.merges == {}
    assert isinstance(tok.stop_reason, str) and tok.stop_reason


def test_core_never_validates_with_assert():
    package = Path(bpe_core.__file__).parent
    sources = sorted(package.rglob("*.py"))
    assert sources, f"no sources found under {package}"
    offenders = []
    for path in sources:
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if re.match(r"^\s*assert ", line):
                offenders.append(f"{path.name}:{number}: {line.strip()}")
    assert offenders == [], "use `raise ValueError(...)` for input validation:\n" + "\n".join(
        offenders
    )


def test_core_does_not_import_ui_libraries():
    package = Path(bpe_core.__file__).parent
    text = "\n".join(p.read_text(encoding="utf-8") for p in package.rglob("*.py"))
    for name in ("streamlit", "pandas", "altair"):
        assert not re.search(rf"^\s*(import|from)\s+{name}\b", text, re.MULTILINE), name
