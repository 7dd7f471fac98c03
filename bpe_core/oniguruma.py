"""Oniguruma patterns read with Oniguruma's meaning, for the ``regex`` package.

A Hugging Face ``tokenizer.json`` writes its ``Split`` and ``Replace`` regexes for Oniguruma (the
engine of ``tokenizers``, with its default Ruby-like syntax). Many constructs are spelled alike in
both engines and mean different things; ``from_oniguruma`` reads the pattern token by token (never
by blind replacement: ``\\\\h`` is an escaped backslash and an ``h``) and writes each construct so
that ``regex`` means what Oniguruma meant, or refuses it with a ValueError that names it.

What changes (each measured against ``tokenizers`` 0.23: tests/core/test_oniguruma.py)::

    Oniguruma            meaning                               written for regex
    ^  $                 start / end of any line               (?m:^)  (?m:$)
    \\Z  \\z               end (before a final newline) / end    $  \\Z (no multiline flag here)
    \\h  \\H               hex digit / not one                   [0-9a-fA-F]  [^0-9a-fA-F]
    \\w  \\W  \\b  \\B       Oniguruma's word characters (six      an explicit class (WORD;
                         more outside a class than inside)     WORD_IN_CLASS in a class)
    \\p{Word} \\p{XDigit}  the same as \\w / as \\h                the same class
    [[:digit:]] …        Unicode classes (digit = \\p{Nd} …)    the Unicode class (POSIX)
    [a-z&&[^aeiou]]      class intersection; [a[b]] is a union  lookaheads and alternatives
    \\R  \\N  \\O  \\e       line break / not \\n / any / escape    their spelled-out forms
    \\x{HHHH}             a code point                          \\uHHHH
    (?m)                 dot matches a newline (Perl's s!)     . becomes [\\s\\S]
    (?i)  in a group     applies to the end of the group,      (?i:…) around the rest
                         across |, with full case folding      (refused where folding differs)
    (?i)  leading        the whole pattern, full case folding  (?fi)
    i, I, İ, ı under (?i)  i and I fold together, İ and ı      decided case-sensitively
                         only match themselves                 ((?-i:[iI]) and lookaheads)
    x{2}+  x{2}?         (?:x{2})+  (?:x{2})? (not possessive) the same groups
    \\k<name>             a named backreference                 (?P=name)

Refused, with the construct named: ``\\X`` (grapheme clusters by an older rule),
``\\p{Extended_Pictographic}`` (older emoji data), a back-reference under ``(?i)``, option
letters other than ``i`` and ``m`` (``(?x)``,
``(?W)``…), absent operators ``(?~…)``, conditionals, callouts, subexpression calls ``\\g<…>``,
``\\y``/``\\Y``, control escapes, case-insensitive groups whose matches full case folding would
change (``ß`` matches ``ss`` in Oniguruma; ``regex`` cannot fold fully inside a group), and
properties or POSIX brackets under ``(?i)`` (Oniguruma ignores case for ``\\p{Lu}``; ``regex``
does not).

What stays: Unicode properties (``\\p{L}``, scripts, ``\\p{Alpha}``, blocks such as
``\\p{In_Greek_and_Coptic}``…) mean the same in both engines, except that ``regex`` knows a newer Unicode: characters assigned
since Oniguruma's tables (about 17,000 in 2026) are letters here and unassigned there, U+0295 is
Lo here, Ll there, and the 15 blocks of Unicode 17 are Oniguruma's No_Block (their names are
refused, as tokenizers refuses them, and so are the short names regex also reads for a block,
such as ``In_Greek``: Oniguruma knows a block by its full name only). ``unicode_gap.py`` holds that gap and guards every class
that names a property against it.
"""

from __future__ import annotations

import functools
import operator
from collections import OrderedDict
from typing import NamedTuple

import regex

from .limits import MAX_PATTERN_CHARS
from .unicode_gap import (  # noqa: F401 - NEWER_THAN_ONIGURUMA, holds_gap: read from here too
    NEWER_THAN_ONIGURUMA,
    GapGuarded,
    as_oniguruma,
    block_name,
    full_mask,
    gap_matches,
    holds_gap,
    newer_block,
    short_block_name,
)

