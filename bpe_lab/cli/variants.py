"""``bpe-lab train --variant superbpe|boundless|parity``: the trainers of bpe_core/superbpe.py,
boundless.py and parity.py from the command line, with the same reading, progress and saving as the
classical trainer (commands.train).

- ``--variant superbpe --transition T``: T merges of stage one inside the split pattern's
  pieces, then stage two over the paper's stage-two split up to ``--vocab-size``.
- ``--variant boundless``: two-phase BoundlessBPE; phase two finds the transition itself
  (GPT-2's, GPT-4's or GPT-4o's split pattern only).
- ``--variant superbpe --transition T``: ``--stage-two authors`` (the default: the corpus read
  line by line, at most 4 words a token, no ": ") or ``open`` (this project's earlier rules).
- ``--variant boundless``: ``--stopping authors`` (the default: when phase one runs out, stop
  at its size) or ``fill`` (fill the vocabulary with supermerges).
- ``--variant parity``: each CORPUS file is one language, named by its file name without the
  extension (``de.txt`` is "de"); each merge serves the language that costs most. When every
  file has the same number of lines (parallel texts, as the authors' development set) the cost
  is the number of tokens, the authors' count; else tokens per byte. ``--parallel`` and
  ``--per-byte`` choose either; the summary line says which was used and why.

Without ``--workers``, a file of one block is counted in this process (no worker processes to
start: parity reads one file per language, and starting a pool for each cost 41.7 s on 43 KB).

Every variant takes ``--special-token`` as the classical trainer does (the corpus is cut at
each, no merge or supermerge crosses one, and they count in --vocab-size). ``--variant parity`` also takes ``--window`` and ``--alpha`` (the authors' moving window).
No variant takes --history or --dask (each says so and how to do without).
"""

from __future__ import annotations

import argparse
import os

from bpe_core.boundless import train_boundless_corpus, word_run_pattern
from bpe_core.parity import train_parity_corpus
from bpe_core.superbpe import train_superbpe_corpus

from . import inputs, outputs
from .commands import training_interrupted
from .inputs import UsageError
from .progress import Bars, Clock, megabytes, memory_words

VARIANTS = ("classic", "superbpe", "boundless", "parity")


def check_variant_options(args: argparse.Namespace) -> None:
    """UsageError for an option the chosen variant does not take, or one it needs."""
    variant = args.variant
    window, alpha = getattr(args, "window", None), getattr(args, "alpha", None)
    stage_two, stopping = getattr(args, "stage_two", None), getattr(args, "stopping", None)
    per_byte = getattr(args, "per_byte", False)
    if variant != "superbpe" and stage_two is not None:
        raise UsageError("--stage-two belongs to --variant superbpe")
    if variant != "boundless" and stopping is not None:
        raise UsageError("--stopping belongs to --variant boundless")
    if variant != "parity" and per_byte:
        raise UsageError("--per-byte belongs to --variant parity")
    if args.parallel and per_byte:
        raise UsageError("--parallel and --per-byte choose opposite costs: give one of them")
    if variant == "classic":
        for option, value in (("--transition", args.transition),
                              ("--global-merges", args.global_merges), ("--window", window),
                              ("--alpha", alpha)):
            if value is not None:
                raise UsageError(f"{option} belongs to a variant: add --variant"
                                 f" {'superbpe' if option == '--transition' else 'parity'}")
        if args.parallel:
            raise UsageError("--parallel belongs to --variant parity")
        return
    for option, given in (("--history", args.history), ("--dask", args.dask)):
        if given:
            raise UsageError(f"--variant {variant} does not take {option}; train without it"
                             " (or with --variant classic)")
    if variant == "superbpe":
        if args.transition is None:
            raise UsageError("--variant superbpe needs --transition T: how many merges stage one"
                             " makes inside words before stage two merges across them (e.g. 80%"
                             " of --vocab-size minus 256)")
        specials = len(set(args.special_token or ()))
        most = args.vocab_size - 256 - specials
        if not 0 <= args.transition <= most:
            raise UsageError(f"--transition {args.transition} must be from 0 to {most}"
                             " (--vocab-size minus 256"
                             f"{' and the special tokens' if specials else ''})")
        if args.global_merges is not None or args.parallel or window is not None \
                or alpha is not None:
            raise UsageError("--global-merges, --parallel, --window and --alpha belong to"
                             " --variant parity")
    elif variant == "boundless":
        if args.transition is not None:
            raise UsageError("--variant boundless finds its transition itself; --transition"
                             " belongs to --variant superbpe")
        if args.global_merges is not None or args.parallel or window is not None \
                or alpha is not None:
            raise UsageError("--global-merges, --parallel, --window and --alpha belong to"
                             " --variant parity")
    else:
        if args.transition is not None:
            raise UsageError("--transition belongs to --variant superbpe")
        if args.global_merges is not None and args.global_merges < 0:
            raise UsageError(f"--global-merges {args.global_merges} must be 0 or more")
        if window is not None and window < 0:
            raise UsageError(f"--window {window} must be 0 (none) or more merges")
        if alpha is not None and window is None:
            raise UsageError("--alpha goes with --window W (the moving window it sizes)")
        if alpha is not None and not alpha >= 1:
            raise UsageError(f"--alpha {alpha} must be at least 1 (the authors' default is 2)")


