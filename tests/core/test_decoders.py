"""A tokenizer.json's decoder: ``decode`` gives Hugging Face's text (``tokenizers``'
``decode(ids, skip_special_tokens=False)``, the reference), or the decoder is listed in
``ignored`` (bpe_core/decoders.py; issue 27)."""

from __future__ import annotations

import json

import pytest
from parity_corpus import JOINED
from tokenizers import Tokenizer as HFTokenizer

from bpe_core import RegexTokenizer, read_tokenizer
from bpe_core.formats import to_hf_json

BYTE_LEVEL = {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": True,
              "use_regex": True}


def replace(pattern: dict, content: str) -> dict:
    return {"type": "Replace", "pattern": pattern, "content": content}


DECODERS = {
    "null": None,
    "ByteLevel": BYTE_LEVEL,
    "ByteFallback": {"type": "ByteFallback"},
    "Fuse": {"type": "Fuse"},
    "Strip left": {"type": "Strip", "content": "H", "start": 1, "stop": 0},
    "Strip right": {"type": "Strip", "content": "d", "start": 0, "stop": 1},
    "Replace string": replace({"String": "Ġ"}, " "),
    "Replace regex": replace({"Regex": r"\h+"}, "#"),
    "Metaspace always": {"type": "Metaspace", "replacement": "Ġ", "prepend_scheme": "always",
                         "split": True},
    "Metaspace first": {"type": "Metaspace", "replacement": "o", "prepend_scheme": "first",
                        "split": True},
    "Metaspace never": {"type": "Metaspace", "replacement": "Ġ", "prepend_scheme": "never",
                        "split": True},
    "Llama-2's sequence": {"type": "Sequence", "decoders": [
        replace({"String": "Ġ"}, " "), {"type": "ByteFallback"}, {"type": "Fuse"},
        {"type": "Strip", "content": " ", "start": 1, "stop": 0}]},
    "ByteLevel then Replace": {"type": "Sequence", "decoders": [
        BYTE_LEVEL, replace({"String": "l"}, "L")]},
    # regexes that match the empty string: none right after a match, as tokenizers does
    "Replace x*": replace({"Regex": "o*"}, "-"),
    "Replace a|": replace({"Regex": "l|"}, "_"),
}
# byte tokens (also lower-case and signed hex, as Rust reads them), table letters, and a token
# that mixes table letters (é) with others (™): ByteLevel keeps such a token's own UTF-8
ADDED = ["<0xC3>", "<0xA9>", "<0xFF>", "<0x41>", "<café>", "aĠb", "café™", "<0xc3>", "<0xa9>",
         "<0x+a>"]
TEXTS = ["Hello world", " leading and  double  spaces", "wörld café ½ 😀", "Hoolo oo",
         "<0xC3><0xA9> <0x41><0x41><0xFF>x", "a<café>b aĠb <|endoftext|>", ""]


@pytest.fixture(scope="module")
def document() -> dict:
    tok = RegexTokenizer()
    tok.train(JOINED[:20_000], 500)
    tok.register_special_tokens({"<|endoftext|>": 500})
    document = json.loads(to_hf_json(tok))
    for k, content in enumerate(ADDED):
        document["added_tokens"].append({
            "id": 501 + k, "content": content, "single_word": False, "lstrip": False,
            "rstrip": False, "normalized": False, "special": False})
    return document


def both(document: dict, decoder: dict | None):
    document = dict(document, decoder=decoder)
    text = json.dumps(document)
    return HFTokenizer.from_str(text), read_tokenizer(text.encode(), "tokenizer.json")


@pytest.mark.parametrize("name", DECODERS)
def test_decode_gives_hugging_faces_text(document, name):
    hf, ours = both(document, DECODERS[name])
    id_lists = [hf.encode(t, add_special_tokens=False).ids for t in TEXTS]
    id_lists += [[195, 169], [195], [240, 159, 152], [501, 502], [501, 72, 502], [503, 504],
                 [72, 506], [505, 72], [111, 72, 111],  # cut characters, byte tokens, letters
                 [507], [72, 507, 72], [508, 509], [510, 72], [508, 502], [111, 111, 108]]
    for ids in id_lists:
        assert ours.decode(ids) == hf.decode(ids, skip_special_tokens=False), (name, ids)
    assert ours.ignored == []


def test_a_decoder_that_spells_text_otherwise_is_said_and_kept(document, tmp_path):
    hf, ours = both(document, None)
    ids = [97, 98, 32, 99]  # the single bytes of "ab c"
    assert ours.decode(ids) == "a b Ġ c"  # Hugging Face's text, worked out by hand
    assert hf.decode(ids, skip_special_tokens=False) == "a b Ġ c"
    assert ours.decode_bytes(ids) == b"ab c"  # the bytes stay the bytes
    assert any("decoder: none" in line for line in ours.pipeline.described)
    path = tmp_path / "tokenizer.json"
    ours.save_hf(str(path))  # and it goes back out as it came
    assert json.loads(path.read_text(encoding="utf-8"))["decoder"] is None


def test_a_plain_byte_level_file_needs_no_decoder_of_its_own(document):
    plain = dict(document, added_tokens=[t for t in document["added_tokens"]
                                         if t["content"].isascii()])
    _, ours = both(plain, BYTE_LEVEL)
    assert ours.pipeline is None or ours.pipeline.decoder is None


@pytest.mark.parametrize("decoder", [{"type": "WordPiece", "prefix": "##", "cleanup": True},
                                     {"type": "BPEDecoder", "suffix": "</w>"}])
def test_a_decoder_not_followed_is_listed_in_ignored(document, decoder):
    _, ours = both(document, decoder)
    assert any(decoder["type"] in note and "decode()" in note for note in ours.ignored)
