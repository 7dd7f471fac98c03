"""tiktoken's ``Encoding``, built as tiktoken builds it: a name, a split pattern, the mergeable
ranks and the special tokens (``tiktoken.core`` under bpe_core's name).

    >>> import bpe_core as tiktoken
    >>> ranks = {bytes([b]): b for b in range(256)} | {b"ab": 256}
    >>> enc = tiktoken.Encoding("toy", pat_str=r"\\w+| ", mergeable_ranks=ranks,
    ...                         special_tokens={"<|end|>": 257})
    >>> enc.encode("ab abc<|end|>", allowed_special="all")
    [256, 32, 256, 99, 257]

A rank is a token's id and its merge priority, so the merges are recovered from the ranks
(``formats.recover_merges``: which two lower-ranked tokens make each token) and encoding by
"lowest new id first" gives tiktoken's ids. What ``get_encoding`` returns is an ``Encoding``
too.
"""

from __future__ import annotations

from collections.abc import Mapping

from .formats import ranks_data
from .regex_tokenizer import RegexTokenizer
from .text import WrongTypeError, shorten


class Encoding(RegexTokenizer):
    """A tokenizer from tiktoken's four arguments (Llama-3-style code builds its tokenizer so)."""

    def __init__(
        self,
        name: str,
        *,
        pat_str: str,
        mergeable_ranks: Mapping[bytes, int],
        special_tokens: Mapping[str, int],
        explicit_n_vocab: int | None = None,
    ) -> None:
        """``mergeable_ranks``: token bytes -> rank, all 256 single bytes among them;
        ``special_tokens``: text -> id; ``explicit_n_vocab``, when given, must be the number of
        tokens and the largest id + 1 (ValueError otherwise, where tiktoken asserts)."""
        if not isinstance(name, str):
            raise WrongTypeError(f"the encoding's name must be a str, not {shorten(name)}")
        for what, value in (("mergeable_ranks", mergeable_ranks),
                            ("special_tokens", special_tokens)):
            if not isinstance(value, Mapping):
                raise WrongTypeError(f"{what} must be a dict, not {type(value).__name__}")
        ranks = dict(mergeable_ranks)
        bad = next((k for k, v in ranks.items() if not isinstance(k, bytes)
                    or isinstance(v, bool) or not isinstance(v, int)), None)
        if bad is not None:
            raise WrongTypeError(f"mergeable_ranks maps token bytes to int ranks;"
                                 f" {shorten(bad)} -> {shorten(ranks[bad])} is not such an entry")
        specials = dict(special_tokens)
        if explicit_n_vocab:
            largest = max([*ranks.values(), *specials.values()], default=-1)
            if len(ranks) + len(specials) != explicit_n_vocab or largest != explicit_n_vocab - 1:
                raise ValueError(
                    f"{name}: explicit_n_vocab is {explicit_n_vocab}, but there are"
                    f" {len(ranks):,} ranks and {len(specials)} special tokens, the largest"
                    f" id {largest}")
        data = ranks_data(ranks, pat_str, specials, name)
        try:
            super().__init__(data.pattern, merges=data.merges, byte_ids=data.byte_ids,
                             special_tokens=data.special_tokens, name=name, title=name)
        except ValueError as e:
            raise ValueError(f"{name}: {e}") from None

    def __repr__(self) -> str:
        return f"<Encoding {self.name!r}>"
