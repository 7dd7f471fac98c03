"""The command line's budget (issue 43): every command runs a custom split pattern within the
budget bpe-lab's main installs, so a pattern that backtracks only on a later file is stopped
there, with a message naming the limit; ``--force`` replaces only regular files."""

from __future__ import annotations

import os
import stat

import pytest
from cli_support import run_cli

from bpe_core import BasicTokenizer

BACKTRACKS = r"(a|aa)+$|\S|\s"
QUICK = "the cat sat on the mat.\n" * 20
SLOW = ("a" * 28 + "!\n") * 40  # (a|aa)+$ tries every way to cut each run of a's


def test_check_bounds_every_file_not_only_the_first(tmp_path):
    (tmp_path / "a.txt").write_text(QUICK)
    (tmp_path / "b.txt").write_text(SLOW)
    (tmp_path / "mine.py").write_text("merges = [(b'a', b'a')]\n")
    done = run_cli("check", "mine.py", "--corpus", "a.txt", "b.txt", "--vocab-size", "258",
                   "--pattern", BACKTRACKS, cwd=tmp_path, timeout=120)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert "took longer than 2 s" in done.stderr and "simplify the pattern" in done.stderr


def test_encode_bounds_a_models_pattern_as_train_does(tmp_path):
    (tmp_path / "a.txt").write_text(QUICK)
    (tmp_path / "b.txt").write_text(SLOW)
    trained = run_cli("train", "a.txt", "--vocab-size", "260", "--pattern", BACKTRACKS,
                      "--workers", "1", "--out", "m.model", cwd=tmp_path)
    assert trained.returncode == 0, trained.stderr
    done = run_cli("encode", "m.model", "b.txt", "--workers", "1", "--out", "ids.npy",
                   cwd=tmp_path, timeout=120)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert "took longer than 2 s" in done.stderr, done.stderr
    assert not (tmp_path / "ids.npy").exists()
    ok = run_cli("encode", "m.model", "a.txt", "--workers", "1", "--out", "ids.npy",
                 cwd=tmp_path, timeout=120)
    assert ok.returncode == 0, ok.stderr  # a text it splits quickly encodes


@pytest.mark.parametrize("kind", ["fifo", "symlink", "device"])
def test_force_replaces_only_regular_files(tmp_path, kind):
    (tmp_path / "a.txt").write_text(QUICK)
    BasicTokenizer().save(str(tmp_path / "m"))  # m.model, as bpe_core writes it
    target = tmp_path / "kept.txt"
    target.write_text("mine")
    if kind == "fifo":
        out = tmp_path / "out.model"
        os.mkfifo(out)
        words = "named pipe (FIFO)"
    elif kind == "symlink":
        out = tmp_path / "out.model"
        out.symlink_to(target)
        words = "symbolic link"
    else:
        out = "/dev/full" if os.access("/dev/full", os.W_OK) else "/dev/null"
        words = "device"
    for command in (["train", "a.txt", "--vocab-size", "260", "--format", "hf"],
                    ["encode", "m.model", "a.txt"]):
        done = run_cli(*command, "--out", out, "--force", cwd=tmp_path)
        assert done.returncode == 2 and f"is a {words}" in done.stderr, done.stderr
    assert target.read_text() == "mine"
    if kind == "fifo":
        assert stat.S_ISFIFO(os.lstat(out).st_mode)
    elif kind == "symlink":
        assert os.path.islink(out)
