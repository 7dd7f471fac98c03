"""Exchange formats: tokenizer.json, tiktoken ranks, GPT-2 vocab.json + merges.txt, minbpe .model.

Every export is read by the library it is meant for (Hugging Face ``tokenizers``, ``tiktoken``)
and must give our ids; every export loads back through ``bpe_core.load`` unchanged; malformed and
hostile files are a ValueError that names the file and the line or key, never another exception.
"""

from __future__ import annotations

import base64
import gzip
import json
import os
import pydoc_data.topics
import random
import shutil

import pytest
import regex
import tiktoken
import tiktoken.load
import tokenizers
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from parity_corpus import (
    CORPUS,
    JOINED,
    has_lone_surrogate,
    openai_files_dir,
    pretrained,
    tiktoken_reference,
)

from bpe_core import (
    GPT2_SPLIT_PATTERN,
    GPT4_SPLIT_PATTERN,
    GPT4O_SPLIT_PATTERN,
    BasicTokenizer,
    RegexTokenizer,
    Tokenizer,
    clean_text,
    detect_format,
    load,
    read_tokenizer,
)
from bpe_core.formats import bytes_to_unicode, to_gpt2_files, to_hf_json, to_tiktoken
from bpe_core.oniguruma import unguarded

os.environ["TIKTOKEN_CACHE_DIR"] = ""  # tiktoken caches files by path: never serve stale ranks

KINDS = {"basic": "", "gpt2": GPT2_SPLIT_PATTERN, "gpt4": GPT4_SPLIT_PATTERN,
         "gpt4o": GPT4O_SPLIT_PATTERN}
SPECIALS = {"<|endoftext|>": 1000, "<|fim_prefix|>": 1001}  # above the trained ids (256..599)
VOCAB_SIZE = 600
EVERYTHING = r"[\s\S]+"  # for tiktoken, the split of a BasicTokenizer: the whole text, one piece
BYTE_OF = {c: b for b, c in bytes_to_unicode().items()}

TEXTS = [*CORPUS, ("joined", JOINED)]


def training_text() -> str:
    topics = pydoc_data.topics.topics
    return "\n\n".join(topics[key] for key in sorted(topics)[20:])[:40_000]


def new_tokenizer(kind: str) -> Tokenizer:
    return BasicTokenizer() if kind == "basic" else RegexTokenizer(KINDS[kind])


@pytest.fixture(scope="module")
def trained() -> dict[str, Tokenizer]:
    text = training_text()
    out = {}
    for kind in KINDS:
        tok = new_tokenizer(kind)
        tok.train(text, VOCAB_SIZE)
        assert tok.num_merges == VOCAB_SIZE - 256
        tok.register_special_tokens(SPECIALS)
        out[kind] = tok
    return out


@pytest.fixture(scope="module")
def exported(trained, tmp_path_factory) -> dict[str, dict[str, str]]:
    """Every kind saved in every format: {kind: {format: path}}."""
    paths = {}
    for kind, tok in trained.items():
        folder = tmp_path_factory.mktemp(f"export-{kind}")
        files = {
            "hf": str(folder / f"{kind}-tokenizer.json"),
            "tiktoken": str(folder / f"{kind}-ranks.tiktoken"),
            "gpt2-vocab": str(folder / "vocab.json"),
            "gpt2-merges": str(folder / "merges.txt"),
            "minbpe": str(folder / f"{kind}.model"),
        }
        tok.save_hf(files["hf"])
        tok.save_tiktoken(files["tiktoken"])
        tok.save_gpt2(files["gpt2-vocab"], files["gpt2-merges"])
        tok.save(files["minbpe"].removesuffix(".model"))
        paths[kind] = files
    return paths


def ours(tok: Tokenizer, text: str) -> list[int]:
    return tok.encode(text, allowed_special="all")


def assert_same_tokenizer(loaded: Tokenizer, original: Tokenizer) -> None:
    assert type(loaded) is type(original)
    # from a tokenizer.json, the classes read characters newer than Oniguruma's Unicode as
    # Hugging Face does: the same pattern, guarded (oniguruma.unguarded)
    assert unguarded(loaded.pattern) == original.pattern
    assert loaded.merges == original.merges
    assert list(loaded.merges) == list(original.merges)  # merge order too (the step slider)
    assert loaded.vocab == original.vocab
    assert loaded.special_tokens == original.special_tokens
    assert (loaded.byte_ids or list(range(256))) == (original.byte_ids or list(range(256)))
    assert ours(loaded, JOINED) == ours(original, JOINED)


