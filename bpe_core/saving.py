"""Saving a tokenizer in every format (``bpe_core.load`` and ``Tokenizer.load`` read them back).

``Tokenizer`` (base.py) inherits ``FileMethods``; the formats themselves are plain data in
formats.py, and what a file cannot hold goes beside it (sidecar.py).
"""

from __future__ import annotations

import os


class FileMethods:
    """``save`` (minbpe's), ``save_hf``, ``save_tiktoken``, ``save_gpt2`` (mixed into
    base.Tokenizer)."""

    def save(self, file_prefix: str) -> None:
        """Write ``file_prefix.model`` (minbpe's format) and ``file_prefix.vocab`` (readable).

        A tokenizer with a training ``history`` also gets ``file_prefix.model.bpe-lab.json``
        (sidecar.py), so that ``bpe_core.load`` gives the history back.
        """
        from .formats import to_minbpe
        from .sidecar import write_atomic, write_with_sidecar

        model_text, vocab_text = to_minbpe(self)
        prefix = os.fspath(file_prefix)
        write_atomic(prefix + ".vocab", vocab_text.encode("utf-8"))
        write_with_sidecar("minbpe", self, {"file": (prefix + ".model", model_text.encode("utf-8"))},
                           needed=False)

    def save_hf(self, path: str) -> None:
        """Write a Hugging Face ``tokenizer.json`` (``tokenizers.Tokenizer.from_file`` reads it).

        When the file is named ``tokenizer.json``, ``tokenizer_config.json`` and
        ``special_tokens_map.json`` are written beside it (replacing those files there), so that
        ``transformers.AutoTokenizer.from_pretrained(folder)`` gives the same ids and knows the
        end-of-text token. A tokenizer with a training ``history`` also gets
        ``path + ".bpe-lab.json"`` (sidecar.py).
        """
        from .formats import to_hf_json, to_transformers_files
        from .sidecar import write_atomic, write_with_sidecar

        path = os.fspath(path)
        document = to_hf_json(self).encode("utf-8")
        if os.path.basename(path) == "tokenizer.json":
            config, special_map = to_transformers_files(self)
            folder = os.path.dirname(path)
            write_atomic(os.path.join(folder, "tokenizer_config.json"), config.encode("utf-8"))
            write_atomic(os.path.join(folder, "special_tokens_map.json"),
                         special_map.encode("utf-8"))
        write_with_sidecar("hf", self, {"file": (path, document)}, needed=False)

    def save_tiktoken(self, path: str) -> None:
        """Write tiktoken ranks (``tiktoken.load.load_tiktoken_bpe`` reads them) and, beside them,
        ``path + ".bpe-lab.json"`` with the split pattern, the special tokens and the history,
        which the ranks cannot hold (``bpe_core.load`` reads it). ``formats.tiktoken_encoding(self)``
        gives all of ``tiktoken.Encoding``'s arguments, the pattern spelled for tiktoken's engine."""
        from .formats import to_tiktoken
        from .sidecar import write_with_sidecar

        write_with_sidecar("tiktoken", self, {"file": (os.fspath(path), to_tiktoken(self))},
                           needed=True)

    def save_gpt2(self, vocab_path: str, merges_path: str) -> None:
        """Write GPT-2 style ``vocab.json`` and ``merges.txt`` and, beside the vocab.json,
        ``vocab_path + ".bpe-lab.json"`` with the split pattern, the special tokens and the
        history, which the pair cannot hold (``bpe_core.load`` reads it)."""
        from .formats import to_gpt2_files
        from .sidecar import write_with_sidecar

        vocab_text, merges_text = to_gpt2_files(self)
        write_with_sidecar("gpt2", self, {"vocab": (os.fspath(vocab_path), vocab_text.encode("utf-8")),
                                          "merges": (os.fspath(merges_path),
                                                     merges_text.encode("utf-8"))},
                           needed=True)
