"""ui/who_pays/numbers.py: the heatmaps' frames and charts, the sentences, and the digit-group tables."""

from __future__ import annotations

from parity_corpus import pretrained

from bpe_core import RegexTokenizer
from bpe_core.patterns import DIGIT_RULES
from bpe_lab.who_pays.numbers import (
    NUMBER_EXAMPLES,
    YEARS,
    NumberSplit,
    compare_digit_presets,
    number_counts,
    number_facts,
    number_splits,
    train_digit_presets,
)
from ui.who_pays import numbers as nu


def test_the_heatmap_has_a_cell_for_every_number_of_every_tokenizer():
    counts = {"bytes": number_counts(RegexTokenizer()), "GPT-4": number_facts(
        pretrained("cl100k_base")).numbers}
    frame = nu.numbers_heatmap_frame(counts)
    assert len(frame) == 2000
    for _, part in frame.groupby("tokenizer"):
        assert len(part) == 1000
        assert len(set(zip(part["row"], part["column"], strict=True))) == 1000
        assert set(part["row"]) == {str(d) for d in range(10)}
        assert set(part["column"]) == {f"{d:02d}" for d in range(100)}
    assert (frame["row"].astype(int) * 100 + frame["column"].astype(int) == frame["number"]).all()
    cell = frame[(frame["tokenizer"] == "bytes") & (frame["number"] == 512)].iloc[0]
    assert (cell["row"], cell["column"], cell["tokens"], cell["pieces"]) == ("5", "12", 3, "5|1|2")

    spec = nu.numbers_heatmap(frame).to_dict()
    assert spec["facet"]["field"] == "tokenizer" and spec["columns"] == 1
    assert spec["facet"]["sort"] == ["bytes", "GPT-4"]
    # one colour scale for all: 1 to 3 tokens (the byte-level tokenizer's most)
    assert spec["spec"]["encoding"]["color"]["scale"]["domain"] == [1, 2, 3]


def test_the_years_heatmap_has_two_rows_of_a_hundred():
    frame = nu.numbers_heatmap_frame({"t": number_counts(RegexTokenizer(), YEARS, space=True)})
    assert len(frame) == 200 and set(frame["row"]) == {"19", "20"}
    first = frame.iloc[0]
    assert (first["text"], first["tokens"], first["pieces"]) == (" 1900", 5, "·|1|9|0|0")


def test_the_sentences_say_what_the_counts_say():
    gpt4 = number_facts(pretrained("cl100k_base"))
    assert nu.numbers_sentence("GPT-4", gpt4.numbers) == (
        "GPT-4 writes every one of the numbers 0–999 as one token.")
    gpt2 = number_facts(pretrained("gpt2")).numbers
    ones = sum(c.tokens == 1 for c in gpt2)
    first_two = next(c for c in gpt2 if c.tokens == 2)
    sentence = nu.numbers_sentence("GPT-2", gpt2)
    assert sentence.startswith(f"GPT-2 writes {ones} of the 1,000 numbers 0–999 as one token and "
                               f"needs 2 tokens for {1000 - ones} of them")
    assert f"(the first: {first_two.number} → " in sentence
    assert sentence.endswith(f", while {first_two.number - 1} is one token).")
    years = nu.numbers_sentence("bytes", number_counts(RegexTokenizer(), YEARS), "years")
    assert years == "bytes writes every one of the years 1900–2099 as 4 tokens."


def test_the_digit_groups_table_has_a_row_per_number_and_a_column_per_tokenizer():
    splits = {"bytes": number_splits(RegexTokenizer()),
              "GPT-4": number_facts(pretrained("cl100k_base")).examples}
    frame = nu.digit_groups_frame(splits)
    assert list(frame.columns) == ["number", "bytes", "GPT-4"]
    assert frame["number"].tolist() == list(NUMBER_EXAMPLES)
    row = frame[frame["number"] == "1234567"].iloc[0]
    assert (row["bytes"], row["GPT-4"]) == ("1|2|3|4|5|6|7", "123|456|7")
    # a space, and bytes that are not a whole character, stay visible as text
    odd = NumberSplit(" ₂", (1, 2, 3), (b" ", b"\xe2\x82", b"\x82"))
    assert nu.split_text(odd) == "·|⟨e2 82⟩|⟨82⟩"
    hostile = '<img src=x onerror="alert(1)">'
    frame = nu.digit_groups_frame({"bytes": number_splits(RegexTokenizer(), [hostile])})
    assert frame["number"].tolist() == [hostile]
    assert frame["bytes"][0].replace("|", "") == hostile.replace(" ", "·")


def test_the_presets_table_has_a_row_per_rule_and_a_column_per_example():
    text = "In 2024, 1,234,567 people paid $19.99. " * 3
    toks = train_digit_presets(text, 280)
    frame = nu.digit_presets_frame(compare_digit_presets(toks, text), DIGIT_RULES)
    assert frame["digit rule"].tolist() == list(DIGIT_RULES)
    assert frame["pattern part"].tolist() == list(DIGIT_RULES.values())
    assert frame["tokens for 0–999"].tolist()[0] == 2890  # one token a digit
    assert [c for c in frame.columns if c in NUMBER_EXAMPLES] == list(NUMBER_EXAMPLES)
    assert frame["1234567"].tolist()[0] == "1|2|3|4|5|6|7"
    assert (frame["bytes/token"] == (len(text.encode()) / frame["tokens on the text"]).round(2)
            ).all()
