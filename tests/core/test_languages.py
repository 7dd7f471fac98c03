"""The parallel text set (bpe_core/data/languages): every language loads, line i is sentence i in
every file, and the files are clean UTF-8 in NFC."""

from __future__ import annotations

import re
import unicodedata

import pytest

from bpe_lab.who_pays.languages import LANGUAGES_DIR, load_parallel

LANGUAGES = load_parallel()
REQUIRED_SCRIPTS = {
    "Latin", "Cyrillic", "Greek", "Arabic", "Hebrew", "Devanagari", "Bengali", "Tamil", "Thai",
    "Han (simplified)", "Japanese (kanji and kana)", "Hangul", "Myanmar", "Ethiopic", "Georgian",
    "Armenian", "Khmer", "Emoji",
}
UNSPACED = {"th", "zh-Hans", "ja", "my", "km"}


def tsv_codes() -> list[str]:
    rows = (LANGUAGES_DIR / "languages.tsv").read_text(encoding="utf-8").splitlines()
    return [row.split("\t")[0] for row in rows[1:] if row.strip()]


def test_every_language_in_the_tsv_loads_english_first():
    assert [lang.code for lang in LANGUAGES] == tsv_codes()
    assert LANGUAGES[0].code == "en" and LANGUAGES[0].name == "English"
    assert len(LANGUAGES) >= 25
    assert len({lang.code for lang in LANGUAGES}) == len(LANGUAGES)


def test_every_required_script_is_present():
    assert REQUIRED_SCRIPTS <= {lang.script for lang in LANGUAGES}


def test_scripts_without_spaces_between_words_say_so():
    assert {lang.code for lang in LANGUAGES if not lang.spaced} == UNSPACED


def test_every_file_has_the_same_number_of_lines_and_none_empty():
    english = LANGUAGES[0].lines
    assert len(english) >= 12
    for lang in LANGUAGES:
        assert len(lang.lines) == len(english), lang.code
        assert all(line.strip() for line in lang.lines), lang.code
        assert lang.text.count("\n") == len(english) - 1


@pytest.mark.parametrize("code", tsv_codes())
def test_each_file_is_valid_utf8_in_nfc(code):
    data = (LANGUAGES_DIR / f"{code}.txt").read_bytes()
    text = data.decode("utf-8")  # raises on invalid UTF-8
    assert not text.startswith("\ufeff")  # no byte order mark
    assert "\r" not in text
    assert unicodedata.normalize("NFC", text) == text


def test_a_translation_is_in_its_own_script():
    # a file pasted under the wrong code would slip past the other checks
    by_code = {lang.code: lang.text for lang in LANGUAGES}
    assert "市場" in by_code["ja"] and "集市" in by_code["zh-Hans"]
    assert "рынок" in by_code["ru"] and "ринок" in by_code["uk"]
    assert any("\u1000" <= c <= "\u109f" for c in by_code["my"])  # the Myanmar block
    assert any("\u1200" <= c <= "\u137f" for c in by_code["am"])  # the Ethiopic block
    assert all(not c.isalpha() for c in by_code["emoji"])  # emoji only, no letters


def test_a_malformed_set_is_refused_with_the_file_named(tmp_path):
    (tmp_path / "languages.tsv").write_text("code\tname\tscript\tspaced\nen\tEnglish\tLatin\tyes\n"
                                            "xx\tOther\tLatin\tyes\n", encoding="utf-8")
    (tmp_path / "en.txt").write_text("One.\nTwo.\n", encoding="utf-8")
    (tmp_path / "xx.txt").write_text("Uno.\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"xx\.txt has 1 lines; en\.txt has 2"):
        load_parallel(tmp_path)
    (tmp_path / "xx.txt").write_text("Uno.\n \n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"xx\.txt: line 2 is empty"):
        load_parallel(tmp_path)


# Each language's tag in the IANA language subtag registry (BCP 47), by its English name:
# HTML's lang, so that a screen reader reads each text in its own language. Emoji: "zxx", no
# linguistic content.
BCP47 = {
    "English": "en", "Spanish": "es", "French": "fr", "German": "de", "Portuguese": "pt",
    "Italian": "it", "Polish": "pl", "Turkish": "tr", "Vietnamese": "vi", "Indonesian": "id",
    "Swahili": "sw", "Finnish": "fi", "Hungarian": "hu", "Russian": "ru", "Ukrainian": "uk",
    "Greek": "el", "Arabic": "ar", "Persian": "fa", "Urdu": "ur", "Hebrew": "he", "Hindi": "hi",
    "Bengali": "bn", "Tamil": "ta", "Thai": "th", "Chinese (Simplified)": "zh-Hans",
    "Japanese": "ja", "Korean": "ko", "Burmese": "my", "Amharic": "am", "Georgian": "ka",
    "Armenian": "hy", "Khmer": "km", "Emoji": "zxx",
}


def test_every_language_carries_its_bcp47_tag():
    assert {lang.name: lang.lang for lang in LANGUAGES} == BCP47
    # well formed: a language subtag, then perhaps a script (Title case) and a region
    well_formed = re.compile(r"[a-z]{2,3}(-[A-Z][a-z]{3})?(-[A-Z]{2})?")
    assert all(well_formed.fullmatch(lang.lang) for lang in LANGUAGES)
