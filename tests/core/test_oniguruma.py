"""A tokenizer.json's Split regex means in bpe_core what it means in Oniguruma (issue 27), or it
is refused with the construct named (bpe_core/oniguruma.py).

Each case builds a tokenizer.json with Hugging Face ``tokenizers`` (the reference), whose
pre-tokenizer is ``Split(<Oniguruma regex>, isolated)`` then ``ByteLevel``, and compares the ids
of both on texts chosen to tell the meanings apart. ``differs`` cases also check that reading
the regex as Python's ``regex`` package would (the old, silent behaviour) gives other ids on
those texts, so each test could fail.
"""

from __future__ import annotations

import tracemalloc

import pytest
import regex
from parity_corpus import JOINED
from tokenizers import Regex, pre_tokenizers
from tokenizers import Tokenizer as HFTokenizer

from bpe_core import RegexTokenizer, read_tokenizer
from bpe_core.formats import bytes_to_unicode, to_hf_json
from bpe_core.oniguruma import from_oniguruma, unguarded

COMMON = ["Hello World 2024!", "a\nb\r\nc  ", ""]

# name: (Oniguruma regex, texts that tell the meanings apart, whether a naive reading differs)
CASES = {
    "\\h hex digit (the issue's 'an')": (r"\h+|\H", ["an", "0x1F cafe", "\t tab"], True),
    "\\H not a hex digit": (r"\H+|\h", ["an 0x1F", "\t tab"], True),
    "\\h inside a class": (r"[\h_]+|.", ["dead_beef go", "\t"], True),
    "\\H inside a class, with a letter": (r"[\Hx]+|.", ["an 0x1F", "xyz12"], True),
    "escaped backslash then h": (r"\\h+|[^\\]+", ["a\\hh b\\h", "hh"], False),
    "class intersection (the issue's 'no')": (r"[\w&&[^\d]]+|.", ["no", "no 12 a1b"], True),
    "negated intersection": (r"[^a-z&&[aeiou]]+|.", ["abe1 xyz", "queue"], True),
    "nested class is a union": (r"[a-c[x-z]]+|.", ["abxyd", "[x]"], True),
    # found by the fuzzer (tests/fuzz/crashes/oniguruma--*): an empty side was translated to "[]"
    "an empty side of && holds nothing": (r"[a&&]+|[&&b]|[^c&&]{2}|.", ["abc a&b", "&&c"], True),
    "leading ] is a character": (r"[]a]+|.", ["]a]b", "aa]"], False),
    "\\A start of text": (r"\A\s+|\S+|\s+", ["  lead", "a  b"], False),
    "\\z end of text": (r"\S+\z|.", ["ab\n", "ab", "a\nb"], False),
    "\\Z before a final newline": (r"\S+\Z|.", ["ab\n", "ab", "a\nb\n\n"], True),
    "^ and $ are line anchors": (r"^\s+|\s+$|\S+|\s", ["a \n  b \nc", " x"], True),
    "\\G where the last match ended": (r"\Ga|\S+|\s", ["aab a", "aaa"], False),
    "POSIX digit is every decimal digit": (r"[[:digit:]]+|[^[:digit:]]+", ["12٣٤x", "x९"], True),
    "POSIX alnum": (r"[[:alnum:]]+|.", ["ab12٣٤ x", "\u0bf0"], True),
    "POSIX punct includes symbols": (r"[[:punct:]]+|[^[:punct:]]+", ["a+b=c$ ©x", "aⒶⒷb"], True),
    "POSIX negated": (r"[[:^alpha:]]+|.", ["ab12 ! cd", "ⓐb"], False),
    "POSIX xdigit": (r"[[:xdigit:]]+|.", ["cafe ١٢", "0xFF"], False),
    "POSIX word has no joiners": (r"[[:word:]]+|.", ["a\u200cb\u200dc", "x²y"], True),
    "POSIX in a union": (r"[[:digit:][:space:]]+|.", ["1 2\t٣x", "a"], True),
    "\\w is Oniguruma's word": (r"\w+|\W", ["x²y Ⓐb", "a\u200cb", "৴x ½"], True),
    "\\W": (r"\W+|\w", ["x²y Ⓐb", "a\u200cb ½"], True),
    "\\b word boundary": (r".+?\b|.+", ["a²b ৴x", "a\u200cb c"], True),
    "\\B not a boundary": (r".+?\B|.+", ["a²b ৴x", "²a\u200cb c"], True),
    "\\p{Word}": (r"\p{Word}+|.", ["a²b\u200cc", "x y"], True),
    "\\p{XDigit}": (r"\p{XDigit}+|.", ["12٣ab", "ff"], True),
    "\\p{^L} and \\P{^L}": (r"\p{^L}+|\P{^L}+", ["ab12 cd", "é3"], False),
    "\\p{Greek} script": (r"\p{Greek}+|\P{Greek}+", ["abγδ ef", "Ωx"], False),
    "\\p{Punct}": (r"\p{Punct}+|.", ["a+b!c$", "x."], False),
    "leading (?i) folds fully": (r"(?i)xss|.", ["xß xSS xss", "XẞX"], True),
    "(?i) runs to the end of the group": (r"a(?i)b|c", ["c aB ab C", "cc"], True),
    "(?i:...) over ASCII text": (r"(?i:'s|'t|'re)|\w+|.", ["IT'S it's they'RE", "x"], False),
    "(?m) is dotall": (r"(?m)a.b|.", ["a\nb", "axb"], True),
    "(?m:...) scoped": (r"x(?m:.)|.", ["x\ny", "xy"], True),
    "x{2}+ repeats x{2}": (r"a{2}+|.", ["aaaaa", "aaa"], True),
    "x{2}? is optional x{2}": (r"ba{2}?|\w+|.", ["ba baa", "bab"], True),
    "x{1,2}? is lazy": (r"a{1,2}?|.", ["aaaaa"], False),
    "stacked repeats": (r"a{1,2}{2}|.", ["aaaaa", "a"], True),
    "{,n}": (r"a{,2}|.", ["aaa b"], False),
    "\\R line break": (r"\R+|\N+", ["a\r\nb\u2028c", "\n\nx"], True),
    "\\O any character": (r"a\O|.", ["a\nb", "ab"], True),
    "\\x{...} code point": (r"\x{41}+|[\x{3B1}-\x{3C9}]+|.", ["AAB αβγ", "x"], True),
    "\\k<name> backreference": (r"(?<x>\w)\k<x>|.", ["aab", "xyzz"], True),
    "(?>...) atomic repeat": (r"(?>\p{N}{1,3})|\D+", ["1234567 x", "12"], False),
}