# Oniguruma's \w, measured on every code point: Alphabetic, marks, decimal digits, connector
# punctuation; no zero-width joiners (regex's \w has them). Outside a class it also matches six
# Latin-1 numbers (² ³ ¹ ¼ ½ ¾); inside one (``[\w]``, ``[\p{Word}]``) it does not.
WORD_IN_CLASS = r"\p{Alphabetic}\p{M}\p{Nd}\p{Pc}"
WORD = WORD_IN_CLASS + r"\u00b2\u00b3\u00b9\u00bc-\u00be"
HEX = "0-9a-fA-F"
# POSIX brackets whose Unicode meaning in Oniguruma is not regex's (the others are the same)
POSIX = {
    "alnum": r"\p{Alphabetic}\p{Nd}",
    "alpha": r"\p{Alphabetic}",
    "digit": r"\p{Nd}",
    "punct": r"\p{P}\p{S}",
    "word": WORD_IN_CLASS,
    "xdigit": HEX,
}
SAME_POSIX = ("ascii", "blank", "cntrl", "graph", "lower", "print", "space", "upper")
PROPERTIES = {"word": WORD, "xdigit": HEX}  # \p{...} names that mean other things in regex
PROPERTIES_IN_CLASS = {"word": WORD_IN_CLASS, "xdigit": HEX}
SIMPLE_ESCAPES = {"t": r"\t", "n": r"\n", "r": r"\r", "f": r"\f", "v": r"\v", "a": r"\a",
                  "e": r"\x1b"}
SAME_ESCAPES = "sSdD"  # the same classes in both engines
FOLDS = ("ss", "st", "ff", "fi", "fl")  # letter pairs that one character folds to (ß, ﬆ, ﬀ…)
SPECIAL = set(".^$*+?{}[]\\|()")
# one atom (\p{..}, a [...] class, an escape, a character) repeated {n}, {n,} or {n,m}
_REPEATED_ATOM = r"(?:\\[pP]\{[^}]*\}|\[(?:\\.|[^\]\\])*\]|\\.|[^\\()\[\]{}|])\{\d+(?:,\d*)?\}"


class _Leaf(NamedTuple):
    """One emitted atom: its regex text, the letters it may match under (?i) (None: it may
    match more than a few ASCII letters), and whether a repeat may follow the text as it is."""

    text: str
    letters: frozenset | None
    atomic: bool = True


def from_oniguruma(pattern: str) -> str:
    """An Oniguruma pattern written so that the ``regex`` package means the same (see the top
    of this module); ValueError names what it cannot translate.

    >>> unguarded(from_oniguruma(r"^\\s+$|\\p{N}{1,3}+"))
    '(?m:^)\\\\s+(?m:$)|(?:\\\\p{N}{1,3})+'
    >>> unguarded(from_oniguruma(r"\\h+|[\\w&&[^\\d]]"))
    '[0-9a-fA-F]+|(?:(?=[\\\\p{Alphabetic}\\\\p{M}\\\\p{Nd}\\\\p{Pc}])[^\\\\d])'

    Classes that name a property come back guarded, so that the characters newer than
    Oniguruma's Unicode match as there (``unguarded`` gives the pattern without the guards):

    >>> regex.findall(from_oniguruma(r"\\p{L}+"), "a\\u0558b")
    ['a', 'b']
    """
    if len(pattern) > MAX_PATTERN_CHARS:
        raise ValueError(f"the pattern is {len(pattern):,} characters long; this tool reads"
                         f" patterns of at most {MAX_PATTERN_CHARS:,} (GPT-4o's is about 350)")
    emulated = _TRANSLATED.get(pattern)
    if emulated is None:  # 0.1 s for GPT-4's pattern: a server reads the same few again and again
        try:
            emulated = _Translator(pattern).translate()
        except regex.error as e:  # a part the translation compiles to decide (İ and ı under (?i))
            raise ValueError(f"the Oniguruma pattern cannot be translated here ({e})") from None
        _TRANSLATED[pattern] = emulated
        while len(_TRANSLATED) > MAX_REMEMBERED:
            _TRANSLATED.popitem(last=False)
    _TRANSLATED.move_to_end(pattern)
    _touched.append(pattern)
    del _touched[:-MAX_REMEMBERED]
    if emulated in _WITHOUT_GUARDS:
        _WITHOUT_GUARDS.move_to_end(emulated)
    else:
        plain = _Translator(pattern, gap=False).translate()
        if plain != emulated:
            _WITHOUT_GUARDS[emulated] = plain
            while len(_WITHOUT_GUARDS) > MAX_REMEMBERED:  # a server reads many uploads
                _WITHOUT_GUARDS.popitem(last=False)
    return emulated


# a translated pattern -> the same without the gap's guards: they match alike on a text that holds
# no character of the gap, and the guards cost a lookahead per character (17x slower splits).
# Bounded, least recently translated out first: a pattern that falls out still splits right, with
# its guards (only slower), and is shown with them.
MAX_REMEMBERED = 256
_WITHOUT_GUARDS: OrderedDict[str, str] = OrderedDict()
_TRANSLATED: OrderedDict[str, str] = OrderedDict()  # an Oniguruma pattern -> its translation


