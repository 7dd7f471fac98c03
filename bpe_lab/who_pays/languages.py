"""A small parallel text: the same sentences in many languages and scripts, for measuring who
pays more tokens for the same content (the "language tax", ``costs.py``).

The texts ship with the library (``bpe_core/data/languages``; where they come from and their
licence are in its README.md). ``languages.tsv`` lists each language (code, name, script, and
whether it writes spaces between words); ``<code>.txt`` holds its sentences, one per line, the
same sentence on the same line in every language.

    >>> langs = load_parallel()
    >>> langs[0].code, langs[0].name
    ('en', 'English')
    >>> len({len(lang.lines) for lang in langs})    # every language has the same number of lines
    1
"""

from __future__ import annotations

from pathlib import Path
from typing import NamedTuple

LANGUAGES_DIR = Path(__file__).resolve().parent / "data" / "languages"
TSV_HEADER = ["code", "name", "script", "spaced"]
# A text's BCP 47 language tag (HTML's lang) where it is not the set's code: emoji have no
# language ("zxx": no linguistic content). Every other code of the set is already its tag.
BCP47 = {"emoji": "zxx"}


class Language(NamedTuple):
    """One language of the parallel set (or any named text measured beside it)."""

    code: str  # a short tag, e.g. "en", "zh-Hans"
    name: str  # its English name
    script: str  # the writing system, e.g. "Latin", "Devanagari"
    spaced: bool  # words are separated by spaces (tokens per word means something)
    lines: tuple[str, ...]  # the sentences, one per line, parallel across languages

    @property
    def lang(self) -> str:
        """Its BCP 47 tag, for HTML's ``lang`` (a screen reader reads the text in its language).

        >>> Language("zh-Hans", "Chinese", "Han", False, ()).lang, Language("emoji", "Emoji", "Emoji", True, ()).lang
        ('zh-Hans', 'zxx')
        """
        return BCP47.get(self.code, self.code)

    @property
    def text(self) -> str:
        """The sentences as one text, one sentence per line.

        >>> Language("xx", "Example", "Latin", True, ("One.", "Two.")).text
        'One.\\nTwo.'
        """
        return "\n".join(self.lines)


def load_parallel(folder: Path = LANGUAGES_DIR) -> list[Language]:
    """Every language of the parallel set, English first, in the order ``languages.tsv`` lists.

    ValueError names the file and says what is wrong when the set is malformed (a language
    with another number of lines than English, an empty line, a bad ``spaced`` value).
    """
    folder = Path(folder)
    with open(folder / "languages.tsv", encoding="utf-8") as f:
        rows = [line.rstrip("\n").split("\t") for line in f if line.strip()]
    if not rows or rows[0] != TSV_HEADER:
        raise ValueError(f"{folder / 'languages.tsv'}: the first row must be {TSV_HEADER}")
    languages = []
    for number, row in enumerate(rows[1:], 2):
        if len(row) != 4 or row[3] not in ("yes", "no"):
            raise ValueError(f"languages.tsv line {number}: expected code, name, script and "
                             f"spaced (yes or no) separated by tabs, got {row!r}")
        code, name, script, spaced = row
        with open(folder / f"{code}.txt", encoding="utf-8", newline="") as f:
            lines = tuple(f.read().rstrip("\n").split("\n"))
        empty = [i for i, line in enumerate(lines, 1) if not line.strip()]
        if empty:
            raise ValueError(f"{code}.txt: line {empty[0]} is empty")
        if languages and len(lines) != len(languages[0].lines):
            raise ValueError(f"{code}.txt has {len(lines)} lines; {languages[0].code}.txt has "
                             f"{len(languages[0].lines)}: line i must be sentence i in every file")
        languages.append(Language(code, name, script, spaced == "yes", lines))
    return languages
