"""Encoding and decoding: round trips, agreement with the naive encoder, long chunks, errors."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from naive import _encode_chunk, naive_encode, naive_train_stream
from support import (
    CORPORA,
    KINDS,
    core_corpus_tokenizer,
    naive_corpus_result,
    new_tokenizer,
    trained,
)

from bpe_core import BasicTokenizer, RegexTokenizer
from bpe_core import merges as bpe_merges
from bpe_core.merges import apply_merges

SAMPLES = [
    "",
    "hello world",
    "The quick brown fox jumps over the lazy dog.\n\n    def f(x): return x ** 2\n",
    "café crème brûlée — “quoted” ‘text’ naïve",
    "東京は日本の首都です。서울은 한국의 수도입니다.",
    "👩‍👩‍👧‍👦 👨‍💻 🇺🇳 😄😄 👍🏽 e\u0301 a\u0308",
    "   leading and trailing spaces   \t\n\r\n",
    "\x00\x01\x7f control \u2028 line separator \ufeff bom",
]


@pytest.mark.parametrize("corpus", ["prose", "code"])
@pytest.mark.parametrize("kind", KINDS)
def test_encode_equals_naive_on_corpora(kind, corpus, prose_text, code_text):
    tok = core_corpus_tokenizer(kind, corpus)
    merges = naive_corpus_result(kind, corpus)[0]
    other = code_text if corpus == "prose" else prose_text
    for text in [prose_text[:6000], code_text[:6000], other[-3000:], *SAMPLES]:
        assert tok.encode_ordinary(text) == naive_encode(text, merges, tok.pattern)
        assert tok.encode(text) == tok.encode_ordinary(text)  # no special tokens registered


@pytest.mark.parametrize("corpus", ["prose", "code"])
@pytest.mark.parametrize("kind", KINDS)
def test_encoding_the_training_text_gives_the_merged_training_stream(kind, corpus):
    _, _, stream = naive_corpus_result(kind, corpus)
    tok = core_corpus_tokenizer(kind, corpus)
    expected = [token for chunk in stream for token in chunk]
    assert tok.encode_ordinary(CORPORA[corpus]) == expected


@settings(max_examples=40, deadline=None)
@given(text=st.text(alphabet="ab \n", max_size=300), kind=st.sampled_from(KINDS))
def test_encoding_random_training_text_gives_its_merged_stream(text, kind):
    tok = trained(kind, text, 290)
    merges, _, stream = naive_train_stream(text, 290, tok.pattern)
    assert tok.merges == merges
    assert tok.encode_ordinary(text) == [token for chunk in stream for token in chunk]


@settings(max_examples=80, deadline=None)
@given(text=st.text(max_size=200), kind=st.sampled_from(KINDS))
def test_random_text_round_trips_and_matches_naive(text, kind):
    tok = core_corpus_tokenizer(kind, "prose")
    ids = tok.encode(text)
    assert tok.decode(ids) == text
    assert tok.decode_bytes(ids) == text.encode("utf-8")
    assert all(isinstance(i, int) and 0 <= i < tok.vocab_size for i in ids)
    merges = naive_corpus_result(kind, "prose")[0]
    assert ids == naive_encode(text, merges, tok.pattern)


@settings(max_examples=40, deadline=None)
@given(
    train_text=st.text(alphabet="abc é😄\n", max_size=150),
    text=st.text(alphabet="abc é😄\n", max_size=150),
    kind=st.sampled_from(KINDS),
)
def test_random_tokenizer_on_random_text_matches_naive(train_text, text, kind):
    tok = trained(kind, train_text, 300)
    assert tok.encode(text) == naive_encode(text, tok.merges, tok.pattern)
    assert tok.decode(tok.encode(text)) == text


@pytest.mark.parametrize("kind", KINDS)
def test_untrained_tokenizer_encodes_raw_bytes(kind):
    tok = new_tokenizer(kind)
    assert tok.encode("hé😄") == list("hé😄".encode())
    assert tok.decode(list("hé😄".encode())) == "hé😄"


# ---------------------------------------------------------------------------------------------
# One very long chunk (no split point): must be right, and must not take quadratic time
# ---------------------------------------------------------------------------------------------


def doubling_tokenizer(cls):
    # Trained on 1024 a's: merges make 2, 4, 8, ..., 1024 a's (ids 256..265), then nothing is left.
    tok = cls()
    tok.train("a" * 1024, 300)
    expected = {(97, 97): 256}
    for idx in range(257, 266):
        expected[(idx - 1, idx - 1)] = idx
    assert tok.merges == expected
    assert [record.count for record in tok.history] == [1023, 511, 255, 127, 63, 31, 15, 7, 3, 1]
    assert tok.vocab[265] == b"a" * 1024
    return tok


@pytest.mark.parametrize("cls", [BasicTokenizer, RegexTokenizer])
def test_200k_run_of_one_letter(cls):
    tok = doubling_tokenizer(cls)
    # 200 000 = 195 * 1024 + 256 + 64: the last two pieces are left over from uneven pairings.
    ids = tok.encode("a" * 200_000)
    assert ids == [265] * 195 + [263, 261]
    assert tok.decode(ids) == "a" * 200_000


@pytest.mark.parametrize("cls", [BasicTokenizer, RegexTokenizer])
def test_200k_chunk_of_two_letters(cls):
    rng = random.Random(1234)
    tok = cls()
    tok.train("".join(rng.choice("ab") for _ in range(3000)), 272)
    assert len(tok.merges) == 16
    text = "".join(rng.choice("ab") for _ in range(200_000))
    assert tok.split(text) == [text]  # one chunk, even for the regex tokenizer
    ids = tok.encode(text)
    assert ids == naive_encode(text, tok.merges)
    assert tok.decode(ids) == text


# ---------------------------------------------------------------------------------------------
# Decoding
# ---------------------------------------------------------------------------------------------


def test_decode_replaces_invalid_utf8_like_the_seed():
    tok = BasicTokenizer()
    ids = [0x80, *b"abc"]  # a lone continuation byte
    assert tok.decode(ids) == "\ufffdabc"
    assert tok.decode(ids, errors="replace") == "\ufffdabc"
    assert tok.decode([97, 128, 98]) == "a\ufffdb"
    assert tok.decode_bytes(ids) == b"\x80abc"
    with pytest.raises(ValueError):  # UnicodeDecodeError is a ValueError
        tok.decode(ids, errors="strict")


def test_decode_joins_split_multibyte_tokens():
    tok = BasicTokenizer()
    tok.train("aé" * 20, 257)  # (a, 0xC3) is the first pair: 256 = b"a\xc3"
    assert tok.vocab[256] == b"a\xc3"
    assert tok.decode([256, 0xA9]) == "aé"
    assert tok.decode([256]) == "a\ufffd"
    assert tok.decode_single_token_bytes(256) == b"a\xc3"


def test_decode_single_token_bytes():
    tok = trained("basic", "aaabdaaabac", 259)
    assert tok.decode_single_token_bytes(258) == b"aaab"
    assert tok.decode_single_token_bytes(97) == b"a"
    assert tok.decode_single_token_bytes(0xFF) == b"\xff"
    assert tok.decode_bytes([258, 100, 258, 97, 99]) == b"aaabdaaabac"


@pytest.mark.parametrize("bad_id", [259, 100_000, -1])
def test_unknown_id_is_a_value_error_naming_it(bad_id):
    tok = trained("basic", "aaabdaaabac", 259)  # ids 0..258
    for call in (
        lambda: tok.decode([97, bad_id]),
        lambda: tok.decode_bytes([bad_id]),
        lambda: tok.decode_single_token_bytes(bad_id),
    ):
        with pytest.raises(ValueError) as info:
            call()
        assert str(bad_id) in str(info.value)


# ---------------------------------------------------------------------------------------------
# split()
# ---------------------------------------------------------------------------------------------


@settings(max_examples=60, deadline=None)
@given(text=st.text(max_size=200), kind=st.sampled_from(KINDS))
def test_split_joins_back_to_the_text(text, kind):
    chunks = new_tokenizer(kind).split(text)
    assert "".join(chunks) == text
    if kind == "basic" and text:
        assert chunks == [text]


def test_split_is_the_pattern_chunks(prose_text):
    import regex

    for kind in ("gpt2", "gpt4", "gpt4o"):
        tok = new_tokenizer(kind)
        assert tok.split(prose_text[:5000]) == regex.findall(tok.pattern, prose_text[:5000])


@st.composite
def merge_table_and_ids(draw):
    """A random merge table over a few letters (merged ids above their parts, pairs of equal
    tokens included, as in "aaa") and a long list of those letters."""
    letters = list(range(97, 97 + draw(st.integers(1, 5))))
    merges: dict[tuple[int, int], int] = {}
    for _ in range(draw(st.integers(0, 25))):
        known = letters + list(merges.values())
        pair = (draw(st.sampled_from(known)), draw(st.sampled_from(known)))
        merges.setdefault(pair, 256 + len(merges))
    ids = draw(st.lists(st.sampled_from(letters), min_size=65, max_size=400))
    return merges, ids


@settings(max_examples=300, deadline=None)
@given(merge_table_and_ids())
def test_the_long_input_encoder_equals_the_seeds_loop(table):
    """Inputs longer than SHORT_CHUNK go rank by rank (merges._apply_merges_long): same ids,
    with the links as lists and as the arrays long inputs use."""
    merges, ids = table
    expected = _encode_chunk(ids, merges)
    assert apply_merges(ids, merges) == expected
    saved = bpe_merges.ARRAY_FROM
    try:
        bpe_merges.ARRAY_FROM = 0
        assert apply_merges(ids, merges) == expected
    finally:
        bpe_merges.ARRAY_FROM = saved
