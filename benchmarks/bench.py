"""Benchmark bpe_core against its peers, side by side in one run: ``python benchmarks/bench.py``.

Sections (one table each):

1. the corpus: Python's own docs (pydoc_data topics) and standard-library source, so every Python
   install can rebuild it; its size and sha256 prefix say whether two runs used the same text;
2. training time at several vocabulary sizes vs Hugging Face ``tokenizers``, and peak memory;
3. the seeds' naive training loop vs bpe_core on a slice: speed-up, and a check of equal merges;
4. encoding and decoding throughput vs ``tiktoken`` (cl100k_base from the vocabulary that ships in
   ``bpe_core/data``, checked against its published SHA-256) and HF;
   then, with cl100k's vocabulary, BPE-dropout, greedy longest match and fewest tokens against
   plain encode (time and token count);
5. pathological inputs (one long run with no split point): is encoding near-linear?
6. checking a learner's merges (``bpe_lab.check``): a tie-rule mistake and a right-to-left one.

Every timing is the median of ``--repeat`` rounds; inside a round the contenders run one after the
other, so a noisy neighbour slows all of them alike. Peer packages are optional: a missing one
skips its rows with a note. Needs only the standard library, ``regex`` and bpe_core; reads nothing
outside this checkout.

    python benchmarks/bench.py --quick          # smoke run, well under a minute
    python benchmarks/bench.py --markdown       # the tables for docs/BENCHMARKS.md
"""

from __future__ import annotations

import argparse
import base64
import datetime
import hashlib
import os
import platform
import random
import statistics
import subprocess
import sys
import sysconfig
import tempfile
from collections import defaultdict
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, NamedTuple

REPO_ROOT = Path(__file__).resolve().parent.parent
if str(REPO_ROOT) not in sys.path:  # `python benchmarks/bench.py`: bpe_core from this checkout
    sys.path.insert(0, str(REPO_ROOT))

import regex  # noqa: E402

import bpe_core  # noqa: E402
from benchmarks.bench_kit import (  # noqa: E402
    Report,
    fmt_ratio,
    fmt_s,
    fresh_loader,
    import_optional,
    load_tiktoken,
    mb_per_s,
    medians,
    timed,
    with_cpu_time,
)
from benchmarks.bench_lab import check_section, who_pays_section  # noqa: E402
from bpe_core import (  # noqa: E402
    GPT4_SPLIT_PATTERN,
    BasicTokenizer,
    RegexTokenizer,
    encode_with,
    get_stats,
    merge,
)

FULL = {"corpus_bytes": 1_260_000, "vocabs": (512, 1024, 4096, 8192), "repeat": 3,
        "naive_chars": 100_000, "long_bytes": 1_000_000, "encoders_bytes": 300_000,
        "check_chars": 200_000, "check_merges": 2_000}
QUICK = {"corpus_bytes": 300_000, "vocabs": (512, 1024), "repeat": 1, "naive_chars": 20_000,
         "long_bytes": 100_000, "encoders_bytes": 50_000, "check_chars": 50_000,
         "check_merges": 500}
NAIVE_VOCAB = 512
PATHOLOGICAL_VOCAB = 1024
PATHOLOGICAL_SIZES = (50_000, 200_000)


# ----------------------------------------------------------------------------------------------
# 1. The corpus


def build_corpus(nbytes: int) -> str:
    """Python's docs and standard-library source, cut to at most ``nbytes`` bytes of UTF-8.

    All ``pydoc_data.topics.topics`` values (sorted by key), then the top-level ``.py`` files of
    the standard library in sorted filename order, joined by newlines, until ``nbytes`` is reached;
    the last file is cut at a character boundary. Different Python versions ship different text.
    """
    from pydoc_data.topics import topics

    parts = [topics[key] for key in sorted(topics)]
    size = sum(len(p.encode("utf-8")) + 1 for p in parts)
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    for path in sorted(stdlib.glob("*.py"), key=lambda p: p.name):
        if size >= nbytes:
            break
        source = path.read_text(encoding="utf-8", errors="replace")
        parts.append(source)
        size += len(source.encode("utf-8")) + 1
    data = "\n".join(parts).encode("utf-8")[:nbytes]
    return data.decode("utf-8", errors="ignore")