# ---------------------------------------------------------------------------------------------
# The exports read by the libraries they are for


@pytest.mark.parametrize("kind", KINDS)
def test_hf_export_gives_our_ids_in_tokenizers(kind, trained, exported):
    tok = trained[kind]
    hf = tokenizers.Tokenizer.from_file(exported[kind]["hf"])
    for name, text in TEXTS:
        text = clean_text(text)  # Hugging Face cannot take a str with a lone surrogate
        ids = ours(tok, text)
        assert hf.encode(text).ids == ids, name
        assert hf.decode(ids, skip_special_tokens=False) == text, name


def test_basic_tiktoken_pattern_is_no_split():
    for _, text in TEXTS:
        assert regex.findall(EVERYTHING, text) == BasicTokenizer().split(text)


@pytest.mark.parametrize("kind", KINDS)
def test_tiktoken_export_gives_our_ids_in_tiktoken(kind, trained, exported):
    tok = trained[kind]
    ranks = tiktoken.load.load_tiktoken_bpe(exported[kind]["tiktoken"])
    assert len(ranks) == VOCAB_SIZE
    enc = tiktoken.Encoding(f"export-{kind}", pat_str=tok.pattern or EVERYTHING,
                            mergeable_ranks=ranks, special_tokens=tok.special_tokens)
    for name, text in TEXTS:
        assert enc.encode(text, allowed_special="all") == ours(tok, text), name
        assert enc.encode_ordinary(text) == tok.encode_ordinary(text), name


# ---------------------------------------------------------------------------------------------
# Every export loads back unchanged, and is recognised from its content


@pytest.mark.parametrize("kind", KINDS)
def test_hf_export_loads_back(kind, trained, exported):
    assert_same_tokenizer(load(exported[kind]["hf"]), trained[kind])


@pytest.mark.parametrize("kind", KINDS)
def test_tiktoken_export_loads_back(kind, trained, exported):
    tok = trained[kind]
    loaded = load(exported[kind]["tiktoken"], pattern=tok.pattern,
                  special_tokens=tok.special_tokens)
    assert_same_tokenizer(loaded, tok)


@pytest.mark.parametrize("kind", KINDS)
def test_gpt2_export_loads_back_from_either_file(kind, trained, exported):
    tok = trained[kind]
    files = exported[kind]
    for path in (files["gpt2-vocab"], files["gpt2-merges"]):  # the partner is found beside it
        loaded = load(path, pattern=tok.pattern, special_tokens=tok.special_tokens)
        assert_same_tokenizer(loaded, tok)
    # vocab.json keeps the special tokens, so they come back without being given
    assert load(files["gpt2-vocab"], pattern=tok.pattern).special_tokens == tok.special_tokens


@pytest.mark.parametrize("kind", KINDS)
def test_minbpe_export_loads_back(kind, trained, exported):
    assert_same_tokenizer(load(exported[kind]["minbpe"]), trained[kind])


@pytest.mark.parametrize("fmt", ["hf", "tiktoken", "gpt2-vocab", "gpt2-merges", "minbpe"])
@pytest.mark.parametrize("kind", KINDS)
def test_detect_format_recognises_each_export(kind, fmt, exported):
    with open(exported[kind][fmt], "rb") as f:
        assert detect_format(f.read()) == fmt


def test_detect_format_recognises_openais_files():
    folder = openai_files_dir()
    assert detect_format((folder / "gpt2" / "encoder.json").read_bytes()) == "gpt2-vocab"
    assert detect_format((folder / "gpt2" / "vocab.bpe").read_bytes()) == "gpt2-merges"
    assert detect_format((folder / "cl100k_base.tiktoken").read_bytes()) == "tiktoken"
    assert detect_format(b"\xef\xbb\xbf{\"model\": {}}") == "hf"  # a BOM does not hide JSON


def test_read_tokenizer_takes_bytes_like_an_upload(trained):
    tok = trained["gpt4"]
    assert_same_tokenizer(read_tokenizer(to_hf_json(tok).encode(), "upload.json"), tok)
    vocab, merges = to_gpt2_files(tok)
    loaded = read_tokenizer(vocab.encode(), "vocab.json", merges=merges.encode(),
                            pattern=tok.pattern)
    assert_same_tokenizer(loaded, tok)
    loaded = read_tokenizer(to_tiktoken(tok), "ranks.tiktoken", pattern=tok.pattern,
                            special_tokens=SPECIALS)
    assert_same_tokenizer(loaded, tok)


