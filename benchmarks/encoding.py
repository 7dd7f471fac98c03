"""Encoding with cl100k_base against tiktoken, CPU time of this process, side by side in one run.

    python benchmarks/encoding.py            # 3 rounds, then 3 fresh processes a side
    python benchmarks/encoding.py --rounds 5 --fresh 0 --name o200k_base
    python benchmarks/encoding.py --rounds 21 --fresh 0 --text parallel   # 33 languages

The text: the repository's docs (docs/*.md, README.md) and benchmarks/bench.py's corpus builder
(Python's docs and standard-library source), about 3 MB, nearly all ASCII; or the parallel
text of the Who pays pages (33 languages and scripts, 43 KB). Each round encodes it with tiktoken,
then with a fresh ``load_pretrained(name)`` twice: *cold* is the first encode after the load,
*warm* the second; then tiktoken again (its figure is the mean of the two). The ids must be
identical. Ratios are throughput against tiktoken's (above 1: faster). CPU time
(``time.process_time``) rather than wall time, since the machine may be shared; the load average
is printed beside the figures.

What cold holds, on each side: both encoders are built before the rounds (tiktoken's
``Encoding`` from the shipped ranks; bpe_core's files read and checked once per process), and
neither build is timed. bpe_core's cold encode starts from a fresh copy (``load_pretrained``,
not timed) with empty chunk and word caches and its bytes-to-id lookup not yet built (built
during the encode); tiktoken keeps no cache, so its every encode is a cold one. The first round
also compiles bpe_core's ASCII split pattern (once per process, about a millisecond).

*First use* (``--fresh N``): N fresh Python processes a side, each importing its library (not
timed), then timing the build (``load_pretrained``; tiktoken's ``Encoding`` from the ranks, as
``tiktoken.get_encoding`` does with its cache filled) and the first encode: what a script that
encodes one text pays. The text is read from a temporary file, not timed.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
if str(REPO_ROOT) not in sys.path:
    sys.path.insert(0, str(REPO_ROOT))

from benchmarks.bench import build_corpus  # noqa: E402
from benchmarks.bench_kit import load_tiktoken  # noqa: E402
from bpe_core import load_pretrained  # noqa: E402


def text(which: str = "corpus") -> str:
    if which == "parallel":  # the Who pays pages' parallel text: 33 languages, 43 KB
        from bpe_lab.who_pays import load_parallel

        return "\n".join(language.text for language in load_parallel())
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


FIRST_USE = """
import sys, time
sys.path.insert(0, {root!r})
import bpe_core, tiktoken
from tiktoken.load import load_tiktoken_bpe
text = open({path!r}, encoding="utf-8").read()
start = time.process_time()
if {side!r} == "tiktoken":
    enc = tiktoken.Encoding({name!r}, pat_str={pattern!r}, special_tokens={specials!r},
                          mergeable_ranks=load_tiktoken_bpe({ranks!r}, {sha256!r}))
else:
    enc = bpe_core.load_pretrained({name!r})
built = time.process_time()
ids = enc.encode_ordinary(text)
done = time.process_time()
print(built - start, done - built, len(ids))
"""


def first_use(corpus: str, name: str, rounds: int) -> None:
    """Build + first encode in fresh processes, alternating which side goes first. tiktoken
    reads OpenAI's ``.tiktoken`` file (written from what ships here before the rounds) with
    its own ``load_tiktoken_bpe``, hash checked, as ``get_encoding`` does from its cache."""
    from bpe_core.pretrained import PRESETS, published_files

    (filename, sha256), = PRESETS[name]["files"].items()
    times: dict[str, list[tuple[float, float]]] = {"tiktoken": [], "bpe_core": []}
    counts = set()
    with tempfile.TemporaryDirectory() as folder:
        path, ranks = Path(folder) / "text.txt", Path(folder) / filename
        path.write_text(corpus, encoding="utf-8")
        ranks.write_bytes(published_files(name)[filename])
        for k in range(rounds):
            for side in ("tiktoken", "bpe_core") if k % 2 == 0 else ("bpe_core", "tiktoken"):
                code = FIRST_USE.format(root=str(REPO_ROOT), path=str(path), side=side, name=name,
                                        pattern=PRESETS[name]["pattern"], ranks=str(ranks),
                                        sha256=sha256, specials=PRESETS[name]["special_tokens"])
                out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                                     check=True).stdout.split()
                times[side].append((float(out[0]), float(out[1])))
                counts.add(int(out[2]))
    if len(counts) != 1:
        raise SystemExit("bpe_core's first encode gave another number of ids than tiktoken's")
    print(f"\nFirst use in a fresh process (median of {rounds} a side, CPU seconds):\n")
    print("| side | build | first encode | build + first encode |")
    print("|---|---|---|---|")
    total = {}
    for side, pairs in times.items():
        build = statistics.median(b for b, _ in pairs)
        encode = statistics.median(e for _, e in pairs)
        total[side] = statistics.median(b + e for b, e in pairs)
        print(f"| {side} | {build:.3f} | {encode:.3f} | {total[side]:.3f} |")
    ratio = total["tiktoken"] / total["bpe_core"]
    print(f"\nbuild + first encode, throughput × tiktoken: {ratio:.2f}")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--fresh", type=int, default=3, help="fresh processes a side (0: none)")
    parser.add_argument("--name", default="cl100k_base", choices=["cl100k_base", "o200k_base"])
    parser.add_argument("--text", default="corpus", choices=["corpus", "parallel"],
                        help="parallel: 33 languages (43 KB; give more rounds)")
    args = parser.parse_args(argv)
    enc, why = load_tiktoken(name=args.name)
    if enc is None:
        raise SystemExit(why)
    corpus = text(args.text)
    size = len(corpus.encode("utf-8"))
    load_pretrained(args.name)  # the shipped files are read once per process
    print(f"{args.name}, {size:,} bytes; load average at start: {load_average()}")
    print("| round | tiktoken MB/s | cold MB/s | cold × tiktoken | warm MB/s | warm × tiktoken |")
    print("|---|---|---|---|---|---|")
    for k in range(args.rounds):
        before, expected = cpu(enc.encode_ordinary, corpus)
        tok = load_pretrained(args.name)
        cold, ids_cold = cpu(tok.encode_ordinary, corpus)
        warm, ids_warm = cpu(tok.encode_ordinary, corpus)
        after, _ = cpu(enc.encode_ordinary, corpus)
        if not ids_cold == ids_warm == expected:
            raise SystemExit("bpe_core's ids differ from tiktoken's")
        tt = (before + after) / 2
        print(f"| {k + 1} | {size / tt / 1e6:.1f} | {size / cold / 1e6:.1f} | {tt / cold:.2f} |"
              f" {size / warm / 1e6:.1f} | {tt / warm:.2f} |", flush=True)
    if args.fresh:
        first_use(corpus, args.name, args.fresh)
    print(f"load average at end: {load_average()}")


if __name__ == "__main__":
    main()
