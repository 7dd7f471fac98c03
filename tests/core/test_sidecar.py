"""Everything bpe_core saves loads back with the same ids, or ``load`` refuses and names the
keyword that fixes it (issue 27): the bpe-lab sidecar (bpe_core/sidecar.py) carries what a
format cannot hold (split pattern, special tokens, kind, training history).

Three tokenizers go through every format: a BasicTokenizer (the issue's example), a
RegexTokenizer with special tokens and a "why this merge" history, and a tokenizer imported from
a tokenizer.json made by Hugging Face ``tokenizers`` that lowercases before it splits.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from tokenizers import Regex, normalizers, pre_tokenizers
from tokenizers import Tokenizer as HFTokenizer

from bpe_core import (
    GPT2_SPLIT_PATTERN,
    GPT4_SPLIT_PATTERN,
    BasicTokenizer,
    RegexTokenizer,
    Tokenizer,
    load,
    read_tokenizer,
)
from bpe_core.formats import to_hf_json
from bpe_core.sidecar import SIDECAR_SUFFIX, content_checksum

TEXT = "Hello hello HELLO world, the world <|endoftext|> of 2024 hellos!\n"
FORMATS = ("minbpe", "hf", "tiktoken", "gpt2")


def save(tok: Tokenizer, fmt: str, folder) -> tuple[str, str]:
    """Save ``tok`` as ``fmt`` in ``folder``: (the path to load, the sidecar's path)."""
    folder = str(folder)
    if fmt == "minbpe":
        tok.save(os.path.join(folder, "tok"))
        path = os.path.join(folder, "tok.model")
    elif fmt == "hf":
        path = os.path.join(folder, "tokenizer.json")
        tok.save_hf(path)
    elif fmt == "tiktoken":
        path = os.path.join(folder, "tok.tiktoken")
        tok.save_tiktoken(path)
    else:
        path = os.path.join(folder, "vocab.json")
        tok.save_gpt2(path, os.path.join(folder, "merges.txt"))
    return path, path + SIDECAR_SUFFIX


def encodings(tok: Tokenizer) -> list[list[int]]:
    return [tok.encode(t, allowed_special="all") for t in (TEXT, "b a", "", " \n ")]


@pytest.fixture(scope="module")
def basic() -> BasicTokenizer:
    tok = BasicTokenizer()
    tok.train("b a b a b a", 257)
    return tok


@pytest.fixture(scope="module")
def regex_with_specials() -> RegexTokenizer:
    tok = RegexTokenizer(GPT4_SPLIT_PATTERN)
    tok.train(TEXT * 3 + "the quick brown fox jumps over the lazy dog " * 5, 300, candidates=3,
              special_tokens=["<|endoftext|>", "<|pad|>"])
    return tok


@pytest.fixture(scope="module")
def imported(regex_with_specials) -> Tokenizer:
    """A tokenizer.json as Hugging Face writes it, with a Lowercase normalizer (a pipeline)."""
    hf = HFTokenizer.from_str(to_hf_json(regex_with_specials))
    hf.normalizer = normalizers.Lowercase()
    hf.pre_tokenizer = pre_tokenizers.Sequence([
        pre_tokenizers.Split(Regex(r"\p{N}{1,3}| ?\p{L}+|\s+|[^\s\p{L}\p{N}]+"), "isolated"),
        pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False),
    ])
    tok = read_tokenizer(hf.to_str().encode(), "tokenizer.json")
    assert tok.pipeline is not None
    assert tok.encode("HELLO") == hf.encode("HELLO", add_special_tokens=False).ids
    return tok


def test_the_issues_example_keeps_its_ids_through_every_format(basic, tmp_path):
    assert basic.encode("b a") == [256, 97]  # "b " is the first pair seen of the two with 3
    for fmt in FORMATS:
        (tmp_path / fmt).mkdir()
        path, _ = save(basic, fmt, tmp_path / fmt)
        loaded = load(path)
        assert type(loaded) is BasicTokenizer and loaded.pattern == "", fmt
        assert loaded.encode("b a") == [256, 97], fmt
        assert encodings(loaded) == encodings(basic) and loaded.history == basic.history, fmt


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_regex_tokenizer_keeps_pattern_specials_and_history(regex_with_specials, fmt, tmp_path):
    tok = regex_with_specials
    path, sidecar = save(tok, fmt, tmp_path)
    loaded = load(path)
    assert type(loaded) is RegexTokenizer
    assert loaded.pattern == GPT4_SPLIT_PATTERN
    assert loaded.special_tokens == {"<|endoftext|>": 298, "<|pad|>": 299}
    assert encodings(loaded) == encodings(tok)
    assert loaded.history == tok.history  # pair, id, bytes, count and the 3 candidates
    assert len(loaded.history) == 42 and all(len(r.candidates) == 3 for r in loaded.history)
    assert os.path.exists(sidecar)


