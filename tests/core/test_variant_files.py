"""Research variants saved in every format and loaded back as themselves (variant_files.py): the
reloaded tokenizer is a SuperBPE, BoundlessBPE or parity-aware tokenizer again, answers the
variant's own questions as the trained one does, and encodes with the same ids."""

from __future__ import annotations

import json

import pytest

import bpe_core
from bpe_core.boundless import BoundlessTokenizer, train_boundless
from bpe_core.parity import ParityTokenizer, train_parity
from bpe_core.sidecar import content_checksum, sidecar_path
from bpe_core.superbpe import SuperBPETokenizer, train_superbpe

TEXT = ("By the way, the cat sat on the mat.\nBy the way: the dog sat on the log!\n"
        "In 2024 the cat sat on the mat again... it was a good mat.\n") * 4
EL = "Η γάτα κάθισε στο χαλί. Ο σκύλος κάθισε στο κούτσουρο.\n" * 6


def trained(kind: str):
    if kind == "superbpe":  # 60 asked of stage one: it runs out first, and says so
        return train_superbpe(TEXT, 256 + 150, 60, special_tokens=["<|endoftext|>"])
    if kind == "boundless":
        return train_boundless(TEXT, 256 + 120, stopping="fill")
    return train_parity({"en": TEXT, "el": EL}, 256 + 100, global_merges=10, window=20)


def saved(tok, folder, fmt: str) -> str:
    if fmt == "minbpe":
        tok.save(str(folder / "t"))
        return str(folder / "t.model")
    if fmt == "hf":
        tok.save_hf(str(folder / "t.json"))
        return str(folder / "t.json")
    if fmt == "tiktoken":
        tok.save_tiktoken(str(folder / "t.tiktoken"))
        return str(folder / "t.tiktoken")
    tok.save_gpt2(str(folder / "vocab.json"), str(folder / "merges.txt"))
    return str(folder / "vocab.json")


OWN = {"superbpe": ("stage_one_pattern", "transition", "asked_transition", "stage_two",
                    "ran_out_early"),
       "boundless": ("stage_one_pattern", "transition", "phase_one_merges", "asked_merges",
                     "stopping", "ran_out_early"),
       "parity": ("languages", "served")}
CLASSES = {"superbpe": SuperBPETokenizer, "boundless": BoundlessTokenizer,
           "parity": ParityTokenizer}


@pytest.mark.parametrize("fmt", ["minbpe", "hf", "tiktoken", "gpt2"])
@pytest.mark.parametrize("kind", ["superbpe", "boundless", "parity"])
def test_a_variant_saved_in_each_format_loads_as_itself(tmp_path, kind, fmt):
    tok = trained(kind)
    tok.history = []  # as the command saves them: no history, the variant's facts all the same
    loaded = bpe_core.load(saved(tok, tmp_path, fmt))
    assert type(loaded) is CLASSES[kind]
    for attribute in OWN[kind]:
        assert getattr(loaded, attribute) == getattr(tok, attribute), attribute
    if kind != "parity":
        assert loaded.superword_ids() == tok.superword_ids() and tok.superword_ids()
        assert [loaded.is_stage_two(i) for i in tok.merges.values()] == [
            tok.is_stage_two(i) for i in tok.merges.values()]
    sample = TEXT + EL + "<|endoftext|> by the way"
    assert loaded.encode(sample, allowed_special="all") == tok.encode(sample,
                                                                      allowed_special="all")
    if kind == "parity":
        assert loaded.copy().served == tok.served


def test_superbpe_that_ran_out_says_so_after_reloading(tmp_path):
    tok = trained("superbpe")
    assert tok.ran_out_early and tok.transition < tok.asked_transition == 60
    loaded = bpe_core.load(saved(tok, tmp_path, "minbpe"))
    assert loaded.ran_out_early and loaded.asked_transition == 60


def test_a_sidecar_whose_variant_does_not_fit_the_file_is_refused_by_name(tmp_path):
    # a sidecar written by hand with a fresh checksum: the served list is one merge short
    tok = trained("parity")
    path = saved(tok, tmp_path, "tiktoken")
    side_file = tmp_path / (sidecar_path("t.tiktoken"))
    side = json.loads(side_file.read_text(encoding="utf-8"))
    side["variant"]["served"] = side["variant"]["served"][:-1]
    side["checksum"] = content_checksum(side)
    side_file.write_text(json.dumps(side), encoding="utf-8")
    with pytest.raises(ValueError, match=r"key 'variant'.served should list, for each of the"
                                         r" file's 88 merges"):
        bpe_core.load(path)