def corpus_fingerprint(corpus: str) -> tuple[int, str]:
    """``(UTF-8 size in bytes, first 16 hex digits of its sha256)``."""
    data = corpus.encode("utf-8")
    return len(data), hashlib.sha256(data).hexdigest()[:16]


def corpus_section(report: Report, corpus: str) -> None:
    """Section 1: what was measured on."""
    size, digest = corpus_fingerprint(corpus)
    report.title("1. Corpus")
    report.table(
        ["bytes (UTF-8)", "characters", "lines", "sha256[:16]"],
        [[f"{size:,}", f"{len(corpus):,}", f"{corpus.count(chr(10)) + 1:,}", digest]],
    )
    report.note(
        "pydoc_data topics (sorted by key) + top-level stdlib .py files in filename order;"
        " the hash differs between Python versions, whose stdlib differs"
    )
    report.line()


# ----------------------------------------------------------------------------------------------
# 2. Training time and memory


def train_core(corpus: str, vocab_size: int) -> RegexTokenizer:
    """bpe_core with the GPT-4 split."""
    tok = RegexTokenizer(GPT4_SPLIT_PATTERN)
    tok.train(corpus, vocab_size)
    return tok


def train_hf(corpus: str, vocab_size: int) -> Any:
    """Hugging Face ``tokenizers`` BPE with the same GPT-4 split and a byte-level alphabet."""
    from tokenizers import Regex, Tokenizer, models, pre_tokenizers, trainers

    tk = Tokenizer(models.BPE())
    tk.pre_tokenizer = pre_tokenizers.Sequence(
        [
            pre_tokenizers.Split(Regex(GPT4_SPLIT_PATTERN), "isolated"),
            pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False),
        ]
    )
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        show_progress=False,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
    )
    tk.train_from_iterator([corpus], trainer)
    return tk


def training_section(
    report: Report, corpus: str, vocabs: Sequence[int], repeat: int
) -> dict[tuple[str, int], Any]:
    """Section 2b: training time per vocabulary size, bpe_core vs HF; returns the tokenizers."""
    have_hf = import_optional("tokenizers") is not None
    samples: dict[str, list[float]] = defaultdict(list)
    trained: dict[tuple[str, int], Any] = {}
    for _ in range(repeat):
        for v in vocabs:
            seconds, (trained["core", v], cpu) = timed(with_cpu_time, train_core, corpus, v)
            samples[f"core {v}"].append(seconds)
            samples[f"core cpu {v}"].append(cpu)
            if have_hf:
                seconds, (trained["hf", v], cpu) = timed(with_cpu_time, train_hf, corpus, v)
                samples[f"hf {v}"].append(seconds)
                samples[f"hf cpu {v}"].append(cpu)
    med = medians(samples)
    rows = []
    for v in vocabs:
        core, hf = med[f"core {v}"], med.get(f"hf {v}")
        rows.append(
            [v, fmt_s(core), fmt_s(hf), fmt_ratio(core / hf if hf else None),
             fmt_s(med[f"core cpu {v}"]), fmt_s(med.get(f"hf cpu {v}"))]
        )
    report.title(f"2b. Training time, GPT-4 split (median of {repeat})")
    report.table(["vocab", "bpe_core s", "HF s", "bpe_core/HF", "bpe_core CPU s", "HF CPU s"],
                 rows)
    report.note("ratio below 1x: bpe_core is faster. HF's vocab_size includes its 256-symbol"
                " byte alphabet, as bpe_core's does (vocab - 256 merges each)")
    report.note("s: wall clock. CPU s: this process's CPU time during the call, all threads"
                " (bpe_core uses one); on a busy machine CPU s is the steadier figure")
    if not have_hf:
        report.note("HF tokenizers is not installed: its column is empty")
    for v in vocabs:
        if have_hf and trained["hf", v].get_vocab_size() != v:
            report.note(f"HF stopped at {trained['hf', v].get_vocab_size()} tokens for vocab {v}")
        if trained["core", v].stop_reason:
            report.note(f"bpe_core at vocab {v}: {trained['core', v].stop_reason}")
    report.line()
    return trained