REFUSED = {
    r"(?x) a b": r"\(\?x\)",
    r"(?W)\w+": r"\(\?W\)",
    r"(?~ab)": r"'\(\?~'",
    r"a\yb": r"'\\y'",
    r"(?<x>a)\g<x>": r"'\\g'",
    r"(?i:s+)": "case-insensitive group",
    r"x(?i)st|.": "case-insensitive group",
    r"(?i:[ß])": "case-insensitive group",
    r"(?i)\p{Lu}+|.": r"'\\p\{…\}' under \(\?i\)",  # Oniguruma ignores case for properties
    r"(?i)[[:upper:]]+|.": r"\[:upper:\] under \(\?i\)",
    r"\X": r"'\\X'",  # the texts below show each of these three reads otherwise
    r"\p{Extended_Pictographic}+|.": r"Extended_Pictographic",
    r"(?i)(.)\1|.": r"back-reference under \(\?i\)",
}
# texts where Hugging Face and the regex package cut the refused patterns apart differently
REFUSED_BECAUSE = {
    r"\X": "x\u0915\u094d\u0937",  # an Indic conjunct: one cluster in Unicode 15.1, two before
    r"\p{Extended_Pictographic}+|.": "\u2388\u2605x",  # emoji data: ⎈ and ★ were pictographic
    r"(?i)(.)\1|.": "\u0130i \u017fs",  # İi, ſs: Oniguruma's folding
}


