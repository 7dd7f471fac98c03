"""``bpe-lab train`` end to end: every format loads back with ``bpe_core.load`` and encodes as
the tokenizer ``train`` makes on the joined text; exactly the files named are written; history
is kept with ``--history``; ``info`` describes what was written."""

from __future__ import annotations

import os

import pytest
from cli_support import EOT, run_cli

import bpe_core
from bpe_core import GPT2_SPLIT_PATTERN, RegexTokenizer
from bpe_core.formats import bytes_to_unicode
from bpe_core.oniguruma import unguarded

VOCAB = 300  # 43 merges + <|endoftext|>

# --out for each format, and the files it leaves (besides the corpus) in the folder
CASES = {
    "minbpe": ("tok.model", {"tok.model", "tok.vocab"}),
    "hf": ("tok.json", {"tok.json"}),
    "tiktoken": ("tok.tiktoken", {"tok.tiktoken", "tok.tiktoken.bpe-lab.json"}),
    "gpt2": ("tok", {"tok/vocab.json", "tok/merges.txt", "tok/vocab.json.bpe-lab.json"}),
    "cs336": ("tok", {"tok/vocab.json", "tok/merges.txt", "tok/vocab.json.bpe-lab.json"}),
}


def reference(text: str, tie_rule: str = "seen", candidates: int = 0) -> RegexTokenizer:
    tok = RegexTokenizer(GPT2_SPLIT_PATTERN)
    tok.train(text, VOCAB, special_tokens=[EOT], tie_rule=tie_rule, candidates=candidates)
    return tok


def listing(folder) -> set[str]:
    out = set()
    for base, _, files in os.walk(folder):
        for name in files:
            out.add(os.path.relpath(os.path.join(base, name), folder))
    return out


def loaded(path):
    return bpe_core.load(path / "vocab.json" if path.is_dir() else path)


