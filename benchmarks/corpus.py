"""Training on a corpus from disk: bpe_core against Hugging Face ``tokenizers`` and rustbpe.

    python benchmarks/corpus.py                      # 20 MB and 200 MB, both kinds of text
    python benchmarks/corpus.py --sizes 20           # a quick run
    python benchmarks/corpus.py --sizes 1000 --kinds web      # web-like 1 GB, every trainer
    python benchmarks/corpus.py --sizes 5000 --kinds web --trainers bpe_core-N   # 5 GB, on demand

It writes its own corpora (no download), once, into ``--data`` (default: the temporary folder):

- ``tiny``: TinyStories-like: short simple sentences over a few thousand words, paragraphs,
  ``<|endoftext|>`` between stories (few distinct pieces);
- ``web``: web-like: a long tail of distinct words, capitals, numbers, URLs, punctuation, code,
  Cyrillic, Greek, Arabic and CJK text, ``<|endoftext|>`` between pages (many distinct pieces).

Each trainer runs in its own subprocess on the same file, with the same vocabulary size and the
special token, one after the other; the table shows its wall time (the parent's clock around the
subprocess, start-up included), the CPU time of the subprocess and its workers (``os.wait4``:
on a shared machine, what the work costs), its peak memory over the process tree (the
trainer process and its live workers' resident sizes added up every 50 ms by a thread here,
the largest sum: ``bpe_lab.cli.progress.TreeMemory``, as ``bpe-lab train`` reports it), the
peaks ``resource.getrusage`` gives in the child (its own, and the largest worker's: their sum
is not the tree's peak), and the load average when the trainer ended. Trainers:

- ``bpe_core-1``: ``RegexTokenizer(GPT2_SPLIT_PATTERN).train_corpus(..., workers=1)``;
- ``bpe_core-N``: the same with every core;
- ``hf``: ``tokenizers``' ``BpeTrainer`` with the ``ByteLevel`` pre-tokenizer (GPT-2's split);
- ``rustbpe``: ``rustbpe.Tokenizer().train_from_iterator`` over the documents (its iterator
  gets the text between the special tokens; rustbpe has no special tokens, so it learns one
  merge more to reach the same vocabulary size), with GPT-2's split pattern.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
if str(REPO_ROOT) not in sys.path:  # `python benchmarks/corpus.py`: bpe_core from this checkout
    sys.path.insert(0, str(REPO_ROOT))


EOT = "<|endoftext|>"
MB = 1_000_000
# GPT-2's split as its paper's code wrote it (no possessive quantifiers), for rustbpe's engine
GPT2_CLASSIC = r"""'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"""
TRAINERS = ("bpe_core-1", "bpe_core-N", "hf", "rustbpe")

# -- corpora -------------------------------------------------------------------------------------

_ONSETS = ["b", "c", "d", "f", "g", "h", "j", "k", "l", "m", "n", "p", "r", "s", "t", "v", "w",
           "br", "cl", "dr", "fl", "gr", "pl", "sh", "st", "th", "tr", "ch", "sp", "wh", ""]
_VOWELS = ["a", "e", "i", "o", "u", "ai", "ea", "oo", "ou", "ie", "y"]
_CODAS = ["", "", "n", "t", "s", "r", "l", "m", "nd", "st", "ng", "ck", "rt", "x"]


def _words(rng: random.Random, n: int, syllables: tuple[int, int]) -> list[str]:
    """``n`` distinct pronounceable made-up words."""
    out: set[str] = set()
    while len(out) < n:
        k = rng.randint(*syllables)
        out.add("".join(rng.choice(_ONSETS) + rng.choice(_VOWELS) + rng.choice(_CODAS)
                        for _ in range(k)))
    return sorted(out)


def _tiny_documents(rng: random.Random):
    """Stories: a few thousand words in simple sentences, quotes and paragraphs."""
    words = _words(rng, 3000, (1, 2))
    names = [w.capitalize() for w in _words(rng, 60, (2, 2))]
    common = ["the", "a", "was", "and", "he", "she", "it", "to", "said", "very", "they", "with",
              "happy", "big", "little", "saw", "went", "day", "play", "friend", "mom", "ball"]
    pool = common * 40 + words
    while True:
        name = rng.choice(names)
        sentences = [f"Once upon a time, there was a little {rng.choice(words)} named {name}."]
        for _ in range(rng.randint(4, 14)):
            body = " ".join(rng.choices(pool, k=rng.randint(4, 11)))
            kind = rng.random()
            if kind < 0.15:
                sentences.append(f'{name} said, "{body.capitalize()}!"')
            elif kind < 0.25:
                sentences.append(f"{body.capitalize()}?\n")
            else:
                sentences.append(f"{body.capitalize()}.")
        yield " ".join(sentences).replace("\n ", "\n") + "\n"


