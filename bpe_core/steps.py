"""Step through the merges: a text's tokens after only the first k merges, for any k.

Encoding applies merges in rank order, and every merge of a token happens after the merges that
made its two parts. So the tokens after k merges are found by taking the fully encoded text and
splitting every token made by a merge later than k back into its two parents, and so on down
(the "forest" of merges, cut at step k). No re-encoding is needed when a slider moves.
"""

from __future__ import annotations

import copy
from array import array
from bisect import bisect_right
from itertools import accumulate
from typing import Any, NamedTuple

NEVER = 2**32 - 1  # melt_steps: a boundary that no merge joins


class TokenSpan(NamedTuple):
    """One token of a text, with where it sits in the text's bytes and characters."""

    id: int
    token: bytes
    byte_start: int
    byte_end: int  # exclusive
    char_start: int
    char_end: int  # exclusive: the characters the token touches
    partial: bool  # the token starts or ends inside a multi-byte UTF-8 character
    new: bool  # made by the last merge applied (merge number k at step k)
    special: bool  # a special token such as <|endoftext|>


def _utf8_length(ch: str) -> int:
    cp = ord(ch)
    return 1 if cp < 0x80 else 2 if cp < 0x800 else 3 if cp < 0x10000 else 4


class StepThrough:
    """A text encoded once, ready to show its tokens at any step ``0..num_merges``.

    >>> from bpe_core import BasicTokenizer
    >>> tok = BasicTokenizer()
    >>> tok.train("aaabdaaabac", 259)
    >>> steps = tok.step_through("aaabdaaabac")
    >>> [t.token for t in steps.tokens_at(1)]
    [b'aa', b'a', b'b', b'd', b'aa', b'a', b'b', b'a', b'c']
    >>> steps.token_counts()
    [11, 9, 7, 5]
    """

    def __init__(self, tokenizer: Any, text: str, allowed_special: object = "none_raise"):
        self.tokenizer = tokenizer
        self.num_merges = tokenizer.num_merges
        self.final: list[int] = []  # the fully encoded text
        self.special: list[bool] = []
        chunks = tokenizer.chunks(text, allowed_special)
        self.text = "".join(chunk for chunk, _ in chunks)  # lone surrogates already replaced
        encode_chunk = tokenizer.encode_chunk
        for chunk, special_id in chunks:
            if special_id is None:
                ids = encode_chunk(chunk)
                self.final += ids
                self.special += [False] * len(ids)
            else:
                self.final.append(special_id)
                self.special.append(True)
        vocab = tokenizer.vocab
        # byte offsets, as an array: 8 bytes a token rather than a Python int's 36
        self.starts = array("q", accumulate((len(vocab[t]) for t in self.final), initial=0))
        self.num_bytes = self.starts[-1]
        # char_of[b]: the character that byte b belongs to (b == num_bytes: one past the end)
        if self.text.isascii():
            self.char_of = range(self.num_bytes + 1)
        else:
            self.char_of = array("q", (c for c, ch in enumerate(self.text)
                                       for _ in range(_utf8_length(ch))))
            self.char_of.append(len(self.text))

    def head(self, max_bytes: int) -> StepThrough:
        """The same text cut after the last full token that ends within ``max_bytes`` bytes.

        Its ``tokens_at(k)`` are exactly the first tokens of this one's at every step k (every
        token at any step lies inside one token of the full encoding), so a page can draw the
        start of a long text cheaply. ``head(n).num_bytes`` says how many bytes it kept.
        """
        m = bisect_right(self.starts, max_bytes) - 1  # full tokens that end by max_bytes
        if m >= len(self.final):
            return self
        view = copy.copy(self)
        view.final = self.final[:m]
        view.special = self.special[:m]
        view.starts = self.starts[: m + 1]
        view.num_bytes = self.starts[m]
        view.text = self.text[: self.char_of[view.num_bytes]]
        return view

    def _is_boundary(self, b: int) -> bool:
        last = len(self.char_of) - 1  # the whole text's byte length, also in a head()
        return b == 0 or b >= last or self.char_of[b] != self.char_of[b - 1]

    def token_ids_at(self, k: int) -> list[int]:
        """Only the ids of the tokens at step ``k`` (cheaper than ``tokens_at``)."""
        return [t for t, _, _ in self._cut(k)]

    def _cut(self, k: int) -> list[tuple[int, int, bool]]:
        """``(id, byte start, special)`` of every token after the first ``k`` merges."""
        if not isinstance(k, int) or not 0 <= k <= self.num_merges:
            raise ValueError(f"step must be a whole number from 0 to {self.num_merges}, not {k!r}")
        step_of = self.tokenizer.step_of
        parents = self.tokenizer.parents
        vocab = self.tokenizer.vocab
        out: list[tuple[int, int, bool]] = []
        for t, start, special in zip(self.final, self.starts, self.special):
            if special or step_of.get(t, 0) <= k:
                out.append((t, start, special))
                continue
            stack = [t]  # split t until every part was made by merge k or earlier
            while stack:
                u = stack.pop()
                if step_of.get(u, 0) <= k:
                    out.append((u, start, False))
                    start += len(vocab[u])
                else:
                    a, b = parents[u]
                    stack.append(b)
                    stack.append(a)
        return out

    def tokens_at(self, k: int) -> list[TokenSpan]:
        """The text's tokens after the first ``k`` merges (``k = num_merges``: the full encoding)."""
        vocab = self.tokenizer.vocab
        step_of = self.tokenizer.step_of
        char_of = self.char_of
        boundary = self._is_boundary
        spans = []
        for t, start, special in self._cut(k):
            end = start + len(vocab[t])
            spans.append(
                TokenSpan(
                    t,
                    vocab[t],
                    start,
                    end,
                    char_of[start],
                    char_of[end - 1] + 1,
                    not (boundary(start) and boundary(end)),
                    k > 0 and step_of.get(t, 0) == k,
                    special,
                )
            )
        return spans

    def melt_steps(self) -> array:
        """When each byte boundary melts: for b = 1 .. num_bytes - 1, the merge step that joins the
        bytes on either side of boundary b into one token.

        Merges apply in rank order and a joined boundary never comes apart, so this one number
        per boundary is the whole step-through: after k merges, the tokens are the runs of bytes
        between the boundaries whose step is above k. Inside a special token the step is 0
        (one token from the start); between two tokens of the full encoding it is ``NEVER``.

        >>> from bpe_core import BasicTokenizer
        >>> tok = BasicTokenizer()
        >>> tok.train("aaabdaaabac", 259)
        >>> list(tok.step_through("aaab").melt_steps())  # aa (1), aa+a (2), aaa+b (3)
        [1, 2, 3]
        """
        step_of = self.tokenizer.step_of
        parents = self.tokenizer.parents
        vocab = self.tokenizer.vocab
        melt = array("I", [NEVER]) * max(self.num_bytes - 1, 0)  # melt[b - 1] for boundary b
        for t, start, special in zip(self.final, self.starts, self.special):
            if special:
                for b in range(start + 1, start + len(vocab[t])):
                    melt[b - 1] = 0
                continue
            stack = [(t, start)]
            while stack:
                u, at = stack.pop()
                if u in parents:
                    a, b = parents[u]
                    middle = at + len(vocab[a])
                    melt[middle - 1] = step_of[u]
                    stack.append((a, at))
                    stack.append((b, middle))
        return melt

    def token_counts(self) -> list[int]:
        """How many tokens the text has after each number of merges: ``[at 0, at 1, ...]``.

        Every merge inside the encoded text's forest removes one token, so the count at step k
        is the final count plus the merges from steps after k.
        """
        step_of = self.tokenizer.step_of
        parents = self.tokenizer.parents
        later = [0] * (self.num_merges + 2)  # later[s]: merge events made at step s
        for t, special in zip(self.final, self.special):
            stack = [] if special else [t]
            while stack:
                u = stack.pop()
                s = step_of.get(u, 0)
                if s:
                    later[s] += 1
                    stack.extend(parents[u])
        counts = [len(self.final)] * (self.num_merges + 1)
        total = len(self.final)
        for k in range(self.num_merges, -1, -1):
            counts[k] = total
            total += later[k]
        return counts