TRAIN_VARIANTS = {  # name -> Tokenizer.train options (section 2c)
    "classic (tie_rule=seen)": {},
    "tie_rule=bytes (CS336)": {"tie_rule": "bytes"},
    "tie_rule=ids": {"tie_rule": "ids"},
    "special_tokens=[<|endoftext|>]": {"special_tokens": ["<|endoftext|>"]},
    "min_frequency=2": {"min_frequency": 2},
    "max_token_bytes=8": {"max_token_bytes": 8},
}


def train_variant(corpus: str, vocab_size: int, options: dict) -> RegexTokenizer:
    tok = RegexTokenizer(GPT4_SPLIT_PATTERN)
    tok.train(corpus, vocab_size, **options)
    return tok


def variants_section(report: Report, corpus: str, vocab_size: int, repeat: int) -> None:
    """Section 2c: every training variant on the same corpus and vocabulary, against the classic."""
    # one end-of-text mark per paragraph, so the special-token variant has something to cut at
    marked = corpus.replace("\n\n", "\n<|endoftext|>\n")
    samples: dict[str, list[float]] = defaultdict(list)
    made: dict[str, RegexTokenizer] = {}
    names = list(TRAIN_VARIANTS)
    for round_ in range(repeat):
        shift = round_ % len(names)  # each round starts with another variant: no one is always first
        for name in names[shift:] + names[:shift]:
            options = TRAIN_VARIANTS[name]
            text = marked if "special_tokens" in options else corpus
            seconds, made[name] = timed(train_variant, text, vocab_size, options)
            samples[name].append(seconds)
    med = medians(samples)
    classic = next(iter(TRAIN_VARIANTS))
    reference = made[classic]
    rows = []
    for name in TRAIN_VARIANTS:
        tok = made[name]
        same = sum(a == b for a, b in zip(reference.merges, tok.merges))
        rows.append([name, fmt_s(med[name]), fmt_ratio(med[name] / med[classic]),
                     tok.num_merges, f"{same}/{reference.num_merges}"])
    report.title(f"2c. Training variants, GPT-4 split, vocab {vocab_size} (median of {repeat})")
    report.table(["variant", "bpe_core s", "/ classic", "merges", "same merges as classic"], rows)
    report.note("same merges: positions where the variant merged the classic's pair at the same"
                " step. The special-token run trains on the corpus with <|endoftext|> between"
                " paragraphs")
    report.line()


def child_peak_rss_kib(code: str) -> int:
    """Peak RSS of a fresh ``python -c code``, as ``getrusage(RUSAGE_CHILDREN).ru_maxrss``.

    A small fresh Python process starts the child and reads the figure. Asking from this process
    would be wrong twice over: RUSAGE_CHILDREN keeps the maximum over every child reaped so far,
    and on Linux a child's ru_maxrss includes the RSS of the process that forked it (ours, large
    after training) because exec keeps the old address space's high-water mark.
    """
    measure = (
        "import resource, subprocess, sys\n"
        "subprocess.run([sys.executable, '-c', sys.argv[1]], check=True)\n"
        "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", measure, code],
        cwd=REPO_ROOT, capture_output=True, text=True, check=True,
    ).stdout
    maxrss = int(out.split()[-1])
    return maxrss // 1024 if sys.platform == "darwin" else maxrss  # macOS reports bytes


def memory_section(report: Report, corpus_bytes: int, vocab_size: int) -> None:
    """Section 2a: whole-process peak memory of each trainer at ``vocab_size``, fresh processes."""
    report.title(f"2a. Peak memory, training at vocab {vocab_size} (whole process, fresh child)")
    if import_optional("resource") is None:
        report.note("the resource module is not available on this platform: skipped")
        report.line()
        return
    prelude = (
        f"import sys; sys.path.insert(0, {str(REPO_ROOT)!r})\n"
        "from benchmarks.bench import build_corpus, train_core, train_hf\n"
        f"corpus = build_corpus({corpus_bytes})\n"
    )
    children = {"baseline (builds the corpus only)": prelude,
                "bpe_core": prelude + f"train_core(corpus, {vocab_size})\n"}
    if import_optional("tokenizers") is not None:
        children["HF tokenizers"] = prelude + f"train_hf(corpus, {vocab_size})\n"
    peaks = {name: child_peak_rss_kib(code) for name, code in children.items()}
    base = peaks["baseline (builds the corpus only)"]
    rows = [
        [name, f"{kib / 1024:.1f}", "-" if name.startswith("baseline") else
         f"{(kib - base) / 1024:+.1f}"]
        for name, kib in peaks.items()
    ]
    report.table(["process", "peak RSS MiB", "minus baseline MiB"], rows)
    if "HF tokenizers" not in peaks:
        report.note("HF tokenizers is not installed: its row is skipped")
    report.note("each child imports benchmarks/bench.py, builds the corpus, then trains (or not)")
    report.line()


