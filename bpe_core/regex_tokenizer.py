"""RegexTokenizer: split the text with a pattern first, then BPE inside each chunk (GPT-2 onwards)."""

from __future__ import annotations

from .base import Tokenizer
from .patterns import GPT4_SPLIT_PATTERN


class RegexTokenizer(Tokenizer):
    """BPE inside the chunks of a split pattern (default: GPT-4's), so merges never cross them.

    >>> tok = RegexTokenizer()
    >>> tok.split("Hello world!!! 123456")
    ['Hello', ' world', '!!!', ' ', '123', '456']
    """

    def __init__(self, pattern: str | None = None, **data) -> None:
        """``RegexTokenizer(pattern, timeout=None)``; a loader gives the keyword data
        ``Tokenizer`` takes (merges, byte ids, special tokens, name, title)."""
        super().__init__(GPT4_SPLIT_PATTERN if pattern is None else pattern, **data)
