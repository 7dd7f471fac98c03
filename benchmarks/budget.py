"""What the budget of untrusted work costs (bpe_core/limits/budget.py): starting a worker process,
and encoding with a custom split pattern in-process (no budget) against in a worker (a budget).

    python benchmarks/budget.py              # 5 KB and 200 KB, 20 calls each
    python benchmarks/budget.py --calls 50

The text is the app's first sample, repeated to the size; the pattern is a custom one (a copy of
GPT-2's with its possessive quantifiers made greedy, so it is not a built-in and goes to a
worker). A tokenizer trained to 512 on the text encodes it: the same ids either way. Times are
wall clock, the median of the calls; the load average is printed beside them (the machine may be
shared).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # `python benchmarks/budget.py`: this checkout's library
    sys.path.insert(0, str(ROOT))

from bpe_core import GPT2_SPLIT_PATTERN, RegexTokenizer  # noqa: E402
from bpe_core.limits import (  # noqa: E402
    clear_untrusted_budget,
    set_untrusted_budget,
    shutdown_workers,
)

CUSTOM = GPT2_SPLIT_PATTERN.replace("++", "+")  # GPT-2's, written another way: not built in


def sample_text(size: int) -> str:
    from ui.kit.samples import load_samples

    base = next(iter(load_samples().values()))
    return (base * (size // max(len(base), 1) + 1))[:size]


def timed(call, n: int) -> float:
    times = []
    for _ in range(n):
        start = time.perf_counter()
        call()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python benchmarks/budget.py")
    parser.add_argument("--calls", type=int, default=20)
    args = parser.parse_args(argv)
    assert CUSTOM != GPT2_SPLIT_PATTERN
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    set_untrusted_budget(seconds=60)
    starts = []
    for _ in range(5):
        shutdown_workers()
        start = time.perf_counter()
        RegexTokenizer(CUSTOM).split("a")  # a new worker: start, import, first call
        starts.append(time.perf_counter() - start)
    print(f"starting a worker (and its first call): median {statistics.median(starts) * 1000:.0f} ms"
          f" of 5")
    for size in (5_000, 200_000):
        text = sample_text(size)
        clear_untrusted_budget()
        tok = RegexTokenizer(CUSTOM)
        tok.train(text, 512)
        here = timed(lambda tok=tok, text=text: tok.encode(text), args.calls)
        ids = tok.encode(text)
        set_untrusted_budget(seconds=60)
        tok.encode(text)  # a warm worker
        there = timed(lambda tok=tok, text=text: tok.encode(text), args.calls)
        assert tok.encode(text) == ids
        print(f"encode {size:,} characters: in-process {here * 1000:.1f} ms, in a worker"
              f" {there * 1000:.1f} ms (+{(there - here) * 1000:.1f} ms), median of {args.calls}")
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