# ---------------------------------------------------------------------------------------------
# The presets through the exchange formats


@pytest.fixture(scope="module")
def preset_hf(tmp_path_factory):
    """{name: (path, tokenizers.Tokenizer)} for each preset saved as tokenizer.json."""
    folder = tmp_path_factory.mktemp("presets-hf")
    out = {}
    for name in ("gpt2", "cl100k_base", "o200k_base"):
        path = str(folder / f"{name}.json")
        pretrained(name).save_hf(path)
        out[name] = path, tokenizers.Tokenizer.from_file(path)
    return out


@pytest.mark.parametrize("name", ["gpt2", "cl100k_base", "o200k_base"])
def test_presets_exported_to_hf_give_tiktokens_ids(name, preset_hf):
    _, hf = preset_hf[name]
    ref = tiktoken_reference(name)
    for item, text in TEXTS:
        text = clean_text(text)
        assert hf.encode(text).ids == ref.encode(text, allowed_special="all"), item


DIGITS = (
    "1234567890123 4567 x12345678 " + "9" * 31 + " 3.14159265358979 1,234,567,890\n"
    "\u0661\u0662\u0663\u0664\u0665\u0666\u0667 \uff11\uff12\uff13\uff14\uff15 \u00b2\u00b3\u00b9"
    "\u2460\u2461\u2462\u2463 $100000000 '12345'"
)


@pytest.mark.parametrize("name", ["gpt2", "cl100k_base", "o200k_base"])
def test_hf_pre_tokenizer_splits_long_numbers_like_we_do(name, preset_hf):
    """cl100k's ``\\p{N}{1,3}+`` must stay a run of 3-digit chunks in Oniguruma (to_oniguruma)."""
    _, hf = preset_hf[name]
    pieces = hf.pre_tokenizer.pre_tokenize_str(DIGITS)
    chunks = [bytes(BYTE_OF[c] for c in piece).decode("utf-8") for piece, _ in pieces]
    expected = pretrained(name).split(DIGITS)
    assert chunks == expected
    if name != "gpt2":
        assert "123" in expected and "9" * 31 not in expected


def test_preset_exported_to_hf_loads_back(preset_hf):
    path, _ = preset_hf["cl100k_base"]
    assert_same_tokenizer(load(path), pretrained("cl100k_base"))


def test_openais_gpt2_files_load_like_the_preset(tmp_path):
    folder = openai_files_dir() / "gpt2"
    preset = pretrained("gpt2")
    for path in (folder / "encoder.json", folder / "vocab.bpe"):
        with pytest.raises(ValueError, match=r"pass pattern= .*GPT2_SPLIT_PATTERN"):
            load(path)  # the files do not say their pattern: no silent default
        assert_same_tokenizer(load(path, pattern=GPT2_SPLIT_PATTERN), preset)
    # the same files under the names other tools give them
    shutil.copy(folder / "encoder.json", tmp_path / "vocab.json")
    shutil.copy(folder / "vocab.bpe", tmp_path / "merges.txt")
    assert_same_tokenizer(load(tmp_path / "vocab.json", pattern=GPT2_SPLIT_PATTERN), preset)


def test_openais_cl100k_ranks_load_like_the_preset():
    folder = openai_files_dir()
    preset = pretrained("cl100k_base")
    loaded = load(folder / "cl100k_base.tiktoken", pattern=GPT4_SPLIT_PATTERN,
                  special_tokens=preset.special_tokens)
    assert_same_tokenizer(loaded, preset)  # the merges recovered at load time are the shipped ones


