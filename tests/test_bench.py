"""The benchmark's pieces on a tiny corpus: its checks are real, its corpus is reproducible.

No timing is asserted: the machines are shared and noisy.
"""

from __future__ import annotations

import pytest

from benchmarks.bench import (
    build_corpus,
    compare_naive,
    corpus_fingerprint,
    main,
    naive_train,
    pathological_inputs,
)
from benchmarks.bench_kit import render_table


@pytest.fixture(scope="module")
def tiny_corpus() -> str:
    return build_corpus(20_000)


def test_corpus_is_deterministic_and_sized(tiny_corpus):
    again = build_corpus(20_000)
    assert corpus_fingerprint(again) == corpus_fingerprint(tiny_corpus)
    size, digest = corpus_fingerprint(tiny_corpus)
    assert 19_996 <= size <= 20_000  # cut at a character boundary
    assert len(digest) == 16
    # a larger corpus starts with the smaller one: the same text, read further
    assert build_corpus(40_000).startswith(tiny_corpus)


def test_corpus_reaches_into_the_standard_library():
    corpus = build_corpus(1_000_000)
    assert len(corpus.encode("utf-8")) == 1_000_000
    assert "def " in corpus[-200_000:]  # Python source after the docs


def test_naive_train_is_the_seeds_known_answer():
    assert naive_train("aaabdaaabac", 259, pattern=r".+") == {
        (97, 97): 256,
        (256, 97): 257,
        (257, 98): 258,
    }


def test_bpe_core_makes_the_naive_merges(tiny_corpus):
    result = compare_naive(tiny_corpus[:5_000], 300)
    assert result.identical is True
    assert result.chars == 5_000
    assert result.naive_s > 0 and result.core_s > 0


def test_compare_naive_notices_a_difference(monkeypatch):
    """The equality check is a real check: a trainer with other merges is reported."""
    import benchmarks.bench as bench

    def wrong_naive(text, vocab_size, pattern=bench.GPT4_SPLIT_PATTERN):
        merges = naive_train(text, vocab_size, pattern)
        first, second, *rest = merges  # swap the first two merges' order
        return {second: 256, first: 257, **{pair: merges[pair] for pair in rest}}

    monkeypatch.setattr(bench, "naive_train", wrong_naive)
    assert compare_naive("the cat sat on the mat, then the hat", 270).identical is False


def test_pathological_inputs_have_the_asked_length():
    texts = pathological_inputs(1_000)
    assert all(len(t) == 1_000 for t in texts.values())
    assert pathological_inputs(1_000) == texts  # fixed seed


def test_tables_render_as_markdown_and_plain_text():
    assert render_table(["a", "bb"], [[1, 2.5]], markdown=True).splitlines() == [
        "| a | bb |",
        "|---|---|",
        "| 1 | 2.5 |",
    ]
    assert render_table(["vocab", "s"], [[512, "0.1"]]).splitlines() == [
        "vocab  s",
        "-----  ---",
        "512    0.1",
    ]


def test_quick_run_prints_every_section(capsys, tmp_path):
    """The whole quick run on a tiny corpus; peers without their files are skipped with a note."""
    missing = tmp_path / "missing.tiktoken"
    code = main(["--quick", "--markdown", "--corpus-bytes", "8000", "--naive-chars", "2000",
                 "--ranks", str(missing)])
    out = capsys.readouterr().out
    assert code == 0
    for title in ("### 1. Corpus", "### 2a. Peak memory", "### 2b. Training time",
                  "### 3. bpe_core vs the seeds' naive trainer", "### 4. Encoding throughput",
                  "### 4b. Decoding throughput", "### 5. Pathological inputs",
                  "### 2c. Training variants", "### 4d. One vocabulary, four encoders",
                  "### 6. Checking a learner's merges", "### 7. Who pays for tokens"):
        assert title in out
    assert "identical merges: yes" in out
    assert f"{missing} not found" in out
    assert "decode(encode(corpus)) == corpus for every decoder: yes" in out


def test_the_tiktoken_peer_reads_the_shipped_vocabulary():
    from benchmarks.bench_kit import load_tiktoken

    enc, note = load_tiktoken()
    assert note is None
    assert enc.encode("hello world") == [15339, 1917]  # cl100k_base, as OpenAI publishes it
    assert enc.n_vocab == 100_277


def test_the_script_runs_from_any_folder_with_its_tiktoken_rows(tmp_path):
    """``python benchmarks/bench.py`` as docs/BENCHMARKS.md writes it, started from another folder."""
    import subprocess
    import sys
    from pathlib import Path

    script = Path(__file__).resolve().parents[1] / "benchmarks" / "bench.py"
    done = subprocess.run(
        [sys.executable, str(script), "--quick", "--corpus-bytes", "8000", "--naive-chars", "2000"],
        cwd=tmp_path, capture_output=True, text=True, timeout=240,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert "tiktoken cl100k encode_ordinary" in done.stdout
    assert "bpe_core cl100k ids identical to tiktoken's: yes" in done.stdout
    assert "skipped" not in done.stdout
