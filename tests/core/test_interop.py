"""The real tools read what bpe_core writes with the same ids, a tiktoken user's calls give
tiktoken's answers, and a minbpe user's script runs unchanged."""

from __future__ import annotations

import json

import pytest
import tiktoken
from parity_corpus import CORPUS, JOINED, tiktoken_reference
from tokenizers import Tokenizer as HFTokenizer

import bpe_core
from bpe_core import BasicTokenizer, RegexTokenizer, load_pretrained, read_tokenizer
from bpe_core.formats import (
    tiktoken_encoding,
    to_gpt2_files,
    to_hf_json,
    to_minbpe,
    to_tiktoken,
    whole_token_problem,
)

TEXTS = [bpe_core.clean_text(text) for _, text in CORPUS] + [
    "line one  \nline two\n", "end with newline\n", "\n", "  x  ", "a\u200db\u200cc", "tail  "]

PATTERNS = {
    "GPT-4": bpe_core.GPT4_SPLIT_PATTERN,
    "GPT-2": bpe_core.GPT2_SPLIT_PATTERN,
    "GPT-4o": bpe_core.GPT4O_SPLIT_PATTERN,
    "no split (BasicTokenizer)": "",
    "text anchors": r"^\s+|\s+$|\w+|[^\w\s]+|\s+",
    "line anchors": r"(?m:^)\s+|\s+(?m:$)|\w+|\W",
    "end anchor Z": r"\s+\Z|\S+|\s",
}


def trained(pattern: str):
    tok = RegexTokenizer(pattern) if pattern else BasicTokenizer()
    tok.train(JOINED[:6000], 420)
    tok.register_special_tokens({"<|endoftext|>": 420})
    return tok


@pytest.mark.parametrize("kind", PATTERNS)
def test_every_export_is_read_by_its_tool_with_the_same_ids(kind):
    tok = trained(PATTERNS[kind])
    expected = [tok.encode(text, allowed_special="all") for text in TEXTS]
    hf = HFTokenizer.from_str(to_hf_json(tok))
    assert [hf.encode(t, add_special_tokens=False).ids for t in TEXTS] == expected, "Hugging Face"
    enc = tiktoken.Encoding(**tiktoken_encoding(tok))
    ordinary = [tok.encode_ordinary(text) for text in TEXTS]
    assert enc.encode_ordinary_batch(TEXTS) == ordinary, "tiktoken"
    assert enc.encode("a<|endoftext|>b", allowed_special="all") == tok.encode(
        "a<|endoftext|>b", allowed_special="all")
    # and bpe_core reads back everything it writes, with the same ids
    model, _ = to_minbpe(tok)
    vocab_json, merges_txt = to_gpt2_files(tok)
    back = {
        ".model": read_tokenizer(model.encode(), "x.model"),
        "tokenizer.json": read_tokenizer(to_hf_json(tok).encode(), "tokenizer.json"),
        "tiktoken": read_tokenizer(to_tiktoken(tok), "x.tiktoken", pattern=tok.pattern,
                                   special_tokens=tok.special_tokens),
        "gpt2": read_tokenizer(vocab_json.encode(), "vocab.json", merges=merges_txt.encode(),
                               pattern=tok.pattern),
    }
    for fmt, other in back.items():
        assert [other.encode(t, allowed_special="all") for t in TEXTS] == expected, fmt


def test_a_token_of_more_than_2000_bytes_survives_every_format():
    tok = BasicTokenizer()
    tok.train("abcd" * 3000, 270)
    assert max(map(len, tok.vocab.values())) > 2000
    text = "abcd" * 1000 + "x"
    other = read_tokenizer(to_tiktoken(tok), "long.tiktoken", pattern="", special_tokens={})
    assert other.merges == tok.merges and other.encode(text) == tok.encode(text)
    assert tiktoken.Encoding(**tiktoken_encoding(tok)).encode(text) == tok.encode(text)


