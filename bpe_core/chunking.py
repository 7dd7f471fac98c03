"""How a tokenizer cuts text before BPE: its split pattern, a tokenizer file's pipeline, and the
budget that work runs in (limits/budget.py). ``SplitMethods`` is a part of ``Tokenizer``
(base.py), kept here because where the work runs (here or in a worker process) is its own
concern: a built-in pattern is split in-process; a pattern a user typed, and a file's regexes
and added tokens, run in a worker whenever a budget applies.
"""

from __future__ import annotations

import time
from dataclasses import replace

from .limits.budget import Budget, BudgetExceeded, budget_for, run_bounded
from .pipeline import MAX_ADDED_HERE, PIPELINE_FIX, AddedToken, find_added
from .pipeline_json import spec_of
from .split import BUILT_IN_PATTERNS, compile_pattern, split_by_pattern, time_left
from .text import WrongTypeError, clean_text


def _check_text(text: object, what: str = "text") -> str:
    if not isinstance(text, str):
        hint = " (decode bytes first, e.g. data.decode('utf-8'))" if isinstance(
            text, bytes | bytearray
        ) else ""
        raise WrongTypeError(f"{what} must be a str, not {type(text).__name__}{hint}")
    return text



def find_added_here(tokens: dict[str, AddedToken], text: str) -> list[tuple[str, int | None]]:
    """``find_added`` in a worker process, the tokens kept there between calls."""
    return find_added(text, tokens)


class SplitMethods:
    """The split of ``Tokenizer``: ``pattern``, ``split``, ``chunks``, ``budget``. The tokenizer
    sets ``timeout``, ``from_file``, ``pipeline`` and gives ``segments`` and
    ``_allowed_specials``."""

    # -- the split ---------------------------------------------------------------------------

    @property
    def pattern(self) -> str:
        return self._pattern

    @pattern.setter
    def pattern(self, pattern: str) -> None:
        pattern = _check_text(pattern, "the split pattern")
        compiled = compile_pattern(pattern)
        self._pattern = pattern
        self.compiled_pattern = compiled
        self._cache: dict[str, list[int]] = {}

    def split(self, text: str, *, deadline: float | None = None) -> list[str]:
        """The chunks that merges stay inside, in order; ``"".join(chunks) == text``.

        Text the pattern does not match is kept as a chunk of its own (minbpe would drop it),
        so that decoding always gives the text back. With a ``timeout``, the split must end
        within it (or by ``deadline``, a ``time.monotonic()`` value shared by several splits).
        """
        text = _check_text(text)
        if self.compiled_pattern is None and (self.pipeline is None
                                              or self.pipeline.pre_tokenizer is None):
            return [text] if text else []
        if deadline is None and self.timeout is not None:
            deadline = time.monotonic() + self.timeout
        remaining = time_left(deadline)
        budget = self.budget()
        try:
            if self.pipeline is not None and self.pipeline.pre_tokenizer is not None:
                if budget is not None:  # a file's regexes: in a worker, as chunks() runs them
                    return [chunk for chunk, _ in self._pieces_bounded(text, {}, budget, deadline,
                                                                       split_only=True)]
                return self.pipeline.pre_tokenize(text, remaining)
            return split_by_pattern(self.compiled_pattern, text, remaining, budget=budget)
        except BudgetExceeded:
            raise
        except TimeoutError as e:
            raise ValueError(
                f"the split pattern took longer than {self.timeout} s on this text;"
                " simplify the pattern (nested repeats such as (a+)+ backtrack badly)"
            ) from e

    def chunks(
        self, text: str, allowed_special: object = "none_raise", disallowed_special: object = "all"
    ) -> list[tuple[str, int | None]]:
        """The text as the encoder cuts it: ``[(chunk, special id or None), ...]``, in order.

        Allowed special tokens are chunks of their own; the text between them is cut by the
        split pattern. The ``timeout`` bounds the splitting of the whole text, however many
        special tokens cut it. A tokenizer with a ``pipeline`` (from a tokenizer.json) also
        normalizes the text and matches its added tokens here, so the chunks are the text
        as BPE sees it.
        """
        deadline = None if self.timeout is None else time.monotonic() + self.timeout
        if self.pipeline is not None:
            text = clean_text(_check_text(text))
            allowed = self._allowed_specials(text, allowed_special, disallowed_special)
            budget = self.budget()
            try:
                if budget is not None and (self.pipeline.untrusted
                                           or self._pattern not in BUILT_IN_PATTERNS):
                    return self._pieces_bounded(text, allowed, budget, deadline)
                return self.pipeline.pieces(text, allowed, self.split, deadline)
            except BudgetExceeded:
                raise
            except TimeoutError as e:
                raise ValueError(
                    f"the normalizer and the split took longer than {self.timeout} s on this"
                    " text; a pattern of the tokenizer's file backtracks badly (nested repeats"
                    " such as (a+)+)"
                ) from e
        out: list[tuple[str, int | None]] = []
        for piece, special_id in self.segments(text, allowed_special, disallowed_special):
            if special_id is None:
                out += [(chunk, None) for chunk in self.split(piece, deadline=deadline)]
            else:
                out.append((piece, special_id))
        return out

    def budget(self) -> Budget | None:
        """The budget its splits run in (``limits.budget_for``): its ``timeout``, the process's
        policy, or for a tokenizer read from a file the file budget; None: in-process."""
        return budget_for(self.timeout, from_file=self.from_file)

    def _pieces_bounded(self, text: str, allowed: dict[str, int], budget: Budget,
                        deadline: float | None, split_only: bool = False
                        ) -> list[tuple[str, int | None]]:
        """``pipeline.pieces`` (or with ``split_only``, the pre-tokenizer alone) in a worker
        process within ``budget``: a tokenizer file's normalizer, added tokens and split."""
        if deadline is not None:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError
            budget = replace(budget, seconds=min(budget.seconds, left))
        spec = spec_of(self.pipeline, self._pattern)
        return run_bounded("bpe_core.pipeline_json:pieces_here", (text, allowed, split_only), budget,
                           what="the tokenizer file's normalizer, added tokens and split",
                           fix=PIPELINE_FIX, shared=(spec.key, spec))

    def _find_specials(self, text: str, special: dict[str, int]) -> list[tuple[str, int | None]]:
        """``text`` cut at the ``special`` tokens (content -> id), leftmost-longest. More than
        ``MAX_ADDED_HERE`` of them (a file may list thousands that overlap, whose one regex
        takes minutes and gigabytes to compile) are matched in a worker within the budget."""
        tokens = {s: AddedToken(s, idx) for s, idx in special.items()}
        budget = self.budget() if len(tokens) > MAX_ADDED_HERE else None
        if budget is None:
            return find_added(text, tokens)
        return run_bounded("bpe_core.chunking:find_added_here", (text,), budget,
                           what="matching the special tokens", fix="the tokenizer has too many"
                           " special tokens that overlap to match; allow fewer of them",
                           shared=(f"specials-{hash(frozenset(special.items()))}", tokens))