# ----------------------------------------------------------------------------------------------
# 3. The seeds' naive algorithm


def naive_train(
    text: str, vocab_size: int, pattern: str = GPT4_SPLIT_PATTERN
) -> dict[tuple[int, int], int]:
    """The seeds' training loop, plainly: every merge recounts all pairs and rewrites every chunk.

    >>> naive_train("aaabdaaabac", 259, pattern=r".+")
    {(97, 97): 256, (256, 97): 257, (257, 98): 258}
    """
    chunks = [list(chunk.encode("utf-8")) for chunk in regex.findall(pattern, text)]
    merges: dict[tuple[int, int], int] = {}  # (int, int) -> int, in merge order
    for i in range(vocab_size - 256):
        stats: dict[tuple[int, int], int] = {}
        for ids in chunks:
            get_stats(ids, stats)
        if not stats:
            break
        pair = max(stats, key=stats.get)  # ties: the pair seen first
        idx = 256 + i
        chunks = [merge(ids, pair, idx) for ids in chunks]
        merges[pair] = idx
    return merges


class NaiveComparison(NamedTuple):
    chars: int
    nbytes: int
    naive_s: float
    core_s: float
    identical: bool  # bpe_core made the same merges, in the same order, with the same ids

    @property
    def speedup(self) -> float:
        return self.naive_s / self.core_s


def compare_naive(text: str, vocab_size: int, repeat: int = 1) -> NaiveComparison:
    """Train ``text`` with the naive loop and with bpe_core; median times and an equality check."""
    samples: dict[str, list[float]] = defaultdict(list)
    identical = True
    for _ in range(repeat):
        seconds, naive_merges = timed(naive_train, text, vocab_size)
        samples["naive"].append(seconds)
        seconds, tok = timed(train_core, text, vocab_size)
        samples["core"].append(seconds)
        identical &= list(tok.merges.items()) == list(naive_merges.items())
    med = medians(samples)
    return NaiveComparison(len(text), len(text.encode("utf-8")), med["naive"], med["core"],
                           identical)


def naive_section(report: Report, corpus: str, naive_chars: int, repeat: int) -> None:
    """Section 3: speed-up over the seeds' algorithm on a slice, and bpe_core on the full corpus."""
    result = compare_naive(corpus[:naive_chars], NAIVE_VOCAB, repeat)
    full_bytes = len(corpus.encode("utf-8"))
    full_s = statistics.median(timed(train_core, corpus, NAIVE_VOCAB)[0] for _ in range(repeat))
    estimate = result.naive_s * full_bytes / result.nbytes
    report.title(f"3. bpe_core vs the seeds' naive trainer, vocab {NAIVE_VOCAB}"
                 f" (median of {repeat})")
    report.table(
        ["text", "bytes", "naive s", "bpe_core s", "speed-up"],
        [
            [f"first {result.chars:,} chars", f"{result.nbytes:,}", fmt_s(result.naive_s),
             fmt_s(result.core_s), fmt_ratio(result.speedup)],
            ["full corpus", f"{full_bytes:,}", f"≈{estimate:.3g} (estimate)", fmt_s(full_s),
             f"≈{fmt_ratio(estimate / full_s)}"],
        ],
    )
    report.note(f"identical merges: {'yes' if result.identical else 'NO'}"
                " (same pairs, same order, same ids, ties included)")
    report.note("target speed-up on the slice: at least 100x. The full-corpus naive time is"
                " estimated as linear in the text size, not measured")
    report.line()