@pytest.mark.parametrize("fmt", ["minbpe", "hf"])
def test_formats_that_hold_everything_get_a_sidecar_only_for_a_history(basic, fmt, tmp_path):
    tok = RegexTokenizer()
    tok.train("hello world " * 4, 260)  # a history...
    _, sidecar = save(tok, fmt, tmp_path)
    assert os.path.exists(sidecar)
    path, sidecar = save(load_without_history(tok), fmt, tmp_path)  # ...then none, same name
    assert not os.path.exists(sidecar)  # the stale sidecar is gone
    assert load(path).history == []


def load_without_history(tok: Tokenizer) -> Tokenizer:
    return RegexTokenizer(tok.pattern, merges=tok.merges)


def test_minbpes_own_load_method_gets_the_history_back(regex_with_specials, tmp_path):
    path, _ = save(regex_with_specials, "minbpe", tmp_path)
    tok = RegexTokenizer()
    tok.load(path)
    assert tok.history == regex_with_specials.history


@pytest.mark.parametrize("fmt", FORMATS)
def test_an_imported_pipeline_goes_to_tokenizer_json_or_is_refused(imported, fmt, tmp_path):
    texts = ["HELLO World 12345", "the Quick brown FOX<|endoftext|>"]
    if fmt == "hf":
        path, sidecar = save(imported, fmt, tmp_path)
        loaded = load(path)
        assert not os.path.exists(sidecar)  # the tokenizer.json holds it all
        assert [loaded.encode(t, allowed_special="all") for t in texts] == [
            imported.encode(t, allowed_special="all") for t in texts]
        hf = HFTokenizer.from_file(path)
        assert loaded.encode(texts[0]) == hf.encode(texts[0], add_special_tokens=False).ids
        return
    with pytest.raises(ValueError, match=r"does more than split before BPE \(lowercase.*"
                                         r"Save it as tokenizer.json"):
        save(imported, fmt, tmp_path)
    assert os.listdir(tmp_path) == []  # nothing half-written


@pytest.mark.parametrize("fmt", ["tiktoken", "gpt2"])
def test_without_the_sidecar_load_refuses_and_names_the_keywords(regex_with_specials, fmt,
                                                                  tmp_path):
    tok = regex_with_specials
    path, sidecar = save(tok, fmt, tmp_path)
    os.remove(sidecar)
    with pytest.raises(ValueError) as info:
        load(path)
    message = str(info.value)
    assert "pass pattern=" in message and SIDECAR_SUFFIX in message
    if fmt == "tiktoken":
        assert "special_tokens=" in message and "GPT4_SPLIT_PATTERN" in message
        loaded = load(path, pattern=tok.pattern, special_tokens=tok.special_tokens)
    else:
        assert "GPT2_SPLIT_PATTERN" in message  # OpenAI's GPT-2 files go with it
        loaded = load(path, pattern=tok.pattern)  # vocab.json holds the special tokens
    assert encodings(loaded) == encodings(tok)
    assert loaded.history == []  # only the sidecar keeps it


def test_a_tiktoken_file_needs_both_keywords_without_its_sidecar(basic, tmp_path):
    path, sidecar = save(basic, "tiktoken", tmp_path)
    os.remove(sidecar)
    with pytest.raises(ValueError, match=r"pass special_tokens=") as info:
        load(path, pattern="")
    assert "pattern=" not in str(info.value).split("pass")[-1]
    assert load(path, pattern="", special_tokens={}).encode("b a") == [256, 97]


@pytest.mark.parametrize("fmt", ["tiktoken", "gpt2", "minbpe"])
def test_a_sidecar_of_another_file_is_refused_naming_the_mismatch(regex_with_specials, basic, fmt,
                                                                  tmp_path):
    path, sidecar = save(regex_with_specials, fmt, tmp_path)
    kept = Path(sidecar).read_bytes()
    save(basic, fmt, tmp_path)  # the file (and its sidecar) replaced
    Path(sidecar).write_bytes(kept)  # then the old sidecar put back beside the new file
    with pytest.raises(ValueError, match="was written for another file") as info:
        load(path)
    assert sidecar in str(info.value)


def test_a_keyword_that_contradicts_the_sidecar_is_refused(regex_with_specials, tmp_path):
    path, _ = save(regex_with_specials, "tiktoken", tmp_path)
    with pytest.raises(ValueError, match=r"pattern=.*differs.*leave pattern= out"):
        load(path, pattern=GPT2_SPLIT_PATTERN)
    assert load(path, pattern=GPT4_SPLIT_PATTERN).pattern == GPT4_SPLIT_PATTERN  # agreeing: fine


