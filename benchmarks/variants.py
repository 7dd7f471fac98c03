"""SuperBPE, BoundlessBPE and parity-aware BPE against classical BPE in this project: wall time, peak memory,
tokens per byte on held-out text, and the Gini coefficient over languages.

    python benchmarks/variants.py                     # everything, the defaults below
    python benchmarks/variants.py --part superbpe --vocab 2048 8192
    python benchmarks/variants.py --part superbpe --vocab 2048 8192 --variants classical boundless
    python benchmarks/variants.py --part parity

SuperBPE (bpe_core/superbpe.py; the transition at ``--share`` of the merges, 0.9 by default, as
the paper's best setting, t = 180k of 200k; ``--stage-two``: the authors' rules by default, or
"open") and classical BPE (``RegexTokenizer().train``, GPT-4's
split) train on two English texts, and are measured on held-out text; so does two-phase
BoundlessBPE (bpe_core/boundless.py, GPT-4's split; it finds its transition itself;
``--stopping``: the authors' rule when phase one runs out, or "fill"), measured
with its encoder (ordinary BPE over word runs, what its files hold) and with the paper's
(``paper_encode``: supermerges only over whole pretokens):

- ``english``: the Python documentation's help topics (pydoc_data, shipped with Python, real
  English prose with code), the first 90% of the topics train, the last 10% are measured;
- ``tiny``: benchmarks/corpus.py's TinyStories-like corpus (common English words among made-up
  ones), ``--tiny-mb`` MB, its documents joined by blank lines instead of ``<|endoftext|>``;
  the last 10% of the documents are measured.

Parity-aware BPE (bpe_core/parity.py, ``parallel=True``), its hybrid (the first half of the
merges classical) and its moving window (``--window``, 100 by default, alpha 2: the authors'
defaults), against classical BPE on every language's lines joined, on the 33 parallel texts of
the Language tax (bpe_lab.who_pays.parity's split: two thirds train, one third is measured; with
``--folds N`` every fold of the lines is held out in turn, and the mean and range are printed):
the Gini coefficient of the languages' held-out token counts and all their tokens (global
compression as the authors' evaluation suite measures it: a ratio of totals, so the change in
all tokens is the change in compression).

A row whose first stage (SuperBPE) or phase (BoundlessBPE) ran out of pairs before the point
asked says so at its end, between ** **: its number is not the algorithm's at that size.

Every training runs in a fresh interpreter, one after the other: its wall time (training only)
and its peak RSS (the whole process, the text included) are its own. The load average is printed
beside the table: on a shared machine the times move with it.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
if str(REPO_ROOT) not in sys.path:
    sys.path.insert(0, str(REPO_ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

HELD_OUT = 0.1


# -- the texts ------------------------------------------------------------------------------------


def english_texts() -> tuple[str, str]:
    from pydoc_data.topics import topics

    docs = [v for _, v in sorted(topics.items())]
    cut = int(len(docs) * (1 - HELD_OUT))
    return "\n\n".join(docs[:cut]), "\n\n".join(docs[cut:])


def tiny_texts(megabytes: int, data: Path) -> tuple[str, str]:
    from corpus import EOT, make_corpus

    docs = [d for d in make_corpus("tiny", megabytes, data).read_text("utf-8").split(EOT) if d]
    cut = int(len(docs) * (1 - HELD_OUT))
    return "\n\n".join(docs[:cut]), "\n\n".join(docs[cut:])


def texts_of(corpus: str, tiny_mb: int, data: Path) -> tuple[str, str]:
    return english_texts() if corpus == "english" else tiny_texts(tiny_mb, data)


# -- one training, in a child process ---------------------------------------------------------


def child(job: dict) -> dict:
    """Train what ``job`` says; the time is training's alone, the peak the whole process's."""
    from bpe_core import RegexTokenizer
    from bpe_core.boundless import paper_encode, train_boundless
    from bpe_core.superbpe import is_superword, train_superbpe

    if job["part"] == "superbpe":
        train, held = texts_of(job["corpus"], job["tiny_mb"], Path(job["data"]))
        vocab, merges = job["vocab"], job["vocab"] - 256
        t0 = time.perf_counter()
        if job["variant"] == "classical":
            tok = RegexTokenizer()
            tok.train(train, vocab)
        elif job["variant"] == "boundless":
            tok = train_boundless(train, vocab, stopping=job["stopping"])
        else:
            tok = train_superbpe(train, vocab, round(merges * job["share"]),
                                 stage_two=job["stage_two"])
        seconds = time.perf_counter() - t0
        ids = tok.encode_ordinary(held)
        superwords = (len(tok.superword_ids()) if job["variant"] == "boundless" else
                      sum(is_superword(tok.vocab[i]) for i in tok.merges.values()))
        result = {"tokens": len(ids), "bytes": len(held.encode("utf-8")),
                  "merges": tok.num_merges, "train_bytes": len(train.encode("utf-8")),
                  "superwords": superwords, "transition": getattr(tok, "transition", None)}
        if job["variant"] == "boundless":
            result["paper_tokens"] = len(paper_encode(tok, held))
            result["ran_out"] = (f"phase one ran out at {tok.phase_one_merges:,} of"
                                 f" {tok.asked_merges:,} merges ({tok.stopping} rule)"
                                 if tok.ran_out_early else "")
        elif job["variant"] == "superbpe":
            two = [tok.vocab[i] for i in tok.merges.values() if tok.is_stage_two(i)]
            result["ran_out"] = (f"stage one ran out at {tok.transition / merges:.0%} of the"
                                 f" merges (asked {job['share']:.0%})" if tok.ran_out_early else "")
            result["stage_two"] = {  # the authors' rules: each 0 under stage_two="authors"
                "line_break_inside": sum(b"\n" in t[:-1] for t in two),
                "colon_space": sum(b": " in t for t in two),
                "over_4_words": sum(len([w for w in t.split(b" ") if w]) > 4 for t in two),
                "longest": max(map(len, two), default=0)}
    else:
        from bpe_core.parity import train_parity
        from bpe_lab.who_pays.costs import measure_text
        from bpe_lab.who_pays.languages import load_parallel
        from bpe_lab.who_pays.parity import fold_lines, split_lines

        languages = load_parallel()
        n_train, n = split_lines(languages)
        # one cut (the last third held out), or every fold of fold_lines in turn
        cuts = [range(n_train, n)] if not job.get("folds") else fold_lines(languages, job["folds"])
        vocab = job["vocab"]
        seconds, folds = 0.0, []
        for held in cuts:
            texts = {lang.code: "\n".join(x for k, x in enumerate(lang.lines[:n]) if k not in held)
                     for lang in languages}
            t0 = time.perf_counter()
            if job["variant"] == "classical":
                tok = RegexTokenizer()
                tok.train("\n".join(texts.values()), vocab)
            else:
                hybrid = (vocab - 256) // 2 if job["variant"] == "hybrid" else 0
                window = job["window"] if job["variant"] == "window" else 0
                tok = train_parity(texts, vocab, parallel=True, global_merges=hybrid,
                                   window=window)
            seconds += time.perf_counter() - t0
            folds.append({lang.code: measure_text(tok, "\n".join(lang.lines[k] for k in held)).tokens
                          for lang in languages})
        seconds /= len(cuts)
        result = {"per_language": folds[0], "folds": folds, "merges": tok.num_merges}
    result["seconds"] = seconds
    result["rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return result


def measure(job: dict) -> dict:
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        proc = subprocess.run([sys.executable, __file__, "--child", json.dumps(job)],
                              stdout=out, stderr=err, text=True)
        out.seek(0)
        err.seek(0)
        if proc.returncode != 0:
            return {"error": (err.read().strip().splitlines() or ["?"])[-1]}
        return json.loads(out.read().strip().splitlines()[-1])


def load_average() -> str:
    try:
        return " ".join(Path("/proc/loadavg").read_text().split()[:3])
    except OSError:
        return "unknown"


# -- the tables ---------------------------------------------------------------------------------


def superbpe_part(args) -> None:
    print("\nSuperBPE and BoundlessBPE against classical BPE (GPT-4 split), tokens per byte on"
          " held-out text (boundless: 'transition' is the one it found; 'paper' its tok/byte"
          " with the paper's encoder)")
    print(f"{'corpus':<8} {'vocab':>6} {'variant':<10} {'merges':>6} {'superw':>6} {'trans':>6}"
          f" {'train s':>8} {'peak MB':>8} {'tok/byte':>9} {'gain':>7} {'paper':>8}  load")
    for corpus in args.corpora:
        for vocab in args.vocab:
            base = None
            for variant in args.variants:
                job = {"part": "superbpe", "corpus": corpus, "vocab": vocab, "variant": variant,
                       "share": args.share, "tiny_mb": args.tiny_mb, "data": str(args.data),
                       "stage_two": args.stage_two, "stopping": args.stopping}
                r = measure(job)
                if "error" in r:
                    print(f"{corpus:<8} {vocab:>6} {variant:<10} error: {r['error']}")
                    continue
                tpb = r["tokens"] / r["bytes"]
                gain = "" if base is None else f"{1 - r['tokens'] / base:>7.1%}"
                if variant == "classical":
                    base = r["tokens"]
                paper = (f"{r['paper_tokens'] / r['bytes']:>8.4f}" if "paper_tokens" in r
                         else f"{'':>8}")
                # a first stage or phase that ran out early is said beside the number: the
                # row is then not the algorithm at that size
                note = f"  ** {r['ran_out']} **" if r.get("ran_out") else ""
                rules = r.get("stage_two")
                if rules:
                    note += (f"  stage two: {rules['line_break_inside']} with a line break inside,"
                             f" {rules['colon_space']} with ': ', {rules['over_4_words']} over 4"
                             f" words, longest {rules['longest']} bytes")
                print(f"{corpus:<8} {vocab:>6} {variant:<10} {r['merges']:>6} {r['superwords']:>6}"
                      f" {r['transition'] if r['transition'] is not None else '':>6}"
                      f" {r['seconds']:>8.1f} {r['rss_mb']:>8.0f} {tpb:>9.4f} {gain:>7} {paper}"
                      f"  {load_average()}{note}", flush=True)


def parity_part(args) -> None:
    from bpe_lab.who_pays.parity import gini

    if args.folds:
        return parity_folds_part(args)
    print("\nParity-aware BPE against classical BPE on the 33 parallel texts (held-out lines)")
    print(f"{'vocab':>6} {'variant':<10} {'merges':>6} {'train s':>8} {'peak MB':>8} {'Gini':>7}"
          f" {'tokens':>7} {'vs classical':>12}  load")
    for vocab in args.parity_vocab:
        base = None
        for variant in ("classical", "parity", "hybrid", "window"):
            r = measure({"part": "parity", "vocab": vocab, "variant": variant,
                         "window": args.window})
            if "error" in r:
                print(f"{vocab:>6} {variant:<10} error: {r['error']}")
                continue
            counts = list(r["per_language"].values())
            total = sum(counts)
            change = "" if base is None else f"{total / base - 1:>+12.1%}"
            if variant == "classical":
                base = total
            print(f"{vocab:>6} {variant:<10} {r['merges']:>6} {r['seconds']:>8.2f} {r['rss_mb']:>8.0f}"
                  f" {gini(counts):>7.4f} {total:>7} {change:>12}  {load_average()}", flush=True)


def parity_folds_part(args) -> None:
    """Every fold held out in turn (bpe_lab.who_pays.parity.fold_lines): each variant's Gini and
    change in all tokens against classical BPE on the same fold, as the mean and the range."""
    from statistics import mean

    from bpe_lab.who_pays.parity import gini

    print(f"\nParity-aware BPE against classical BPE on the 33 parallel texts, {args.folds} folds"
          " (each fold's lines held out in turn, the others train): mean [min, max] over folds")
    print(f"{'vocab':>6} {'variant':<10} {'Gini':>26} {'all tokens vs classical':>30}  load")
    for vocab in args.parity_vocab:
        base = None
        for variant in ("classical", "parity", "hybrid", "window"):
            r = measure({"part": "parity", "vocab": vocab, "variant": variant,
                         "window": args.window, "folds": args.folds})
            if "error" in r:
                print(f"{vocab:>6} {variant:<10} error: {r['error']}")
                continue
            ginis = [gini(list(f.values())) for f in r["folds"]]
            totals = [sum(f.values()) for f in r["folds"]]
            if variant == "classical":
                base = totals
                change = ""
            else:
                changes = [t / b - 1 for t, b in zip(totals, base)]
                change = (f"{mean(changes):+.1%} [{min(changes):+.1%}, {max(changes):+.1%}]")
            print(f"{vocab:>6} {variant:<10} {mean(ginis):>8.4f} [{min(ginis):.4f}, {max(ginis):.4f}]"
                  f" {change:>30}  {load_average()}", flush=True)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--part", choices=("superbpe", "parity", "both"), default="both")
    parser.add_argument("--corpora", nargs="+", choices=("english", "tiny"),
                        default=["english", "tiny"])
    parser.add_argument("--vocab", type=int, nargs="+", default=[2048, 8192, 32768])
    parser.add_argument("--variants", nargs="+", choices=("classical", "superbpe", "boundless"),
                        default=["classical", "superbpe", "boundless"],
                        help="the superword part's rows (classical first: the gain is against it)")
    parser.add_argument("--parity-vocab", type=int, nargs="+", default=[512, 1024, 2048, 4096, 8192])
    parser.add_argument("--share", type=float, default=0.9,
                        help="SuperBPE's transition as a share of the merges (default 0.9)")
    parser.add_argument("--stage-two", choices=("authors", "open"), default="authors",
                        help="SuperBPE's stage-two rules (default: the authors')")
    parser.add_argument("--stopping", choices=("authors", "fill"), default="authors",
                        help="BoundlessBPE's rule when phase one runs out (default: the authors')")
    parser.add_argument("--window", type=int, default=100,
                        help="parity-aware BPE's moving window, in merges (default 100, alpha 2)")
    parser.add_argument("--folds", type=int, default=0,
                        help="parity: hold out each of N folds of the lines in turn and print the"
                             " mean and range (default: one cut, the last third held out)")
    parser.add_argument("--tiny-mb", type=int, default=4)
    parser.add_argument("--data", type=Path, default=Path(tempfile.gettempdir()))
    args = parser.parse_args(argv)
    if args.child:
        print(json.dumps(child(json.loads(args.child))))
        return
    print(f"python {' '.join(sys.argv)}  (cores: {os.cpu_count()}, load at start: {load_average()})")
    if args.part in ("superbpe", "both"):
        superbpe_part(args)
    if args.part in ("parity", "both"):
        parity_part(args)


if __name__ == "__main__":
    main()
