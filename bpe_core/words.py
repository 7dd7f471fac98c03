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

The first encode of a text (empty caches: *cold*) meets most of its words for the first time,
and there a word at a time costs more than it saves: the new words are split, their chunks
dealt back to them one by one, and every chunk that is not a whole token merged. So for
GPT-2's and GPT-4's patterns mostly-ASCII text goes chunk by chunk instead
(``encode_ordinary_text``): split by the stdlib's ``re`` (``ascii_split``: the pattern written
out for ASCII, about twice as fast as ``regex``), each distinct new chunk encoded once
(``Tokenizer.encode_chunks``), the ids joined from the chunk cache in C-level passes. Other text, and GPT-4o's pattern, go a word at a time,
their new words split by ``re`` where they are ASCII. docs/BENCHMARKS.md has the figures.
"""

from __future__ import annotations

import re
from collections import deque
from functools import cache
from itertools import chain

import regex

from .patterns import GPT2_SPLIT_PATTERN, GPT4_SPLIT_PATTERN, GPT4O_SPLIT_PATTERN

WORD_PATTERNS = frozenset({GPT2_SPLIT_PATTERN, GPT4_SPLIT_PATTERN, GPT4O_SPLIT_PATTERN})

# The characters the regex module's \s matches (Unicode White_Space); the stdlib's re, used
# below because it is faster here, has its own idea of \s, so the class is written out
# (tests/core/test_words.py checks it against regex's \s over every code point).
WHITESPACE = ("\t\n\x0b\x0c\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007"
              "\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000")
# a word: any first character, then runs of characters that are not a space, each run after
# the first begun by a space right after whitespace (a space after a non-whitespace character
# begins the next word)
_WORD_CUT = re.compile(rf"[\s\S][^ ]*(?:(?<=[{re.escape(WHITESPACE)}]) [^ ]*)*")

_SPACES = frozenset(WHITESPACE)
# a tokenizer's flag (set by load_pretrained on the shipped vocabularies, whose every token's
# bytes merge to that token: tests/core/test_words.py checks them all): a chunk that is a whole
# token is that token, without merging
WHOLE_TOKENS = "_whole_tokens"
WORD_CACHE_SIZE = 100_000  # words remembered; never more between two encodes (see encode_words)
WORD_MAX_CHARS = 100  # longer words are not remembered
WORDS_KEY = None  # the words' cache lives in the tokenizer's chunk cache under this key


def words(text: str) -> list[str]:
    """``text`` cut right before each space that follows a non-whitespace character."""
    return _WORD_CUT.findall(text)


# -- the split of ASCII text with the stdlib's re -------------------------------------------
#
# On text of ASCII characters only, each class of a pattern means only its ASCII members:
# \p{L} is [A-Za-z], \p{N} is [0-9], \s is [\t\n\x0b\x0c\r ] (regex's \s: no \x1c-\x1f), a
# class with \p{M} or \p{Lt} in it loses nothing. Written out so, a pattern of WORD_PATTERNS
# uses only what re and regex read alike (alternation, classes, greedy and possessive
# repeats, (?!...), $, (?i:...) on ASCII letters), and finds the same chunks in ASCII text
# (tests/core/test_words.py: every pattern, random ASCII text, every ASCII character).

_ASCII = "".join(map(chr, range(128)))
_CLASS_ITEM = re.compile(r"\\p\{\w+\}|\\[sS]")


def _ascii_members(item: str) -> str:
    """The ASCII characters ``item`` (``\\p{L}``, ``\\s``...) matches, as a class's ranges."""
    codes = [ord(c) for c in regex.findall(item, _ASCII)]
    runs = []  # [first, last] of each run of consecutive codes
    for code in codes:
        if runs and runs[-1][1] == code - 1:
            runs[-1][1] = code
        else:
            runs.append([code, code])

    def spell(code: int) -> str:
        return chr(code) if chr(code).isalnum() else f"\\x{code:02x}"

    return "".join(spell(a) if a == b else f"{spell(a)}-{spell(b)}" for a, b in runs)


