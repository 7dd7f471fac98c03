"""Bad input to ``bpe-lab``: a message that names the file or option and the fix, a non-zero
exit code, never a traceback, and nothing written. Ctrl-C stops the workers, says what was done,
and writes nothing."""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import time

import numpy as np
import pytest
from cli_support import EOT, cli_command, cli_env, run_cli
from support import live_processes

from bpe_core import RegexTokenizer
from bpe_core.base import MAX_VOCAB_SIZE


def refused(done, *words: str) -> str:
    """The message of a refused run, after checking it is one: exit 2, no traceback, nothing on
    stdout; it contains every word of ``words``."""
    assert done.returncode == 2, (done.returncode, done.stdout, done.stderr)
    assert "Traceback" not in done.stderr
    assert done.stdout == ""
    message = done.stderr.strip()
    assert message.startswith("bpe-lab "), message
    for word in words:
        assert word in message, (word, message)
    return message


def nothing_written(folder, *names: str) -> None:
    assert not [n for n in names if (folder / n).exists()]
    assert not [n for n in os.listdir(folder) if n.startswith(".")]  # no temporary files


def train(tmp_path, *args):
    return run_cli("train", *args, "--workers", "1", "--out", "tok.model", cwd=tmp_path)


def test_a_missing_corpus_file(tmp_path):
    message = refused(train(tmp_path, "nope.txt", "--vocab-size", "300"), "nope.txt",
                      "no such corpus file", "check the path")
    assert str(tmp_path) in message  # where it looked
    nothing_written(tmp_path, "tok.model")


def test_a_directory_as_corpus(tmp_path):
    (tmp_path / "texts").mkdir()
    refused(train(tmp_path, "texts", "--vocab-size", "300"), "texts is a directory",
            "name the files in it")
    nothing_written(tmp_path, "tok.model")


def test_an_unreadable_corpus_file(tmp_path):
    if os.geteuid() != 0:
        path = tmp_path / "secret.txt"
        path.write_text("hello\n")
        path.chmod(0)
        refused(train(tmp_path, "secret.txt", "--vocab-size", "300"), "secret.txt",
                "Permission denied")
        return
    # root reads any file: a socket is a path that no one can read as text
    server = socket.socket(socket.AF_UNIX)
    server.bind(str(tmp_path / "secret.txt"))
    try:
        refused(train(tmp_path, "secret.txt", "--vocab-size", "300"), "secret.txt",
                "not a regular file")
    finally:
        server.close()
    nothing_written(tmp_path, "tok.model")


def test_an_empty_corpus(tmp_path):
    (tmp_path / "a.txt").write_text("")
    (tmp_path / "b.txt").write_text("")
    refused(train(tmp_path, "a.txt", "--vocab-size", "300"), "a.txt", "empty corpus")
    refused(train(tmp_path, "a.txt", "b.txt", "--vocab-size", "300"), "all 2 corpus files",
            "empty corpus")
    nothing_written(tmp_path, "tok.model")


def test_bytes_that_are_not_utf8_are_placed_and_replace_goes_on(tmp_path):
    good = "hello world\n" * 50
    (tmp_path / "ok.txt").write_text(good)
    (tmp_path / "bad.txt").write_bytes(b"caf\xc3\xa9 fine\n" * 3 + b"then \xff here\n")
    offset = len(b"caf\xc3\xa9 fine\n" * 3 + b"then ")  # 35
    done = train(tmp_path, "ok.txt", "bad.txt", "--vocab-size", "300")
    refused(done, "bad.txt", f"{offset}", "--errors replace")
    nothing_written(tmp_path, "tok.model")
    done = train(tmp_path, "ok.txt", "bad.txt", "--vocab-size", "300", "--errors", "replace")
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "tok.model").exists()


@pytest.mark.parametrize("specials,least", [([], 256), ([EOT, "<|pad|>"], 258)])
def test_a_vocabulary_without_room_for_the_bytes_and_specials(tmp_path, specials, least):
    (tmp_path / "c.txt").write_text("hello world\n")
    options = [x for s in specials for x in ("--special-token", s)]
    refused(train(tmp_path, "c.txt", "--vocab-size", str(least - 1), *options),
            f"--vocab-size {least - 1}", f"at least {least}")
    refused(train(tmp_path, "c.txt", "--vocab-size", str(MAX_VOCAB_SIZE + 1)), "too large")
    nothing_written(tmp_path, "tok.model")