def edit(sidecar: str, change, *, reseal: bool) -> None:
    """Change a sidecar's JSON; ``reseal``: compute its checksum again, as a forger would (then
    only what the files themselves state can tell)."""
    document = json.loads(Path(sidecar).read_text(encoding="utf-8"))
    change(document)
    if reseal:
        document["checksum"] = content_checksum(document)
    with open(sidecar, "w", encoding="utf-8") as f:
        json.dump(document, f)


def test_a_sidecar_whose_facts_differ_from_the_file_is_refused(regex_with_specials, tmp_path):
    path, sidecar = save(regex_with_specials, "minbpe", tmp_path)
    edit(sidecar, lambda d: d.update(pattern=GPT2_SPLIT_PATTERN), reseal=True)
    with pytest.raises(ValueError, match="says the split pattern is"):
        load(path)


def test_a_history_entry_that_is_not_a_merge_is_refused(regex_with_specials, tmp_path):
    path, sidecar = save(regex_with_specials, "tiktoken", tmp_path)
    edit(sidecar, lambda d: d["history"][3].update(pair=[1, 2]), reseal=True)
    with pytest.raises(ValueError, match=r"history\[3\].*not one of the file's merges"):
        load(path)


def test_loading_the_sidecar_itself_says_which_file_to_load(basic, tmp_path):
    _, sidecar = save(basic, "tiktoken", tmp_path)
    with pytest.raises(ValueError, match="is a bpe-lab sidecar.*load that file"):
        load(sidecar)


def test_an_upload_reads_the_sidecar_from_bytes(regex_with_specials, tmp_path):
    path, sidecar = save(regex_with_specials, "gpt2", tmp_path)
    data = {name: (tmp_path / name).read_bytes()
            for name in ("vocab.json", "merges.txt", "vocab.json" + SIDECAR_SUFFIX)}
    tok = read_tokenizer(data["merges.txt"], "merges.txt", vocab=data["vocab.json"],
                         partner_name="vocab.json", sidecar=data["vocab.json" + SIDECAR_SUFFIX])
    assert tok.pattern == GPT4_SPLIT_PATTERN and tok.history == regex_with_specials.history
    with pytest.raises(ValueError, match="describes a gpt2 file"):
        read_tokenizer(to_hf_json(regex_with_specials).encode(), "tokenizer.json",
                       sidecar=data["vocab.json" + SIDECAR_SUFFIX])


def test_a_gpt2_vocabulary_not_named_vocab_json_names_merges_path(basic, tmp_path):
    path, _ = save(basic, "gpt2", tmp_path)
    os.rename(path, tmp_path / "my-vocab.json")
    os.rename(tmp_path / "merges.txt", tmp_path / "my-merges.txt")
    with pytest.raises(ValueError, match="merges_path="):
        load(tmp_path / "my-vocab.json")
    with pytest.raises(ValueError, match="merges="):
        read_tokenizer((tmp_path / "my-vocab.json").read_bytes(), "my-vocab.json")
    loaded = load(tmp_path / "my-vocab.json", merges_path=tmp_path / "my-merges.txt", pattern="")
    assert loaded.encode("b a") == [256, 97]


def test_a_tokenizer_json_with_history_keeps_the_patterns_own_spelling(tmp_path):
    tok = RegexTokenizer(r"\w+|\s+")  # spelled out for Oniguruma in the file
    tok.train("hello world " * 10, 262)
    path, _ = save(tok, "hf", tmp_path)
    assert r"\w" not in json.loads(Path(path).read_text(encoding="utf-8"))[
        "pre_tokenizer"]["pretokenizers"][0]["pattern"]["Regex"]
    loaded = load(path)
    assert loaded.pattern == r"\w+|\s+" and loaded.history == tok.history


def test_a_save_cut_short_leaves_files_that_load_refuses(regex_with_specials, basic, tmp_path,
                                                         monkeypatch):
    import bpe_core.sidecar as sidecar_module

    path, _ = save(basic, "tiktoken", tmp_path)  # an earlier save
    real = sidecar_module.write_atomic

    def disk_full_after_the_sidecar(target, data):
        if not str(target).endswith(SIDECAR_SUFFIX):
            raise OSError("No space left on device")
        real(target, data)

    monkeypatch.setattr(sidecar_module, "write_atomic", disk_full_after_the_sidecar)
    with pytest.raises(OSError):
        save(regex_with_specials, "tiktoken", tmp_path)
    monkeypatch.undo()
    with pytest.raises(ValueError, match="was written for another file"):
        load(path)  # the old ranks with the new sidecar: refused, not read as the new tokenizer


