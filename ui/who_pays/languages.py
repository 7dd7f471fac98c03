"""The Language tax page's data (no Streamlit here): the user's own texts read from one text area,
the tables and charts of what each language costs, and the English-only against all-languages
comparison, from ``bpe_lab.who_pays.costs``.

A cost is relative to English: the tokens a language needs for the parallel story over the
tokens English needs for it, under the same tokenizer (1.0 for English, 3.0: three times as many).
"""

from __future__ import annotations

import unicodedata
from collections.abc import Mapping, Sequence
from typing import Any

import altair as alt
import pandas as pd
import regex

from bpe_core.patterns import GPT4_SPLIT_PATTERN
from bpe_lab.who_pays.costs import (
    MAX_TAX_VOCAB,
    OWN_SCRIPT,
    LanguageCost,
    TaxComparison,
    own_language,
)
from bpe_lab.who_pays.languages import Language
from ui.kit.charts import SERIES_COLOURS
from ui.kit.choices import KINDS
from ui.kit.escape import md_escape

MAX_OWN_CHARS = 20_000  # characters of the user's own texts, all together
MAX_OWN_TEXTS = 8
OWN_SEPARATOR = "---"  # a line of its own between two texts
MAX_NAME_CHARS = 40
NAME_WORDS = 4  # a text without a "name:" line is named by its first words
# Scripts that write no spaces between words: a text mostly in them has no words to count.
UNSPACED_SCRIPTS = ("Thai", "Lao", "Myanmar", "Khmer", "Han", "Hiragana", "Katakana", "Tibetan")
UNSPACED_LETTER = regex.compile(r"[" + "".join(rf"\p{{Script={s}}}" for s in UNSPACED_SCRIPTS)
                                + r"]")
COST_COLUMNS = ["language", "× English", "tokens", "bytes/token", "tokens/word"]
NO_WORDS = "—"  # tokens/word of a script without spaces between words


# -- the user's own texts -----------------------------------------------------------------------


def guess_spaced(text: str) -> bool:
    """False when most of the text's letters are in a script that writes no spaces between words
    (Thai, Chinese, Japanese, Burmese, Khmer...): its words cannot be counted.

    >>> guess_spaced("a market on Saturday"), guess_spaced("ตลาดวันเสาร์ ตอนเช้า")
    (True, False)
    """
    letters = sum(c.isalpha() for c in text)
    unspaced = len(UNSPACED_LETTER.findall(text))
    return not (letters and unspaced * 2 > letters)


def clean_name(text: str) -> str:
    """A short name fit for a table and a chart: control and format characters dropped (but the
    joiners that hold emoji and Indic letters together), whitespace runs made one space, at most
    ``MAX_NAME_CHARS`` characters.

    >>> clean_name("  <b>hi</b>\\x1b[31m\\n there ")
    '<b>hi</b>[31m there'
    """
    kept = "".join(c for c in text if c.isspace() or c in "\u200c\u200d"
                   or unicodedata.category(c) not in ("Cc", "Cf"))
    name = " ".join(kept.split())
    if len(name) > MAX_NAME_CHARS:
        name = name[:MAX_NAME_CHARS - 1].rstrip() + "…"
    return name


