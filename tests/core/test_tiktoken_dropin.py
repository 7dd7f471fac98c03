"""``import bpe_core as tiktoken`` is enough: the rest of tiktoken's surface, against tiktoken.

What tiktoken 0.14's own test suite (openai/tiktoken, tests/) checks, written here with real
tiktoken as the reference: every one of its seven encodings by name, with GPT-3's and Codex's
rebuilt from GPT-2's files; the ``Encoding`` constructor; ``tiktoken.load``, ``registry``,
``model`` and ``core``; ``encode_to_numpy``, ``encode_with_unstable``, ``_encode_bytes``; the
exception types; pickling a custom encoding. Nothing is downloaded: tiktoken reads its files
from a cache folder filled here (parity_corpus.tiktoken_cache_dir), checking their hashes.
"""

from __future__ import annotations

import os
import pickle

import pytest
from parity_corpus import CORPUS, gpt2_ranks, openai_files_dir, tiktoken_cache_dir

import bpe_core

TEXTS = [text for _, text in CORPUS[:40]] + [
    "hello world", "    indented    code\n\tand tabs\t\t", "x" * 3000, " " * 40 + "end",
    "naïve café 日本語 👍🏽", "<|endoftext|> <|fim_prefix|>",
]


@pytest.fixture(scope="module")
def real():
    """tiktoken itself, reading OpenAI's files (and GPT-3's and Codex's, rebuilt) offline."""
    import tiktoken

    before = os.environ.get("TIKTOKEN_CACHE_DIR")
    os.environ["TIKTOKEN_CACHE_DIR"] = str(tiktoken_cache_dir())
    try:
        yield tiktoken
    finally:
        if before is None:
            del os.environ["TIKTOKEN_CACHE_DIR"]
        else:
            os.environ["TIKTOKEN_CACHE_DIR"] = before


# -- the seven encodings --------------------------------------------------------------------------


def test_every_encoding_of_tiktoken_is_served(real):
    assert set(bpe_core.list_encoding_names()) == set(real.list_encoding_names())


@pytest.mark.parametrize("name", ["r50k_base", "p50k_base", "p50k_edit"])
def test_gpt3_and_codex_encodings_give_tiktokens_ids(real, name):
    ours, ref = bpe_core.get_encoding(name), real.get_encoding(name)
    assert (ours.n_vocab, ours.max_token_value, ours.eot_token) == (
        ref.n_vocab, ref.max_token_value, ref.eot_token)
    assert ours.special_tokens_set == ref.special_tokens_set
    for text in TEXTS:
        assert ours.encode(text, allowed_special="all") == ref.encode(text, allowed_special="all")
    # p50k's whitespace runs: the 3 spaces before " return" are one token there, 3 in r50k
    assert len(ours.encode("    return x")) == (5 if name == "r50k_base" else 3)
    assert ours.token_byte_values() == ref.token_byte_values()


def test_codex_edit_has_the_fill_in_the_middle_tokens(real):
    ours = bpe_core.get_encoding("p50k_edit")
    text = "<|fim_prefix|>def f():<|fim_suffix|>\n<|fim_middle|>"
    assert ours.encode(text, allowed_special="all") == real.get_encoding("p50k_edit").encode(
        text, allowed_special="all")
    assert ours.encode_single_token("<|fim_middle|>") == 50282


def test_a_rebuilt_encoding_that_misses_its_hash_is_refused(monkeypatch):
    """The rebuilt ranks are checked against the SHA-256 tiktoken expects for OpenAI's file."""
    from bpe_core import pretrained

    runs = {b" " * n: 50255 + n for n in range(2, 25)}  # one space run short
    monkeypatch.setitem(pretrained.EXTRA_ENCODINGS["p50k_base"], "extra_tokens", runs)
    with pytest.raises(ValueError, match="p50k_base.*SHA-256"):
        pretrained.load_pretrained("p50k_base", directory=pretrained.ASSETS / ".." / "data")


def test_encoding_for_model_answers_for_every_model_tiktoken_knows(real):
    import tiktoken.model

    assert len(tiktoken.model.MODEL_TO_ENCODING) == 45
    for model in tiktoken.model.MODEL_TO_ENCODING:
        ours, ref = bpe_core.encoding_for_model(model), real.encoding_for_model(model)
        assert ours.name == ref.name, model
        assert ours.encode("  hello world", allowed_special="all") == ref.encode(
            "  hello world", allowed_special="all")


