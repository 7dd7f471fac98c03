"""tokenizer.json files that normalize, pre-tokenize and add tokens: every one bpe_core reads gives
Hugging Face's ids, and every one it cannot follow is refused with the key named.

The variants are built with the ``tokenizers`` library (a test-only reference) on top of a
tokenizer trained here, then read back by ``bpe_core.read_tokenizer`` from the library's own JSON.
"""

from __future__ import annotations

import json
import unicodedata

import pytest
from hf_unicode import EVERY_CHAR, accent_table, lowercase_table, normalize_kept, ranges
from parity_corpus import CORPUS, JOINED
from tokenizers import AddedToken, Regex, normalizers, pre_tokenizers
from tokenizers import Tokenizer as HFTokenizer

import bpe_core
from bpe_core import RegexTokenizer, read_tokenizer
from bpe_core import pipeline as bp
from bpe_core.formats import to_hf_json

TEXTS = [bpe_core.clean_text(text) for _, text in CORPUS]  # HF takes no lone surrogates
EXTRA = [  # what the features act on: marks, case, final sigma, digits, added-token neighbours
    "ΣΊΣΥΦΟΣ  Ὀδυσσεύς ΌΣΟΣ", "Crème BRÛLÉE, ﬁne ½ ㋿ ①②③ Ǆemal", "  lead and trail  ",
    "x<tool>y  <tool>  z<tool>", "<mask> a <mask>b c<mask>", "[MASK] ok", "2024-11-23 12345678",
    "hello<tool>world", "naïve café ﬀ", "", " ", "\n\n", "<|endoftext|> tail",
]


@pytest.fixture(scope="module")
def base() -> RegexTokenizer:
    tok = RegexTokenizer()
    tok.train(JOINED, 700)
    tok.register_special_tokens({"<|endoftext|>": 700, "<mask>": 701})
    return tok


def hf_of(tok) -> HFTokenizer:
    return HFTokenizer.from_str(to_hf_json(tok))


def same_ids(hf: HFTokenizer, texts=TEXTS + EXTRA) -> None:
    ours = read_tokenizer(hf.to_str().encode("utf-8"), "tokenizer.json")
    for text in texts:
        expected = hf.encode(text, add_special_tokens=False).ids
        assert ours.encode(text, allowed_special="all") == expected, (text[:80], hf.to_str()[:0])


NORMALIZERS = {
    "NFC": normalizers.NFC(),
    "NFD": normalizers.NFD(),
    "NFKC": normalizers.NFKC(),
    "NFKD": normalizers.NFKD(),
    "Lowercase": normalizers.Lowercase(),
    "StripAccents": normalizers.StripAccents(),
    "Strip": normalizers.Strip(),
    "Strip left": normalizers.Strip(left=True, right=False),
    "Replace string": normalizers.Replace("  ", " "),
    "Replace regex": normalizers.Replace(Regex(r"\s+$"), "!"),
    "Prepend": normalizers.Prepend("\u2581"),
    "NFKC + Lowercase": normalizers.Sequence([normalizers.NFKC(), normalizers.Lowercase()]),
    "NFD + StripAccents + Lowercase": normalizers.Sequence(
        [normalizers.NFD(), normalizers.StripAccents(), normalizers.Lowercase()]),
}


@pytest.mark.parametrize("kind", NORMALIZERS)
def test_normalizers_give_hugging_faces_ids(base, kind):
    hf = hf_of(base)
    hf.normalizer = NORMALIZERS[kind]
    same_ids(hf)


def _split(pattern, behavior="isolated", invert=False):
    return pre_tokenizers.Split(pattern, behavior, invert=invert)