_touched: list[str] = []  # the Oniguruma patterns translated or read again, newest last


def translations_since(start: int) -> list[tuple[str, str, str | None]]:
    """The translations this process made or reused since ``len(_touched)`` was ``start``:
    ``(Oniguruma pattern, translation, the translation unguarded or None)``. A tokenizer read
    in a worker process comes back with them, so that here too ``unguarded`` shows its pattern
    and ``to_oniguruma`` writes the file's own (``remember_translations``)."""
    seen = dict.fromkeys(_touched[start:])
    return [(p, _TRANSLATED[p], _WITHOUT_GUARDS.get(_TRANSLATED[p])) for p in seen
            if p in _TRANSLATED]


def touched() -> int:
    """Where ``translations_since`` starts from now."""
    return len(_touched)


def remember_translations(entries: list[tuple[str, str, str | None]]) -> None:
    """Take translations made in another process (``translations_since``) as if made here."""
    for pattern, emulated, plain in entries:
        _TRANSLATED[pattern] = emulated
        _TRANSLATED.move_to_end(pattern)
        if plain is not None:
            _WITHOUT_GUARDS[emulated] = plain
            _WITHOUT_GUARDS.move_to_end(emulated)
    while len(_TRANSLATED) > MAX_REMEMBERED:
        _TRANSLATED.popitem(last=False)
    while len(_WITHOUT_GUARDS) > MAX_REMEMBERED:
        _WITHOUT_GUARDS.popitem(last=False)


def unguarded(pattern: str) -> str:
    """A pattern ``from_oniguruma`` wrote, without the gap's guards (as regex's Unicode reads
    it); any other pattern as it is."""
    return _WITHOUT_GUARDS.get(pattern, pattern)


def compile_translated(pattern: str) -> regex.Pattern | GapGuarded:
    """``regex.compile(pattern)``; a pattern ``from_oniguruma`` wrote with the gap's guards
    becomes a ``GapGuarded`` (regex.error as regex.compile raises it)."""
    plain = _WITHOUT_GUARDS.get(pattern)
    return regex.compile(pattern) if plain is None else GapGuarded(pattern, plain)