def line_count(path: str) -> int:
    """The lines of a file (a last line without a line break counts too)."""
    lines, last = 0, b"\n"
    with open(path, "rb") as f:
        while block := f.read(1 << 20):
            lines += block.count(b"\n")
            last = block[-1:]
    return lines + (last != b"\n")


def parity_cost(args: argparse.Namespace, languages: dict[str, str]) -> tuple[bool, str]:
    """(parallel, the words that say which cost and why): the options given, or the lines."""
    if args.parallel:
        return True, "cost: tokens (--parallel)"
    if args.per_byte:
        return False, "cost: tokens per byte (--per-byte)"
    counts = {name: line_count(path) for name, path in languages.items()}
    if len(set(counts.values())) == 1:
        n = next(iter(counts.values()))
        return True, (f"cost: tokens, since every file has {n:,} lines and is read as a"
                      " parallel text; --per-byte for tokens per byte")
    return False, (f"cost: tokens per byte, since the files have from {min(counts.values()):,}"
                   f" to {max(counts.values()):,} lines; --parallel if they say the same thing")


def language_files(paths: list[str]) -> dict[str, str]:
    """{language name: file} for --variant parity: each file's name without its extension."""
    out: dict[str, str] = {}
    for path in paths:
        name = os.path.splitext(os.path.basename(path))[0]
        if name in out:
            raise UsageError(f"{out[name]} and {path} both name the language {name!r}: with"
                             " --variant parity each file is one language, named by its file"
                             " name; rename one")
        out[name] = path
    return out


