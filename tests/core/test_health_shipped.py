"""The presets' vocabulary defects ship precomputed (bpe_core/data/health.json.gz): they equal a
full check, serve only unchanged presets, and bound the work of a first check."""

from __future__ import annotations

import pytest
from parity_corpus import pretrained

import bpe_lab.who_pays.health as health
from bpe_core import load_pretrained
from bpe_core.pretrained import PRESETS, unchanged_preset
from bpe_lab.who_pays.health import SHIPPED_PATTERNS, shipped_defect_ids, vocabulary_defects


@pytest.mark.parametrize("key", list(SHIPPED_PATTERNS))
def test_shipped_defects_equal_a_full_check_on_gpt2(key):
    tok = pretrained("gpt2")
    pattern = SHIPPED_PATTERNS[key]
    assert shipped_defect_ids(tok, pattern) is not None  # served from the file
    assert vocabulary_defects(tok, pattern) == vocabulary_defects(tok, pattern, precomputed=False)


def test_shipped_defects_equal_a_full_check_on_gpt4():
    tok = pretrained("cl100k_base")
    assert vocabulary_defects(tok) == vocabulary_defects(tok, precomputed=False)


def test_a_first_check_of_gpt4o_looks_only_at_the_shipped_tokens(monkeypatch):
    tok = pretrained("o200k_base")
    shipped = shipped_defect_ids(tok, None)
    assert shipped is not None and len(shipped) < len(tok.vocab) // 50
    merged = []
    real = health.apply_merges
    monkeypatch.setattr(health, "apply_merges", lambda ids, m: merged.append(1) or real(ids, m))
    defects = vocabulary_defects(tok)
    assert len(merged) <= len(shipped)  # not one BPE run per token of the 200,000
    assert sorted(defects) == shipped  # every shipped token still has its defect, with a reason
    assert all(d.reason for d in defects.values())


def test_a_changed_preset_is_checked_in_full():
    tok = load_pretrained("gpt2")
    assert unchanged_preset(tok) == "gpt2"
    tok.register_special_tokens({"<|mine|>": 60000})  # special tokens are not checked
    assert unchanged_preset(tok) == "gpt2"
    tok.merges.pop(next(iter(tok.merges)))  # one merge less: another vocabulary
    assert unchanged_preset(tok) is None and shipped_defect_ids(tok, None) is None
    trained = load_pretrained("gpt2")
    trained.train("aaab aaab", 258)  # keeps its name, not its vocabulary
    assert shipped_defect_ids(trained, None) is None


def test_a_file_built_from_other_published_files_is_not_used(monkeypatch):
    tok = pretrained("gpt2")
    data = health._shipped()
    stale = {**data, "presets": {**data["presets"], "gpt2": {
        **data["presets"]["gpt2"], "files": {"encoder.json": "0" * 64}}}}
    monkeypatch.setattr(health, "_shipped", lambda: stale)
    assert shipped_defect_ids(tok, None) is None
    assert PRESETS["gpt2"]["files"]["encoder.json"] != "0" * 64


def test_other_patterns_are_not_served():
    assert shipped_defect_ids(pretrained("gpt2"), r"\w+|\s+") is None
