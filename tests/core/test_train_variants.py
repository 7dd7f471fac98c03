"""The trainer's variants: three tie rules, special tokens cut out, min_frequency, max_token_bytes.

Known answers are worked by hand on tiny texts; the rest is checked against ``naive_train_rule``
(tests/naive.py), the seeds' loop with the rule written as a course states it.
"""

from __future__ import annotations

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from naive import naive_train, naive_train_rule
from parity_corpus import has_lone_surrogate, random_text

from bpe_core import GPT2_SPLIT_PATTERN, GPT4_SPLIT_PATTERN, BasicTokenizer, RegexTokenizer
from bpe_core.training import TIE_RULES, train_bpe


def tokens(tok) -> list[bytes]:
    return [record.token for record in tok.history]


def byte_pairs(tok) -> list[tuple[bytes, bytes]]:
    return [(tok.vocab[a], tok.vocab[b]) for a, b in tok.merges]


def trained(text, vocab_size, pattern=None, **options):
    tok = RegexTokenizer(pattern) if pattern else BasicTokenizer()
    tok.train(text, vocab_size, **options)
    return tok


# -- known answers, by hand ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("rule", "expected"),
    [
        # "mzab": the pairs mz, za, ab occur once each, a three-way tie at every step.
        # seen: mz occurs first; then (mz, a) occurs before (a, b); then (mza, b).
        ("seen", [b"mz", b"mza", b"mzab"]),
        # bytes: the greatest pair of bytes: (z, a) > (m, z) > (a, b); then (za, b) > (m, za)
        # because b"za" > b"m"; then the only pair left.
        ("bytes", [b"za", b"zab", b"mzab"]),
        # ids: the smallest pair of ids: (97, 98) = "ab"; then (109, 122) = "mz" is smaller than
        # (122, 256) = (z, ab); then (mz, ab).
        ("ids", [b"ab", b"mz", b"mzab"]),
    ],
)
def test_each_tie_rule_breaks_the_same_tie_its_own_way(rule, expected):
    assert tokens(trained("mzab", 259, tie_rule=rule)) == expected


def test_bytes_and_ids_differ_once_merged_tokens_tie():
    # "xyab xy": step 1 is xy (twice). Then (xy, a), (a, b), (b, " "), (" ", xy) tie at 1.
    # ids: the smallest pair of ids is (32, 256) = " xy", as 32 < 97 < 98 < 256.
    # bytes: the greatest pair of bytes is (b"xy", b"a"): b"xy" is the greatest first token.
    text = "xyab xy"
    assert tokens(trained(text, 258, tie_rule="ids")) == [b"xy", b" xy"]
    assert tokens(trained(text, 258, tie_rule="bytes")) == [b"xy", b"xya"]
    assert tokens(trained(text, 258, tie_rule="seen")) == [b"xy", b"xya"]


def test_a_token_sorts_below_the_longer_tokens_it_begins():
    # Chunks "ab" x2, "aab" and "abz": step 1 is ab (4 times). Then (a, ab) and (ab, z) tie at 1.
    history = train_bpe([(b"ab", 2), (b"aab", 1), (b"abz", 1)], 2, tie_rule="bytes").history
    # step 2 ties (a, ab) and (ab, z) at 1: (b"ab", b"z") > (b"a", b"ab") since b"ab" > b"a".
    assert [m.token for m in history] == [b"ab", b"abz"]


def test_an_unknown_tie_rule_is_refused_with_the_choices():
    with pytest.raises(ValueError, match="seen, bytes, ids"):
        trained("abc", 258, tie_rule="random")


def test_candidates_are_ranked_by_the_rule():
    tok = trained("mzab", 257, tie_rule="bytes", candidates=3)
    ranked = [(tok.vocab[a] + tok.vocab[b]) for (a, b), _, _ in tok.history[0].candidates]
    assert ranked == [b"za", b"mz", b"ab"]


# -- special tokens ------------------------------------------------------------------------------


def test_special_tokens_are_cut_out_counted_in_the_vocab_and_registered_after_the_merges():
    text = "hello<|endoftext|>hello<|endoftext|>"
    tok = trained(text, 256 + 3, tie_rule="bytes", special_tokens=["<|endoftext|>"])
    assert tok.num_merges == 2  # 259 = 256 bytes + 2 merges + 1 special
    assert tok.special_tokens == {"<|endoftext|>": 258}
    assert all(b"<" not in t and b">" not in t for t in tokens(tok))
    assert tok.encode(text, allowed_special="all").count(258) == 2
    assert tok.vocab_size == 259