def ascii_pattern(pattern: str) -> str:
    r"""``pattern`` (one of ``WORD_PATTERNS``) written for re, for text of ASCII characters only.

    >>> print(ascii_pattern(r" ?\p{L}++|[^\s\p{L}\p{N}]|\s+(?!\S)"))
     ?[A-Za-z]++|[^\x09-\x0d\x20A-Za-z0-9]|[\x09-\x0d\x20]+(?![\x00-\x08\x0e-\x1f\x21-\x7f])
    """
    out: list[str] = []
    in_class, opened = False, 0
    i = 0
    while i < len(pattern):
        item = _CLASS_ITEM.match(pattern, i)
        if item:  # a class of Unicode: its ASCII members (bare inside a class)
            members = _ascii_members(item.group())
            out.append(members if in_class else f"[{members}]" if members else "(?!)")
            i = item.end()
            continue
        two = pattern[i] == "\\" or pattern.startswith("[^", i)  # an escape, or a negated class
        piece = pattern[i:i + 2] if two else pattern[i]
        if piece in ("[", "[^") and not in_class:
            in_class, opened = True, len(out)
        elif piece == "]" and in_class:
            in_class = False
            if not "".join(out[opened + 1:]):
                raise ValueError(f"{pattern!r}: a class has no ASCII member")
        out.append(piece)  # another escape (\r, \n) is copied as it is
        i += len(piece)
    return "".join(out)


@cache
def ascii_split(pattern: str) -> re.Pattern:
    """The compiled ``ascii_pattern(pattern)`` (once per pattern and process)."""
    return re.compile(ascii_pattern(pattern))


# -- encoding ------------------------------------------------------------------------------
#
# Mostly ASCII text is encoded chunk by chunk (GPT-2's and GPT-4's patterns: CHUNK_ROAD): the
# stdlib's re splits it (the words that hold other characters are split by the tokenizer's own
# pattern), and the chunks' ids come from the chunk cache in one C-level pass. Only new chunks
# cost Python work (encode_chunks), so a first encode is about as fast as a later one. Text
# with more than OTHER_SHARE of it in words with other characters goes a word at a time
# (encode_words), since there the regex engine's split is the cost and the words' cache saves it.

OTHER_SHARE = 0.1
# The patterns whose ASCII split is quick enough for this road also when the caches are warm:
# GPT-4o's (two letter alternatives that backtrack) splits ASCII text about a quarter slower
# than GPT-4's, and there the words' cache stays the faster road for a later encode
# (docs/BENCHMARKS.md has both roads measured on each).
CHUNK_ROAD = frozenset({GPT2_SPLIT_PATTERN, GPT4_SPLIT_PATTERN})
_OTHER_RUN = re.compile(r"[^\x00-\x7f]+")
_NEXT_WORD = re.compile(rf"(?<=[^{re.escape(WHITESPACE)}]) ")  # where a word begins
_LAST_WORD = regex.compile(rf"(?r)(?<=[^{regex.escape(WHITESPACE)}]) ")  # searched backwards


def join_ids(ids_of, keys: list) -> list[int]:
    """``ids_of(key)`` of each key, one list after another, in one list (C-level passes: a
    list's ``extend`` mapped over them; a KeyError from ``ids_of`` goes through).

    >>> join_ids({"a": [1], "b": [2, 3]}.__getitem__, ["a", "b", "a"])
    [1, 2, 3, 1]
    """
    out: list[int] = []
    deque(map(out.extend, map(ids_of, keys)), 0)
    return out


