"""The presets (GPT-2, cl100k_base, o200k_base) against tiktoken, built offline from their files."""

from __future__ import annotations

import gzip
import os
import shutil
import sys
from array import array

import pytest
from hypothesis import given, settings
from parity_corpus import (
    CORPUS,
    CORPUS_NAMES,
    JOINED,
    PUBLISHED_SHA256,
    has_lone_surrogate,
    openai_files_dir,
    pretrained,
    random_text,
    tiktoken_reference,
)

from bpe_core import PRESETS, load_pretrained
from bpe_core.pretrained import ASSETS

os.environ["TIKTOKEN_CACHE_DIR"] = ""  # tiktoken caches files by path: never serve stale ranks

NAMES = ["gpt2", "cl100k_base", "o200k_base"]


@pytest.fixture(scope="module", params=NAMES)
def pair(request):
    """(ours, tiktoken's) for one preset."""
    return pretrained(request.param), tiktoken_reference(request.param)


# ---------------------------------------------------------------------------------------------
# Parity with tiktoken


@pytest.mark.parametrize("item", CORPUS_NAMES)
def test_encode_ordinary_matches_tiktoken(pair, item):
    ours, ref = pair
    text = dict(CORPUS)[item]
    assert ours.encode_ordinary(text) == ref.encode_ordinary(text)


@pytest.mark.parametrize("item", CORPUS_NAMES)
def test_encode_with_all_specials_matches_tiktoken(pair, item):
    ours, ref = pair
    text = dict(CORPUS)[item]
    assert ours.encode(text, allowed_special="all") == ref.encode(text, allowed_special="all")


def test_whole_corpus_matches_tiktoken(pair):
    ours, ref = pair
    assert ours.encode_ordinary(JOINED) == ref.encode_ordinary(JOINED)
    assert ours.encode(JOINED, allowed_special="all") == ref.encode(JOINED, allowed_special="all")
    # the special-looking text really was encoded as special tokens, not as ordinary text
    assert PRESETS[ours.name]["special_tokens"]["<|endoftext|>"] in ours.encode(
        JOINED, allowed_special="all"
    )


def test_specials_allowed_one_by_one_match_tiktoken(pair):
    ours, ref = pair
    text = dict(CORPUS)["special_lookalikes"]
    for special in PRESETS[ours.name]["special_tokens"]:
        assert ours.encode(text, allowed_special={special}, disallowed_special=()) == ref.encode(
            text, allowed_special={special}, disallowed_special=()
        )
    assert ours.encode(text, allowed_special="none") == ref.encode(text, disallowed_special=())
    assert ours.encode(text, disallowed_special=()) == ref.encode(text, disallowed_special=())


@pytest.mark.parametrize("name", NAMES)
@settings(max_examples=100, deadline=None)
@given(text=random_text(surrogates=True))
def test_random_text_matches_tiktoken_and_round_trips(name, text):
    ours, ref = pretrained(name), tiktoken_reference(name)
    ids = ours.encode(text, allowed_special="all")
    assert ids == ref.encode(text, allowed_special="all")
    assert ours.encode_ordinary(text) == ref.encode_ordinary(text)
    if not has_lone_surrogate(text):
        assert ours.decode(ids) == text
        assert ours.decode(ours.encode_ordinary(text)) == text


@pytest.mark.parametrize("item", CORPUS_NAMES)
def test_decode_gives_the_text_back(pair, item):
    ours, ref = pair
    text = dict(CORPUS)[item]
    if has_lone_surrogate(text):
        # both replace a lone surrogate by U+FFFD before encoding (a valid pair becomes its char)
        fixed = text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
        assert ours.decode(ours.encode_ordinary(text)) == fixed
        assert ref.decode(ref.encode_ordinary(text)) == fixed
    else:
        assert ours.decode(ours.encode(text, allowed_special="all")) == text
        assert ours.decode(ours.encode_ordinary(text)) == text


def test_every_token_has_tiktokens_bytes(pair):
    ours, ref = pair
    assert max(ours.vocab) == ref.max_token_value
    for idx in range(ref.n_vocab):  # cl100k_base has unused ids between its special tokens
        try:
            expected = ref.decode_single_token_bytes(idx)
        except KeyError:
            assert idx not in ours.vocab
        else:
            assert ours.vocab[idx] == expected, idx


