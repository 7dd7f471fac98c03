"""Every page's first visit at the largest input the app accepts: server time and session memory.

    python benchmarks/limits.py                 # the default kinds, at the app's own limits
    python benchmarks/limits.py --markdown      # the table for docs/BENCHMARKS.md

The worst allowed input is random text where nothing repeats (seeded, so every run is the same),
as long as the sidebar accepts, trained at the largest vocabulary the sidebar allows. For each
tokenizer kind a fresh child process runs the app in Streamlit's AppTest (the same script runs a
browser session gets): a warm-up session first loads what every session shares (imports, the GPT
vocabularies), then one session pastes the worst text, trains, and visits every page once. A
page's figure is the server time of that run (wall clock, and CPU of the process). Two more such
sessions follow, under tracemalloc: what each keeps on the Python heap after its tour, once
garbage is collected, is the memory a session costs. Nothing is read from outside this checkout.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import random
import subprocess
import sys
import time
import tracemalloc
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # `python benchmarks/limits.py`: this checkout's app and library
    sys.path.insert(0, str(ROOT))

PAGES = [  # (label, page script): the order a curious user clicks through them
    ("Start here", "pages/overview.py"),
    ("Tokens", "pages/tokens.py"),
    ("Step through", "pages/steps.py"),
    ("Merge forest", "pages/forest.py"),
    ("Compare with GPT", "pages/compare.py"),
    ("Export & import", "pages/exchange.py"),
    ("Bytes & decoding", "pages/bytes.py"),
    ("Lesson", "pages/lesson.py"),
    ("Variants of BPE", "pages/variants.py"),
    ("Superwords and fair merges", "pages/beyond.py"),
    ("Check your BPE", "pages/check.py"),
    ("Language tax", "pages/languages.py"),
    ("Numbers", "pages/numbers.py"),
    ("Vocabulary health", "pages/health.py"),
    ("Report card", "pages/report.py"),
]
KINDS = ["Train: GPT-4 split", "Train: no split (Basic)", "Pretrained: GPT-4o (o200k_base)"]

# Letters of several scripts, digits, punctuation and a few emoji: random words of these repeat
# almost never, so training finds no pair much more frequent than another (its slowest case).
ALPHABET = (
    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
    "αβγδεζηθικλμνξοπρστυφχψωабвгдежзийклмнопрстуфхцчшщыэюя"
    "的一是不了人我在有他这中大来上国个到说们为子和你地出道也时年得就那要下以生会自着去之过家学"
    "0123456789.,;:!?-'\"()[]{}<>/@#$%&*+=_~|😀🎉🧩🌍"
)


def worst_text(chars: int, seed: int = 1234) -> str:
    """``chars`` characters of random words (1 to 12 characters) and random separators."""
    rng = random.Random(seed)
    parts, size = [], 0
    while size < chars:
        word = "".join(rng.choices(ALPHABET, k=rng.randint(1, 12)))
        sep = rng.choice([" ", " ", " ", " ", "\n", ", ", ". ", "  "])
        parts.append(word + sep)
        size += len(word) + len(sep)
    return "".join(parts)[:chars]


def measure(kind: str, chars: int | None) -> dict:
    """One kind, in this process: the warm-up session, then the worst session's page visits."""
    from streamlit.testing.v1 import AppTest

    from ui.kit.choices import MAX_TEXT_CHARS, MAX_VOCAB

    chars = MAX_TEXT_CHARS if chars is None else chars
    app = str(ROOT / "app.py")
    warm = AppTest.from_file(app, default_timeout=600)
    warm.run()
    for _, page in PAGES:  # loads every module and, on Compare, the three GPT vocabularies
        warm.switch_page(page).run()
    del warm
    out: dict = {"kind": kind, "errors": [], "session_mb": []}
    sessions = []  # kept alive, as a server keeps its sessions
    # The first session is timed. Then tracemalloc counts what each further session keeps on the
    # Python heap (it slows a run, so those are not timed); they find the caches that all sessions
    # share (the GPT encoders' chunks) already filled by the first.
    for seed in (1, 2, 3):
        gc.collect()
        if seed == 2:
            tracemalloc.start()
        before = tracemalloc.get_traced_memory()[0]
        at = AppTest.from_file(app, default_timeout=600)
        sessions.append(at)
        at.run()
        text = worst_text(chars, seed)
        at.text_area(key="text").set_value(text)
        at.selectbox(key="kind").set_value(kind)
        pages = {}
        wall, cpu = time.perf_counter(), time.process_time()
        if kind.startswith("Train"):
            at.number_input(key="vocab_size").set_value(MAX_VOCAB)
            at.button(key="train").click().run()
        else:
            at.run()
        train = (time.perf_counter() - wall, time.process_time() - cpu)
        for label, page in PAGES:
            wall, cpu = time.perf_counter(), time.process_time()
            at.switch_page(page).run()
            pages[label] = (time.perf_counter() - wall, time.process_time() - cpu)
            out["errors"] += [f"{label}: {e.value}" for e in at.exception]
        gc.collect()
        if seed > 1:
            out["session_mb"].append((tracemalloc.get_traced_memory()[0] - before) / 2**20)
        if seed == 1:  # the figures of the first visit of a server's first such session
            out.update(chars=len(text), pages=pages, train=train)
    return out