class _Translator:
    def __init__(self, pattern: str, gap: bool = True) -> None:
        self.p = pattern
        self.i = 0
        self.gap = gap  # read the gap's characters as Oniguruma does (else as regex does)

    # -- reading ---------------------------------------------------------------------------

    def fail(self, construct: str, why: str = "") -> ValueError:
        return ValueError(f"the Oniguruma construct {construct} (at character {self.i + 1})"
                          f" {why or 'has no exact counterpart in the regex package'}; bpe_core"
                          " refuses it rather than read it with another meaning")

    def peek(self, k: int = 0) -> str:
        return self.p[self.i + k] if self.i + k < len(self.p) else ""

    def starts(self, s: str) -> bool:
        return self.p.startswith(s, self.i)

    # -- the pattern -----------------------------------------------------------------------

    def translate(self) -> str:
        if self.starts("(?i)"):  # the whole pattern: regex folds fully only outside groups
            self.i += 4
            body = self.sequence(ignore_case=True, dotall=False)
            out = "(?fi)" + body
        else:
            out = self.sequence(ignore_case=False, dotall=False)
        if self.i < len(self.p):  # an unmatched ")"
            raise self.fail("')'", "closes a group that was never opened")
        return out

    def sequence(self, ignore_case: bool, dotall: bool) -> str:
        """Alternatives up to the ``)`` that ends the group (not consumed) or the end."""
        alternatives: list[list[_Leaf]] = [[]]
        while self.i < len(self.p) and self.peek() != ")":
            ch = self.peek()
            if ch == "|":
                self.i += 1
                alternatives.append([])
                continue
            switch = self._option_switch() if self.starts("(?") else None
            if switch:
                # (?i) in the middle: to the end of the enclosing group, across | (Ruby's rule)
                on, off, length = switch
                self.i += length
                case = (ignore_case or "i" in on) and "i" not in off
                dot = (dotall or "m" in on) and "m" not in off
                start = self.i
                rest = self.sequence(case, dot)
                alternatives[-1].append(self._scoped(rest, case, ignore_case, start, self.i))
                continue
            leaf = self.atom(ignore_case, dotall)
            alternatives[-1].append(self.quantified(leaf))
        return "|".join("".join(leaf.text for leaf in alt) for alt in alternatives)

    def _option_switch(self) -> tuple[str, str, int] | None:
        """``(on, off, length)`` when the text at ``i`` is an option switch ``(?im-im)``."""
        m = regex.match(r"\(\?([a-zA-Z]*)(?:-([a-zA-Z]*))?\)", self.p[self.i:])
        if not m:
            return None
        self._check_options(m[1] + (m[2] or ""))
        return m[1], m[2] or "", len(m[0])

    def _check_options(self, letters: str) -> None:
        for letter in letters:
            if letter == "x":
                raise self.fail("(?x)", "(extended mode, where spaces and # are not text) is"
                                " not read by bpe_core")
            if letter not in "im":
                raise self.fail(f"(?{letter})", "is an option bpe_core does not read (only i,"
                                " and m, which is Perl's s: a dot matches a newline)")

    def _scoped(self, body: str, case: bool, outer_case: bool, start: int, end: int) -> _Leaf:
        """``body`` (the pattern's ``start:end``) under the case rule ``case``, where the
        enclosing text has ``outer_case``."""
        if case == outer_case:
            return _Leaf(f"(?:{body})", None)
        if not case:
            return _Leaf(f"(?-i:{body})", None)
        self._check_folding(start, end)
        return _Leaf(f"(?i:{body})", None)

    def _check_folding(self, start: int, end: int) -> None:
        """Refuse a case-insensitive group whose matches full case folding would change.

        Oniguruma folds fully (ß matches ss, ﬁ matches fi); ``regex`` folds simply inside a
        group. They agree when the group matches only single ASCII letters and ASCII text in
        which no two neighbours make ss, st, ff, fi or fl (GPT-4's ``(?i:'s|'t|'re|…)``).
        """
        sub = _Translator(self.p[start:end])
        alternatives: list[list[_Leaf]] = [[]]
        while sub.i < len(sub.p):
            if sub.peek() == "|":
                sub.i += 1
                alternatives.append([])
                continue
            before = sub.i
            if sub.peek() == "(" or sub.peek() in "*+?{":
                raise self._fold_error(sub.p[before:])
            leaf = sub.atom(False, False)
            if leaf.letters is None or sub.peek() in ("*", "+", "?", "{"):
                raise self._fold_error(sub.p[before:])
            alternatives[-1].append(leaf)
        for alt in alternatives:
            for left, right in zip(alt, alt[1:]):
                if any(a + b in FOLDS for a in left.letters for b in right.letters):
                    raise self._fold_error(self.p[start:end])

    def _fold_error(self, where: str) -> ValueError:
        return ValueError(
            f"the case-insensitive group around {where[:40]!r} may match text that Oniguruma's"
            " full case folding reads otherwise (ß is ss there, ﬁ is fi), and the regex package"
            " folds fully only for a whole pattern; bpe_core reads (?i) in part of a pattern"
            " only over plain ASCII text (such as (?i:'s|'t|'re)), or a leading (?i)")

    # -- atoms -----------------------------------------------------------------------------

    def atom(self, ignore_case: bool, dotall: bool) -> _Leaf:
        ch = self.peek()
        if ch == "(":
            return self.group(ignore_case, dotall)
        if ch == "[":
            return self.char_class(ignore_case)
        if ch == "\\":
            return self.escape(ignore_case)
        self.i += 1
        if ch == ".":
            return _Leaf(r"[\s\S]" if dotall else ".", None)
        if ch == "^":
            return _Leaf("(?m:^)", frozenset())
        if ch == "$":
            return _Leaf("(?m:$)", frozenset())
        if ch in "*+?":
            raise self.fail(repr(ch), "repeats nothing")
        if ch in "{}":  # not a repeat here: a plain brace
            return _Leaf("\\" + ch, frozenset())
        if ignore_case and ch in "iI":  # regex folds İ and ı with i; Oniguruma does not
            return _Leaf("(?-i:[iI])", frozenset({"i"}))
        return _literal_leaf(ch)

    def group(self, ignore_case: bool, dotall: bool) -> _Leaf:
        start = self.i
        m = regex.match(r"\(\?([a-zA-Z]*)(?:-([a-zA-Z]*))?:", self.p[self.i:])
        if m:  # (?i:...), (?-i:...), (?m:...)
            self._check_options(m[1] + (m[2] or ""))
            self.i += len(m[0])
            case = (ignore_case or "i" in m[1]) and "i" not in (m[2] or "")
            dot = (dotall or "m" in m[1]) and "m" not in (m[2] or "")
            body_start = self.i
            body = self.sequence(case, dot)
            body_end = self.i
            self._close(start)
            return self._scoped(body, case, ignore_case, body_start, body_end)
        prefix = None
        for opening in ("(?:", "(?=", "(?!", "(?<=", "(?<!", "(?>"):
            if self.starts(opening):
                prefix = opening
                break
        if prefix is None:
            named = regex.match(r"\(\?(?:<([A-Za-z_]\w*)>|'([A-Za-z_]\w*)')", self.p[self.i:])
            if named:
                prefix = named[0]
                opening = f"(?<{named[1] or named[2]}>"
            elif self.starts("(?#"):
                end = self.p.find(")", self.i)
                if end == -1:
                    raise self.fail("(?#", "is a comment that never ends")
                self.i = end + 1
                return _Leaf("", frozenset(), atomic=False)
            elif self.starts("(?") or self.starts("(*"):
                raise self.fail(repr(self.p[self.i:self.i + 3]), "is a group kind bpe_core does"
                                " not read (absent operator, conditional or callout)")
            else:
                prefix = opening = "("
        self.i += len(prefix)
        body = self.sequence(ignore_case, dotall)
        self._close(start)
        if opening == "(?>" and regex.fullmatch(_REPEATED_ATOM, body):
            return _Leaf(body + "+", None, atomic=False)  # (?>x{1,3}) is x{1,3}+ in regex
        return _Leaf(f"{opening}{body})", None)

    def _close(self, start: int) -> None:
        if self.peek() != ")":
            self.i = start
            raise self.fail("'('", "opens a group that is never closed")
        self.i += 1

    def quantified(self, leaf: _Leaf) -> _Leaf:
        """``leaf`` with the repeats after it, each as Oniguruma reads it."""
        while True:
            ch = self.peek()
            if ch in ("*", "+", "?"):
                self.i += 1
                mod = self.peek() if self.peek() in ("?", "+") else ""
                self.i += len(mod)
                leaf = _Leaf(_wrap(leaf) + ch + mod, None, atomic=False)
                continue
            m = regex.match(r"\{(\d*)(?:(,)(\d*))?\}", self.p[self.i:]) if ch == "{" else None
            if not m or not (m[1] or (m[2] and m[3])):  # {}, {,} and a lone { are plain text
                return leaf
            self.i += len(m[0])
            low, high = m[1] or "0", m[3]
            interval = f"{{{low}}}" if not m[2] else f"{{{low},{high}}}"
            mod = self.peek() if self.peek() in ("?", "+") else ""
            self.i += len(mod)
            body = _wrap(leaf) + interval
            if mod == "+" or (mod == "?" and not m[2]):  # x{2}+ and x{2}?: repeats of x{2}
                leaf = _Leaf(f"(?:{body}){mod}", None, atomic=False)
            else:
                leaf = _Leaf(body + mod, None, atomic=False)

    # -- escapes ---------------------------------------------------------------------------

    def escape(self, ignore_case: bool = False) -> _Leaf:
        start = self.i
        self.i += 1
        ch = self.peek()
        self.i += 1
        if ch == "":
            self.i = start
            raise self.fail("'\\'", "ends the pattern")
        code = self._code_point(ch)
        if code is not None:
            return _literal_leaf(code)
        if ch in "pP":
            if ignore_case:
                self.i = start
                raise self.fail(f"'\\{ch}{{…}}' under (?i)", "folds case otherwise in"
                                " Oniguruma (which ignores case for properties)")
            body, negated, kept = self._property(ch == "P")
            if kept:
                return _onig_leaf(("\\P" + body[2:]) if negated else body, self.gap)
            return _onig_leaf(f"[^{body}]" if negated else f"[{body}]", self.gap)
        word = _onig_leaf(f"[{WORD}]", self.gap).text
        table = {
            "h": f"[{HEX}]", "H": f"[^{HEX}]", "w": word,
            "W": _onig_leaf(f"[^{WORD}]", self.gap).text,
            "A": r"\A", "z": r"\Z", "Z": "$", "G": r"\G", "K": r"\K",
            "b": f"(?:(?<={word})(?!{word})|(?<!{word})(?={word}))",
            "B": f"(?:(?<={word})(?={word})|(?<!{word})(?!{word}))",
            "R": r"(?>\r\n|[\n\v\f\r\x85\u2028\u2029])", "N": r"[^\n]", "O": r"[\s\S]",
        }
        if ch in table:
            letters = frozenset() if ch in "AzZGKbBR" else None
            return _Leaf(table[ch], letters)
        if ch in SAME_ESCAPES:  # \d: the digits Oniguruma knows
            return _Leaf(_onig_leaf("\\" + ch, self.gap).text, frozenset())
        if ch in SIMPLE_ESCAPES:
            return _Leaf(SIMPLE_ESCAPES[ch], frozenset())
        if ch == "X":
            self.i = start
            raise self.fail("'\\X'", "cuts grapheme clusters by an older Unicode rule than"
                            " regex's (Indic conjuncts such as क्ष are one cluster here, two"
                            " there)")
        if ignore_case and (ch == "k" or (ch.isdigit() and ch != "0")):
            self.i = start
            raise self.fail(f"'\\{ch}' (a back-reference under (?i))", "compares case-folded"
                            " text otherwise in Oniguruma (İi and ſs match there)")
        if ch.isdigit():
            if ch == "0":  # \0, \0oo: an octal code
                digits = regex.match(r"[0-7]{0,2}", self.p[self.i:])[0]
                self.i += len(digits)
                return _literal_leaf(chr(int(digits or "0", 8)))
            digits = ch + regex.match(r"\d*", self.p[self.i:])[0]
            self.i = start + 1 + len(digits)
            return _Leaf("\\" + digits, None)  # a numbered backreference, in both
        if ch == "k":
            m = regex.match(r"<([A-Za-z_]\w*)>", self.p[self.i:])
            if m:
                self.i += len(m[0])
                return _Leaf(f"(?P={m[1]})", None)
        if ch.isascii() and ch.isalnum():
            self.i = start
            raise self.fail(f"'\\{ch}'")
        return _literal_leaf(ch)  # an escaped punctuation mark stands for itself

    def _code_point(self, ch: str) -> str | None:
        """The character of ``\\xHH``, ``\\x{H…}`` or ``\\uHHHH`` (``ch`` is the letter after the
        backslash, already read), or None."""
        if ch == "x":
            m = regex.match(r"\{([0-9a-fA-F]{1,8})\}|([0-9a-fA-F]{1,2})", self.p[self.i:])
            if not m:
                raise self.fail("'\\x'", "is not followed by a hexadecimal code")
            self.i += len(m[0])
            value = int(m[1] or m[2], 16)
        elif ch == "u" and regex.match(r"[0-9a-fA-F]{4}", self.p[self.i:]):
            value = int(self.p[self.i:self.i + 4], 16)
            self.i += 4
        else:
            return None
        if value > 0x10FFFF or 0xD800 <= value < 0xE000:
            raise self.fail(f"code point {value:#x}", "is not a character")
        return chr(value)

    def _property(self, negated: bool, in_class: bool = False) -> tuple[str, bool, bool]:
        """After ``\\p`` or ``\\P``: ``(class body, negated, kept)``; the body is ``\\p{name}``
        as written (``kept``) when regex reads the name as Oniguruma does (``\\p{^L}`` is
        ``\\P{L}``)."""
        # a name is letters, digits, "_", " ", "-", "=" or ".": anything else inside the braces
        # ("\p{N(?<!...}") is no property, and copied as written it would be read by regex as
        # more than one character (a fuzzer's find)
        m = regex.match(r"\{(\^?)([\w .=-]*)\}", self.p[self.i:])
        if not m:
            raise self.fail("'\\p'", "is not followed by {name} (letters, digits, _ - = .)")
        self.i += len(m[0])
        negated ^= bool(m[1])
        key = m[2].replace("_", "").replace(" ", "").replace("-", "").lower()
        if key in ("extendedpictographic", "extpict"):
            self.i -= len(m[0]) + 2  # back to its backslash
            raise self.fail(f"'\\p{{{m[2]}}}'", "covers other code points in Oniguruma's"
                            " older emoji data (672 differ)")
        block = block_name(m[2])
        if block is not None and short_block_name(block):
            self.i -= len(m[0]) + 2
            raise self.fail(f"'\\p{{{m[2]}}}'", "is another name of a block, which Oniguruma"
                            " knows only by its full name (In_Greek_and_Coptic, not In_Greek):"
                            " tokenizers refuses the pattern")
        if block is not None and newer_block(block):
            self.i -= len(m[0]) + 2
            raise self.fail(f"'\\p{{{m[2]}}}'", f"names the block {newer_block(block)}, which"
                            " Oniguruma's Unicode (tokenizers 0.23) does not have: tokenizers"
                            " refuses the pattern")
        table = PROPERTIES_IN_CLASS if in_class else PROPERTIES
        if key in table:
            return table[key], negated, False
        return rf"\p{{{m[2]}}}", negated, True

    # -- character classes -----------------------------------------------------------------

    def char_class(self, ignore_case: bool = False) -> _Leaf:
        """A bracket class: unions, ranges, POSIX brackets, nested classes and ``&&``."""
        start = self.i
        self.i += 1
        negated = self.peek() == "^"
        self.i += negated
        operands: list[list[tuple[str, str]]] = [[]]  # && parts, each a union of members
        onig: list[int] = [0]  # per part: the gap's characters Oniguruma matches (a mask)
        first = True
        letters: set[str] | None = set()
        while True:
            ch = self.peek()
            if ch == "":
                self.i = start
                raise self.fail("'['", "opens a class that is never closed")
            if ch == "]" and not first:
                self.i += 1
                break
            first = False
            if self.starts("&&"):
                self.i += 2
                operands.append([])
                onig.append(0)
                letters = None
                continue
            if self.starts("[:"):
                m = regex.match(r"\[:(\^?)([a-z]+):\]", self.p[self.i:])
                if m and ignore_case:
                    raise self.fail(f"{m[0]} under (?i)", "folds case otherwise in Oniguruma")
                if m:
                    self.i += len(m[0])
                    operands[-1].append(_posix(m[2], bool(m[1]), self))
                    onig[-1] |= gap_matches(_member_atom(operands[-1][-1]), True)
                    letters = None
                    continue
            if ch == "[":
                operands[-1].append(("complex", self.char_class().text))
                onig[-1] |= gap_matches(operands[-1][-1][1], False)  # read as Oniguruma's
                letters = None
                continue
            low = self._class_char(ignore_case)
            if isinstance(low, tuple):  # \w, \h, \p{..}: a set, not a character
                operands[-1].append(low)
                onig[-1] |= gap_matches(_member_atom(low), True)
                letters = None
                continue
            if self.peek() == "-" and self.peek(1) not in ("]", ""):
                self.i += 1
                high = self._class_char(ignore_case)
                if isinstance(high, tuple):
                    raise self.fail(f"range {low!r}-…", "ends in a set, not a character")
                if ord(high) < ord(low):
                    raise self.fail(f"range {low!r}-{high!r}", "is backwards")
                operands[-1].append(("simple", _class_escape(low) + "-" + _class_escape(high)))
                onig[-1] |= gap_matches(_member_atom(operands[-1][-1]), False)
                if letters is not None and low.isascii() and high.isascii():
                    letters.update(c.lower() for c in map(chr, range(ord(low), ord(high) + 1)))
                else:
                    letters = None
                continue
            operands[-1].append(("simple", _class_escape(low)))
            onig[-1] |= gap_matches(_member_atom(operands[-1][-1]), False)
            if letters is not None and low.isascii():
                letters.add(low.lower())
            elif low.isalpha():
                letters = None
        text = _class_regex(negated, operands)
        if ignore_case:
            text = _dotted_i(text, negated, _class_regex(False, operands))
        matched = functools.reduce(operator.and_, onig)
        if negated:
            matched = full_mask() & ~matched
        if self.gap:
            text = as_oniguruma(text, matched)
        return _Leaf(text, frozenset(letters) if letters is not None and not negated else None)

    def _class_char(self, ignore_case: bool = False) -> str | tuple[str, str]:
        """One character of a class, or a ``(kind, text)`` member for a set escape."""
        ch = self.peek()
        self.i += 1
        if ch != "\\":
            return ch
        esc = self.peek()
        self.i += 1
        if esc == "":
            raise self.fail("'\\'", "ends the pattern")
        code = self._code_point(esc)
        if code is not None:
            return code
        sets = {"h": ("simple", HEX), "H": ("complex", f"[^{HEX}]"),
                "w": ("simple", WORD_IN_CLASS), "W": ("complex", f"[^{WORD_IN_CLASS}]")}
        if esc in sets:
            return sets[esc]
        if esc in SAME_ESCAPES:
            return ("simple", "\\" + esc)
        if esc in "pP":
            if ignore_case:
                self.i -= 2
                raise self.fail(f"'\\{esc}{{…}}' under (?i)", "folds case otherwise in"
                                " Oniguruma (which ignores case for properties)")
            body, negated, kept = self._property(esc == "P", in_class=True)
            if not negated:
                return ("simple", body)
            if kept:
                return ("simple", "\\P" + body[2:])
            return ("complex", f"[^{body}]")
        if esc in SIMPLE_ESCAPES:
            return {"t": "\t", "n": "\n", "r": "\r", "f": "\f", "v": "\v", "a": "\a",
                    "e": "\x1b"}[esc]
        if esc == "b":
            return "\b"  # backspace, inside a class
        if esc.isascii() and esc.isalnum():
            raise self.fail(f"'\\{esc}' inside a class")
        return esc