# ---------------------------------------------------------------------------------------------
# Known answers (checked against the tiktoken reference too)

KNOWN = [
    ("gpt2", "hello world", [31373, 995]),
    ("gpt2", "    hello world!!!", [220, 220, 220, 23748, 995, 10185]),  # the seeds' example
    ("cl100k_base", "hello world", [15339, 1917]),
    ("cl100k_base", "    hello world!!!", [262, 24748, 1917, 12340]),  # the seeds' example
    ("o200k_base", "hello world", [24912, 2375]),
    ("o200k_base", "    hello world!!!", [271, 40617, 2375, 10880]),
    ("cl100k_base", "<|endoftext|>", [100257]),
    ("o200k_base", "<|endofprompt|>", [200018]),
    ("gpt2", "<|endoftext|>", [50256]),
]


@pytest.mark.parametrize(("name", "text", "expected"), KNOWN)
def test_known_answers(name, text, expected):
    assert pretrained(name).encode(text, allowed_special="all") == expected
    assert tiktoken_reference(name).encode(text, allowed_special="all") == expected
    assert pretrained(name).decode(expected) == text


# ---------------------------------------------------------------------------------------------
# The recovered merges


@pytest.mark.parametrize("name", NAMES)
def test_recovered_merges_make_their_tokens(name):
    tok = pretrained(name)
    vocab = tok.vocab
    for (a, b), t in tok.merges.items():
        assert vocab[a] + vocab[b] == vocab[t], (a, b, t)
        assert a < t and b < t, (a, b, t)
    specials = PRESETS[name]["special_tokens"]
    assert tok.num_merges == tok.vocab_size - 256 - len(specials)
    assert tok.num_merges == {"gpt2": 50_000, "cl100k_base": 100_000, "o200k_base": 199_742}[name]
    # merge order is rank order, so step k of the step-through is the k-th merge tiktoken knows
    ranks = list(tok.merges.values())
    assert ranks == sorted(ranks)
    assert tok.special_tokens == specials


@pytest.mark.parametrize("name", NAMES)
def test_byte_tokens_use_the_presets_ids(name):
    tok, ref = pretrained(name), tiktoken_reference(name)
    assert [tok.vocab[tok.byte_ids[b]] for b in range(256)] == [bytes([b]) for b in range(256)]
    assert tok.byte_ids == [ref.encode_single_token(bytes([b])) for b in range(256)]
    assert tok.byte_ids != list(range(256))  # GPT ids are not the byte values


# ---------------------------------------------------------------------------------------------
# Step-through on a preset

STEP_TEXT = (
    "Hello, world! It's 2024: caf\u00e9 \U0001f44b\U0001f3fd \u4f60\u597d\n"
    "    def tokenize(text):  # 12345\r\n"
)


@pytest.mark.parametrize("name", NAMES)
def test_step_through_starts_at_bytes_and_ends_at_encode(name):
    tok = pretrained(name)
    steps = tok.step_through(STEP_TEXT)
    assert steps.num_merges == tok.num_merges
    start = steps.tokens_at(0)
    assert [t.id for t in start] == [tok.byte_ids[b] for b in STEP_TEXT.encode("utf-8")]
    assert all(len(t.token) == 1 for t in start)
    end = steps.tokens_at(tok.num_merges)
    assert [t.id for t in end] == tok.encode(STEP_TEXT)
    assert b"".join(t.token for t in end) == STEP_TEXT.encode("utf-8")


