"""Files of every family of BPE load on the Export & import page (AppTest, one session): the page
names the family and what the file holds, shows its tokens on the sample text with the ids of
the file's own tool, and offers the downloads its family can be written as; a file it cannot
hold is refused naming what is missing. Every file is written here by the real tool:
sentencepiece, HF tokenizers, subword-nmt; Whisper's multilingual shape and a tekken.json are
built as those projects build them, and their ids come from tiktoken."""

from __future__ import annotations

import base64
import gzip
import io
import json
import re
from pathlib import Path

import pytest
import sentencepiece as spm
import tiktoken
import transformers
from streamlit.testing.v1 import AppTest
from subword_nmt import apply_bpe, learn_bpe
from support import CORPORA, after_reload, llama_shaped_json
from tokenizers import Tokenizer
from transformers.tokenization_utils_base import generate_merges

import bpe_core
from bpe_core.text import bytes_to_unicode
from bpe_core.word_bpe import clip_vocab, learn_merges
from ui.exchange.panel import SAMPLE_TEXT

APP = str(Path(__file__).resolve().parents[2] / "app.py")
TEXT = CORPORA["prose"][:6_000]
SPM = "SentencePiece (Llama 2, Mistral, Gemma)"
WORD = "word BPE (the textbook, subword-nmt)"
BYTE_LEVEL = "byte-level (GPT)"


@pytest.fixture(scope="module")
def at():
    app = AppTest.from_file(APP, default_timeout=60)
    app.run()
    app.switch_page("pages/exchange.py").run()
    assert not app.exception
    return app


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    return tmp_path_factory.mktemp("families")


def spm_train(folder: Path, name: str, **options) -> Path:
    prefix = folder / name
    spm.SentencePieceTrainer.train(
        sentence_iterator=iter(TEXT.splitlines()), model_prefix=str(prefix), vocab_size=400,
        character_coverage=1.0, minloglevel=2, **options)
    return prefix.with_suffix(".model")


@pytest.fixture(scope="module")
def llama_model(folder):
    """Llama 2's settings: BPE, byte fallback, spaces kept, no normalization."""
    return spm_train(folder, "llama", model_type="bpe", byte_fallback=True,
                     normalization_rule_name="identity", remove_extra_whitespaces=False)


def upload(app, name: str, data: bytes):
    app.file_uploader(key="import_file").set_value([(name, data, "application/octet-stream")])
    app.run()
    assert not app.exception
    return app


def loaded(app) -> dict[str, str]:
    frame = app.dataframe[0].value
    return dict(zip(frame["What"], frame["Value"], strict=True))


def shown_ids(app) -> list[int]:
    """The ids under the sample's tokens (the page's last code block)."""
    return [int(i) for i in app.code[-1].value.split(", ")]


def tokens_view(app) -> str:
    return next(h.value for h in app.html if 'aria-label="Tokens of' in h.value)


def token_names(app) -> list[str]:
    """What a screen reader hears for each of the sample's tokens."""
    return re.findall(r'role="listitem" title="[^"]*" aria-label="([^"]*)"', tokens_view(app))


def download_keys(app) -> set[str]:
    return {b.key for b in app.get("download_button")}


def test_a_sentencepiece_model_loads_with_sentencepieces_ids(at, llama_model):
    upload(at, "tokenizer.model", llama_model.read_bytes())
    assert not at.error
    rows = loaded(at)
    assert rows["Family"] == SPM and rows["Format"] == "sentencepiece tokenizer.model"
    assert rows["Byte fallback"].startswith("on") and rows["Pieces"].startswith("400: ")
    sp = spm.SentencePieceProcessor(model_file=str(llama_model))
    assert shown_ids(at) == sp.encode(SAMPLE_TEXT)
    names = token_names(at)
    pieces = sp.encode(SAMPLE_TEXT, out_type=str)
    assert len(names) == len(pieces)
    emoji = [f"byte {b:02X}" for b in "🦜".encode()]  # byte fallback, said byte by byte
    assert [p for p in pieces if p.startswith("<0xF0")] == ["<0xF0>"]
    assert all(any(n.startswith(e + ",") for n in names) for e in emoji)
    assert any(n.startswith("space the,") for n in names)  # ▁ said as a space
    assert '<span class="ws">▁</span>the' in tokens_view(at)  # and drawn as the piece holds it
    assert {"export_spm_model", "export_spm_hf"} <= download_keys(at)
    # the session's tokenizer now, as a byte-level file is (tests/pages/test_imported_families.py)
    assert at.selectbox(key="family").value == "sentencepiece"
    assert at.selectbox(key="family_source").value == "Imported file"
    assert "Tokens, Step through merges, Merge forest and Compare with GPT pages now use" in (
        at.success[0].value)


def test_a_llama_shaped_tokenizer_json_loads_with_tokenizers_ids(at, llama_model, folder):
    sp = spm.SentencePieceProcessor(model_file=str(llama_model))
    vocab = {sp.id_to_piece(i): i for i in range(len(sp))}
    tok = llama_shaped_json(vocab)
    path = folder / "tokenizer.json"
    tok.save(str(path))
    upload(at, "tokenizer.json", path.read_bytes())
    assert not at.error
    rows = loaded(at)
    assert rows["Family"] == SPM and rows["Format"] == "Hugging Face tokenizer.json"
    assert rows["Merges"].startswith(f"{len(generate_merges(vocab)):,}, the file's list")
    assert shown_ids(at) == Tokenizer.from_file(str(path)).encode(
        SAMPLE_TEXT, add_special_tokens=False).ids
    # a tokenizer.json's merges go pair by pair: no .model can say them, and the page says why
    assert "export_spm_hf" in download_keys(at) and "export_spm_model" not in download_keys(at)
    assert any("cannot say that exactly" in w.value for w in at.warning)


