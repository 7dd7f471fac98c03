"""One vocabulary, several encoders: BPE-dropout, greedy longest match, fewest tokens."""

from __future__ import annotations

import itertools
import json
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from naive import naive_encode
from parity_corpus import pretrained
from support import CORPORA, KINDS, core_corpus_tokenizer, trained
from tokenizers import Tokenizer as HFTokenizer

import bpe_core
from bpe_core import (
    BasicTokenizer,
    Tokenizer,
    dropout_merges,
    encode_variants,
    encode_with,
    fewest_tokens,
    greedy_longest,
    read_tokenizer,
)
from bpe_core.encoders import METHODS, _dropout_long, _dropout_short
from bpe_core.formats import to_hf_json
from bpe_core.merges import apply_merges

# A vocabulary on which the three encoders cut "abcde" three ways. Its merges, in order:
#   256 = b+c, 257 = a+b, 258 = c+d, 259 = cd+e, 260 = ab+c
# BPE replays the merges by rank. In a b c d e the candidates are a+b (257), b+c (256) and c+d
#   (258); b+c ranks lowest, so: a bc d e. Now no neighbouring pair is a merge (a+bc, bc+d, d+e
#   are not), so BPE stops at 4 tokens: a | bc | d | e.
# Greedy takes the longest token "abcde" starts with: abc (260); "de" is no token, so d, then e:
#   abc | d | e, 3 tokens.
# Fewest tokens: no token is 4 or 5 bytes long, so two tokens is the best hope, and ab | cde is
#   two (the only two: abc | de fails, a | bcde fails).
# So BPE is neither greedy (its first merge, b+c, breaks up the longest prefix abc) nor the
# shortest cut (it never makes cde, because it merged c into bc first).
MERGES = {(98, 99): 256, (97, 98): 257, (99, 100): 258, (258, 101): 259, (257, 99): 260}
A, B, C, D, E = b"abcde"
BC, AB, CD, CDE, ABC = 256, 257, 258, 259, 260

SAMPLES = [
    "",
    "hello world",
    "The quick brown fox jumps over the lazy dog.\n\n    def f(x): return x ** 2\n",
    "café crème brûlée — “quoted” ‘text’ naïve",
    "東京は日本の首都です。서울은 한국의 수도입니다.",
    "👩‍👩‍👧‍👦 👨‍💻 🇺🇳 😄😄 👍🏽 e\u0301 a\u0308",
    "   leading and trailing spaces   \t\n\r\n",
]


def tiny() -> Tokenizer:
    return BasicTokenizer(merges=MERGES)


class Scripted:
    """A stand-in for random.Random whose draws are written in the test; too few is an error."""

    def __init__(self, *draws: float) -> None:
        self.draws = list(draws)

    def random(self) -> float:
        assert self.draws, "the encoder drew more numbers than the test expects"
        return self.draws.pop(0)


def scripted(merge_chunk, ids: list[int], *draws: float) -> list[int]:
    """``merge_chunk`` with p=0.5 and these draws, each of which must be used."""
    rng = Scripted(*draws)
    out = merge_chunk(ids, MERGES, 0.5, rng)
    assert rng.draws == [], "the encoder drew fewer numbers than the test expects"
    return out


def byte_ids(tok: Tokenizer, text: str) -> list[int]:
    return [tok.byte_token_ids[b] for b in text.encode("utf-8")]


# ---------------------------------------------------------------------------------------------
# Known answers, worked by hand


def test_bpe_greedy_and_fewest_cut_the_same_word_three_ways():
    tok = tiny()
    found = encode_variants(tok, "abcde")
    assert found.bpe == [A, BC, D, E] == tok.encode("abcde")
    assert found.greedy == [ABC, D, E]
    assert found.fewest == [AB, CDE]
    assert list(found.by_method) == ["bpe", "greedy", "fewest"]
    assert found.dropout == []