def train(args: argparse.Namespace) -> int:
    """Train ``args.variant`` on the corpus files and save it (the classical trainer's checks,
    progress bars and messages)."""
    clock = Clock()
    specials = inputs.specials_from(args.special_token)
    inputs.check_vocab_size(args.vocab_size, specials)
    check_variant_options(args)
    pattern = inputs.pattern_from(args.pattern)
    if args.variant == "boundless":
        try:
            word_run_pattern(pattern)
        except ValueError as e:
            raise UsageError(f"--variant boundless: {e}") from None
    workers, warning = inputs.workers_from(args.workers)
    inputs.check_block_bytes(args.block_bytes)
    if args.min_frequency is not None and args.min_frequency < 0:
        raise UsageError(f"--min-frequency {args.min_frequency} must be 0 or more")
    if args.max_token_bytes is not None and args.max_token_bytes < 2:
        raise UsageError(f"--max-token-bytes {args.max_token_bytes} must be 2 or more")
    outputs.check_out(args.format, args.out, args.force)
    total = inputs.check_corpus(args.corpus)
    inputs.check_pattern_speed(pattern, args.corpus)
    languages = language_files(args.corpus) if args.variant == "parity" else None
    parallel, cost_words = parity_cost(args, languages) if languages else (False, "")
    if warning:
        print(f"bpe-lab: warning: {warning}", flush=True)
    bars = Bars()
    num_merges = args.vocab_size - 256 - len(specials)
    # Parity reads one file per language (each read counts from 0 again); SuperBPE and
    # BoundlessBPE read the corpus a second time for their second stage or phase, after merging
    # began (that read has no bar).
    read_so_far = [0, 0]  # bytes of the reads finished, of the current one

    def on_bytes(done: int, total_bytes: int | None = None) -> None:
        if bars.steps_done:
            return
        if done < read_so_far[1]:  # a new read began
            read_so_far[0] += read_so_far[1]
        read_so_far[1] = done
        bars.set_bytes(read_so_far[0] + done, total)

    # SuperBPE and BoundlessBPE count each stage's or phase's merges from 1: a bar each, named
    # ("phase one: merging 144/144", then "phase two: merging ...")
    stage = {"words": None, "total": num_merges, "new": False}

    def on_stage(words: str, total_merges: int) -> None:
        stage.update(words=words, total=total_merges, new=True)

    def progress(done: int, total_merges: int, record) -> bool:
        if stage["new"] or (bars.steps_done == 0 and done):
            stage["new"] = False
            bars.start_steps(total_merges, f"{stage['words']}: merging" if stage["words"]
                             else "merging")
        bars.set_steps(done)
        return True

    # no --workers: count_pieces counts a file of one block here, and uses every core for more
    options = dict(pattern=pattern, workers=None if args.workers is None else workers,
                   errors=args.errors,
                   block_bytes=args.block_bytes, on_bytes=on_bytes, progress=progress,
                   special_tokens=specials, tie_rule=args.tie_rule, min_frequency=args.min_frequency or 0,
                   max_token_bytes=args.max_token_bytes)
    bars.start_bytes(total, "reading")
    try:
        if args.variant == "superbpe":
            tok = train_superbpe_corpus(args.corpus, args.vocab_size, args.transition,
                                        on_stage=on_stage,
                                        stage_two=getattr(args, "stage_two", None) or "authors",
                                        **options)
        elif args.variant == "boundless":
            tok = train_boundless_corpus(args.corpus, args.vocab_size, on_stage=on_stage,
                                         stopping=getattr(args, "stopping", None) or "authors",
                                         **options)
        else:
            tok = train_parity_corpus(languages, args.vocab_size, parallel=parallel,
                                      global_merges=args.global_merges or 0,
                                      window=args.window or 0,
                                      alpha=2 if args.alpha is None else args.alpha, **options)
        bars.close()
        tok.history = []  # the counts stay out of the files (no --history for variants)
        written = outputs.save(tok, args.format, args.out, args.force)
    except KeyboardInterrupt:
        bars.close()
        raise training_interrupted(bars, clock, stage["total"], total, args.out,
                                   stage["words"]) from None
    except ValueError as e:
        raise UsageError(str(e)) from None
    finally:
        bars.close()
    stop = f"; {tok.stop_reason}" if tok.stop_reason else ""
    if args.variant == "superbpe":
        early = (f" (asked for {tok.asked_transition:,}: stage one ran out of pairs early)"
                 if tok.ran_out_early else "")
        what = (f"SuperBPE ({tok.stage_two} stage-two rules): {tok.transition:,} merges in stage"
                f" one{early}, {tok.num_merges - tok.transition:,} in stage two,"
                f" {len(tok.superword_ids()):,} superword tokens")
    elif args.variant == "boundless":
        early = (f"; phase one ran out after {tok.phase_one_merges:,} of"
                 f" {tok.asked_merges:,} merges ({tok.stopping} stopping rule)"
                 if tok.ran_out_early else "")
        what = (f"BoundlessBPE: phase two kept {tok.transition:,} of phase one's merges (the"
                f" transition it found), then {len(tok.superword_ids()):,} supermerges{early}")
    else:
        served = {name: tok.served.count(name) for name in tok.languages}
        what = f"parity-aware BPE ({cost_words}): merges served " + ", ".join(
            f"{name} {n:,}" for name, n in served.items())
    print(f"trained {tok.vocab_size:,} tokens ({tok.num_merges:,} merges{stop}) on"
          f" {megabytes(total)} in {clock.words()}, {memory_words()}; {what}; wrote {written}",
          flush=True)
    return 0