def test_submodules_have_tiktokens_names():
    import bpe_core.core
    import bpe_core.load
    import bpe_core.model
    import bpe_core.registry

    assert bpe_core.core.Encoding is bpe_core.Encoding
    assert bpe_core.registry.get_encoding("gpt2") is bpe_core.get_encoding("gpt2")
    assert bpe_core.model.encoding_name_for_model("text-davinci-003") == "p50k_base"
    assert isinstance(bpe_core.get_encoding("cl100k_base"), bpe_core.Encoding)
    assert repr(bpe_core.get_encoding("cl100k_base")) == "<Encoding 'cl100k_base'>"


# -- the Encoding constructor ---------------------------------------------------------------------


@pytest.fixture(scope="module")
def gpt2_args():
    return {
        "name": "gpt2-by-hand",
        "pat_str": bpe_core.get_encoding("r50k_base").pattern,
        "mergeable_ranks": gpt2_ranks(openai_files_dir()),
        "special_tokens": {"<|endoftext|>": 50256, "<|pickle|>": 100_000},
    }


def test_encoding_built_from_ranks_gives_tiktokens_ids(real, gpt2_args):
    ours, ref = bpe_core.Encoding(**gpt2_args), real.Encoding(**gpt2_args)
    for text in TEXTS:
        assert ours.encode(text, allowed_special="all") == ref.encode(text, allowed_special="all")
    assert ours.n_vocab == ref.n_vocab == 100_001
    assert repr(ours) == repr(ref) == "<Encoding 'gpt2-by-hand'>"


def test_explicit_n_vocab_is_checked(gpt2_args):
    args = {**gpt2_args, "special_tokens": {"<|endoftext|>": 50256}}
    assert bpe_core.Encoding(**args, explicit_n_vocab=50257).n_vocab == 50257
    with pytest.raises(ValueError, match="explicit_n_vocab is 50300"):
        bpe_core.Encoding(**args, explicit_n_vocab=50300)


def test_private_views_rebuild_the_encoding_in_tiktoken(real):
    """transformers' tiktoken converter reads ``_pat_str``, ``_mergeable_ranks`` and
    ``_special_tokens``; tiktoken given them gives the same ids."""
    ours = bpe_core.get_encoding("cl100k_base")
    ref = real.Encoding("again", pat_str=ours._pat_str, mergeable_ranks=dict(ours._mergeable_ranks),
                        special_tokens=dict(ours._special_tokens))
    for text in TEXTS:
        assert ours.encode(text, allowed_special="all") == ref.encode(text, allowed_special="all")


def test_a_custom_encoding_pickles(gpt2_args):
    enc = bpe_core.Encoding(**gpt2_args)
    again = pickle.loads(pickle.dumps(enc))
    assert again.encode("hello <|pickle|>", allowed_special="all") == [31373, 220, 100_000]
    assert pickle.loads(pickle.dumps(bpe_core.get_encoding("p50k_base"))) is (
        bpe_core.get_encoding("p50k_base"))


# -- more of Encoding ----------------------------------------------------------------------------


def test_encode_to_numpy_is_tiktokens(real):
    ours, ref = bpe_core.get_encoding("cl100k_base"), real.get_encoding("cl100k_base")
    a = ours.encode_to_numpy("hello world <|endoftext|>", allowed_special="all")
    b = ref.encode_to_numpy("hello world <|endoftext|>", allowed_special="all")
    assert a.dtype == b.dtype and a.tolist() == b.tolist() == [15339, 1917, 220, 100257]


@pytest.mark.parametrize("text", [
    "hello fanta", "hello world!!", "hello ", "hello   ", "a\n\n", "", "café", "日本",
    "x = 1\n    ", "hi <|endoftext|>", "tabs\t\t", "a \u3000", "don'",
])
def test_encode_with_unstable_is_tiktokens(real, text):
    ours, ref = bpe_core.get_encoding("r50k_base"), real.get_encoding("r50k_base")
    stable, completions = ours.encode_with_unstable(text, allowed_special="all")
    ref_stable, ref_completions = ref.encode_with_unstable(text, allowed_special="all")
    assert stable == ref_stable
    assert sorted(map(tuple, completions)) == sorted(map(tuple, ref_completions))
    for seq in completions:  # tiktoken's docstring's promise
        assert ours.decode_bytes(stable + seq).startswith(text.encode())


def test_encode_bytes_is_tiktokens(real):
    ours, ref = bpe_core.get_encoding("cl100k_base"), real.get_encoding("cl100k_base")
    assert ours._encode_bytes(b" \xec\x8b\xa4\xed") == ref._encode_bytes(b" \xec\x8b\xa4\xed") == [
        62085]
    for data in [b"\x80" * 5, b"hello \xff world", "naïve".encode()[:-1], b"ab\xe6\x97", b""]:
        assert ours._encode_bytes(data) == ref._encode_bytes(data)
        assert ours.decode_bytes(ours._encode_bytes(data)) == data


