"""ui/who_pays/languages.py: the user's own texts read from one text area, the language-tax tables, charts
and sentences, and the English-only against all-languages comparison, on cases worked by hand."""

from __future__ import annotations

import pytest

from bpe_core import BasicTokenizer
from bpe_lab.who_pays.costs import LanguageCost, language_costs, train_comparison
from bpe_lab.who_pays.languages import load_parallel
from ui.who_pays import languages as lt

SET = tuple(load_parallel())


def cost(code: str, name: str, tokens: int, relative: float, tokenizer: str = "t",
         per_word: float | None = 1.5) -> LanguageCost:
    return LanguageCost(tokenizer, code, name, "Latin", tokens, 2 * tokens, tokens, 4, 2.0,
                        per_word, relative)


def test_own_texts_are_split_named_and_flagged():
    raw = ("name: Yoruba\nỌjà kan wà ní gbangba\n---\n\nSome English words here and more\n"
           "second line\n  ---  \nspaced: no\nตลาด\n---\n   \n---\nname: Yoruba\nagain")
    texts, notes = lt.parse_own_texts(raw)
    assert notes == []
    assert [t.name for t in texts] == ["Yoruba", "Some English words here", "ตลาด", "Yoruba (2)"]
    assert [t.code for t in texts] == ["own-1", "own-2", "own-3", "own-4"]
    assert texts[1].text == "Some English words here and more\nsecond line"
    assert [t.spaced for t in texts] == [True, True, False, True]
    assert {t.script for t in texts} == {"your text"}


def test_own_texts_are_capped_with_a_note():
    texts, notes = lt.parse_own_texts("abc " * 10, limit=12)
    assert texts[0].text == "abc abc abc "
    assert notes == ["Your texts are 40 characters long: measuring the first 12."]
    many = "\n---\n".join(f"text {i}" for i in range(lt.MAX_OWN_TEXTS + 3))
    texts, notes = lt.parse_own_texts(many)
    assert len(texts) == lt.MAX_OWN_TEXTS
    assert notes == [f"Measuring the first {lt.MAX_OWN_TEXTS} texts only."]
    assert lt.parse_own_texts("") == ([], [])
    assert lt.parse_own_texts("name: only a name\n---\n") == ([], [])


def test_hostile_names_stay_text_without_control_characters():
    raw = "name: <img src=x onerror=f()>\x1b[2J\u202e [a](js:x)\nbody\x00 text"
    (text,), _ = lt.parse_own_texts(raw)
    assert text.name == "<img src=x onerror=f()>[2J [a](js:x)"
    assert text.text == "body\x00 text"  # the text itself is measured as it is
    long = lt.clean_name("word " * 30)
    assert len(long) == lt.MAX_NAME_CHARS and long.endswith("…")
    assert lt.clean_name("👩\u200d🌾 farmer") == "👩\u200d🌾 farmer"  # the joiner stays


def test_the_script_tells_whether_words_can_be_counted_in_every_language_of_the_set():
    for lang in SET:
        assert lt.guess_spaced(lang.text) == lang.spaced, lang.name
    assert lt.guess_spaced("12345 !!!") is True  # no letters at all: count what spaces separate


def test_the_table_puts_the_cheapest_first_and_marks_missing_words():
    rows = [cost("ja", "Japanese", 30, 3.0, per_word=None), cost("en", "English", 10, 1.0),
            cost("de", "German", 15, 1.5)]
    frame = lt.costs_frame(rows)
    assert list(frame.columns) == lt.COST_COLUMNS
    assert frame["language"].tolist() == ["English", "German", "Japanese"]
    assert frame["tokens/word"].tolist() == ["1.50", "1.50", lt.NO_WORDS]
    assert frame["× English"].tolist() == [1.0, 1.5, 3.0]


