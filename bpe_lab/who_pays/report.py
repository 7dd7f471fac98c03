"""The report card: how well a tokenizer compresses five kinds of text, beside reference
tokenizers, and how fast it encodes them.

Compression is measured as bytes per token (UTF-8 bytes of the text / tokens of
``encode_ordinary``): more bytes per token means fewer tokens for the same text, so a model
sees more text in its context window and pays less for it. The texts ship with the library
(``bpe_core/data/report``, see its README.md): English prose, Python code, mathematics as people
type it, every language of the parallel text but English (``languages.py``), and a held-out
English text that none of the app's samples contains.

    >>> texts = load_report_texts()
    >>> list(texts)
    ['prose', 'code', 'math', 'other languages', 'held-out']
    >>> relative_percent(4.4, 4.0), verdict(relative_percent(4.4, 4.0))
    (10.0, 'better')

Everything here returns plain rows (NamedTuples): ``row._asdict()`` gives a dict for a table.
"""

from __future__ import annotations

import copy
import math
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from .costs import measure_text
from .languages import load_parallel

if TYPE_CHECKING:
    from bpe_core.base import Tokenizer

REPORT_DIR = Path(__file__).resolve().parent / "data" / "report"
# category -> file in REPORT_DIR ("other languages" comes from the parallel text instead)
REPORT_FILES = {"prose": "prose.txt", "code": "code.txt", "math": "math.txt",
                "held-out": "heldout.txt"}
REPORT_CATEGORIES = ("prose", "code", "math", "other languages", "held-out")
SAME_WITHIN = 1.0  # percent: a difference of at most this much (after rounding) is "same"
SPEED_PASSES = 3  # passes over the texts when timing; the fastest counts
MEGABYTE = 10**6  # MB/s counts decimal megabytes, as disk and network speeds do
TERABYTE = 10**12
MIN_OVERLAP_BYTES = 40  # shorter lines ("return x", "}") are too common to say where text came from


def load_report_texts(folder: Path = REPORT_DIR) -> dict[str, str]:
    """The report's texts by category, in ``REPORT_CATEGORIES`` order.

    "other languages" is every language of ``load_parallel()`` but English, one text after
    another (left out if there is none).
    """
    texts = {}
    for category in REPORT_CATEGORIES:
        if category == "other languages":
            others = [lang.text for lang in load_parallel() if lang.code != "en"]
            if others:
                texts[category] = "\n".join(others)
            continue
        with open(folder / REPORT_FILES[category], encoding="utf-8", newline="") as f:
            texts[category] = f.read()
    return texts


# -- compression ---------------------------------------------------------------------------------


class CategoryScore(NamedTuple):
    """One tokenizer on one category's text."""

    category: str
    num_bytes: int  # UTF-8 bytes of the text
    tokens: int  # tokens of encode_ordinary
    bytes_per_token: float  # num_bytes / tokens (0.0 for an empty text)


def score_texts(tok: Tokenizer, texts: Mapping[str, str]) -> list[CategoryScore]:
    """Bytes per token of ``tok`` on each text (special-token text counts as ordinary text).

    >>> from bpe_core import BasicTokenizer
    >>> score_texts(BasicTokenizer(), {"prose": "héllo"})  # no merges: one token per byte
    [CategoryScore(category='prose', num_bytes=6, tokens=6, bytes_per_token=1.0)]
    """
    scores = []
    for category, text in texts.items():
        cost = measure_text(tok, text)  # the one measure of a text (the language tax's too)
        scores.append(CategoryScore(category, cost.bytes, cost.tokens,
                                    cost.bytes_per_token or 0.0))
    return scores


def relative_percent(ours: float, theirs: float) -> float:
    """How many percent more bytes per token ``ours`` packs than ``theirs``, to 0.1 %
    (positive: ours is better; negative: worse).

    >>> relative_percent(3.0, 4.0), relative_percent(4.0, 4.0)
    (-25.0, 0.0)
    """
    if theirs <= 0:
        raise ValueError(f"the reference's bytes per token must be positive, not {theirs}")
    return round((ours - theirs) / theirs * 100, 1) + 0.0  # + 0.0 turns -0.0 into 0.0


def verdict(percent: float) -> str:
    """"better", "worse" or "same" (within ``SAME_WITHIN`` percent) for a relative difference.

    >>> verdict(1.0), verdict(1.1), verdict(-7.5)
    ('same', 'better', 'worse')
    """
    if abs(percent) <= SAME_WITHIN:
        return "same"
    return "better" if percent > 0 else "worse"


class CategoryComparison(NamedTuple):
    """A tokenizer against a reference on one category."""

    category: str
    reference: str  # the reference's name, e.g. "GPT-4"
    ours: float  # bytes per token
    theirs: float
    percent: float  # relative_percent(ours, theirs)
    mark: str  # verdict(percent): "better", "worse" or "same"


def compare_scores(
    ours: list[CategoryScore], theirs: list[CategoryScore], reference: str
) -> list[CategoryComparison]:
    """Our scores against a reference's, category by category (the categories both have, in
    our order)."""
    by_category = {score.category: score for score in theirs}
    rows = []
    for score in ours:
        other = by_category.get(score.category)
        if other is None:
            continue
        percent = relative_percent(score.bytes_per_token, other.bytes_per_token)
        rows.append(CategoryComparison(score.category, reference, score.bytes_per_token,
                                       other.bytes_per_token, percent, verdict(percent)))
    return rows


# -- speed ---------------------------------------------------------------------------------------


