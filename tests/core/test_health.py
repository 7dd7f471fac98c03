"""bpe_lab/who_pays/health.py: every kind on a hand-built vocabulary, the GPT presets' round trips
against tiktoken, and a vocabulary checked against another tokenizer's split pattern."""

from __future__ import annotations

from collections import Counter

import pytest
from parity_corpus import pretrained, tiktoken_reference
from tokenizers import AddedToken, normalizers
from tokenizers import Tokenizer as HFTokenizer

from bpe_core import GPT2_SPLIT_PATTERN, GPT4_SPLIT_PATTERN, BasicTokenizer, RegexTokenizer
from bpe_core.files import read_tokenizer
from bpe_core.formats import to_hf_json
from bpe_lab.who_pays.health import (
    HEALTH_KINDS,
    HEALTHY,
    NEVER_PRODUCED,
    PARTIAL_UTF8,
    ROUND_TRIP_FAILS,
    STEPPING_STONE,
    UNREACHABLE,
    classify_tokens,
    health_summary,
    inside_counts,
    partial_reason,
    vocabulary_defects,
    vocabulary_health,
)

a, b, c, e, h, y = map(ord, "abcehy")
# One merged token of each kind, ids in merge order (GPT-4's split pattern):
HAND_MERGES = {
    (0xE2, 0x82): 256,  # b"\xe2\x82": the first two of the three bytes of "€"   -> partial UTF-8
    (256, 0xAC): 257,  # "€"                                                       -> healthy
    (ord(" "), ord("1")): 258,  # " 1": GPT-4's pattern cuts digits from the space -> unreachable
    (a, b): 259,  # "ab"                                                            -> healthy
    (b, c): 260,  # "bc": "abc" encodes as "ab" + "c", so "bc" is never made         -> never
    (a, 260): 261,  # "abc" = "a" + "bc", but "ab" is merged first                  -> round trip
    (ord("x"), y): 262,  # "xy": not in the text                                    -> never
    (h, e): 263,  # "he": only ever inside "hey"                                    -> stepping
    (263, y): 264,  # "hey"                                                         -> healthy
}
HAND_TEXT = "hey hey hey abc 5€"
HAND_KINDS = {256: PARTIAL_UTF8, 257: HEALTHY, 258: UNREACHABLE, 259: HEALTHY,
              260: NEVER_PRODUCED, 261: ROUND_TRIP_FAILS, 262: NEVER_PRODUCED,
              263: STEPPING_STONE, 264: HEALTHY}


@pytest.fixture(scope="module")
def hand():
    tok = RegexTokenizer(GPT4_SPLIT_PATTERN, merges=HAND_MERGES,
                         special_tokens={"<|end|>": 300})
    assert tok.encode(HAND_TEXT) == [264, 32, 264, 32, 264, 32, 259, 99, 32, 53, 257]
    return tok


def kinds_of(rows) -> dict[int, str]:
    return {r.id: r.kind for r in rows}


def test_each_hand_built_token_gets_its_kind(hand):
    rows = vocabulary_health(hand, HAND_TEXT)
    kinds = kinds_of(rows)
    assert {t: kinds[t] for t in HAND_KINDS} == HAND_KINDS
    assert 300 not in kinds  # the special token is not classified
    assert len(rows) == 256 + len(HAND_MERGES)
    # the bytes: 128..255 are half characters, the text's bytes are used, the others are not
    assert all(kinds[t] == PARTIAL_UTF8 for t in range(128, 256))
    assert kinds[ord("h")] == HEALTHY  # a byte used only inside "hey" is still a building block
    assert kinds[ord("z")] == NEVER_PRODUCED
    by_id = {r.id: r for r in rows}
    assert (by_id[264].count, by_id[264].inside) == (3, 0)
    assert (by_id[263].count, by_id[263].inside) == (0, 3)
    assert (by_id[ord("e")].count, by_id[ord("e")].inside) == (0, 3)


def test_the_reasons_say_what_the_merges_and_the_pattern_do(hand):
    defects = vocabulary_defects(hand)
    assert set(defects) == set(range(128, 256)) | {256, 258, 261}
    assert defects[258].reason == "the split pattern cuts it into 2 chunks: ' ' + '1'"
    assert defects[261].reason == "encoding its text gives 2 tokens: 'ab' + 'c'"
    assert defects[256].reason == "ends inside a character"
    assert partial_reason(b"\x82\xac") == "starts inside a character"
    assert partial_reason(b"\x80") == "a continuation byte alone (the middle or end of a character)"
    assert partial_reason(bytes([0xE2])) == "the first byte of a 3-byte character, alone"
    assert partial_reason(b"\xff") == "a byte that never occurs in UTF-8"
    assert partial_reason("€".encode()) is None


def test_the_summary_counts_single_bytes_apart(hand):
    summary = {k.kind: k for k in health_summary(vocabulary_health(hand, HAND_TEXT))}
    assert list(summary) == list(HEALTH_KINDS)
    assert (summary[PARTIAL_UTF8].single_bytes, summary[PARTIAL_UTF8].merged) == (128, 1)
    assert (summary[UNREACHABLE].tokens, summary[ROUND_TRIP_FAILS].tokens) == (1, 1)
    assert summary[STEPPING_STONE].tokens == 1
    assert sum(k.tokens for k in summary.values()) == 265
    assert summary[PARTIAL_UTF8].share == pytest.approx(129 / 265)


