"""The split pattern beside GPT-2's and tiktoken's files in each engine's own spelling (issue 47):
Hugging Face tokenizers, given vocab.json + merges.txt and the sidecar's ``patterns.oniguruma``,
gives bpe_core's ids; the ``regex`` spelling as it stands would not (possessive intervals mean
other things in Oniguruma). tiktoken, given its file and ``patterns.tiktoken``, does too."""

from __future__ import annotations

import json

import tiktoken
import tiktoken.load
from tokenizers import Regex, Tokenizer, models, pre_tokenizers

from bpe_core import RegexTokenizer

# possessive quantifiers and intervals, \p{...} classes, a case-insensitive group, \z
PATTERN = (r"(?i:'s|'t|'re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+"
           r"| ?[^\s\p{L}\p{N}]++[\r\n]*|\s+\z|\s*[\r\n]|\s+(?!\S)|\s+")
TRAIN = ("Hello world, it's THE 1234567 dogs' café ÄÖ naïve 2024 and 99999 more\n\n  end  "
         " They'RE 12 345 6789 ΣΑΣ's 007 ") * 20
TEXTS = ["Hello WORLD IT'S", "dogs' 1234567 x", "end  ", "ſ'S ǅx", "a\n\n  ", "x  \n",
         "ΣΑΣ'ς", "K'T 1234", "12\u0558 3", "99999999", "2024-12-06", "café 123456 naïve",
         "They'RE 12345678 THE", "  1234567  ", "'s'S'T", "0070070", "x\ny\n", "ÄÖ 345 6789",
         "tab\t1234567\tend", "many   spaces  9999999", "end 1234"]


def hugging_face(folder, pattern: str) -> Tokenizer:
    hf = Tokenizer(models.BPE.from_file(str(folder / "vocab.json"), str(folder / "merges.txt")))
    hf.pre_tokenizer = pre_tokenizers.Sequence([
        pre_tokenizers.Split(Regex(pattern), "isolated"),
        pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)])
    return hf


def test_gpt2_files_with_the_sidecars_oniguruma_pattern_give_the_same_ids_in_tokenizers(tmp_path):
    tok = RegexTokenizer(PATTERN)
    tok.train(TRAIN, 420)
    tok.save_gpt2(tmp_path / "vocab.json", tmp_path / "merges.txt")
    side = json.loads((tmp_path / "vocab.json.bpe-lab.json").read_text())
    assert side["patterns"]["regex"] == side["pattern"] == PATTERN
    hf = hugging_face(tmp_path, side["patterns"]["oniguruma"])
    for text in TEXTS:
        assert hf.encode(text, add_special_tokens=False).ids == tok.encode(text), text
    as_written = hugging_face(tmp_path, side["pattern"])  # the regex spelling, read by Oniguruma
    assert sum(as_written.encode(t, add_special_tokens=False).ids != tok.encode(t)
               for t in TEXTS) >= 2
    tok.save_hf(tmp_path / "tokenizer.json")  # a tokenizer.json spells it for Oniguruma itself
    again = Tokenizer.from_file(str(tmp_path / "tokenizer.json"))
    for text in TEXTS:
        assert again.encode(text, add_special_tokens=False).ids == tok.encode(text), text


def test_a_tiktoken_file_with_the_sidecars_tiktoken_pattern_gives_the_same_ids(tmp_path):
    tok = RegexTokenizer(PATTERN)
    tok.train(TRAIN, 420)
    tok.save_tiktoken(tmp_path / "t.tiktoken")
    side = json.loads((tmp_path / "t.tiktoken.bpe-lab.json").read_text())
    enc = tiktoken.Encoding("t", pat_str=side["patterns"]["tiktoken"], special_tokens={},
                            mergeable_ranks=tiktoken.load.load_tiktoken_bpe(str(tmp_path / "t.tiktoken")))
    for text in TEXTS:
        assert enc.encode(text) == tok.encode(text), text
