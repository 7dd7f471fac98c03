"""tiktoken's ``tiktoken.model`` under bpe_core's name: which encoding a model uses (the table,
tiktoken 0.14's, lives in pretrained.py)."""

from __future__ import annotations

from .core import Encoding
from .pretrained import MODEL_PREFIX_TO_ENCODING, MODEL_TO_ENCODING, encoding_name_for_model
from .registry import get_encoding

__all__ = ["MODEL_PREFIX_TO_ENCODING", "MODEL_TO_ENCODING", "encoding_for_model",
           "encoding_name_for_model"]


def encoding_for_model(model_name: str) -> Encoding:
    """tiktoken's ``encoding_for_model``: ``encoding_for_model("gpt-4o")`` is
    ``get_encoding("o200k_base")``; gpt-oss models give ``"o200k_harmony"``."""
    return get_encoding(encoding_name_for_model(model_name))
