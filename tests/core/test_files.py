"""Saving and loading: minbpe's .model format, the seeds' header, the .vocab listing, bad files."""

from __future__ import annotations

import re

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from support import CORPORA, KINDS, core_corpus_tokenizer, line_numbers_in, trained

from bpe_core import GPT4_SPLIT_PATTERN, BasicTokenizer, RegexTokenizer, load

SPECIALS = {"<|endoftext|>": 100257, "<|fim_prefix|>": 100258}


def saved_copy(tok, tmp_path, name="tok"):
    prefix = str(tmp_path / name)
    tok.save(prefix)
    return load(prefix + ".model")


@pytest.mark.parametrize("kind", KINDS)
def test_save_load_round_trip(kind, tmp_path):
    original = trained(kind, CORPORA["prose"][:8000], 350)
    original.register_special_tokens(SPECIALS)
    copy = saved_copy(original, tmp_path)
    assert type(copy) is type(original)
    assert list(copy.merges.items()) == list(original.merges.items())
    assert copy.pattern == original.pattern
    assert copy.special_tokens == SPECIALS
    assert copy.vocab == original.vocab
    assert copy.vocab_size == original.vocab_size
    for text in [CORPORA["prose"][8000:12000], CORPORA["code"][:4000], "héllo 😄 <|endoftext|>"]:
        assert copy.encode(text, allowed_special="all") == original.encode(
            text, allowed_special="all"
        )


@pytest.mark.parametrize("kind", KINDS)
def test_saving_a_loaded_tokenizer_gives_the_same_file(kind, tmp_path):
    tok = core_corpus_tokenizer(kind, "code")
    tok.save(str(tmp_path / "a"))
    load(str(tmp_path / "a.model")).save(str(tmp_path / "b"))
    assert (tmp_path / "a.model").read_bytes() == (tmp_path / "b.model").read_bytes()


def test_load_returns_the_right_class(tmp_path):
    assert isinstance(saved_copy(BasicTokenizer(), tmp_path, "basic"), BasicTokenizer)
    regex_copy = saved_copy(RegexTokenizer(), tmp_path, "regex")
    assert isinstance(regex_copy, RegexTokenizer)
    assert regex_copy.pattern == GPT4_SPLIT_PATTERN
    custom = RegexTokenizer(r"\w+|\s+|[^\w\s]+")
    custom.train("one two, three four; five six", 270)
    custom_copy = saved_copy(custom, tmp_path, "custom")
    assert isinstance(custom_copy, RegexTokenizer)
    assert custom_copy.pattern == r"\w+|\s+|[^\w\s]+"
    assert custom_copy.merges == custom.merges


def test_model_file_is_minbpe_format(tmp_path):
    tok = BasicTokenizer()
    tok.train("aaabdaaabac", 259)
    tok.register_special_tokens({"<|endoftext|>": 259})
    tok.save(str(tmp_path / "classic"))
    text = (tmp_path / "classic.model").read_text(encoding="utf-8")
    assert text == "minbpe v1\n\n1\n<|endoftext|> 259\n97 97\n256 97\n257 98\n"

    regex_tok = RegexTokenizer()
    regex_tok.train("aaabdaaabac", 259)
    regex_tok.save(str(tmp_path / "regex"))
    lines = (tmp_path / "regex.model").read_text(encoding="utf-8").split("\n")
    assert lines == ["minbpe v1", GPT4_SPLIT_PATTERN, "0", "97 97", "256 97", "257 98", ""]


def test_hand_written_minbpe_file_loads(tmp_path):
    path = tmp_path / "hand.model"
    path.write_text(
        f"minbpe v1\n{GPT4_SPLIT_PATTERN}\n1\n<|endoftext|> 300\n97 97\n256 97\n104 105\n",
        encoding="utf-8",
    )
    tok = load(str(path))
    assert isinstance(tok, RegexTokenizer)
    assert tok.pattern == GPT4_SPLIT_PATTERN
    assert list(tok.merges.items()) == [((97, 97), 256), ((256, 97), 257), ((104, 105), 258)]
    assert tok.special_tokens == {"<|endoftext|>": 300}
    assert tok.vocab[257] == b"aaa" and tok.vocab[258] == b"hi"
    assert tok.vocab[300] == b"<|endoftext|>"
    assert tok.vocab_size == 256 + 3 + 1
    assert tok.encode("aaa hi aaaa") == [257, 32, 258, 32, 256, 256]
    assert tok.encode("hi<|endoftext|>", allowed_special="all") == [258, 300]


def test_seed_bpe_v1_header_loads(tmp_path):
    path = tmp_path / "seed.model"
    path.write_text("bpe v1\n\n0\n97 97\n256 97\n257 98\n", encoding="utf-8")
    tok = load(str(path))
    assert isinstance(tok, BasicTokenizer)
    assert tok.pattern == ""
    assert tok.merges == {(97, 97): 256, (256, 97): 257, (257, 98): 258}
    assert tok.encode("aaabdaaabac") == [258, 100, 258, 97, 99]