GPT4 = Regex(bp.to_oniguruma(bpe_core.GPT4_SPLIT_PATTERN))
PRE_TOKENIZERS = {
    "ByteLevel, GPT-2 regex, prefix space": [pre_tokenizers.ByteLevel(True, use_regex=True)],
    "ByteLevel, GPT-2 regex": [pre_tokenizers.ByteLevel(False, use_regex=True)],
    "Split + ByteLevel with prefix space": [
        _split(GPT4), pre_tokenizers.ByteLevel(True, use_regex=False)],
    "Split + ByteLevel with regex": [_split(GPT4), pre_tokenizers.ByteLevel(False, use_regex=True)],
    **{f"Split {b}": [_split(Regex(r"\s+"), b), pre_tokenizers.ByteLevel(False, use_regex=False)]
       for b in ("removed", "isolated", "merged_with_previous", "merged_with_next", "contiguous")},
    **{f"Split {b}, inverted": [_split(Regex(r"\p{L}+"), b, True),
                                pre_tokenizers.ByteLevel(False, use_regex=False)]
       for b in ("removed", "merged_with_previous", "merged_with_next", "contiguous")},
    "Split on a string": [_split(", "), pre_tokenizers.ByteLevel(False, use_regex=False)],
    "Split with line anchors": [_split(Regex(r"^\s+|\s+$|\w+|[^\w\s]+")),
                                pre_tokenizers.ByteLevel(False, use_regex=False)],
    "Digits one by one": [pre_tokenizers.Digits(True), pre_tokenizers.ByteLevel(False)],
    "Digits together": [pre_tokenizers.Digits(False), pre_tokenizers.ByteLevel(False)],
    "Punctuation": [pre_tokenizers.Punctuation(), pre_tokenizers.ByteLevel(False)],
    "Punctuation merged": [pre_tokenizers.Punctuation("merged_with_next"),
                           pre_tokenizers.ByteLevel(False, use_regex=False)],
    "Whitespace": [pre_tokenizers.Whitespace(), pre_tokenizers.ByteLevel(False, use_regex=False)],
    "WhitespaceSplit": [pre_tokenizers.WhitespaceSplit(),
                        pre_tokenizers.ByteLevel(True, use_regex=False)],
    "CharDelimiterSplit": [pre_tokenizers.CharDelimiterSplit("a"),
                           pre_tokenizers.ByteLevel(False, use_regex=False)],
    "Llama-3 style": [_split(Regex(
        r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*"
        r"|\s*[\r\n]+|\s+(?!\S)|\s+")), pre_tokenizers.ByteLevel(False, use_regex=False)],
}


@pytest.mark.parametrize("kind", PRE_TOKENIZERS)
def test_pre_tokenizers_give_hugging_faces_ids(base, kind):
    hf = hf_of(base)
    hf.pre_tokenizer = pre_tokenizers.Sequence(PRE_TOKENIZERS[kind])
    same_ids(hf)


ADDED = {
    "special, lstrip + rstrip": [AddedToken("<mask>", special=True, lstrip=True, rstrip=True)],
    "special, single word": [AddedToken("<mask>", special=True, single_word=True)],
    "not special, normalized": [AddedToken("<tool>", special=False, normalized=True)],
    "not special, not normalized": [AddedToken("<tool>", special=False, normalized=False)],
    "not special, stripping": [AddedToken("<tool>", special=False, lstrip=True, rstrip=True)],
    "a word that is also a token": [AddedToken("hello", special=False)],
}


@pytest.mark.parametrize("kind", ADDED)
@pytest.mark.parametrize("with_normalizer", [False, True], ids=["plain", "NFKC+Lowercase"])
def test_added_tokens_give_hugging_faces_ids(base, kind, with_normalizer):
    hf = hf_of(base)
    if with_normalizer:
        hf.normalizer = NORMALIZERS["NFKC + Lowercase"]
    tokens = ADDED[kind]
    if tokens[0].special:
        hf.add_special_tokens(tokens)
    else:
        hf.add_tokens(tokens)
    same_ids(hf)


