"""``bpe-lab encode`` writes the ids ``encode`` gives, as a .npy array numpy reads; ``bpe-lab
check`` names a wrong trainer's mistake, the Check page's way."""

from __future__ import annotations

import re

import numpy as np
import pytest
from cli_support import EOT, run_cli

import bpe_core
from bpe_core import GPT2_SPLIT_PATTERN, RegexTokenizer
from bpe_lab import check


@pytest.mark.parametrize("workers", ["1", "2"])
def test_encode_gives_the_ids_of_encode_on_the_whole_text(tmp_path, corpus, workers):
    paths, text = corpus
    text += "\n\n\n  trailing blank lines \r\n\r\n"  # cuts near line breaks must change nothing
    paths[-1].write_bytes(paths[-1].read_bytes() + b"\n\n\n  trailing blank lines \r\n\r\n")
    tok = RegexTokenizer(GPT2_SPLIT_PATTERN)
    tok.train(text, 400, special_tokens=[EOT])
    tok.save(str(tmp_path / "tok"))
    done = run_cli("encode", "tok.model", *paths, "--workers", workers, "--block-bytes", 700,
                   "--out", "ids.npy", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    blocks = int(re.search(r"\(([\d,]+) blocks\)", done.stdout).group(1).replace(",", ""))
    assert blocks >= 10  # the corpus was cut, and the blocks' ids came back in order
    ids = np.load(tmp_path / "ids.npy")
    assert ids.dtype == np.uint16 and ids.ndim == 1
    assert ids.tolist() == tok.encode(text, allowed_special="all")
    assert f"into {len(ids):,} tokens" in done.stdout and "uint16" in done.stdout


def test_ids_past_65535_are_uint32(tmp_path):
    tok = RegexTokenizer(merges={(104, 105): 256}, special_tokens={EOT: 70_000})
    tok.save(str(tmp_path / "big"))
    (tmp_path / "a.txt").write_text(f"hi there{EOT}hi")
    done = run_cli("encode", "big.model", "a.txt", "--workers", "1", "--out", "ids.npy",
                   cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    ids = np.load(tmp_path / "ids.npy")
    assert ids.dtype == np.uint32
    assert ids.tolist() == [256, 32, 116, 104, 101, 114, 101, 70_000, 256]  # "hi", " there", ...


def test_encode_reads_a_folder_written_by_train(tmp_path, corpus):
    paths, text = corpus
    assert run_cli("train", *paths, "--vocab-size", "300", "--pattern", "gpt2",
                   "--special-token", EOT, "--workers", "1", "--format", "cs336", "--out", "t",
                   cwd=tmp_path).returncode == 0
    done = run_cli("encode", "t", *paths, "--workers", "1", "--out", "ids.npy", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    tok = bpe_core.load(tmp_path / "t" / "vocab.json")
    assert np.load(tmp_path / "ids.npy").tolist() == tok.encode(text, allowed_special="all")


def test_a_file_without_its_sidecar_is_refused_in_flags_and_read_with_them(tmp_path):
    """A tiktoken file says neither its pattern nor its special tokens; without the sidecar that
    does, the command names its own flags (not Python's pattern=), and with them gives the ids."""
    text = "the cat sat on the mat<|endoftext|>the cat ran"
    tok = RegexTokenizer(GPT2_SPLIT_PATTERN)
    tok.train(text * 3, 280, special_tokens=[EOT])
    tok.save_tiktoken(str(tmp_path / "t.tiktoken"))
    (tmp_path / "t.tiktoken.bpe-lab.json").unlink()
    (tmp_path / "a.txt").write_text(text)
    done = run_cli("encode", "t.tiktoken", "a.txt", "--workers", "1", "--out", "ids.npy",
                   cwd=tmp_path)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert "--pattern" in done.stderr and "--special-token TOK=ID" in done.stderr
    assert "pattern=" not in done.stderr
    assert not (tmp_path / "ids.npy").exists()
    eot = tok.special_tokens[EOT]
    done = run_cli("encode", "t.tiktoken", "a.txt", "--workers", "1", "--out", "ids.npy",
                   "--pattern", "gpt2", "--special-token", f"{EOT}={eot}", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert np.load(tmp_path / "ids.npy").tolist() == tok.encode(text, allowed_special="all")
    done = run_cli("info", "t.tiktoken", "--pattern", "gpt2", "--special-token", "none",
                   cwd=tmp_path)
    assert done.returncode == 0 and "GPT-2" in done.stdout and "special tokens  none" in done.stdout


def test_check_names_the_mistake_of_a_trainer_that_counts_overlaps_once(tmp_path):
    demo = check.zoo_demo("overlap")  # the zoo's trainer with that mistake, on its own text
    (tmp_path / "text.txt").write_text(demo.text)
    (tmp_path / "mine.py").write_text(f"merges = {demo.merges!r}\n")
    done = run_cli("check", "mine.py", "--corpus", "text.txt", "--vocab-size",
                   demo.settings["vocab_size"], "--pattern", "gpt4", cwd=tmp_path)
    assert done.returncode == 1, done.stderr  # they differ
    assert "Traceback" not in done.stderr
    report = check.check_merges(demo.merges, demo.text, **demo.settings)
    learner = check.read_merges((tmp_path / "mine.py").read_bytes(), "mine.py")
    # the Check page's sentences, as bpe_lab.check says them for a terminal
    assert done.stdout.splitlines() == check.report_lines(report, learner, "mine.py")
    assert report.diagnoses[0].mistake.key == "overlap"
    assert "The cause: Overlapping pairs counted once" in done.stdout
    assert "The idea of the fix: Every adjacent pair counts" in done.stdout


def test_check_of_the_right_merges_says_they_match(tmp_path, corpus):
    paths, text = corpus
    assert run_cli("train", *paths, "--vocab-size", "300", "--pattern", "gpt2",
                   "--special-token", EOT, "--tie-rule", "bytes", "--workers", "1",
                   "--format", "cs336", "--out", "mine", cwd=tmp_path).returncode == 0
    done = run_cli("check", "mine", "--corpus", *paths, "--pattern", "gpt2", "--tie-rule",
                   "bytes", cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.splitlines()[-1] == "Your merges match the reference's 43 merges."
    # the special token came from the learner's vocab.json, the size from the merges
    assert "using the special tokens found in mine: <|endoftext|>" in done.stderr
    assert "--vocab-size 300" in done.stderr
    # the same merges under another tie rule part where a tie is broken the other way
    other = run_cli("check", "mine", "--corpus", *paths, "--pattern", "gpt2", cwd=tmp_path)
    assert other.returncode == 1
    assert "The cause: Ties broken by another rule: you broke ties by the 'bytes' rule" in (
        other.stdout)


def test_check_refuses_a_corpus_larger_than_the_checks_bound(tmp_path):
    (tmp_path / "big.txt").write_text("a b " * (check.MAX_CHECK_CHARS // 4 + 1))
    (tmp_path / "mine.py").write_text("merges = [(b'a', b' ')]\n")
    done = run_cli("check", "mine.py", "--corpus", "big.txt", cwd=tmp_path)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert f"at most {check.MAX_CHECK_CHARS:,}" in done.stderr


def test_check_reads_big_corpora_in_blocks_without_cutting_characters(tmp_path):
    """Issue 32: a valid UTF-8 corpus over 800 KB was "byte 800,000: not UTF-8" (a character
    cut in two), and a 3 MB ASCII corpus "had 800,001 characters". Now each file is read in
    blocks that end between characters and counted to its end."""
    (tmp_path / "mine.py").write_text("merges = [(b'a', b' ')]\n")
    unit = "aé中😀 "  # 1 + 2 + 3 + 4 + 1 bytes: characters cross every block edge
    wide = unit * 200_001  # 2.2 MB, 1,000,005 characters
    (tmp_path / "wide.txt").write_text(wide, encoding="utf-8")
    done = run_cli("check", "mine.py", "--corpus", "wide.txt", cwd=tmp_path)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert "not UTF-8" not in done.stderr
    assert f"the text has {len(wide):,} characters" in done.stderr
    (tmp_path / "ascii.txt").write_text("a b\n" * 750_000)  # 3 MB
    done = run_cli("check", "mine.py", "--corpus", "ascii.txt", "wide.txt", cwd=tmp_path)
    assert f"the text has {3_000_000 + len(wide):,} characters" in done.stderr
    # a bad byte far past the first block is placed exactly
    data = ("é" * 700_000).encode() + b"\xff" + b"tail\n"
    (tmp_path / "bad.txt").write_bytes(data)
    done = run_cli("check", "mine.py", "--corpus", "bad.txt", cwd=tmp_path)
    assert done.returncode == 2 and "bad.txt, byte 1,400,000: not UTF-8" in done.stderr
    # a corpus within the bound, one character across the edge of a file, is refused there
    (tmp_path / "cut.txt").write_bytes("ab中".encode()[:-1])
    done = run_cli("check", "mine.py", "--corpus", "cut.txt", cwd=tmp_path)
    assert done.returncode == 2 and "cut.txt, byte 2: not UTF-8" in done.stderr


def test_check_of_a_corpus_near_the_bound_reads_it_whole(tmp_path):
    """200,000 four-byte characters (800,000 bytes): within the bound, read and checked."""
    text = "😀" * (check.MAX_CHECK_CHARS - 1) + "\n"
    (tmp_path / "emoji.txt").write_text(text, encoding="utf-8")
    ref = RegexTokenizer(bpe_core.GPT4_SPLIT_PATTERN)
    ref.train(text, 260)
    merges = [(ref.vocab[a], ref.vocab[b]) for (a, b) in ref.merges]
    (tmp_path / "mine.py").write_text(f"merges = {merges!r}\n")
    done = run_cli("check", "mine.py", "--corpus", "emoji.txt", "--vocab-size", 260,
                   cwd=tmp_path)
    assert done.returncode == 0, done.stderr