def test_a_catastrophic_custom_pattern_is_stopped_within_the_apps_bound(tmp_path):
    (tmp_path / "a.txt").write_text("a" * 50_000 + "!\n")
    start = time.monotonic()
    done = train(tmp_path, "a.txt", "--vocab-size", "300", "--pattern", "(a|aa)+$")
    refused(done, "took longer than 2 s", "a.txt", "backtracks")
    assert time.monotonic() - start < 60  # stopped, not hung (the bound is 2 s)
    nothing_written(tmp_path, "tok.model")


def test_a_pattern_that_backtracks_only_deep_in_the_corpus_is_stopped_there(tmp_path):
    """The first 200,000 characters pass the check before training; the run of a's after them
    is split by a worker, which stops on the same rate (2 s per 200,000 characters of a block).
    A custom pattern is cut only after special tokens, so the block is the whole corpus."""
    (tmp_path / "a.txt").write_text(("xyz " * 20 + "\n") * 3_000 + "a" * 50_000 + "!\n")
    size = (tmp_path / "a.txt").stat().st_size
    start = time.monotonic()
    done = train(tmp_path, "a.txt", "--vocab-size", "300", "--pattern", r"(a|aa)+$|\s+|[^\sa]+|a",
                 "--block-bytes", "100000", "--workers", "1")
    note, error = done.stderr.strip().splitlines()
    assert note.startswith("bpe-lab: note:") and "counted as one block" in note
    done.stderr = error
    refused(done, f"took longer than {2 * size / 200_000:g} s on bytes 0..{size:,} of", "a.txt")
    assert time.monotonic() - start < 60  # stopped, not hung
    nothing_written(tmp_path, "tok.model")


def test_an_invalid_pattern(tmp_path):
    (tmp_path / "a.txt").write_text("hello\n")
    refused(train(tmp_path, "a.txt", "--vocab-size", "300", "--pattern", "(unclosed"),
            "--pattern", "not a usable regular expression")


def test_the_app_and_the_command_line_bound_a_pattern_alike():
    from bpe_lab.cli import inputs
    from ui.kit import choices
    assert inputs.PATTERN_SECONDS == choices.REGEX_TIMEOUT
    assert inputs.PROBE_CHARS == choices.MAX_TEXT_CHARS
    assert inputs.MAX_PATTERN_CHARS == choices.MAX_PATTERN_CHARS


def test_zero_workers_is_refused_and_too_many_are_lowered_to_the_cores(tmp_path):
    (tmp_path / "a.txt").write_text("hello world, hello there\n" * 20)
    done = run_cli("train", "a.txt", "--vocab-size", "260", "--workers", "0", "--out", "t.model",
                   cwd=tmp_path)
    refused(done, "--workers 0", "1 or more")
    cores = os.cpu_count()
    done = run_cli("train", "a.txt", "--vocab-size", "260", "--workers", str(cores + 3),
                   "--out", "t.model", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stderr.strip() == (f"bpe-lab: warning: --workers {cores + 3} is more than the"
                                   f" {cores} core{'s' if cores != 1 else ''} here; using {cores}")
    assert (tmp_path / "t.model").exists()


def test_an_unknown_format_and_a_minbpe_name_without_model(tmp_path):
    (tmp_path / "a.txt").write_text("hello\n")
    done = run_cli("train", "a.txt", "--vocab-size", "260", "--format", "sentencepiece",
                   "--out", "t.model", cwd=tmp_path)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert "invalid choice: 'sentencepiece'" in done.stderr and "minbpe" in done.stderr
    refused(run_cli("train", "a.txt", "--vocab-size", "260", "--out", "t.txt", cwd=tmp_path),
            "--out t.txt", "try --out t.txt.model")
    (tmp_path / "folder").mkdir()
    refused(run_cli("train", "a.txt", "--vocab-size", "260", "--format", "hf", "--out", "folder",
                    cwd=tmp_path), "--out folder is a folder")
    refused(run_cli("train", "a.txt", "--vocab-size", "260", "--out", "no/such/t.model",
                    cwd=tmp_path), "does not exist; create it first")
    nothing_written(tmp_path, "t.model", "t.txt")


def test_a_folder_format_never_replaces_someone_elses_files(tmp_path):
    (tmp_path / "a.txt").write_text("hello world\n" * 10)
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "notes.txt").write_text("keep me")
    refused(run_cli("train", "a.txt", "--vocab-size", "260", "--format", "gpt2", "--out", "mine",
                    cwd=tmp_path), "other files in it", "notes.txt")
    assert os.listdir(tmp_path / "mine") == ["notes.txt"]


