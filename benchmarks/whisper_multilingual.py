"""Whisper's own tokenizer under ``import bpe_core as tiktoken`` beside real tiktoken, on 1,000
texts: ``python benchmarks/whisper_multilingual.py WHISPER_TOKENIZER_PY``.

openai-whisper is not installed here (it needs torch), but its ``whisper/tokenizer.py`` needs
only tiktoken: give the path of that file from a checkout of openai/whisper, with its
``assets/`` folder (``multilingual.tiktoken``, ``gpt2.tiktoken``) beside it. The file is
loaded twice as a module, once with ``sys.modules["tiktoken"]`` real tiktoken and once bpe_core,
and ``get_tokenizer(multilingual=True)`` (and ``False``) of each encode and decode the same
texts: the parallel sentences of ``bpe_lab.who_pays.languages`` and slices of pydoc's prose and
of standard library code (tests/support.py). Prints how many differ, the build times and the
load average. Nothing is fetched.
"""

from __future__ import annotations

import importlib.util
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))


def whisper_module(path: str, tiktoken_module: object) -> object:
    sys.modules["tiktoken"] = tiktoken_module  # what whisper's module imports
    spec = importlib.util.spec_from_file_location(f"whisper_{id(tiktoken_module)}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def texts(n: int = 1000) -> list[str]:
    from support import CORPORA

    from bpe_lab.who_pays.languages import load_parallel

    out = [line for lang in load_parallel() for line in lang.lines]
    prose, code = CORPORA["prose"], CORPORA["code"]
    out += [prose[i * 97:i * 97 + 120] for i in range(400)]
    out += [code[i * 83:i * 83 + 120] for i in range(400)]
    return out[:n]


def main() -> int:
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    import tiktoken

    import bpe_core

    sample = texts()
    for multilingual in (True, False):
        start = time.perf_counter()
        ours = whisper_module(sys.argv[1], bpe_core).get_tokenizer(multilingual=multilingual)
        built = time.perf_counter() - start
        start = time.perf_counter()
        theirs = whisper_module(sys.argv[1], tiktoken).get_tokenizer(multilingual=multilingual)
        built_theirs = time.perf_counter() - start
        differ = sum(ours.encode(t) != theirs.encode(t)
                     or ours.decode(theirs.encode(t)) != theirs.decode(theirs.encode(t))
                     for t in sample)
        print(f"multilingual={multilingual}: {differ} of {len(sample)} texts differ;"
              f" n_vocab {ours.encoding.n_vocab} and {theirs.encoding.n_vocab};"
              f" sot_sequence equal: {ours.sot_sequence == theirs.sot_sequence};"
              f" built in {built:.1f} s (bpe_core, {type(ours.encoding).__name__}) and"
              f" {built_theirs:.1f} s (tiktoken); load average"
              f" {open('/proc/loadavg').read().split()[:3]}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
