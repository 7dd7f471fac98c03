"""tiktoken's corners, as tiktoken has them (issue 47), each probed on real tiktoken 0.14 here.

Rank tables where a token is not the last merge of lower ranks (``ab``, ``bc``, ``cd``, then
``abcd``), which tiktoken builds and merges by the rank of the joined bytes; ``tiktoken_ext``
plugins found as tiktoken finds them; ``_special_tokens`` and ``_mergeable_ranks`` as plain
dicts; ``_encode_single_piece`` and ``_encode_only_native_bpe``; the errors' types, and the
disallowed special token's message in tiktoken's words.
"""

from __future__ import annotations

import json
import os
import pickle
import random
import subprocess
import sys
import textwrap
from fractions import Fraction
from pathlib import Path

import pytest
import tiktoken

import bpe_core

PATTERN = r"[a-e]+| +|[^a-e ]+"
SPECIALS = {"<|e|>": 10_000}


def random_ranks(rng: random.Random) -> dict[bytes, int]:
    """A rank table tiktoken builds: the 256 bytes (in a shuffled order, some of the time) and
    multi-byte tokens over a small alphabet, either random strings at random ranks (rarely the
    last merge of lower ranks) or each the join of two earlier tokens (always one)."""
    order = list(range(256))
    if rng.random() < 0.3:
        rng.shuffle(order)
    ranks = {bytes([b]): order[b] for b in range(256)}
    n = rng.randint(5, 60)
    if rng.random() < 0.5:
        tokens: set[bytes] = set()
        while len(tokens) < n:
            tokens.add(bytes(rng.choice(b"abcde ") for _ in range(rng.randint(2, 6))))
        for token, rank in zip(sorted(tokens), rng.sample(range(256, 256 + 3 * n), n)):
            ranks[token] = rank
    else:
        made = [bytes([c]) for c in b"abcde "]
        while len(ranks) < 256 + n:
            token = rng.choice(made) + rng.choice(made)
            if token not in ranks and len(token) <= 8:
                ranks[token] = len(ranks)
                made.append(token)
    return ranks


def same_outcome(ours, theirs, *args) -> bool:
    """Whether two calls give the same ids, or both raise, ours an error of theirs' type."""
    try:
        expected = theirs(*args)
    except Exception as e:  # the type is the answer
        try:
            ours(*args)
        except type(e):
            return True
        return False
    return ours(*args) == expected


def test_300_random_rank_tables_give_tiktokens_ids():
    rng = random.Random(47)
    kinds = {"Encoding": 0, "RankedEncoding": 0}
    for k in range(300):
        ranks = random_ranks(rng)
        texts = ["abcde abcd", "aaaa bbbb", "edcba  cab", "abcde" * 20, "a", " ", "",
                 "x <|e|> ab", *("".join(rng.choice("abcde  ") for _ in range(rng.randint(1, 60)))
                                 for _ in range(12))]
        ref = tiktoken.Encoding(f"t{k}", pat_str=PATTERN, mergeable_ranks=ranks,
                                special_tokens=SPECIALS)
        ours = bpe_core.Encoding(f"t{k}", pat_str=PATTERN, mergeable_ranks=ranks,
                                 special_tokens=SPECIALS)
        kinds[type(ours).__name__] += 1
        for text in texts:
            assert same_outcome(ours.encode, ref.encode, text), (k, text)
            assert ours.encode(text, allowed_special="all") == ref.encode(text, allowed_special="all")
            if text:  # tiktoken's _encode_single_piece("") panics (a Rust index out of range)
                assert ours._encode_single_piece(text) == ref._encode_single_piece(text)
            assert ours.decode(ref.encode(text, disallowed_special=())) == text
        assert ours.n_vocab == ref.n_vocab
        assert ours.token_byte_values() == ref.token_byte_values()
    assert min(kinds.values()) >= 50, kinds  # both ways of merging were compared