def test_dask_without_distributed_says_how_to_install_it(tmp_path):
    fake = tmp_path / "fake"
    (fake / "distributed").mkdir(parents=True)
    (fake / "distributed" / "__init__.py").write_text("raise ImportError('no dask here')\n")
    (tmp_path / "a.txt").write_text("hello world\n")
    done = run_cli("train", "a.txt", "--vocab-size", "260", "--dask", "tcp://127.0.0.1:8786",
                   "--out", "t.model", cwd=tmp_path, PYTHONPATH=str(fake))
    refused(done, "pip install 'bpe-lab[dask]'")


def test_bad_model_files_for_info_and_encode(tmp_path):
    (tmp_path / "junk.model").write_text("not a model\n")
    refused(run_cli("info", "junk.model", cwd=tmp_path), "junk.model")
    refused(run_cli("info", "gone.model", cwd=tmp_path), "gone.model", "no such tokenizer file")
    (tmp_path / "a.txt").write_text("hello\n")
    refused(run_cli("encode", "gone.model", "a.txt", "--out", "ids.npy", cwd=tmp_path),
            "gone.model")
    nothing_written(tmp_path, "ids.npy")


# -- Ctrl-C ------------------------------------------------------------------------------------


def default_ctrl_c() -> None:
    """In the child before it runs: Ctrl-C does what it does at a terminal, even when this test
    runs where SIGINT is ignored (a background job inherits SIG_IGN, and Python keeps it)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def big_corpus(path, megabytes: int) -> None:
    """Varied text (many distinct words), so that counting takes a few seconds."""
    words = [f"w{n * 7919 % 100_003}" for n in range(20_000)]
    line = " ".join(words) + "\n"
    with open(path, "w") as f:
        for _ in range(megabytes * 1_000_000 // len(line) + 1):
            f.write(line)


def made_up_words(n: int) -> list[str]:
    """``n`` words of 6 to 12 letters a-z from a fixed linear congruential generator."""
    words, x = [], 1
    for i in range(n):
        letters = []
        for _ in range(6 + i % 7):
            x = (x * 1103515245 + 12345) % 2**31
            letters.append(chr(97 + (x >> 16) % 26))
        words.append("".join(letters))
    return words


@pytest.mark.parametrize("phase", ["reading", "merging"])
def test_ctrl_c_stops_the_workers_says_what_was_done_and_writes_nothing(tmp_path, phase):
    import pty

    if phase == "reading":
        big_corpus(tmp_path / "big.txt", 40)
        options = ["--vocab-size", "300", "--workers", "2"]
    else:  # a long merge loop on a small table: 300,000 made-up words of 6 to 12 letters (the
        # merge loop of issue 37 ran the earlier table's 2,702 merges in 0.18 s, over before a
        # Ctrl-C could come; this one takes seconds)
        (tmp_path / "big.txt").write_text(" ".join(made_up_words(300_000)))
        options = ["--vocab-size", "30000", "--workers", "1"]
    main, child = pty.openpty()
    proc = subprocess.Popen(cli_command("train", "big.txt", *options, "--out", "tok.model"),
                            cwd=tmp_path, stdin=child, stdout=child, stderr=child,
                            env=cli_env(), start_new_session=True, preexec_fn=default_ctrl_c)
    os.close(child)
    seen = b""
    deadline = time.monotonic() + 90
    # a bar that has moved but is not half way yet: the pty's output can lag behind the work, and
    # a bar read at 9x% may belong to a run that ends before the signal comes
    started = re.compile(phase.encode() + rb": +(?:[1-9]|[1-4]\d)%\|")
    while not started.search(seen):
        assert time.monotonic() < deadline, seen[-500:]
        assert proc.poll() is None, seen[-2000:]  # still working when interrupted
        try:
            seen += os.read(main, 4096)
        except OSError:
            break
    os.killpg(proc.pid, signal.SIGINT)  # as Ctrl-C does: the whole foreground group
    assert proc.wait(timeout=60) == 130
    rest = b""
    while True:
        try:
            chunk = os.read(main, 4096)
        except OSError:
            break
        if not chunk:
            break
        rest += chunk
    os.close(main)
    text = (seen + rest).decode("utf-8", "replace")
    assert "Traceback" not in text and "KeyboardInterrupt" not in text, text[-3000:]
    said = text[text.rindex("bpe-lab train:"):]
    assert "interrupted after" in said and "nothing was written" in said, said
    if phase == "reading":
        size = os.path.getsize(tmp_path / "big.txt")
        assert re.search(rf"read [\d.]+ MB of {size / 1e6:.1f} MB;", said), said
    else:
        assert " merges" in said and "made " in said
    nothing_written(tmp_path, "tok.model", "tok.vocab")
    time.sleep(0.5)
    assert live_processes("session", proc.pid) == []  # no worker left behind


def test_ctrl_c_while_encoding_writes_no_ids(tmp_path):
    import pty

    big_corpus(tmp_path / "big.txt", 10)
    tok = RegexTokenizer()
    tok.train("w1 w2 w3 w12 w123 " * 50, 270)
    tok.save(str(tmp_path / "tok"))
    main, child = pty.openpty()
    proc = subprocess.Popen(cli_command("encode", "tok.model", "big.txt", "--workers", "2",
                                        "--out", "ids.npy"),
                            cwd=tmp_path, stdin=child, stdout=child, stderr=child,
                            env=cli_env(), start_new_session=True, preexec_fn=default_ctrl_c)
    os.close(child)
    seen = b""
    deadline = time.monotonic() + 90
    while not re.search(rb"encoding: +(?:[1-9]|[1-4]\d)%\|", seen):
        assert time.monotonic() < deadline and proc.poll() is None, seen[-2000:]
        seen += os.read(main, 4096)
    os.killpg(proc.pid, signal.SIGINT)
    assert proc.wait(timeout=60) == 130
    try:
        while chunk := os.read(main, 4096):
            seen += chunk
    except OSError:
        pass
    os.close(main)
    text = seen.decode("utf-8", "replace")
    assert "Traceback" not in text, text[-3000:]
    assert "interrupted after" in text and "nothing was written" in text
    nothing_written(tmp_path, "ids.npy")
    time.sleep(0.5)
    assert live_processes("session", proc.pid) == []


def test_encode_and_check_place_bytes_that_are_not_utf8_too(tmp_path):
    (tmp_path / "bad.txt").write_bytes(b"fine text\n" * 3 + b"then \xff here\n")
    tok = RegexTokenizer()
    tok.train("fine text then here " * 20, 270)
    tok.save(str(tmp_path / "tok"))
    refused(run_cli("encode", "tok.model", "bad.txt", "--workers", "1", "--out", "ids.npy",
                    cwd=tmp_path), "bad.txt", "offset 35", "--errors replace")
    nothing_written(tmp_path, "ids.npy")
    (tmp_path / "mine.py").write_text("merges = [(b'f', b'i')]\n")
    refused(run_cli("check", "mine.py", "--corpus", "bad.txt", cwd=tmp_path), "bad.txt",
            "byte 35", "--errors replace")
    done = run_cli("encode", "tok.model", "bad.txt", "--workers", "1", "--errors", "replace",
                   "--out", "ids.npy", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    ids = np.load(tmp_path / "ids.npy").tolist()
    assert tok.decode(ids) == "fine text\n" * 3 + "then \ufffd here\n"


def test_a_reader_that_goes_away_gets_no_traceback(tmp_path):
    """``bpe-lab info tok.model | head -1``: the pipe closes before the command has written."""
    tok = RegexTokenizer()
    tok.train("hello world " * 20, 260)
    tok.save(str(tmp_path / "tok"))
    proc = subprocess.Popen(cli_command("info", "tok.model"), cwd=tmp_path, env=cli_env(),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    proc.stdout.close()  # as head does once it has its line
    assert proc.wait(timeout=60) == 1
    assert proc.stderr.read() == b""
    proc.stderr.close()