def test_the_stepping_stone_threshold_is_five_percent_of_all_uses(hand):
    # "he" (263) used once on its own and 19 times inside "hey": 1 of 20 = 5%, a stepping stone
    assert kinds_of(classify_tokens(hand, {264: 19, 263: 1}))[263] == STEPPING_STONE
    assert kinds_of(classify_tokens(hand, {264: 19, 263: 2}))[263] == HEALTHY  # 2 of 21
    assert kinds_of(classify_tokens(hand, {264: 19, 263: 2}, share=0.1))[263] == STEPPING_STONE


def test_inside_counts_follow_the_trees_down_to_the_bytes(hand):
    # "abc" twice (261 = "a" + "bc", 260 = "b" + "c"), "€" once (257 = b"\xe2\x82" + b"\xac")
    inside = inside_counts(hand, Counter({261: 2, 257: 1, 300: 4}))
    assert inside == {260: 2, a: 2, b: 2, c: 2, 256: 1, 0xAC: 1, 0xE2: 1, 0x82: 1}


def test_an_empty_text_produces_nothing(hand):
    kinds = kinds_of(vocabulary_health(hand, ""))
    assert kinds[264] == kinds[ord("h")] == NEVER_PRODUCED
    assert kinds[261] == ROUND_TRIP_FAILS  # the vocabulary's own kinds stay


def test_a_tokenizer_without_a_split_pattern_has_no_unreachable_token():
    tok = BasicTokenizer()
    tok.train(" 1 1 1 1", 257)  # " 1" first
    assert tok.vocab[256] == b" 1"
    assert 256 not in vocabulary_defects(tok)
    assert vocabulary_defects(tok, GPT4_SPLIT_PATTERN)[256].kind == UNREACHABLE


def test_a_tokenizer_json_is_checked_with_its_normalizer_and_added_tokens(hand):
    """The vocabulary read back from a Hugging Face tokenizer.json that also replaces "x" by "q"
    and adds the token "<tool>": "xy" now fails its round trip; "<tool>", which the split
    pattern would cut, is matched whole before splitting, so it is reachable."""
    hf = HFTokenizer.from_str(to_hf_json(hand))
    hf.normalizer = normalizers.Replace("x", "q")
    hf.add_tokens([AddedToken("<tool>", normalized=False)])
    loaded = read_tokenizer(hf.to_str().encode("utf-8"), "tokenizer.json")
    (tool,) = loaded.encode("<tool>")
    assert loaded.pipeline is not None and loaded.vocab[tool] == b"<tool>"
    expected = kinds_of(vocabulary_health(hand, HAND_TEXT))
    expected[262] = ROUND_TRIP_FAILS
    expected[tool] = HEALTHY
    assert kinds_of(vocabulary_health(loaded, HAND_TEXT + "<tool>")) == expected
    assert vocabulary_defects(loaded)[262].reason == "encoding its text gives 2 tokens: 'q' + 'y'"
    assert kinds_of(vocabulary_health(loaded, HAND_TEXT))[tool] == NEVER_PRODUCED


def test_a_bad_pattern_is_a_value_error(hand):
    with pytest.raises(ValueError, match="invalid split pattern"):
        vocabulary_defects(hand, "(")


# -- the GPT presets, against tiktoken ------------------------------------------------------------


@pytest.mark.parametrize("name, failing", [("gpt2", 0), ("cl100k_base", 0), ("o200k_base", 12)])
def test_round_trip_failures_are_tiktoken_s(name, failing):
    """tiktoken decodes each valid-UTF-8 token and encodes it again; the tokens it does not get
    back are exactly the unreachable and round-trip ones (GPT-4o: 12, such as " I'", which its
    pattern cuts as " I" + "'"; with the special tokens, whose text encodes as ordinary text,
    that makes 1, 5 and 14 tokens in all)."""
    tok, enc = pretrained(name), tiktoken_reference(name)
    defects = vocabulary_defects(tok)
    specials = set(tok.special_tokens.values())
    expected, partial = set(), set()
    for t in range(enc.n_vocab):
        if t in specials or t not in tok.vocab:
            continue
        token = enc.decode_single_token_bytes(t)
        try:
            text = token.decode("utf-8")
        except UnicodeDecodeError:
            partial.add(t)
            continue
        if enc.encode(text, disallowed_special=()) != [t]:
            expected.add(t)
    ours = {t for t, d in defects.items() if d.kind in (UNREACHABLE, ROUND_TRIP_FAILS)}
    assert ours == expected
    assert len(ours) == failing
    assert {t for t, d in defects.items() if d.kind == PARTIAL_UTF8} == partial
    if name == "o200k_base":
        assert defects[3413].kind == UNREACHABLE and tok.vocab[3413] == b" I'"


def test_gpt2_s_vocabulary_against_the_gpt4_split():
    gpt2 = pretrained("gpt2")
    assert not any(d.kind == UNREACHABLE for d in vocabulary_defects(gpt2).values())
    assert not any(d.kind == UNREACHABLE
                   for d in vocabulary_defects(gpt2, GPT2_SPLIT_PATTERN).values())
    against_gpt4 = vocabulary_defects(gpt2, GPT4_SPLIT_PATTERN)
    unreachable = {t for t, d in against_gpt4.items() if d.kind == UNREACHABLE}
    # GPT-4 splits digits off a space and keeps at most 3 digits together
    assert gpt2.vocab[17031] == b" 123" and 17031 in unreachable
    assert against_gpt4[17031].reason == "the split pattern cuts it into 2 chunks: ' ' + '123'"
    assert gpt2.vocab[12131] == b" 2020" and 12131 in unreachable
    assert against_gpt4[12131].reason == (
        "the split pattern cuts it into 3 chunks: ' ' + '202' + '0'")
    assert len(unreachable) == 805