class EncodeSpeed(NamedTuple):
    """How fast ``encode_ordinary`` went: ``num_bytes`` in each of ``passes`` passes, the fastest
    pass taking ``seconds``."""

    num_bytes: int
    passes: int
    seconds: float

    @property
    def megabytes_per_second(self) -> float:
        """Decimal megabytes (10^6 bytes) per second."""
        if self.seconds <= 0:
            return math.inf
        return self.num_bytes / self.seconds / MEGABYTE

    @property
    def terabyte_seconds(self) -> float:
        """Seconds to encode a terabyte (10^12 bytes) at this speed.

        >>> EncodeSpeed(num_bytes=2_000_000, passes=3, seconds=1.0).terabyte_seconds
        500000.0
        """
        return self.seconds * TERABYTE / self.num_bytes


def cold_copy(tok: Tokenizer) -> Tokenizer:
    """A copy of ``tok`` with the same vocabulary and an empty chunk cache.

    ``encode_ordinary`` remembers the ids of every short chunk it has encoded (base.py), and a GPT
    preset is one object shared by every page and session, so its cache may already hold the
    report's words. The copy is shallow (merges and vocab are shared, read-only, never changed);
    setting its pattern, to the same pattern, gives it a new and empty cache (the pattern
    setter starts one, since a new pattern makes new chunks). The original is not touched.
    """
    fresh = copy.copy(tok)
    fresh.pattern = tok.pattern
    return fresh


def measure_speed(
    tok: Tokenizer,
    texts: Mapping[str, str],
    passes: int = SPEED_PASSES,
    clock: Callable[[], float] = time.perf_counter,
) -> EncodeSpeed:
    """Time ``encode_ordinary`` on every text, as a user would get it on text it has not seen.

    What is measured is fixed: each pass encodes all the texts once (``num_bytes`` UTF-8 bytes),
    ``passes`` times; only the time varies. Each pass starts from ``cold_copy(tok)``, so no chunk
    is remembered from an earlier pass, an earlier call or another session: timing the same
    text twice on one tokenizer would time the cache, several times faster than real encoding.
    Within a pass, a word that repeats is taken from the cache, as in any text. (A long stream
    keeps frequent words cached across documents, so encoding a terabyte may go somewhat faster
    than this; never as fast as encoding the same text again.) The fastest pass counts: the
    slower ones were slowed by something else running on the machine. ``clock`` is the timer
    (seconds); the time to copy the tokenizer is not counted.
    """
    if isinstance(passes, bool) or not isinstance(passes, int) or passes < 1:
        raise ValueError(f"passes must be a whole number of at least 1, not {passes!r}")
    pieces = list(texts.values())
    num_bytes = sum(len(text.encode("utf-8", "replace")) for text in pieces)
    if num_bytes == 0:
        raise ValueError("there is no text to time: every text is empty")
    fastest = math.inf
    for _ in range(passes):
        fresh = cold_copy(tok)
        start = clock()
        for text in pieces:
            fresh.encode_ordinary(text)
        fastest = min(fastest, clock() - start)
    return EncodeSpeed(num_bytes, passes, fastest)


# The units of a duration in words: a month is a twelfth of a year, a year 365.2425 days.
DURATION_UNITS = (
    ("second", 1.0),
    ("minute", 60.0),
    ("hour", 3_600.0),
    ("day", 86_400.0),
    ("month", 365.2425 * 86_400 / 12),
    ("year", 365.2425 * 86_400),
)


def duration_words(seconds: float) -> str:
    """A duration as a person says it: the largest unit that fits, one decimal under 10.

    >>> duration_words(3.2 * 86_400), duration_words(90), duration_words(59.99)
    ('3.2 days', '1.5 minutes', '1 minute')
    >>> duration_words(41 * 365.2425 * 86_400), duration_words(0.2)
    ('41 years', 'less than a second')
    """
    if seconds != seconds or seconds < 0:  # NaN fails every comparison, even with itself
        raise ValueError(f"a duration must be a number of seconds of at least 0, not {seconds}")
    if seconds < 1:
        return "less than a second"
    if math.isinf(seconds):
        return "forever"
    i = max(k for k, (_, size) in enumerate(DURATION_UNITS) if seconds >= size)
    while True:
        name, size = DURATION_UNITS[i]
        value = seconds / size
        shown = round(value, 1) if value < 10 else round(value)
        # 59.99 s rounds to "60 seconds": say "1 minute" instead
        if i + 1 < len(DURATION_UNITS) and shown * size >= DURATION_UNITS[i + 1][1]:
            i += 1
            continue
        break
    number = f"{shown:,.1f}".removesuffix(".0") if value < 10 else f"{shown:,}"
    return f"{number} {name}" + ("" if number == "1" else "s")


# -- was the tokenizer trained on a report text? ----------------------------------------------------


class TextOverlap(NamedTuple):
    """How much of one report text a training text contains: its lines found there."""

    category: str
    lines_found: int
    lines_checked: int  # the text's lines of at least MIN_OVERLAP_BYTES bytes (stripped)


def training_overlap(training_text: str, texts: Mapping[str, str]) -> list[TextOverlap]:
    """For each report text, how many of its lines appear word for word in ``training_text``.

    A tokenizer trained on a text compresses that text better than it compresses new text of
    the same kind, so its score there is flattering. Only lines of ``MIN_OVERLAP_BYTES`` bytes or
    more count: short ones ("return total") turn up in any text of the kind.

    >>> line = "A line long enough to say where the text came from, surely."
    >>> training_overlap("I pasted: " + line, {"prose": line + "\\nshort"})
    [TextOverlap(category='prose', lines_found=1, lines_checked=1)]
    """
    rows = []
    for category, text in texts.items():
        lines = [line.strip() for line in text.splitlines()]
        long_lines = [line for line in lines if len(line.encode("utf-8", "replace"))
                      >= MIN_OVERLAP_BYTES]
        found = sum(line in training_text for line in long_lines)
        rows.append(TextOverlap(category, found, len(long_lines)))
    return rows
