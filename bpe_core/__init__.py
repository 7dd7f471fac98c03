"""bpe_core: byte-level BPE tokenizers in plain Python (stdlib + ``regex``).

    >>> from bpe_core import RegexTokenizer
    >>> tok = RegexTokenizer()                 # the GPT-4 split pattern
    >>> tok.train("hello hello world", 260)
    >>> tok.decode(tok.encode("hello world"))
    'hello world'

Read it in this order: ``merges.py`` (the seeds' helpers and merging by rank), ``base.py``
(the tokenizer: split, encode, decode; it inherits tiktoken's names and special-token rule from
``tiktoken_api.py`` and its ``save`` methods from ``saving.py``; ``words.py`` cuts text into words
for the GPT patterns' fast path), ``encoders.py`` (the same vocabulary used other ways:
BPE-dropout, greedy longest match, fewest tokens), ``training.py`` (the fast trainer with the
seeds' exact merges), ``superbpe.py``, ``boundless.py`` and ``parity.py`` (trainers beyond the
textbook: superword tokens, two ways, and merges fair across languages), ``split.py`` (where text is cut before
counting), ``corpus.py`` (training on files of any size, counted on every core), ``steps.py``
(tokens after k merges), ``pipeline.py`` (what a tokenizer.json does before BPE, read from the file by
``pipeline_json.py``; its regexes read
by ``oniguruma.py`` with ``unicode_gap.py``, its decoder by ``decoders.py``), ``formats.py``
(the file formats as plain data), ``files.py`` (loading, with ``sidecar.py``: what a saved file cannot hold, beside it),
``pretrained.py`` (the GPT vocabularies that ship inside), ``word_bpe/`` (the original word
BPE: subword-nmt's merges and segmentation, CLIP's merges file), ``tekken.py`` (Mistral's
tekken.json) with ``family_files.py`` (how the loader tells those files apart, and names a
file it does not read), ``chat.py`` with ``chat_format.py``
(conversations as the models read them), and ``core.py``, ``load.py``, ``registry.py`` and
``model.py`` (tiktoken's modules, so that ``import bpe_core as tiktoken`` is enough).
``sentencepiece/`` is the other family, SentencePiece-style BPE (Llama 2's): its model, its
``tokenizer.model`` and its tokenizer.json. Every bound
on what a user or a file controls is in ``limits.py``. No module imports one that imports it.

This is the library alone. The lab's analyses, the checker of a learner's merges
(``bpe_lab.check``) and who pays for tokens (``bpe_lab.who_pays``: the language tax, numbers,
vocabulary health, the report card), live beside it in ``bpe_lab`` with the command line, so
``import bpe_core`` loads none of them.
"""

import importlib.abc
import sys

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
from .core import Encoding
from .corpus import CorpusError, PieceCounts, count_pieces
from .encoders import (
    EncoderVariants,
    dropout_merges,
    encode_variants,
    encode_with,
    fewest_tokens,
    greedy_longest,
)
from .files import detect_format, read_tokenizer
from .model import encoding_for_model
from .patterns import DIGIT_PRESETS, GPT2_SPLIT_PATTERN, GPT4_SPLIT_PATTERN, GPT4O_SPLIT_PATTERN
from .pretrained import PRESETS, encoding_name_for_model, load_pretrained
from .regex_tokenizer import RegexTokenizer
from .registry import get_encoding, list_encoding_names
from .sentencepiece import SentencePieceBPE, train_sentencepiece
from .sentencepiece import read_model as read_sentencepiece_model
from .sentencepiece import to_model_file as to_sentencepiece_model
from .sentencepiece.hf_json import parse_hf_sentencepiece, to_hf_sentencepiece_json
from .steps import StepThrough, TokenSpan
from .tekken import TekkenTokenizer, read_tekken
from .training import MergeRecord, train_bpe
from .word_bpe import CLIPWordBPE, WordBPE  # the word-BPE family (subword-nmt's, CLIP's)

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
    "DIGIT_PRESETS",
    "count_pieces",
    "CorpusError",
    "PieceCounts",
    "get_encoding",
    "encoding_for_model",
    "encoding_name_for_model",
    "list_encoding_names",
    "SentencePieceBPE",
    "read_sentencepiece_model",
    "to_sentencepiece_model",
    "train_sentencepiece",
    "parse_hf_sentencepiece",
    "to_hf_sentencepiece_json",
    "WordBPE",
    "CLIPWordBPE",
    "TekkenTokenizer",
    "read_tekken",
]


# Names that lived here until the lab's analyses left the library (docs/CHANGELOG.md): asking for
# one says where it is now, instead of Python's bare "has no attribute".
MOVED = {
    **dict.fromkeys(("check", "MISTAKES", "CheckReport", "Diagnosis", "LearnerOutput",
                     "MergeComparison", "Mistake", "StepExplanation", "check_merges",
                     "compare_merges", "diagnose", "diagnose_encoding", "explain_difference",
                     "read_merges", "zoo_demo"), "bpe_lab.check"),
    **dict.fromkeys(("costs", "numbers", "health", "report", "languages", "language_costs",
                     "measure_text", "train_comparison", "classify_tokens",
                     "vocabulary_defects", "vocabulary_health", "Language", "load_parallel",
                     "number_facts", "train_digit_presets", "load_report_texts",
                     "measure_speed", "score_texts"), "bpe_lab.who_pays"),
}


def moved_message(name: str) -> str | None:
    """Where a name or module that left bpe_core lives now, as a sentence with the import to
    write; None for anything else. ``name`` is ``check``, ``language_costs``, ``check.reading``."""
    head = name.split(".")[0]
    if head not in MOVED:
        return None
    place = MOVED[head]
    if "." in name or head in ("check", "costs", "numbers", "health", "report", "languages"):
        now = ("bpe_lab." if head == "check" else "bpe_lab.who_pays.") + name
        parent, _, last = now.rpartition(".")
        how = f"from {parent} import {last}"
    else:
        now, how = f"{place}.{name}", f"from {place} import {name}"
    return (f"bpe_core.{name} moved to {now} when the lab's analyses left the library "
            f"(docs/CHANGELOG.md): {how}")


def __getattr__(name: str) -> object:
    # An ImportError, not an AttributeError: ``from bpe_core import check`` would replace an
    # AttributeError's words with Python's own "cannot import name".
    message = moved_message(name)
    if message:
        raise ImportError(message, name=f"bpe_core.{name}")
    raise AttributeError(f"module 'bpe_core' has no attribute {name!r}")


class _MovedModules(importlib.abc.MetaPathFinder):
    """``import bpe_core.check`` (or ``.costs`` ...) fails naming the new place; consulted only
    after every real finder has found nothing."""

    def find_spec(self, fullname: str, path: object, target: object = None) -> None:
        if fullname.startswith("bpe_core."):
            message = moved_message(fullname.removeprefix("bpe_core."))
            if message:
                raise ModuleNotFoundError(message, name=fullname)
        return None


if not any(isinstance(f, _MovedModules) for f in sys.meta_path):
    sys.meta_path.append(_MovedModules())