# ----------------------------------------------------------------------------------------------
# 4. Encoding and decoding throughput


def encoding_section(
    report: Report,
    corpus: str,
    core_tok: RegexTokenizer,
    hf_tok: Any,
    ranks_path: Path | None,
    repeat: int,
) -> None:
    """Section 4: encoding and decoding MB/s, bpe_core vs tiktoken cl100k and HF."""
    nbytes = len(corpus.encode("utf-8"))
    enc, tiktoken_note = load_tiktoken(ranks_path)
    load_pretrained = getattr(bpe_core, "load_pretrained", None)
    preset, preset_note = None, None
    if load_pretrained is not None:
        try:
            preset_load_s, preset = timed(load_pretrained, "cl100k_base")
            preset_cold_s, _ = timed(preset.encode_ordinary, corpus)  # its timed rows are then warm
        except Exception as e:  # a later issue defines the API; say what went wrong, go on
            preset_note = f"bpe_core.load_pretrained('cl100k_base') failed: {e}"
            preset = None
    lines = corpus.splitlines(keepends=True)
    samples: dict[str, list[float]] = defaultdict(list)
    out: dict[str, Any] = {}

    def run(name: str, fn: Callable[..., Any], *args: Any) -> Any:
        seconds, out[name] = timed(fn, *args)
        samples[name].append(seconds)
        return out[name]

    with tempfile.TemporaryDirectory() as tmp:
        fresh = fresh_loader(core_tok, tmp)
        for _ in range(repeat):
            tok = fresh()
            run("cold", tok.encode, corpus)
            ids = run("warm", tok.encode, corpus)
            run("split", tok.split, corpus)
            run("decode", tok.decode, ids)
            if enc is not None:
                tiktoken_ids = run("tiktoken", enc.encode_ordinary, corpus)
                run("tiktoken decode", enc.decode, tiktoken_ids)
            if preset is not None:
                run("preset", preset.encode_ordinary, corpus)
            if hf_tok is not None:
                run("hf", lambda: hf_tok.encode(corpus).ids)
                run("hf batch", lambda: [e.ids for e in hf_tok.encode_batch(lines)])
    med = medians(samples)
    tt = med.get("tiktoken")
    vocab = core_tok.vocab_size

    def row(label: str, key: str, tokens: str) -> list[str]:
        speed = mb_per_s(nbytes, med[key])
        versus = fmt_ratio(speed / mb_per_s(nbytes, tt)) if tt else "-"
        return [label, fmt_s(med[key]), f"{speed:.2f}", tokens, versus]

    rows = [
        row(f"bpe_core encode, vocab {vocab}, cold", "cold", f"{len(out['cold']):,}"),
        row(f"bpe_core encode, vocab {vocab}, warm", "warm", f"{len(out['warm']):,}"),
        row("bpe_core split alone (GPT-4 = cl100k pattern)", "split", f"{len(out['split']):,}"
            " chunks"),
    ]
    if preset is not None:
        rows.append(row("bpe_core cl100k encode_ordinary, warm", "preset",
                        f"{len(out['preset']):,}"))
    if enc is not None:
        rows.append(row("tiktoken cl100k encode_ordinary", "tiktoken",
                        f"{len(out['tiktoken']):,}"))
    if hf_tok is not None:
        rows.append(row(f"HF encode(one string), vocab {vocab}", "hf", f"{len(out['hf']):,}"))
        rows.append(row(f"HF encode_batch(lines), vocab {vocab}", "hf batch",
                        f"{sum(map(len, out['hf batch'])):,}"))
    report.title(f"4. Encoding throughput, {nbytes:,} bytes (median of {repeat})")
    report.table(["encoder", "s", "MB/s", "tokens", "vs tiktoken"], rows)
    report.note("cold: first call on a freshly loaded tokenizer; warm: the second call, with its"
                " chunk cache filled. The split alone is the ceiling for a pure-Python encoder")
    if load_pretrained is None:
        report.note("bpe_core has no cl100k preset yet (load_pretrained arrives in a later issue);"
                    " its split row is the same GPT-4 pattern cl100k uses")
    elif preset is not None and enc is not None:
        same = out["preset"] == out["tiktoken"]
        report.note(f"bpe_core cl100k ids identical to tiktoken's: {'yes' if same else 'NO'};"
                    f" load_pretrained('cl100k_base') took {preset_load_s:.3g} s, its cold"
                    f" first encode {preset_cold_s:.3g} s")
    if preset_note:
        report.note(preset_note)
    if tiktoken_note:
        report.note(tiktoken_note)
    if hf_tok is None:
        report.note("HF tokenizers is not installed: its rows are skipped")
    else:
        report.note("HF rows use the HF tokenizer trained in section 2. encode(one string) runs on"
                    " one thread; encode_batch(lines) spreads the lines over all cores and"
                    " pre-tokenizes each line on its own")
    report.line()

    drows = [[f"bpe_core decode, vocab {vocab}", fmt_s(med["decode"]),
              f"{mb_per_s(nbytes, med['decode']):.1f}"]]
    if enc is not None:
        drows.append(["tiktoken cl100k decode", fmt_s(med["tiktoken decode"]),
                      f"{mb_per_s(nbytes, med['tiktoken decode']):.1f}"])
    report.title(f"4b. Decoding throughput (median of {repeat})")
    report.table(["decoder", "s", "MB/s"], drows)
    round_trip = out["decode"] == corpus and (enc is None or out["tiktoken decode"] == corpus)
    report.note("decode(encode(corpus)) == corpus for every decoder:"
                f" {'yes' if round_trip else 'NO'}")
    report.line()


