"""Code written for tiktoken runs on bpe_core with only the import changed.

Each case below is tiktoken's documented behaviour (tiktoken 0.14: its README, the docstrings of
``tiktoken/core.py``, and the model table of ``tiktoken/model.py``), written here as a test. Every
case runs twice: once with ``tiktoken`` itself and once with ``bpe_core`` imported under its name
(``import bpe_core as tiktoken``), so a case that passes for tiktoken and fails for bpe_core is
ported code that would break. Nothing is downloaded: tiktoken reads OpenAI's files from a cache
folder filled with the published files (hash-checked, see parity_corpus.tiktoken_cache_dir).
"""

from __future__ import annotations

import importlib
import os
import pickle

import pytest
from parity_corpus import tiktoken_cache_dir


@pytest.fixture(scope="module", params=["tiktoken", "bpe_core"])
def tiktoken(request):
    """The library under tiktoken's name: tiktoken itself, or ``import bpe_core as tiktoken``."""
    if request.param == "bpe_core":
        yield importlib.import_module("bpe_core")
        return
    before = os.environ.get("TIKTOKEN_CACHE_DIR")
    os.environ["TIKTOKEN_CACHE_DIR"] = str(tiktoken_cache_dir())
    try:
        yield importlib.import_module("tiktoken")
    finally:
        if before is None:
            del os.environ["TIKTOKEN_CACHE_DIR"]
        else:
            os.environ["TIKTOKEN_CACHE_DIR"] = before


@pytest.fixture(scope="module")
def enc(tiktoken):
    """tiktoken's docstrings show GPT-2's ids."""
    return tiktoken.get_encoding("gpt2")


# -- the README ---------------------------------------------------------------------------------


def test_readme_round_trip(tiktoken):
    enc = tiktoken.get_encoding("o200k_base")
    assert enc.decode(enc.encode("hello world")) == "hello world"


def test_readme_encoding_for_model(tiktoken):
    enc = tiktoken.encoding_for_model("gpt-4o")
    assert enc.name == "o200k_base"
    assert enc.encode("hello world") == tiktoken.get_encoding("o200k_base").encode("hello world")


# -- encoding (tiktoken/core.py docstrings) ----------------------------------------------------


def test_encode_ordinary(enc):
    assert enc.encode_ordinary("hello world") == [31373, 995]


def test_encode_and_special_tokens(enc):
    assert enc.encode("hello world") == [31373, 995]
    assert enc.encode("<|endoftext|>", allowed_special={"<|endoftext|>"}) == [50256]
    assert enc.encode("<|endoftext|>", allowed_special="all") == [50256]
    with pytest.raises(ValueError):
        enc.encode("<|endoftext|>")
    assert enc.encode("<|endoftext|>", disallowed_special=()) == [27, 91, 437, 1659, 5239, 91, 29]


def test_disallowed_special_anywhere_in_the_text_raises(tiktoken):
    enc = tiktoken.get_encoding("cl100k_base")
    with pytest.raises(ValueError):
        enc.encode("a text with <|fim_prefix|> in its middle")
    with pytest.raises(ValueError):  # allowing one special token leaves the others disallowed
        enc.encode("<|endoftext|> <|fim_prefix|>", allowed_special={"<|endoftext|>"})


def test_allowed_special_set_leaves_others_as_text_when_not_disallowed(tiktoken):
    enc = tiktoken.get_encoding("cl100k_base")
    ids = enc.encode("<|endoftext|><|fim_prefix|>", allowed_special={"<|endoftext|>"},
                     disallowed_special=())
    assert ids == [100257, *enc.encode_ordinary("<|fim_prefix|>")]


def test_batches(enc):
    texts = ["hello world", "goodbye world"]
    assert enc.encode_ordinary_batch(texts) == [[31373, 995], [11274, 16390, 995]]
    assert enc.encode_batch(texts) == [[31373, 995], [11274, 16390, 995]]
    assert enc.decode_batch([[31373, 995], [11274, 16390, 995]]) == texts
    assert enc.decode_bytes_batch([[31373, 995]]) == [b"hello world"]


def test_encode_single_token(enc):
    assert enc.encode_single_token("hello") == 31373
    assert enc.encode_single_token(b"hello") == 31373
    with pytest.raises(KeyError):
        enc.encode_single_token("hello world")  # two tokens


def test_encode_single_token_encodes_special_tokens_too(tiktoken):
    """"NOTE: this will encode all special tokens", as text or as bytes."""
    enc = tiktoken.get_encoding("cl100k_base")
    assert enc.encode_single_token(b"<|endoftext|>") == 100257
    assert enc.encode_single_token("<|endoftext|>") == 100257
    assert enc.encode_single_token("<|endofprompt|>") == 100276


def test_single_token_round_trip(tiktoken):
    """Every id of the vocabulary, special tokens included: its bytes encode back to it."""
    enc = tiktoken.get_encoding("gpt2")
    for token in range(enc.n_vocab):
        assert enc.encode_single_token(enc.decode_single_token_bytes(token)) == token


# -- decoding -----------------------------------------------------------------------------------