CONTROL_NAMES = {"\t": r"\t", "\n": r"\n", "\r": r"\r", "\f": r"\f", "\v": r"\v"}


def _code(ch: str) -> str:
    """A character that cannot stand as itself, as an escape."""
    if ch in CONTROL_NAMES:
        return CONTROL_NAMES[ch]
    code = ord(ch)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code < 0x10000 \
        else f"\\U{code:08x}"


def _literal_leaf(ch: str) -> _Leaf:
    letters = frozenset({ch.lower()}) if ch.isascii() else (None if ch.isalpha() else frozenset())
    if ch in SPECIAL:
        return _Leaf("\\" + ch, letters)
    if not ch.isprintable():
        return _Leaf(_code(ch), letters)
    return _Leaf(ch, letters)


def _class_escape(ch: str) -> str:
    """A character as a member of a regex class."""
    if ch in "\\]^-[&~|":
        return "\\" + ch
    return ch if ch.isprintable() else _code(ch)


def _posix(name: str, negated: bool, reader: _Translator) -> tuple[str, str]:
    if name in POSIX:
        body = POSIX[name]
    elif name in SAME_POSIX:
        body = f"[:{name}:]"
    else:
        raise reader.fail(f"[:{name}:]", "is not a POSIX bracket Oniguruma knows")
    if not negated:
        return ("simple", body)
    return ("complex", f"[^{body}]")


