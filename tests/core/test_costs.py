"""The language tax (bpe_lab/who_pays/costs.py): token counts checked against tiktoken, the ratios worked
by hand, and the English-only against the all-languages tokenizer."""

from __future__ import annotations

import pytest
from parity_corpus import pretrained, tiktoken_reference

from bpe_core import BasicTokenizer, RegexTokenizer
from bpe_lab.who_pays.costs import (
    MAX_TAX_VOCAB,
    language_costs,
    measure_text,
    own_language,
    train_comparison,
)
from bpe_lab.who_pays.languages import Language, load_parallel

NAMES = ["gpt2", "cl100k_base", "o200k_base"]
LANGUAGES = load_parallel()
BY_CODE = {lang.code: lang for lang in LANGUAGES}


@pytest.mark.parametrize("name", NAMES)
def test_token_counts_of_sentences_are_tiktokens(name):
    ref = tiktoken_reference(name)
    tok = pretrained(name)
    assert measure_text(tok, "hello world").tokens == 2  # " world" is one token in all three
    for code in ("en", "hi", "zh-Hans", "my", "emoji"):
        sentence = BY_CODE[code].lines[0]
        assert measure_text(tok, sentence).tokens == len(ref.encode_ordinary(sentence)), code
    # special-token text is ordinary text here, as a pasted text should be
    assert measure_text(tok, "<|endoftext|>").tokens == len(ref.encode_ordinary("<|endoftext|>"))
    assert measure_text(tok, "<|endoftext|>").tokens > 1


def test_the_table_under_gpt2_is_tiktokens_counts_and_their_ratio_to_english():
    ref = tiktoken_reference("gpt2")
    rows = language_costs({"GPT-2": pretrained("gpt2")}, LANGUAGES)
    assert [r.code for r in rows] == [lang.code for lang in LANGUAGES]
    english = len(ref.encode_ordinary(BY_CODE["en"].text))
    for row in rows:
        expected = len(ref.encode_ordinary(BY_CODE[row.code].text))
        assert row.tokens == expected, row.code
        assert row.relative == expected / english
    assert rows[0].relative == 1.0
    # the tax is real: under GPT-2 every non-Latin script costs more than twice English
    for row in rows:
        if row.script not in ("Latin", "Emoji"):
            assert row.relative > 2, row.language


def test_bytes_per_token_and_tokens_per_word_worked_by_hand():
    # no merges: one token per byte. "naïve café": 10 characters, ï and é take 2 bytes each
    m = measure_text(BasicTokenizer(), "naïve café")
    assert (m.tokens, m.bytes, m.chars, m.words) == (12, 12, 10, 2)
    assert m.bytes_per_token == 1.0 and m.tokens_per_word == 6.0
    # one merge, a + b: "abab ab" is ab ab ␣ ab, 4 tokens for 7 bytes and 2 words
    tok = BasicTokenizer()
    tok.train("abab", 257)
    m = measure_text(tok, "abab ab")
    assert (m.tokens, m.bytes, m.words) == (4, 7, 2)
    assert m.bytes_per_token == 7 / 4 and m.tokens_per_word == 2.0


def test_no_words_without_spaces_and_nothing_divided_by_zero():
    thai = measure_text(BasicTokenizer(), "ตลาด", spaced=False)
    assert thai.words is None and thai.tokens_per_word is None
    assert thai.bytes == 12 and thai.tokens == 12  # four Thai letters, 3 bytes each
    empty = measure_text(BasicTokenizer(), "")
    assert empty == (0, 0, 0, 0, None, None)


def test_english_costs_exactly_one_under_every_tokenizer():
    tokenizers = {name: pretrained(name) for name in NAMES}
    tokenizers["bytes"] = BasicTokenizer()
    rows = language_costs(tokenizers, LANGUAGES[:4])
    assert len(rows) == 4 * 4
    assert [r.relative for r in rows if r.code == "en"] == [1.0] * 4
    assert language_costs({"bytes": BasicTokenizer()}, LANGUAGES[1:3])[0].relative is None


def test_own_texts_are_measured_against_the_sets_english():
    english = Language("en", "English", "Latin", True, ("a cat",))  # 5 bytes
    mine = own_language("Greek cat", "μια γάτα\nμια γάτα")  # 2 x 15 bytes + a newline
    (row,) = language_costs({"bytes": BasicTokenizer()}, [mine], english=english)
    assert (row.code, row.language, row.script) == ("Greek cat", "Greek cat", "your text")
    assert row.tokens == 31 and row.relative == 31 / 5
    assert row.words == 4
    assert own_language("x", "a\ud800b").lines == ("a\ufffdb",)  # a lone surrogate is replaced


@pytest.fixture(scope="module")
def comparison():
    return train_comparison(LANGUAGES, 1024)


def test_english_only_is_cheaper_for_english_and_dearer_for_others(comparison):
    rows = {r.code: r for r in comparison.rows}
    assert list(rows) == [lang.code for lang in LANGUAGES]
    en, my, hi = rows["en"], rows["my"], rows["hi"]
    assert en.english_only_relative == en.all_languages_relative == 1.0
    assert en.english_only_tokens < en.all_languages_tokens
    for other in (my, hi, rows["ru"]):
        assert other.english_only_tokens > other.all_languages_tokens, other.language
        assert other.english_only_relative > other.all_languages_relative, other.language
    # an English-only tokenizer has learned nothing of Burmese: one token per byte
    held_out = "\n".join(BY_CODE["my"].lines[comparison.train_lines:])
    assert my.english_only_tokens == len(held_out.encode("utf-8"))


def test_the_comparison_trains_on_two_thirds_and_measures_the_rest(comparison):
    assert (comparison.train_lines, comparison.test_lines) == (11, 5)  # 16 lines
    en = BY_CODE["en"]
    held_out = "\n".join(en.lines[11:])
    row = comparison.rows[0]
    assert row.english_only_tokens == len(comparison.english_only.encode_ordinary(held_out))
    assert row.all_languages_tokens == len(comparison.all_languages.encode_ordinary(held_out))
    # the same trainer and split pattern for both: only the training text differs
    assert comparison.english_only.pattern == comparison.all_languages.pattern
    assert comparison.all_languages_merges == 1024 - 256
    # eleven English sentences have far fewer pairs than 768 merges: training stops, and says so
    assert comparison.english_only_merges < 768
    (note,) = comparison.shortfall()
    assert f"made {comparison.english_only_merges:,} of the 768 merges" in note
    assert note.startswith("The English-only tokenizer")


def test_the_comparison_without_a_split_and_its_limits():
    result = train_comparison(LANGUAGES[:3], 300, pattern="")
    assert isinstance(result.english_only, BasicTokenizer)
    assert isinstance(train_comparison(LANGUAGES[:2], 260).english_only, RegexTokenizer)
    with pytest.raises(ValueError, match="vocab_size must be from 256"):
        train_comparison(LANGUAGES, MAX_TAX_VOCAB + 1)
    with pytest.raises(ValueError, match="must include English"):
        train_comparison(LANGUAGES[1:], 512)
