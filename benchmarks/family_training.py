"""The sidebar's three families of BPE trained on the app's worst text, at its largest vocabulary.

    python benchmarks/family_training.py                 # 200,000 and 50,000 characters, 8,192
    python benchmarks/family_training.py --chars 50000 --vocab 4096

What ``ui.kit.families.train_family`` costs for each family (byte-level with the GPT-4 split,
SentencePiece with byte fallback, word BPE as subword-nmt) on two texts: random words (30,000
distinct words of 1 to 9 letters, some of them accented or CJK, in lines of 300 characters:
nothing repeats much, the worst case) and Python's help topics (``pydoc_data.topics``: prose
with code). The training is given the whole text (``train_family`` itself cuts word BPE's at
``MAX_WORD_TRAIN_CHARS``; here ``--chars`` says how much is given). CPU seconds of this process
and wall seconds; the load average is printed beside each, as the 2-core machine is shared.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from ui.kit import families  # noqa: E402


def random_words(chars: int, seed: int = 0) -> str:
    rng = random.Random(seed)
    letters = "abcdefghijklmnopqrstuvwxyzéüß漢字"
    words = ["".join(rng.choice(letters) for _ in range(rng.randint(1, 9))) for _ in range(30_000)]
    text = " ".join(rng.choice(words) for _ in range(chars // 4))
    return "\n".join(text[i:i + 300] for i in range(0, len(text), 300))[:chars]


def prose(chars: int) -> str:
    import pydoc_data.topics

    topics = pydoc_data.topics.topics
    return "\n\n".join(topics[k] for k in sorted(topics))[:chars]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--chars", type=int, nargs="+", default=[200_000, 50_000])
    parser.add_argument("--vocab", type=int, default=8_192)
    args = parser.parse_args()
    limit = families.MAX_WORD_TRAIN_CHARS
    print("| text | characters | family | CPU s | wall s | load |\n|---|---|---|---|---|---|")
    for chars in args.chars:
        for name, text in (("random words", random_words(chars)), ("pydoc topics", prose(chars))):
            for family in families.FAMILIES:
                load = open("/proc/loadavg").read().split()[0]
                cpu, wall = time.process_time(), time.perf_counter()
                settings = families.family_settings(family, args.vocab)
                try:
                    if family == families.WORD and chars > limit:  # past the app's cut: as given
                        from bpe_core.word_bpe import learn_merges

                        learn_merges(text, args.vocab, total_symbols=True)
                    else:
                        families.train(text, settings)
                    what = ""
                except ValueError as e:
                    what = f" (refused: {str(e)[:60]})"
                print(f"| {name} | {len(text):,} | {family}{what} |"
                      f" {time.process_time() - cpu:.1f} | {time.perf_counter() - wall:.1f} |"
                      f" {load} |", flush=True)


if __name__ == "__main__":
    main()