@pytest.fixture(scope="module")
def base() -> RegexTokenizer:
    tok = RegexTokenizer()
    tok.train(JOINED[:20_000] + " an no dead_beef cafe 0x1F aaaa ss " * 20, 500)
    return tok


def hf_with_split(base: RegexTokenizer, pattern: str) -> HFTokenizer:
    hf = HFTokenizer.from_str(to_hf_json(base))
    hf.pre_tokenizer = pre_tokenizers.Sequence([
        pre_tokenizers.Split(Regex(pattern), "isolated"),
        pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False),
    ])
    return hf


BYTE_OF = {c: b for b, c in bytes_to_unicode().items()}


def hf_pieces(hf: HFTokenizer, text: str) -> list[str]:
    """The pieces Hugging Face cuts ``text`` into before BPE, as text."""
    return [bytes(BYTE_OF[c] for c in piece).decode("utf-8")
            for piece, _ in hf.pre_tokenizer.pre_tokenize_str(text)]


def naive_pieces(pattern: str, text: str) -> list[str] | None:
    """The pieces with the pattern read as the regex package reads it (None: it cannot)."""
    try:
        return RegexTokenizer(pattern).split(text)
    except ValueError:
        return None


@pytest.mark.parametrize("case", CASES)
def test_an_oniguruma_construct_gives_hugging_faces_pieces_and_ids(base, case):
    pattern, texts, differs = CASES[case]
    hf = hf_with_split(base, pattern)
    ours = read_tokenizer(hf.to_str().encode(), "tokenizer.json")
    for text in texts + COMMON:
        assert [c for c, _ in ours.chunks(text)] == hf_pieces(hf, text), from_oniguruma(pattern)
        assert ours.encode(text) == hf.encode(text, add_special_tokens=False).ids
    if differs:  # the texts tell the two readings apart
        assert [naive_pieces(pattern, t) for t in texts] != [hf_pieces(hf, t) for t in texts]


def test_the_issues_examples(base):
    """``\\h`` on "an" (a is a hex digit, n is not) and ``[\\w&&[^\\d]]`` on "no" (one piece
    of letters): the pieces worked out by hand, in HF and here."""
    for pattern, text, pieces in ((r"\h+|\H", "an", ["a", "n"]),
                                  (r"[\w&&[^\d]]+|.", "no", ["no"])):
        hf = hf_with_split(base, pattern)
        assert [p for p, _ in hf.pre_tokenizer.pre_tokenize_str(text)] == pieces
        ours = read_tokenizer(hf.to_str().encode(), "tokenizer.json")
        assert ours.encode(text) == hf.encode(text, add_special_tokens=False).ids
        assert [chunk for chunk, _ in ours.chunks(text)] == pieces


@pytest.mark.parametrize("pattern", REFUSED)
def test_a_construct_without_a_counterpart_is_refused_by_name(base, pattern):
    hf = hf_with_split(base, pattern)  # Hugging Face reads it: it is real Oniguruma
    with pytest.raises(ValueError, match=REFUSED[pattern]) as info:
        read_tokenizer(hf.to_str().encode(), "tokenizer.json")
    assert "pre_tokenizer" in str(info.value)  # the key is named too


@pytest.mark.parametrize("pattern", REFUSED_BECAUSE)
def test_the_unicode_constructs_refused_would_cut_otherwise(base, pattern):
    text = REFUSED_BECAUSE[pattern]
    assert naive_pieces(pattern, text) != hf_pieces(hf_with_split(base, pattern), text)


def test_a_pattern_perl_would_read_but_oniguruma_refuses_is_refused():
    with pytest.raises(ValueError, match=r"\(\?s\)"):
        from_oniguruma(r"(?s).")


