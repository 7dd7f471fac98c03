"""Small text helpers every layer of bpe_core uses: clean text, readable tokens, and how messages
quote what a file said. Nothing here imports the rest of the package but its bounds (limits.py).
"""

from __future__ import annotations

import unicodedata

from .limits import MAX_TOKEN_ID


def replace_control_characters(s: str) -> str:
    """Show control characters as escapes so they cannot distort a listing: "\\n" -> "\\u000a"."""
    return "".join(
        ch if unicodedata.category(ch)[0] != "C" else f"\\u{ord(ch):04x}" for ch in s
    )


def render_token(t: bytes) -> str:
    """A token as readable text (invalid UTF-8 becomes U+FFFD, control characters escaped)."""
    return replace_control_characters(t.decode("utf-8", errors="replace"))


def shorten(value: object, limit: int = 60) -> str:
    """``repr(value)``, cut to about ``limit`` characters: how messages quote what a file said.

    >>> shorten("x" * 100, 10)
    "'xxxxxxxx…"
    """
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def id_problem(idx: object) -> str | None:
    """What is wrong with ``idx`` as a token id, or None: ids are whole numbers from 0 to
    ``MAX_TOKEN_ID`` (a file may say anything).

    >>> id_problem(10**30)
    'is larger than this tool reads (2,147,483,647)'
    """
    if isinstance(idx, bool) or not isinstance(idx, int) or idx < 0:
        return "is not a whole number >= 0"
    if idx > MAX_TOKEN_ID:
        return f"is larger than this tool reads ({MAX_TOKEN_ID:,})"
    return None


def parse_id(digits: str) -> int:
    """The value of an id a file writes in ASCII digits; ``MAX_TOKEN_ID + 1`` for so many digits
    that ``int()`` would refuse them (too large in any case). Check it with ``id_problem``."""
    return int(digits) if len(digits) < 1_000 else MAX_TOKEN_ID + 1


def clean_text(text: str) -> str:
    """Text that UTF-8 can encode: lone surrogates become U+FFFD, as tiktoken does."""
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")


def bytes_to_unicode() -> dict[int, str]:
    """GPT-2's table from byte values to printable characters (how its files spell bytes).

    Printable bytes stand for themselves; the other 68 get the characters from U+0100 on, in order.

    >>> table = bytes_to_unicode()
    >>> table[ord("a")], table[ord(" ")], table[0]
    ('a', 'Ġ', 'Ā')
    """
    printable = [*range(ord("!"), ord("~") + 1), *range(ord("¡"), ord("¬") + 1),
                 *range(ord("®"), ord("ÿ") + 1)]
    table = {b: chr(b) for b in printable}
    extra = 0
    for b in range(256):
        if b not in table:
            table[b] = chr(256 + extra)
            extra += 1
    return dict(sorted(table.items()))


_BYTE_TO_CHAR = bytes_to_unicode()
GPT2_CHAR_TO_BYTE = {c: b for b, c in _BYTE_TO_CHAR.items()}  # the table read backwards


def gpt2_string(token: bytes) -> str:
    """A token's bytes spelled the GPT-2 way (each byte as one printable character), as
    vocab.json, merges.txt and tokenizer.json spell tokens.

    >>> gpt2_string(b" world")
    'Ġworld'
    """
    return "".join(_BYTE_TO_CHAR[b] for b in token)


class WrongTypeError(TypeError, ValueError):
    """An argument of the wrong type (bytes for text, a list for a set): a TypeError, as tiktoken
    raises, and a ValueError, as bpe_core's other bad input is."""


class UnknownTokenError(ValueError, KeyError):
    """An id that is no token: a ValueError (minbpe's readers) and a KeyError (tiktoken's)."""

    def __str__(self) -> str:
        return str(self.args[0])


class TokenIdOverflowError(OverflowError, UnknownTokenError):
    """An id below 0 or of 2**32 or more: tiktoken's OverflowError, and an unknown token."""


def bad_id_error(error: KeyError | TypeError, vocab: dict[int, bytes]) -> Exception:
    """The error for ids that ``vocab`` failed to look up, of tiktoken's type: a TypeError for
    an id that is no whole number (as a WrongTypeError), an OverflowError for one below 0 or of
    2**32 or more, a KeyError for any other unknown id (both as UnknownTokenError)."""
    bad = error.args[0] if isinstance(error, KeyError) else None
    if isinstance(bad, bool) or not isinstance(bad, int):
        what = shorten(bad) if isinstance(error, KeyError) else f"an unhashable one ({error})"
        return WrongTypeError(f"token ids are whole numbers, not {what}")
    kind = UnknownTokenError if 0 <= bad < 2**32 else TokenIdOverflowError
    return kind(f"unknown token id {shorten(bad)}: this tokenizer's ids are 0..{max(vocab)}"
                f" ({len(vocab)} tokens)")