def test_the_functions_on_bytes_give_the_same_answers():
    tok = tiny()
    assert max(map(len, tok.token_ids)) == 3
    assert greedy_longest(b"abcde", tok.token_ids, 3) == [ABC, D, E]
    assert fewest_tokens(b"abcde", tok.token_ids, 3) == [AB, CDE]
    # a max_len of 2 hides the three-byte tokens: greedy then takes ab, cd, e, which is also
    # the shortest cut into tokens of at most 2 bytes (5 bytes need 3 of them)
    assert greedy_longest(b"abcde", tok.token_ids, 2) == [AB, CD, E]
    assert fewest_tokens(b"abcde", tok.token_ids, 2) == [AB, CD, E]
    assert greedy_longest(b"", tok.token_ids, 3) == fewest_tokens(b"", tok.token_ids, 3) == []


def test_fewest_tokens_breaks_ties_by_the_longer_first_token():
    # "abcd" in two tokens: ab | cd or abc | d; the longer first token wins
    assert fewest_tokens(b"abcd", tiny().token_ids, 3) == [ABC, D]
    # "bcd" in two tokens: bc | d or b | cd; bc is the longer first token
    assert fewest_tokens(b"bcd", tiny().token_ids, 3) == [BC, D]


def test_a_byte_that_is_no_token_is_a_clear_error():
    with pytest.raises(ValueError, match="no token of the vocabulary starts with byte 0x7a"):
        greedy_longest(b"az", {b"a": 1}, 1)
    with pytest.raises(ValueError, match="no token of the vocabulary starts with byte 0x7a"):
        fewest_tokens(b"az", {b"a": 1}, 1)


@pytest.mark.parametrize("merge_chunk", [_dropout_short, _dropout_long])
def test_dropout_draws_in_rank_order_and_merges_the_first_survivor(merge_chunk):
    ids = list(b"abcde")
    # step 1, candidates by rank: b+c (256), a+b (257), c+d (258). 0.1 < p drops b+c; 0.7 keeps
    #   a+b: ab c d e. Step 2: c+d (258), ab+c (260); 0.9 keeps c+d: ab cd e. Step 3: cd+e (259),
    #   0.6 keeps it: ab cde, and no pair is left. Dropout found the fewest tokens here.
    assert scripted(merge_chunk, ids, 0.1, 0.7, 0.9, 0.6) == [AB, CDE]
    # b+c dropped, a+b kept: ab c d e; then c+d dropped, ab+c kept: abc d e, greedy's cut
    assert scripted(merge_chunk, ids, 0.1, 0.7, 0.1, 0.8) == [ABC, D, E]
    # the first draw keeps b+c: a bc d e, and no candidate is left: plain BPE, one draw
    assert scripted(merge_chunk, ids, 0.9) == [A, BC, D, E]
    # every candidate dropped in the first step: the bytes, three draws
    assert scripted(merge_chunk, ids, 0.1, 0.2, 0.3) == list(b"abcde")


@pytest.mark.parametrize("merge_chunk", [_dropout_short, _dropout_long])
def test_a_dropped_candidate_is_drawn_for_again_at_the_next_step(merge_chunk):
    ids = list(b"bcbc")
    # step 1: b+c at 0 dropped (0.1), b+c at 2 kept: b c bc. Step 2: b+c at 0 again, kept: bc bc
    assert scripted(merge_chunk, ids, 0.1, 0.9, 0.9) == [BC, BC]


def test_dropout_one_keeps_the_bytes_and_zero_is_bpe_on_the_known_word():
    tok = tiny()
    assert tok.encode("abcde", dropout=1.0, seed=3) == list(b"abcde")
    assert dropout_merges(list(b"abcde"), MERGES, 0.0, random.Random(3)) == [A, BC, D, E]


# ---------------------------------------------------------------------------------------------
# Dropout p=0 is BPE; p=1 is the bytes; seeds