def _dotted_i(text: str, negated: bool, positive: str) -> str:
    """A class under (?i), made to treat i, I, İ (U+0130) and ı (U+0131) as Oniguruma does:
    regex folds the four together, Oniguruma folds i with I only and matches İ and ı only where
    the class holds them. So the four are decided case-sensitively, the rest by the class."""
    four = "iI\u0130\u0131"
    if not any(regex.fullmatch("(?i)" + positive, c) for c in four):
        return text
    held = "iI" if regex.fullmatch(positive, "i") or regex.fullmatch(positive, "I") else ""
    held += "".join(c for c in "\u0130\u0131" if regex.fullmatch(positive, c))
    members = "".join(c for c in four if (c in held) != negated)
    rest = f"(?!(?-i:[iI\\u0130\\u0131])){text}"
    if not members:
        return f"(?:{rest})"
    escaped = members.replace("\u0130", "\\u0130").replace("\u0131", "\\u0131")
    return f"(?:(?-i:[{escaped}])|{rest})"


def _member_atom(member: tuple[str, str]) -> str:
    r"""A class member (``("simple", r"\p{L}")`` or ``("complex", "[^…]")``) as a regex for one
    character."""
    kind, text = member
    return f"[{text}]" if kind == "simple" else text


def _onig_leaf(text: str, gap: bool = True) -> _Leaf:
    r"""A set escape (``\p{L}``, ``\w``, ``\d``), its properties as Oniguruma's Unicode has them."""
    return _Leaf(as_oniguruma(text, gap_matches(text, True)) if gap else text, None)


