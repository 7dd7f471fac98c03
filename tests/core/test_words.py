"""Encoding a word at a time (bpe_core/words.py) gives the ids of encoding chunk by chunk, and
its two claims hold: the patterns it trusts never run a chunk from a non-space into a space,
and every token of a shipped vocabulary merges to itself."""

from __future__ import annotations

import random

import pytest
import regex
from hypothesis import given, settings
from parity_corpus import CORPUS, random_text

import bpe_core.words as words_module
from bpe_core import GPT2_SPLIT_PATTERN, GPT4_SPLIT_PATTERN, load_pretrained
from bpe_core.merges import apply_merges
from bpe_core.patterns import GPT4O_SPLIT_PATTERN
from bpe_core.text import clean_text
from bpe_core.words import WHITESPACE, WHOLE_TOKENS, WORD_PATTERNS, words

# characters at the corners of the patterns: spaces of several kinds, line breaks, letters of
# each case, a combining mark, digits of several kinds, apostrophes and contractions, "/"
ALPHABET = [" ", " ", " ", "\t", "\n", "\r", "\u00a0", "\u3000", "\x0b", "\x1c", "a", "b", "s",
            "B", "S", "\u0301", "é", "日", "1", "²", "Ⅳ", ".", ",", "'", "/", "-", "(", "😀"]


def tricky_texts(n: int = 1500, seed: int = 5) -> list[str]:
    rng = random.Random(seed)
    return ["".join(rng.choices(ALPHABET, k=rng.randint(1, 40))) for _ in range(n)]


TEXTS = [text for _, text in CORPUS] + tricky_texts() + [
    "Hi  there, you.\n  x = 1", "a \n b", "x  ", "  x", " ", "don't  'S  it's/ x", "a\u3000 b",
    "1 234  5678", "end.\n\n  next", "日本 語  ", "tab\t x", "CamelCase McDonald's  THE",
]


def test_whitespace_is_regexs_white_space_on_every_code_point():
    every = "".join(map(chr, range(0x110000)))
    assert "".join(regex.findall(r"\s", every)) == WHITESPACE


@pytest.mark.parametrize("pattern", sorted(WORD_PATTERNS))
def test_the_words_chunks_are_the_whole_texts_chunks(pattern):
    assert pattern in (GPT2_SPLIT_PATTERN, GPT4_SPLIT_PATTERN, GPT4O_SPLIT_PATTERN)
    compiled = regex.compile(pattern)
    for text in TEXTS:
        assert "".join(words(text)) == text
        by_words = [chunk for word in words(text) for chunk in compiled.findall(word)]
        assert by_words == compiled.findall(text), text


def by_chunks(tok, text: str) -> list[int]:
    """The ids chunk by chunk, merging each chunk (no word cache, no whole-token shortcut)."""
    return [i for chunk in tok.split(clean_text(text)) for i in tok._merge_chunk(chunk)]


@pytest.mark.parametrize("name", ["gpt2", "cl100k_base", "o200k_base"])
def test_encoding_by_words_gives_the_ids_of_encoding_by_chunks(name, monkeypatch):
    reference = load_pretrained(name)
    object.__setattr__(reference, WHOLE_TOKENS, False)
    tok = load_pretrained(name)
    assert tok._by_words()
    monkeypatch.setattr(words_module, "WORD_CACHE_SIZE", 50)  # the cache fills and starts again
    texts = TEXTS[:400] + ["\n".join(TEXTS)]
    for text in texts + texts:  # the second time from the cache
        assert tok.encode_ordinary(text) == by_chunks(reference, text), text
    assert len(tok._cache.get(None, ())) <= 50  # between two encodes, however many words
    text = "Hello <|endoftext|> world  again"
    assert tok.encode(text, allowed_special="all") == (
        by_chunks(reference, "Hello ") + [tok.special_tokens["<|endoftext|>"]]
        + by_chunks(reference, " world  again"))


@settings(max_examples=150, deadline=None)
@given(text=random_text())
def test_random_text_by_words_and_by_chunks(text):
    tok = load_pretrained("cl100k_base")
    reference = load_pretrained("cl100k_base")
    object.__setattr__(reference, WHOLE_TOKENS, False)
    assert tok.encode_ordinary(text) == by_chunks(reference, text)


@pytest.mark.parametrize("name", ["gpt2", "cl100k_base", "o200k_base"])
def test_every_shipped_token_merges_to_itself(name):
    tok = load_pretrained(name)
    assert tok.__dict__.get(WHOLE_TOKENS) is True
    specials = set(tok.special_tokens.values())
    unreachable = [idx for idx, data in tok.vocab.items() if idx not in specials
                   and apply_merges([tok.byte_ids[b] for b in data] if tok.byte_ids else list(data),
                                    tok.merges) != [idx]]
    assert unreachable == []


def test_the_whole_token_shortcut_is_dropped_when_the_merges_change():
    tok = load_pretrained("gpt2")
    tok.train("a few words to train on, a few words", 260)
    assert not tok.__dict__.get(WHOLE_TOKENS)
    # a pattern outside WORD_PATTERNS is split whole, as before
    other = load_pretrained("gpt2")
    other.pattern = r"\w+|\s+|[^\w\s]+"
    assert not other._by_words()
    assert other.encode_ordinary("a b  c") == [i for c in ["a", " ", "b", "  ", "c"]
                                               for i in other.encode_chunk(c)]