def chunk_ids(tok: Tokenizer, text: str) -> list[list[int]]:
    return [byte_ids(tok, chunk) for chunk, special in tok.chunks(text) if special is None]


@pytest.mark.parametrize("name", ["gpt2", "trained"])
def test_dropout_zero_merges_every_chunk_as_apply_merges_does(name, prose_text, code_text):
    tok = pretrained("gpt2") if name == "gpt2" else core_corpus_tokenizer("gpt4", "prose")
    text = prose_text[:8000] + code_text[:4000] + "".join(SAMPLES)
    chunks = chunk_ids(tok, text)
    assert len(chunks) > 2000
    for ids in chunks:
        assert dropout_merges(ids, tok.merges, 0.0, random.Random(0)) == apply_merges(
            ids, tok.merges
        )
    rng = random.Random(0)
    assert [t for ids in chunks for t in dropout_merges(ids, tok.merges, 0.0, rng)] == tok.encode(
        text
    )


@pytest.mark.parametrize("size", [65, 300, 5000])
def test_dropout_zero_on_long_chunks_is_apply_merges(size, prose_text):
    """Chunks above 64 ids go through the heap version; a BasicTokenizer never splits."""
    tok = core_corpus_tokenizer("basic", "prose")
    rnd = random.Random(size)
    for _ in range(5):
        start = rnd.randrange(len(prose_text) - size)
        ids = byte_ids(tok, prose_text[start : start + size])
        assert dropout_merges(ids, tok.merges, 0.0, random.Random(0)) == apply_merges(
            ids, tok.merges
        )
    ids = byte_ids(tok, "a" * size)  # one letter repeated: overlapping pairs
    assert dropout_merges(ids, tok.merges, 0.0, random.Random(0)) == apply_merges(ids, tok.merges)


@settings(max_examples=60, deadline=None)
@given(
    text=st.text(alphabet="ab \ne", min_size=0, max_size=300),
    p=st.sampled_from([0.0, 0.05, 0.3, 0.8, 1.0]),
    seed=st.integers(0, 2**32),
)
def test_the_heap_version_makes_the_same_draws_as_the_plain_one(text, p, seed):
    tok = core_corpus_tokenizer("basic", "prose")
    ids = byte_ids(tok, text)
    short = _dropout_short(ids, tok.merges, p, random.Random(seed))
    assert _dropout_long(ids, tok.merges, p, random.Random(seed)) == short
    if p == 0:
        assert short == apply_merges(ids, tok.merges)


def test_a_tiny_dropout_through_encode_is_bpe(prose_text):
    for tok in (pretrained("gpt2"), core_corpus_tokenizer("gpt4", "prose")):
        assert tok.encode(prose_text[:5000], dropout=1e-12, seed=0) == tok.encode(
            prose_text[:5000]
        )


@pytest.mark.parametrize("name", ["gpt2", "trained"])
def test_dropout_one_gives_single_bytes(name):
    tok = pretrained("gpt2") if name == "gpt2" else core_corpus_tokenizer("gpt4", "prose")
    text = "".join(SAMPLES)
    ids = tok.encode(text, dropout=1.0, seed=0)
    assert ids == byte_ids(tok, text)
    assert len(ids) == len(text.encode("utf-8"))
    assert tok.decode(ids) == text


def test_the_same_seed_gives_the_same_tokens_and_other_seeds_others(prose_text):
    tok = core_corpus_tokenizer("gpt4", "prose")
    text = prose_text[:6000]
    first = tok.encode(text, dropout=0.1, seed=7)
    assert tok.encode(text, dropout=0.1, seed=7) == first
    others = [tok.encode(text, dropout=0.1, seed=s) for s in (8, 9)]
    assert all(o != first for o in others) and others[0] != others[1]
    # on prose, dropping 10% of the merges gives more tokens (on "abcde" above it can give
    # fewer: dropout is not "BPE, but worse")
    assert len(first) > len(tok.encode(text))
    assert all(tok.decode(ids) == text for ids in [first, *others])


