"""A first encode (cold: empty caches) and later ones give tiktoken's ids on every road:
mostly-ASCII text chunk by chunk, split by the stdlib's re (words.encode_ordinary_text), other
text a word at a time (words.encode_words). The ASCII patterns split as the real ones,
the spans of other characters begin and end where words begin, and the caches stay bounded
(counted, not timed)."""

from __future__ import annotations

import os
import random

import pytest
import regex
from parity_corpus import CORPUS, tiktoken_cache_dir

import bpe_core.base as base_module
import bpe_core.words as words_module
from bpe_core import load_pretrained
from bpe_core.words import (
    CHUNK_ROAD,
    OTHER_SHARE,
    WORD_PATTERNS,
    WORDS_KEY,
    ascii_pattern,
    ascii_split,
    other_spans,
    words,
)

ASCII = "".join(map(chr, range(128)))
# the ASCII corners of the patterns: every kind of space and line break, controls that are not
# \s, contractions in both cases, digits, "/" (GPT-4o's [\r\n/]*), punctuation
ASCII_ALPHABET = [" ", " ", " ", "\t", "\n", "\r", "\x0b", "\x0c", "\x1c", "\x00", "\x7f", "a", "s",
                  "S", "l", "L", "v", "e", "r", "d", "m", "t", "T", "x", "1", "2", "'", ".", "/", "-",
                  "(", "_"]
# characters that are not ASCII, of every kind the patterns tell apart
OTHER = ["é", "日本", "\u0301", "²", "Ⅳ", "\u00a0", "\u3000", "\u2028", "😀", "ſ", "K", "Ω", "ß"]


def ascii_texts(n: int = 3000, seed: int = 11) -> list[str]:
    rng = random.Random(seed)
    return ["".join(rng.choices(ASCII_ALPHABET, k=rng.randint(1, 30))) for _ in range(n)]


@pytest.mark.parametrize("pattern", sorted(WORD_PATTERNS))
def test_the_ascii_patterns_split_ascii_text_as_the_patterns_do(pattern):
    real, ours = regex.compile(pattern), ascii_split(pattern)
    pairs = [a + b for a in ASCII for b in ASCII]  # every ASCII character, alone and in pairs
    for text in [*ASCII, *pairs, *ascii_texts(), "".join(ascii_texts(200))]:
        assert ours.findall(text) == real.findall(text), repr(text)


def test_an_ascii_pattern_spells_each_class_by_its_ascii_members():
    assert ascii_pattern(r"\p{N}{1,3}+|[^\s\p{L}\p{N}]") == r"[0-9]{1,3}+|[^\x09-\x0d\x20A-Za-z0-9]"
    assert ascii_pattern(r"[\p{Lt}\p{M}\p{Lu}]+") == "[A-Z]+"  # title case and marks: none
    with pytest.raises(ValueError, match="no ASCII member"):
        ascii_pattern(r"[\p{M}]")


def mixed_texts(n: int = 300, seed: int = 3) -> list[str]:
    """Mostly ASCII (code and prose of the corpus, whitespace runs), with other characters put
    in at random places: at a word's start, inside it, at its end, between spaces."""
    rng = random.Random(seed)
    ascii_parts = [text for _, text in CORPUS if text.isascii()]
    out = []
    for _ in range(n):
        text = list(rng.choice(ascii_parts) * rng.randint(1, 3) + "  \n\t x  ")
        for _ in range(rng.randint(0, 3)):
            text.insert(rng.randrange(len(text) + 1), rng.choice(OTHER))
        out.append("".join(text))
    return out


def test_other_characters_lie_in_spans_that_begin_and_end_where_words_begin():
    seen = 0
    for text in mixed_texts() + ["é", "x é", "é x", "a\u3000 b" + "c " * 50, " " * 300 + "é"]:
        spans = other_spans(text)
        if spans is None:
            assert sum(len(w) for w in words(text) if not w.isascii()) > OTHER_SHARE * len(text)
            continue
        seen += bool(spans)
        starts = {0, len(text), *(k for k in range(len(text)) if k and text[k] == " "
                                   and not regex.match(r"\s", text[k - 1]))}
        end = 0
        for start, stop in spans:
            assert end <= start < stop and start in starts and stop in starts, (text, spans)
            assert text[end:start].isascii()
            end = stop
        assert text[end:].isascii()
    assert seen > 50  # many mixed texts are cut in spans, not given up


@pytest.fixture(scope="module")
def tiktoken_encodings():
    """tiktoken itself, reading OpenAI's files offline (as tests/core/test_tiktoken_dropin.py)."""
    import tiktoken

    before = os.environ.get("TIKTOKEN_CACHE_DIR")
    os.environ["TIKTOKEN_CACHE_DIR"] = str(tiktoken_cache_dir())
    try:
        yield {name: tiktoken.get_encoding(name) for name in ("gpt2", "cl100k_base", "o200k_base")}
    finally:
        if before is None:
            del os.environ["TIKTOKEN_CACHE_DIR"]
        else:
            os.environ["TIKTOKEN_CACHE_DIR"] = before