def test_without_cutting_the_specials_would_be_merged():
    text = "<|endoftext|>" * 5 + "ab"
    cut = trained(text, 260, special_tokens=["<|endoftext|>"])
    uncut = trained(text, 260)
    assert tokens(cut) == [b"ab"]  # nothing else is left to merge
    assert cut.stop_reason == "no pair left to merge after 1 merges"
    assert any(b"|" in t for t in tokens(uncut))


def test_the_longest_special_wins_where_two_overlap():
    tok = trained("x<|a|>>y x<|a|>>y", 270, special_tokens=["<|a|>", "<|a|>>"])
    assert all(b"<" not in t and b">" not in t for t in tokens(tok))
    assert tok.special_tokens == {"<|a|>": 256 + tok.num_merges, "<|a|>>": 257 + tok.num_merges}


@pytest.mark.parametrize(
    ("specials", "message"),
    [
        ("<|endoftext|>", "list of strings"),
        (["<|x|>", "<|x|>"], "given twice"),
        ([""], "non-empty str"),
        ([b"<|x|>"], "non-empty str"),
    ],
)
def test_bad_special_tokens_are_refused_clearly(specials, message):
    with pytest.raises(ValueError, match=message):
        trained("abc", 300, special_tokens=specials)


def test_a_vocab_too_small_for_the_specials_is_refused():
    with pytest.raises(ValueError, match="at least 258"):
        trained("abc", 257, special_tokens=["<a>", "<b>"])


def test_training_with_specials_replaces_the_earlier_ones():
    tok = trained("abab", 258)
    tok.register_special_tokens({"<old>": 1000})
    tok.train("abab", 258, special_tokens=["<new>"])
    assert tok.special_tokens == {"<new>": 257}


# -- min_frequency and max_token_bytes ------------------------------------------------------------


def test_min_frequency_stops_when_the_best_pair_is_too_rare():
    tok = trained("aaaa bb", 300, min_frequency=2)
    # aa occurs 3 times (overlapping), then (aa, aa) once: below 2, so training stops.
    assert tokens(tok) == [b"aa"]
    assert "fewer than min_frequency 2" in tok.stop_reason


def test_max_token_bytes_skips_pairs_that_would_be_too_long():
    tok = trained("abcd abcd abcd", 300, max_token_bytes=2)
    assert tokens(tok) and all(len(t) <= 2 for t in tokens(tok))
    assert max(len(t) for t in tokens(trained("abcd abcd abcd", 300))) == 14  # the whole text


@pytest.mark.parametrize(
    "options",
    [{"min_frequency": -1}, {"min_frequency": 1.5}, {"max_token_bytes": 1}, {"max_token_bytes": "3"}],
)
def test_bad_options_are_refused(options):
    with pytest.raises(ValueError, match=next(iter(options))):
        trained("abc", 300, **options)


# -- against the naive loop --------------------------------------------------------------------


def test_the_classic_rule_is_unchanged_on_prose(prose_text):
    tok = trained(prose_text[:6000], 400, GPT4_SPLIT_PATTERN)
    merges, counts = naive_train(prose_text[:6000], 400, GPT4_SPLIT_PATTERN)
    assert list(tok.merges.items()) == list(merges.items())
    assert [r.count for r in tok.history] == counts


@pytest.mark.parametrize("rule", TIE_RULES)
@pytest.mark.parametrize("kind", ["prose", "code"])
def test_each_rule_with_specials_equals_the_naive_loop(rule, kind, prose_text, code_text):
    text = (prose_text if kind == "prose" else code_text)[:4000]
    text = text.replace(". ", ".<|endoftext|>").replace("\n\n", "\n<|fim|>\n")
    specials = ["<|endoftext|>", "<|fim|>"]
    tok = trained(text, 256 + 150 + 2, GPT2_SPLIT_PATTERN, tie_rule=rule, special_tokens=specials)
    assert byte_pairs(tok) == naive_train_rule(text, 408, GPT2_SPLIT_PATTERN, rule, specials)


@settings(max_examples=60, deadline=None)
@given(
    text=random_text(),
    rule=st.sampled_from(TIE_RULES),
    pattern=st.sampled_from([None, GPT2_SPLIT_PATTERN]),
    extra=st.integers(0, 40),
)
def test_random_text_with_specials_equals_the_naive_loop(text, rule, pattern, extra):
    assume(not has_lone_surrogate(text))  # training replaces them (tested in test_training.py)
    specials = ["<|endoftext|>", "<s>"]
    text = text + "<s>" + text[::-1]
    tok = trained(text, 258 + extra, pattern, tie_rule=rule, special_tokens=specials)
    assert byte_pairs(tok) == naive_train_rule(text, 258 + extra, pattern, rule, specials)