def test_hf_style_gpt2_tokenizer_json_reads_as_gpt2(tmp_path):
    """The shape Hugging Face's hub uses for GPT-2: ByteLevel with use_regex, merges as strings."""
    folder = openai_files_dir() / "gpt2"
    vocab = json.loads((folder / "encoder.json").read_text(encoding="utf-8"))
    merges = (folder / "vocab.bpe").read_text(encoding="utf-8").split("\n")[1:]
    document = {
        "version": "1.0",
        "added_tokens": [{"id": 50256, "content": "<|endoftext|>", "single_word": False,
                          "lstrip": False, "rstrip": False, "normalized": True,
                          "special": True}],
        "normalizer": None,
        "pre_tokenizer": {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True,
                          "use_regex": True},
        "decoder": {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": True,
                    "use_regex": True},
        "model": {"type": "BPE", "dropout": None, "unk_token": None,
                  "continuing_subword_prefix": "", "end_of_word_suffix": "",
                  "fuse_unk": False, "vocab": vocab, "merges": [m for m in merges if m]},
    }
    path = tmp_path / "tokenizer.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    loaded = load(path)
    preset = pretrained("gpt2")
    assert loaded.merges == preset.merges
    assert loaded.special_tokens == preset.special_tokens
    hf = tokenizers.Tokenizer.from_file(str(path))
    for item, text in TEXTS:
        text = clean_text(text)
        assert ours(loaded, text) == hf.encode(text).ids == ours(preset, text), item


# ---------------------------------------------------------------------------------------------
# Malformed and hostile files


@pytest.fixture(scope="module")
def small() -> Tokenizer:
    """A small tokenizer whose files are quick to parse, with a special token in vocab.json."""
    tok = RegexTokenizer(GPT4_SPLIT_PATTERN)
    tok.train(training_text()[:10_000], 300)
    tok.register_special_tokens({"<|endoftext|>": 400})
    return tok


def _hf(tok, change):
    document = json.loads(to_hf_json(tok))
    change(document)
    return json.dumps(document)


def _tiktoken_lines(tok, change):
    lines = to_tiktoken(tok).split(b"\n")
    change(lines)
    return b"\n".join(lines)


def _set(mapping, key, value):
    mapping[key] = value


def _merge_at(document, k, value):
    document["model"]["merges"][k] = value


def _bad_merge_line(lines, k, value):
    lines[k] = value


