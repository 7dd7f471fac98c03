"""tiktoken's surface of a tokenizer: its names (``n_vocab``, ``eot_token``, the batch methods,
``encode_single_token``, ``decode_with_offsets``, ...) and its rule for special tokens in text
(``allowed_special`` / ``disallowed_special``).

``Tokenizer`` (base.py) inherits ``TiktokenMethods``; everything here is written against what a
tokenizer has (``vocab``, ``special_tokens``, ``token_ids``, ``encode``, ``decode_bytes``), so
code written for ``tiktoken.Encoding`` runs on any bpe_core tokenizer.
"""

from __future__ import annotations

import bisect
from collections.abc import Collection, Iterable
from collections.abc import Set as AbstractSet

from .text import WrongTypeError, shorten


class TiktokenMethods:
    """tiktoken's names on a ``Tokenizer`` (mixed into base.Tokenizer)."""

    def _allowed_specials(
        self, text: str, allowed_special: object, disallowed_special: object = "all"
    ) -> dict[str, int]:
        """The special tokens to match in ``text``, after tiktoken's check: a disallowed special
        token's text in ``text`` is a ValueError that says how to allow it or encode it as text."""
        specials = {**self.special_tokens, **self.special_aliases}
        if allowed_special == "all":
            allowed = set(specials)
        elif allowed_special in ("none", "none_raise"):
            allowed = set()
        elif isinstance(allowed_special, AbstractSet):
            allowed = {s for s in allowed_special if s in specials}  # others: ignored, as both do
        elif isinstance(allowed_special, Collection) and not isinstance(allowed_special, str):
            raise WrongTypeError(
                f"allowed_special must be a set such as {{'<|endoftext|>'}} or 'all', not a"
                f" {type(allowed_special).__name__} (tiktoken refuses it too): pass"
                f" set({shorten(allowed_special)})")
        else:
            raise ValueError(
                "allowed_special must be 'all', a set of special tokens, or minbpe's 'none' or"
                f" 'none_raise', not {shorten(allowed_special)}"
            )
        if allowed_special == "none":  # minbpe: special-token text is ordinary text
            disallowed: Collection[str] = ()
        elif disallowed_special == "all":
            disallowed = [s for s in specials if s not in allowed]
        elif isinstance(disallowed_special, Collection) and not isinstance(disallowed_special, str):
            disallowed = disallowed_special
        else:
            raise ValueError(f"disallowed_special must be 'all' or a set of special tokens (() for"
                             f" none), not {shorten(disallowed_special)}")
        found = [(text.find(s), -len(s), s) for s in disallowed
                 if isinstance(s, str) and s and s in text]
        if found:
            raise_disallowed_special_token(min(found)[2])
        return {s: specials[s] for s in allowed}

    @property
    def max_token_value(self) -> int:
        """The largest id, special tokens included (tiktoken's name)."""
        return max(self.vocab)

    @property
    def n_vocab(self) -> int:
        """``max_token_value + 1``, as tiktoken counts (``vocab_size`` counts the tokens: GPT-4's
        ids have gaps, so its n_vocab is 100,277 and its vocab_size 100,261)."""
        return self.max_token_value + 1

    @property
    def eot_token(self) -> int | None:
        """The id of ``<|endoftext|>``, or None when the tokenizer has no such token."""
        return self.special_tokens.get("<|endoftext|>")

    @property
    def special_tokens_set(self) -> set[str]:
        return {*self.special_tokens, *self.special_aliases}

    def is_special_token(self, token: int) -> bool:
        """Whether the id is a special token's (tiktoken's name)."""
        return token in self.special_tokens.values()

    def encode_batch(self, text: list[str], *, num_threads: int = 8,
                     allowed_special: object = "none_raise",
                     disallowed_special: object = "all") -> list[list[int]]:
        """``encode`` of each text (``num_threads`` is accepted for tiktoken's signature)."""
        return [self.encode(t, allowed_special, disallowed_special) for t in text]

    def encode_ordinary_batch(self, text: list[str], *, num_threads: int = 8) -> list[list[int]]:
        return [self.encode_ordinary(t) for t in text]

    def decode_batch(self, batch: list[list[int]], *, errors: str = "replace",
                     num_threads: int = 8) -> list[str]:
        return [self.decode(ids, errors=errors) for ids in batch]

    def decode_bytes_batch(self, batch: list[list[int]], *, num_threads: int = 8) -> list[bytes]:
        return [self.decode_bytes(ids) for ids in batch]

    def encode_single_token(self, text_or_bytes: str | bytes) -> int:
        """The id of the one token spelled exactly so, as tiktoken finds it: an ordinary token's
        bytes first, then a special token's text, given as str or as its UTF-8 bytes
        (``encode_single_token(b"<|endoftext|>") == 100257`` in cl100k_base); KeyError when no
        single token is."""
        token = text_or_bytes.encode("utf-8") if isinstance(text_or_bytes, str) else text_or_bytes
        if not isinstance(token, bytes | bytearray | memoryview):
            raise KeyError(text_or_bytes)
        token = bytes(token)
        idx = self.token_ids.get(token)
        if idx is None:
            try:
                text = token.decode("utf-8")
                idx = self.special_tokens.get(text, self.special_aliases.get(text))
            except UnicodeDecodeError:
                idx = None
        if idx is None:
            raise KeyError(token)
        return idx

    def decode_tokens_bytes(self, tokens: Iterable[int]) -> list[bytes]:
        """Each token's bytes: ``[b"hello", b" world"]``."""
        return [self.decode_single_token_bytes(t) for t in tokens]

    def decode_with_offsets(self, tokens: list[int]) -> tuple[str, list[int]]:
        """The text and, for each token, the index of the character its first byte belongs to.

        A token that starts inside a character (a UTF-8 continuation byte) points at that
        character. The bytes must be valid UTF-8 (else UnicodeDecodeError), as in tiktoken.
        """
        parts = self.decode_tokens_bytes(tokens)
        offsets, chars = [], 0  # chars: characters started before the token
        for part in parts:
            inside = bool(part) and 0x80 <= part[0] < 0xC0 and chars > 0
            offsets.append(chars - inside)
            chars += sum(1 for b in part if not 0x80 <= b < 0xC0)
        return b"".join(parts).decode("utf-8", errors="strict"), offsets

    def token_byte_values(self) -> list[bytes]:
        """The bytes of every ordinary token (special tokens left out), sorted."""
        specials = set(self.special_tokens.values())
        return sorted(token for idx, token in self.vocab.items() if idx not in specials)

    # -- tiktoken's further names: numpy, the unstable tail, its private views ---------------------

    def encode_to_numpy(self, text: str, *, allowed_special: object = "none_raise",
                        disallowed_special: object = "all") -> object:
        """``encode`` as a numpy array of uint32 (numpy is imported here, on use: bpe_core does
        not need it otherwise)."""
        try:
            import numpy as np
        except ImportError as e:
            raise ImportError("encode_to_numpy needs numpy (pip install numpy); encode gives a"
                              " list without it") from e
        return np.array(self.encode(text, allowed_special, disallowed_special), dtype=np.uint32)

    def _encode_with_tail(self, text: str, allowed_special: object,
                          disallowed_special: object) -> tuple[list[int], int]:
        """``encode``'s ids and how many of them the text's last chunk made (0 when the text ends
        in a special token or is empty), that tail widened over the whitespace tokens before it:
        a chunk of spaces may join the text that follows it."""
        ids: list[int] = []
        tail = 0
        for chunk, special_id in self.chunks(text, allowed_special, disallowed_special):
            if special_id is None:
                chunk_ids = self.encode_chunk(chunk)
                ids += chunk_ids
                tail = len(chunk_ids)
            else:
                ids.append(special_id)
                tail = 0
        specials = set(self.special_tokens.values())

        def blank(idx: int) -> bool:
            return idx not in specials and all(b in b" \n\t" for b in self.vocab[idx])

        if tail and blank(ids[-tail]):
            while tail < len(ids) and blank(ids[-tail - 1]):
                tail += 1
        return ids, tail

    def _sorted_token_bytes(self) -> list[bytes]:
        found = self.__dict__.get("_sorted_tokens")
        if found is None:
            found = self.__dict__["_sorted_tokens"] = self.token_byte_values()
        return found

    def _merge_bytes(self, data: bytes) -> list[int]:
        """Bytes merged by rank as one piece (no split; they need not be UTF-8)."""
        from .merges import apply_merges

        byte_ids = self.byte_token_ids
        return apply_merges([byte_ids[b] for b in data], self.merges)

    def _starting_with(self, prefix: bytes) -> list[bytes]:
        tokens = self._sorted_token_bytes()
        start = bisect.bisect_left(tokens, prefix)
        end = start
        while end < len(tokens) and tokens[end].startswith(prefix):
            end += 1
        return tokens[start:end]

    def encode_with_unstable(self, text: str, *, allowed_special: object = "none_raise",
                             disallowed_special: object = "all"
                             ) -> tuple[list[int], list[list[int]]]:
        """tiktoken's: the ids of the text but its last chunk (which more text could change), and
        every way the text could go on from there: token sequences that spell the rest of the
        text and go past it. ``decode_bytes(stable)`` starts the text's bytes, and each
        ``decode_bytes(stable + seq)`` starts with them. The sequences come sorted (tiktoken's
        in no order)."""
        ids, tail = self._encode_with_tail(text, allowed_special, disallowed_special)
        if tail == 0:
            return ids, []
        unstable = self.decode_bytes(ids[-tail:])
        stable = ids[:-tail]
        found: set[tuple[int, ...]] = set()
        ranks = self.token_ids
        for token in self._starting_with(unstable):  # one token that spells all of it and more
            found.add((ranks[token],))
        for cut in range(1, len(unstable)):  # the tail's start as it is, a token from the cut on
            head = unstable[:cut]
            for token in self._starting_with(unstable[cut:]):
                whole = head + token
                try:
                    again = self.encode_ordinary(whole.decode("utf-8"))
                except UnicodeDecodeError:
                    again = self._merge_bytes(whole)
                seq, spelled = [], 0
                for idx in again:
                    seq.append(idx)
                    spelled += len(self.vocab[idx])
                    if spelled >= len(unstable):
                        break
                found.add(tuple(seq))
        if len(unstable) > 1:  # ends in a whitespace character: it may stand apart
            last = _last_character(unstable)
            if last is not None and last.isspace() and last not in "\x1c\x1d\x1e\x1f":
                size = len(last.encode("utf-8"))
                found.add(tuple(self._merge_bytes(unstable[:-size])
                                + self._merge_bytes(unstable[-size:])))
        return stable, sorted(map(list, found))

    def _encode_bytes(self, data: bytes) -> list[int]:
        """tiktoken's ``_encode_bytes``: bytes that need not be UTF-8. Their UTF-8 start is
        encoded as text; its last chunk and the rest are merged as one piece of bytes, so
        ``decode_bytes(_encode_bytes(b)) == b``."""
        data = bytes(data)
        try:
            return self.encode_ordinary(data.decode("utf-8"))
        except UnicodeDecodeError as e:
            valid = e.start
        ids, tail = self._encode_with_tail(data[:valid].decode("utf-8"), "none", ())
        rest = data[valid:]
        if tail:
            rest = self.decode_bytes(ids[-tail:]) + rest
            ids = ids[:-tail]
        whole = self.token_ids.get(rest)
        return ids + ([whole] if whole is not None else self._merge_bytes(rest))

    @property
    def _pat_str(self) -> str:
        """tiktoken's private name for the split pattern (transformers' tiktoken converter reads
        it, with ``_mergeable_ranks`` and ``_special_tokens``)."""
        return self.pattern

    @property
    def _mergeable_ranks(self) -> dict[bytes, int]:
        """Every ordinary token's bytes -> id (tiktoken's private name): a plain dict, as
        tiktoken's, so that pickle and json take it, and the same one on every call until the
        tokens change (copied on the first call). Changing it changes nothing here, as in
        tiktoken, whose encoder holds its own copy."""
        source = self.token_ids
        kept = self.__dict__.get("_ranks_copy")
        if kept is None or kept[0] is not source:
            kept = self.__dict__["_ranks_copy"] = (source, dict(source))
        return kept[1]

    @property
    def _special_tokens(self) -> dict[str, int]:
        """The special tokens, a dict of its own (tiktoken's private name)."""
        return dict(self.special_tokens)

    def _encode_single_piece(self, text_or_bytes: str | bytes) -> list[int]:
        """tiktoken's: one piece, not split, special tokens not matched: the token it is, when
        it is one, else its bytes merged (``_encode_single_piece("helloqqqq")`` in GPT-2 is
        ``[31373, 38227, 38227]``)."""
        if isinstance(text_or_bytes, str):
            text_or_bytes = text_or_bytes.encode("utf-8")
        if not isinstance(text_or_bytes, bytes | bytearray | memoryview):
            raise WrongTypeError(f"_encode_single_piece takes str or bytes, not"
                                 f" {type(text_or_bytes).__name__}")
        data = bytes(text_or_bytes)
        whole = self.token_ids.get(data)
        return [whole] if whole is not None else self._merge_bytes(data) if data else []

    def _encode_only_native_bpe(self, text: str) -> list[int]:
        """tiktoken's: the text split by the pattern, each piece ``_encode_single_piece``
        (special tokens' text is ordinary text)."""
        return [idx for piece in self.split(text) for idx in self._encode_single_piece(piece)]