def encode_ordinary_text(tok: object, text: str, cache: dict) -> list[int]:
    """``tok``'s ids of ``text`` (no special tokens in it): the same ids as
    ``tok.encode_ordinary(text)`` for a tokenizer whose pattern is in ``WORD_PATTERNS`` and which
    has no pipeline; ``cache`` is the tokenizer's chunk cache."""
    chunks = road_chunks(tok.pattern, tok.compiled_pattern, text)
    if chunks is None:
        return encode_words(tok, text, cache)
    try:  # every chunk known: one pass
        return join_ids(cache.__getitem__, chunks)
    except KeyError:
        pass
    new = list(set(chunks).difference(cache))
    # A tuple of strings, unlike a list, leaves the garbage collector's view at its first
    # collection: the new chunks' ids (new lists) set off collections, and a second look at
    # every chunk of the text costs a cold encode of 3 MB about 10 ms.
    chunks = tuple(chunks)
    new_ids = tok.encode_chunks(new)
    try:  # the new chunks are remembered now (unless too long, or the cache started afresh)
        return join_ids(cache.__getitem__, chunks)
    except KeyError:
        pass
    distinct = set(chunks)
    table = dict(zip(distinct, map(cache.get, distinct)))
    table.update(zip(new, new_ids))
    lost = [chunk for chunk, ids in table.items() if ids is None]  # forgotten meanwhile
    table.update(zip(lost, tok.encode_chunks(lost)))
    return join_ids(table.__getitem__, chunks)


def road_chunks(pattern: str, compiled: regex.Pattern, text: str,
                share: float = OTHER_SHARE) -> list[str] | None:
    """``compiled.findall(text)`` (``compiled``: ``pattern``, one of CHUNK_ROAD), the ASCII
    stretches split by the stdlib's re (``ascii_split``) and the spans with other characters by
    ``compiled``: about twice as quick on mostly ASCII text. None when the pattern is not on the
    road or more than ``share`` of the text is in words with other characters.

    >>> road_chunks(GPT2_SPLIT_PATTERN, regex.compile(GPT2_SPLIT_PATTERN), "a naïve idea's", 1.0)
    ['a', ' naïve', ' idea', "'s"]
    """
    spans = other_spans(text, share) if pattern in CHUNK_ROAD else None
    if spans is None:
        return None
    ascii_findall, findall = ascii_split(pattern).findall, compiled.findall
    chunks: list[str] = []
    end = 0
    for start, stop in spans:
        if end < start:
            chunks += ascii_findall(text[end:start])
        chunks += findall(text[start:stop])
        end = stop
    chunks += ascii_findall(text[end:] if end else text)
    return chunks


def other_spans(text: str, share: float = OTHER_SHARE) -> list[tuple[int, int]] | None:
    """Where ``text`` has characters that are not ASCII: ``[(start, stop), ...]``, in order, each
    from the start of a word (see ``words``) to the start of another, so that the text between
    them is ASCII; None when they cover more than ``OTHER_SHARE`` of it.

    >>> text = "An idea: déjà vu, said the naïve one; " + "then plain text, " * 6
    >>> [text[start:stop] for start, stop in other_spans(text)]
    [' déjà', ' naïve']
    """
    if text.isascii():
        return []
    spans: list[tuple[int, int]] = []
    end = covered = 0
    for run in _other_runs(text):
        if run.start() < end:  # in the last span's word
            continue
        found = _LAST_WORD.search(text, end, run.start())
        start = found.start() if found else end
        found = _NEXT_WORD.search(text, run.end())
        stop = found.start() if found else len(text)
        if spans and start == end:
            start = spans.pop()[0]
        spans.append((start, stop))
        covered += stop - max(start, end)
        end = stop
        if covered > share * len(text):
            return None
    return spans


ASCII_BLOCK = 4096  # other_spans: text is looked at in blocks of this many characters


def _other_runs(text: str):
    """``_OTHER_RUN.finditer(text)``, quicker on text that is mostly ASCII: ``str.isascii`` (C,
    a block at a time) skips the blocks that have none, and the runs are searched for only in
    the others (each stretch of consecutive such blocks at once, so a run is never cut)."""
    blocks = range(0, len(text), ASCII_BLOCK)
    starts = [at for at in blocks if not text[at:at + ASCII_BLOCK].isascii()]
    stretches: list[list[int]] = []  # [start, stop] of consecutive blocks that are not ASCII
    for at in starts:
        if stretches and stretches[-1][1] == at:
            stretches[-1][1] = at + ASCII_BLOCK
        else:
            stretches.append([at, at + ASCII_BLOCK])
    return chain.from_iterable(_OTHER_RUN.finditer(text, start, stop) for start, stop in stretches)