def _wrap(leaf: _Leaf) -> str:
    """``leaf``'s text as one atom, ready for a repeat."""
    return leaf.text if leaf.atomic else f"(?:{leaf.text})"


def _class_regex(negated: bool, operands: list[list[tuple[str, str]]]) -> str:
    """A regex for one character of a class: ``[...]`` when it can be, else alternatives
    (a union with nested sets) and lookaheads (an intersection)."""
    parts = []
    for members in operands:
        simple = "".join(text for kind, text in members if kind == "simple")
        complex_ = [text for kind, text in members if kind == "complex"]
        if not complex_:
            parts.append(("simple", simple))
            continue
        alternatives = ([f"[{simple}]"] if simple else []) + complex_
        parts.append(("complex", alternatives[0] if len(alternatives) == 1
                      else "(?:" + "|".join(alternatives) + ")"))
    if len(parts) == 1 and parts[0][0] == "simple":
        body = parts[0][1]
        if not body:
            return r"[\s\S]" if negated else "(?!)"
        return f"[^{body}]" if negated else f"[{body}]"
    # an empty side of && (Oniguruma's [a&&]) holds nothing, so the intersection matches nothing
    texts = [(f"[{text}]" if text else "(?!)") if kind == "simple" else text for kind, text in parts]
    one = texts[0] if len(texts) == 1 else "(?:" + "".join(f"(?={t})" for t in texts[:-1]) \
        + texts[-1] + ")"
    return f"(?:(?!{one})[\\s\\S])" if negated else one