def encoders_section(report: Report, corpus: str, nbytes: int, repeat: int) -> None:
    """Section 4d: one vocabulary (cl100k_base), four encoders: BPE, BPE-dropout, greedy
    longest match and fewest tokens, on the same text; times and token counts against BPE."""
    text = corpus.encode("utf-8")[:nbytes].decode("utf-8", errors="ignore")
    size = len(text.encode("utf-8"))
    tok = bpe_core.load_pretrained("cl100k_base")

    def cold() -> list[int]:
        tok._cache.clear()  # as the other encoders: no chunk remembered from an earlier call
        return tok.encode(text)

    contenders: dict[str, Callable[[], list[int]]] = {
        "encode (BPE), cold": cold,
        "encode (BPE), warm": lambda: tok.encode(text),
        "encode, dropout=0.1": lambda: tok.encode(text, dropout=0.1, seed=0),
        "greedy longest match": lambda: encode_with(tok, text, "greedy"),
        "fewest tokens": lambda: encode_with(tok, text, "fewest"),
    }
    samples: dict[str, list[float]] = defaultdict(list)
    out: dict[str, list[int]] = {}
    for _ in range(repeat):
        for name, fn in contenders.items():
            seconds, out[name] = timed(fn)
            samples[name].append(seconds)
    med = medians(samples)
    base_s, base_n = med["encode (BPE), cold"], len(out["encode (BPE), cold"])
    rows = [[name, fmt_s(med[name]), f"{mb_per_s(size, med[name]):.2f}",
             fmt_ratio(med[name] / base_s), f"{len(out[name]):,}",
             f"{100 * (len(out[name]) / base_n - 1):+.2f} %"] for name in contenders]
    report.title(f"4d. One vocabulary, four encoders: cl100k_base on {size:,} bytes"
                 f" (median of {repeat})")
    report.table(["encoder", "s", "MB/s", "time vs cold encode", "tokens", "tokens vs BPE"], rows)
    report.note("cold: the chunk cache emptied before the call, as dropout, greedy and fewest"
                " never use it; warm: the second call. All cut the text with the same split")
    fewest = len(out["fewest tokens"]) <= min(len(ids) for ids in out.values())
    round_trip = all(tok.decode(ids) == text for ids in out.values())
    report.note(f"every encoder decodes back to the text: {'yes' if round_trip else 'NO'};"
                f" fewest tokens is the fewest: {'yes' if fewest else 'NO'}")
    report.line()


# ----------------------------------------------------------------------------------------------
# 5. Pathological inputs


def pathological_inputs(n: int, seed: int = 0) -> dict[str, str]:
    """Texts of ``n`` characters with few or no split points: one letter, base64, spaces."""
    noise = base64.b64encode(random.Random(seed).randbytes(n)).decode("ascii")[:n]
    return {'"a" * n': "a" * n, "random base64": noise, '" " * n': " " * n}


