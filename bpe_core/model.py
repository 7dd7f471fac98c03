"""tiktoken's ``tiktoken.model`` under bpe_core's name: which encoding a model uses (the table,
tiktoken 0.14's, lives in pretrained.py)."""

from __future__ import annotations

from .pretrained import (
    MODEL_PREFIX_TO_ENCODING,
    MODEL_TO_ENCODING,
    encoding_for_model,
    encoding_name_for_model,
)

__all__ = ["MODEL_PREFIX_TO_ENCODING", "MODEL_TO_ENCODING", "encoding_for_model",
           "encoding_name_for_model"]