def test_everything_at_once_gives_hugging_faces_ids(base):
    hf = hf_of(base)
    hf.normalizer = NORMALIZERS["NFD + StripAccents + Lowercase"]
    hf.pre_tokenizer = pre_tokenizers.Sequence(
        [pre_tokenizers.Digits(True), _split(GPT4), pre_tokenizers.ByteLevel(True, use_regex=False)])
    hf.add_tokens([AddedToken("<tool>", special=False, lstrip=True)])
    hf.add_special_tokens([AddedToken("<mask>", special=True, single_word=True)])
    document = json.loads(hf.to_str())
    document["model"]["ignore_merges"] = True
    hf = HFTokenizer.from_str(json.dumps(document))
    same_ids(hf)
    # and bpe_core writes it back: Hugging Face reads our export with the same ids
    ours = read_tokenizer(hf.to_str().encode(), "tokenizer.json")
    same_ids(HFTokenizer.from_str(to_hf_json(ours)))


def test_ignore_merges_takes_a_whole_token_as_it_is():
    """The issue's case: merges b+c, a+b, ab+c. BPE makes "abc" into a + bc; with ignore_merges
    the piece "abc" is a token, so it is that token."""
    tok = bpe_core.BasicTokenizer(merges={(98, 99): 256, (97, 98): 257, (257, 99): 258})
    assert tok.encode("abc") == [97, 256]
    document = json.loads(to_hf_json(tok))
    document["model"]["ignore_merges"] = True
    hf = HFTokenizer.from_str(json.dumps(document))
    assert hf.encode("abc").ids == [258]
    ours = read_tokenizer(json.dumps(document).encode(), "tokenizer.json")
    assert ours.encode("abc") == [258]
    assert ours.encode("abcabc") == hf.encode("abcabc").ids == [97, 256, 97, 256]


def test_non_special_added_tokens_always_match_and_are_not_special(base):
    hf = hf_of(base)
    hf.add_tokens([AddedToken("<tool>", special=False)])
    ours = read_tokenizer(hf.to_str().encode(), "tokenizer.json")
    tool = hf.token_to_id("<tool>")
    assert "<tool>" not in ours.special_tokens
    # a default encode (no special tokens allowed) still finds it, and so does encode_ordinary
    assert ours.encode("a<tool>b") == ours.encode_ordinary("a<tool>b") == hf.encode("a<tool>b").ids
    assert tool in ours.encode("a<tool>b")
    assert ours.decode([tool]) == "<tool>"


REFUSED = {
    "dropout": (lambda d: d["model"].update(dropout=0.1), "model.dropout"),
    "continuing_subword_prefix": (
        lambda d: d["model"].update(continuing_subword_prefix="##"), "continuing_subword_prefix"),
    "end_of_word_suffix": (lambda d: d["model"].update(end_of_word_suffix="</w>"), "end_of_word_suffix"),
    "a BERT normalizer": (lambda d: d.update(normalizer={"type": "BertNormalizer"}), "BertNormalizer"),
    "a normalizer inside a Sequence": (lambda d: d.update(normalizer={
        "type": "Sequence", "normalizers": [{"type": "NFC"}, {"type": "Precompiled"}]}),
        "normalizer.normalizers[1]"),
    "Metaspace": (lambda d: d.update(pre_tokenizer={"type": "Metaspace"}), "Metaspace"),
    "no ByteLevel": (lambda d: d.update(pre_tokenizer={"type": "Digits"}), "ByteLevel"),
    "ByteLevel before Split": (lambda d: d.update(pre_tokenizer={"type": "Sequence", "pretokenizers": [
        {"type": "ByteLevel", "add_prefix_space": False}, {"type": "Digits"}]}),
        "pretokenizers[1]"),
    "a ByteLevel without add_prefix_space": (lambda d: d.update(pre_tokenizer={
        "type": "ByteLevel"}), "pre_tokenizer.add_prefix_space"),
    "merges out of id order": (lambda d: d["model"].update(merges=d["model"]["merges"][1:2]
                                                           + d["model"]["merges"][:1]
                                                           + d["model"]["merges"][2:]), "merge"),
}