def long_piece_inputs(nbytes: int) -> dict[str, str]:
    """Texts that o200k's split pattern leaves as one piece of ``nbytes`` (or nearly)."""
    rnd = random.Random(0)
    return {
        "one letter repeated (x * n)": "x" * nbytes,
        "two letters at random (a/b)": "".join(rnd.choice("ab") for _ in range(nbytes)),
        "random base64, as one piece": base64.b64encode(rnd.randbytes(nbytes * 3 // 4)).decode(),
    }


def long_piece_section(report: Report, nbytes: int, repeat: int) -> None:
    """Section 4c: one long piece, bpe_core's o200k against tiktoken's on the same piece."""
    enc, note = load_tiktoken(name="o200k_base")
    if enc is None:
        report.note(f"4c skipped: {note}")
        return
    ours = bpe_core.load_pretrained("o200k_base")
    rows, same = [], True
    for label, text in long_piece_inputs(nbytes).items():
        ours_s, tt_s = [], []
        for _ in range(repeat):
            ours._cache.clear()
            seconds, ids = timed(ours.encode_chunk, text)  # the piece as it is: no split
            ours_s.append(seconds)
            seconds, ref = timed(enc._encode_single_piece, text)
            tt_s.append(seconds)
            same = same and ids == ref
        a, b = statistics.median(ours_s), statistics.median(tt_s)
        rows.append([label, fmt_s(a), fmt_s(b), fmt_ratio(a / b)])
    report.title(f"4c. One long piece of {nbytes:,} bytes, o200k_base (median of {repeat})")
    report.table(["piece", "bpe_core s", "tiktoken s", "bpe_core / tiktoken"], rows)
    report.note("Both encode the piece without splitting it (bpe_core encode_chunk, tiktoken"
                " _encode_single_piece); pieces above 64 bytes go rank by rank in bpe_core."
                f" Same ids: {'yes' if same else 'NO'}")
    report.line()


def pathological_section(
    report: Report,
    corpus: str,
    regex_tok: RegexTokenizer,
    repeat: int,
    sizes: Sequence[int] = PATHOLOGICAL_SIZES,
) -> None:
    """Section 5: encoding time at two input sizes; a ratio near sizes[1]/sizes[0] is linear."""
    basic_tok = BasicTokenizer()
    basic_s, _ = timed(basic_tok.train, corpus, PATHOLOGICAL_VOCAB)
    inputs = {n: pathological_inputs(n) for n in sizes}
    samples: dict[str, list[float]] = defaultdict(list)
    with tempfile.TemporaryDirectory() as tmp:
        tokenizers = {"Basic": fresh_loader(basic_tok, tmp), "Regex": fresh_loader(regex_tok, tmp)}
        for _ in range(repeat):
            for kind in inputs[sizes[0]]:
                for name, fresh in tokenizers.items():
                    for n in sizes:
                        tok = fresh()  # an empty chunk cache for every measurement
                        samples[f"{kind} {name} {n}"].append(timed(tok.encode, inputs[n][kind])[0])
    med = medians(samples)
    small, large = sizes
    rows = []
    for kind in inputs[small]:
        for name in tokenizers:
            t_small, t_large = med[f"{kind} {name} {small}"], med[f"{kind} {name} {large}"]
            rows.append([kind, f"{name}Tokenizer", fmt_s(t_small), fmt_s(t_large),
                         f"{t_large / t_small:.2f}"])
    report.title(f"5. Pathological inputs, vocab {PATHOLOGICAL_VOCAB} (median of {repeat})")
    report.table(["input", "tokenizer", f"t({small // 1000}k) s", f"t({large // 1000}k) s",
                  f"t({large // 1000}k)/t({small // 1000}k)"], rows)
    report.note(f"linear: about {large / small:.0f}; quadratic: about {(large / small) ** 2:.0f}."
                f" Both tokenizers trained on the corpus (BasicTokenizer took {basic_s:.3g} s)")
    report.line()


# ----------------------------------------------------------------------------------------------


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    """Command-line options; ``--quick`` changes the defaults, explicit options still win."""
    parser = argparse.ArgumentParser(
        prog="python benchmarks/bench.py",
        description="Benchmark bpe_core against the seeds' algorithm, tiktoken and HF tokenizers.",
    )
    parser.add_argument("--quick", action="store_true",
                        help="smoke run: 300 KB corpus, vocab 512 and 1024, one repetition")
    parser.add_argument("--markdown", action="store_true", help="print markdown tables")
    parser.add_argument("--repeat", type=int, help="rounds per timing, median reported (3)")
    parser.add_argument("--corpus-bytes", type=int, help="corpus size in UTF-8 bytes (1260000)")
    parser.add_argument("--naive-chars", type=int,
                        help="characters of the corpus the naive trainer gets (100000)")
    parser.add_argument("--ranks", type=Path, default=None,
                        help="a cl100k_base.tiktoken for the tiktoken peer"
                             " (default: the one that ships in bpe_core/data)")
    parser.add_argument("--long-bytes", type=int,
                        help="size of the long pieces of section 4c (1000000)")
    args = parser.parse_args(argv)
    defaults = QUICK if args.quick else FULL
    args.vocabs = defaults["vocabs"]
    args.encoders_bytes = defaults["encoders_bytes"]  # section 4d's text: the corpus's start
    for name in ("repeat", "corpus_bytes", "naive_chars", "long_bytes"):
        if getattr(args, name) is None:
            setattr(args, name, defaults[name])
        if getattr(args, name) < 1:
            parser.error(f"--{name.replace('_', '-')} must be at least 1")
    return args


def defaults_of(args: argparse.Namespace) -> dict:
    """The sizes of the quick or the full run."""
    return QUICK if args.quick else FULL


def header_line() -> str:
    """Python, platform, CPUs, load and date: what a reader needs to compare two runs."""
    cpus = os.cpu_count()
    usable = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else cpus
    now = datetime.datetime.now().astimezone().strftime("%Y-%m-%d %H:%M %Z")
    load = f", load average {os.getloadavg()[0]:.2f}" if hasattr(os, "getloadavg") else ""
    return (f"benchmarks/bench.py: Python {platform.python_version()}"
            f" ({platform.python_implementation()}), {platform.platform()},"
            f" {cpus} CPUs ({usable} usable){load}, {now}")


def main(argv: Sequence[str] | None = None) -> int:
    """Run every section in order, printing each table as soon as it is measured."""
    args = parse_args(argv)
    report = Report(markdown=args.markdown)
    report.line(header_line())
    report.line()
    report.line(f"Options: repeat {args.repeat}, corpus {args.corpus_bytes:,} bytes, vocabs"
                f" {', '.join(map(str, args.vocabs))}, naive slice {args.naive_chars:,} chars"
                f"{', quick' if args.quick else ''}. Times are medians of the repetitions;"
                " contenders alternate inside each repetition.")
    report.line()

    corpus = build_corpus(args.corpus_bytes)
    corpus_section(report, corpus)
    # Memory first: HF tokenizers turns its parallelism off in processes forked after it has used
    # its thread pool, so the children start before this process trains with HF.
    memory_section(report, args.corpus_bytes, max(args.vocabs))
    trained = training_section(report, corpus, args.vocabs, args.repeat)
    variants_section(report, corpus, max(args.vocabs), args.repeat)
    naive_section(report, corpus, args.naive_chars, args.repeat)
    top = max(args.vocabs)
    encoding_section(report, corpus, trained["core", top], trained.get(("hf", top)),
                     args.ranks, args.repeat)
    regex_tok = trained.get(("core", PATHOLOGICAL_VOCAB)) or train_core(corpus, PATHOLOGICAL_VOCAB)
    long_piece_section(report, args.long_bytes, args.repeat)
    encoders_section(report, corpus, args.encoders_bytes, args.repeat)
    pathological_section(report, corpus, regex_tok, args.repeat)
    check_section(report, corpus, defaults_of(args)["check_chars"],
                  defaults_of(args)["check_merges"], args.repeat)
    who_pays_section(report, args.repeat)
    return 0


if __name__ == "__main__":
    sys.exit(main())
