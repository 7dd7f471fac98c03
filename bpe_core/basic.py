"""BasicTokenizer: byte-level BPE on the whole text, with no split (the seeds' first tokenizer)."""

from __future__ import annotations

from .base import Tokenizer


class BasicTokenizer(Tokenizer):
    """BPE over the raw bytes of the text: merges may cross spaces, words and punctuation.

    >>> tok = BasicTokenizer()
    >>> tok.train("aaabdaaabac", 259)
    >>> tok.merges
    {(97, 97): 256, (256, 97): 257, (257, 98): 258}
    >>> tok.encode("aaabdaaabac")
    [258, 100, 258, 97, 99]
    """

    splits = False

    def __init__(self, **data) -> None:
        """``BasicTokenizer()``; a loader gives the keyword data ``Tokenizer`` takes."""
        super().__init__("", **data)