@pytest.mark.parametrize("kind", REFUSED)
def test_what_would_change_ids_is_refused_with_the_key_named(base, kind):
    change, key = REFUSED[kind]
    document = json.loads(to_hf_json(base))
    change(document)
    with pytest.raises(ValueError) as info:
        read_tokenizer(json.dumps(document).encode(), "tokenizer.json")
    assert key in str(info.value)
    assert "tokenizer.json" in str(info.value)


def test_a_template_post_processor_is_left_out_and_the_tokenizer_says_so(base):
    hf = hf_of(base)
    from tokenizers import processors

    hf.post_processor = processors.TemplateProcessing(
        single="<|endoftext|> $A", special_tokens=[("<|endoftext|>", 700)])
    ours = read_tokenizer(hf.to_str().encode(), "tokenizer.json")
    assert ours.encode("hello") == hf.encode("hello", add_special_tokens=False).ids
    assert hf.encode("hello").ids[0] == 700 != ours.encode("hello")[0]
    assert any("post_processor" in note for note in ours.ignored)
    assert not base.ignored


# -- the Unicode tables: Python's against Hugging Face's, on every code point ------------------


def test_the_unicode_tables_are_what_hugging_face_does_on_every_code_point():
    assert ranges(normalize_kept()) == bp.NORMALIZE_KEPT.replace("  ", " ")
    assert {ord(a): b for a, b in lowercase_table().items()} == bp._LOWER_TABLE
    keep, drop = accent_table()
    assert ranges(keep) == bp.ACCENTS_KEPT and ranges(drop) == bp.ACCENTS_DROPPED


@pytest.mark.parametrize("form", ["NFC", "NFD", "NFKC", "NFKD"])
def test_normal_forms_match_on_every_code_point_and_in_context(form):
    hf = getattr(normalizers, form)()
    for start in range(0, len(EVERY_CHAR), 4096):
        block = "".join(EVERY_CHAR[start : start + 4096])
        assert bp.unicode_normal_form(form, block) == hf.normalize_str(block), start
    # characters in context: a base letter, then marks of new and old tables in both orders
    marks = [c for c in EVERY_CHAR if unicodedata.combining(c)]
    text = "".join("a" + m + "\u0301" + "e\u0301" + m for m in marks)
    assert bp.unicode_normal_form(form, text) == hf.normalize_str(text)
    assert bp.unicode_normal_form(form, "\U00011935\U00011930") == hf.normalize_str(
        "\U00011935\U00011930")


def test_lowercase_and_accents_match_on_every_code_point():
    text = "".join(EVERY_CHAR)
    assert bp.lowercase(text) == normalizers.Lowercase().normalize_str(text)
    assert bp.strip_accents(text) == normalizers.StripAccents().normalize_str(text)
    assert bp.lowercase("ΌΣΟΣ") == "όσοσ"  # one character at a time: no final sigma


def test_a_backtracking_replace_pattern_is_bounded_by_the_timeout(base):
    """A hostile file's Replace regex ((.|..)+ then 9 digits, on letters) must not hang encode: with a timeout,
    as the app gives every uploaded tokenizer, it is a ValueError naming the normalizer."""
    document = json.loads(to_hf_json(base))
    document["normalizer"] = {"type": "Replace", "pattern": {"Regex": r"(.|..)+\d{9}"},
                              "content": "x"}
    tok = read_tokenizer(json.dumps(document).encode(), "tokenizer.json")
    tok.timeout = 2  # wall seconds in a worker process (bpe_core.limits): room for a busy machine
    with pytest.raises(ValueError, match="normalizer"):
        tok.encode("a" * 60)
    assert tok.encode("hello") == base.encode("hello")


def test_thousands_of_added_tokens_are_matched_with_one_compiled_pattern(base):
    hf = hf_of(base)
    hf.add_tokens([AddedToken(f"<t{i}>", special=False) for i in range(3000)])
    ours = read_tokenizer(hf.to_str().encode(), "tokenizer.json")
    text = " ".join(f"<t{i}> word" for i in range(0, 3000, 7))
    assert ours.encode(text) == hf.encode(text, add_special_tokens=False).ids  # in a worker
    ours.from_file = False  # no budget: matched in this process, where the cache is seen
    assert ours.budget() is None and ours.encode(text) == hf.encode(text,
                                                                    add_special_tokens=False).ids
    bp._matcher.cache_clear()
    for _ in range(5):
        ours.encode("a <t5> b")
    assert bp._matcher.cache_info().misses == 1  # compiled once, then reused