BAD_FILES = {
    # name: (file name, content from the small tokenizer, what the message must contain)
    "invalid json": ("tokenizer.json", lambda t: '{"model": {"vocab": {},\n"merges": [}',
                     ["line 2", "JSON"]),
    "json list": ("tokenizer.json", lambda t: "[1, 2, 3]", []),
    "json string": ("tokenizer.json", lambda t: '"just a string"', []),
    "hf without model": ("tokenizer.json", lambda t: '{"version": "1.0"}', []),
    "hf vocab not an object": (
        "tokenizer.json", lambda t: _hf(t, lambda d: _set(d["model"], "vocab", [1, 2])),
        ["model.vocab"]),
    "hf merges not a list": (
        "tokenizer.json", lambda t: _hf(t, lambda d: _set(d["model"], "merges", "a b")),
        ["model.merges"]),
    "hf merge with 3 items": (
        "tokenizer.json", lambda t: _hf(t, lambda d: _merge_at(d, 3, ["a", "b", "c"])),
        ["model.merges[3]"]),
    "hf merge of unknown tokens": (
        "tokenizer.json", lambda t: _hf(t, lambda d: _merge_at(d, 5, ["zzz", "q"])),
        ["merge 5", "'zzz'"]),
    "hf vocab missing a byte": (
        "tokenizer.json", lambda t: _hf(t, lambda d: d["model"]["vocab"].pop("a")), ["0x61"]),
    "hf id not a number": (
        "tokenizer.json", lambda t: _hf(t, lambda d: _set(d["model"]["vocab"], "h", "7")),
        ["model.vocab", "'h'"]),
    "hf negative id": (
        "tokenizer.json", lambda t: _hf(t, lambda d: _set(d["model"]["vocab"], "h", -3)),
        ["model.vocab", "'h'"]),
    "hf token not byte-level": (
        "tokenizer.json", lambda t: _hf(t, lambda d: _set(d["model"]["vocab"], "\u4e00", 999)),
        ["model.vocab", "\u4e00"]),
    "hf merge count wrong": (
        "tokenizer.json", lambda t: _hf(t, lambda d: d["model"]["merges"].pop()), ["merges"]),
    "hf model not BPE": (
        "tokenizer.json", lambda t: _hf(t, lambda d: _set(d["model"], "type", "WordPiece")),
        ["model.type", "WordPiece"]),
    "hf added_tokens not a list": (
        "tokenizer.json", lambda t: _hf(t, lambda d: _set(d, "added_tokens", {"a": 1})),
        ["added_tokens"]),
    "hf added token without id": (
        "tokenizer.json", lambda t: _hf(t, lambda d: d["added_tokens"][0].pop("id")),
        ["added_tokens[0]"]),
    "hf bad split regex": (
        "tokenizer.json",
        lambda t: _hf(t, lambda d: _set(d["pre_tokenizer"]["pretokenizers"][0]["pattern"],
                                       "Regex", "(unclosed")),
        ["pattern"]),
    "hf unsupported pre_tokenizer": (
        "tokenizer.json",
        lambda t: _hf(t, lambda d: _set(d, "pre_tokenizer", {"type": "Metaspace"})),
        ["pre_tokenizer", "Metaspace"]),
    "hf without ByteLevel": (
        "tokenizer.json",
        lambda t: _hf(t, lambda d: _set(d, "pre_tokenizer", {"type": "Whitespace"})),
        ["pre_tokenizer", "ByteLevel"]),
    "deeply nested json": ("tokenizer.json", lambda t: "[" * 100_000, []),
    "deeply nested model": ("tokenizer.json", lambda t: '{"model": ' + "[" * 100_000,
                            ["JSON"]),
    "deeply nested object": ("tokenizer.json", lambda t: '{"a":' * 100_000, ["JSON"]),
    "tiktoken bad base64": (
        "ranks.tiktoken",
        lambda t: _tiktoken_lines(t, lambda ls: _bad_merge_line(ls, 5, b"@@not-base64@@ 5")),
        ["line 6"]),
    "tiktoken rank not a number": (
        "ranks.tiktoken",
        lambda t: _tiktoken_lines(t, lambda ls: _bad_merge_line(ls, 9, b"CQ== nine")),
        ["line 10"]),
    "tiktoken three fields": (
        "ranks.tiktoken",
        lambda t: _tiktoken_lines(t, lambda ls: _bad_merge_line(ls, 2, b"Ag== 2 2")),
        ["line 3"]),
    "tiktoken duplicate rank": (
        "ranks.tiktoken",
        lambda t: _tiktoken_lines(t, lambda ls: _bad_merge_line(ls, 7, b"Bw== 6")),
        ["rank"]),
    "tiktoken missing byte": (
        "ranks.tiktoken", lambda t: _tiktoken_lines(t, lambda ls: ls.pop(65)), ["0x41"]),
    "tiktoken token without parts": (
        "ranks.tiktoken",
        lambda t: to_tiktoken(t) + base64.b64encode(b"\x00\x01\x02\x03") + b" 350\n",
        ["350"]),
    "empty file": ("tokenizer.json", lambda t: b"", []),
    "whitespace only": ("ranks.tiktoken", lambda t: b" \n\n\t\n", []),
    "random megabyte": ("upload.bin", lambda t: random.Random(7).randbytes(1 << 20), []),
    "random megabyte behind a brace": (
        "tokenizer.json", lambda t: b"{" + random.Random(8).randbytes(1 << 20), []),
    "binary that is not utf-8 json": ("tokenizer.json", lambda t: b'{"model": "\xff\xfe"}',
                                      ["line 1"]),
}


@pytest.mark.parametrize("case", BAD_FILES)
def test_malformed_file_is_a_value_error_naming_file_and_place(case, small, tmp_path):
    filename, build, fragments = BAD_FILES[case]
    content = build(small)
    path = tmp_path / filename
    path.write_bytes(content.encode("utf-8") if isinstance(content, str) else content)
    with pytest.raises(ValueError) as info:
        load(path, pattern="", special_tokens={"<|endoftext|>": 400})
    message = str(info.value)
    assert str(path) in message
    for fragment in fragments:
        assert fragment in message, (case, message)


@pytest.fixture()
def gpt2_pair(small, tmp_path):
    vocab, merges = to_gpt2_files(small)
    (tmp_path / "vocab.json").write_text(vocab, encoding="utf-8")
    (tmp_path / "merges.txt").write_text(merges, encoding="utf-8")
    return tmp_path / "vocab.json", tmp_path / "merges.txt"


def test_vocab_json_alone_says_it_needs_merges_txt(small, tmp_path):
    path = tmp_path / "vocab.json"
    path.write_text(to_gpt2_files(small)[0], encoding="utf-8")
    with pytest.raises(ValueError, match="needs its merges.txt") as info:
        load(path)
    assert str(path) in str(info.value)


