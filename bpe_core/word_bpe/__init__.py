"""The original word BPE (Sennrich et al., 2016, as subword-nmt does it) and CLIP's tokenizer.

- ``train``: learning merges from words with an end-of-word marker (``learn_merges``, with
  subword-nmt's ``learn_bpe`` rules: the same merges in the same order);
- ``apply``: ``WordBPE``, applying them (subword-nmt's ``apply_bpe``: ``low@@ er``);
- ``clip``: ``CLIPWordBPE``, CLIP's merges file (``bpe_simple_vocab_16e6.txt.gz``) with the ids
  of transformers' ``CLIPTokenizer``.

Everything here is ``family = "word"``.
"""

from .apply import SEPARATOR, WordBPE, merge_symbols, read_codes
from .clip import CLIP_MERGES, CLIPWordBPE, clip_vocab, read_clip_merges
from .train import (
           END_OF_WORD,
           VERSION_LINE,
           codes_text,
           learn_merges,
           read_word_counts,
           word_counts,
)

__all__ = ["CLIP_MERGES", "CLIPWordBPE", "END_OF_WORD", "SEPARATOR", "clip_vocab", "merge_symbols",
           "read_clip_merges", "VERSION_LINE", "WordBPE", "codes_text", "learn_merges",
           "read_codes", "read_word_counts", "word_counts"]