def child(kind: str, chars: int | None) -> dict:
    """``measure`` in a fresh Python, so that each kind's memory starts from the same place."""
    code = (f"import json, sys; sys.path.insert(0, {str(ROOT / 'benchmarks')!r});"
            f" import limits; print(json.dumps(limits.measure({kind!r}, {chars!r})))")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                          timeout=1_800)
    if done.returncode != 0:
        raise RuntimeError(f"{kind}: the child failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python benchmarks/limits.py", description=__doc__.split(
        "\n")[0])
    parser.add_argument("--chars", type=int, help="text length (default: the app's MAX_TEXT_CHARS)")
    parser.add_argument("--kind", action="append", choices=None,
                        help=f"a sidebar tokenizer choice (default: {KINDS})")
    parser.add_argument("--markdown", action="store_true", help="print a markdown table")
    args = parser.parse_args(argv)
    from ui.kit.choices import MAX_TEXT_CHARS, MAX_TRAIN_CHARS, MAX_VOCAB

    print(f"benchmarks/limits.py: Python {sys.version.split()[0]}, {os.cpu_count()} CPUs, load"
          f" {os.getloadavg()[0]:.2f}; limits: text {MAX_TEXT_CHARS:,} characters, training"
          f" {MAX_TRAIN_CHARS:,}, vocabulary {MAX_VOCAB:,}; random text, nothing repeats")
    print()
    results = [child(kind, args.chars) for kind in (args.kind or KINDS)]
    header = ["page (first visit)", *(r["kind"] for r in results)]
    rows = [["sidebar: paste, train", *(f"{r['train'][0]:.2f} s" for r in results)]]
    rows += [[label, *(f"{r['pages'][label][0]:.2f} s" for r in results)] for label, _ in PAGES]
    rows.append(["slowest page", *(f"{max(w for w, _ in r['pages'].values()):.2f} s"
                                   for r in results)])
    rows.append(["memory a session keeps", *(f"{max(r['session_mb']):.0f} MB" for r in results)])
    if args.markdown:
        print("| " + " | ".join(header) + " |")
        print("|" + "---|" * len(header))
        for row in rows:
            print("| " + " | ".join(row) + " |")
    else:
        widths = [max(len(str(row[i])) for row in [header, *rows]) for i in range(len(header))]
        for row in [header, *rows]:
            print("  ".join(str(c).ljust(w) for c, w in zip(row, widths)))
    print()
    print("Times: wall clock of one run each, the server's time inside Streamlit's script runner."
          " Memory: what a session keeps on the Python heap after its tour (tracemalloc, after"
          " garbage collection), the larger of two sessions that follow a first one.")
    for r in results:
        for error in r["errors"]:
            print(f"ERROR {r['kind']}: {error[:300]}")
    return 1 if any(r["errors"] for r in results) else 0


if __name__ == "__main__":
    sys.exit(main())
