"""The sidebar's three families of BPE trained on the app's worst text, at its largest vocabulary.

    python benchmarks/family_training.py                 # 200,000 and 50,000 characters, 8,192
    python benchmarks/family_training.py --chars 50000 --vocab 4096
    python benchmarks/family_training.py --chars 20000000 --families sentencepiece --texts random

What ``ui.kit.families.train`` costs for each family (byte-level with the GPT-4 split,
SentencePiece with byte fallback, word BPE as subword-nmt) on two texts: random words (30,000
distinct words of 1 to 9 letters, some of them accented or CJK, in lines of 300 characters:
nothing repeats much, the worst case up to 200,000 characters) and Python's help topics
(``pydoc_data.topics``: prose with code, repeated past its 500,000 characters); ``--texts
distinct`` draws every word afresh (few repeat: the worst case for a longer text). Each training runs in a fresh child process, in-process there (no budget), as the
app's training worker runs it: the child's own CPU seconds (user and system), its wall seconds,
and its peak memory (VmHWM, resident, and VmPeak, address space: what the worker's ``RLIMIT_AS``
bounds), Python and bpe_core's import included (the first row says how much that is). The
training is given the whole text (``train`` would cut it at ``train_limit(family)``: past it,
word BPE is given it by ``learn_merges``, SentencePiece by ``train_sentencepiece``, with the
app's options). The load average is printed beside each, as the
2-core machine is shared.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def random_words(chars: int, seed: int = 0) -> str:
    rng = random.Random(seed)
    letters = "abcdefghijklmnopqrstuvwxyzéüß漢字"
    words = ["".join(rng.choice(letters) for _ in range(rng.randint(1, 9))) for _ in range(30_000)]
    text = " ".join(rng.choice(words) for _ in range(chars // 4))
    return "\n".join(text[i:i + 300] for i in range(0, len(text), 300))[:chars]


def distinct_words(chars: int, seed: int = 0) -> str:
    """Words of 1 to 9 letters drawn afresh each time (few repeat): past 200,000 characters,
    random words repeat their 30,000 and cost little more; these do not."""
    rng = random.Random(seed)
    letters = "abcdefghijklmnopqrstuvwxyzéüß漢字"
    text = " ".join("".join(rng.choices(letters, k=rng.randint(1, 9)))
                    for _ in range(chars // 5 + 1))
    return "\n".join(text[i:i + 300] for i in range(0, len(text), 300))[:chars]


def prose(chars: int) -> str:
    import pydoc_data.topics

    topics = pydoc_data.topics.topics
    text = "\n\n".join(topics[k] for k in sorted(topics))
    return (text * (chars // len(text) + 1))[:chars]


TEXTS = {"random": ("random words", random_words), "prose": ("pydoc topics", prose),
         "distinct": ("distinct words", distinct_words)}


def _status(field: str) -> int:
    with open("/proc/self/status") as f:
        line = next(x for x in f if x.startswith(field + ":"))
    return int(line.split()[1]) * 1024


def child(family: str, kind: str, chars: int, vocab: int) -> None:
    """In the child: train, then print what it cost as JSON."""
    from ui.kit import families

    text = TEXTS[kind][1](chars)
    start = time.perf_counter()
    cpu = time.process_time()
    what = ""
    try:
        if family == families.WORD_BPE and chars > families.MAX_WORD_TRAIN_CHARS:
            from bpe_core.word_bpe import learn_merges

            learn_merges(text, vocab, total_symbols=True, min_frequency=families.WORD_MIN_FREQUENCY)
        elif family == families.SENTENCEPIECE and chars > families.MAX_TRAIN_CHARS:
            from bpe_core.sentencepiece import train_sentencepiece  # the library's bound

            train_sentencepiece(text, vocab, **families.SENTENCEPIECE_OPTIONS)
        elif family == "import only":
            pass
        else:
            families.train(text, families.family_settings(family, vocab))
    except ValueError as e:
        what = f" (refused: {str(e)[:60]})"
    print(json.dumps({"cpu": time.process_time() - cpu, "wall": time.perf_counter() - start,
                      "hwm": _status("VmHWM"), "peak": _status("VmPeak"), "what": what,
                      "chars": len(text)}))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--chars", type=int, nargs="+", default=[200_000, 50_000])
    parser.add_argument("--vocab", type=int, default=8_192)
    parser.add_argument("--families", nargs="+", default=["byte-level", "sentencepiece", "word"])
    parser.add_argument("--texts", nargs="+", default=["random", "prose"], choices=list(TEXTS))
    parser.add_argument("--child", nargs=4, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        family, kind, chars, vocab = args.child
        child(family, kind, int(chars), int(vocab))
        return
    print("| text | characters | family | CPU s | wall s | peak resident MB | peak address"
          " space MB | load |\n|---|---|---|---|---|---|---|---|")
    runs = [("import only", "random", 1_000)] + [
        (family, kind, chars) for chars in args.chars for kind in args.texts
        for family in args.families]
    for family, kind, chars in runs:
        load = open("/proc/loadavg").read().split()[0]
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        out = subprocess.run([sys.executable, __file__, "--child", family, kind, str(chars),
                              str(args.vocab)], capture_output=True, text=True, cwd=ROOT,
                             env={**os.environ, "PYTHONPATH": str(ROOT)})
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        if out.returncode:
            print(f"| {TEXTS[kind][0]} | {chars:,} | {family} failed: {out.stderr[-200:]!r} |")
            continue
        got = json.loads(out.stdout.strip().splitlines()[-1])
        whole = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
        print(f"| {TEXTS[kind][0]} | {got['chars']:,} | {family}{got['what']} |"
              f" {got['cpu']:.1f} (process {whole:.1f}) | {got['wall']:.1f} |"
              f" {got['hwm'] / 2**20:,.0f} | {got['peak'] / 2**20:,.0f} | {load} |", flush=True)


if __name__ == "__main__":
    main()