def test_dropout_does_not_touch_the_chunk_cache(prose_text):
    """A fresh tokenizer encodes with dropout first: plain encode must not see those tokens."""
    text = prose_text[:3000]
    tok = trained("gpt4", CORPORA["prose"][:4000], 300)
    dropped = tok.encode(text, dropout=0.5, seed=1)
    plain = tok.encode(text)
    assert plain != dropped
    assert plain == naive_encode(text, tok.merges, tok.pattern) == tok.encode_ordinary(text)
    assert tok.encode_batch([text, "hello"]) == [plain, tok.encode("hello")]
    assert tok.encode_ordinary_batch([text]) == [plain]


@pytest.mark.parametrize("bad", [-0.1, 1.5, float("nan"), "0.1", None, True])
def test_a_dropout_that_is_no_probability_is_a_clear_error(bad):
    with pytest.raises(ValueError, match="dropout must be a probability from 0 to 1"):
        tiny().encode("abc", dropout=bad)


def test_a_seed_that_is_no_whole_number_is_a_clear_error():
    with pytest.raises(ValueError, match="seed must be a whole number or None"):
        tiny().encode("abc", dropout=0.5, seed=[1])
    assert tiny().encode("abc", dropout=0.5, seed=None) in ([A, BC], [AB, C], [ABC], [A, B, C])


# ---------------------------------------------------------------------------------------------
# Every method on real tokenizers


def chunk_boundaries(tok: Tokenizer, text: str) -> set[int]:
    """Byte offsets where the chunks of ``tok.chunks(text, "all")`` start and end."""
    ends, at = {0}, 0
    for chunk, _ in tok.chunks(text, "all"):
        at += len(chunk.encode("utf-8"))
        ends.add(at)
    return ends


def token_boundaries(tok: Tokenizer, ids: list[int]) -> set[int]:
    ends, at = {0}, 0
    for token in tok.decode_tokens_bytes(ids):
        at += len(token)
        ends.add(at)
    return ends


def check_variants(tok: Tokenizer, text: str, p: float, seed: int) -> None:
    found = encode_variants(tok, text, dropout_samples=2, p=p, seed=seed)
    assert found.bpe == tok.encode(text, "all")
    cuts = chunk_boundaries(tok, text)
    for ids in [*found.by_method.values(), *found.dropout]:
        assert tok.decode(ids) == text
        assert cuts <= token_boundaries(tok, ids)  # no token crosses a chunk boundary
    assert len(found.fewest) <= min(len(found.bpe), len(found.greedy), *map(len, found.dropout))
    for k, ids in enumerate(found.dropout):
        assert ids == tok.encode(text, "all", dropout=p, seed=seed + k)


@settings(max_examples=80, deadline=None)
@given(
    text=st.text(max_size=200),
    kind=st.sampled_from(KINDS),
    p=st.floats(0, 1),
    seed=st.integers(0, 1000),
)
def test_every_method_decodes_back_and_fewest_is_never_longer(text, kind, p, seed):
    check_variants(core_corpus_tokenizer(kind, "prose"), text, p, seed)


@pytest.mark.parametrize("name", ["gpt2", "cl100k_base"])
def test_presets_with_their_own_byte_ids_decode_back(name, prose_text):
    tok = pretrained(name)
    if name == "gpt2":
        assert tok.byte_token_ids[:3] == [188, 189, 190]  # its bytes are not ids 0..255
        assert tok.encode("!", dropout=1.0) == [0]  # byte 33 is GPT-2's id 0
    for text in [*SAMPLES, prose_text[:3000]]:
        check_variants(tok, text, 0.3, 0)