def parse_own_texts(raw: str, limit: int = MAX_OWN_CHARS) -> tuple[list[Language], list[str]]:
    """The user's texts from one text area, and notes on what was cut or skipped.

    Texts are separated by a line ``---``. A text may start with ``name: ...`` (its name in the
    table) and ``spaced: no`` (no words to count); without them it is named by its first words
    and its script decides whether words are counted.

    >>> texts, notes = parse_own_texts("name: Yoruba\\nỌjà wà ní gbangba\\n---\\nตลาดวันเสาร์")
    >>> [(t.name, t.spaced, t.text) for t in texts], notes
    ([('Yoruba', True, 'Ọjà wà ní gbangba'), ('ตลาดวันเสาร์', False, 'ตลาดวันเสาร์')], [])
    """
    notes = []
    if len(raw) > limit:
        notes.append(f"Your texts are {len(raw):,} characters long: measuring the first "
                     f"{limit:,}.")
        raw = raw[:limit]
    parts, current = [], []
    for line in raw.replace("\r\n", "\n").split("\n"):
        if line.strip() == OWN_SEPARATOR:
            parts.append(current)
            current = []
        else:
            current.append(line)
    parts.append(current)
    texts: list[Language] = []
    names: set[str] = set()
    for lines in parts:
        name, spaced = "", None
        while lines and not lines[0].strip():
            lines = lines[1:]
        while lines and regex.match(r"(?i)\s*(name|spaced)\s*:", lines[0]):
            field, _, value = lines[0].partition(":")
            if field.strip().lower() == "name":
                name = clean_name(value)
            else:
                spaced = value.strip().lower() not in ("no", "false", "0")
            lines = lines[1:]
        text = "\n".join(lines).strip("\n")
        if not text.strip():
            continue
        if len(texts) == MAX_OWN_TEXTS:
            notes.append(f"Measuring the first {MAX_OWN_TEXTS} texts only.")
            break
        if not name:
            first = next(line for line in lines if line.strip())
            name = clean_name(" ".join(first.split()[:NAME_WORDS])) or f"text {len(texts) + 1}"
        unique, n = name, 2
        while unique in names:  # two texts of the same name would share a bar
            unique, n = f"{name} ({n})", n + 1
        names.add(unique)
        if spaced is None:
            spaced = guess_spaced(text)
        texts.append(own_language(unique, text, spaced, code=f"own-{len(texts) + 1}"))
    return texts, notes


# -- what it costs: tables, charts, sentences ---------------------------------------------------


def sentence_frame(languages: Sequence[Language], tokenizers: Mapping[str, Any],
                   line: int) -> tuple[pd.DataFrame, list[str]]:
    """One sentence of the story in every language, with its tokens under each tokenizer (text
    counted as text: ``encode_ordinary``), and each row's BCP 47 tag for the sentence's cell.

    >>> from bpe_core import BasicTokenizer
    >>> langs = [Language("en", "English", "Latin", True, ("Hi.",)),
    ...          Language("de", "German", "Latin", True, ("Hallo.",))]
    >>> frame, tags = sentence_frame(langs, {"bytes": BasicTokenizer()}, 0)
    >>> frame.values.tolist(), tags
    ([['English', 'Hi.', 3], ['German', 'Hallo.', 6]], ['en', 'de'])
    """
    rows = []
    for lang in languages:
        sentence = lang.lines[line]
        row = {"language": lang.name, "sentence": sentence}
        row.update({f"{label}: tokens": len(t.encode_ordinary(sentence))
                    for label, t in tokenizers.items()})
        rows.append(row)
    return pd.DataFrame(rows), [lang.lang for lang in languages]


def texts_frame(languages: Sequence[Language]) -> tuple[pd.DataFrame, list[str]]:
    """Each language's whole story, one row each, and each row's BCP 47 tag (the Report card's
    "other languages").

    >>> frame, tags = texts_frame([Language("emoji", "Emoji", "Emoji", True, ("🛒", "🍎"))])
    >>> frame.values.tolist(), tags
    ([['Emoji', '🛒\\n🍎']], ['zxx'])
    """
    frame = pd.DataFrame({"language": [lang.name for lang in languages],
                          "text": [lang.text for lang in languages]})
    return frame, [lang.lang for lang in languages]


def costs_frame(rows: Sequence[LanguageCost]) -> pd.DataFrame:
    """One tokenizer's rows as a table, the cheapest language first.

    >>> from bpe_lab.who_pays.costs import LanguageCost as C
    >>> frame = costs_frame([C("t", "th", "Thai", "Thai", 30, 60, 20, None, 2.0, None, 3.0),
    ...                      C("t", "en", "English", "Latin", 10, 40, 40, 8, 4.0, 1.25, 1.0)])
    >>> frame.values.tolist()
    [['English', 1.0, 10, 4.0, '1.25'], ['Thai', 3.0, 30, 2.0, '—']]
    """
    ordered = sorted(rows, key=lambda r: (r.relative is None, r.relative or 0.0))
    frame = pd.DataFrame(
        [{"language": r.language, "tokens": r.tokens,
          "bytes/token": None if r.bytes_per_token is None else round(r.bytes_per_token, 2),
          "tokens/word": NO_WORDS if r.tokens_per_word is None else f"{r.tokens_per_word:.2f}",
          "× English": None if r.relative is None else round(r.relative, 2)}
         for r in ordered],
        columns=COST_COLUMNS,
    )
    return frame.astype({"tokens": "int64", "bytes/token": "float64", "× English": "float64"})


