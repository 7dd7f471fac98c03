"""Word BPE: bpe_core's ``learn_merges`` and ``WordBPE`` beside subword-nmt's ``learn_bpe`` and
``apply_bpe`` in one run: ``python benchmarks/word_bpe.py [--chars 300000] [--merges 2000 8000]
[--rounds 3]``.

The text: the prose of Python's own documentation (pydoc_data, as tests/support.py reads it),
its first ``--chars`` characters. For each number of merges, both learn from the same text
(subword-nmt's output checked equal to ours, merge for merge), then both segment every line of
the same text with those merges (the segmentations checked equal): a first pass with fresh
objects, then a second pass, where both answer repeated words from their caches (subword-nmt's
unbounded, ours of 65,536 words). Each time is the median of ``--rounds`` (CPU time of this process, which suffers less
from other work on a shared machine than the wall clock, which is printed too), with the load
average before and after. Nothing is fetched.
"""

from __future__ import annotations

import argparse
import io
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from bpe_core.word_bpe import WordBPE, codes_text, learn_merges  # noqa: E402


def clock(fn, *args):
    wall, cpu = time.perf_counter(), time.process_time()
    out = fn(*args)
    return out, time.perf_counter() - wall, time.process_time() - cpu


def timed(samples: dict, walls: dict, key: str, fn, *args):
    """``fn(*args)``, its CPU and wall seconds added to ``samples[key]`` and ``walls[key]``."""
    out, wall, cpu = clock(fn, *args)
    samples[key].append(cpu)
    walls[key].append(wall)
    return out


def segment_all(bpe, lines: list[str]) -> list[str]:
    return [bpe.process_line(line) for line in lines]


def prose(chars: int) -> str:
    from support import CORPORA

    text = CORPORA["prose"]
    while len(text) < chars:
        text += "\n" + CORPORA["prose"]
    return text[:chars]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--chars", type=int, default=300_000)
    parser.add_argument("--merges", type=int, nargs="+", default=[2000, 8000])
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    import subword_nmt
    from subword_nmt.apply_bpe import BPE
    from subword_nmt.learn_bpe import learn_bpe

    text = prose(args.chars)
    lines = [line + "\n" for line in text.split("\n")]
    print(f"subword-nmt {getattr(subword_nmt, '__version__', '0.3.8')}; {len(text):,} characters,"
          f" {len(lines):,} lines; load average before: {open('/proc/loadavg').read().split()[:3]}")

    def theirs_learn(n):
        out = io.StringIO()
        learn_bpe(io.StringIO(text), out, n)
        return out.getvalue()

    rows = []
    for n in args.merges:
        samples = {k: [] for k in ("learn ours", "learn theirs", "apply ours",
                                   "apply theirs", "apply ours cached", "apply theirs cached")}
        walls = {k: [] for k in samples}
        for _ in range(args.rounds):
            ours = timed(samples, walls, "learn ours", lambda k: codes_text(learn_merges(text, k)), n)
            codes = timed(samples, walls, "learn theirs", theirs_learn, n)
            assert ours == codes, "the merges differ from subword-nmt's"
            bpe, word_bpe = BPE(io.StringIO(codes)), WordBPE.from_codes(codes)
            a = timed(samples, walls, "apply ours", segment_all, word_bpe, lines)
            b = timed(samples, walls, "apply theirs", segment_all, bpe, lines)
            timed(samples, walls, "apply ours cached", segment_all, word_bpe, lines)
            timed(samples, walls, "apply theirs cached", segment_all, bpe, lines)
            assert a == b, "the segmentations differ from subword-nmt's"
        med = {k: statistics.median(v) for k, v in samples.items()}
        wmed = {k: statistics.median(v) for k, v in walls.items()}
        merges = len(ours.splitlines()) - 1
        rows.append((f"learn {merges:,} merges", med["learn ours"], med["learn theirs"],
                     wmed["learn ours"], wmed["learn theirs"]))
        rows.append((f"apply {merges:,} merges, first pass", med["apply ours"], med["apply theirs"],
                     wmed["apply ours"], wmed["apply theirs"]))
        rows.append((f"apply {merges:,} merges, second pass (caches)", med["apply ours cached"],
                     med["apply theirs cached"], wmed["apply ours cached"],
                     wmed["apply theirs cached"]))
    print("| what | bpe_core (CPU s) | subword-nmt (CPU s) | ratio (ours / theirs) | wall s (ours, theirs) |")
    print("|---|---|---|---|---|")
    for what, ours_s, theirs_s, ow, tw in rows:
        print(f"| {what} | {ours_s:.2f} | {theirs_s:.2f} | {ours_s / theirs_s:.2f}× | {ow:.2f}, {tw:.2f} |")
    print(f"merges and segmentations equal to subword-nmt's in every round; load average after:"
          f" {open('/proc/loadavg').read().split()[:3]}; {os.cpu_count()} cores")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