@pytest.mark.parametrize("fmt", list(CASES))
def test_train_load_encode_round_trip_for_each_format(tmp_path, corpus, fmt):
    paths, text = corpus
    out, files = CASES[fmt]
    tie_rule = "bytes" if fmt == "cs336" else "seen"
    workers = "2" if fmt in ("hf", "gpt2") else "1"
    before = listing(tmp_path)
    done = run_cli("train", *paths, "--vocab-size", VOCAB, "--pattern", "gpt2",
                   "--special-token", EOT, "--tie-rule", tie_rule, "--workers", workers,
                   "--block-bytes", 1_000, "--format", fmt, "--out", out, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""  # piped: no bars, no chatter
    (line,) = done.stdout.splitlines()  # the one summary line
    assert f"wrote {out}" in line
    assert "peak memory" in line and " s, " in line
    assert listing(tmp_path) - before == files  # exactly these, and no temporary leftovers

    ref = reference(text, tie_rule)
    tok = loaded(tmp_path / out)
    assert tok.merges == ref.merges
    assert tok.special_tokens == ref.special_tokens == {EOT: VOCAB - 1}
    # a tokenizer.json's pattern reads characters newer than Oniguruma's Unicode as HF does
    assert unguarded(tok.pattern) == GPT2_SPLIT_PATTERN
    sample = text[:2_000] + EOT + "Tokenizers? Ünïcödé, 12345 — fine."
    assert tok.encode(sample, allowed_special="all") == ref.encode(sample, allowed_special="all")


def test_cs336_merges_read_as_cs336s_own_tests_read_them(tmp_path, corpus):
    """CS336's tests read merges.txt line by line, every line with two fields a merge, and map
    GPT-2's characters back to bytes: the first line must be a merge, not "#version"."""
    paths, text = corpus
    done = run_cli("train", *paths, "--vocab-size", VOCAB, "--pattern", "gpt2",
                   "--special-token", EOT, "--tie-rule", "bytes", "--workers", "1",
                   "--format", "cs336", "--out", "cs336", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    decoder = {c: b for b, c in bytes_to_unicode().items()}
    lines = (tmp_path / "cs336" / "merges.txt").read_text(encoding="utf-8").splitlines()
    merges = [tuple(bytes(decoder[c] for c in token) for token in line.split(" "))
              for line in lines if line.strip() and len(line.split(" ")) == 2]
    ref = reference(text, "bytes")
    assert merges == [(ref.vocab[a], ref.vocab[b]) for (a, b), _ in ref.merges.items()]


def test_history_keeps_each_merges_corpus_count_and_runners_up(tmp_path, corpus):
    paths, text = corpus
    done = run_cli("train", *paths, "--vocab-size", VOCAB, "--pattern", "gpt2",
                   "--special-token", EOT, "--workers", "1", "--history", "--out", "tok.model",
                   cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    tok = bpe_core.load(tmp_path / "tok.model")
    ref = reference(text, candidates=5)
    assert [(r.pair, r.id, r.count) for r in tok.history] == [
        (r.pair, r.id, r.count) for r in ref.history]
    assert [r.candidates for r in tok.history] == [r.candidates for r in ref.history]
    assert all(len(r.candidates) == 5 for r in tok.history[:10])  # the chosen pair + 4 more
    described = run_cli("info", "tok.model", cwd=tmp_path).stdout
    assert f"history         {len(ref.history)} merges with their corpus counts" in described


def test_info_says_what_the_file_holds(tmp_path, corpus):
    paths, _ = corpus
    assert run_cli("train", *paths, "--vocab-size", VOCAB, "--pattern", "gpt2",
                   "--special-token", EOT, "--workers", "1", "--format", "hf", "--out",
                   "tok.json", cwd=tmp_path).returncode == 0
    done = run_cli("info", "tok.json", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    rows = dict(line.split("  ", 1) for line in done.stdout.splitlines())
    rows = {k.strip(): v.strip() for k, v in rows.items()}
    assert rows["format"] == "Hugging Face tokenizer.json"
    assert rows["kind"] == "RegexTokenizer"
    assert rows["pattern"] == "GPT-2 (read with Hugging Face's Unicode tables)"
    assert rows["vocab size"] == f"{VOCAB} tokens (largest id {VOCAB - 1})"
    assert rows["merges"] == str(VOCAB - 256 - 1)
    assert rows["special tokens"] == f"{EOT} = {VOCAB - 1}"
    assert rows["history"].startswith("none")


def test_no_split_and_a_custom_pattern_train_as_train_does(tmp_path, corpus):
    paths, text = corpus
    for pattern, tok in [("none", bpe_core.BasicTokenizer()),
                         (r"\w+|\s+|[^\w\s]+", RegexTokenizer(r"\w+|\s+|[^\w\s]+"))]:
        done = run_cli("train", *paths, "--vocab-size", 280, "--pattern", pattern,
                       "--workers", "1", "--min-frequency", "3", "--max-token-bytes", "6",
                       "--out", "t.model", cwd=tmp_path)
        assert done.returncode == 0, done.stderr
        tok.train(text, 280, min_frequency=3, max_token_bytes=6)
        got = bpe_core.load(tmp_path / "t.model")
        assert got.pattern == tok.pattern and got.merges == tok.merges


@pytest.mark.parametrize("pattern", [r"(?s).{1,4}", r"(?:\S+\s*){1,3}"])
def test_patterns_that_look_far_train_as_train_does_in_blocks(tmp_path, corpus, pattern):
    """Issue 32: with --block-bytes 4096 these differed from train(text) at merges 7 and 142.
    Now the corpus is cut only after the special tokens (or not at all without them)."""
    paths, text = corpus
    for specials in ([], ["--special-token", EOT]):
        done = run_cli("train", *paths, "--vocab-size", 450, "--pattern", pattern, *specials,
                       "--workers", "1", "--block-bytes", 4096, "--out", "t.model", cwd=tmp_path)
        assert done.returncode == 0, done.stderr
        assert ("counted as one block" in done.stderr) == (not specials)
        tok = RegexTokenizer(pattern)
        tok.train(text, 450, special_tokens=[EOT] if specials else None)
        assert bpe_core.load(tmp_path / "t.model").merges == tok.merges


def test_a_second_run_replaces_the_first_and_leaves_nothing_else(tmp_path, corpus):
    paths, _ = corpus
    for vocab in (290, VOCAB):
        for fmt, out in (("gpt2", "g"), ("minbpe", "m.model")):
            done = run_cli("train", *paths, "--vocab-size", vocab, "--workers", "1",
                           "--format", fmt, "--out", out, cwd=tmp_path)
            assert done.returncode == 0, done.stderr
    assert bpe_core.load(tmp_path / "g" / "vocab.json").vocab_size == VOCAB
    assert bpe_core.load(tmp_path / "m.model").vocab_size == VOCAB
    assert not [n for n in os.listdir(tmp_path) if n.startswith(".")]  # no temporary folders


def test_counting_on_a_dask_cluster_gives_the_same_merges(tmp_path, corpus):
    import distributed  # the bpe-lab[dask] extra (requirements-dev.txt pins it for the tests)
    paths, text = corpus
    # the loopback address: the cluster never looks for a way out of this machine
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False,
                                  protocol="tcp://", host="127.0.0.1",
                                  dashboard_address=None) as cluster:
        done = run_cli("train", *[p.name for p in paths], "--vocab-size", VOCAB, "--pattern",
                       "gpt2", "--special-token", EOT, "--dask", cluster.scheduler_address,
                       "--out", "tok.model", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert bpe_core.load(tmp_path / "tok.model").merges == reference(text).merges