def test_merges_txt_alone_says_it_needs_vocab_json(small, tmp_path):
    path = tmp_path / "merges.txt"
    path.write_text(to_gpt2_files(small)[1], encoding="utf-8")
    with pytest.raises(ValueError, match="needs its vocab.json") as info:
        load(path)
    assert str(path) in str(info.value)


@pytest.mark.parametrize(
    ("line", "content", "fragment"),
    [
        (5, "a b c", "two tokens"),
        (6, "Ġzzz q", "missing from the vocabulary"),
        (7, "ab", "two tokens"),
        (8, "a  b", "two tokens"),
    ],
)
def test_bad_merges_txt_line_is_named(gpt2_pair, line, content, fragment):
    vocab_path, merges_path = gpt2_pair
    lines = merges_path.read_text(encoding="utf-8").split("\n")
    lines[line - 1] = content
    merges_path.write_text("\n".join(lines), encoding="utf-8")
    for path in (vocab_path, merges_path):
        with pytest.raises(ValueError) as info:
            load(path, pattern="")
        message = str(info.value)
        assert f"{merges_path}, line {line}" in message or f"merges.txt, line {line}" in message
        assert fragment in message


def test_merges_txt_not_utf8_names_its_line(gpt2_pair):
    vocab_path, merges_path = gpt2_pair
    merges_path.write_bytes(merges_path.read_bytes() + b"\xff\xfe \x80\n")
    lines = merges_path.read_bytes().count(b"\n")
    with pytest.raises(ValueError, match=f"line {lines}"):
        load(vocab_path, pattern="")


def test_bad_line_in_a_partner_file_names_that_file(small, tmp_path):
    vocab, merges = to_gpt2_files(small)
    (tmp_path / "encoder.json").write_text(vocab, encoding="utf-8")
    lines = merges.split("\n")
    lines[4] = "a b c"
    (tmp_path / "vocab.bpe").write_text("\n".join(lines), encoding="utf-8")
    with pytest.raises(ValueError) as info:
        load(tmp_path / "encoder.json", pattern="")
    assert "vocab.bpe" in str(info.value) and "line 5" in str(info.value)


def test_vocab_json_that_is_a_list_is_refused(gpt2_pair):
    vocab_path, merges_path = gpt2_pair
    vocab_path.write_text("[1, 2]", encoding="utf-8")
    with pytest.raises(ValueError) as info:
        load(merges_path)
    assert "vocab.json" in str(info.value)


def test_tiktoken_duplicate_rank_names_where(small):
    data = _tiktoken_lines(small, lambda ls: _bad_merge_line(ls, 7, b"Bw== 6"))
    with pytest.raises(ValueError) as info:
        read_tokenizer(data, "ranks.tiktoken", pattern="", special_tokens={})
    message = str(info.value)
    assert "line 8" in message or "rank 6" in message or " 6" in message


def test_tiktoken_negative_rank_is_refused(small):
    data = _tiktoken_lines(small, lambda ls: _bad_merge_line(ls, 5, b"BQ== -1"))
    with pytest.raises(ValueError, match="line 6"):
        read_tokenizer(data, "ranks.tiktoken", pattern="", special_tokens={})


@pytest.mark.parametrize("fmt", ["hf", "gpt2"])
def test_special_token_with_a_learned_tokens_text_round_trips_or_is_refused(fmt, tmp_path):
    tok = RegexTokenizer(GPT4_SPLIT_PATTERN)
    tok.train(training_text()[:10_000], 300)
    learned = next(t for i, t in tok.vocab.items() if i >= 256 and t.isalpha())
    tok.register_special_tokens({learned.decode(): 1000})
    try:
        if fmt == "hf":
            tok.save_hf(str(tmp_path / "tokenizer.json"))
        else:
            tok.save_gpt2(str(tmp_path / "vocab.json"), str(tmp_path / "merges.txt"))
    except ValueError:
        return  # refusing to save is fine
    path = tmp_path / ("tokenizer.json" if fmt == "hf" else "vocab.json")
    assert_same_tokenizer(load(path, pattern=tok.pattern), tok)


# ---------------------------------------------------------------------------------------------
# Fuzzing: never anything but ValueError


