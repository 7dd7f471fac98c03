"""Oniguruma's older Unicode: the characters the ``regex`` package knows and Oniguruma
(``tokenizers`` 0.23) does not, and the guards that make a translated class read them as
Oniguruma does (``oniguruma.py`` writes the classes; this module says what the gap is).

A character of the gap is, for Oniguruma, an unassigned code point: in no general category but
Cn, in no script but Unknown. It still lies in its block (blocks are ranges of code points, in
both engines), unless its block is newer than Oniguruma's tables (Unicode 17's, ``NEW_BLOCKS``):
then it is in Oniguruma's ``No_Block``. So a class that names a block reads the gap through
``GAP_BLOCK_STAND_INS``, every other class through ``GAP_STAND_INS`` (U+0378, unassigned in both
and in the Greek block, which is why a block needs stand-ins of its own).
"""

from __future__ import annotations

import functools
from typing import NamedTuple

import regex

# The oldest regex package whose Unicode has every block below (Unicode 17's: 2026.8.31 lacks
# Jurchen, Seal and Bengali_Supplement); tests/core/test_oniguruma*.py pass with it (128 of 128,
# checked 2026-12-06). pyproject.toml asks for it; an older one is refused at import, by name.
REGEX_FLOOR = (2026, 9, 29)


def regex_too_old(version: str) -> str | None:
    """Why ``version`` of the regex package cannot hold the tables below, or None.

    >>> regex_too_old("2026.11.15") is None
    True
    >>> regex_too_old("2026.5.9")
    'bpe_core needs the regex package 2026.9.29 or newer (Unicode 17), and this Python has 2026.5.9: pip install -U regex'
    """
    parts = []
    for part in version.split(".")[:3]:
        digits = "".join(c for c in part if c.isdigit()) or "0"
        parts.append(int(digits))
    if tuple(parts) >= REGEX_FLOOR:
        return None
    floor = ".".join(map(str, REGEX_FLOOR))
    return (f"bpe_core needs the regex package {floor} or newer (Unicode 17), and this Python"
            f" has {version}: pip install -U regex")


if (_why := regex_too_old(getattr(regex, "__version__", "0"))) is not None:
    raise ImportError(_why)

# Characters the regex package knows and Oniguruma (tokenizers 0.23) does not: unassigned there,
# so in no class but the unassigned's (measured with tokenizers on every code point; tests/
# core/test_oniguruma.py checks the table). And U+0295, Ll there and Lo here. Every class that
# names a property reads them as Oniguruma does (``as_oniguruma``).
NEWER_THAN_ONIGURUMA = """
0558 058B-058C 05C8-05C9 088F 0B53-0B54 0C5C 0CDC 1ACF-1AF0 208F 209D-209F 20C1-20C4
2B96 2E60-2E63 A7CE-A7CF A7D2 A7D4 A7DD A7E2 A7F1 AB6C-AB6D FBC3-FBD2 FD90-FD91
FDC8-FDCE 107BB-107BF 10940-10959 10EC5-10EC7 10EC9-10EEE 10EF0-10EFB 11B0A 11B60-11B67
11DB0-11DDB 11DE0-11DE9 11DF0-11DF1 1246F 12475-1247F 12550-12686 16EA0-16EB8
16EBB-16ED3 16FF2-16FF6 187F8-187FF 18CD6-18CDA 18D09-18D20 18D80-18DF2 18E00-19191
191A0-191D2 1B123-1B128 1B168 1CCFA-1CCFC 1CEBA-1CED0 1CED2-1CED4 1CEDD-1CEFD
1D127-1D128 1D1EB-1D1FF 1D250-1D281 1D6A6 1DB00-1DB1C 1DF1F-1DF24 1DF2B-1DF81
1DF90-1DF96 1DFCD-1DFFF 1E6C0-1E6DE 1E6E0-1E6F5 1E6FE-1E6FF 1F1AE 1F6D8-1F6D9
1F777-1F77A 1F7DA-1F7DB 1F7F1-1F7FF 1F8D0-1F8D8 1FA54-1FA57 1FA8A-1FA8E 1FAC8
1FACC-1FACD 1FADD 1FAEA-1FAEB 1FAEF 1FAF9-1FAFA 1FBFA 2B73A-2B73F 2B81E 2CEA2-2CEAD
323B0-33479 3D000-3FC3F
"""
OLDER_CATEGORY = {"\u0295": "\u0250"}  # ʕ: Oniguruma's Ll, as ɐ is in both

