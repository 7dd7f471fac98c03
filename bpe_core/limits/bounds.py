"""Every bound on what a user or a file controls, in one place: the library, the app and the
command line all ask this module, so that one student's input cannot take a shared server down.

A refusal is a ValueError whose message names the bound and says what to change.

Split patterns are read as the ``regex`` engine reads them (``pattern_cost``): the engine unrolls
counted repeats when it compiles, so ``G{00001485831595}`` or ``(?:(?:a{1000}){1000}){1000}``
would take gigabytes before matching anything. The cost counts what compiling builds: every
atom times the product of the counted repeats around it, however the counts are written.

    >>> check_pattern(r"\\p{N}{1,3}+| ?\\p{L}+")
    >>> check_pattern("G{00001485831595}")
    Traceback (most recent call last):
    ...
    ValueError: the split pattern repeats something 1,485,831,595 times; use at most 1,000 in {n} or {m,n}, nested repeats multiplied (or + and *), since the regex engine builds every repeat in memory

Nothing here imports the rest of the package (the budget for work that may run long is budget.py).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from itertools import accumulate

# -- split patterns -------------------------------------------------------------------------------
MAX_PATTERN_CHARS = 1_000  # GPT-4o's pattern is about 350; compiling costs more than linear time
MAX_LINK_PATTERN_CHARS = 500  # a pattern in a shared link (?pattern=) is cut to this
MAX_REPEAT = 1_000  # the largest repeat count, nested counts multiplied: {n}, {m,n}, {n,}, {,n}
MAX_PATTERN_COST = 20_000  # atoms once every counted repeat is unrolled (about 300 bytes each)
MAX_PATTERN_DEPTH = 30  # groups inside groups (the engine recurses per level)

# -- files ----------------------------------------------------------------------------------------
MAX_UPLOAD_MB = 10  # the app's uploads, text or tokenizer files (.streamlit/config.toml says so too)
MAX_MODEL_BYTES = 64 * 1024 * 1024  # a tokenizer file; a GPT-4-sized one is about 1.5 MB
MAX_SIDECAR_BYTES = 256 * 1024 * 1024  # a sidecar: history with candidates, about 1 KB per merge
MAX_JSON_DEPTH = 64  # brackets inside brackets in a JSON file (tokenizer.json needs about 8)

# -- numbers and counts ---------------------------------------------------------------------------
MAX_TOKEN_ID = 2**31 - 1  # the largest id a tokenizer or a file may give a token
MAX_VOCAB_SIZE = 1_000_000  # tokens a tokenizer may train to
MAX_TOKENS = 1_000_000  # tokens a file may hold
MAX_TOKEN_BYTES = 4 * 1024 * 1024  # one token's bytes (merges may double a token per line)
MAX_RECOVER_BYTES = 16 * 1024 * 1024  # all tokens' bytes together, in a tiktoken file
MAX_SYMBOL_CHARS = 48  # a SentencePiece file's user-defined piece or added token (matched in text
# at every position: the cost of a position grows with the distinct lengths of these)
MAX_PIECE_CHARS = 1_000  # a piece written into a tokenizer.json's merges (every split is tried)
MAX_WORD_BPE_CHARS = 8_000_000  # text (or words) word BPE learns from, in one call
MAX_WORD_BPE_MERGES = MAX_VOCAB_SIZE  # merges word BPE learns, or a codes file holds

# -- bpe-lab check's inputs (bpe_lab/check/task.py explains each) --------------------------------
MAX_INPUT_CHARS = 8_000_000  # characters of a file (a .model, merges.txt, tokenizer.json)
MAX_PYTHON_CHARS = 2_000_000  # characters of Python literals
MAX_NESTING = 10  # brackets inside brackets in Python literals (merges need 2)
MAX_MERGES = 100_000  # merges
MAX_CHECK_CHARS = 200_000  # characters of the text trained on
MAX_SPM_TRAIN_CHARS = 20_000_000  # characters of a text SentencePiece-style BPE trains on


def check_size(size: int, limit: int, what: str, fix: str = "") -> None:
    """ValueError when ``size`` (bytes, characters, items) is over ``limit``, naming both."""
    if size > limit:
        raise ValueError(f"{what} is {size:,} long; this tool reads at most {limit:,}"
                         + (f": {fix}" if fix else ""))


_JSON_STRING = re.compile(r'"(?:[^"\\]++|\\.)*+"', re.DOTALL)
_NOT_BRACKET = re.compile(r"[^\[\]{}]++")
_JSON_TOKEN = re.compile(r'"(?:[^"\\]++|\\.)*+"|[\[\]{}]', re.DOTALL)


def json_depth(text: str) -> int:
    """How deep a JSON document nests its brackets (brackets inside strings do not count).

    >>> json_depth('{"a": [[1], "]]]"]}')
    3
    """
    skeleton = _NOT_BRACKET.sub("", _JSON_STRING.sub("", text))
    return max(accumulate(1 if c in "[{" else -1 for c in skeleton), default=0)


def check_json_depth(text: str, name: str) -> None:
    """ValueError when a JSON document nests brackets deeper than ``MAX_JSON_DEPTH``: asked
    before ``json.loads``, and before code that walks the document level by level."""
    if json_depth(text) <= MAX_JSON_DEPTH:
        return
    depth = 0
    for m in _JSON_TOKEN.finditer(text):  # where it goes too deep, for the message
        depth += {"[": 1, "{": 1, "]": -1, "}": -1}.get(m.group(), 0)
        if depth > MAX_JSON_DEPTH:
            line = text.count("\n", 0, m.start()) + 1
            raise ValueError(f"{name}, line {line}: not valid JSON for this tool (brackets nested"
                             f" more than {MAX_JSON_DEPTH} deep; it reads no deeper)")


# -- the cost of a split pattern -------------------------------------------------------------------


@dataclass(frozen=True)
class PatternCost:
    """What compiling a pattern builds: ``cost`` atoms once counted repeats are unrolled,
    ``repeat`` the largest product of nested repeat counts, ``depth`` groups inside groups."""

    cost: int
    repeat: int
    depth: int


class PatternSyntaxError(ValueError):
    """A pattern the engine would refuse too: a group or class never closed, a lone backslash."""


class _Group:
    __slots__ = ("cost", "repeat", "last")

    def __init__(self) -> None:
        self.cost = 0  # the atoms of every alternative, added
        self.repeat = 1  # the largest repeat product inside
        self.last: tuple[int, int] | None = None  # (cost, repeat) of the item a quantifier takes

    def add(self, cost: int, repeat: int) -> None:
        self.cost += cost
        self.repeat = max(self.repeat, repeat)
        self.last = (cost, repeat)


_NAME = re.compile(r"[\w =:&.^-]*")  # inside \p{...}, \N{...}, \x{...}
_POSIX = re.compile(r"\[:\^?[A-Za-z0-9_=]+:\]")
_FLAG_LETTERS = set("abefiLmprsuwxV01-")
# a group call (recursion): (?R), (?0), (?1), (?+1), (?-1), (?&name), (?P>name)
_CALL = re.compile(r"\(\?(?:R|[+-]?\d+|&|P>)")
_FUZZY_LETTERS = set("eisd")


def _brace(pattern: str, i: int) -> tuple[str, int, int]:
    """What a ``{`` at ``i`` starts: ("repeat", count, copies), ("fuzzy", 0, 0) or ("literal",
    0, 0). ``count`` is the largest number in it; ``copies`` how many times compiling writes
    out what it repeats: ``{n}`` n times, ``{m,n}`` and ``{m,}`` once more (the optional
    rest). Conservative: a brace of digits, commas and spaces counts as a repeat (verbose mode
    would drop the spaces)."""
    end = pattern.find("}", i + 1)
    if end < 0:
        return "literal", 0, 0
    inside = pattern[i + 1 : end]
    if all(c.isdigit() or c in ", \t\r\n\f\v" for c in inside):
        numbers = [int(n) for n in inside.replace(",", " ").split() if n.isdigit()]
        if not any(c.isdigit() for c in inside) and "," not in inside:
            return "literal", 0, 0  # "{}" or "{ }": no count at all
        count = max([1, *numbers])
        return "repeat", count, count + ("," in inside)
    if any(c in _FUZZY_LETTERS for c in inside) and all(
        c.isalnum() or c in "<=>+-*:,[]^\\ " for c in inside
    ):
        return "fuzzy", 0, 0
    return "literal", 0, 0


def _skip_to(pattern: str, i: int, closer: str, what: str) -> int:
    end = pattern.find(closer, i)
    if end < 0:
        raise PatternSyntaxError(f"the split pattern has {what} at position {i} that is never closed")
    return end + len(closer)


def _comment_end(pattern: str, i: int) -> int:
    """The index after the comment ``(?#...)`` that starts at ``i`` (an escaped ) does not end it)."""
    j = i + 3
    while j < len(pattern):
        if pattern[j] == "\\":
            j += 2
        elif pattern[j] == ")":
            return j + 1
        else:
            j += 1
    raise PatternSyntaxError(f"the split pattern has a comment (?# at position {i} that is never"
                             " closed; close it with )")


def _escape_end(pattern: str, i: int) -> int:
    """The index after the escape that starts with the backslash at ``i``."""
    if i + 1 >= len(pattern):
        raise PatternSyntaxError("the split pattern ends with a lone backslash; write \\\\ for one")
    ch = pattern[i + 1]
    if ch in "pPNx" and pattern.startswith("{", i + 2):
        end = _skip_to(pattern, i + 3, "}", f"\\{ch}{{")
        if _NAME.fullmatch(pattern, i + 3, end - 1):
            return end
        return i + 2  # not a name the engine reads as one: read on from the brace (safe side)
    if ch in "gLk" and pattern.startswith("<", i + 2):
        return _skip_to(pattern, i + 3, ">", f"\\{ch}<")
    return i + 2


def _class_end(pattern: str, i: int, nested: bool) -> int:
    """The index after the character class that starts with the ``[`` at ``i``. ``nested``:
    a ``[`` inside opens a nested set (the engine's VERSION1)."""
    j = i + 1
    if pattern.startswith("^", j):
        j += 1
    if pattern.startswith("]", j):  # a ] first is a plain ]
        j += 1
    depth = 1
    while j < len(pattern):
        ch = pattern[j]
        if ch == "\\":
            j = _escape_end(pattern, j)
            continue
        posix = _POSIX.match(pattern, j) if ch == "[" else None
        if posix:  # [:alpha:], [:^digit:]
            j = posix.end()
            continue
        if ch == "[" and nested:
            depth += 1
            j += 1
            if pattern.startswith("^", j):
                j += 1
            if pattern.startswith("]", j):
                j += 1
            continue
        if ch == "]":
            depth -= 1
            if depth == 0:
                return j + 1
        j += 1
    raise PatternSyntaxError(f"the split pattern has a [ at position {i} that is never closed; write \\["
                     " for a plain [")


def pattern_cost(pattern: str) -> PatternCost:
    """How much compiling ``pattern`` builds, read as the ``regex`` engine reads it (escapes,
    character classes, comments, group syntax; counted repeats however written). ValueError for
    what this reader cannot be sure of (verbose mode, fuzzy matching, an unclosed group or class):
    it refuses rather than guess.

    >>> pattern_cost("(?:(?:a{1000}){1000}){1000}").repeat
    1000000000
    >>> pattern_cost(r"[{]\\{x{3}").cost  # the class and the escaped brace are one atom each
    5
    """
    nested_sets = "V1" in pattern  # a (?V1) anywhere: a [ inside a class opens a nested set
    stack = [_Group()]
    depth = 0
    i, n = 0, len(pattern)
    quantified = False  # the last thing read was a repeat (a + or ? after it modifies it)
    while i < n:
        ch = pattern[i]
        top = stack[-1]
        if not (ch in "*+?{" and quantified):
            quantified = False
        if ch == "\\":
            end = _escape_end(pattern, i)
            top.add(1, 1)
            i = end
        elif ch == "[":
            i = _class_end(pattern, i, nested_sets)
            top.add(1, 1)
        elif ch == "(":
            if pattern.startswith("(?#", i):  # a comment: up to the first ) not escaped
                i = _comment_end(pattern, i)
                continue
            if pattern.startswith("(?", i):
                if _CALL.match(pattern, i):  # the engine can recurse without end: 1 GB at once
                    raise ValueError("the split pattern calls a group from inside itself ((?R),"
                                     " (?0), (?1), (?&name) or (?P>name)); a split pattern"
                                     " cannot recurse: write it without the call")
                j = i + 2
                while j < n and pattern[j] in _FLAG_LETTERS:
                    j += 1
                flags = pattern[i + 2 : j] if j < n and pattern[j] in "):" else ""
                if "x" in flags:
                    raise ValueError("the split pattern turns on verbose mode (?x); write it"
                                     " without (?x): spaces and # comments as they are matched")
                if "r" in flags:  # matches would come from the end backwards: chunks out of order
                    raise ValueError("the split pattern turns on reverse matching (?r); a split"
                                     " reads the text forwards: write it without (?r)")
            stack.append(_Group())
            depth = max(depth, len(stack) - 1)
            if depth > MAX_PATTERN_DEPTH:
                raise ValueError(f"the split pattern nests groups more than {MAX_PATTERN_DEPTH}"
                                 " deep; write one with fewer groups inside groups")
            i += 1
        elif ch == ")":
            if len(stack) == 1:
                raise PatternSyntaxError(f"the split pattern has a ) at position {i} that closes no"
                                 " group; write \\) for a plain )")
            inner = stack.pop()
            stack[-1].add(max(inner.cost, 1), inner.repeat)
            i += 1
        elif ch == "|":
            top.last = None
            i += 1
        elif quantified and ch in "+?":  # x*+, x{2}? : possessive or lazy, not a new repeat
            quantified = False  # (the engine refuses a third: x+++ counts it as a repeat)
            i += 1
            continue
        elif ch in "*+?" or (ch == "{" and _brace(pattern, i)[0] != "literal"):
            # x+ is compiled as x x* (written out twice: nested +'s double the size per level)
            kind, count, copies = _brace(pattern, i) if ch == "{" else ("repeat", 1, 1 + (ch == "+"))
            if kind == "fuzzy":
                raise ValueError("the split pattern uses fuzzy matching {e<=n}; this tool does"
                                 " not take it in a split pattern: write the pattern without it")
            i = pattern.index("}", i) + 1 if ch == "{" else i + 1
            if top.last is not None:
                cost, repeat = top.last
                top.cost += cost * (copies - 1)
                top.repeat = max(top.repeat, repeat * count)
                top.last = (cost * copies, repeat * count)  # a{2}{3}: the engine refuses it
            quantified = True
            continue
        else:
            top.add(1, 1)
            i += 1
    if len(stack) > 1:
        raise PatternSyntaxError("the split pattern has a ( that is never closed; close it with ), or"
                         " write \\( for a plain (")
    return PatternCost(stack[0].cost, stack[0].repeat, depth)


def check_pattern(pattern: str, what: str = "the split pattern",
                  max_chars: int | None = MAX_PATTERN_CHARS) -> None:
    """ValueError, naming the bound and the fix, when compiling ``pattern`` would cost more
    than this tool allows: ``MAX_PATTERN_CHARS`` characters, ``MAX_REPEAT`` repeats (nested
    counts multiplied), ``MAX_PATTERN_COST`` atoms once unrolled, ``MAX_PATTERN_DEPTH`` groups
    deep. A pattern this module cannot read with certainty is refused, not guessed at.
    ``max_chars=None`` for a pattern bpe_core wrote (an Oniguruma translation, whose guards make
    it several times longer than the file's: ``from_oniguruma`` bounds the file's)."""
    if max_chars is not None and len(pattern) > max_chars:
        raise ValueError(f"{what} is {len(pattern):,} characters long; write one of at most"
                         f" {max_chars:,} (GPT-4o's is about 350)")
    try:
        cost = pattern_cost(pattern)
    except PatternSyntaxError as e:
        raise ValueError(f"invalid split pattern: {str(e).replace('the split pattern', what, 1)}"
                         ) from None
    except ValueError as e:
        raise ValueError(str(e).replace("the split pattern", what, 1)) from None
    if cost.repeat > MAX_REPEAT:
        raise ValueError(
            f"{what} repeats something {cost.repeat:,} times; use at most {MAX_REPEAT:,} in {{n}}"
            " or {m,n}, nested repeats multiplied (or + and *), since the regex engine builds"
            " every repeat in memory"
        )
    if cost.cost > MAX_PATTERN_COST:
        raise ValueError(
            f"{what} unrolls to {cost.cost:,} parts once its counted repeats are written out;"
            f" use at most {MAX_PATTERN_COST:,} (fewer or smaller {{n}} repeats, or + and *),"
            " since the regex engine builds every repeat in memory"
        )