def chart_frame(rows: Sequence[LanguageCost]) -> pd.DataFrame:
    """Rows for ``tax_chart``: one per (tokenizer, language), with its relative cost.

    >>> from bpe_lab.who_pays.costs import LanguageCost as C
    >>> chart_frame([C("GPT-2", "en", "English", "Latin", 9, 40, 40, 8, 4.4, 1.1, 1.0)]
    ...             ).columns.tolist()
    ['tokenizer', 'language', 'script', 'tokens', '× English']
    """
    return pd.DataFrame(
        [{"tokenizer": r.tokenizer, "language": r.language, "script": r.script,
          "tokens": r.tokens, "× English": round(r.relative, 2)}
         for r in rows if r.relative is not None],
        columns=["tokenizer", "language", "script", "tokens", "× English"],
    )


def language_order(frame: pd.DataFrame) -> list[str]:
    """The languages from the cheapest to the dearest, by the first tokenizer of the frame.

    >>> frame = pd.DataFrame({"tokenizer": ["a", "a", "b"], "language": ["Thai", "English",
    ...                       "Thai"], "× English": [3.0, 1.0, 9.0]})
    >>> language_order(frame)
    ['English', 'Thai']
    """
    if frame.empty:
        return []
    first = frame[frame["tokenizer"] == frame["tokenizer"].iloc[0]]
    order = list(first.sort_values("× English", kind="stable")["language"])
    return order + [lang for lang in dict.fromkeys(frame["language"]) if lang not in order]


def tax_chart(frame: pd.DataFrame, series: str = "tokenizer") -> alt.LayerChart:
    """Horizontal bars of the cost relative to English, one group per language sorted by cost
    (the first series decides), one bar per ``series`` in a group, and a rule at 1× (English).

    Names are data: Vega draws them as text, so a name that looks like HTML stays text.
    """
    order = language_order(frame.rename(columns={series: "tokenizer"}))
    names = list(dict.fromkeys(frame[series]))
    colour = alt.Color(f"{series}:N", sort=names, title=None,
                       legend=alt.Legend(orient="top", labelLimit=400),
                       scale=alt.Scale(domain=names, range=SERIES_COLOURS[:len(names)] or None))
    bars = alt.Chart(frame).mark_bar().encode(
        y=alt.Y("language:N", sort=order, title=None, axis=alt.Axis(labelLimit=0)),
        yOffset=alt.YOffset(f"{series}:N", sort=names),
        # two lines: on a phone one line is wider than the chart, and Vega cuts it
        x=alt.X("× English:Q", title=["tokens relative to English", "(1 = as many as English)"]),
        color=colour,
        tooltip=[series, "language", "script", alt.Tooltip("tokens:Q", format=","),
                 alt.Tooltip("× English:Q", format=".2f")],
    )
    rule = alt.Chart(pd.DataFrame({"x": [1.0]})).mark_rule(strokeDash=[4, 3]).encode(x="x:Q")
    height = max(120, len(order) * (6 + 11 * len(names)))
    return (bars + rule).properties(height=height)


def tax_sentence(rows: Sequence[LanguageCost], label: str) -> str | None:
    """The greatest tax of the parallel set under one tokenizer, in a Markdown sentence (``label``
    must be Markdown already; the language's name is escaped here). Texts of one's own are left
    out: they need not tell the same story.

    >>> from bpe_lab.who_pays.costs import LanguageCost as C
    >>> tax_sentence([C("t", "en", "English", "Latin", 10, 40, 40, 8, 4.0, 1.25, 1.0),
    ...               C("t", "my", "Burmese", "Myanmar", 93, 90, 30, None, 1.0, None, 9.3)],
    ...              "GPT-2")
    '**Burmese** costs **9.3×** English under GPT-2: the same story takes 93 tokens instead of 10.'
    """
    measured = [r for r in rows if r.relative is not None and r.code != "en"
                and r.script != OWN_SCRIPT]
    if not measured:
        return None
    top = max(measured, key=lambda r: r.relative)
    english = round(top.tokens / top.relative)
    return (f"**{md_escape(top.language)}** costs **{top.relative:.1f}×** English under {label}: "
            f"the same story takes {top.tokens:,} tokens instead of {english:,}.")


