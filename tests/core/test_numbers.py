"""bpe_lab.who_pays.numbers and the digit presets of bpe_core.patterns: what numbers cost under the GPT
presets (against tiktoken), and the digit groups of each digit rule, worked out by hand."""

from __future__ import annotations

import pytest
import regex
from parity_corpus import pretrained, tiktoken_reference

from bpe_core import GPT4_SPLIT_PATTERN, RegexTokenizer
from bpe_core.patterns import DIGIT_PRESETS, DIGIT_RULES, RIGHT_THREES_DIGIT_RULE, with_digit_rule
from bpe_lab.who_pays.numbers import (
    NUMBERS,
    YEARS,
    compare_digit_presets,
    number_counts,
    number_facts,
    number_split,
    tokens_needed,
    train_digit_presets,
)

NAMES = ["gpt2", "cl100k_base", "o200k_base"]


def tiktoken_pieces(ref, text: str) -> tuple[str, ...]:
    return tuple(ref.decode_single_token_bytes(i).decode("utf-8") for i in ref.encode_ordinary(text))


# -- the GPT presets against tiktoken -------------------------------------------------------------


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("space", [False, True])
def test_every_number_and_year_costs_what_tiktoken_says(name, space):
    ours, ref = pretrained(name), tiktoken_reference(name)
    for numbers in (NUMBERS, YEARS):
        table = number_counts(ours, numbers, space=space)
        expected = [(n, (" " if space else "") + str(n), len(ref.encode_ordinary(
            (" " if space else "") + str(n)))) for n in numbers]
        assert [(c.number, c.text, c.tokens) for c in table] == expected
        assert all(c.pieces == tiktoken_pieces(ref, c.text) for c in table)


def test_known_facts_about_the_gpt_vocabularies():
    gpt2, gpt4, gpt4o = (number_facts(pretrained(n)) for n in NAMES)
    # GPT-4 and GPT-4o have a token for every number below 1,000; their pattern keeps the space
    # apart, so " 42" is two tokens; a year is four digits: "190" + "0"
    for facts in (gpt4, gpt4o):
        assert tokens_needed(facts.numbers) == {1: 1000}
        assert tokens_needed(facts.numbers_spaced) == {2: 1000}
        assert tokens_needed(facts.years) == {2: 200}
        assert facts.years[99].pieces == ("199", "9")
    # GPT-2 learned its numbers from its text: not all of 0-999, and joins a space to them
    assert tokens_needed(gpt2.numbers) == {
        k: sum(len(tiktoken_reference("gpt2").encode_ordinary(str(n))) == k for n in NUMBERS)
        for k in (1, 2)}
    assert gpt2.numbers[42].pieces == ("42",) and gpt2.numbers_spaced[42].pieces == (" 42",)
    by_text = {s.text: s.pieces for s in gpt2.examples}
    assert by_text["1234567"] == tiktoken_pieces(tiktoken_reference("gpt2"), "1234567")
    assert {s.text: s.pieces for s in gpt4.examples}["1234567"] == ("123", "456", "7")


@pytest.mark.parametrize("name", NAMES)
def test_the_example_numbers_split_as_tiktoken_splits_them(name):
    ref = tiktoken_reference(name)
    for split in number_facts(pretrained(name)).examples:
        assert split.ids == tuple(ref.encode_ordinary(split.text))
        assert "".join(split.pieces) == split.text


# -- the digit presets ----------------------------------------------------------------------------


def chunks(pattern: str, text: str) -> list[str]:
    return RegexTokenizer(pattern).split(text)


def test_the_presets_compile_and_gpt4s_own_is_gpt4s_pattern():
    assert list(DIGIT_PRESETS) == list(DIGIT_RULES)
    for pattern in DIGIT_PRESETS.values():
        regex.compile(pattern)
    assert DIGIT_PRESETS["up to 3 digits (GPT-4)"] == GPT4_SPLIT_PATTERN
    assert with_digit_rule(RIGHT_THREES_DIGIT_RULE) == DIGIT_PRESETS["threes from the right"]