@pytest.mark.parametrize("kind", ["basic", "regex"])
def test_a_tiktoken_sidecar_can_be_handed_to_tiktoken(kind, tmp_path):
    """The sidecar's pattern is tiktoken's spelling (a BasicTokenizer's was "", on which tiktoken
    panics): tiktoken built from the file and the sidecar gives the same ids, and bpe_core reads
    its own spelling back."""
    import tiktoken
    import tiktoken.load

    tok = BasicTokenizer() if kind == "basic" else RegexTokenizer(r"\s+$|\w+| ?[^\s\w]+|\s+")
    tok.train("hello world!! foo bar\n  end " * 10, 270, special_tokens=["<|endoftext|>"])
    path = str(tmp_path / "toy.tiktoken")
    tok.save_tiktoken(path)
    side = json.loads((tmp_path / "toy.tiktoken.bpe-lab.json").read_text(encoding="utf-8"))
    assert side["pattern"] == (r"[\s\S]+" if kind == "basic" else
                               r"\s+(?=\n?\z)|\w+| ?[^\s\w]+|\s+")
    enc = tiktoken.Encoding("toy", pat_str=side["pattern"],
                            mergeable_ranks=tiktoken.load.load_tiktoken_bpe(path),
                            special_tokens=side["special_tokens"])
    back = load(path)
    assert type(back) is type(tok) and back.pattern == tok.pattern
    for text in ["hello world!! x\n  end <|endoftext|>", "end\n", "  trailing  \n"]:
        assert enc.encode(text, allowed_special="all") == tok.encode(text, allowed_special="all")
        assert back.encode(text, allowed_special="all") == tok.encode(text, allowed_special="all")


# -- a sidecar covers itself, and what both files state must agree (issue 32) -------------------


def test_an_edited_tiktoken_pattern_is_refused(regex_with_specials, tmp_path):
    """Before, an edited pattern loaded as it was: the tiktoken ranks cannot say otherwise."""
    path, sidecar = save(regex_with_specials, "tiktoken", tmp_path)
    edit(sidecar, lambda d: d.update(pattern=GPT2_SPLIT_PATTERN), reseal=False)
    with pytest.raises(ValueError, match=r"was changed after bpe-lab wrote it.*'checksum'") as info:
        load(path)
    assert sidecar in str(info.value) and "Save the tokenizer again" in str(info.value)


def test_swapped_special_ids_in_a_gpt2_sidecar_are_refused_naming_both_files(regex_with_specials,
                                                                             tmp_path):
    """Before, the sidecar won over vocab.json: bpe_core said 299 where transformers (reading
    vocab.json) says 298."""
    path, sidecar = save(regex_with_specials, "gpt2", tmp_path)
    in_vocab = json.loads(Path(path).read_text(encoding="utf-8"))
    assert (in_vocab["<|endoftext|>"], in_vocab["<|pad|>"]) == (298, 299)

    def swap(document):
        document["special_tokens"] = {"<|endoftext|>": 299, "<|pad|>": 298}

    edit(sidecar, swap, reseal=False)
    with pytest.raises(ValueError, match="was changed after bpe-lab wrote it"):
        load(path)
    edit(sidecar, swap, reseal=True)  # a sealed forgery: vocab.json still says otherwise
    with pytest.raises(ValueError) as info:
        load(path)
    message = str(info.value)
    assert sidecar in message and f"but {path} gives it id 298" in message and "contradict" in message
    assert "'<|endoftext|>' has id 299" in message and "gives it id 298" in message


def test_a_sidecar_without_its_own_checksum_is_refused_naming_the_fix(regex_with_specials,
                                                                     tmp_path):
    path, sidecar = save(regex_with_specials, "tiktoken", tmp_path)

    def as_written_before(document):
        document["bpe_lab"] = "sidecar v1"
        del document["checksum"]

    edit(sidecar, as_written_before, reseal=False)
    with pytest.raises(ValueError, match=r"sidecar v1.*save the tokenizer again") as info:
        load(path)
    assert sidecar in str(info.value)
    regex_with_specials.save_tiktoken(path)  # saving again writes a checked sidecar
    assert load(path).special_tokens == regex_with_specials.special_tokens


def test_reformatting_a_sidecar_is_not_an_edit(regex_with_specials, tmp_path):
    path, sidecar = save(regex_with_specials, "gpt2", tmp_path)
    document = json.loads(Path(sidecar).read_text(encoding="utf-8"))
    Path(sidecar).write_text(json.dumps(document, indent=4, sort_keys=True), encoding="utf-8")
    loaded = load(path)
    assert loaded.special_tokens == regex_with_specials.special_tokens
    assert loaded.history == regex_with_specials.history
