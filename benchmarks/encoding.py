"""Encoding with cl100k_base against tiktoken, CPU time of this process, side by side in one run.

    python benchmarks/encoding.py            # 3 rounds
    python benchmarks/encoding.py --rounds 5

The text: the repository's docs (docs/*.md, README.md) and benchmarks/bench.py's corpus builder
(Python's docs and standard-library source), about 3 MB. Each round encodes it with tiktoken,
then with a fresh ``load_pretrained("cl100k_base")`` twice: *cold* is the first encode after the
load (empty caches), *warm* the second; then tiktoken again (its figure is the mean of the two).
The ids must be identical. Ratios are throughput against tiktoken's (above 1: faster). CPU time
(``time.process_time``) rather than wall time, since the machine may be shared; the load average
is printed beside the figures.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
if str(REPO_ROOT) not in sys.path:
    sys.path.insert(0, str(REPO_ROOT))

from benchmarks.bench import build_corpus  # noqa: E402
from benchmarks.bench_kit import load_tiktoken  # noqa: E402
from bpe_core import load_pretrained  # noqa: E402


def text() -> str:
    docs = sorted((REPO_ROOT / "docs").glob("*.md")) + [REPO_ROOT / "README.md"]
    return "".join(p.read_text(encoding="utf-8") for p in docs) + build_corpus(3_000_000)


def load_average() -> str:
    try:
        return " ".join(Path("/proc/loadavg").read_text().split()[:3])
    except OSError:
        return "unknown"


def cpu(fn, *args):
    start = time.process_time()
    result = fn(*args)
    return time.process_time() - start, result


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args(argv)
    enc, why = load_tiktoken()
    if enc is None:
        raise SystemExit(why)
    corpus = text()
    size = len(corpus.encode("utf-8"))
    load_pretrained("cl100k_base")  # the shipped files are read once per process
    print(f"{size:,} bytes; load average at start: {load_average()}")
    print("| round | tiktoken MB/s | cold MB/s | cold × tiktoken | warm MB/s | warm × tiktoken |")
    print("|---|---|---|---|---|---|")
    for k in range(args.rounds):
        before, expected = cpu(enc.encode_ordinary, corpus)
        tok = load_pretrained("cl100k_base")
        cold, ids_cold = cpu(tok.encode_ordinary, corpus)
        warm, ids_warm = cpu(tok.encode_ordinary, corpus)
        after, _ = cpu(enc.encode_ordinary, corpus)
        if not ids_cold == ids_warm == expected:
            raise SystemExit("bpe_core's ids differ from tiktoken's")
        tt = (before + after) / 2
        print(f"| {k + 1} | {size / tt / 1e6:.1f} | {size / cold / 1e6:.1f} | {tt / cold:.2f} |"
              f" {size / warm / 1e6:.1f} | {tt / warm:.2f} |", flush=True)
    print(f"load average at end: {load_average()}")


if __name__ == "__main__":
    main()