@pytest.mark.parametrize(("entries", "told"), [
    # an added token that repeats a vocabulary entry: HF gives it that entry's id and numbers
    # the next added token on from the vocabulary (the file's ids are not used)
    ([("e", 700, False), ("<x>", 701, False)], True),
    ([("h", 700, False), ("<x>", 701, True)], True),
    ([("<x>", 299, True)], True),  # an id inside the vocabulary: HF numbers it 700
    ([("<x>", 700, True), ("<x>", 701, True)], True),  # listed twice: the first stands
    ([("<x>", 700, True), ("<y>", 701, False)], False),  # the usual case: the ids agree
])
def test_added_token_ids_are_the_ones_hugging_face_gives(base, entries, told):
    plain = base.copy()
    plain.special_tokens = {}  # the vocabulary alone (ids 0..699), no special tokens
    document = json.loads(to_hf_json(RegexTokenizer(plain.pattern, merges=plain.merges)))
    for content, idx, special in entries:
        document["added_tokens"].append({
            "id": idx, "content": content, "single_word": False, "lstrip": False,
            "rstrip": False, "normalized": False, "special": special})
    text = json.dumps(document)
    hf = HFTokenizer.from_str(text)
    ours = read_tokenizer(text.encode(), "tokenizer.json")
    for sample in ["a hello <x><y> h", *TEXTS[:5]]:
        assert ours.encode(sample, allowed_special="all") == hf.encode(
            sample, add_special_tokens=False).ids
    assert hf.token_to_id("<x>") in ours.encode("<x>", allowed_special="all")
    assert any("added_tokens" in note and "not the file's" in note for note in ours.ignored) == told


def test_a_non_special_added_token_that_repeats_a_token_saves_and_reloads(base, tmp_path):
    """" the" added beside the learned "Ġthe": it loads, and saves as tokenizer.json (it had no
    format to go to), which both HF and bpe_core read back with the same ids."""
    hf = hf_of(base)
    hf.add_tokens([AddedToken(" the", special=False)])
    ours = read_tokenizer(hf.to_str().encode(), "tokenizer.json")
    assert b" the" in ours.token_ids  # a learned token with the same bytes
    path = tmp_path / "tokenizer.json"
    ours.save_hf(str(path))
    again_hf, again = HFTokenizer.from_file(str(path)), bpe_core.load(path)
    for text in ["in the end, the cat", *TEXTS[:8]]:
        expected = hf.encode(text, add_special_tokens=False).ids
        assert ours.encode(text, allowed_special="all") == expected
        assert again.encode(text, allowed_special="all") == expected
        assert again_hf.encode(text, add_special_tokens=False).ids == expected


def test_a_special_added_token_that_is_a_learned_token_is_refused_by_name(base):
    """HF gives the special token the learned token's id (one id, two kinds of token); bpe_core
    keeps special tokens apart, so it says so instead of reading other ids."""
    plain = base.copy()
    plain.special_tokens = {}
    document = json.loads(to_hf_json(RegexTokenizer(plain.pattern, merges=plain.merges)))
    learned = next(s for s, i in document["model"]["vocab"].items() if i >= 256 and s.isalpha())
    document["added_tokens"].append({"id": 700, "content": learned, "single_word": False,
                                     "lstrip": False, "rstrip": False, "normalized": False,
                                     "special": True})
    text = json.dumps(document)
    assert HFTokenizer.from_str(text).token_to_id(learned) == document["model"]["vocab"][learned]
    with pytest.raises(ValueError, match=f"special added token '{learned}' is also the"):
        read_tokenizer(text.encode(), "tokenizer.json")
