"""On a terminal ``bpe-lab train`` and ``encode`` draw tqdm bars (bytes with MB/s and an ETA,
then merges with merges/s); piped, they print only the summary line."""

from __future__ import annotations

import os
import re
import subprocess
import time

import pytest
from cli_support import cli_command, cli_env, run_cli


def on_a_terminal(args, cwd, timeout: float = 120) -> tuple[int, str]:
    """Run ``bpe-lab ARGS`` with stdout and stderr on a pseudo-terminal: (exit code, output)."""
    import pty

    main, child = pty.openpty()
    proc = subprocess.Popen(cli_command(*args), cwd=cwd, stdin=child, stdout=child, stderr=child,
                            env=cli_env(COLUMNS="120"), start_new_session=True)
    os.close(child)
    out = b""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            chunk = os.read(main, 4096)
        except OSError:  # the other end closed: the command is done
            break
        if not chunk:
            break
        out += chunk
    os.close(main)
    return proc.wait(timeout=30), out.decode("utf-8", "replace")


def corpus_file(tmp_path, lines: int = 40) -> str:
    words = [f"w{n * 7919 % 5_003}" for n in range(5_000)]
    (tmp_path / "c.txt").write_text((" ".join(words) + "\n") * lines)  # 40 lines: about 1 MB
    return "c.txt"


def test_train_on_a_terminal_shows_bytes_then_merges(tmp_path):
    name = corpus_file(tmp_path)
    code, out = on_a_terminal(["train", name, "--vocab-size", "400", "--workers", "1",
                               "--out", "t.model"], tmp_path)
    assert code == 0, out
    # tqdm's bytes bar: "reading: 100%|████| 1.04M/1.04M [00:01<00:00, 1.02MB/s]"
    assert re.search(r"reading: +100%\|.*\| *1\.\d\dM/1\.\d\dM \[[\d:]+<[\d:]+, *[\d.]+[kM]?B/s\]",
                     out), out
    assert re.search(r"merging: +100%\|.*\| *144/144 \[[\d:]+<[\d:]+, *[\d.]+ merges/s\]", out), out
    assert out.rstrip().splitlines()[-1].startswith("trained 400 tokens")


@pytest.mark.parametrize("variant, bars", [
    (["--variant", "superbpe", "--transition", "100"], [("stage one", 100), ("stage two", 44)]),
    (["--variant", "boundless"], [("phase one", 144), ("phase two", 144)]),
])
def test_a_two_part_variant_shows_a_named_bar_for_each_part(tmp_path, variant, bars):
    # each bar counts its own stage's or phase's merges (BoundlessBPE's phase two takes 144
    # merges again: the regular ones it keeps and the supermerges), and says which it is
    name = corpus_file(tmp_path, lines=8)
    code, out = on_a_terminal(["train", name, "--vocab-size", "400", "--workers", "1",
                               "--out", "t.model", *variant], tmp_path)
    assert code == 0, out
    for words, n in bars:
        assert re.search(rf"{words}: merging: +100%\|.*\| *{n}/{n} \[[\d:]+<[\d:]+,"
                         r" *[\d.]+ merges/s\]", out), out
    assert not re.search(r"\d+/288", out), out  # never both phases counted as one
    assert out.rstrip().splitlines()[-1].startswith("trained 400 tokens")


def test_train_piped_prints_the_summary_line_only(tmp_path):
    name = corpus_file(tmp_path)
    done = run_cli("train", name, "--vocab-size", "400", "--workers", "1", "--out", "t.model",
                   cwd=tmp_path)
    assert done.returncode == 0
    assert done.stderr == ""
    (line,) = done.stdout.splitlines()
    assert re.fullmatch(r"trained 400 tokens \(144 merges\) on 1\.\d MB in [\d.]+ s, peak memory"
                        r" [\d,.]+ MB over the process tree; wrote t\.model \(with t\.vocab\)", line), line


def test_encode_on_a_terminal_and_piped(tmp_path):
    name = corpus_file(tmp_path, lines=8)
    assert run_cli("train", name, "--vocab-size", "300", "--workers", "1", "--out", "t.model",
                   cwd=tmp_path).returncode == 0
    code, out = on_a_terminal(["encode", "t.model", name, "--workers", "1", "--out", "ids.npy"],
                              tmp_path)
    assert code == 0, out
    assert re.search(r"encoding: +100%\|.*[\d.]+[kM]?B/s\]", out), out
    done = run_cli("encode", "t.model", name, "--workers", "1", "--out", "ids.npy", cwd=tmp_path)
    assert done.returncode == 0 and done.stderr == ""
    (line,) = done.stdout.splitlines()
    assert re.search(r"MB/s, [\d,]+ tokens/s with 1 worker", line), line


def test_every_command_has_help_with_an_example(tmp_path):
    for command, says in [("train", "Train a byte-level BPE tokenizer"),
                          ("encode", "Encode text files"), ("check", "Check the merges"),
                          ("info", "Say what a tokenizer file holds")]:
        done = run_cli(command, "--help", cwd=tmp_path)
        assert done.returncode == 0 and done.stderr == ""
        assert says in done.stdout and "example" in done.stdout
        example = done.stdout[done.stdout.index("example"):]
        assert f"bpe-lab {command} " in example, command
    top = run_cli("--help", cwd=tmp_path)
    assert all(c in top.stdout for c in ("train", "encode", "check", "info"))
