"""bpe_core's SentencePiece-style BPE trainer beside the ``sentencepiece`` package's, on one text.

    python benchmarks/sentencepiece_train.py                    # pydoc's topics, 1,000 and 4,000
    python benchmarks/sentencepiece_train.py --chars 200000 --vocab 8000 --markdown

The text is Python's own help topics (``pydoc_data.topics``, shipped with Python: English prose
with code), its first ``--chars`` characters. Both train BPE with the same options (the
"identity" normalization, character coverage 1.0, every line), one after the other, for each
vocabulary size and ``--repeat`` times, with ``sentencepiece`` on one thread; the table gives the
median wall and CPU seconds (CPU: this process, all threads), the ratio of the medians, and
whether the pieces were equal. The load average is printed before and after: the 2-core machine
is shared, so the wall times are noisy.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from pydoc_data.topics import topics  # noqa: E402

import sentencepiece as spm  # noqa: E402
from bench_kit import Report, fmt_ratio, fmt_s  # noqa: E402

from bpe_core.sentencepiece.train import train_pieces  # noqa: E402


def _loadavg() -> str:
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


def _reference(path: Path, prefix: Path, vocab: int) -> list[tuple[str, float]]:
    spm.SentencePieceTrainer.train(
        input=str(path), model_prefix=str(prefix), vocab_size=vocab, model_type="bpe",
        character_coverage=1.0, normalization_rule_name="identity", input_sentence_size=0,
        num_threads=1, minloglevel=2)
    sp = spm.SentencePieceProcessor(model_file=f"{prefix}.model")
    return [(sp.id_to_piece(i), sp.get_score(i)) for i in range(sp.get_piece_size())]


def _time(fn) -> tuple[float, float, object]:
    wall, cpu = time.perf_counter(), time.process_time()
    result = fn()
    return time.perf_counter() - wall, time.process_time() - cpu, result


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chars", type=int, default=100_000)
    parser.add_argument("--vocab", type=int, nargs="+", default=[1000, 4000])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--markdown", action="store_true")
    args = parser.parse_args(argv)
    text = "\n".join(topics[k] for k in sorted(topics))[: args.chars]
    report = Report(args.markdown)
    report.title(f"SentencePiece BPE training: {len(text):,} characters of pydoc's topics")
    report.note(f"load average before: {_loadavg()}")
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "input.txt"
        path.write_text(text, encoding="utf-8")
        for vocab in args.vocab:
            ours: list[tuple[float, float]] = []
            theirs: list[tuple[float, float]] = []
            equal = True
            for _ in range(args.repeat):
                wall, cpu, got = _time(lambda v=vocab: train_pieces(text, v))
                ours.append((wall, cpu))
                wall, cpu, want = _time(lambda v=vocab: _reference(path, Path(tmp) / "m", v))
                theirs.append((wall, cpu))
                equal = equal and [(p.piece, p.score) for p in got] == want  # type: ignore[attr-defined]
            o_wall = statistics.median(w for w, _ in ours)
            t_wall = statistics.median(w for w, _ in theirs)
            o_cpu = statistics.median(c for _, c in ours)
            t_cpu = statistics.median(c for _, c in theirs)
            rows.append([f"{vocab:,}", fmt_s(o_wall), fmt_s(t_wall), fmt_ratio(o_wall / t_wall),
                         fmt_s(o_cpu), fmt_s(t_cpu), fmt_ratio(o_cpu / t_cpu),
                         "yes" if equal else "NO"])
    report.table(["vocab", "bpe_core s", "sentencepiece s", "ratio (wall)", "bpe_core CPU s",
                  "sentencepiece CPU s", "ratio (CPU)", "pieces equal"], rows)
    report.note(f"load average after: {_loadavg()}")


if __name__ == "__main__":
    main()