def test_decode(enc):
    assert enc.decode_bytes([31373, 995]) == b"hello world"
    assert enc.decode([31373, 995]) == "hello world"
    assert enc.decode_single_token_bytes(31373) == b"hello"
    assert enc.decode_tokens_bytes([31373, 995]) == [b"hello", b" world"]
    assert enc.decode_with_offsets([31373, 995]) == ("hello world", [0, 5])


def test_decode_replaces_a_broken_character(enc):
    first_byte_of_e_acute = enc.encode_single_token(b"\xc3")
    assert enc.decode([first_byte_of_e_acute]) == "\ufffd"
    with pytest.raises(UnicodeDecodeError):
        enc.decode([first_byte_of_e_acute], errors="strict")


def test_decode_with_offsets_points_at_the_character_a_token_starts_in(tiktoken):
    """"If UTF-8 character boundaries do not line up with token boundaries, the offset is the
    index of the first character that contains bytes from the token." """
    enc = tiktoken.get_encoding("cl100k_base")
    text = "我非常渴望与人工智能一起工作 🤖 déjà vu"
    tokens = enc.encode(text)
    decoded, offsets = enc.decode_with_offsets(tokens)
    assert decoded == text
    char_of_byte = [i for i, ch in enumerate(text) for _ in ch.encode("utf-8")]
    start = 0
    for token, offset in zip(tokens, offsets, strict=True):
        assert offset == char_of_byte[start]
        start += len(enc.decode_single_token_bytes(token))
    assert any(len(enc.decode_single_token_bytes(t).decode("utf-8", "ignore")) == 0
               for t in tokens)  # the text has tokens that split a character


# -- what an encoding tells about itself --------------------------------------------------------


def test_vocabulary_facts(tiktoken):
    gpt2 = tiktoken.get_encoding("gpt2")
    assert (gpt2.n_vocab, gpt2.max_token_value, gpt2.eot_token) == (50257, 50256, 50256)
    assert gpt2.special_tokens_set == {"<|endoftext|>"}
    assert gpt2.is_special_token(50256) and not gpt2.is_special_token(31373)
    assert len(gpt2.token_byte_values()) == 50256 and b"hello" in gpt2.token_byte_values()
    cl100k = tiktoken.get_encoding("cl100k_base")
    assert (cl100k.n_vocab, cl100k.eot_token) == (100277, 100257)
    assert cl100k.special_tokens_set == {"<|endoftext|>", "<|fim_prefix|>", "<|fim_middle|>",
                                         "<|fim_suffix|>", "<|endofprompt|>"}


def test_pickle_round_trip(enc):
    assert pickle.loads(pickle.dumps(enc)).encode("hello world") == [31373, 995]


# -- the registry and the model table (tiktoken/registry.py, tiktoken/model.py) ----------------


def test_get_encoding_gives_the_same_encoding_each_time(tiktoken):
    assert tiktoken.get_encoding("cl100k_base") is tiktoken.get_encoding("cl100k_base")


def test_encoding_names(tiktoken):
    assert {"gpt2", "cl100k_base", "o200k_base", "o200k_harmony"} <= set(
        tiktoken.list_encoding_names())
    with pytest.raises(ValueError):
        tiktoken.get_encoding("no_such_encoding")


@pytest.mark.parametrize(("model", "encoding"), [
    ("gpt-4o", "o200k_base"),
    ("gpt-4o-2024-05-13", "o200k_base"),  # by prefix
    ("gpt-4.1-mini", "o200k_base"),
    ("o3-mini", "o200k_base"),
    ("gpt-5", "o200k_base"),
    ("gpt-4", "cl100k_base"),
    ("gpt-4-0314", "cl100k_base"),
    ("gpt-3.5-turbo-0301", "cl100k_base"),
    ("gpt-35-turbo", "cl100k_base"),  # Azure's spelling
    ("text-embedding-3-small", "cl100k_base"),
    ("ft:gpt-4o:my-org::abc123", "o200k_base"),
    ("gpt-oss-120b", "o200k_harmony"),
    ("gpt2", "gpt2"),
    ("text-davinci-003", "p50k_base"),
])
def test_encoding_name_for_model(tiktoken, model, encoding):
    assert tiktoken.encoding_name_for_model(model) == encoding


def test_unknown_model_is_a_key_error(tiktoken):
    with pytest.raises(KeyError):
        tiktoken.encoding_for_model("a-model-nobody-made")


def test_gpt_oss_encoding_has_the_harmony_tokens(tiktoken):
    """o200k_harmony: o200k's ranks with the chat tokens (ids from tiktoken_ext/openai_public.py)."""
    enc = tiktoken.encoding_for_model("gpt-oss-20b")
    assert enc.name == "o200k_harmony"
    ids = enc.encode("<|start|>user<|message|>Hi<|end|>", allowed_special="all")
    assert ids == [200006, *enc.encode_ordinary("user"), 200008, *enc.encode_ordinary("Hi"), 200007]
    assert enc.encode_ordinary("hello world") == tiktoken.get_encoding("o200k_base").encode(
        "hello world")
    assert enc.encode_single_token("<|return|>") == 200002
    assert enc.encode_single_token("<|call|>") == 200012
    assert enc.n_vocab == 201088