# Blocks that regex's Unicode 17 has and Oniguruma's Unicode 16 does not (tokenizers refuses
# \p{In_Sidetic}): name -> its first code point. Measured with tokenizers 0.23 on every block
# name regex knows (tests/core/test_oniguruma_blocks.py checks the table).
NEW_BLOCKS = {
    "Sidetic": 0x10940, "Sharada_Supplement": 0x11B60, "Tolong_Siki": 0x11DB0,
    "Bengali_Supplement": 0x11DF0, "Archaic_Cuneiform_Numerals": 0x12550, "Beria_Erfe": 0x16EA0,
    "Tangut_Components_Supplement": 0x18D80, "Jurchen": 0x18E00, "Jurchen_Radicals": 0x191A0,
    "Miscellaneous_Symbols_Supplement": 0x1CEC0, "Musical_Symbols_Supplement": 0x1D250,
    "Miscellaneous_Symbols_And_Arrows_Extended": 0x1DB00, "Tai_Yo": 0x1E6C0,
    "CJK_Unified_Ideographs_Extension_J": 0x323B0, "Seal": 0x3D000,
}


def _gap() -> tuple[str, str]:
    """(each character of the gap, the same length: a stand-in with Oniguruma's properties for
    it: U+0378, unassigned in both, for a newer character). The gap holds the newer characters,
    U+0295, and every code point of a block newer than Oniguruma's (in its No_Block)."""
    chars = []
    for part in NEWER_THAN_ONIGURUMA.split():
        low, _, high = part.partition("-")
        chars += map(chr, range(int(low, 16), int(high or low, 16) + 1))
    chars += OLDER_CATEGORY
    listed = set(chars)  # and the unassigned code points of the newer blocks (No_Block there)
    for name, first in NEW_BLOCKS.items():
        window = "".join(map(chr, range(first, min(first + 0x4000, 0x110000))))
        chars += [c for c in regex.match(rf"\p{{Block={name}}}+", window)[0] if c not in listed]
    return "".join(chars), "".join(OLDER_CATEGORY.get(c, "\u0378") for c in chars)




# Other names of blocks Oniguruma knows: regex reads them (In_Greek, In_Latin_1_Sup), Oniguruma
# knows a block only by its full name (In_Greek_and_Coptic), so tokenizers refuses these. Written
# as regex normalizes names (capitals, no spaces, "_" or "-"); tests/core/test_oniguruma_blocks.py
# checks the list against tokenizers.
BLOCK_ALIASES = frozenset("""
ALCHEMICAL ALPHABETICPF ANCIENTGREEKMUSIC ARABICEXTA ARABICEXTB ARABICEXTC ARABICMATH ARABICPFA
ARABICPFB ARABICSUP ASCII BAMUMSUP BOPOMOFOEXT BRAILLE BYZANTINEMUSIC CANADIANSYLLABICS
CHEROKEESUP CJK CJKCOMPAT CJKCOMPATFORMS CJKCOMPATIDEOGRAPHS CJKCOMPATIDEOGRAPHSSUP CJKEXTA
CJKEXTB CJKEXTC CJKEXTD CJKEXTE CJKEXTF CJKEXTG CJKEXTH CJKEXTI CJKRADICALSSUP CJKSYMBOLS
COMBININGMARKSFORSYMBOLS COMPATJAMO COUNTINGROD CUNEIFORMNUMBERS CYRILLICEXTA CYRILLICEXTB
CYRILLICEXTC CYRILLICEXTD CYRILLICSUP CYRILLICSUPPLEMENTARY DEVANAGARIEXT DEVANAGARIEXTA
DIACRITICALS DIACRITICALSEXT DIACRITICALSFORSYMBOLS DIACRITICALSSUP DOMINO
EGYPTIANHIEROGLYPHSEXTA ENCLOSEDALPHANUM ENCLOSEDALPHANUMSUP ENCLOSEDCJK ENCLOSEDIDEOGRAPHICSUP
ETHIOPICEXT ETHIOPICEXTA ETHIOPICEXTB ETHIOPICSUP GEOMETRICSHAPESEXT GEORGIANEXT GEORGIANSUP
GLAGOLITICSUP GREEK GREEKEXT HALFANDFULLFORMS HALFMARKS HANGUL HIGHPUSURROGATES IDC
IDEOGRAPHICSYMBOLS INDICNUMBERFORMS IPAEXT JAMO JAMOEXTA JAMOEXTB KANAEXTA KANAEXTB KANASUP
KANGXI KATAKANAEXT LATIN1 LATIN1SUP LATINEXTA LATINEXTADDITIONAL LATINEXTB LATINEXTC LATINEXTD
LATINEXTE LATINEXTF LATINEXTG LISUSUP MAHJONG MATHALPHANUM MATHOPERATORS MEETEIMAYEKEXT
MISCARROWS MISCMATHSYMBOLSA MISCMATHSYMBOLSB MISCPICTOGRAPHS MISCSYMBOLS MISCTECHNICAL
MODIFIERLETTERS MONGOLIANSUP MUSIC MYANMAREXTA MYANMAREXTB MYANMAREXTC NB OCR PHAISTOS
PHONETICEXT PHONETICEXTSUP PRIVATEUSE PUA PUNCTUATION RUMI SMALLFORMS SMALLKANAEXT SUNDANESESUP
SUPARROWSA SUPARROWSB SUPARROWSC SUPERANDSUB SUPMATHOPERATORS SUPPUAA SUPPUAB SUPPUNCTUATION
SUPSYMBOLSANDPICTOGRAPHS SYMBOLSANDPICTOGRAPHSEXTA SYMBOLSFORLEGACYCOMPUTINGSUP SYRIACSUP
TAIXUANJING TAMILSUP TANGUTSUP TRANSPORTANDMAP UCAS UCASEXT UCASEXTA VEDICEXT VS VSSUP YIJING
ZNAMENNYMUSIC
""".split())
NO_BLOCK_STAND_IN = "\u2fe0"  # unassigned in both engines, in no block


