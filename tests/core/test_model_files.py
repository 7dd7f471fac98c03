"""Files that models ship, written here and read against their own tools: Whisper's
multilingual.tiktoken (an empty token) against tiktoken, Mistral's tekken.json against
mistral-common's rule (its ids: special tokens first, the vocabulary shifted), and the
refusal of files no reader takes, naming what they look like."""

from __future__ import annotations

import base64
import json

import pytest
from support import CORPORA

import bpe_core
from bpe_core.tekken import TekkenTokenizer

tiktoken = pytest.importorskip("tiktoken")
tiktoken_load = pytest.importorskip("tiktoken.load")

MULTILINGUAL = ["Hello world, the quick brown fox", "Grüße aus Köln: ½ € 😀",
                "Привет, мир", "こんにちは世界", "مرحبا بالعالم", "  spaces\tand\nnewlines  ",
                "<|endoftext|> is text here", ""]


def texts(n: int) -> list[str]:
    prose, code = CORPORA["prose"], CORPORA["code"]
    out = [prose[i * 37:i * 37 + 60] for i in range(n // 2)]
    out += [code[i * 41:i * 41 + 60] for i in range(n - len(out) - len(MULTILINGUAL))]
    return out + MULTILINGUAL


@pytest.fixture(scope="module")
def whisper_like(tmp_path_factory):
    """A .tiktoken file with an empty token at the last rank, as Whisper's multilingual.tiktoken
    ("= 50256"): the first 3,000 ranks of GPT-2 (a real vocabulary), then the empty token."""
    gpt2 = bpe_core.get_encoding("gpt2")
    ranks = sorted(gpt2._mergeable_ranks.items(), key=lambda item: item[1])[:3000]
    lines = [f"{base64.b64encode(t).decode()} {r}" for t, r in ranks] + ["= 3000"]
    path = tmp_path_factory.mktemp("whisper") / "multilingual.tiktoken"
    path.write_text("\n".join(lines) + "\n")
    return str(path), gpt2._pat_str


def whisper_encoding(module, path, pattern):
    """An encoding built the way whisper/tokenizer.py builds its own: the file's ranks (read
    with base64's lenient decoding), then the special tokens numbered on after them."""
    with open(path) as f:
        ranks = {base64.b64decode(token): int(rank)
                 for token, rank in (line.split() for line in f if line)}
    specials = ["<|endoftext|>", "<|startoftranscript|>", "<|en|>", "<|de|>", "<|translate|>",
                "<|transcribe|>", "<|notimestamps|>", "<|0.00|>"]
    n = len(ranks)
    return module.Encoding(name="multilingual", explicit_n_vocab=n + len(specials),
                           pat_str=pattern, mergeable_ranks=ranks,
                           special_tokens={s: n + i for i, s in enumerate(specials)})


def test_an_empty_token_is_kept_as_tiktoken_keeps_it(whisper_like):
    path, pattern = whisper_like
    assert bpe_core.load.load_tiktoken_bpe(path) == tiktoken_load.load_tiktoken_bpe(path)
    assert bpe_core.load.load_tiktoken_bpe(path)[b""] == 3000
    theirs = whisper_encoding(tiktoken, path, pattern)
    ours = whisper_encoding(bpe_core, path, pattern)
    assert ours.n_vocab == theirs.n_vocab
    for text in texts(1000):
        ids = theirs.encode(text, allowed_special="all")
        assert ours.encode(text, allowed_special="all") == ids
        assert ours.decode(ids) == theirs.decode(ids)
    assert ours.decode_single_token_bytes(3000) == theirs.decode_single_token_bytes(3000) == b""
    assert ours.decode([3000, 3001]) == theirs.decode([3000, 3001])


def test_the_one_loader_reads_a_file_with_an_empty_token(whisper_like):
    path, pattern = whisper_like
    theirs = whisper_encoding(tiktoken, path, pattern)
    specials = {"<|endoftext|>": 3001}
    ours = bpe_core.load(path, pattern=pattern, special_tokens=specials)
    for text in MULTILINGUAL:
        assert ours.encode(text, allowed_special="all") == theirs.encode(text, allowed_special="all")
    assert ours.decode([3000]) == ""
    assert ours.family == "byte-level"


# -- Mistral's tekken.json ------------------------------------------------------------------------

def tekken_document(num_special: int, listed: list[str] | None, vocab_size: int,
                    version: str = "v7") -> tuple[dict, dict[bytes, int], str]:
    tok = bpe_core.RegexTokenizer(bpe_core.GPT4O_SPLIT_PATTERN)
    tok.train(CORPORA["prose"][:20_000], 700)
    vocab = [{"rank": i, "token_bytes": base64.b64encode(tok.vocab[i]).decode(),
              "token_str": tok.vocab[i].decode("utf-8", "replace")} for i in range(700)]
    document = {"config": {"pattern": bpe_core.GPT4O_SPLIT_PATTERN,
                           "default_vocab_size": vocab_size,
                           "default_num_special_tokens": num_special, "version": version},
                "vocab": vocab}
    if listed is not None:
        document["special_tokens"] = [{"rank": i, "token_str": s, "is_control": True}
                                      for i, s in enumerate(listed)]
    inner = vocab_size - num_special
    ranks = {tok.vocab[i]: i for i in range(inner)}  # mistral-common keeps the first ones
    return document, ranks, bpe_core.GPT4O_SPLIT_PATTERN


@pytest.mark.parametrize("num_special,listed,vocab_size", [
    (10, ["<unk>", "<s>", "</s>", "[INST]", "[/INST]"], 690),  # fillers <SPECIAL_5>..9
    (20, None, 720),  # a v7 file without special_tokens: the 20 old ones
])
def test_tekken_gives_mistral_commons_ids(tmp_path, num_special, listed, vocab_size):
    document, ranks, pattern = tekken_document(num_special, listed, vocab_size)
    path = tmp_path / "tekken.json"
    path.write_text(json.dumps(document))
    ours = bpe_core.load(path)
    assert isinstance(ours, TekkenTokenizer) and ours.family == "byte-level"
    # mistral-common's rule, read in its tekken.py: a tiktoken encoding of the first
    # (vocab size - specials) tokens, no special tokens, its ids shifted by the specials
    inner = tiktoken.Encoding("tekken", pat_str=pattern, mergeable_ranks=ranks, special_tokens={})
    assert ours.n_words == vocab_size
    for text in texts(200) + ["[INST] hi </s> <s>"]:
        expected = [i + num_special for i in inner.encode(text)]
        assert ours.encode(text) == expected
        assert ours.encode(text, bos=True, eos=True) == [1, *expected, 2]
        assert ours.decode([1, *expected, 2]) == inner.decode(inner.encode(text))
    assert ours.special_tokens[1] == "<s>" and ours.special_tokens[num_special - 1] in (
        "<SPECIAL_9>", "[TOOL_CONTENT]")
    assert ours.decode([1, 5], "keep") == "<s>" + ours.special_tokens[5]


@pytest.mark.parametrize("change,said", [
    (lambda d: d.pop("vocab"), "a Mistral tekken.json without its \"vocab\" list"),
    (lambda d: d["config"].pop("pattern"), "config.pattern is missing"),
    (lambda d: d["config"].update(version="v99"), "config.version 'v99' is not one"),
    (lambda d: d["config"].update(version="v11"), "lists no \"special_tokens\""),
    (lambda d: d["config"].update(default_vocab_size=5000), "holds 700"),
])
def test_a_tekken_file_missing_a_part_is_refused_naming_the_format_and_the_part(
        tmp_path, change, said):
    document, _, _ = tekken_document(20, None, 720)
    change(document)
    path = tmp_path / "tekken.json"
    path.write_text(json.dumps(document))
    with pytest.raises(ValueError, match=said) as caught:
        bpe_core.load(path)
    assert "Mistral tekken.json" in str(caught.value) or "tekken" in str(caught.value)


# -- files no reader takes ----------------------------------------------------------------------

@pytest.mark.parametrize("name,data,said", [
    ("model.gguf", b"GGUF\x03\x00\x00\x00" + bytes(64), "GGUF model file"),
    ("tokenizer_config.json", json.dumps({"tokenizer_class": "LlamaTokenizer",
                                          "model_max_length": 4096}).encode(),
     "tokenizer_config.json: it holds settings"),
    ("config.json", json.dumps({"architectures": ["MistralForCausalLM"]}).encode(),
     "a model's config.json"),
    ("vocab.txt", b"[PAD]\n[UNK]\n[CLS]\n[SEP]\nthe\n##s\n", "WordPiece vocab.txt"),
    ("spm.vocab", b"<unk>\t0\n<s>\t0\n\xe2\x96\x81the\t-1.5\n", "SentencePiece .vocab listing"),
    ("bpe_simple_vocab_16e6.txt.gz", b"\x1f\x8b\x08\x00" + bytes(30),
     "bpe_simple_vocab_16e6.txt.gz: a gzip file that cannot be read"),
])
def test_a_file_no_reader_takes_is_refused_naming_what_it_looks_like(tmp_path, name, data, said):
    path = tmp_path / name
    path.write_bytes(data)
    with pytest.raises(ValueError, match=said):
        bpe_core.load(path)
    with pytest.raises(ValueError, match=said):  # an upload (the Export & import page's way)
        bpe_core.read_tokenizer(data, name)


# -- where the app and the command line take byte-level tokenizers only -------------------------

def test_the_export_page_and_the_command_line_name_a_word_bpe_file_they_do_not_take(tmp_path):
    import subprocess
    import sys
    from pathlib import Path

    from ui.exchange.files import read_uploads, sidebar_refusal

    codes = b"#version: 0.2\nl o\nlo w</w>\ne r</w>\n"
    # the Export & import page loads them; the sidebar's pages take byte-level tokenizers only
    assert sidebar_refusal(read_uploads([("codes.bpe", codes)])).startswith(
        "codes.bpe is subword-nmt codes (word BPE) and loads, but the other pages take")
    document, _, _ = tekken_document(20, None, 720)
    assert sidebar_refusal(read_uploads([("tekken.json", json.dumps(document).encode())])
                           ).startswith("tekken.json is Mistral tekken.json (byte-level BPE)")
    (tmp_path / "codes.bpe").write_bytes(codes)
    root = Path(__file__).resolve().parents[2]
    run = subprocess.run([sys.executable, "-m", "bpe_lab", "info", "codes.bpe"], cwd=tmp_path,
                         capture_output=True, text=True, timeout=120,
                         env={"PYTHONPATH": str(root), "PATH": "/usr/bin:/bin"})
    assert run.returncode != 0 and "Traceback" not in run.stderr
    assert "codes.bpe is subword-nmt codes (word BPE) and loads, but bpe-lab's commands" in (
        run.stderr + run.stdout)
