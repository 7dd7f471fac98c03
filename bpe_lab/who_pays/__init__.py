"""Who pays for tokens: the analyses behind the app's last four pages, for any tokenizer.

``languages.py`` (a parallel text in 33 languages and scripts), ``costs.py`` (the language tax),
``numbers.py`` (what numbers cost; digit split rules), ``health.py`` (tokens that are half a
character, unreachable, never used or only stepping stones) and ``report.py`` (bytes per token on
five kinds of text, and encoding speed). Their texts ship in ``data/``.
"""

from .costs import language_costs, measure_text, train_comparison
from .health import classify_tokens, vocabulary_defects, vocabulary_health
from .languages import Language, load_parallel
from .numbers import number_facts, train_digit_presets
from .report import load_report_texts, measure_speed, score_texts

__all__ = [
    "Language",
    "classify_tokens",
    "language_costs",
    "load_parallel",
    "load_report_texts",
    "measure_speed",
    "measure_text",
    "number_facts",
    "score_texts",
    "train_comparison",
    "train_digit_presets",
    "vocabulary_defects",
    "vocabulary_health",
]
