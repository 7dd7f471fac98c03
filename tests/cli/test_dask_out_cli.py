"""Issue 32 from outside: ``--dask`` with no worker says so within a bounded time and Ctrl-C
while it waits is clean; ``--out`` replaces only what bpe-lab wrote, unless ``--force``."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time

import distributed  # the bpe-lab[dask] extra (requirements-dev.txt pins it for the tests)
import numpy as np
import pytest
from cli_support import cli_command, cli_env, run_cli
from test_bad_input_cli import default_ctrl_c, nothing_written, refused

import bpe_core
from bpe_core import RegexTokenizer
from bpe_core.formats import to_hf_json

TEXT = "hello world, the world says hello\n" * 50


@pytest.fixture
def lone_scheduler():
    """A Dask scheduler with no worker (a cluster scaled to 0), on the loopback address."""
    with distributed.LocalCluster(n_workers=0, processes=False, protocol="tcp://",
                                  host="127.0.0.1", dashboard_address=None) as cluster:
        yield cluster.scheduler_address


def test_dask_without_a_worker_says_so_instead_of_waiting_forever(tmp_path, lone_scheduler):
    (tmp_path / "a.txt").write_text(TEXT)
    done = run_cli("train", "a.txt", "--vocab-size", 270, "--dask", lone_scheduler,
                   "--out", "t.model", cwd=tmp_path, timeout=120)  # a hang fails here
    assert done.returncode == 2 and done.stdout == ""
    assert "Traceback" not in done.stderr
    notice, error = done.stderr.strip().splitlines()
    assert notice.startswith(f"bpe-lab: the Dask scheduler at {lone_scheduler} has no worker yet")
    assert error.startswith("bpe-lab train: error: the Dask cluster at")
    assert "has had no worker for 10 s" in error and f"dask worker {lone_scheduler}" in error
    nothing_written(tmp_path, "t.model", "t.vocab")


def test_ctrl_c_while_waiting_for_a_dask_worker_is_clean(tmp_path, lone_scheduler):
    """Before, Ctrl-C here printed an asyncio traceback ("Task exception was never retrieved")."""
    (tmp_path / "a.txt").write_text(TEXT)
    proc = subprocess.Popen(cli_command("train", "a.txt", "--vocab-size", 270, "--dask",
                                        lone_scheduler, "--out", "t.model"),
                            cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            env=cli_env(), start_new_session=True, preexec_fn=default_ctrl_c)
    first = proc.stderr.readline().decode()  # the notice: it is waiting for a worker
    assert "has no worker yet" in first, first
    time.sleep(1)  # inside the wait for the first block
    os.killpg(proc.pid, signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130
    err = err.decode()
    assert "Traceback" not in err and "Task exception" not in err and "AllExit" not in err, err
    assert err.strip().startswith("bpe-lab train: interrupted after") and out == b""
    nothing_written(tmp_path, "t.model", "t.vocab")


# -- --out -------------------------------------------------------------------------------------


def train(tmp_path, out, *options):
    (tmp_path / "a.txt").write_text(TEXT)
    return run_cli("train", "a.txt", "--vocab-size", 270, "--workers", "1", *options,
                   "--out", out, cwd=tmp_path)


def test_a_shell_script_named_like_the_model_is_not_replaced_without_force(tmp_path):
    script = "#!/bin/sh\necho 'my build script'\n"
    (tmp_path / "existing.model").write_text(script)
    refused(train(tmp_path, "existing.model"), "--out existing.model exists",
            "not a minbpe .model that bpe-lab wrote", "--force")
    assert (tmp_path / "existing.model").read_text() == script
    assert not (tmp_path / "existing.vocab").exists()
    done = train(tmp_path, "existing.model", "--force")
    assert done.returncode == 0, done.stderr
    assert bpe_core.load(tmp_path / "existing.model").vocab_size == 270


def test_a_text_file_given_to_format_hf_is_not_replaced_without_force(tmp_path):
    (tmp_path / "notes.json").write_text("my notes, not a tokenizer\n")
    refused(train(tmp_path, "notes.json", "--format", "hf"), "notes.json",
            "not a tokenizer.json that bpe-lab wrote", "--force")
    assert (tmp_path / "notes.json").read_text() == "my notes, not a tokenizer\n"


def test_a_tokenizer_json_that_another_tool_wrote_is_not_replaced(tmp_path):
    """The same tokenizer, written by Hugging Face tokenizers (its own layout): not bpe-lab's."""
    from tokenizers import Tokenizer as HFTokenizer

    tok = RegexTokenizer()
    tok.train(TEXT, 270)
    (tmp_path / "hf.json").write_text(HFTokenizer.from_str(to_hf_json(tok)).to_str(pretty=True))
    refused(train(tmp_path, "hf.json", "--format", "hf"), "hf.json", "--force")


def test_a_file_beside_the_model_that_bpe_lab_did_not_write_is_kept(tmp_path):
    (tmp_path / "tok.vocab").write_text("my vocabulary notes\n")
    refused(train(tmp_path, "tok.model"), "would replace", "tok.vocab", "--force")
    assert (tmp_path / "tok.vocab").read_text() == "my vocabulary notes\n"


@pytest.mark.parametrize(("fmt", "out"), [("minbpe", "t.model"), ("hf", "t.json"),
                                          ("tiktoken", "t.tiktoken"), ("gpt2", "g")])
def test_bpe_labs_own_earlier_output_is_replaced(tmp_path, fmt, out):
    for options in ([], ["--history"], []):  # with and without a sidecar beside it
        done = train(tmp_path, out, "--format", fmt, *options)
        assert done.returncode == 0, done.stderr


def test_a_gpt2_folder_whose_files_bpe_lab_did_not_write_is_refused(tmp_path):
    (tmp_path / "g").mkdir()
    (tmp_path / "g" / "vocab.json").write_text(json.dumps({"a": 0}))
    (tmp_path / "g" / "merges.txt").write_text("#version: 0.2\n")
    refused(train(tmp_path, "g", "--format", "gpt2"), "vocab.json", "did not write", "--force")
    assert json.loads((tmp_path / "g" / "vocab.json").read_text()) == {"a": 0}
    assert train(tmp_path, "g", "--format", "gpt2", "--force").returncode == 0


def test_encode_replaces_its_own_ids_only(tmp_path):
    assert train(tmp_path, "t.model").returncode == 0
    (tmp_path / "ids.npy").write_text("not ids\n")
    refused(run_cli("encode", "t.model", "a.txt", "--workers", "1", "--out", "ids.npy",
                    cwd=tmp_path), "ids.npy", "not an .npy file of token ids", "--force")
    assert (tmp_path / "ids.npy").read_text() == "not ids\n"
    for options in (["--force"], []):  # then its own file is replaced without --force
        done = run_cli("encode", "t.model", "a.txt", "--workers", "1", *options,
                       "--out", "ids.npy", cwd=tmp_path)
        assert done.returncode == 0, done.stderr
    assert np.load(tmp_path / "ids.npy").tolist() == bpe_core.load(tmp_path / "t.model").encode(TEXT)
