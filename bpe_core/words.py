"""Encoding text a word at a time: fewer regex matches and dictionary lookups per byte.

The split pattern is the slowest part of a pure-Python encoder: the regex engine makes one
string per chunk. GPT-2's, GPT-4's and GPT-4o's patterns share a property that lets the
encoder look most of the text up in bigger pieces first:

    a chunk never runs from a character that is not whitespace into a space after it.

(In each pattern every alternative that matches a non-space character ends in letters, digits,
punctuation, marks, or line breaks and "/" after punctuation; none has a space after those. No
alternative looks behind, and a lookahead at the end of a piece sees what it sees in the whole
text: the piece ends before a space.) So the split cuts the text right before every space that
follows a non-whitespace character, and the text between two such places (a *word*: " the",
" dog.", "(x,") is split alone into exactly the chunks the whole text has there. Text repeats
its words, so each distinct word is split and merged once and then found in the cache:

    >>> words("Hi  there, you.\\n  x = 1")
    ['Hi', '  there,', ' you.\\n  x', ' =', ' 1']

Only the patterns in ``WORD_PATTERNS`` are encoded this way (the tests hold each of them to
the property, on varied text); any other pattern is split whole, as before.
"""

from __future__ import annotations

import re

from .patterns import GPT2_SPLIT_PATTERN, GPT4_SPLIT_PATTERN, GPT4O_SPLIT_PATTERN

WORD_PATTERNS = frozenset({GPT2_SPLIT_PATTERN, GPT4_SPLIT_PATTERN, GPT4O_SPLIT_PATTERN})

# The characters the regex module's \s matches (Unicode White_Space); the stdlib's re, used
# below because it is faster here, has its own idea of \s, so the class is written out
# (tests/core/test_words.py checks it against regex's \s over every code point).
WHITESPACE = ("\t\n\x0b\x0c\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007"
              "\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000")
# a word: any first character, then characters that are not a space, or spaces right after
# whitespace (a space after a non-whitespace character begins the next word)
_WORD_CUT = re.compile(rf"[\s\S](?:[^ ]|(?<=[{re.escape(WHITESPACE)}]) )*")

_SPACES = frozenset(WHITESPACE)
# a tokenizer's flag (set by load_pretrained on the shipped vocabularies, whose every token's
# bytes merge to that token: tests/core/test_words.py checks them all): a chunk that is a whole
# token is that token, without merging
WHOLE_TOKENS = "_whole_tokens"
WORD_CACHE_SIZE = 100_000  # words remembered (then the cache starts afresh)
WORD_MAX_CHARS = 100  # longer words are not remembered
WORDS_KEY = None  # the words' cache lives in the tokenizer's chunk cache under this key


def words(text: str) -> list[str]:
    """``text`` cut right before each space that follows a non-whitespace character."""
    return _WORD_CUT.findall(text)


def encode_words(tok: object, text: str, cache: dict) -> list[int]:
    """``tok``'s ids of ``text`` (no special tokens in it), a word at a time: the same ids as
    ``tok.encode_ordinary(text)`` for a tokenizer whose pattern is in ``WORD_PATTERNS`` and which
    has no pipeline. Words are remembered in ``cache`` (the tokenizer's chunk cache, which the
    tokenizer hands in) under their own key (``WORDS_KEY``), so whatever empties the tokenizer's
    cache empties this too.

    The words not yet known are split together, in one call of the regex engine (a call costs
    more than a short word's matches): joined, they cut at the same places, since each begins
    with a space and ends with a character that is not whitespace, and the chunks are then
    dealt back to their words by length. Other words (at most the text's first and last) and
    long ones are split alone.
    """
    known = cache.get(WORDS_KEY)
    if known is None:
        known = cache[WORDS_KEY] = {}
    split = tok.compiled_pattern.findall
    encode_chunk = tok.encode_chunk
    found = _WORD_CUT.findall(text)
    new = [w for w in dict.fromkeys(found) if w not in known]
    if new:
        if len(known) + len(new) > WORD_CACHE_SIZE:
            known.clear()
        joinable = [w for w in new if w[0] == " " and w[-1] not in _SPACES
                    and len(w) <= WORD_MAX_CHARS]
        take = iter(split("".join(joinable))).__next__
        cached = cache.get  # the chunks' cache (its values are never empty)
        for word in joinable:
            chunk = take()
            word_ids = cached(chunk) or encode_chunk(chunk)
            left = len(word) - len(chunk)
            if left:  # a word of several chunks (most are one)
                word_ids = list(word_ids)
                while left:
                    chunk = take()
                    word_ids += cached(chunk) or encode_chunk(chunk)
                    left -= len(chunk)
            known[word] = word_ids
    get = known.get
    ids: list[int] = []
    for word in found:
        word_ids = get(word)
        if word_ids is None:  # the first or last word, or a long one
            word_ids = []
            for chunk in split(word):
                word_ids += encode_chunk(chunk)
            if len(word) <= WORD_MAX_CHARS:
                known[word] = word_ids
        ids += word_ids
    return ids