def _web_documents(rng: random.Random):
    """Pages: a long tail of distinct words, numbers, URLs, code, several scripts."""
    head = _words(rng, 20_000, (1, 3))
    tail = _words(rng, 400_000, (2, 5))
    cyrillic = [chr(c) for c in range(0x430, 0x450)]
    greek = [chr(c) for c in range(0x3B1, 0x3CA)]
    arabic = [chr(c) for c in range(0x627, 0x64B)]
    punct = [".", ",", ";", ":", "!", "?", " -", " (", ")", " \"", "\"", "'s", " &", " /"]

    def word() -> str:
        r = rng.random()
        if r < 0.7:
            w = head[int(len(head) * rng.random() ** 2.5)]
        elif r < 0.9:
            w = rng.choice(tail)
        elif r < 0.94:
            return " " + str(rng.randint(0, 10 ** rng.randint(1, 7)))
        elif r < 0.97:
            w = rng.choice(tail).capitalize()
        else:
            w = w = rng.choice(head).upper()
        return " " + w

    def script_line() -> str:
        alphabet = rng.choice([cyrillic, greek, arabic])
        if rng.random() < 0.25:  # CJK: no spaces, thousands of characters
            return "".join(chr(rng.randint(0x4E00, 0x4E00 + 3000)) for _ in range(rng.randint(10, 40)))
        return " ".join("".join(rng.choices(alphabet, k=rng.randint(2, 9)))
                        for _ in range(rng.randint(5, 15)))

    def code_block() -> str:
        lines = []
        for _ in range(rng.randint(3, 10)):
            name = "_".join(rng.choices(head, k=rng.randint(1, 3)))
            indent = "    " * rng.randint(0, 3)
            lines.append(rng.choice([
                f"{indent}def {name}(x, y={rng.randint(0, 99)}):",
                f"{indent}{name} = {name}[{rng.randint(0, 9)}] + {rng.random():.4f}",
                f"{indent}if {name} >= 0x{rng.randint(0, 65535):04x}: return {{'{name}': []}}",
                f"{indent}# {' '.join(rng.choices(head, k=5))}",
            ]))
        return "\n".join(lines) + "\n"

    while True:
        parts = []
        for _ in range(rng.randint(2, 8)):
            r = rng.random()
            if r < 0.6:
                text = "".join(word() + (rng.choice(punct) if rng.random() < 0.12 else "")
                               for _ in range(rng.randint(20, 120)))
                parts.append(text.strip().capitalize() + ".\n")
            elif r < 0.75:
                parts.append(code_block())
            elif r < 0.9:
                parts.append(script_line() + "\n")
            else:
                parts.append(f"https://{rng.choice(head)}.{rng.choice(['com', 'org', 'io'])}/"
                             f"{rng.choice(tail)}?id={rng.randint(0, 10**6)}\n")
        yield "\n".join(parts)


def make_corpus(kind: str, megabytes: int, folder: Path) -> Path:
    """The corpus file (written once, then reused): documents joined by ``<|endoftext|>``."""
    path = folder / f"bpe-lab-{kind}-{megabytes}MB.txt"
    if path.exists() and path.stat().st_size >= megabytes * MB:
        return path
    folder.mkdir(parents=True, exist_ok=True)
    docs = (_tiny_documents if kind == "tiny" else _web_documents)(random.Random(f"{kind}-24"))
    part = path.with_suffix(".part")
    written = 0
    with open(part, "w", encoding="utf-8", newline="") as f:
        while written < megabytes * MB:
            batch = EOT.join(next(docs) for _ in range(500)) + EOT
            f.write(batch)
            written += len(batch.encode("utf-8"))
    os.replace(part, path)  # whole, or not there
    return path


def documents(path: Path):
    """The text between the special tokens, read 1 MB at a time (rustbpe's input)."""
    rest = ""
    with open(path, encoding="utf-8", newline="") as f:
        while block := f.read(1 << 20):
            *docs, rest = (rest + block).split(EOT)
            yield from docs
    if rest:
        yield rest


# -- one trainer, in a child process ----------------------------------------------------------------


def run_trainer(trainer: str, path: Path, vocab_size: int) -> dict:
    """Train and return timings; the peaks are read after training."""
    t0 = time.perf_counter()
    phases: dict[str, float] = {}
    if trainer.startswith("bpe_core"):
        from bpe_core import GPT2_SPLIT_PATTERN, RegexTokenizer

        workers = 1 if trainer == "bpe_core-1" else os.cpu_count()
        tok = RegexTokenizer(GPT2_SPLIT_PATTERN)
        read_end = [t0]

        def on_bytes(done, total):
            read_end[0] = time.perf_counter()

        counted = tok.train_corpus([str(path)], vocab_size, special_tokens=[EOT], workers=workers,
                                   on_bytes=on_bytes)
        phases = {"count": read_end[0] - t0, "merge": time.perf_counter() - read_end[0],
                  "distinct": counted.distinct}
        merges = len(tok.merges)
    elif trainer == "hf":
        from tokenizers import Tokenizer, models, pre_tokenizers, trainers

        tok = Tokenizer(models.BPE())
        tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
        trainer_ = trainers.BpeTrainer(
            vocab_size=vocab_size, special_tokens=[EOT], show_progress=False,
            initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        )
        tok.train([str(path)], trainer_)
        merges = tok.get_vocab_size() - 257
    elif trainer == "rustbpe":
        import rustbpe

        tok = rustbpe.Tokenizer()
        tok.train_from_iterator(documents(path), vocab_size - 1, pattern=GPT2_CLASSIC)
        merges = tok.vocab_size - 256
    else:
        raise SystemExit(f"unknown trainer {trainer!r}; choose from {', '.join(TRAINERS)}")
    wall = time.perf_counter() - t0
    return {
        "trainer": trainer, "seconds": wall, "merges": merges, **phases,
        "rss_main_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        "rss_worker_mb": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024,
    }


