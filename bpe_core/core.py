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

tiktoken also builds ranks where a token is not the last merge of lower ranks (``ab``, ``bc``,
``cd``, then ``abcd``): it merges the adjacent pair whose joined bytes rank lowest
(``merges.rank_parts``). Such ranks give a ``RankedEncoding``, which merges that way: the same
ids as tiktoken's, without the merges that stepping through, BPE-dropout and the other file
formats need (they refuse it, saying so).
"""

from __future__ import annotations

from collections.abc import Mapping

from .formats import NotMergedError, ranks_data
from .merges import rank_parts
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
        ranked = None
        try:
            data = ranks_data(ranks, pat_str, specials, name)
        except NotMergedError:  # tiktoken merges these by the rank of the joined bytes
            ranked = ranks
            data = ranks_data({bytes([b]): ranks[bytes([b])] for b in range(256)}, pat_str,
                              specials, name)
        try:
            super().__init__(data.pattern, merges=data.merges, byte_ids=data.byte_ids,
                             special_tokens=None if ranked else data.special_tokens, name=name,
                             title=name)
            if ranked is not None:  # every rank a token, then the special tokens beside them
                object.__setattr__(self, "__class__", RankedEncoding)
                self.token_ranks = ranked
                self.vocab.update((rank, token) for token, rank in ranked.items())
                self.register_special_tokens(data.special_tokens)
        except ValueError as e:
            raise ValueError(f"{name}: {e}") from None

    def __repr__(self) -> str:
        return f"<Encoding {self.name!r}>"


NO_MERGES = ("has none: its ranks are not all the last merge of two lower-ranked tokens, and"
             " tiktoken merges such ranks by the rank of the joined bytes, as encode does here"
             " (no list of merges says that)")


class RankedEncoding(Encoding):
    """An ``Encoding`` of ranks where some token is not the last merge of lower ranks: each
    piece is a whole token when it is one, else merged by the rank of the joined bytes, lowest
    first, as tiktoken's ``_byte_pair_merge`` does. ``merges`` is empty: what needs the merges
    (``step_through``, ``trace``, BPE-dropout, saving as .model, tokenizer.json or GPT-2's files)
    refuses it with a message that says why; ``save_tiktoken`` writes the ranks as they are."""

    token_ranks: dict[bytes, int]  # the ranks, as given
    ranked = True  # formats.py: no merges to write

    @property
    def token_ids(self) -> dict[bytes, int]:
        return self.token_ranks

    def _merge_chunk(self, chunk: str) -> list[int]:
        return self._merge_bytes(chunk.encode("utf-8"))

    def _merge_bytes(self, data: bytes) -> list[int]:
        ranks = self.token_ranks
        whole = ranks.get(data)
        if whole is not None:
            return [whole]
        return [ranks[part] for part in rank_parts(data, ranks)]

    def _refuse(self, what: str) -> ValueError:
        return ValueError(f"{what} needs the merges, and the encoding {self.name!r} {NO_MERGES}")

    def encode(self, text: str, allowed_special: object = "none_raise",
               disallowed_special: object = "all", *, dropout: float = 0.0,
               seed: int | None = None) -> list[int]:
        if dropout:
            raise self._refuse("BPE-dropout")
        return super().encode(text, allowed_special, disallowed_special)

    def step_through(self, text: str, allowed_special: object = "none_raise") -> object:
        raise self._refuse("stepping through the merges")

    def trace(self, text: str) -> object:
        raise self._refuse("tracing the merges")

    def train(self, *args: object, **kwargs: object) -> None:
        raise self._refuse("training")

    def load(self, model_file: str) -> None:
        raise self._refuse("loading a .model file")
