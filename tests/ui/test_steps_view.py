"""Pure helpers of the step-through page, on texts small enough to work out by hand."""

import pytest

from bpe_core import BasicTokenizer, RegexTokenizer
from ui.stepping import merges as sv

TEXT = "aaabdaaabac"


@pytest.fixture(scope="module")
def tok():
    t = BasicTokenizer()
    t.train(TEXT, 259, candidates=6)
    return t


@pytest.fixture(scope="module")
def preset_like():
    """A trained tokenizer whose history was dropped, as for the pretrained vocabularies."""
    t = BasicTokenizer()
    t.train(TEXT, 259)
    t.history = []
    return t


def test_merge_at_step_2_is_aa_plus_a_seen_twice(tok):
    info = sv.merge_at(tok, 2)
    assert (info.left, info.right, info.id, info.count) == (256, 97, 257, 2)
    assert (info.left_token, info.right_token, info.token) == (b"aa", b"a", b"aaa")
    assert sv.merge_at(tok, 1)[1:4] == (256, 97, 97)
    assert sv.merge_at(tok, 3)[1:4] == (258, 257, 98)


@pytest.mark.parametrize("k", [0, 4, -1, 1.0, True, None])
def test_merge_at_outside_1_to_n_raises_value_error(tok, k):
    with pytest.raises(ValueError, match="from 1 to 3"):
        sv.merge_at(tok, k)


def test_why_step_2_marks_the_tie_and_names_the_first_occurrence_rule(tok):
    why = sv.why_this_merge(tok, 2)
    frame = why.frame
    # after "aa" -> 256 the text is [aa a b d aa a b a c]: (aa, a) and (a, b) both occur twice
    assert list(frame["pair"][:2]) == ["aa + a", "a + b"]
    assert list(frame["left id"][:2]) == [256, 97] and list(frame["right id"][:2]) == [97, 98]
    assert list(frame["count"][:2]) == [2, 2]
    assert list(frame["count"][2:]) == [1] * (len(frame) - 2)
    assert list(frame["note"][:2]) == ["chosen", "tie: also 2"]
    assert set(frame["note"][2:]) == {""}
    assert list(frame["first seen"][:2]) == [1, 2]  # "aa a" comes before "a b" in the text
    assert why.tied == 2
    assert why.rule.startswith("Tie on count 2 (2 pairs): the pair that occurs first in the text")
    assert "max(stats, key=stats.get)" in why.rule and "(256, 97)" in why.rule


def test_why_step_1_is_the_most_frequent_pair(tok):
    why = sv.why_this_merge(tok, 1)
    assert why.tied == 1
    assert why.rule == "Most frequent pair: (97, 97) occurred 4 times, the next best 2."
    assert list(why.frame["note"]) == ["chosen"] + [""] * (len(why.frame) - 1)


def test_why_is_none_without_history_or_candidates(tok, preset_like):
    assert sv.why_this_merge(tok, 0) is None
    assert sv.why_this_merge(preset_like, 2) is None
    plain = BasicTokenizer()
    plain.train(TEXT, 259)  # candidates not kept
    assert sv.why_this_merge(plain, 2) is None


def test_merge_at_without_history_uses_parents_and_has_no_count(preset_like):
    info = sv.merge_at(preset_like, 2, sv.merge_ids(preset_like))
    assert (info.left, info.right, info.id, info.token, info.count) == (256, 97, 257, b"aaa", None)
    assert "count not known" in sv.merge_html(info, 3)


def test_merge_html_escapes_token_text():
    tok = BasicTokenizer()
    tok.train("<b><b><b>", 258)
    html = sv.merge_html(sv.merge_at(tok, 1), 2)
    assert "<b>" not in html.replace("<br>", "") and "&lt;b" in html
    assert "Step 0 of 2: no merges yet" in sv.merge_html(None, 2)