# -- English only, or every language? ------------------------------------------------------------

ENGLISH_ONLY = "English only"  # what the tokenizer was trained on
ALL_LANGUAGES = "every language"
COMPARISON_COLUMNS = ["language", ENGLISH_ONLY, ALL_LANGUAGES, f"tokens: {ENGLISH_ONLY}",
                      f"tokens: {ALL_LANGUAGES}"]


def comparison_settings(kind: str, custom_pattern: str, vocab_size: object) -> tuple[int, str, str]:
    """The vocabulary size and split pattern of the comparison, from the sidebar's, and the
    pattern's name: the sidebar's trained kind, or GPT-4's split for a pretrained tokenizer.

    >>> comparison_settings("Train: no split (Basic)", "", 1024)
    (1024, '', 'no split (Basic)')
    >>> comparison_settings("Pretrained: GPT-2", "", 99_999)[0::2]
    (8192, "GPT-4's split (the sidebar's tokenizer is pretrained)")
    """
    how, pattern = KINDS.get(kind, ("preset", None))
    try:
        size = int(vocab_size)  # type: ignore[call-overload]
    except (TypeError, ValueError):
        size = 1024
    size = min(max(size, 256), MAX_TAX_VOCAB)
    if how == "basic":
        return size, "", "no split (Basic)"
    if how == "regex":
        if pattern is None and custom_pattern.strip():
            return size, custom_pattern, "your custom split pattern"
        if pattern is None:  # an empty custom pattern is not "no split": the sidebar refuses it
            return size, GPT4_SPLIT_PATTERN, "GPT-4's split (the custom pattern is empty)"
        return size, pattern, kind.removeprefix("Train: ")
    return size, GPT4_SPLIT_PATTERN, "GPT-4's split (the sidebar's tokenizer is pretrained)"


def comparison_frame(result: TaxComparison) -> pd.DataFrame:
    """One row per language: the cost relative to English under the tokenizer trained on English
    only and under the one trained on every language, then their tokens; in the order of the
    English-only cost."""
    rows = sorted(result.rows, key=lambda r: r.english_only_relative)
    return pd.DataFrame(
        [[r.language, round(r.english_only_relative, 2), round(r.all_languages_relative, 2),
          r.english_only_tokens, r.all_languages_tokens] for r in rows],
        columns=COMPARISON_COLUMNS,
    )


def comparison_chart_frame(result: TaxComparison) -> pd.DataFrame:
    """``tax_chart``'s rows for the comparison: one per (training, language)."""
    rows = []
    for r in result.rows:
        rows.append({"training": ENGLISH_ONLY, "language": r.language, "script": r.script,
                     "tokens": r.english_only_tokens,
                     "× English": round(r.english_only_relative, 2)})
        rows.append({"training": ALL_LANGUAGES, "language": r.language, "script": r.script,
                     "tokens": r.all_languages_tokens,
                     "× English": round(r.all_languages_relative, 2)})
    return pd.DataFrame(rows)


def comparison_sentence(result: TaxComparison) -> str:
    """What the comparison shows, in one Markdown sentence, on its dearest language."""
    top = max((r for r in result.rows if r.code != "en"), key=lambda r: r.english_only_relative)
    en = next(r for r in result.rows if r.code == "en")
    return (f"Trained on English only, **{md_escape(top.language)}** costs "
            f"**{top.english_only_relative:.1f}×** English on sentences neither tokenizer saw; "
            f"trained on every language at the same vocabulary size "
            f"({result.vocab_size:,}), it costs **{top.all_languages_relative:.1f}×**, while "
            f"English itself goes from {en.english_only_tokens:,} to "
            f"{en.all_languages_tokens:,} tokens. Who is in the training data decides who pays.")