def encode_words(tok: object, text: str, cache: dict) -> list[int]:
    """``tok``'s ids of ``text`` (no special tokens in it), a word at a time: the same ids as
    ``tok.encode_ordinary(text)`` for a tokenizer whose pattern is in ``WORD_PATTERNS`` and which
    has no pipeline. Words are remembered in ``cache`` (the tokenizer's chunk cache, which the
    tokenizer hands in) under their own key (``WORDS_KEY``), so whatever empties the tokenizer's
    cache empties this too. Between two calls it holds at most ``WORD_CACHE_SIZE`` words: if
    this text's new words would pass that, it starts afresh, and if this text alone has more,
    they are forgotten once its ids are known.
    """
    known = cache.get(WORDS_KEY)
    if known is None:
        known = cache[WORDS_KEY] = {}
    found = _WORD_CUT.findall(text)
    new = set(found).difference(known)
    if len(known) + len(new) > WORD_CACHE_SIZE:
        known.clear()
        new = set(found)
    longs: list[str] = []  # remembered only until this text's ids are known
    if new:
        if max(map(len, new)) > WORD_MAX_CHARS:
            longs = [w for w in new if len(w) > WORD_MAX_CHARS]
        _learn(tok, new, known)
    try:
        ids = join_ids(known.__getitem__, found)
    except KeyError:  # another thread emptied the cache meanwhile: word by word
        ids = []
        for word in found:
            word_ids = known.get(word)
            ids += _encode_alone(tok, word) if word_ids is None else word_ids
    for word in longs:
        known.pop(word, None)
    if len(known) > WORD_CACHE_SIZE:
        known.clear()
    return ids


def _encode_alone(tok: object, word: str) -> list[int]:
    """One word's ids, split alone with the tokenizer's own pattern."""
    ids: list[int] = []
    for chunk in tok.compiled_pattern.findall(word):
        ids += tok.encode_chunk(chunk)
    return ids


def _learn(tok: object, new: set[str], known: dict) -> None:
    """Put the ids of each word of ``new`` in ``known``.

    The words that begin with a space and end with a character that is not whitespace (all
    but the text's first and last) are split together, in one call of the regex engine (a
    call costs more than a short word's matches): joined, they cut at the same places, since
    each begins where a word begins. Each distinct chunk is encoded once, and the chunks are
    dealt back to their words by length. The other words are split alone."""
    joinable = [w for w in new if w[0] == " " and w[-1] not in _SPACES]
    joined = "".join(joinable)
    if joined.isascii():
        groups = [(joinable, ascii_split(tok.pattern).findall(joined))]
    else:
        ascii_words, other = [], []
        for word in joinable:
            (ascii_words if word.isascii() else other).append(word)
        groups = [(ascii_words, ascii_split(tok.pattern).findall("".join(ascii_words))),
                  (other, tok.compiled_pattern.findall("".join(other)))]
    distinct = list(dict.fromkeys(chain.from_iterable(chunks for _, chunks in groups)))
    ids_of = dict(zip(distinct, tok.encode_chunks(distinct))).__getitem__
    for group, chunks in groups:
        take = iter(chunks).__next__
        for word in group:
            chunk = take()
            word_ids = ids_of(chunk)
            left = len(word) - len(chunk)
            if left:  # a word of several chunks (most are one)
                word_ids = list(word_ids)
                while left:
                    chunk = take()
                    word_ids += ids_of(chunk)
                    left -= len(chunk)
            known[word] = word_ids
    for word in new.difference(known):  # the text's first and last words
        known[word] = _encode_alone(tok, word)
