"""Training must reproduce the seeds' naive algorithm exactly: same merges, same counts."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from naive import naive_train, naive_vocab
from support import (
    CORPUS_VOCAB,
    KINDS,
    core_corpus_tokenizer,
    naive_corpus_result,
    new_tokenizer,
    pattern_of,
    trained,
)

from bpe_core import BasicTokenizer, MergeRecord, RegexTokenizer

REGEX_KINDS = ("gpt2", "gpt4", "gpt4o")


def history_counts(tok) -> list[int]:
    return [record.count for record in tok.history]


def assert_matches_naive(tok, text: str, vocab_size: int) -> None:
    """The trained tokenizer agrees with naive_train in merges, counts, vocab and stop_reason."""
    merges, counts = naive_train(text, vocab_size, tok.pattern)
    assert list(tok.merges.items()) == list(merges.items())  # same pairs, same order, same ids
    assert history_counts(tok) == counts
    assert [record.pair for record in tok.history] == list(merges)
    assert [record.id for record in tok.history] == list(merges.values())
    vocab = naive_vocab(merges)
    assert {i: tok.vocab[i] for i in vocab} == vocab
    assert tok.vocab_size == 256 + len(merges) + len(tok.special_tokens)
    if len(merges) < vocab_size - 256:
        assert_stopped_for_lack_of_pairs(tok)
    else:
        assert tok.stop_reason is None


def assert_stopped_for_lack_of_pairs(tok) -> None:
    reason = tok.stop_reason
    assert isinstance(reason, str) and reason, "stop_reason must say why training stopped early"
    assert re.search(rf"(?<!\d){len(tok.merges)}(?!\d)", reason), (
        f"stop_reason should say how many merges were made ({len(tok.merges)}): {reason!r}"
    )
    assert "callback" not in reason.lower()


# ---------------------------------------------------------------------------------------------
# Known answers worked out by hand
# ---------------------------------------------------------------------------------------------

# "aaabdaaabac": (a,a) occurs 4 times (overlapping) -> 256.
# Stream 256 a b d 256 a b a c: (256,a) and (a,b) both occur twice; (256,a) occurs first -> 257.
# Stream 257 b d 257 b a c: (257,b) twice -> 258.  Stream: 258 d 258 a c.
AAABDAAABAC_MERGES = {(97, 97): 256, (256, 97): 257, (257, 98): 258}
AAABDAAABAC_COUNTS = [4, 2, 2]


@pytest.mark.parametrize("kind", KINDS)
def test_classic_aaabdaaabac(kind):
    tok = trained(kind, "aaabdaaabac", 259)
    assert tok.merges == AAABDAAABAC_MERGES
    assert list(tok.merges) == list(AAABDAAABAC_MERGES)
    assert history_counts(tok) == AAABDAAABAC_COUNTS
    assert [r.token for r in tok.history] == [b"aa", b"aaa", b"aaab"]
    assert tok.vocab[258] == b"aaab"
    assert tok.vocab_size == 259
    assert tok.stop_reason is None
    assert tok.encode("aaabdaaabac") == [258, 100, 258, 97, 99]


def test_classic_aaabdaaabac_until_nothing_is_left():
    # After the 3 merges above every remaining pair occurs once; ties go to the earliest pair:
    # 258 d 258 a c -> (258,d)=259 -> 259 258 a c -> (259,258)=260 -> 260 a c -> (260,a)=261
    # -> 261 c -> (261,c)=262 -> a single token: 7 merges, then no pair is left.
    tok = BasicTokenizer()
    tok.train("aaabdaaabac", 300)
    assert tok.merges == {
        (97, 97): 256,
        (256, 97): 257,
        (257, 98): 258,
        (258, 100): 259,
        (259, 258): 260,
        (260, 97): 261,
        (261, 99): 262,
    }
    assert history_counts(tok) == [4, 2, 2, 1, 1, 1, 1]
    assert tok.vocab[262] == b"aaabdaaabac"
    assert tok.vocab_size == 263
    assert_stopped_for_lack_of_pairs(tok)
    assert "7" in tok.stop_reason


@pytest.mark.parametrize(
    ("text", "merges", "counts"),
    [
        # a a a a: (a,a) x3 overlapping -> 256; 256 256 -> 257.
        ("aaaa", {(97, 97): 256, (256, 256): 257}, [3, 1]),
        # a a a a a: (a,a) x4 -> 256 256 a; tie (256,256) vs (256,a): first wins.
        ("aaaaa", {(97, 97): 256, (256, 256): 257, (257, 97): 258}, [4, 1, 1]),
        # abababab: (a,b) x4 beats (b,a) x3; 256x4 has (256,256) x3; then 257 257.
        ("abababab", {(97, 98): 256, (256, 256): 257, (257, 257): 258}, [4, 3, 1]),
        # all pairs tie at 1: always the leftmost pair.
        (
            "abcdefg",
            {(97, 98): 256, (256, 99): 257, (257, 100): 258, (258, 101): 259,
             (259, 102): 260, (260, 103): 261},
            [1, 1, 1, 1, 1, 1],
        ),
    ],
)
@pytest.mark.parametrize("kind", KINDS)
def test_overlapping_runs_and_ties_by_hand(kind, text, merges, counts):
    tok = trained(kind, text, 300)  # more than available: training stops early
    assert list(tok.merges.items()) == list(merges.items())
    assert history_counts(tok) == counts
    assert tok.vocab[max(merges.values())] == text.encode()
    assert_stopped_for_lack_of_pairs(tok)


def test_regex_pairs_never_cross_chunk_boundaries():
    # GPT-4 chunks: "ab", " cd", " ab", " cd". (a,b), (" ",c), (c,d) tie at 2 -> (a,b) first.
    # Then (" ",c) x2 -> 257, (257,d) x2 -> 258, (" ",256) x1 -> 259; nothing else is left.
    tok = RegexTokenizer()
    tok.train("ab cd ab cd", 300)
    assert list(tok.merges.items()) == [((97, 98), 256), ((32, 99), 257), ((257, 100), 258),
                                        ((32, 256), 259)]
    assert history_counts(tok) == [2, 2, 2, 1]
    assert_stopped_for_lack_of_pairs(tok)
    # Without a split pattern the second merge glues the space to "ab".
    basic = BasicTokenizer()
    basic.train("ab cd ab cd", 258)
    assert list(basic.merges.items()) == [((97, 98), 256), ((256, 32), 257)]


def test_defaults():
    import bpe_core

    assert RegexTokenizer().pattern == bpe_core.GPT4_SPLIT_PATTERN
    assert BasicTokenizer().pattern == ""
    fresh = BasicTokenizer()
    assert fresh.merges == {} and fresh.history == [] and fresh.special_tokens == {}
    assert fresh.vocab == {i: bytes([i]) for i in range(256)}
    assert fresh.vocab_size == 256


# ---------------------------------------------------------------------------------------------
# Agreement with the naive reference
# ---------------------------------------------------------------------------------------------

TRICKY_TEXTS = {
    "ties": "ab ba ab ba cd dc cd dc ef fe ef fe",
    "many_ties": "the cat sat on the mat; a bat ate a rat",
    "runs": "aaaa aaaaa aaaaaa abababab aaaaaaaaa bbbbbbbb",
    "accents": "café crème brûlée naïve façade jalapeño Ærøskøbing Straße",
    "combining": "cafe\u0301 cre\u0300me n\u0303o a\u0308\u0308\u0308 e\u0301e\u0301e\u0301",
    "cjk": "東京は日本の首都です。北京是中国的首都。서울은 한국의 수도입니다.",
    "emoji": "👩‍👩‍👧‍👦 family 👨‍💻 coder 🇺🇳🇮🇨 flags 😄😄😄 👍🏽👍🏽",
    "whitespace": "a  b   c    d\t\te\n\n\nf \n \n g\r\n\r\nh     \t  \n",
    "seed_unicode": "Ｕｎｉｃｏｄｅ! 🅤🅝🅘🅒🅞🅓🅔‽ 🇺🇳🇮🇨🇴🇩🇪! 😄 The very name strikes fear",
    "numbers": "1234567 12 123 1 99999 3.14159 2024-01-01 0x1F 1e10",
    "contractions": "I'm you're we've they'll she'd it's DON'T WE'LL",
}


@pytest.mark.parametrize("name", sorted(TRICKY_TEXTS))
@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("vocab_size", [256, 257, 270, 400])
def test_tricky_texts_match_naive(kind, name, vocab_size):
    text = TRICKY_TEXTS[name]
    tok = trained(kind, text, vocab_size)
    assert_matches_naive(tok, text, vocab_size)


@pytest.mark.parametrize("corpus", ["prose", "code"])
@pytest.mark.parametrize("kind", KINDS)
def test_real_corpora_match_naive(kind, corpus):
    merges, counts, _ = naive_corpus_result(kind, corpus)
    tok = core_corpus_tokenizer(kind, corpus)
    assert len(merges) == CORPUS_VOCAB - 256  # the corpus has enough pairs
    assert list(tok.merges.items()) == list(merges.items())
    assert history_counts(tok) == counts
    assert tok.stop_reason is None
    assert tok.vocab_size == CORPUS_VOCAB


@settings(max_examples=60, deadline=None)
@given(text=st.text(max_size=120), vocab_size=st.integers(256, 400), kind=st.sampled_from(KINDS))
def test_random_text_matches_naive(text, vocab_size, kind):
    tok = trained(kind, text, vocab_size)
    assert_matches_naive(tok, text, vocab_size)


@settings(max_examples=60, deadline=None)
@given(
    text=st.text(alphabet="ab \n", max_size=200),
    vocab_size=st.integers(256, 330),
    kind=st.sampled_from(KINDS),
)
def test_small_alphabet_texts_with_many_ties_match_naive(text, vocab_size, kind):
    tok = trained(kind, text, vocab_size)
    assert_matches_naive(tok, text, vocab_size)


@settings(max_examples=30, deadline=None)
@given(text=st.text(alphabet="aé😄 ", max_size=60), kind=st.sampled_from(KINDS))
def test_multibyte_small_alphabet_trained_to_exhaustion_matches_naive(text, kind):
    tok = trained(kind, text, 1000)
    assert_matches_naive(tok, text, 1000)


# ---------------------------------------------------------------------------------------------
# Stopping, history, progress
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", KINDS)
def test_asking_for_more_merges_than_pairs_stops_with_reason(kind):
    text = "hello hello world"
    merges, counts = naive_train(text, 100_000, pattern_of(kind))
    assert len(merges) < 100
    tok = trained(kind, text, 100_000)
    assert list(tok.merges.items()) == list(merges.items())
    assert history_counts(tok) == counts
    assert_stopped_for_lack_of_pairs(tok)
    assert tok.vocab_size == 256 + len(merges)


@pytest.mark.parametrize("kind", KINDS)
def test_vocab_size_256_makes_no_merges(kind):
    tok = trained(kind, "hello world", 256)
    assert tok.merges == {} and tok.history == []
    assert tok.stop_reason is None
    assert tok.encode("hi") == [104, 105]


@pytest.mark.parametrize("kind", KINDS)
def test_history_tokens_are_the_vocab_entries(kind, prose_text):
    tok = core_corpus_tokenizer(kind, "prose")
    assert len(tok.history) == len(tok.merges) == CORPUS_VOCAB - 256
    for i, record in enumerate(tok.history):
        assert isinstance(record, MergeRecord)
        assert record.id == 256 + i
        assert record.token == tok.vocab[256 + i]
        assert tok.merges[record.pair] == record.id
        a, b = record.pair
        assert record.token == tok.vocab[a] + tok.vocab[b]
        assert record.count >= 1
    assert all(tok.vocab[i] == bytes([i]) for i in range(256))


def test_retraining_replaces_the_previous_training():
    tok = BasicTokenizer()
    tok.train("zzzzzzzz qqqq", 300)
    tok.train("aaabdaaabac", 259)
    assert tok.merges == AAABDAAABAC_MERGES
    assert history_counts(tok) == AAABDAAABAC_COUNTS
    assert tok.stop_reason is None
    assert 259 not in tok.vocab


@pytest.mark.parametrize("kind", ["basic", "gpt4"])
def test_progress_is_called_once_per_merge_with_increasing_done(kind, prose_text):
    calls = []

    def progress(done, total, record):
        calls.append((done, total, record))

    tok = new_tokenizer(kind)
    tok.train(prose_text[:3000], 300, progress=progress)
    assert len(tok.merges) == 44
    assert len(calls) == 44
    dones = [done for done, _, _ in calls]
    assert dones == sorted(set(dones)), "done must strictly increase"
    assert dones[-1] == 44
    assert {total for _, total, _ in calls} == {44}
    assert [record for _, _, record in calls] == tok.history
    assert tok.stop_reason is None


@pytest.mark.parametrize("kind", ["basic", "gpt4"])
def test_progress_returning_false_stops_after_exactly_that_merge(kind, prose_text):
    calls = []

    def progress(done, total, record):
        calls.append(done)
        return False if len(calls) == 5 else None

    tok = new_tokenizer(kind)
    tok.train(prose_text[:3000], 300, progress=progress)
    assert len(calls) == 5
    assert len(tok.merges) == 5 and len(tok.history) == 5
    assert tok.vocab_size == 261
    full = naive_train(prose_text[:3000], 261, tok.pattern)[0]
    assert list(tok.merges.items()) == list(full.items())
    reason = tok.stop_reason
    assert isinstance(reason, str) and reason
    assert "5" in reason
    assert "callback" in reason.lower() or "progress" in reason.lower()


def test_progress_returning_true_continues():
    tok = BasicTokenizer()
    tok.train("aaabdaaabac", 259, progress=lambda done, total, record: True)
    assert tok.merges == AAABDAAABAC_MERGES
    assert tok.stop_reason is None


def test_training_is_quiet_unless_verbose(capsys):
    BasicTokenizer().train("aaabdaaabac", 259)
    assert capsys.readouterr().out == ""
    BasicTokenizer().train("aaabdaaabac", 259, verbose=True)
    out = capsys.readouterr().out
    assert out.strip(), "verbose=True should report the merges"


@pytest.mark.parametrize("kind", REGEX_KINDS)
def test_split_pattern_constants_chunk_a_known_sentence(kind):
    # Expected chunks come from minbpe's GPT-2/GPT-4 patterns and tiktoken's o200k pattern.
    sentence = "Hello world's  123456 naïve\n\n  (ok)!! I'M"
    expected = {
        "gpt2": ["Hello", " world", "'s", " ", " 123456", " naïve", "\n\n ", " (", "ok", ")!!",
                 " I", "'", "M"],
        "gpt4": ["Hello", " world", "'s", " ", " ", "123", "456", " naïve", "\n\n", " ", " (",
                 "ok", ")!!", " I", "'M"],
        "gpt4o": ["Hello", " world's", " ", " ", "123", "456", " naïve", "\n\n", " ", " (", "ok",
                  ")!!", " I'M"],
    }[kind]
    assert "".join(expected) == sentence
    assert new_tokenizer(kind).split(sentence) == expected