@pytest.mark.parametrize("order", [(256, 257, 258, 259), (257, 258, 259, 256)])
def test_the_issues_table_merges_as_tiktoken(order):
    """ab, bc, cd, then abcd; and abcd ranked before its parts (a token no merge makes)."""
    ranks = {bytes([b]): b for b in range(256)} | dict(zip([b"ab", b"bc", b"cd", b"abcd"], order))
    ref = tiktoken.Encoding("t", pat_str=PATTERN, mergeable_ranks=ranks, special_tokens={})
    ours = bpe_core.Encoding("t", pat_str=PATTERN, mergeable_ranks=ranks, special_tokens={})
    for text in ["abcd abc bcd abcdabcd", "aabcdd", "bcda", "abcabcd"]:
        assert ours.encode(text) == ref.encode(text)
    assert ours.decode([order[3], order[2]]) == ref.decode([order[3], order[2]]) == "abcdcd"
    if order[3] == 259:
        return
    with pytest.raises(ValueError, match="needs the merges.*has none.*joined bytes"):
        ours.step_through("abcd")
    with pytest.raises(ValueError, match="holds merges.*save_tiktoken"):
        ours.save_hf("/nonexistent/tokenizer.json")


def test_a_ranked_encoding_saved_as_tiktoken_loads_in_tiktoken(tmp_path):
    import tiktoken.load

    ranks = {bytes([b]): b for b in range(256)} | {b"ab": 256, b"bc": 257, b"cd": 258, b"abcd": 259}
    ours = bpe_core.Encoding("t", pat_str=PATTERN, mergeable_ranks=ranks, special_tokens={})
    ours.save_tiktoken(tmp_path / "t.tiktoken")
    assert tiktoken.load.load_tiktoken_bpe(str(tmp_path / "t.tiktoken")) == ranks


# -- tiktoken_ext plugins ---------------------------------------------------------------------------

PLUGIN = '''
    ENCODING_CONSTRUCTORS = {{"my_enc": lambda: {{
        "name": "my_enc", "pat_str": {pattern!r},
        "mergeable_ranks": {{**{{bytes([b]): b for b in range(256)}}, b"ab": 256, b"abc": 257}},
        "special_tokens": {{"<|end|>": 258}},
    }}}}
'''

PROBE = '''
import json, sys, {library} as lib
names = lib.list_encoding_names()
enc = lib.get_encoding("my_enc")
import {library}.registry as registry
print(json.dumps({{"names": names, "ids": enc.encode("abc ab <|end|>", allowed_special="all"),
                   "same": enc is lib.get_encoding("my_enc"), "repr": repr(enc),
                   "constructors": list(registry.ENCODING_CONSTRUCTORS)}}))
'''


def run_with_plugin(tmp_path: Path, library: str, plugin: str) -> dict | str:
    folder = tmp_path / "plugins" / "tiktoken_ext"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "myplugin.py").write_text(textwrap.dedent(plugin))
    root = Path(bpe_core.__file__).resolve().parents[1]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path / "plugins"), str(root)])}
    done = subprocess.run([sys.executable, "-c", PROBE.format(library=library)], env=env,
                          capture_output=True, text=True, timeout=120)
    if done.returncode:
        return done.stderr.strip().splitlines()[-1]
    return json.loads(done.stdout)


def test_a_tiktoken_ext_plugin_is_found_as_tiktoken_finds_it(tmp_path):
    plugin = PLUGIN.format(pattern=r"\w+| ")
    theirs = run_with_plugin(tmp_path, "tiktoken", plugin)
    ours = run_with_plugin(tmp_path, "bpe_core", plugin)
    assert ours == theirs
    assert theirs["names"][0] == "my_enc" and "cl100k_base" in theirs["names"]
    assert theirs["ids"] == [257, 32, 256, 32, 258]


