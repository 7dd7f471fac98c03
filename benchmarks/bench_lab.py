"""Sections 6 and 7 of ``benchmarks/bench.py``: the lab's work (``bpe_lab``), timed against the same
answers from tiktoken where it has them: checking a learner's merges, and who pays for tokens.
Run them through ``python benchmarks/bench.py``; they share its Report and timing helpers."""

from __future__ import annotations

from collections import defaultdict
from typing import TYPE_CHECKING

from benchmarks.bench_kit import fmt_ratio, fmt_s, load_tiktoken, medians, timed

if TYPE_CHECKING:
    from benchmarks.bench_kit import Report

# ----------------------------------------------------------------------------------------------
# 6. Checking a learner's merges

def check_section(report: Report, corpus: str, chars: int, merges: int, repeat: int) -> None:
    """Section 6: ``check_merges`` with its diagnosis, on the learner's outputs of two mistakes."""
    from dataclasses import replace

    from bpe_core import GPT2_SPLIT_PATTERN
    from bpe_lab import check

    text = corpus[:chars]  # full run: the app's largest text, and the page's most merges
    settings = {"pattern": GPT2_SPLIT_PATTERN, "vocab_size": 256 + 1 + merges,
                "special_tokens": ["<|endoftext|>"]}
    setup = check.Setup(GPT2_SPLIT_PATTERN, settings["vocab_size"], ("<|endoftext|>",))
    learners = {
        "ties broken by the bytes rule": check.replay(text, replace(setup, tie_rule="bytes")),
        "merges applied right to left": check.replay(text, replace(setup, merge="right_to_left")),
    }
    samples: dict[str, list[float]] = defaultdict(list)
    found = {}
    for _ in range(repeat):
        for name, mine in learners.items():
            seconds, found[name] = timed(lambda m=mine: check.check_merges(m, text, **settings))
            samples[name].append(seconds)
    med = medians(samples)
    rows = []
    for name, mine in learners.items():
        r = found[name]
        best = r.diagnoses[0] if r.diagnoses else None
        rows.append([name, f"{len(mine):,}", r.comparison.first_difference, fmt_s(med[name]),
                     best.mistake.key if best else "none",
                     "yes" if best and best.explains_all else "no"])
    report.title(f"6. Checking a learner's merges: {len(text):,} characters, GPT-2 split"
                 f" (median of {repeat})")
    report.table(["the learner's mistake", "merges", "parts at", "check + diagnosis s",
                  "diagnosed as", "explains all"], rows)
    report.line()


# ----------------------------------------------------------------------------------------------
# 7. Who pays for tokens: the language tax, numbers, vocabulary health, the report card


def who_pays_section(report: Report, repeat: int) -> None:
    """Section 7: what the "Who pays for tokens" pages compute for a GPT vocabulary, against the
    same answers from tiktoken, side by side. Every bpe_core round starts from a copy of the
    preset with an empty chunk cache (``bpe_lab.who_pays.report.cold_copy``), as a server's first session
    meets it; tiktoken keeps no cache between calls."""
    from collections import Counter

    from bpe_core import load_pretrained
    from bpe_lab.who_pays.costs import language_costs, train_comparison
    from bpe_lab.who_pays.health import classify_tokens, vocabulary_defects
    from bpe_lab.who_pays.languages import load_parallel
    from bpe_lab.who_pays.numbers import NUMBERS, YEARS, number_facts
    from bpe_lab.who_pays.report import cold_copy

    languages = load_parallel()
    texts = [lang.text for lang in languages]
    rows = []
    for name in ("cl100k_base", "o200k_base"):
        enc, why = load_tiktoken(name=name)
        tok = load_pretrained(name)
        specials = set(tok.special_tokens.values())

        def tiktoken_health(enc=enc, specials=specials):
            failing = 0
            for t in range(enc.n_vocab):
                if t in specials:
                    continue
                try:
                    data = enc.decode_single_token_bytes(t)
                except KeyError:  # a hole in the ids (o200k's before its specials)
                    continue
                try:
                    text = data.decode("utf-8")
                except UnicodeDecodeError:
                    failing += 1
                    continue
                failing += enc.encode(text, disallowed_special=()) != [t]
            return failing

        def tiktoken_numbers(enc=enc):
            return [len(enc.encode(f"{space}{n}")) for n in (*NUMBERS, *YEARS)
                    for space in ("", " ")]

        def tiktoken_tax(enc=enc):
            return [len(enc.encode_ordinary(text)) for text in texts]

        jobs = {
            "vocabulary health, kinds 1-3 (every token)": (
                lambda tok=tok: vocabulary_defects(cold_copy(tok)), tiktoken_health),
            "numbers: 0-999 and 1900-2099, with and without a space": (
                lambda tok=tok: number_facts(cold_copy(tok)), tiktoken_numbers),
            f"language tax: {len(languages)} languages": (
                lambda tok=tok, name=name: language_costs({name: cold_copy(tok)}, languages),
                tiktoken_tax),
        }
        samples: dict[str, list[float]] = defaultdict(list)
        for _ in range(repeat):
            for what, (ours, theirs) in jobs.items():
                samples[what, "ours"].append(timed(ours)[0])
                if enc is not None:
                    samples[what, "tiktoken"].append(timed(theirs)[0])
        med = medians(samples)
        for what in jobs:
            peer = med.get((what, "tiktoken"))
            rows.append([name, what, fmt_s(med[what, "ours"]), fmt_s(peer) if peer else why,
                         fmt_ratio(med[what, "ours"] / peer) if peer else ""])
        counts = Counter(tok.encode_ordinary("\n".join(texts)))
        defects = vocabulary_defects(tok)
        seconds, _ = timed(lambda tok=tok, c=counts, d=defects: classify_tokens(tok, c, d))
        rows.append([name, "vocabulary health, kinds 4-6 on the parallel text (1-3 known)",
                     fmt_s(seconds), "", ""])
    seconds, comparison = timed(lambda: train_comparison(languages, 1024))
    rows.append(["trained", "English-only vs all languages, vocab 1024 (both trainings)",
                 fmt_s(seconds), "", ""])
    report.title(f"7. Who pays for tokens (median of {repeat}; ratios below 1x: bpe_core faster)")
    report.table(["vocabulary", "what", "bpe_core", "tiktoken", "ratio"], rows)
    report.line()


