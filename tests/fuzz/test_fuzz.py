"""The fuzz suite, run briefly: every target of tests/fuzz/targets.py under atheris for a fixed
budget (at most 2,000 inputs or 6 s of fuzzing each), from the
project's own files and issue 43's hostile shapes as seeds (``run.py --hostile``: a backtracking
pattern, normalizer or Split, 4,000 overlapping added tokens), which the budget of untrusted work
must stop before the per-input timeout. A crash, a slow input (2 s of a core: ``per_input_timeout``) or a
blow-up in memory (2 GB of address space) fails the test with the input's traceback.
docs/FUZZING.md has the long run.

Every input a fuzzer found that crashed once is kept in tests/fuzz/crashes/ (``TARGET--what``)
and replayed here in-process: each must now get a clear refusal or a right answer.
"""

from __future__ import annotations

import math
import os
import resource
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))
import targets  # noqa: E402

RUNS = 2_000
SECONDS = 6  # sixteen targets: CI's whole run stays within its time (docs/TESTING.md)
TIMEOUT = 2  # seconds of a core per input (run.py's): a slower input is a crash
MEMORY = 2 * 1024**3  # bytes of address space for a fuzzing child


def per_input_timeout() -> int:
    """libFuzzer's -timeout, in wall seconds: TIMEOUT on a machine no busier than its cores,
    TIMEOUT times the load average per core on a busier one. At a load of 20 on 2 cores a
    process gets a tenth of a core: the oniguruma target's seed (0.3 s of CPU) took 4 s of wall
    time there, and a 2 s wall-clock timeout failed a run that found nothing slow."""
    per_core = os.getloadavg()[0] / (os.cpu_count() or 1)
    return max(TIMEOUT, math.ceil(TIMEOUT * per_core))


def cap_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY, MEMORY))


@pytest.mark.parametrize("name", list(targets.TARGETS))
def test_a_short_fuzz_run_finds_no_crash(name, tmp_path):
    # libFuzzer's own -rss_limit_mb reads getrusage's peak, which Linux carries across exec: a
    # child of a pytest process that has grown (the whole suite before this) starts "over" the
    # limit. The child's address space is capped instead: a blow-up is a MemoryError, a crash.
    flags = [f"-runs={RUNS}", f"-max_total_time={SECONDS}", "-rss_limit_mb=0",
             f"-timeout={per_input_timeout()}",
             f"-artifact_prefix={tmp_path}/", f"-corpus={tmp_path / 'corpus'}"]
    done = subprocess.run([sys.executable, str(HERE / "run.py"), name, "--hostile", *flags],
                          cwd=tmp_path,
                          capture_output=True, text=True, timeout=240,
                          env={**os.environ, "PYTHONHASHSEED": "0"}, preexec_fn=cap_memory)
    log = done.stdout + done.stderr
    assert done.returncode == 0, log[-6000:]
    assert "Done " in log and "INITED" in log  # it did run: seeds read, inputs tried
    assert not list(tmp_path.glob("crash-*")) and not list(tmp_path.glob("oom-*"))


CRASHES = sorted(p for p in (HERE / "crashes").iterdir() if "--" in p.name)


@pytest.mark.parametrize("path", CRASHES, ids=[p.name for p in CRASHES])
def test_an_input_that_once_crashed_now_gets_an_answer(path):
    target = targets.TARGETS[path.name.split("--")[0]]
    target(path.read_bytes())  # raises on a crash; a refusal is a ValueError the target takes