def test_the_chart_sorts_languages_by_the_first_tokenizer_and_keeps_names_as_data():
    rows = [cost("en", "English", 10, 1.0, "A"), cost("my", "Burmese", 90, 9.0, "A"),
            cost("el", "Greek", 40, 4.0, "A"), cost("en", "English", 10, 1.0, "B"),
            cost("my", "Burmese", 20, 2.0, "B"), cost("x", "<b>mine</b>", 50, 5.0, "B")]
    frame = lt.chart_frame(rows)
    assert lt.language_order(frame) == ["English", "Greek", "Burmese", "<b>mine</b>"]
    spec = lt.tax_chart(frame).to_dict()
    bars = spec["layer"][0]["encoding"]
    assert bars["y"]["sort"] == ["English", "Greek", "Burmese", "<b>mine</b>"]
    assert bars["color"]["scale"]["domain"] == ["A", "B"]
    values = next(iter(spec["datasets"].values()))
    assert {"tokenizer": "B", "language": "<b>mine</b>", "script": "Latin", "tokens": 50,
            "× English": 5.0} in values


def test_the_sentence_names_the_dearest_language_escaped():
    rows = [cost("en", "English", 10, 1.0), cost("x", "*bold* <i>", 93, 9.3),
            cost("de", "German", 15, 1.5)]
    assert lt.tax_sentence(rows, "GPT-2") == (
        r"**\*bold\* \<i\>** costs **9.3×** English under GPT-2: the same story takes 93 tokens "
        "instead of 10.")
    assert lt.tax_sentence([cost("en", "English", 10, 1.0)], "GPT-2") is None
    # a text of one's own need not tell the story: it is never the one the sentence names
    own = cost("own-1", "mine", 500, 50.0)._replace(script=lt.OWN_SCRIPT)
    assert lt.tax_sentence([*rows, own], "GPT-2") == lt.tax_sentence(rows, "GPT-2")


def test_the_sentence_on_the_real_set_under_bytes_alone():
    # no merges: tokens are bytes, so the dearest language is the one with the most bytes
    rows = language_costs({"bytes": BasicTokenizer()}, SET)
    most = max(SET, key=lambda lang: len(lang.text.encode("utf-8")))
    assert lt.tax_sentence(rows, "bytes").startswith(f"**{most.name}** costs")


@pytest.mark.parametrize(("kind", "pattern", "named"), [
    ("Train: GPT-2 split", lt.KINDS["Train: GPT-2 split"][1], "GPT-2 split"),
    ("Train: custom split pattern", r"\w+|\s+", "your custom split pattern"),
    ("Train: no split (Basic)", "", "no split (Basic)"),
    ("Pretrained: GPT-4 (cl100k_base)", lt.GPT4_SPLIT_PATTERN, "GPT-4's split (the sidebar's"),
    ("Imported file", lt.GPT4_SPLIT_PATTERN, "GPT-4's split (the sidebar's"),
])
def test_the_comparison_follows_the_sidebars_split_and_size(kind, pattern, named):
    size, got, name = lt.comparison_settings(kind, r"\w+|\s+", 2048)
    assert (size, got) == (2048, pattern) and name.startswith(named)


def test_the_comparison_size_is_kept_in_bounds():
    assert lt.comparison_settings("Train: GPT-4 split", "", 100_000)[0] == lt.MAX_TAX_VOCAB
    assert lt.comparison_settings("Train: GPT-4 split", "", "lots")[0] == 1024
    empty = lt.comparison_settings("Train: custom split pattern", "  ", 512)
    assert empty[1:] == (lt.GPT4_SPLIT_PATTERN, "GPT-4's split (the custom pattern is empty)")


def test_the_comparison_table_chart_and_sentence():
    result = train_comparison(SET, 512)
    frame = lt.comparison_frame(result)
    assert list(frame.columns) == lt.COMPARISON_COLUMNS
    assert len(frame) == len(SET)
    english = frame[frame["language"] == "English"].iloc[0]
    assert english[lt.ENGLISH_ONLY] == english[lt.ALL_LANGUAGES] == 1.0
    assert frame[lt.ENGLISH_ONLY].is_monotonic_increasing
    chart = lt.comparison_chart_frame(result)
    assert len(chart) == 2 * len(SET)
    assert set(chart["training"]) == {lt.ENGLISH_ONLY, lt.ALL_LANGUAGES}
    top = max(result.rows, key=lambda r: r.english_only_relative)
    sentence = lt.comparison_sentence(result)
    assert sentence.startswith(f"Trained on English only, **{top.language}** costs "
                               f"**{top.english_only_relative:.1f}×** English")
    assert f"it costs **{top.all_languages_relative:.1f}×**" in sentence
    assert "(512)" in sentence
