"""The split patterns of OpenAI's tokenizers, as tiktoken 0.14 writes them.

A split pattern cuts text into chunks before BPE runs; merges never cross a chunk
boundary, so " dog" and "dog." can never become one token.
"""

GPT2_SPLIT_PATTERN = (
    r"""'(?:[sdmt]|ll|ve|re)| ?\p{L}++| ?\p{N}++| ?[^\s\p{L}\p{N}]++|\s++$|\s+(?!\S)|\s"""
)

# Hugging Face's ByteLevel pre-tokenizer (use_regex): GPT-2's split as tokenizers writes it
BYTE_LEVEL_PATTERN = r"'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"

GPT4_SPLIT_PATTERN = (
    r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+"""
    r"""|\s++$|\s*[\r\n]|\s+(?!\S)|\s"""
)

_GPT4O_PARTS = (
    [
        r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
        r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
        r"""\p{N}{1,3}""",
        r""" ?[^\s\p{L}\p{N}]+[\r\n/]*""",
        r"""\s*[\r\n]+""",
        r"""\s+(?!\S)""",
        r"""\s+""",
    ]
)
GPT4O_SPLIT_PATTERN = "|".join(_GPT4O_PARTS)

# -- digit rules: GPT-4's pattern with only its digit part changed (the Numbers page) -----------
#
# The same text, cut by four rules for runs of digits; letters, spaces and punctuation are cut
# as GPT-4 cuts them. ``{1,3}+`` is possessive (it never gives digits back): at the end of its
# alternative that changes nothing, and GPT-4 writes it so.

GPT4_DIGIT_RULE = r"\p{N}{1,3}+"  # "1234567" -> "123", "456", "7": threes from the left
SINGLE_DIGIT_RULE = r"\p{N}"  # "1234567" -> "1", "2", "3", ... (as LLaMA 1 and 2 cut them)
TWO_DIGIT_RULE = r"\p{N}{1,2}+"  # "1234567" -> "12", "34", "56", "7"
# Threes from the right, as thousands separators group them: "1234567" -> "1", "234", "567".
# The first group of a run of digits (the lookbehind (?<!\p{N}): no digit just before it) takes
# 1 to 3 digits, as many as leave a whole number of threes behind it: the lookahead
# (?=(?:\p{N}{3})*+(?!\p{N})) reads the rest of the run in threes and asks that no digit is left
# over. Every later group (a digit just before it) is then exactly three digits: \p{N}{3}.
# Checking the lookahead once per run, not once per group, keeps a long run fast; the possessive
# *+ reads the run once and never backtracks into it.
RIGHT_THREES_DIGIT_RULE = r"(?<!\p{N})\p{N}{1,3}(?=(?:\p{N}{3})*+(?!\p{N}))|\p{N}{3}"


def with_digit_rule(rule: str) -> str:
    """GPT-4's split pattern with its digit part (``\\p{N}{1,3}+``) replaced by ``rule``.

    >>> with_digit_rule(GPT4_DIGIT_RULE) == GPT4_SPLIT_PATTERN
    True
    >>> with_digit_rule(r"\\p{N}").count(r"|\\p{N}|")
    1
    """
    if GPT4_SPLIT_PATTERN.count(GPT4_DIGIT_RULE) != 1:  # the one place digits are cut
        raise ValueError("GPT4_SPLIT_PATTERN has no single digit part to replace")
    return GPT4_SPLIT_PATTERN.replace(GPT4_DIGIT_RULE, rule)


# name -> the whole split pattern, in the order the Numbers page shows them
DIGIT_PRESETS: dict[str, str] = {
    "single digits": with_digit_rule(SINGLE_DIGIT_RULE),
    "up to 2 digits": with_digit_rule(TWO_DIGIT_RULE),
    "up to 3 digits (GPT-4)": GPT4_SPLIT_PATTERN,
    "threes from the right": with_digit_rule(RIGHT_THREES_DIGIT_RULE),
}
# name -> the digit part alone, to show beside each preset
DIGIT_RULES: dict[str, str] = {
    "single digits": SINGLE_DIGIT_RULE,
    "up to 2 digits": TWO_DIGIT_RULE,
    "up to 3 digits (GPT-4)": GPT4_DIGIT_RULE,
    "threes from the right": RIGHT_THREES_DIGIT_RULE,
}

# -- word runs: BoundlessBPE's coarser split (boundless.py) -------------------------------------
#
# A built-in pattern with one alternative put first: a run of consecutive pieces that the
# pattern's word alternatives match (the ones that hold letters: contractions and words with
# their leading space or mark), as one piece. Each repetition tries the word alternatives in the
# pattern's own order at the place where the pattern itself would start its next match, so the
# run is exactly the pattern's pieces there, joined; where no word alternative matches, the
# pattern's own alternatives cut as before. No word alternative takes a line break.
WORD_RUN_PATTERNS: dict[str, str] = {
    GPT2_SPLIT_PATTERN: r"(?:'(?:[sdmt]|ll|ve|re)| ?\p{L}++)+|" + GPT2_SPLIT_PATTERN,
    GPT4_SPLIT_PATTERN: r"(?:'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++)+|"
                        + GPT4_SPLIT_PATTERN,
    GPT4O_SPLIT_PATTERN: "(?:" + "|".join(_GPT4O_PARTS[:2]) + ")+|" + GPT4O_SPLIT_PATTERN,
}