# -- exception types -----------------------------------------------------------------------------


@pytest.mark.parametrize("library", ["tiktoken", "bpe_core"])
def test_the_same_exception_types(real, library):
    enc = (real if library == "tiktoken" else bpe_core).get_encoding("gpt2")
    with pytest.raises(TypeError):
        enc.encode(b"hello")
    with pytest.raises(TypeError):
        enc.encode_ordinary(b"hello")
    with pytest.raises(TypeError):
        enc.encode("hi <|endoftext|>", allowed_special=["<|endoftext|>"])
    with pytest.raises(ValueError):
        enc.encode("hi <|endoftext|>")
    with pytest.raises(KeyError):
        enc.decode([10**6])
    with pytest.raises(KeyError):
        enc.encode_single_token("no such token")
    assert enc.encode("hi <|endoftext|>", allowed_special=frozenset(["<|endoftext|>"])) == [
        5303, 220, 50256]


def test_a_list_for_allowed_special_says_to_pass_a_set():
    enc = bpe_core.get_encoding("gpt2")
    with pytest.raises(TypeError, match=r"set\(\['<\|endoftext\|>'\]\)"):
        enc.encode("hi", allowed_special=["<|endoftext|>"])
    with pytest.raises(ValueError, match="must be a str, not bytes"):  # a ValueError too
        enc.encode(b"hi")


# -- tiktoken.load --------------------------------------------------------------------------------


def test_load_tiktoken_bpe_reads_what_tiktoken_reads(tmp_path):
    import tiktoken.load

    path = str(openai_files_dir() / "cl100k_base.tiktoken")
    expected = "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7"
    ours = bpe_core.load.load_tiktoken_bpe(path, expected_hash=expected)
    assert ours == tiktoken.load.load_tiktoken_bpe(path, expected_hash=expected)
    with pytest.raises(ValueError, match="SHA-256"):
        bpe_core.load.load_tiktoken_bpe(path, expected_hash="0" * 64)
    small = {bytes([b]): b for b in range(256)} | {b"ab": 256}
    bpe_core.load.dump_tiktoken_bpe(small, tmp_path / "small.tiktoken")
    assert tiktoken.load.load_tiktoken_bpe(str(tmp_path / "small.tiktoken")) == small


def test_data_gym_ranks_are_tiktokens():
    import tiktoken.load

    folder = openai_files_dir() / "gpt2"
    args = (str(folder / "vocab.bpe"), str(folder / "encoder.json"))
    ours = bpe_core.load.data_gym_to_mergeable_bpe_ranks(*args)
    assert ours == tiktoken.load.data_gym_to_mergeable_bpe_ranks(*args)
    assert len(ours) == 50256


def test_an_address_is_refused_not_fetched():
    url = "https://openaipublic.blob.core.windows.net/encodings/r50k_base.tiktoken"
    with pytest.raises(ValueError, match="local files only.*download"):
        bpe_core.load.load_tiktoken_bpe(url)


def test_bpe_core_load_still_reads_every_format(tmp_path):
    """``bpe_core.load`` is tiktoken's submodule and, called, bpe_core's reader."""
    tok = bpe_core.RegexTokenizer()
    tok.train("hello hello world", 260)
    tok.save(str(tmp_path / "toy"))
    assert bpe_core.load(tmp_path / "toy.model").encode("hello world") == tok.encode("hello world")
    from bpe_core import load

    assert load(tmp_path / "toy.model").merges == tok.merges


def test_harmonys_second_name_for_200018_is_tiktokens():
    """tiktoken's o200k_harmony names 200018 twice: <|endofprompt|> and <|reserved_200018|>."""
    from parity_corpus import tiktoken_harmony

    ours, ref = bpe_core.get_encoding("o200k_harmony"), tiktoken_harmony()
    text = "a<|reserved_200018|>b<|endofprompt|>"
    assert ours.encode(text, allowed_special="all") == ref.encode(text, allowed_special="all") == [
        64, 200018, 65, 200018]
    assert ours.decode([200018]) == ref.decode([200018]) == "<|endofprompt|>"
    assert ours.encode_single_token("<|reserved_200018|>") == 200018
    assert ours.special_tokens_set == ref.special_tokens_set
    with pytest.raises(ValueError, match="reserved_200018"):
        ours.encode("<|reserved_200018|>")  # disallowed by default, as tiktoken's
    assert ours.encode("<|reserved_200018|>", disallowed_special=()) == ref.encode(
        "<|reserved_200018|>", disallowed_special=())
