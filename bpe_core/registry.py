"""tiktoken's ``tiktoken.registry`` under bpe_core's name: the encodings by name (they live in
pretrained.py, which reads and checks the shipped files)."""

from __future__ import annotations

from .pretrained import get_encoding, list_encoding_names

__all__ = ["get_encoding", "list_encoding_names"]