def _last_character(data: bytes) -> str | None:
    """The character the bytes end with, or None when they end inside one or are not UTF-8."""
    for size in range(1, min(4, len(data)) + 1):
        try:
            return data[-size:].decode("utf-8")
        except UnicodeDecodeError:
            continue
    return None


MAX_TOKEN_SHOWN = 60  # characters of a special token a message repeats


def raise_disallowed_special_token(token: str) -> None:
    """tiktoken's ValueError for a disallowed special token's text, in tiktoken's words exactly
    (clients such as ttok read it; ``disallowed_special=()`` is minbpe's
    ``allowed_special="none"`` here), but a token over ``MAX_TOKEN_SHOWN`` characters is cut."""
    if len(token) > MAX_TOKEN_SHOWN:  # tiktoken would repeat a 100,000-character token twice
        token = token[:MAX_TOKEN_SHOWN] + "…"
    raise ValueError(
        f"Encountered text corresponding to disallowed special token {token!r}.\n"
        "If you want this text to be encoded as a special token, "
        f"pass it to `allowed_special`, e.g. `allowed_special={{{token!r}, ...}}`.\n"
        f"If you want this text to be encoded as normal text, disable the check for this token "
        f"by passing `disallowed_special=(enc.special_tokens_set - {{{token!r}}})`.\n"
        "To disable this check for all special tokens, pass `disallowed_special=()`.\n"
    )
