"""SentencePiece-style BPE (Llama 2, Mistral 7B, Gemma): pieces over Unicode characters, ``▁``
for a space, ``<0xE4>`` byte fallback, scores.

- ``model.py``: ``SentencePieceBPE`` (``from_pieces``, encode, decode), ``read_model`` and
  ``to_model_file`` for sentencepiece's ``tokenizer.model``;
- ``proto.py``: the protobuf wire format of that file, read and written by hand;
- ``hf_json.py``: Hugging Face's ``tokenizer.json`` of this shape (Llama 2's), read with
  ``tokenizers``' ids and written back.

- ``train.py`` and ``merge_steps.py``: ``train_pieces``, the pieces, scores and types that
  sentencepiece's BPE trainer makes from the same text and options (docs/SENTENCEPIECE_TRAINING.md),
  and ``train_sentencepiece``, the trained ``SentencePieceBPE`` (the two joined).
"""

from .model import SentencePieceBPE, byte_piece, piece_byte, read_model, to_model_file
from .proto import BYTE, CONTROL, NORMAL, UNKNOWN, UNUSED, USER_DEFINED, looks_like_model
from .train import train_sentencepiece

__all__ = ["BYTE", "CONTROL", "NORMAL", "UNKNOWN", "UNUSED", "USER_DEFINED", "SentencePieceBPE",
           "byte_piece", "looks_like_model", "piece_byte", "read_model", "to_model_file",
           "train_sentencepiece"]