def test_the_presets_patterns_survive_a_trip_through_oniguruma():
    from bpe_core import GPT2_SPLIT_PATTERN, GPT4_SPLIT_PATTERN, GPT4O_SPLIT_PATTERN
    from bpe_core.pipeline import to_oniguruma

    for pattern in (GPT2_SPLIT_PATTERN, GPT4_SPLIT_PATTERN, GPT4O_SPLIT_PATTERN):
        back = from_oniguruma(to_oniguruma(pattern))
        assert unguarded(back) == pattern  # the same, but for Oniguruma's older Unicode:
        assert RegexTokenizer(pattern).split("a\u0558b") == ["a\u0558b"]  # a letter here,
        assert RegexTokenizer(back).split("a\u0558b") != ["a\u0558b"]  # unassigned there


def test_a_python_pattern_hugging_face_would_fold_otherwise_is_not_written(base):
    from bpe_core.formats import to_hf_json as write

    tok = RegexTokenizer(r"(?i)[a-z]+|.", merges=base.merges)
    with pytest.raises(ValueError, match="cannot be written for Hugging Face.*case"):
        write(tok)
    safe = RegexTokenizer(r"(?i)'s|'t|'re|\s", merges=base.merges)  # ASCII text only
    hf = HFTokenizer.from_str(write(safe))
    for text in ["IT'S it's", "x'T ß ss"]:
        assert safe.encode(text) == hf.encode(text, add_special_tokens=False).ids


BMP = "".join(chr(c) for c in range(0x10000) if not 0xD800 <= c < 0xE000)


def matched_by_hugging_face(pattern: str) -> set[str]:
    """The characters of the BMP that the one-character ``pattern`` matches in Oniguruma."""
    covered = bytearray(len(BMP))
    for _, (start, end) in pre_tokenizers.Split(Regex(pattern), "removed").pre_tokenize_str(BMP):
        covered[start:end] = b"\x01" * (end - start)
    return {BMP[i] for i in range(len(BMP)) if not covered[i]}


@pytest.mark.parametrize("pattern", [r"\w", r"\W", r"[\w]", r"[\W]", r"[^\w]", r"\p{Word}",
                                     r"[\p{Word}x]", r"[[:word:]]", r"[[:alnum:]]",
                                     r"[[:punct:]]", r"[[:digit:]]", r"\p{XDigit}", r"\h",
                                     r"[\w&&[^\d]]", r"[[:^alpha:]]",
                                     *(f"[[:{name}:]]" for name in ("alpha", "ascii", "blank",
                                       "cntrl", "graph", "lower", "print", "space", "upper",
                                       "xdigit")), r"\s", r"\d", r"\p{Punct}", r"\p{Alnum}",
                                     # case-insensitive: regex folds i, I, İ and ı together
                                     r"(?i)[a-z]", r"(?i)[^a-z]", r"(?i)[A-Z]", r"(?i)[^İa]",
                                     r"(?i)[ıx]", r"(?i)i", r"(?i)[k-m]", r"(?i)\w", r"(?i).",
                                     r"(?i)ß", r"(?i)σ", r"x|(?i:[si])",
                                     # characters regex's newer Unicode assigned (U+0558...) and
                                     # U+0295 (Ll there, Lo here) read as Oniguruma reads them
                                     r"\p{L}", r"\p{Ll}", r"\p{Lo}", r"\P{L}", r"\p{N}",
                                     r"[^\r\n\p{L}\p{N}]", r"[\p{L}\u0500-\u05ff]", r"\p{Cn}",
                                     r"\p{Han}", r"[[:lower:]&&[^a]]"])
def test_a_class_matches_the_same_characters_on_the_whole_bmp(pattern):
    """Every character, those that the regex package's newer Unicode assigned or re-categorized
    included (oniguruma.NEWER_THAN_ONIGURUMA, U+0295)."""
    ours = set(regex.findall(from_oniguruma(pattern), BMP))
    assert ours == matched_by_hugging_face(pattern)


