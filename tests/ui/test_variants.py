"""ui/variants/comparison.py: where a variant parts from the classic and why, on texts worked by hand."""

from __future__ import annotations

from bpe_core import BasicTokenizer
from ui.kit.choices import Settings, train_tokenizer
from ui.variants import comparison as va


def basic(text: str, vocab_size: int, **options):
    tok = BasicTokenizer()
    tok.train(text, vocab_size, candidates=6, **options)
    return tok


def test_a_tie_is_explained_with_both_rules_and_the_candidates():
    # "mzab": mz, za, ab occur once each. seen takes mz, bytes takes za.
    classic, variant = basic("mzab", 259), basic("mzab", 259, tie_rule="bytes")
    parting = va.part_ways(classic, variant, {"tie_rule": "bytes"})
    assert parting.step == 1
    assert parting.classic.token == b"mz" and parting.variant.token == b"za"
    assert "A tie" in parting.reason and "greatest pair of token bytes" in parting.reason
    frame = va.candidates_frame(classic, parting.classic, parting.variant)
    assert frame["pair"].tolist() == ["m + z", "z + a", "a + b"]
    assert frame["count"].tolist() == [1, 1, 1]
    assert frame["classic"].tolist() == ["✔", "", ""]
    assert frame["variant"].tolist() == ["", "✔", ""]
    assert parting.same_steps == 1  # both end with the whole "mzab" at step 3


def test_a_variant_that_changes_nothing_says_so():
    text = "abababc"  # ab (3 times), then (ab, ab) (twice): no tie in the first two merges
    classic = basic(text, 258)
    parting = va.part_ways(classic, basic(text, 258, tie_rule="ids"), {"tie_rule": "ids"})
    assert parting.step is None and parting.reason == "Every merge is the same."


def test_max_token_bytes_names_the_token_that_was_too_long():
    text = "abcd abcd abcd"
    classic = basic(text, 266)
    variant = basic(text, 266, max_token_bytes=2)
    parting = va.part_ways(classic, variant, {"max_token_bytes": 2})
    # ab, bc and cd occur 3 times each: both take ab; then (ab, c) and (c, d) tie at 3, and the
    # classic makes "abc", 3 bytes, which the variant skips for "cd"
    assert parting.step == 2 and parting.classic.token == b"abc"
    assert parting.variant.token == b"cd"
    assert "more than max_token_bytes=2" in parting.reason


def test_min_frequency_stopping_early_is_a_prefix_with_a_reason():
    text = "aaaa bb"
    classic, variant = basic(text, 262), basic(text, 262, min_frequency=2)
    parting = va.part_ways(classic, variant, {"min_frequency": 2})
    assert parting.step is None
    assert "the variant stops after 1" in parting.reason
    assert "fewer than min_frequency 2" in va.stop_note(classic, variant)


def test_training_over_the_special_tokens_text_changes_the_counts():
    settings = Settings("Train: no split (Basic)", "", 262, ("<|x|>",))
    text = "ab<|x|>ab<|x|>ab<|x|>cd"
    classic = train_tokenizer(text, settings)
    as_text = train_tokenizer(text, settings, variant={"specials_as_text": True})
    library = BasicTokenizer()
    library.train(text, 262, special_tokens=["<|x|>"])  # the library's own path: the same
    assert (classic.merges, classic.special_tokens) == (library.merges, library.special_tokens)
    assert all(b"|" not in t for t in va.merged_tokens(classic))
    assert any(b"|" in t for t in va.merged_tokens(as_text))
    assert as_text.special_tokens == {"<|x|>": 256 + as_text.num_merges}
    parting = va.part_ways(classic, as_text, {"specials_as_text": True})
    assert "cuts the text at the special tokens" in parting.reason


def test_the_summary_has_the_classic_first_and_one_row_per_variant():
    classic = basic("mzab", 259)
    variant = basic("mzab", 259, tie_rule="bytes")
    frame = va.variants_frame(classic, {"bytes": (variant, va.part_ways(classic, variant, {}))})
    assert frame["variant"].tolist() == [va.CLASSIC, "bytes"]
    assert frame["parts at merge"].tolist()[1] == 1
    assert frame["tokens the classic lacks"].tolist() == [0, 2]  # za, zab