def test_token_count_at_k_is_the_length_of_tokens_at_k(tok):
    steps = tok.step_through(TEXT)
    counts = steps.token_counts()
    assert counts == [11, 9, 7, 5]
    for k in range(4):
        assert counts[k] == len(steps.tokens_at(k))
    assert [sv.made_at(counts, k) for k in range(4)] == [0, 2, 2, 2]
    assert sv.compression_ratio(steps.num_bytes, counts[3]) == 11 / 5
    assert sv.compression_ratio(0, 0) is None


def test_prev_and_next_change_skip_merges_that_do_not_occur():
    counts = [10, 10, 8, 8, 8, 7, 7]
    assert sv.next_change(counts, 0) == 2
    assert sv.next_change(counts, 2) == 5
    assert sv.next_change(counts, 5) is None
    assert sv.prev_change(counts, 6) == 5
    assert sv.prev_change(counts, 5) == 2
    assert sv.prev_change(counts, 2) is None


@pytest.mark.parametrize(("value", "expected"), [(5, 3), (-2, 0), (2, 2), ("2", 0), (None, 0)])
def test_clamp_step(value, expected):
    assert sv.clamp_step(value, 3) == expected


def test_window_gives_exactly_the_first_tokens_of_every_step():
    text = "héllo wörld, naïve café! " * 40  # multi-byte characters across the cut
    tok = RegexTokenizer()
    tok.train(text, 300)
    steps = tok.step_through(text)
    view, shown_bytes, shown_chars = sv.window(steps, 100)
    assert shown_bytes <= 100
    assert text.encode()[:shown_bytes].decode() == text[:shown_chars]
    for k in (0, 1, 7, tok.num_merges):
        full = steps.tokens_at(k)
        part = view.tokens_at(k)
        assert part == full[: len(part)]
        assert part[-1].byte_end == shown_bytes
    same, b, c = sv.window(steps, 10**6)
    assert same is steps and (b, c) == (steps.num_bytes, len(text))


def test_token_text_makes_whitespace_and_broken_bytes_visible():
    assert sv.token_text(b" the\n") == "·the↵"
    assert sv.token_text(b"\t\x00") == "→\\u0000"
    assert sv.token_text("é".encode()[:1]) == "⟨c3⟩"


def test_default_heldout_avoids_the_training_text():
    samples = {"a": "one", "b": "two", "c": "three"}
    assert sv.default_heldout(samples, ["one"]) == "b"
    assert sv.default_heldout(samples, ["zzz"]) == "a"
    assert sv.default_heldout({"a": "one"}, ["one"]) == "a"


def test_merges_table_and_search(tok, preset_like):
    frame = sv.merges_table(tok)
    assert list(frame["step"]) == [1, 2, 3]
    assert list(frame["token"]) == ["aa", "aaa", "aaab"]
    assert list(frame["left id"]) == [97, 256, 257] and list(frame["right id"]) == [97, 97, 98]
    assert list(frame["count"]) == [4, 2, 2]
    shown, total = sv.search_merges(frame, "AAB")
    assert total == 1 and list(shown["id"]) == [258]
    assert "_search" not in shown.columns
    shown, total = sv.search_merges(frame, "257")  # id 257, and 257 as a parent of 258
    assert list(shown["step"]) == [2, 3]
    shown, total = sv.search_merges(frame, "")
    assert total == 3
    shown, total = sv.search_merges(frame, "", limit=2)
    assert (len(shown), total) == (2, 3)
    shown, total = sv.search_merges(frame, "zzz")
    assert total == 0 and shown.empty
    no_counts, _ = sv.search_merges(sv.merges_table(preset_like), "")
    assert "count" not in no_counts.columns and list(no_counts["token"]) == ["aa", "aaa", "aaab"]


def test_search_finds_spaces_written_as_dots():
    tok = BasicTokenizer()
    tok.train("the cat the hat the", 260)  # merges: th, the, "the ", at
    frame = sv.merges_table(tok)
    for query in ("e·", "e "):
        shown, _ = sv.search_merges(frame, query)
        assert list(shown["token"]) == ["the·"]