@pytest.mark.parametrize("name", ["gpt2", "cl100k_base"])
def test_step_through_intermediate_steps_match_tiktoken_with_fewer_ranks(name):
    """After k merges the tokens are what tiktoken gives with only the first k merged ranks."""
    import tiktoken

    tok = pretrained(name)
    steps = tok.step_through(STEP_TEXT)
    merged_ranks = list(tok.merges.values())
    byte_ranks = {bytes([b]): tok.byte_ids[b] for b in range(256)}
    for k in (1, 50, 1000, tok.num_merges // 2):
        limit = merged_ranks[k - 1]
        ranks = dict(byte_ranks)
        ranks.update({tok.vocab[r]: r for r in merged_ranks if r <= limit})
        partial = tiktoken.Encoding(
            f"{name}-{k}", pat_str=PRESETS[name]["pattern"], mergeable_ranks=ranks,
            special_tokens={},
        )
        ids = steps.token_ids_at(k)
        assert ids == partial.encode_ordinary(STEP_TEXT), k
        assert max(tok.step_of.get(i, 0) for i in ids) <= k


def test_step_through_refuses_special_text_unless_allowed():
    tok = pretrained("cl100k_base")
    text = "a<|endoftext|>b"
    with pytest.raises(ValueError, match="allowed_special"):
        tok.step_through(text)
    steps = tok.step_through(text, allowed_special="all")
    for k in (0, tok.num_merges):
        spans = steps.tokens_at(k)
        assert [t.id for t in spans] == [tok.byte_ids[ord("a")], 100257, tok.byte_ids[ord("b")]]
        assert [t.special for t in spans] == [False, True, False]


# ---------------------------------------------------------------------------------------------
# Errors


def test_disallowed_special_text_names_the_fix(pair):
    ours, ref = pair
    text = "before <|endoftext|> after"
    with pytest.raises(ValueError) as info:
        ours.encode(text)
    with pytest.raises(ValueError) as theirs:
        ref.encode(text)
    assert str(info.value) == str(theirs.value)  # tiktoken's words exactly: clients read them
    # and the ways out it names work, agreeing with tiktoken (minbpe's "none" is its ())
    assert ours.encode(text, disallowed_special=()) == ref.encode(text, disallowed_special=())
    assert ours.encode(text, allowed_special="none") == ref.encode(text, disallowed_special=())
    assert ours.encode(text, allowed_special={"<|endoftext|>"}) == ref.encode(
        text, allowed_special={"<|endoftext|>"}
    )


def test_unknown_name_lists_the_names():
    with pytest.raises(ValueError) as info:
        load_pretrained("gpt5")
    message = str(info.value)
    assert "gpt5" in message
    for name in NAMES:
        assert name in message


@pytest.fixture()
def assets_copy(tmp_path):
    target = tmp_path / "assets"
    shutil.copytree(ASSETS, target)
    return target


def _rewrite_gz(path, change):
    data = bytearray(gzip.decompress(path.read_bytes()))
    change(data)
    path.write_bytes(gzip.compress(bytes(data)))


def _shipped_name(name, filename):
    """The file in bpe_core/data that stands for OpenAI's ``filename``."""
    return f"{name}.bpe.gz" if filename.endswith(".tiktoken") else f"{filename}.gz"


@pytest.mark.parametrize("name", NAMES)
def test_tampered_asset_is_refused_with_its_hash(name, assets_copy):
    filename, sha256 = next(iter(PRESETS[name]["files"].items()))

    def flip(data):
        if name == "gpt2":
            data[len(data) // 2] ^= 0x01
        else:  # the compact form: bytes "a" and "b" swap ranks; every merge still makes a token
            a, b = 4 + 4 * ord("a"), 4 + 4 * ord("b")
            data[a : a + 4], data[b : b + 4] = data[b : b + 4], data[a : a + 4]

    _rewrite_gz(assets_copy / _shipped_name(name, filename), flip)
    with pytest.raises(ValueError) as info:
        load_pretrained(name, directory=assets_copy)
    message = str(info.value)
    assert filename in message
    assert sha256 in message
    assert "SHA-256" in message or "hash" in message.lower()


def test_untampered_copy_loads_from_the_directory(assets_copy):
    tok = load_pretrained("gpt2", directory=assets_copy)
    assert tok.merges == pretrained("gpt2").merges
    assert tok.encode("hello world") == [31373, 995]


def test_tampered_merges_file_is_refused(assets_copy):
    path = assets_copy / "cl100k_base.bpe.gz"

    def swap_first_merge(data):
        pairs = array("I")
        pairs.frombytes(bytes(data))
        if sys.byteorder != "little":
            pairs.byteswap()
        first = 257  # the token count and the 256 byte ranks come first
        pairs[first], pairs[first + 1] = pairs[first + 2], pairs[first + 3]  # claims the second's
        if sys.byteorder != "little":
            pairs.byteswap()
        data[:] = pairs.tobytes()

    _rewrite_gz(path, swap_first_merge)
    with pytest.raises(ValueError, match="merges"):
        load_pretrained("cl100k_base", directory=assets_copy)


def test_missing_merges_file_says_how_to_rebuild(assets_copy):
    (assets_copy / "cl100k_base.bpe.gz").unlink()
    with pytest.raises(ValueError, match="build_assets"):
        load_pretrained("cl100k_base", directory=assets_copy)


def test_missing_asset_is_a_value_error(assets_copy):
    (assets_copy / "encoder.json.gz").unlink()
    with pytest.raises(ValueError, match="encoder.json"):
        load_pretrained("gpt2", directory=assets_copy)


def test_the_shipped_vocabularies_are_openais_published_files():
    """bpe_core/data holds OpenAI's four files, each with its published SHA-256 (checked in
    parity_corpus.openai_files_dir, which the tiktoken references are built from)."""
    folder = openai_files_dir()
    files = sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file())
    assert files == sorted(PUBLISHED_SHA256)
    assert load_pretrained("o200k_base").encode("hello world") == [24912, 2375]


# ---------------------------------------------------------------------------------------------
# Loaded once per process; each caller gets a tokenizer of its own


def test_files_are_read_once_per_process(assets_copy):
    first = load_pretrained("cl100k_base", directory=assets_copy)
    shutil.rmtree(assets_copy)  # a second load must not need the files again
    second = load_pretrained("cl100k_base", directory=assets_copy)
    assert second.encode("hello world") == first.encode("hello world") == [15339, 1917]


def test_a_callers_changes_never_reach_the_next_caller():
    mine = load_pretrained("cl100k_base")
    mine.register_special_tokens({"<|mine|>": 100300})
    mine.merges.clear()  # in place, too
    mine.vocab[15339] = b"changed"
    theirs = load_pretrained("cl100k_base")
    assert "<|mine|>" not in theirs.special_tokens
    assert theirs.num_merges == 100_000
    assert theirs.encode("hello world") == [15339, 1917]
    assert theirs.decode([15339]) == "hello"


def test_training_a_loaded_preset_leaves_the_preset_alone():
    mine = load_pretrained("gpt2")
    mine.train("aaab aaab aaab", 258)
    assert mine.num_merges == 2
    assert load_pretrained("gpt2").encode("hello world") == [31373, 995]


def test_get_encoding_is_shared_and_refuses_changes():
    from bpe_core import get_encoding

    enc = get_encoding("cl100k_base")
    assert enc is get_encoding("cl100k_base")
    with pytest.raises(ValueError, match="load_pretrained"):
        enc.register_special_tokens({"<|mine|>": 100300})
    with pytest.raises(ValueError, match="load_pretrained"):
        enc.train("aaab", 257)
    with pytest.raises(ValueError, match="load_pretrained"):
        enc.pattern = ""
    with pytest.raises(TypeError):
        enc.merges[(1, 2)] = 3
    with pytest.raises(TypeError):
        enc.special_tokens["<|mine|>"] = 100300
    assert enc.encode("hello world") == [15339, 1917]
    assert get_encoding("cl100k_base").special_tokens == PRESETS["cl100k_base"]["special_tokens"]


def test_a_copy_of_the_shared_encoding_can_change():
    from bpe_core import get_encoding

    mine = get_encoding("o200k_base").copy()
    mine.register_special_tokens({"<|mine|>": 300000})
    assert mine.encode("<|mine|>", allowed_special="all") == [300000]
    assert "<|mine|>" not in get_encoding("o200k_base").special_tokens


def test_copy_of_any_tokenizer_is_independent():
    from bpe_core import BasicTokenizer

    tok = BasicTokenizer()
    tok.train("aaabdaaabac", 259)
    twin = tok.copy()
    assert type(twin) is BasicTokenizer and twin.encode("aaab") == tok.encode("aaab") == [258]
    twin.train("xyxyxy", 257)
    twin.register_special_tokens({"<|x|>": 500})
    assert tok.encode("aaab") == [258] and tok.special_tokens == {}
    assert tok.vocab[256] == b"aa" and twin.vocab[256] == b"xy"