def measure(trainer: str, path: Path, vocab_size: int) -> dict:
    """Run one trainer in a fresh interpreter: its result, with the wall time seen from here and
    the CPU time it and its worker processes used (``os.wait4``). On a shared machine the CPU
    time says what the work costs; the wall time, what a user waits."""
    # Imported here, not at the top: a trainer's spawned workers import this file again, and
    # should hold only what the trainer needs (bpe_lab.cli and tqdm are 4 MB a process).
    from bpe_lab.cli.progress import TreeMemory

    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        t0 = time.perf_counter()
        proc = subprocess.Popen(
            [sys.executable, __file__, "--child", trainer, str(path), str(vocab_size)],
            stdout=out, stderr=err, text=True,
        )
        memory = TreeMemory(root=proc.pid).start()  # the child and its workers, sampled
        try:
            _, status, usage = os.wait4(proc.pid, 0)
        finally:
            memory.stop()
        wall = time.perf_counter() - t0
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        if proc.returncode != 0:
            return {"trainer": trainer, "error": (err.read().strip().splitlines() or ["?"])[-1]}
        result = json.loads(out.read().strip().splitlines()[-1])
    result["wall"] = wall
    result["cpu"] = usage.ru_utime + usage.ru_stime
    result["tree_mb"] = memory.peak / MB
    result["load"] = load_average()
    return result


def load_average() -> str:
    try:
        return " ".join(Path("/proc/loadavg").read_text().split()[:3])
    except OSError:
        return "unknown"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--child", nargs=3, metavar=("TRAINER", "CORPUS", "VOCAB"),
                        help=argparse.SUPPRESS)
    parser.add_argument("--sizes", type=int, nargs="+", default=[20, 200],
                        help="corpus sizes in MB: 1000 for web-like 1 GB, 5000 for 5 GB on demand (written once)")
    parser.add_argument("--kinds", nargs="+", default=["tiny", "web"], choices=["tiny", "web"])
    parser.add_argument("--vocab", type=int, nargs="+", default=[10_000])
    parser.add_argument("--trainers", nargs="+", default=list(TRAINERS), choices=TRAINERS)
    parser.add_argument("--data", type=Path, default=Path(tempfile.gettempdir()),
                        help="where the corpora are written (default: the temporary folder)")
    args = parser.parse_args(argv)
    if args.child:
        trainer, path, vocab = args.child
        print(json.dumps(run_trainer(trainer, Path(path), int(vocab))))
        return
    print(f"cores: {os.cpu_count()}, Python {sys.version.split()[0]}, load average at start:"
          f" {load_average()}")
    print("| corpus | vocab | trainer | wall s | × HF | CPU s | × HF | peak tree MB | peak RSS MB"
          " (main / largest worker) | counting s | merge loop s | distinct pieces | load after |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for kind in args.kinds:
        for size in args.sizes:
            path = make_corpus(kind, size, args.data)
            for vocab in args.vocab:
                rows = [measure(t, path, vocab) for t in args.trainers]
                hf = next((r for r in rows if r["trainer"] == "hf" and "wall" in r), None)
                for r in rows:
                    name = f"{kind} {size} MB"
                    if "error" in r:
                        print(f"| {name} | {vocab:,} | {r['trainer']} | failed: {r['error']} |")
                        continue
                    ratio = f"{r['wall'] / hf['wall']:.2f}" if hf else "–"
                    cpu_ratio = f"{r['cpu'] / hf['cpu']:.2f}" if hf else "–"
                    worker = f" / {r['rss_worker_mb']:.0f}" if r["rss_worker_mb"] > 1 else ""
                    phases = (f"{r['count']:.1f} | {r['merge']:.1f} | {r['distinct']:,}"
                              if "count" in r else "– | – | –")
                    print(f"| {name} | {vocab:,} | {r['trainer']} | {r['wall']:.1f} | {ratio} |"
                          f" {r['cpu']:.1f} | {cpu_ratio} | {r['tree_mb']:.0f} |"
                          f" {r['rss_main_mb']:.0f}{worker} | {phases} | {r['load']} |",
                          flush=True)
    print(f"load average at end: {load_average()}")


if __name__ == "__main__":
    main()
