"""Unicode blocks in a tokenizer.json's Split (``\\p{In_Greek_and_Coptic}``) mean in bpe_core what
they mean in Hugging Face's Oniguruma, on every code point (issue 47).

A block is a range of code points in both engines, assigned or not; a character that regex's
newer Unicode assigned stays in its block for Oniguruma, unless the block itself is newer than
Oniguruma's tables (then it is in ``No_Block``, and tokenizers refuses the block's name). Each
block name Oniguruma knows (every name the ``regex`` package knows, tried in ``tokenizers``) gets
a tokenizer.json whose Split is ``\\p{In_<name>}+``, read by both; the pieces of one text per
block are compared: the block's code points with a neighbour on each side, and the first and
last character of every range of ``unicode_gap.NEWER_THAN_ONIGURUMA``. Every code point is in
one block's text (No_Block's holds the unassigned planes and the blocks Oniguruma lacks), so
every code point is compared.
"""

from __future__ import annotations

import json

import pytest
import regex
import regex._regex_core
from tokenizers import Regex, pre_tokenizers
from tokenizers import Tokenizer as HFTokenizer

from bpe_core import RegexTokenizer, read_tokenizer
from bpe_core.formats import bytes_to_unicode, to_hf_json
from bpe_core.oniguruma import from_oniguruma
from bpe_core.unicode_gap import BLOCK_ALIASES, NEW_BLOCKS, NEWER_THAN_ONIGURUMA

BYTE_OF = {c: b for b, c in bytes_to_unicode().items()}
EVERY = [c for c in range(0x110000) if not 0xD800 <= c < 0xE000]


def knows(pattern: str) -> bool:
    """Whether Oniguruma (tokenizers) reads ``pattern``."""
    try:
        pre_tokenizers.Split(Regex(pattern), "isolated")
    except Exception:  # tokenizers' own error for a pattern Oniguruma refuses
        return False
    return True


@pytest.fixture(scope="module")
def blocks() -> dict[str, list[int]]:
    """Each block regex knows, by the name Oniguruma knows it by (None: Oniguruma knows none of
    its names), with its code points as regex reads them: ``{name: code points}``."""
    names: dict[int, list[str]] = {}
    for name, number in regex._regex_core.PROPERTIES["BLOCK"][1].items():
        names.setdefault(number, []).append(name)
    assert len(names) > 300  # regex's table is there
    by_group = "|".join(f"(?P<b{n}>\\p{{Block={spellings[0]}}}+)" for n, spellings in names.items())
    points: dict[int, list[int]] = {}
    for m in regex.finditer(by_group, "".join(map(chr, EVERY))):
        points.setdefault(int(m.lastgroup[1:]), []).extend(map(ord, m.group()))
    assert sum(map(len, points.values())) == len(EVERY)
    out = {}
    for number, spellings in names.items():
        known = next((s for s in spellings if knows(rf"\p{{In_{s}}}")), None)
        out[known or f"?{spellings[0]}"] = points.get(number, [])
    return out


def test_the_other_names_of_blocks_are_the_table_and_are_refused():
    """Oniguruma knows a block by one name only; regex by its aliases too (In_Greek)."""
    names: dict[int, list[str]] = {}
    for name, number in regex._regex_core.PROPERTIES["BLOCK"][1].items():
        names.setdefault(number, []).append(name)
    refused = set()
    for spellings in names.values():
        known = [s for s in spellings if knows(rf"\p{{In_{s}}}")]
        assert len(known) <= 1
        if known:
            refused.update(s for s in spellings if s not in known)
    assert refused == BLOCK_ALIASES
    for name in ["Greek", "Latin_1_Sup", "CJK", "PUA"]:
        assert not knows(rf"\p{{In_{name}}}")
        with pytest.raises(ValueError, match="full name.*tokenizers refuses"):
            from_oniguruma(rf"\p{{In_{name}}}+")


def test_the_blocks_oniguruma_lacks_are_the_table_and_are_refused(blocks):
    lacking = {name[1:] for name in blocks if name.startswith("?")}
    assert lacking == {name.replace("_", "").upper() for name in NEW_BLOCKS}
    for name in NEW_BLOCKS:
        with pytest.raises(ValueError, match=f"block {name}.*tokenizers refuses"):
            from_oniguruma(rf"\p{{In_{name}}}+")


def with_split(document: dict, pattern: str) -> str:
    """The tokenizer.json ``document`` with the pre-tokenizer Split(``pattern``) then ByteLevel."""
    split = {"type": "Split", "pattern": {"Regex": pattern}, "behavior": "Isolated",
             "invert": False}
    byte_level = {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True,
                  "use_regex": False}
    document["pre_tokenizer"] = {"type": "Sequence", "pretokenizers": [split, byte_level]}
    return json.dumps(document)


def gap_sample() -> list[int]:
    """The first and last character of every range of the gap, and U+0295 and U+0378."""
    out = [0x295, 0x378]
    for part in NEWER_THAN_ONIGURUMA.split():
        low, _, high = part.partition("-")
        out += [int(low, 16), int(high or low, 16)]
    return out


def test_every_block_oniguruma_knows_cuts_as_hugging_face_on_every_code_point(blocks):
    base = json.loads(to_hf_json(RegexTokenizer("")))
    sample = gap_sample()
    compared = set()
    newer = [c for name, points in blocks.items() if name.startswith("?") for c in points]
    for name, points in blocks.items():
        if name.startswith("?"):
            continue
        if name == "NOBLOCK":  # Oniguruma's No_Block holds the blocks it lacks
            points = sorted([*points, *newer])
        near = {p for c in points for p in (c - 1, c + 1)} - set(points)
        text = "".join(chr(c) for c in [*points, *sorted(near), *sample]
                       if 0 <= c < 0x110000 and not 0xD800 <= c < 0xE000)
        compared.update(map(ord, text))
        document = with_split(base, rf"\p{{In_{name}}}+")
        hf = HFTokenizer.from_str(document)
        ours = read_tokenizer(document.encode(), "tokenizer.json")
        theirs = [bytes(BYTE_OF[c] for c in piece).decode("utf-8")
                  for piece, _ in hf.pre_tokenizer.pre_tokenize_str(text)]
        assert [chunk for chunk, _ in ours.chunks(text)] == theirs, name
    assert len(compared) == len(EVERY)


def test_the_issues_example_gives_hugging_faces_ids():
    """``αβ\\u0558γ``: U+0558 is Armenian (Unicode 16) in both engines, not Greek."""
    tok = RegexTokenizer("")
    tok.train("αβγ αβγ αβ αβ γγ" * 5, 262)
    text = with_split(json.loads(to_hf_json(tok)), r"\p{In_Greek_and_Coptic}+")
    hf, ours = HFTokenizer.from_str(text), read_tokenizer(text.encode(), "tokenizer.json")
    for sample in ["αβ\u0558γ", "αβγ", "\u0558\u0558αβγ\u058b"]:
        expected = hf.encode(sample, add_special_tokens=False).ids
        assert ours.encode(sample) == expected
    assert len(ours.encode("αβ\u0558γ")) > 1 and not ours.ignored