@settings(max_examples=200, deadline=None)
@given(data=st.binary(max_size=2_000))
def test_random_bytes_are_a_value_error(data):
    with pytest.raises(ValueError):
        read_tokenizer(data, "x")


PREFIXES = [b"{", b'{"model": ', b"#version: 0.2\n", b"IQ== 0\n", b"minbpe v1\n", b"[", b"a b\n"]


@settings(max_examples=200, deadline=None)
@given(prefix=st.sampled_from(PREFIXES), data=st.binary(max_size=500))
def test_random_bytes_after_a_plausible_start_are_a_value_error_or_load(prefix, data):
    try:
        tok = read_tokenizer(prefix + data, "x", vocab=b"{}", merges=b"", pattern="",
                             special_tokens={})
    except ValueError:
        return
    assert tok.decode(tok.encode("hello world")) == "hello world"


@pytest.fixture(scope="module")
def valid_files(small) -> dict[str, tuple[bytes, dict]]:
    """{format: (file content, read_tokenizer keyword arguments)} for the small tokenizer."""
    vocab, merges = to_gpt2_files(small)
    basic = BasicTokenizer()
    basic.train(training_text()[:5_000], 300)
    lines = ["minbpe v1", "", "1", "<|endoftext|> 400"] + [f"{a} {b}" for a, b in basic.merges]
    return {
        "hf": (to_hf_json(small).encode(), {}),
        "tiktoken": (to_tiktoken(small), {"special_tokens": {"<|endoftext|>": 400},
                                          "pattern": small.pattern}),
        "gpt2-vocab": (vocab.encode(), {"merges": merges.encode(), "pattern": small.pattern}),
        "gpt2-merges": (merges.encode(), {"vocab": vocab.encode(), "pattern": small.pattern}),
        "minbpe": ("\n".join(lines).encode() + b"\n", {}),
    }


def test_valid_files_for_fuzzing_load(valid_files, small):
    for fmt, (content, kwargs) in valid_files.items():
        tok = read_tokenizer(content, fmt, **kwargs)
        if fmt != "minbpe":
            assert tok.merges == small.merges


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    fmt=st.sampled_from(["hf", "tiktoken", "gpt2-vocab", "gpt2-merges", "minbpe"]),
    operation=st.sampled_from(["truncate", "replace byte", "flip bit", "delete", "insert"]),
    where=st.floats(0, 1, exclude_max=True),
    value=st.integers(0, 255),
)
def test_damaged_valid_files_are_a_value_error_or_load(valid_files, fmt, operation, where, value):
    content, kwargs = valid_files[fmt]
    data = bytearray(content)
    i = int(where * len(data))
    if operation == "truncate":
        del data[i:]
    elif operation == "replace byte":
        data[i] = value
    elif operation == "flip bit":
        data[i] ^= 1 << (value % 8)
    elif operation == "delete":
        del data[i : i + 1 + value % 16]
    else:
        data[i:i] = [b"[", b"{", b'"', b"\\u", b"9" * 40, b"-1", b"\n", b" ", b"\xff", b"\x00"][
            value % 10
        ]
    try:
        tok = read_tokenizer(bytes(data), fmt, **kwargs)
    except ValueError:
        return
    text = "hello world, hello <|endoftext|> 12345"
    ids = tok.encode(text, allowed_special="all")
    if tok.pipeline is None:  # a damaged tokenizer.json may still be a valid one that
        assert tok.decode(ids) == text  # normalizes or adds spaces: then it need not round-trip


def test_gzipped_file_is_a_value_error(small, tmp_path):
    path = tmp_path / "tokenizer.json.gz"
    path.write_bytes(gzip.compress(to_hf_json(small).encode()))
    with pytest.raises(ValueError) as info:
        load(path)
    assert str(path) in str(info.value)


def test_lone_surrogates_are_encoded_like_tiktoken_after_loading(trained, exported):
    """A loaded export replaces lone surrogates exactly as tiktoken does."""
    tok = trained["gpt4"]
    ranks = tiktoken.load.load_tiktoken_bpe(exported["gpt4"]["tiktoken"])
    enc = tiktoken.Encoding("surrogates", pat_str=tok.pattern, mergeable_ranks=ranks,
                            special_tokens=tok.special_tokens)
    loaded = load(exported["gpt4"]["hf"])
    for _, text in CORPUS:
        if has_lone_surrogate(text):
            assert loaded.encode_ordinary(text) == enc.encode_ordinary(text)