def test_vocab_file_lists_every_token(tmp_path):
    tok = BasicTokenizer()
    tok.train("abababab\n\n", 259)  # (a,b)=256, (256,256)=257, (257,257)=258
    assert list(tok.merges.items()) == [((97, 98), 256), ((256, 256), 257), ((257, 257), 258)]
    tok.save(str(tmp_path / "v"))
    lines = (tmp_path / "v.vocab").read_text(encoding="utf-8").split("\n")
    assert lines[-1] == ""
    lines = lines[:-1]
    assert "[a][b] -> [ab] 256" in lines
    assert "[ab][ab] -> [abab] 257" in lines
    assert "[abab][abab] -> [abababab] 258" in lines
    assert "[a] 97" in lines
    ids = []
    for line in lines:
        match = re.fullmatch(r"\[.*\] (\d+)", line)
        assert match, f"not a vocab line: {line!r}"  # also catches unescaped newlines
        ids.append(int(match.group(1)))
    assert sorted(ids) == list(range(259))


# ---------------------------------------------------------------------------------------------
# Malformed files
# ---------------------------------------------------------------------------------------------

MALFORMED = {
    # name: (file content, line numbers an error message may name)
    "empty file": (b"", {1}),
    "wrong header": (b"gpt v9\n\n0\n97 97\n", {1}),
    "wrong version": (b"minbpe v2\n\n0\n97 97\n", {1}),
    "binary garbage": (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\xff\xfe\x00", {1}),
    "invalid utf-8 in merges": (b"minbpe v1\n\n0\n97 97\n\xff\xfe 98\n", {5}),
    "missing pattern line": (b"minbpe v1\n", {2, 3}),
    "non-integer special count": (b"minbpe v1\n\nmany\n97 97\n", {3}),
    "truncated specials": (b"minbpe v1\n\n2\n<|endoftext|> 300\n", {3, 4, 5}),
    "special without id": (b"minbpe v1\n\n1\n<|endoftext|>\n97 97\n", {4}),
    "special with non-integer id": (b"minbpe v1\n\n1\n<|endoftext|> x\n97 97\n", {4}),
    "non-integer merge line": (b"minbpe v1\n\n0\n97 97\n97 b\n", {5}),
    "merge line with three ids": (b"minbpe v1\n\n0\n97 97\n97 98 99\n", {5}),
    "merge line with one id": (b"minbpe v1\n\n0\n97 97\n256\n98 99\n", {5}),
    "merge of an id not yet made": (b"minbpe v1\n\n0\n97 97\n256 257\n", {5}),
    "merge of an unknown id": (b"minbpe v1\n\n0\n97 97\n256 300\n", {5}),
    "merge of a negative id": (b"minbpe v1\n\n0\n97 97\n-1 97\n", {5}),
    "invalid regex pattern": (b"minbpe v1\n(unclosed\n0\n97 97\n", {2}),
}


@pytest.mark.parametrize("name", list(MALFORMED))
def test_malformed_model_file_is_a_value_error_with_line_number(name, tmp_path):
    content, lines = MALFORMED[name]
    path = tmp_path / "bad.model"
    path.write_bytes(content)
    with pytest.raises(ValueError) as info:
        load(str(path))
    found = line_numbers_in(str(info.value))
    assert found & lines, f"{name}: message should name line {sorted(lines)}: {info.value}"


@pytest.fixture(scope="module")
def scratch_dir(tmp_path_factory):
    return tmp_path_factory.mktemp("random_models")


@settings(max_examples=150, deadline=None)
@given(
    data=st.binary(max_size=300)
    | st.text(alphabet="0123456789 \n-abv", max_size=60).map(str.encode)
)
def test_random_bytes_as_model_file_give_value_error_only(data, scratch_dir):
    assume(not data.startswith((b"minbpe v1", b"bpe v1")))
    path = scratch_dir / "random.model"
    path.write_bytes(data)
    with pytest.raises(ValueError):
        load(str(path))


@settings(max_examples=150, deadline=None)
@given(body=st.text(alphabet="0123456789 \n-x", max_size=60))
def test_random_bodies_after_a_valid_header_load_or_give_value_error(body, scratch_dir):
    path = scratch_dir / "body.model"
    path.write_text("minbpe v1\n\n" + body, encoding="utf-8")
    try:
        tok = load(str(path))
    except ValueError:
        return
    # whatever loaded must be self-consistent
    for (a, b), idx in tok.merges.items():
        assert a < idx and b < idx
        assert tok.vocab[idx] == tok.vocab[a] + tok.vocab[b]
    assert tok.decode(tok.encode("hello 123")) == "hello 123"
