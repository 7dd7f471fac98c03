"""What every section of ``benchmarks/bench.py`` shares: the report (one table per section, plain
text or markdown), the timing helpers, and tiktoken built from the vocabularies that ship in
bpe_core (no network: the ranks are handed to tiktoken, never fetched)."""

from __future__ import annotations

import base64
import gc
import importlib
import os
import statistics
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from bpe_core import PRESETS, Tokenizer, load

MB = 1_000_000  # throughput is in MB/s of UTF-8 input, 1 MB = 10**6 bytes

# ----------------------------------------------------------------------------------------------
# Output: one table per section, plain text or markdown.


class Report:
    """Prints tables and notes as they are ready (plain text, or markdown for docs/BENCHMARKS.md)."""

    def __init__(self, markdown: bool = False) -> None:
        self.markdown = markdown

    def line(self, text: str = "") -> None:
        print(text, flush=True)

    def title(self, text: str) -> None:
        self.line(f"### {text}" if self.markdown else f"== {text} ==")
        self.line()

    def note(self, text: str) -> None:
        self.line(f"- {text}")

    def table(self, headers: Sequence[str], rows: Sequence[Sequence[object]]) -> None:
        self.line(render_table(headers, rows, markdown=self.markdown))
        self.line()


def render_table(
    headers: Sequence[str], rows: Sequence[Sequence[object]], markdown: bool = False
) -> str:
    """A table as text: markdown pipes, or plain columns padded to their widest cell.

    >>> print(render_table(["a", "bb"], [[1, 2.5]], markdown=True))
    | a | bb |
    |---|---|
    | 1 | 2.5 |
    """
    cells = [[str(h) for h in headers]] + [[str(c) for c in row] for row in rows]
    if markdown:
        lines = ["| " + " | ".join(cells[0]) + " |", "|" + "---|" * len(headers)]
        lines += ["| " + " | ".join(row) + " |" for row in cells[1:]]
        return "\n".join(lines)
    widths = [max(len(row[i]) for row in cells) for i in range(len(headers))]
    lines = [
        "  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip() for row in cells
    ]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def fmt_s(seconds: float | None) -> str:
    """Seconds with three significant figures ("-" when not measured)."""
    return "-" if seconds is None else f"{seconds:.3g}"


def fmt_ratio(x: float | None) -> str:
    return "-" if x is None else f"{x:.3g}x"


def mb_per_s(nbytes: int, seconds: float) -> float:
    return nbytes / MB / seconds


# ----------------------------------------------------------------------------------------------
# Timing


def timed(fn: Callable[..., Any], *args: Any) -> tuple[float, Any]:
    """``(seconds, result)`` of one call, timed with ``perf_counter`` after a garbage collection."""
    gc.collect()
    start = time.perf_counter()
    result = fn(*args)
    return time.perf_counter() - start, result


def with_cpu_time(fn: Callable[..., Any], *args: Any) -> tuple[Any, float]:
    """``(result, CPU seconds of this whole process, all threads)`` of one call."""
    start = time.process_time()
    result = fn(*args)
    return result, time.process_time() - start


def medians(samples: dict[str, list[float]]) -> dict[str, float]:
    return {name: statistics.median(values) for name, values in samples.items()}


def fresh_loader(tok: Tokenizer, directory: str) -> Callable[[], Tokenizer]:
    """A function returning a new copy of ``tok`` (empty chunk cache) per call, via save/load."""
    prefix = os.path.join(directory, f"{type(tok).__name__}-{tok.vocab_size}")
    tok.save(prefix)
    return lambda: load(prefix + ".model")


def import_optional(name: str) -> Any:
    """The module, or None when it is not installed (peers are optional)."""
    try:
        return importlib.import_module(name)
    except ImportError:
        return None




def shipped_tiktoken(name: str = "cl100k_base") -> bytes:
    """OpenAI's ``name``.tiktoken rebuilt from what ships in bpe_core/data, checked against its
    published hash."""
    from bpe_core.pretrained import published_files

    return published_files(name)[f"{name}.tiktoken"]


def load_tiktoken(
    ranks_path: Path | None = None, name: str = "cl100k_base"
) -> tuple[Any, str | None]:
    """tiktoken's ``name`` (cl100k_base or o200k_base) from the shipped vocabulary (or
    ``ranks_path``): ``(encoding or None, why not)``. No network: the ranks are handed to
    tiktoken, never fetched."""
    tiktoken = import_optional("tiktoken")
    if tiktoken is None:
        return None, "tiktoken is not installed: its rows are skipped"
    if ranks_path is None:
        data = shipped_tiktoken(name)
    elif ranks_path.is_file():
        data = ranks_path.read_bytes()
    else:
        return None, f"{ranks_path} not found: tiktoken rows are skipped"
    ranks = {base64.b64decode(token): int(rank)  # tiktoken's own format: "base64 rank" a line
             for token, rank in (line.split() for line in data.splitlines() if line)}
    enc = tiktoken.Encoding(
        name=name,
        pat_str=PRESETS[name]["pattern"],
        mergeable_ranks=ranks,
        special_tokens=PRESETS[name]["special_tokens"],
    )
    return enc, None


