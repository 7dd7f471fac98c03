"""Cold start: bpe_core's ``load_pretrained`` against tiktoken building its ``Encoding``, each in a
fresh process, side by side: ``python benchmarks/cold_start.py [--rounds 7] [--name o200k_base]``.

Each round starts two fresh Python processes, one after the other (which goes first alternates):

* bpe_core: ``import bpe_core`` (not timed), then ``load_pretrained(name)`` (timed): reading the
  compact form shipped in bpe_core/data, checking it against OpenAI's published SHA-256, and
  building the tokenizer.
* tiktoken: ``import tiktoken`` (not timed), then ``load_tiktoken_bpe(path, expected_hash)`` and
  ``tiktoken.Encoding(...)`` (timed), where ``path`` is OpenAI's ``.tiktoken`` file written (before
  the round) from what ships here: what ``tiktoken.get_encoding`` does once the file is in its
  cache.

Prints the median of each and their ratio, wall-clock and CPU time of the process (CPU time
suffers less from other jobs on a shared machine), with the load average. Nothing is fetched.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

OURS = """
import sys, time
sys.path.insert(0, {root!r})
import bpe_core
start, cpu = time.perf_counter(), time.process_time()
tok = bpe_core.load_pretrained({name!r})
print(time.perf_counter() - start, time.process_time() - cpu)
"""

THEIRS = """
import time
import tiktoken
from tiktoken.load import load_tiktoken_bpe
start, cpu = time.perf_counter(), time.process_time()
enc = tiktoken.Encoding({name!r}, pat_str={pattern!r},
                        mergeable_ranks=load_tiktoken_bpe({path!r}, {sha256!r}),
                        special_tokens={specials!r})
print(time.perf_counter() - start, time.process_time() - cpu)
"""


def time_in_fresh_process(code: str) -> tuple[float, float]:
    """(wall-clock seconds, CPU seconds of the process) of the timed part."""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                          env={**os.environ, "TIKTOKEN_CACHE_DIR": ""})
    wall, cpu = done.stdout.strip().splitlines()[-1].split()
    return float(wall), float(cpu)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--name", default="o200k_base", choices=["cl100k_base", "o200k_base"])
    args = parser.parse_args(argv)
    sys.path.insert(0, str(ROOT))
    from bpe_core.pretrained import PRESETS, published_files

    preset = PRESETS[args.name]
    (filename, sha256), = preset["files"].items()
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / filename
        path.write_bytes(published_files(args.name)[filename])
        ours_code = OURS.format(root=str(ROOT), name=args.name)
        theirs_code = THEIRS.format(name=args.name, pattern=preset["pattern"], path=str(path),
                                    sha256=sha256, specials=preset["special_tokens"])
        ours, theirs = [], []
        for i in range(args.rounds):
            order = [(ours, ours_code), (theirs, theirs_code)]
            for times, code in order if i % 2 == 0 else order[::-1]:
                times.append(time_in_fresh_process(code))
    load = open("/proc/loadavg").read().split()[:3] if os.path.exists("/proc/loadavg") else "?"
    print(f"{args.name}, {args.rounds} rounds of fresh processes, load average {' '.join(load)}")
    for what, column in (("wall-clock", 0), ("CPU time", 1)):
        a = statistics.median(t[column] for t in ours)
        b = statistics.median(t[column] for t in theirs)
        print(f"  {what}: bpe_core load_pretrained median {a:.3f} s, tiktoken Encoding median"
              f" {b:.3f} s, ratio {a / b:.2f}x")
        print(f"    all: bpe_core {', '.join(f'{t[column]:.2f}' for t in ours)};"
              f" tiktoken {', '.join(f'{t[column]:.2f}' for t in theirs)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