class _Gap(NamedTuple):
    chars: str  # GAP
    stand_ins: str  # GAP_STAND_INS
    block_stand_ins: str  # GAP_BLOCK_STAND_INS
    members: frozenset[str]


@functools.cache
def _tables() -> _Gap:
    """The gap's tables, made at their first use, not at import: a process that never meets a
    translated pattern or a character past ASCII does not pay for them (0.3 s of CPU at the
    first use, most of it the regex package's first look at its block tables)."""
    chars, stand_ins = _gap()
    new_block = regex.compile("[" + "".join(rf"\p{{Block={name}}}" for name in NEW_BLOCKS) + "]")
    block_stand_ins = "".join(NO_BLOCK_STAND_IN if new_block.match(c) else c for c in chars)
    return _Gap(chars, stand_ins, block_stand_ins, frozenset(chars))


_LAZY = {"GAP": "chars", "GAP_STAND_INS": "stand_ins", "GAP_BLOCK_STAND_INS": "block_stand_ins"}


def __getattr__(name: str) -> str:  # GAP, GAP_STAND_INS, GAP_BLOCK_STAND_INS, made when read
    if name in _LAZY:
        return getattr(_tables(), _LAZY[name])
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def gap_size() -> int:
    """How many characters the gap holds (the positions ``gap_matches`` gives run below it)."""
    return len(_tables().chars)
# \p{In_Greek}, \P{^InArmenian}, [^\p{In_No_Block}]: a class of one block (name after "In")
_BLOCK_ATOM = regex.compile(r"(?:\[\^?)?\\[pP]\{\^?[ _-]*[iI][nN][ _-]*([^}]*)\}\]?")


def block_name(name: str) -> str | None:
    """The block a property name such as ``In_Greek_and_Coptic`` names (the part after "In"),
    or None when it names no block (``Inherited`` is a script)."""
    m = regex.fullmatch(r"[ _-]*[iI][nN][ _-]*(.+)", name)
    if not m:
        return None
    try:
        regex.compile(rf"\p{{Block={m[1]}}}")
    except regex.error:
        return None
    return m[1]


def short_block_name(name: str) -> bool:
    """Whether a block name (after "In") is one of the other names Oniguruma does not know."""
    return regex.sub(r"[ _-]", "", name).upper() in BLOCK_ALIASES


def newer_block(name: str) -> str | None:
    """The name of Oniguruma's missing block that the block ``name`` is (``NEW_BLOCKS``), or
    None."""
    named = regex.compile(rf"\p{{Block={name}}}")
    return next((new for new, first in NEW_BLOCKS.items() if named.match(chr(first))), None)


def _mask(marks: str) -> int:
    """A mask (bit k: position k of the gap) from one mark per position, "1" for a member:
    an int of 2.3 KB for the whole gap, where a frozenset of its 18,195 positions took 1 MB."""
    return int(marks[::-1], 2) if marks else 0


def _marks(compiled: regex.Pattern[str], chars: str) -> str:
    """ "1" where the one-character regex matches a character of ``chars`` (none of which is
    ASCII), "0" elsewhere: at the regex engine's speed, not a Python loop per character."""
    marked = compiled.sub("1", chars)
    if len(marked) != len(chars):  # it matched more or less than one character somewhere
        return "".join("1" if compiled.fullmatch(c) else "0" for c in chars)
    return _NOT_ONE.sub("0", marked)


