"""The cost of the worst allowed upload: CPU seconds, wall seconds and memory to read a 10 MB
tokenizer file (the app's upload limit) of each shape that costs the most, each in a fresh
process: ``python benchmarks/worst_uploads.py [--mb 10]``.

* ``hf-most-tokens``: a tokenizer.json with as many tokens as fit (every 1-, 2- and then 3-byte
  token, in the byte-level alphabet, each 3-byte one merged from a 2-byte one and a byte);
* ``tiktoken-most-tokens``: tiktoken ranks of every 1-, 2-, then 3-byte token (the most lines);
* ``tiktoken-long-tokens``: runs of one letter, 2 to 2,000 bytes long, for a, b, c... (recovering
  a token's merges replays BPE on its bytes: the most bytes to replay);
* ``cl100k_base.tiktoken``: OpenAI's file (1.7 MB), for scale.

For each: the process's CPU and wall time to ``bpe_core.read_tokenizer``, its peak RSS, the
memory the process holds more once the tokenizer is read (its RSS after a collection, less its
RSS before: an upper bound, the allocator keeps some of what the reading freed), and that per
token. Prints the load average (the CPU seconds vary with it less than the wall seconds).
"""

from __future__ import annotations

import argparse
import base64
import itertools
import json
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(Path(__file__).parent)]

from bpe_core.text import bytes_to_unicode  # noqa: E402

MEASURE = """
import gc, resource, sys, time
sys.path.insert(0, {root!r})
import bpe_core

def rss():
    with open("/proc/self/status") as f:
        return next(int(line.split()[1]) * 1024 for line in f if line.startswith("VmRSS:"))

data = open({path!r}, "rb").read()
kw = {{}} if {path!r}.endswith(".json") else dict(pattern=bpe_core.GPT4_SPLIT_PATTERN,
                                                  special_tokens={{}})
gc.collect()
before = rss()
cpu, wall = time.process_time(), time.perf_counter()
tok = bpe_core.read_tokenizer(data, {name!r}, **kw)
cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
gc.collect()
held = rss() - before
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
print(len(tok.vocab), cpu, wall, peak, held)
"""


def lines_upto(limit: int, lines) -> bytes:
    out, size = [], 0
    for line in lines:
        if size + len(line) > limit:
            break
        out.append(line)
        size += len(line)
    return b"".join(out)


def short_tokens():
    """Every 1-byte, then 2-byte, then 3-byte token: the most tokens a file of a size holds."""
    yield from (bytes([a]) for a in range(256))
    yield from (bytes([a, b]) for a in range(256) for b in range(256))
    yield from (bytes([a, b, c]) for a in range(256) for b in range(256) for c in range(256))


def tiktoken_file(tokens, limit: int) -> bytes:
    return lines_upto(limit, (base64.b64encode(t) + b" %d\n" % r for r, t in enumerate(tokens)))


def hf_file(limit: int) -> bytes:
    """A tokenizer.json (byte-level BPE) with as many short tokens as ``limit`` bytes hold."""
    alphabet = bytes_to_unicode()

    def spell(token: bytes) -> str:
        return "".join(alphabet[b] for b in token)

    vocab, merges, size = {}, [], 4_000
    for token in short_tokens():
        entry = spell(token)
        merge = None if len(token) == 1 else f"{spell(token[:-1])} {spell(token[-1:])}"
        size += len(entry.encode()) + 10 + (len(merge.encode()) + 3 if merge else 0)
        if size > limit:
            break
        vocab[entry] = len(vocab)
        if merge:
            merges.append(merge)
    document = {"version": "1.0", "added_tokens": [], "normalizer": None,
                "pre_tokenizer": {"type": "ByteLevel", "add_prefix_space": False,
                                  "trim_offsets": True, "use_regex": True},
                "post_processor": None,
                "decoder": {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True,
                            "use_regex": True},
                "model": {"type": "BPE", "dropout": None, "unk_token": None,
                          "continuing_subword_prefix": None, "end_of_word_suffix": None,
                          "fuse_unk": False, "byte_fallback": False, "ignore_merges": False,
                          "vocab": vocab, "merges": merges}}
    return json.dumps(document, ensure_ascii=False, separators=(",", ":")).encode()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--mb", type=float, default=10)
    parser.add_argument("--only", default="", help="comma-separated names to run")
    args = parser.parse_args()
    limit = int(args.mb * 1024 * 1024)
    from bench_kit import shipped_tiktoken

    long_tokens = itertools.chain((bytes([a]) for a in range(256)), (
        bytes([b]) * k for b in range(97, 123) for k in range(2, 2_001)))
    files = {
        "hf-most-tokens.json": lambda: hf_file(limit),
        "tiktoken-most-tokens.tiktoken": lambda: tiktoken_file(short_tokens(), limit),
        "tiktoken-long-tokens.tiktoken": lambda: tiktoken_file(long_tokens, limit),
        "cl100k_base.tiktoken": lambda: shipped_tiktoken("cl100k_base"),
    }
    only = [n for n in args.only.split(",") if n]
    with tempfile.TemporaryDirectory() as folder:
        for name, make in files.items():
            if only and not any(name.startswith(o) for o in only):
                continue
            data = make()
            path = str(Path(folder) / name)
            Path(path).write_bytes(data)
            load = " ".join(open("/proc/loadavg").read().split()[:3])
            done = subprocess.run([sys.executable, "-c", MEASURE.format(root=str(ROOT), path=path,
                                                                       name=name)],
                                  capture_output=True, text=True)
            if done.returncode:
                print(f"{name}: failed: {done.stderr[-800:]}", flush=True)
                continue
            tokens, cpu, wall, peak, held = done.stdout.split()
            tokens, held = int(tokens), int(held)
            print(f"{name}: {len(data) / 1024**2:.1f} MB, {tokens:,} tokens: CPU {float(cpu):.1f} s,"
                  f" wall {float(wall):.1f} s, peak RSS {int(peak) / 1024**2:.0f} MB, held after"
                  f" reading {held / 1024**2:.0f} MB ({held / tokens:.0f} B a token);"
                  f" load {load} at start", flush=True)


if __name__ == "__main__":
    main()