@pytest.mark.parametrize("plugin", [
    "X = 1\n",  # no ENCODING_CONSTRUCTORS
    "ENCODING_CONSTRUCTORS = {'gpt2': dict}\n",  # a name tiktoken's own plugin has
])
def test_a_broken_plugin_fails_as_in_tiktoken(tmp_path, plugin):
    theirs = run_with_plugin(tmp_path, "tiktoken", plugin)
    ours = run_with_plugin(tmp_path, "bpe_core", plugin)
    assert isinstance(theirs, str) and ours == theirs  # the same error, in the same words


# -- private views, private encoders, errors --------------------------------------------------------


@pytest.fixture(scope="module")
def pair():
    """cl100k_base in both; tiktoken reads OpenAI's file offline (parity_corpus's cache)."""
    from parity_corpus import tiktoken_cache_dir

    before = os.environ.get("TIKTOKEN_CACHE_DIR")
    os.environ["TIKTOKEN_CACHE_DIR"] = str(tiktoken_cache_dir())
    try:
        yield bpe_core.get_encoding("cl100k_base"), tiktoken.get_encoding("cl100k_base")
    finally:
        if before is None:
            del os.environ["TIKTOKEN_CACHE_DIR"]
        else:
            os.environ["TIKTOKEN_CACHE_DIR"] = before


def test_the_private_views_are_plain_dicts(pair):
    ours, ref = pair
    for name in ("_special_tokens", "_mergeable_ranks"):
        assert type(getattr(ours, name)) is type(getattr(ref, name)) is dict
        assert getattr(ours, name) == getattr(ref, name)
        assert pickle.loads(pickle.dumps(getattr(ours, name))) == getattr(ref, name)
    assert json.dumps(ours._special_tokens) == json.dumps(ref._special_tokens)
    assert ours._mergeable_ranks is ours._mergeable_ranks  # one dict, as tiktoken's attribute


@pytest.mark.parametrize("text", ["helloqqqq", " world", "ééé", b"\xff\xfe ab",
                                  "<|endoftext|>", "a" * 200])
def test_encode_single_piece_and_only_native_bpe_are_tiktokens(pair, text):
    ours, ref = pair
    assert ours._encode_single_piece(text) == ref._encode_single_piece(text)
    if isinstance(text, str):
        mixed = f"{text} and {text}, 123 <|endoftext|>"
        assert ours._encode_only_native_bpe(mixed) == ref._encode_only_native_bpe(mixed)


DECODES = ["decode", "decode_bytes", "decode_tokens_bytes", "decode_with_offsets"]


@pytest.mark.parametrize("bad", ["abc", [1.5], [1.0], [15339, 2.0], [-1], [2**32], [None],
                                 [10**6], [Fraction(1)]])
@pytest.mark.parametrize("decode", DECODES)
def test_decode_errors_have_tiktokens_types(pair, bad, decode):
    """A float id is refused even when whole ([1.0] finds token 1 in a dict), as tiktoken does."""
    ours, ref = pair
    with pytest.raises(Exception) as theirs:
        getattr(ref, decode)(bad)
    with pytest.raises(theirs.type):
        getattr(ours, decode)(bad)


@pytest.mark.parametrize("ids", [[True, 2], (15339, 1917), []])
@pytest.mark.parametrize("decode", DECODES)
def test_ids_that_tiktoken_takes_decode_as_in_tiktoken(pair, ids, decode):
    ours, ref = pair
    assert getattr(ours, decode)(ids) == getattr(ref, decode)(ids)


def test_the_disallowed_special_message_is_tiktokens_word_for_word(pair):
    """tiktoken's message, whole and nothing more (clients such as ttok read it)."""
    ours, ref = pair
    for text, allowed in [("hi <|endoftext|> there", set()),
                          ("<|fim_prefix|> then <|endoftext|>", {"<|endoftext|>"})]:
        with pytest.raises(ValueError) as theirs:
            ref.encode(text, allowed_special=allowed)
        with pytest.raises(ValueError) as mine:
            ours.encode(text, allowed_special=allowed)
        assert str(mine.value) == str(theirs.value)