_NOT_ONE = regex.compile("[^1]")


def _gap_positions(mask: int) -> list[int]:
    """The positions whose bits ``mask`` sets, highest first."""
    spelled = format(mask, "b")
    top = len(spelled) - 1
    return [top - i for i, bit in enumerate(spelled) if bit == "1"]


def full_mask() -> int:
    """Every character of the gap, as a mask."""
    return (1 << len(_tables().chars)) - 1


# one entry per class member a pattern names: bounded, so that a server reading pattern after
# pattern does not keep one per member it ever saw (a fuzzer's 10-minute run reached 1 GB with
# an unbounded cache of frozensets)
@functools.lru_cache(maxsize=1024)
def gap_matches(atom: str, stand_in: bool) -> int:
    """Which characters of the gap (their positions in GAP, as the bits of a mask) the
    one-character regex ``atom`` matches: the characters themselves, or (``stand_in``) as
    Oniguruma sees them."""
    compiled, gap = regex.compile(atom), _tables()
    if not stand_in:
        return _mask(_marks(compiled, gap.chars))
    block = _BLOCK_ATOM.fullmatch(atom)
    if block and block_name("In" + block[1]):  # a block: the gap's characters lie in theirs
        return _mask(_marks(compiled, gap.block_stand_ins))
    seen = {ord(c): "1" if compiled.fullmatch(c) else "0" for c in set(gap.stand_ins)}
    return _mask(gap.stand_ins.translate(seen))


@functools.lru_cache(maxsize=256)  # a few sets recur in every pattern (\p{L}'s, \p{N}'s, \s's):
def _gap_class(positions: int) -> str:  # 0.01 s each to spell, 10x that in a fuzzer
    chars = _tables().chars
    codes = sorted(ord(chars[k]) for k in _gap_positions(positions))
    runs: list[list[int]] = []
    for c in codes:
        if runs and runs[-1][1] == c - 1:
            runs[-1][1] = c
        else:
            runs.append([c, c])
    spell = "\\U{:08X}".format
    return "[" + "".join(spell(a) if a == b else f"{spell(a)}-{spell(b)}" for a, b in runs) + "]"


def as_oniguruma(text: str, onig: int) -> str:
    """``text`` (a regex for one character) made to match the gap's characters exactly when
    Oniguruma's class does (``onig``: their positions in GAP, as a mask)."""
    here = gap_matches(text, False)
    if here == onig:
        return text
    out, into = here & ~onig, onig & ~here  # case-sensitive: under (?i) ꟎ would take Ꟍ along
    guarded = f"(?-i:(?!{_gap_class(out)})){text}" if out else text
    return f"(?:{guarded}|(?-i:{_gap_class(into)}))" if into else f"(?:{guarded})"


def holds_gap(text: str) -> bool:
    """Whether ``text`` holds a character that Oniguruma's Unicode reads otherwise."""
    return not text.isascii() and not _tables().members.isdisjoint(text)


class GapGuarded:
    """A translated pattern, compiled twice: with the gap's guards for a text that holds a
    character of the gap, without them (as fast as the pattern itself) for any other text. It
    answers ``findall``, ``finditer``, ``search``, ``match``, ``fullmatch``, ``sub`` and
    ``split`` as a compiled pattern does."""

    def __init__(self, pattern: str, plain: str) -> None:
        self.pattern = pattern
        self.guarded, self.plain = regex.compile(pattern), regex.compile(plain)

    @property
    def groups(self) -> int:
        return self.guarded.groups

    @property
    def flags(self) -> int:
        return self.guarded.flags

    def _for(self, text: str) -> regex.Pattern:
        return self.guarded if holds_gap(text) else self.plain

    def findall(self, text: str, *args, **kwargs) -> list:
        return self._for(text).findall(text, *args, **kwargs)

    def finditer(self, text: str, *args, **kwargs):
        return self._for(text).finditer(text, *args, **kwargs)

    def search(self, text: str, *args, **kwargs):
        return self._for(text).search(text, *args, **kwargs)

    def match(self, text: str, *args, **kwargs):
        return self._for(text).match(text, *args, **kwargs)

    def fullmatch(self, text: str, *args, **kwargs):
        return self._for(text).fullmatch(text, *args, **kwargs)

    def sub(self, repl, text: str, *args, **kwargs) -> str:
        return self._for(text).sub(repl, text, *args, **kwargs)

    def split(self, text: str, *args, **kwargs) -> list:
        return self._for(text).split(text, *args, **kwargs)