def varied_texts() -> list[str]:
    rng = random.Random(7)
    other_scripts = "Привет, мир! Это тест. 日本語のテキストです。 مرحبا بالعالم  हिन्दी पाठ "
    return [
        *mixed_texts(120),
        "\n".join(text for _, text in CORPUS),  # the corpus whole: code, prose, other scripts
        other_scripts * 5,  # a word at a time
        "x = 1\r\n" * 50 + "  \t \n\n   \r\n" * 20 + " " * 250,  # whitespace runs; one of 250
        "a" * 150 + " " + "b1" * 80 + " naïve" + " word" * 40,  # chunks too long to remember
        "".join(chr(rng.randrange(0x20, 0x2FFF)) for _ in range(400)),  # random code points
        " ".join("".join(rng.choices("abcXYZ019'.-", k=rng.randint(1, 9))) for _ in range(500)),
    ]


@pytest.mark.parametrize("name", ["gpt2", "cl100k_base", "o200k_base"])
def test_cold_and_warm_encodes_give_tiktokens_ids(name, tiktoken_encodings):
    reference = tiktoken_encodings[name]
    texts = varied_texts()
    warm = load_pretrained(name)
    roads = {other_spans(text) is None or warm.pattern not in CHUNK_ROAD for text in texts}
    assert roads == ({True, False} if name != "o200k_base" else {True})  # both roads, or words
    for text in texts:
        expected = reference.encode_ordinary(text)
        assert load_pretrained(name).encode_ordinary(text) == expected, text  # cold
        assert warm.encode_ordinary(text) == expected, text
        assert warm.encode_ordinary(text) == expected, text  # from the caches
    text = "naïve <|endoftext|> code()  " * 3
    assert warm.encode(text, allowed_special="all") == reference.encode(text, allowed_special="all")


@pytest.mark.parametrize("block", [1, 5, 64])
def test_other_characters_are_found_in_blocks_of_any_size(block, monkeypatch, tiktoken_encodings):
    """other_spans looks for characters that are not ASCII only in the blocks of ASCII_BLOCK
    characters that hold some: runs across two or more blocks, blocks without any, a short last
    block. With small blocks every such case occurs, and the ids stay tiktoken's."""
    monkeypatch.setattr(words_module, "ASCII_BLOCK", block)
    reference = tiktoken_encodings["cl100k_base"]
    tok = load_pretrained("cl100k_base")
    texts = mixed_texts(80, seed=5) + ["déjà vu, " + "plain text " * 30 + "naïve 日本語 x" * 2]
    assert sum(other_spans(text) not in (None, []) for text in texts) >= 15
    for text in texts:
        assert tok.encode_ordinary(text) == reference.encode_ordinary(text), text


class CountingTokenizer(type(load_pretrained("gpt2"))):
    """Counts the chunks it merges (the work of a first encode that the caches then save)."""

    def _merge_chunk(self, chunk: str) -> list[int]:
        self.merged.append(chunk)
        return super()._merge_chunk(chunk)


def counting(name: str) -> CountingTokenizer:
    tok = load_pretrained(name)
    object.__setattr__(tok, "__class__", CountingTokenizer)
    tok.merged = []
    return tok


def test_each_new_chunk_is_merged_once_and_whole_tokens_not_at_all():
    tok = counting("cl100k_base")
    text = "def frobnicate(widgets):  # frobnicate the widgets\n" * 200 + " the and of" * 100
    ids = tok.encode_ordinary(text)
    chunks = tok.split(text)
    not_tokens = {c for c in chunks if c.encode() not in tok.token_ids}
    assert sorted(tok.merged) == sorted(not_tokens) and not_tokens  # once each
    assert tok.encode_ordinary(text) == ids and len(tok.merged) == len(not_tokens)  # cached


@pytest.mark.parametrize("name", ["cl100k_base", "o200k_base"])
def test_the_caches_stay_bounded(name, monkeypatch, tiktoken_encodings):
    monkeypatch.setattr(base_module, "CACHE_SIZE", 300)
    monkeypatch.setattr(words_module, "WORD_CACHE_SIZE", 40)
    reference = tiktoken_encodings[name]
    tok = load_pretrained(name)
    rng = random.Random(1)
    ascii_text = " ".join(f"w{rng.randrange(10**6)}x" for _ in range(2000))  # 4,000 new chunks
    other_text = " ".join(f"é{rng.randrange(10**6)}" for _ in range(500))  # 500 new words
    for text in [ascii_text, other_text, ascii_text + other_text, other_text]:
        assert tok.encode_ordinary(text) == reference.encode_ordinary(text)
        chunks = [key for key in tok._cache if key is not WORDS_KEY]
        assert len(chunks) <= 300
        assert len(tok._cache.get(WORDS_KEY, ())) <= 40


def test_a_words_cache_emptied_meanwhile_still_gives_the_ids(tiktoken_encodings):
    class Forgetful(dict):
        def __getitem__(self, word):  # another thread (a shared tokenizer) empties the cache
            self.clear()
            return super().__getitem__(word)

    tok = load_pretrained("cl100k_base")
    tok._cache[WORDS_KEY] = Forgetful()
    text = "Привет, мир! Это тест, again and again. " * 20
    assert other_spans(text) is None  # a word at a time
    assert tok.encode_ordinary(text) == tiktoken_encodings["cl100k_base"].encode_ordinary(text)


def test_copies_share_the_bytes_to_id_lookup_until_one_changes():
    first, second = load_pretrained("gpt2"), load_pretrained("gpt2")
    assert first.token_ids is second.token_ids  # built once at load, shared, never changed
    before = dict(second.token_ids)
    first.train("a few words to train on, a few words", 260)  # a tokenizer of its own
    assert first.token_ids is not second.token_ids
    assert second.token_ids == before and len(first.token_ids) != len(before)
