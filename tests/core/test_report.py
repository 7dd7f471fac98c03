"""bpe_lab.who_pays.report: the report card's texts, bytes per token against tiktoken, relative
differences and marks worked by hand, honest timing, and durations in words."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest
from parity_corpus import pretrained, tiktoken_reference

from bpe_core import RegexTokenizer
from bpe_lab.who_pays.languages import load_parallel
from bpe_lab.who_pays.report import (
    REPORT_CATEGORIES,
    REPORT_DIR,
    CategoryScore,
    EncodeSpeed,
    compare_scores,
    duration_words,
    load_report_texts,
    measure_speed,
    relative_percent,
    score_texts,
    training_overlap,
    verdict,
)

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = sorted((ROOT / "assets" / "samples").glob("*"))
OWN_TEXTS = ("prose", "code", "math", "held-out")  # the texts written for the report card


# -- the texts -----------------------------------------------------------------------------------


def test_the_report_texts_load_in_order_and_none_is_empty():
    texts = load_report_texts()
    assert list(texts) == list(REPORT_CATEGORIES)
    for category in OWN_TEXTS:
        assert 1_800 <= len(texts[category]) <= 3_200, category  # "about 2,000-3,000"
    assert all(text.strip() for text in texts.values())


def test_other_languages_are_every_parallel_language_but_english():
    languages = load_parallel()
    others = [lang for lang in languages if lang.code != "en"]
    text = load_report_texts()["other languages"]
    assert text == "\n".join(lang.text for lang in others)
    english = next(lang for lang in languages if lang.code == "en")
    assert not any(len(line) >= 20 and line in text for line in english.lines)


def test_the_held_out_text_is_in_no_sample():
    heldout = (REPORT_DIR / "heldout.txt").read_text(encoding="utf-8")
    assert len(SAMPLES) >= 4
    for sample in SAMPLES:
        content = sample.read_text(encoding="utf-8")
        (overlap,) = training_overlap(content, {"held-out": heldout})
        assert overlap.lines_checked >= 20
        assert overlap.lines_found == 0, sample.name
        assert heldout[:200] not in content


def test_training_on_a_sample_never_flags_the_report_s_own_texts():
    texts = {k: v for k, v in load_report_texts().items() if k in OWN_TEXTS}
    for sample in SAMPLES:
        found = training_overlap(sample.read_text(encoding="utf-8"), texts)
        assert [o.lines_found for o in found] == [0, 0, 0, 0], sample.name


def test_training_on_a_report_text_is_found_line_by_line():
    texts = load_report_texts()
    pasted = "My notes.\n" + texts["code"][:1_000] + "\nmore of my own text"
    rows = {o.category: o for o in training_overlap(pasted, texts)}
    assert rows["prose"].lines_found == 0 and rows["held-out"].lines_found == 0
    long_lines = [line.strip() for line in texts["code"][:1_000].splitlines()
                  if len(line.strip().encode()) >= 40]
    # the cut at 1,000 characters may fall in a long line: that one is not found whole
    assert len(long_lines) - 1 <= rows["code"].lines_found <= len(long_lines)
    assert rows["code"].lines_found >= 5
    whole = {o.category: o for o in training_overlap(texts["prose"], texts)}["prose"]
    assert whole.lines_found == whole.lines_checked >= 20


def test_the_texts_ship_as_package_data():
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert "data/report/*" in config["tool"]["setuptools"]["package-data"]["bpe_lab.who_pays"]
    assert (REPORT_DIR / "README.md").read_text(encoding="utf-8").count("CC0 1.0") >= 1


# -- compression ---------------------------------------------------------------------------------

TINY = "Tokenizers pack 1234567 bytes: héllo wörld!\n    def area(r): return 3.14159 * r**2\n"


@pytest.mark.parametrize("name", ["gpt2", "cl100k_base", "o200k_base"])
def test_bytes_per_token_is_tiktoken_s(name):
    ids = tiktoken_reference(name).encode_ordinary(TINY)
    num_bytes = len(TINY.encode("utf-8"))
    assert num_bytes == 85  # 83 characters, é and ö two bytes each
    (score,) = score_texts(pretrained(name), {"tiny": TINY})
    assert score == CategoryScore("tiny", 85, len(ids), 85 / len(ids))


def test_special_token_text_is_ordinary_text():
    # "<|endoftext|>" is 13 bytes; as ordinary text GPT-2 cuts it into several tokens, not one
    (score,) = score_texts(pretrained("gpt2"), {"x": "<|endoftext|>"})
    assert score.tokens == len(tiktoken_reference("gpt2").encode_ordinary("<|endoftext|>")) > 1


def test_relative_percent_and_marks_by_hand():
    assert relative_percent(5.0, 4.0) == 25.0  # 1 more byte per token on 4: +25 %
    assert relative_percent(3.0, 4.0) == -25.0
    assert relative_percent(4.04, 4.0) == 1.0  # 0.04 / 4 = 1 %: the edge of "same"
    assert relative_percent(4.06, 4.0) == 1.5
    assert relative_percent(3.96, 4.0) == -1.0
    assert str(relative_percent(2.0, 2.0)) == "0.0"  # never "-0.0"
    assert [verdict(p) for p in (25.0, -25.0, 1.0, 1.5, -1.0, -1.1, 0.0)] == [
        "better", "worse", "same", "better", "same", "worse", "same"]
    with pytest.raises(ValueError, match="positive"):
        relative_percent(4.0, 0.0)


def test_compare_scores_matches_categories_and_keeps_our_order():
    ours = [CategoryScore("prose", 100, 20, 5.0), CategoryScore("code", 90, 30, 3.0),
            CategoryScore("math", 50, 25, 2.0)]
    theirs = [CategoryScore("code", 80, 20, 4.0), CategoryScore("prose", 100, 25, 4.0)]
    rows = compare_scores(ours, theirs, "GPT-4")
    assert [(r.category, r.reference, r.ours, r.theirs, r.percent, r.mark) for r in rows] == [
        ("prose", "GPT-4", 5.0, 4.0, 25.0, "better"),
        ("code", "GPT-4", 3.0, 4.0, -25.0, "worse"),
    ]  # no "math" for the reference: left out


def test_a_tokenizer_against_itself_is_the_same_everywhere():
    tok = pretrained("cl100k_base")
    scores = score_texts(tok, load_report_texts())
    rows = compare_scores(scores, scores, "GPT-4")
    assert [(r.percent, r.mark) for r in rows] == [(0.0, "same")] * len(REPORT_CATEGORIES)


# -- speed ---------------------------------------------------------------------------------------


class Ticks:
    """A fake clock: each call returns the next of the given times."""

    def __init__(self, *times: float) -> None:
        self.times = list(times)

    def __call__(self) -> float:
        return self.times.pop(0)


def test_speed_measures_fixed_bytes_and_keeps_the_fastest_pass():
    texts = {"a": "hello world", "b": "héllo"}  # 11 + 6 bytes
    speed = measure_speed(RegexTokenizer(), texts, passes=3, clock=Ticks(0, 2, 10, 11, 20, 23))
    assert speed == EncodeSpeed(num_bytes=17, passes=3, seconds=1.0)  # passes took 2, 1, 3 s
    assert speed.megabytes_per_second == 17 / 1e6
    with pytest.raises(ValueError, match="passes"):
        measure_speed(RegexTokenizer(), texts, passes=0)
    with pytest.raises(ValueError, match="no text"):
        measure_speed(RegexTokenizer(), {"a": ""})


class CountingTokenizer(RegexTokenizer):
    """Counts the chunks it merges (the work the chunk cache saves). ``merged`` is one list,
    shared by the shallow copies that measure_speed makes."""

    def _merge_chunk(self, chunk: str) -> list[int]:
        self.merged.append(chunk)
        return super()._merge_chunk(chunk)


def test_every_timed_pass_starts_with_an_empty_cache():
    tok = CountingTokenizer()
    tok.train("the cat and the dog and the bird " * 5, 270)
    tok.merged = []
    text = "the cat and the dog and the bird"
    distinct = {"the", " cat", " and", " the", " dog", " bird"}
    tok.encode_ordinary(text)  # warms the tokenizer's own cache
    assert set(tok.merged) == distinct and len(tok.merged) == 6
    tok.merged.clear()
    measure_speed(tok, {"t": text}, passes=3)
    # each pass merges every distinct chunk once ("the" and " and" repeat: cached within a pass)
    assert len(tok.merged) == 3 * 6
    tok.merged.clear()
    measure_speed(tok, {"t": text}, passes=2)  # a second measurement is as cold as the first
    assert len(tok.merged) == 2 * 6
    tok.merged.clear()
    tok.encode_ordinary(text)  # the original's own cache was left as it was
    assert tok.merged == []


def test_a_pretrained_tokenizer_encodes_the_same_after_timing():
    tok = pretrained("o200k_base")
    texts = {"tiny": TINY}
    measure_speed(tok, texts, passes=1)
    assert tok.encode_ordinary(TINY) == tiktoken_reference("o200k_base").encode_ordinary(TINY)


@pytest.mark.parametrize(("mb_per_s", "words"), [
    (1e6, "1 second"),  # 10^12 / 10^12 bytes a second
    (1_000, "17 minutes"),  # 1,000 s = 16.7 min
    (100, "2.8 hours"),  # 10,000 s = 2.78 h
    (10, "1.2 days"),  # 100,000 s = 1.157 days
    (1, "12 days"),  # 10^6 s = 11.57 days
    (0.1, "3.8 months"),  # 10^7 s = 115.7 days = 3.80 months of 30.44 days
    (0.01, "3.2 years"),  # 10^8 s = 3.17 years of 365.2425 days
    (0.001, "32 years"),  # 10^9 s = 31.7 years
])
def test_the_time_for_a_terabyte_at_fixed_speeds(mb_per_s, words):
    speed = EncodeSpeed(num_bytes=round(mb_per_s * 1_000_000), passes=1, seconds=1.0)
    assert duration_words(speed.terabyte_seconds) == words


def test_durations_in_words():
    day, year = 86_400, 365.2425 * 86_400
    assert duration_words(3.2 * day) == "3.2 days"
    assert duration_words(11 * year / 12) == "11 months"
    assert duration_words(41 * year) == "41 years"
    assert duration_words(1_234 * year) == "1,234 years"
    assert duration_words(59.99) == "1 minute"  # not "60 seconds"
    assert duration_words(23.99 * 3_600) == "1 day"
    assert duration_words(11.97 * year / 12) == "1 year"
    assert duration_words(2 * day) == "2 days" and duration_words(1.0) == "1 second"
    assert duration_words(0.0) == "less than a second"
    with pytest.raises(ValueError):
        duration_words(-1.0)