EVERY = "".join(chr(c) for c in range(0x110000) if not 0xD800 <= c < 0xE000)


@pytest.mark.parametrize("pattern", [r"\p{L}", r"[^\s\p{L}\p{N}]", r"\p{Cn}", r"\w", r"\d"])
def test_the_gap_table_is_hugging_faces_on_every_code_point(pattern):
    """Astral planes too: the characters assigned since Oniguruma's tables (CJK extensions,
    new scripts) are in no class of Oniguruma's but the unassigned's."""
    covered = bytearray(len(EVERY))
    for _, (start, end) in pre_tokenizers.Split(Regex(pattern), "removed").pre_tokenize_str(EVERY):
        covered[start:end] = b"\x01" * (end - start)
    theirs = {EVERY[i] for i in range(len(EVERY)) if not covered[i]}
    assert set(regex.findall(from_oniguruma(pattern), EVERY)) == theirs


def test_a_text_with_a_newer_character_gives_hugging_faces_ids(base):
    """Llama-3's split pattern on text with U+0558 (Armenian, Unicode 16) and ʕ: Hugging Face
    cuts them as unassigned / lower-case; bpe_core did not (one piece for "hello\u0558world",
    so 1 id where HF has 8)."""
    llama3 = (r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}"
              r"| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+")
    hf = hf_with_split(base, llama3)
    ours = read_tokenizer(hf.to_str().encode(), "tokenizer.json")
    for text in ["hello\u0558world", "a\u0295b \u0295\u0295", "x\U000323B0y 12\U00011DE0",
                 "plain text", "日本語 \u0558 and more"]:
        assert [c for c, _ in ours.chunks(text)] == hf_pieces(hf, text)
        assert ours.encode(text) == hf.encode(text, add_special_tokens=False).ids
    # U+0558 is no letter there: it prefixes "world" as a non-letter ([^\r\n\p{L}\p{N}]?)
    assert ours.split("hello\u0558world") == ["hello", "\u0558world"]


def test_the_translations_remembered_for_fast_splits_are_bounded_and_one_forgotten_still_splits():
    """A shared server reads many uploaded tokenizer.json files: the table that lets a translated
    pattern split without its Unicode guards keeps at most MAX_REMEMBERED of them. A pattern that
    fell out splits as before (its guards kept: slower, the same pieces)."""
    from bpe_core import oniguruma

    first = oniguruma.from_oniguruma(r"\p{L}+|\p{N}")
    for n in range(oniguruma.MAX_REMEMBERED + 10):
        oniguruma.from_oniguruma(rf"\p{{L}}{{1,{n + 2}}}|\s")
    assert len(oniguruma._WITHOUT_GUARDS) <= oniguruma.MAX_REMEMBERED
    assert first not in oniguruma._WITHOUT_GUARDS  # the oldest went first
    text = "hello\u0558world 42 abc"
    forgotten = oniguruma.compile_translated(first).findall(text)
    assert forgotten == regex.findall(first, text)
    assert oniguruma.from_oniguruma(r"\p{L}+|\p{N}") == first  # translated again: remembered
    assert oniguruma.compile_translated(first).findall(text) == forgotten


def test_reading_pattern_after_pattern_keeps_the_memory_bounded():
    """A server reads the tokenizer files it is sent, and each new class a pattern names is
    remembered. The fuzzer's 10-minute run of the oniguruma target reached 1 GB: each
    remembered class held its characters of the Unicode gap as a frozenset (1.2 MB for a class
    with \\p{L}: 58 MB for 50 such patterns). 200 new classes now hold less than 8 MB."""
    from_oniguruma(r"[^\s\p{L}\p{N}]")  # the gap's tables, built once, are not counted
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        for k in range(200):
            from_oniguruma(rf"[\p{{L}}\x{{{0x2500 + k:x}}}]+|\s+")
        grown = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert grown < 8_000_000, f"{grown / 1e6:.0f} MB for 200 patterns"
