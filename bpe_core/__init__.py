"""bpe_core: byte-level BPE tokenizers in plain Python (stdlib + ``regex``).

    >>> from bpe_core import RegexTokenizer
    >>> tok = RegexTokenizer()                 # the GPT-4 split pattern
    >>> tok.train("hello hello world", 260)
    >>> tok.decode(tok.encode("hello world"))
    'hello world'

Read it in this order: ``merges.py`` (the seeds' helpers and merging by rank), ``base.py``
(the tokenizer: split, encode, decode; it inherits tiktoken's names and special-token rule from
``tiktoken_api.py`` and its ``save`` methods from ``saving.py``), ``encoders.py`` (the same vocabulary used other ways:
BPE-dropout, greedy longest match, fewest tokens), ``training.py`` (the fast trainer with the
seeds' exact merges), ``split.py`` (where text is cut before counting), ``corpus.py``
(training on files of any size, counted on every core), ``steps.py`` (tokens after k merges),
``pipeline.py`` (what a tokenizer.json does before BPE; its regexes read by ``oniguruma.py``, its
decoder by ``decoders.py``), ``formats.py`` (the file formats as plain data), ``files.py``
(loading, with ``sidecar.py``: what a saved file cannot hold, beside it) and ``check/`` (a
learner's own merges checked against the reference, with the known
mistake that explains them). Then who pays for tokens: ``languages.py`` (a parallel text in 33 languages and
scripts), ``costs.py`` (the language tax), ``numbers.py`` (what numbers cost; digit split rules),
``health.py`` (tokens that are half a character, unreachable, never used or only stepping
stones) and ``report.py`` (bytes per token on five kinds of text, and encoding speed). No module
imports one that imports it.
"""

__version__ = "0.1.0"  # the package's version (pyproject.toml reads it from here)

from . import core, load, model, registry  # tiktoken's submodules (load: also callable)
from .base import (
    EncodeTrace,
    Tokenizer,
    TraceStep,
    clean_text,
    get_stats,
    merge,
    render_token,
    trace_merges,
)
from .basic import BasicTokenizer
from .check import (
    MISTAKES,
    CheckReport,
    Diagnosis,
    LearnerOutput,
    MergeComparison,
    Mistake,
    StepExplanation,
    check_merges,
    compare_merges,
    diagnose,
    diagnose_encoding,
    explain_difference,
    read_merges,
    zoo_demo,
)
from .core import Encoding
from .corpus import CorpusError, PieceCounts, count_pieces
from .costs import language_costs, measure_text, train_comparison
from .encoders import (
    EncoderVariants,
    dropout_merges,
    encode_variants,
    encode_with,
    fewest_tokens,
    greedy_longest,
)
from .files import detect_format, read_tokenizer
from .health import classify_tokens, vocabulary_defects, vocabulary_health
from .languages import Language, load_parallel
from .numbers import number_facts, train_digit_presets
from .patterns import DIGIT_PRESETS, GPT2_SPLIT_PATTERN, GPT4_SPLIT_PATTERN, GPT4O_SPLIT_PATTERN
from .pretrained import (
    PRESETS,
    encoding_for_model,
    encoding_name_for_model,
    get_encoding,
    list_encoding_names,
    load_pretrained,
)
from .regex_tokenizer import RegexTokenizer
from .report import load_report_texts, measure_speed, score_texts
from .steps import StepThrough, TokenSpan
from .training import MergeRecord, train_bpe

__all__ = [
    "__version__",
    "BasicTokenizer",
    "Encoding",
    "core",
    "model",
    "registry",
    "GPT2_SPLIT_PATTERN",
    "GPT4O_SPLIT_PATTERN",
    "GPT4_SPLIT_PATTERN",
    "MergeRecord",
    "RegexTokenizer",
    "StepThrough",
    "TokenSpan",
    "Tokenizer",
    "clean_text",
    "get_stats",
    "load",
    "read_tokenizer",
    "detect_format",
    "load_pretrained",
    "PRESETS",
    "merge",
    "render_token",
    "train_bpe",
    "EncodeTrace",
    "TraceStep",
    "trace_merges",
    "EncoderVariants",
    "dropout_merges",
    "encode_variants",
    "encode_with",
    "fewest_tokens",
    "greedy_longest",
    "MISTAKES",
    "CheckReport",
    "Diagnosis",
    "LearnerOutput",
    "MergeComparison",
    "Mistake",
    "StepExplanation",
    "check_merges",
    "compare_merges",
    "diagnose",
    "diagnose_encoding",
    "explain_difference",
    "read_merges",
    "zoo_demo",
    "Language",
    "load_parallel",
    "measure_text",
    "language_costs",
    "train_comparison",
    "DIGIT_PRESETS",
    "number_facts",
    "train_digit_presets",
    "classify_tokens",
    "vocabulary_defects",
    "vocabulary_health",
    "load_report_texts",
    "score_texts",
    "measure_speed",
    "count_pieces",
    "CorpusError",
    "PieceCounts",
    "get_encoding",
    "encoding_for_model",
    "encoding_name_for_model",
    "list_encoding_names",
]