def test_a_token_that_bpe_cuts_otherwise_is_refused_for_tiktoken():
    """merges b+c, a+b, ab+c: BPE encodes "abc" as a + bc, tiktoken would take the token "abc"
    whole. tiktoken cannot hold that tokenizer; the formats that run plain BPE can."""
    tok = BasicTokenizer(merges={(98, 99): 256, (97, 98): 257, (257, 99): 258})
    assert tok.encode("abc") == [97, 256]
    for write in (to_tiktoken, tiktoken_encoding):
        with pytest.raises(ValueError, match="token 258"):
            write(tok)
    hf = HFTokenizer.from_str(to_hf_json(tok))
    assert hf.encode("abc").ids == [97, 256]
    assert read_tokenizer(to_minbpe(tok)[0].encode(), "x.model").encode("abc") == [97, 256]


@pytest.mark.parametrize("name", ["gpt2", "cl100k_base", "o200k_base"])
def test_every_preset_token_encodes_to_itself(name):
    """What tiktoken assumes of its vocabularies (it takes a whole-token piece as that token)
    holds for bpe_core's merges of the three presets, so their tiktoken export is exact."""
    assert whole_token_problem(load_pretrained(name)) is None


def test_a_multiline_flag_is_refused_for_engines_that_read_it_differently():
    tok = RegexTokenizer(r"(?m)^\s+|\S+|\s")
    tok.train("a b\n c", 260)
    for write in (to_hf_json, tiktoken_encoding):
        with pytest.raises(ValueError, match=r"\(\?m:\^\)"):
            write(tok)


def test_a_tokenizer_json_that_normalizes_cannot_be_saved_where_that_would_be_lost():
    tok = trained(bpe_core.GPT4_SPLIT_PATTERN)
    document = json.loads(to_hf_json(tok))
    document["normalizer"] = {"type": "Lowercase"}
    lower = read_tokenizer(json.dumps(document).encode(), "tokenizer.json")
    assert lower.encode("HELLO") == tok.encode("hello")
    for write in (to_minbpe, to_tiktoken, to_gpt2_files, tiktoken_encoding):
        with pytest.raises(ValueError, match="lowercase.*tokenizer.json"):
            write(lower)
    again = read_tokenizer(to_hf_json(lower).encode(), "tokenizer.json")
    assert again.encode("HeLLo World") == lower.encode("HeLLo World") == tok.encode("hello world")


# -- tiktoken's surface ----------------------------------------------------------------------


@pytest.fixture(scope="module", params=["gpt2", "cl100k_base", "o200k_base"])
def both(request):
    return load_pretrained(request.param), tiktoken_reference(request.param)


def test_tiktoken_attributes_are_tiktokens(both):
    ours, ref = both
    assert ours.n_vocab == ref.n_vocab
    assert ours.max_token_value == ref.max_token_value
    assert ours.eot_token == ref.eot_token
    assert ours.special_tokens_set == ref.special_tokens_set
    assert ours.name == ref.name.removeprefix("reference-")


def test_tiktoken_methods_give_tiktokens_answers(both):
    ours, ref = both
    texts = [text for text in TEXTS if "<|" not in text]
    assert ours.encode_batch(texts) == ref.encode_batch(texts)
    assert ours.encode_ordinary_batch(texts) == ref.encode_ordinary_batch(texts)
    batch = ref.encode_batch(texts)
    assert ours.decode_batch(batch) == ref.decode_batch(batch)
    for ids in batch[:8]:
        assert ours.decode_tokens_bytes(ids) == ref.decode_tokens_bytes(ids)
        if all(ours.decode_tokens_bytes(ids)):
            try:
                expected = ref.decode_with_offsets(ids)
            except UnicodeDecodeError:
                with pytest.raises(UnicodeDecodeError):
                    ours.decode_with_offsets(ids)
            else:
                assert ours.decode_with_offsets(ids) == expected
    for piece in ("hello", " world", b"\xe4\xbd", "<|endoftext|>", b"!"):
        assert ours.encode_single_token(piece) == ref.encode_single_token(piece)
    with pytest.raises(KeyError):
        ours.encode_single_token("not one token at all, surely")
    assert ours.decode_single_token_bytes(1000) == ref.decode_single_token_bytes(1000)
    with pytest.raises(KeyError):
        ours.decode_single_token_bytes(ours.n_vocab + 5)
    assert ours.token_byte_values() == ref.token_byte_values()