@settings(max_examples=100, deadline=None)
@given(text=st.text(alphabet="abcde", max_size=10))
def test_fewest_tokens_is_the_true_minimum(text):
    """Against every cut of the text into vocabulary tokens (2**(n-1) of them)."""
    vocab = tiny().token_ids
    data = text.encode()
    best = len(data)
    for cuts in itertools.product([False, True], repeat=max(len(data) - 1, 0)):
        pieces, start = [], 0
        for i, cut in enumerate(cuts, 1):
            if cut:
                pieces.append(data[start:i])
                start = i
        pieces.append(data[start:])
        if all(piece in vocab for piece in pieces):
            best = min(best, len(pieces))
    found = fewest_tokens(data, vocab, 3)
    assert b"".join(tiny().decode_tokens_bytes(found)) == data
    assert len(found) == (best if data else 0)
    assert len(found) <= len(greedy_longest(data, vocab, 3))
    assert len(found) <= len(tiny().encode(text))


def test_special_tokens_stay_whole_in_every_method():
    tok = pretrained("gpt2")
    eot = tok.special_tokens["<|endoftext|>"]
    text = "hello<|endoftext|>world <|endoftext|>"
    found = encode_variants(tok, text, dropout_samples=3, p=1.0)
    for ids in [*found.by_method.values(), *found.dropout]:
        assert ids.count(eot) == 2
        assert tok.decode(ids) == text
    assert found.dropout[0] == [*byte_ids(tok, "hello"), eot, *byte_ids(tok, "world "), eot]
    assert tok.encode(text, allowed_special="all", dropout=1.0).count(eot) == 2
    # as encode: a special token's text that is not allowed is an error, or ordinary text
    with pytest.raises(ValueError, match="special token"):
        encode_variants(tok, text, allowed_special="none_raise")
    as_text = encode_variants(tok, text, allowed_special="none", dropout_samples=1, p=0.5)
    assert eot not in as_text.greedy and eot not in as_text.dropout[0]


def test_dropout_with_ignore_merges_drops_as_hugging_face_does():
    """tokenizers keeps a whole-token chunk whole only without dropout; with dropout 1 every
    merge is dropped, the whole token too (checked against tokenizers itself)."""
    tok = BasicTokenizer(merges={(98, 99): 256, (97, 98): 257, (257, 99): 258})
    document = json.loads(to_hf_json(tok))
    document["model"]["ignore_merges"] = True
    ours = read_tokenizer(json.dumps(document).encode(), "tokenizer.json")
    document["model"]["dropout"] = 1.0
    hf = HFTokenizer.from_str(json.dumps(document))
    assert ours.encode("abc") == [258]
    assert ours.encode("abc", dropout=1.0) == hf.encode("abc").ids == [97, 98, 99]


def test_encode_with_runs_one_method_and_refuses_others():
    tok = tiny()
    assert [encode_with(tok, "abcde", m) for m in METHODS] == [
        [A, BC, D, E], [ABC, D, E], [AB, CDE]
    ]
    with pytest.raises(ValueError, match="method must be one of bpe, greedy, fewest"):
        encode_with(tok, "abc", "longest")


@pytest.mark.parametrize("bad", [-1, 101, True, 2.0])
def test_encode_variants_bounds_its_samples(bad):
    with pytest.raises(ValueError, match="dropout_samples must be a whole number from 0 to 100"):
        encode_variants(tiny(), "abc", dropout_samples=bad)


def test_the_public_names_are_exported():
    for name in ("dropout_merges", "greedy_longest", "fewest_tokens", "encode_variants",
                 "encode_with", "EncoderVariants"):
        assert name in bpe_core.__all__ and hasattr(bpe_core, name)


def test_encode_variants_refuses_a_p_or_seed_it_cannot_use():
    with pytest.raises(ValueError, match="dropout p must be a probability from 0 to 1"):
        encode_variants(tiny(), "abc", p=1.5)
    with pytest.raises(ValueError, match="seed must be a whole number"):
        encode_variants(tiny(), "abc", seed="7")