@pytest.mark.parametrize(("name", "expected"), [
    ("single digits", ["1", "2", "3", "4", "5", "6", "7"]),
    ("up to 2 digits", ["12", "34", "56", "7"]),
    ("up to 3 digits (GPT-4)", ["123", "456", "7"]),
    ("threes from the right", ["1", "234", "567"]),
])
def test_the_digit_groups_of_1234567(name, expected):
    assert chunks(DIGIT_PRESETS[name], "1234567") == expected


@pytest.mark.parametrize(("text", "expected"), [
    ("12", ["12"]),
    ("123", ["123"]),
    ("1234", ["1", "234"]),
    ("12345", ["12", "345"]),
    ("1234567890", ["1", "234", "567", "890"]),
    ("7", ["7"]),
])
def test_threes_from_the_right(text, expected):
    assert chunks(DIGIT_PRESETS["threes from the right"], text) == expected


def test_threes_from_the_right_start_again_at_each_run_of_digits():
    pattern = DIGIT_PRESETS["threes from the right"]
    assert chunks(pattern, "x1234 5678,12 ab12345") == [
        "x", "1", "234", " ", "5", "678", ",", "12", " ab", "12", "345"]
    # special tokens cut the text: the digits after one are a run of their own
    tok = RegexTokenizer(pattern)
    tok.register_special_tokens({"<|x|>": 256})
    assert [c for c, _ in tok.chunks("1234<|x|>5678", allowed_special="all")] == [
        "1", "234", "<|x|>", "5", "678"]


def test_the_presets_cut_everything_but_digits_as_gpt4_does():
    text = "Hello, world!  It's   fine\n\n\ttabs—and émojis 🎉 ok?\r\n"
    for pattern in DIGIT_PRESETS.values():
        assert chunks(pattern, text) == chunks(GPT4_SPLIT_PATTERN, text)


def test_a_long_run_of_digits_keeps_every_digit():
    run = "1" * 30_002  # 30,002 = 2 + 3 * 10,000
    pieces = chunks(DIGIT_PRESETS["threes from the right"], run)
    assert pieces[0] == "11" and set(map(len, pieces[1:])) == {3} and "".join(pieces) == run


def test_training_makes_the_groups_each_rule_allows():
    text = "1234567 " * 20
    # the chunks are "1" "234" "567" " " (threes from the right) or "123" "456" "7" " " (GPT-4):
    # four merges make the two three-digit tokens
    toks = train_digit_presets(text, 260)
    assert number_split(toks["threes from the right"], "1234567").pieces == ("1", "234", "567")
    assert number_split(toks["up to 3 digits (GPT-4)"], "1234567").pieces == ("123", "456", "7")
    assert number_split(toks["up to 2 digits"], "1234567").pieces == ("12", "34", "56", "7")
    assert toks["single digits"].num_merges == 0  # no two digits ever share a chunk


def test_the_comparison_counts_by_hand():
    text = "In 2024, 1,234,567 people paid $19.99 for 12 tickets. " * 5
    toks = train_digit_presets(text, 300)
    rows = {r.preset: r for r in compare_digit_presets(toks, text)}
    single = rows["single digits"]
    # one token a digit: 10 one-digit numbers, 90 of two digits, 900 of three
    assert single.tokens_0_999 == 10 + 90 * 2 + 900 * 3
    assert single.tokens_years == 200 * 4
    assert single.text_bytes == len(text.encode())
    assert [s.pieces for s in single.examples][0] == tuple("1234567")
    for name, row in rows.items():
        assert row.pattern == DIGIT_PRESETS[name]
        assert row.text_tokens == len(toks[name].encode(text))
        assert row.tokens_0_999 == sum(c.tokens for c in number_counts(toks[name]))
