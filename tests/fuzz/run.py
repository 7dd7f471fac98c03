"""Run one fuzz target under atheris (libFuzzer): ``python tests/fuzz/run.py TARGET [FLAGS]``.

The target's seeds (tests/fuzz/targets.py: the project's own files) are written into a fresh
folder that libFuzzer reads first and adds its finds to (``-corpus=DIR`` keeps it elsewhere).
FLAGS are libFuzzer's: ``-max_total_time=600``, ``-runs=N``, ``-rss_limit_mb=1024``,
``-timeout=N`` (seconds per input; 2 when not given, so an input that takes longer is a crash
and is saved). A crash stops the run, prints the traceback and writes the input as ``crash-*``
(``timeout-*`` for a slow one) in the current folder (``-artifact_prefix=DIR/``).
``--hostile`` adds the seeds of issue 43's hostile shapes (targets.hostile_seeds). See
docs/FUZZING.md.
"""

from __future__ import annotations

import os
import sys
import tempfile

import atheris

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))

with atheris.instrument_imports(include=["bpe_core", "bpe_lab"]):
    import bpe_core  # noqa: F401
    import bpe_lab.check  # noqa: F401
    import bpe_lab.cli  # noqa: F401

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import targets  # noqa: E402

from bpe_core.limits import set_untrusted_budget  # noqa: E402

TIMEOUT = 2  # seconds per input: a slower input is a crash (issue 43)
BUDGET = 0.5  # seconds of untrusted work per call (bpe_core.limits), well under TIMEOUT


def main() -> None:
    if len(sys.argv) < 2 or sys.argv[1] not in targets.TARGETS:
        sys.exit(f"usage: python tests/fuzz/run.py TARGET [libFuzzer flags]; TARGET is one of"
                 f" {', '.join(targets.TARGETS)}")
    name, flags = sys.argv[1], sys.argv[2:]
    hostile = "--hostile" in flags
    flags = [f for f in flags if f != "--hostile"]
    if not any(f.startswith("-timeout=") for f in flags):
        flags.append(f"-timeout={TIMEOUT}")
    corpus = next((f.split("=", 1)[1] for f in flags if f.startswith("-corpus=")), None)
    flags = [f for f in flags if not f.startswith("-corpus=")]
    if corpus is None:
        corpus = tempfile.mkdtemp(prefix=f"bpe-lab-fuzz-{name}-")
    count = targets.write_seeds(name, corpus, hostile)
    print(f"fuzz target {name}: {count} seeds in {corpus}", flush=True)
    # the app's policy, with budgets under the per-input timeout: a hostile input must be refused
    # by its budget (a ValueError the target takes), never run into the fuzzer's timeout
    set_untrusted_budget(seconds=BUDGET, read_seconds=BUDGET)
    target = targets.TARGETS[name]
    targets.tokenizers()  # trained once, before the clock starts
    if name == "cli":
        targets.cli_folder()
    for seed in targets.seeds(name):  # the caches a first input fills (a Split's Oniguruma
        target(seed)  # translation: 0.6 s, over 2 s at load 11) are filled before the clock
    atheris.Setup([sys.argv[0], *flags, corpus], target)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