def test_subword_nmt_codes_load_with_its_segmentation(at):
    codes = io.StringIO()
    learn_bpe.learn_bpe(io.StringIO(TEXT), codes, 300)
    upload(at, "codes.bpe", codes.getvalue().encode())
    assert not at.error
    rows = loaded(at)
    assert rows["Family"] == WORD and rows["Format"] == "subword-nmt codes (word BPE)"
    assert rows["Merges"].startswith("300 ")
    theirs = apply_bpe.BPE(io.StringIO(codes.getvalue())).process_line(SAMPLE_TEXT)
    assert at.code[-1].value == theirs
    assert "export_word_codes" in download_keys(at)


def test_clips_merges_load_with_clip_tokenizers_ids(at, folder):
    table = bytes_to_unicode()
    pieces = re.findall(r"[a-z]+|[0-9]|[^\sa-z0-9]+", TEXT.lower())
    merges = learn_merges(" ".join("".join(table[b] for b in p.encode()) for p in pieces), 300)
    body = "".join(f"{a} {b}\n" for a, b in merges)
    (folder / "merges.txt").write_text("#version: 0.2\n" + body, encoding="utf-8")
    (folder / "vocab.json").write_text(json.dumps(clip_vocab(merges)), encoding="utf-8")
    gz = gzip.compress(("\"bpe_simple_vocab_16e6.txt#version: 0.2\n" + body).encode())
    upload(at, "bpe_simple_vocab_16e6.txt.gz", gz)
    assert not at.error
    rows = loaded(at)
    assert rows["Family"] == WORD and rows["Format"] == "CLIP's merges file (word BPE over bytes)"
    theirs = transformers.CLIPTokenizer(str(folder / "vocab.json"), str(folder / "merges.txt"))
    assert shown_ids(at) == theirs(SAMPLE_TEXT)["input_ids"][1:-1]  # without start and end
    assert {"export_clip_merges", "export_clip_vocab"} <= download_keys(at)
    at.switch_page("pages/tokens.py").run()  # the session's tokenizer: CLIPTokenizer's ids
    text = at.session_state["text"]
    assert [int(i) for i in at.code[0].value.split(", ")] == theirs(text)["input_ids"][1:-1]
    assert [i for i, _ in after_reload(at, text)] == theirs(text)["input_ids"][1:-1]  # F5
    at.switch_page("pages/exchange.py").run()


def test_whispers_multilingual_shape_loads_with_tiktokens_ids(at):
    """Whisper's multilingual.tiktoken holds an empty token; tiktoken keeps it."""
    gpt2 = bpe_core.get_encoding("gpt2")  # GPT-2's ranks, shipped in bpe_core (no network)
    ranks = dict(sorted(gpt2._mergeable_ranks.items(), key=lambda item: item[1])[:3000])
    data = "".join(f"{base64.b64encode(t).decode()} {r}\n" for t, r in ranks.items()) + "= 3000\n"
    at.selectbox(key="import_pattern").set_value("GPT-2").run()
    at.text_input(key="import_specials").input("<|endoftext|>=3001").run()
    upload(at, "multilingual.tiktoken", data.encode())
    assert not at.error
    rows = loaded(at)
    assert rows["Family"] == BYTE_LEVEL and "empty token at rank 3,000 is kept" in rows["Merges"]
    theirs = tiktoken.Encoding("multilingual", pat_str=gpt2._pat_str,
                               mergeable_ranks={**ranks, b"": 3000},
                               special_tokens={"<|endoftext|>": 3001})
    assert shown_ids(at) == theirs.encode_ordinary(SAMPLE_TEXT)
    assert at.selectbox(key="kind").value == "Imported file"  # byte-level: every page's


def test_a_tekken_json_loads_with_mistral_commons_ids(at):
    tok = bpe_core.RegexTokenizer(bpe_core.GPT4O_SPLIT_PATTERN)
    tok.train(TEXT, 600)
    vocab = [{"rank": i, "token_bytes": base64.b64encode(tok.vocab[i]).decode(),
              "token_str": None} for i in range(600)]
    document = {"config": {"pattern": bpe_core.GPT4O_SPLIT_PATTERN, "default_vocab_size": 610,
                           "default_num_special_tokens": 10, "version": "v7"},
                "vocab": vocab, "special_tokens": [{"rank": i, "token_str": s, "is_control": True}
                                                   for i, s in enumerate(["<unk>", "<s>", "</s>"])]}
    upload(at, "tekken.json", json.dumps(document).encode())
    assert not at.error
    rows = loaded(at)
    assert rows["Family"] == BYTE_LEVEL and rows["Format"] == "Mistral tekken.json"
    # mistral-common's rule (its tekken.py): tiktoken over the ranks, ids after the specials
    inner = tiktoken.Encoding("tekken", pat_str=bpe_core.GPT4O_SPLIT_PATTERN,
                              mergeable_ranks={tok.vocab[i]: i for i in range(600)},
                              special_tokens={})
    assert shown_ids(at) == [i + 10 for i in inner.encode(SAMPLE_TEXT)]


def test_a_file_it_cannot_hold_is_refused_naming_what_is_missing(at, folder):
    nfkc = spm_train(folder, "nfkc", model_type="bpe", normalization_rule_name="nmt_nfkc")
    upload(at, "nfkc.model", nfkc.read_bytes())
    assert "Not imported: nfkc" in at.error[0].value and "charsmap" in at.error[0].value