def test_special_token_rules_are_tiktokens(both):
    ours, ref = both
    text = "a <|endoftext|> b <|fim_prefix|> c"
    calls = [
        {},
        {"allowed_special": "all"},
        {"allowed_special": {"<|endoftext|>"}},
        {"disallowed_special": ()},
        {"allowed_special": {"<|endoftext|>"}, "disallowed_special": ()},
        {"allowed_special": set(), "disallowed_special": {"<|endoftext|>"}},
    ]
    for kwargs in calls:
        try:
            expected = ref.encode(text, **kwargs)
        except ValueError:
            with pytest.raises(ValueError) as info:
                ours.encode(text, **kwargs)
            assert "allowed_special" in str(info.value) and "disallowed_special=()" in str(info.value)
        else:
            assert ours.encode(text, **kwargs) == expected, kwargs


# -- minbpe's surface -------------------------------------------------------------------------


def test_a_minbpe_script_runs_unchanged(tmp_path):
    """minbpe's README, step by step: train, save, load into a new instance, encode, decode."""
    text = "aaabdaaabac" * 3 + " hello world <|endoftext|>"
    for cls in (BasicTokenizer, RegexTokenizer):
        tok = cls()
        tok.train(text, 256 + 3)
        tok.register_special_tokens({"<|endoftext|>": 300})
        prefix = str(tmp_path / cls.__name__)
        tok.save(prefix)
        loaded = cls()
        loaded.load(prefix + ".model")
        assert loaded.merges == tok.merges and loaded.pattern == tok.pattern
        assert loaded.special_tokens == {"<|endoftext|>": 300}
        ids = loaded.encode(text, allowed_special="all")
        assert ids == tok.encode(text, allowed_special="all") and 300 in ids
        assert loaded.decode(ids) == text
    # the first merges are the seeds' known answer for "aaabdaaabac"
    assert list(BasicTokenizer().__class__().merges) == []
    tok = BasicTokenizer()
    tok.train("aaabdaaabac", 259)
    assert tok.merges == {(97, 97): 256, (256, 97): 257, (257, 98): 258}


def test_loading_into_an_instance_is_all_or_nothing(tmp_path):
    tok = RegexTokenizer()
    tok.train("hello hello world", 260)
    before = tok.merges
    bad = tmp_path / "bad.model"
    bad.write_text("minbpe v1\n\n0\n999 1\n")
    with pytest.raises(ValueError, match="line 4"):
        tok.load(str(bad))
    assert tok.merges == before and tok.encode("hello") == tok.encode("hello")
    regex_model = tmp_path / "r"
    tok.save(str(regex_model))
    with pytest.raises(ValueError, match="RegexTokenizer"):
        BasicTokenizer().load(str(regex_model) + ".model")


# -- transformers as a client (it installs without torch) -----------------------------------------


def test_transformers_reads_our_tokenizer_json_with_the_same_ids(tmp_path, monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")  # a local file: nothing to fetch
    from transformers import PreTrainedTokenizerFast

    tok = trained(bpe_core.GPT4_SPLIT_PATTERN)
    path = tmp_path / "tokenizer.json"
    tok.save_hf(str(path))
    fast = PreTrainedTokenizerFast(tokenizer_file=str(path))
    for text in TEXTS:
        ids = tok.encode(text, allowed_special="all")
        assert fast(text, add_special_tokens=False)["input_ids"] == ids
        assert fast.decode(ids) == tok.decode(ids)
    assert fast.convert_tokens_to_ids("<|endoftext|>") == 420
    # and a tokenizer.json that lowercases, saved by transformers, loads here with its ids
    document = json.loads(path.read_text(encoding="utf-8"))
    document["normalizer"] = {"type": "Lowercase"}
    path.write_text(json.dumps(document), encoding="utf-8")
    fast = PreTrainedTokenizerFast(tokenizer_file=str(path))
    fast.save_pretrained(str(tmp_path / "saved"))
    ours = bpe_core.load(tmp_path / "saved" / "tokenizer.json")
    for text in TEXTS:
        assert ours.encode(text, allowed_special="all") == fast(
            text, add_special_tokens=False)["input_ids"]
