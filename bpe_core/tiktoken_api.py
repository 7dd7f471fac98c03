"""tiktoken's surface of a tokenizer: its names (``n_vocab``, ``eot_token``, the batch methods,
``encode_single_token``, ``decode_with_offsets``, ...) and its rule for special tokens in text
(``allowed_special`` / ``disallowed_special``).

``Tokenizer`` (base.py) inherits ``TiktokenMethods``; everything here is written against what a
tokenizer has (``vocab``, ``special_tokens``, ``token_ids``, ``encode``, ``decode_bytes``), so
code written for ``tiktoken.Encoding`` runs on any bpe_core tokenizer.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable

from .text import shorten


class TiktokenMethods:
    """tiktoken's names on a ``Tokenizer`` (mixed into base.Tokenizer)."""

    def _allowed_specials(
        self, text: str, allowed_special: object, disallowed_special: object = "all"
    ) -> dict[str, int]:
        """The special tokens to match in ``text``, after tiktoken's check: a disallowed special
        token's text in ``text`` is a ValueError that says how to allow it or encode it as text."""
        specials = self.special_tokens
        if allowed_special == "all":
            allowed = set(specials)
        elif allowed_special in ("none", "none_raise"):
            allowed = set()
        elif isinstance(allowed_special, Collection) and not isinstance(allowed_special, str):
            allowed = {s for s in allowed_special if s in specials}  # others: ignored, as both do
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
        found = [(text.find(s), s) for s in disallowed if isinstance(s, str) and s and s in text]
        if found:
            special = shorten(min(found)[1])
            raise ValueError(
                f"the text contains {special}, the text of a special token. To encode it as that"
                f" special token pass allowed_special={{{special}}} (or 'all'); to encode it as"
                " ordinary text pass disallowed_special=() (minbpe: allowed_special='none')"
            )
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
        return set(self.special_tokens)

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
                idx = self.special_tokens.get(token.decode("utf-8"))
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
