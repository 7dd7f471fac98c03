"""The four commands: ``train``, ``encode``, ``check`` and ``info``. Each takes the parsed
arguments, does the work through bpe_core, and returns the exit code; bad input is a
``UsageError`` (cli.py prints it), Ctrl-C a ``KeyboardInterrupt`` that each command turns into
a sentence saying what was done.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections import deque

import bpe_core
from bpe_core import Tokenizer
from bpe_core.corpus import MAX_BLOCK_BYTES
from bpe_core.family_files import family_refusal
from bpe_core.files import MissingSettingsError
from bpe_core.split import proven_cuts
from bpe_lab import check

from . import inputs, outputs
from .inputs import UsageError
from .progress import Bars, Clock, TreeMemory, megabytes

HISTORY_CANDIDATES = 5  # runner-up pairs kept for each merge with --history ("why this merge")


class Interrupted(Exception):
    """Ctrl-C, with a sentence saying what had been done."""


def say(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


# -- train -----------------------------------------------------------------------------------


def dask_client(address: str | None):
    """A ``distributed.Client`` for ``--dask ADDRESS``, or None."""
    if address is None:
        return None
    try:
        from distributed import Client
    except ImportError:
        raise UsageError("--dask needs Dask's distributed scheduler, which is not installed:"
                         " pip install 'bpe-lab[dask]'") from None
    from bpe_core.corpus import DASK_NO_WORKER_SECONDS

    try:
        client = Client(address, timeout="10s")
    except (OSError, TimeoutError, ValueError) as e:
        raise UsageError(f"--dask {address}: cannot reach a Dask scheduler there ({e}); start"
                         " one (dask scheduler) and give its tcp://HOST:PORT") from None
    if not client.nthreads():
        say(f"bpe-lab: the Dask scheduler at {address} has no worker yet; waiting up to"
            f" {DASK_NO_WORKER_SECONDS:g} s for one (start one: dask worker {address})")
    return client


def training_interrupted(bars: Bars, clock: Clock, num_merges: int, total: int,
                         out: str, stage: str | None = None) -> Interrupted:
    """Ctrl-C during training, in a sentence: how far it got (in ``stage``, "phase two", when the
    trainer has two), and that nothing was written."""
    if bars.steps_done:
        done = f"made {bars.steps_done:,} of {num_merges:,} merges"
        done += f" of {stage}" if stage else ""
    else:
        done = f"read {megabytes(bars.bytes_done)} of {megabytes(total)}"
    return Interrupted(f"interrupted after {clock.words()}: {done}; nothing was written"
                       f" ({out} is as it was)")


def train(args: argparse.Namespace) -> int:
    from . import spm_family, variants  # (they import this module)

    if getattr(args, "family", "byte-level") == "sentencepiece":
        return spm_family.train(args)
    spm_family.check_family(args)
    args.format = args.format or "minbpe"
    if getattr(args, "variant", "classic") != "classic":
        return variants.train(args)
    if hasattr(args, "variant"):
        variants.check_variant_options(args)
    with TreeMemory() as memory:  # the summary line's peak: this process and its workers
        return _train(args, memory)


def _train(args: argparse.Namespace, memory: TreeMemory) -> int:
    clock = Clock()
    specials = inputs.specials_from(args.special_token)
    inputs.check_vocab_size(args.vocab_size, specials)
    pattern = inputs.pattern_from(args.pattern)
    workers, warning = inputs.workers_from(args.workers, remote=args.dask is not None)
    inputs.check_block_bytes(args.block_bytes)
    if args.min_frequency is not None and args.min_frequency < 0:
        raise UsageError(f"--min-frequency {args.min_frequency} must be 0 or more")
    if args.max_token_bytes is not None and args.max_token_bytes < 1:
        raise UsageError(f"--max-token-bytes {args.max_token_bytes} must be 1 or more")
    outputs.check_out(args.format, args.out, args.force)
    total = inputs.check_corpus(args.corpus)
    inputs.check_pattern_speed(pattern, args.corpus)
    if warning:
        say(f"bpe-lab: warning: {warning}")
    largest_block = args.block_bytes
    if pattern and proven_cuts(pattern) is None:  # cut only after special tokens: blocks grow
        largest_block = min(total, max(MAX_BLOCK_BYTES, args.block_bytes))
    if pattern and proven_cuts(pattern) is None and not specials and total > args.block_bytes:
        say("bpe-lab: note: a custom split pattern is cut into blocks only right after a special"
            " token (no other cut is proven to keep its pieces), so this corpus is counted as one"
            " block, by one worker; put a special token between documents and pass"
            " --special-token to count in parallel")
    client = dask_client(args.dask)
    tok = inputs.new_tokenizer(pattern, inputs.block_timeout(pattern, largest_block))
    bars = Bars()
    num_merges = args.vocab_size - 256 - len(specials)

    def on_bytes(done: int, total_bytes: int | None = None) -> None:
        bars.set_bytes(done, total_bytes)

    def progress(done: int, total_merges: int, record) -> bool:
        if bars.steps_done == 0 and done:
            bars.start_steps(total_merges)
        bars.set_steps(done)
        return True

    bars.start_bytes(total, "reading")
    try:
        # a Dask worker may run in another folder: it gets absolute paths
        sources = [os.path.abspath(p) if client is not None else p for p in args.corpus]
        tok.train_corpus(
            sources, args.vocab_size, workers=workers, errors=args.errors,
            block_bytes=args.block_bytes,
            client=client, on_bytes=on_bytes, progress=progress,
            candidates=HISTORY_CANDIDATES if args.history else 0, tie_rule=args.tie_rule,
            special_tokens=specials, min_frequency=args.min_frequency or 0,
            max_token_bytes=args.max_token_bytes,
        )
        bars.close()
        if not args.history:  # the counts stay out of the files (and no sidecar for them)
            tok.history = []
        written = outputs.save(tok, args.format, args.out, args.force)
    except KeyboardInterrupt:
        bars.close()
        raise training_interrupted(bars, clock, num_merges, total, args.out) from None
    except ValueError as e:  # bpe_core's word for bad input: a file's bytes, a token, a size
        raise UsageError(str(e)) from None
    except MemoryError as e:  # a helper process killed, most likely (first_count.py)
        raise UsageError(f"out of memory: {e}") from None
    except Exception as e:
        if client is None:
            raise
        first = (str(e).strip().splitlines() or [type(e).__name__])[0]
        raise UsageError(f"--dask {args.dask}: the cluster failed: {first} (its workers need"
                         " bpe_core and the same Python packages as here, and the corpus at the"
                         " same paths)") from None
    finally:
        bars.close()
        if client is not None:
            client.close()
    stop = f"; {tok.stop_reason}" if tok.stop_reason else ""
    print(f"trained {tok.vocab_size:,} tokens ({tok.num_merges:,} merges{stop}) on"
          f" {megabytes(total)} in {clock.words()}, {memory.words()}; wrote {written}",
          flush=True)
    return 0


# -- opening a tokenizer file ----------------------------------------------------------------


def file_settings(args: argparse.Namespace) -> dict:
    """bpe_core.load's ``pattern=`` and ``special_tokens=`` from --pattern and --special-token
    TOK=ID (None where not given: the file or its sidecar says them)."""
    settings: dict = {}
    if args.pattern is not None:
        settings["pattern"] = inputs.pattern_from(args.pattern)
    if args.special_token:
        specials: dict[str, int] = {}
        for value in args.special_token:
            if value == "none":
                continue
            text, sep, digits = value.rpartition("=")
            if not sep or not text or not digits.isdigit():
                raise UsageError(f"--special-token {value!r}: give a special token and its id,"
                                 " e.g. '<|endoftext|>=100257' (or 'none' for none)")
            specials[text] = int(digits)
        settings["special_tokens"] = specials
    return settings


def open_model(path: str, settings: dict | None = None,
               families: tuple[str, ...] = ("byte-level",)) -> tuple[Tokenizer, str, str]:
    """``(tokenizer, the file read, its format in words)`` for a file or a gpt2/cs336 folder;
    ``settings``: what the file does not say (``file_settings``); a tokenizer of a family not
    in ``families`` (the command cannot handle it) is refused by its family's name."""
    name = path
    if os.path.isdir(path):
        name = os.path.join(path, "vocab.json")
        if not os.path.isfile(name):
            raise UsageError(f"{path} is a folder without vocab.json: name a tokenizer file (a"
                             " .model, tokenizer.json, tiktoken ranks, or a folder that"
                             " bpe-lab train --format gpt2 or cs336 wrote)")
    inputs.readable_file(name, "tokenizer file")
    try:
        tok = bpe_core.load(name, **(settings or {}))
        with open(name, "rb") as f:
            kind = bpe_core.detect_format(f.read())
    except MissingSettingsError as e:  # said in the command line's words, not Python's
        flags = {"pattern": "--pattern gpt2|gpt4|gpt4o|none|REGEX (gpt2 for OpenAI's GPT-2"
                            " files)",
                 "special_tokens": "--special-token TOK=ID for each of its special tokens"
                                   " ('none' for none)"}
        raise UsageError(f"{name} came without the bpe-lab sidecar that says its "
                         + " and ".join(k.replace("_", " ") for k in e.keywords)
                         + "; give " + " and ".join(flags[k] for k in e.keywords)) from None
    except ValueError as e:
        raise UsageError(f"{e}") from None
    taken = tok.family in families and tok.family != "byte-level"  # else: a Tokenizer only
    why = None if taken else family_refusal(tok, name, "bpe-lab's " + (
        "commands" if families == ("byte-level",) else "encode"))
    if why:
        raise UsageError(why)
    words = {"minbpe": "minbpe .model", "hf": "Hugging Face tokenizer.json",
             "sentencepiece": "sentencepiece .model", "tiktoken": "tiktoken ranks",
             "gpt2-vocab": "GPT-2 vocab.json + merges.txt",
             "gpt2-merges": "GPT-2 merges.txt + vocab.json"}.get(kind, kind)
    return tok, name, words


# -- info ------------------------------------------------------------------------------------


def info(args: argparse.Namespace) -> int:
    tok, name, fmt = open_model(args.model, file_settings(args))
    rows = [
        ("file", name),
        ("format", fmt),
        ("kind", type(tok).__name__ + (" (with a Hugging Face pipeline)" if tok.pipeline else "")),
        ("pattern", inputs.pattern_words(tok.pattern)),
        ("vocab size", f"{tok.vocab_size:,} tokens (largest id {tok.max_token_value:,})"),
        ("merges", f"{tok.num_merges:,}"),
        ("special tokens", ", ".join(f"{s} = {i}" for s, i in tok.special_tokens.items())
         or "none"),
    ]
    history = getattr(tok, "history", None) or []
    if history:
        runners = max((len(r.candidates) for r in history), default=0)
        extra = f", up to {runners - 1} runner-up pairs each" if runners > 1 else ""
        rows.append(("history", f"{len(history):,} merges with their corpus counts{extra}"))
    else:
        rows.append(("history", "none (train with --history to keep each merge's counts)"))
    width = max(len(k) for k, _ in rows)
    for key, value in rows:
        print(f"{key:<{width}}  {value}")
    return 0


# -- encode ----------------------------------------------------------------------------------

_WORKER_TOK: Tokenizer | None = None


def _start_worker(tok: Tokenizer) -> None:
    """A worker's start: keep the tokenizer, and leave Ctrl-C to the parent, which ends the
    workers itself."""
    import signal

    global _WORKER_TOK
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _WORKER_TOK = tok


def _encode_block(block: tuple, errors: str, typecode: str) -> tuple[bytes, int, int]:
    """One block's ids as the array's bytes, how many, and the block's size in bytes."""
    from array import array

    from bpe_core.corpus import read_block

    assert _WORKER_TOK is not None
    text, size = read_block(block, errors)
    ids = _WORKER_TOK.encode(text, allowed_special="all")
    return array(typecode, ids).tobytes(), len(ids), size


def encode(args: argparse.Namespace) -> int:
    with TreeMemory() as memory:  # the summary line's peak: this process and its workers
        return _encode(args, memory)


def _encode(args: argparse.Namespace, memory: TreeMemory) -> int:
    import multiprocessing

    from bpe_core.corpus import file_blocks

    clock = Clock()
    tok, _, _ = open_model(args.model, file_settings(args), ("byte-level", "sentencepiece"))
    if tok.family == "sentencepiece":
        from . import spm_family

        return spm_family.encode(args, tok, clock, memory)
    if tok.pipeline is not None:
        raise UsageError(f"{args.model} is a tokenizer.json with a normalizer or pre-tokenizer;"
                         " bpe-lab encode cuts the corpus by the split pattern, which such a"
                         " pipeline may not respect: encode with Hugging Face tokenizers instead")
    workers, warning = inputs.workers_from(args.workers)
    inputs.check_block_bytes(args.block_bytes)
    total = inputs.check_corpus(args.corpus)
    outputs.check_ids_out(args.out, args.force)
    if tok.pattern not in inputs.PATTERN_WORDS:  # bounded as train bounds it: probe, then blocks
        inputs.check_pattern_speed(tok.pattern, args.corpus)
        tok.timeout = inputs.block_timeout(tok.pattern, args.block_bytes)
    if warning:
        say(f"bpe-lab: warning: {warning}")
    dtype = outputs.id_dtype(tok.max_token_value)
    bars = Bars()
    tokens = blocks = 0

    def fill(writer: outputs.IdWriter) -> None:
        nonlocal tokens

        def take(data: bytes, count: int, size: int) -> None:
            nonlocal tokens, blocks
            writer.write_bytes(data)
            tokens += count
            blocks += 1
            bars.add_bytes(size)

        cut = file_blocks(args.corpus, pattern=tok.pattern,
                          special_tokens=list(tok.special_tokens), block_bytes=args.block_bytes)
        bars.start_bytes(cut.total, "encoding")
        if workers == 1:
            _start_worker_here(tok)
            for block in cut.blocks:
                take(*_encode_block(block, args.errors, writer.typecode))
            return
        # "spawn": fresh interpreters, whatever threads this one runs (tqdm's monitor)
        pool = multiprocessing.get_context("spawn").Pool(workers, _start_worker, (tok,))
        try:
            waiting: deque = deque()  # results in corpus order; at most 2 blocks per worker
            for block in cut.blocks:
                waiting.append(pool.apply_async(_encode_block,
                                                (block, args.errors, writer.typecode)))
                if len(waiting) >= 2 * workers:
                    take(*waiting.popleft().get())
            while waiting:
                take(*waiting.popleft().get())
            pool.close()
        finally:  # an error or Ctrl-C: end the workers now and wait until they are gone
            pool.terminate()
            pool.join()

    try:
        outputs.write_ids(args.out, dtype, fill, force=args.force)
    except KeyboardInterrupt:
        bars.close()
        raise Interrupted(f"interrupted after {clock.words()}: encoded"
                          f" {megabytes(bars.bytes_done)} of {megabytes(total)} ({tokens:,}"
                          f" tokens); nothing was written ({args.out} is as it was)") from None
    except ValueError as e:  # bytes that are not UTF-8, a pattern that times out
        raise UsageError(str(e)) from None
    finally:
        bars.close()
    seconds = max(clock.seconds, 1e-9)
    per = f"{total / tokens:.2f} bytes per token" if tokens else "no tokens"
    print(f"encoded {megabytes(total)} into {tokens:,} tokens ({per}) in {clock.words()}:"
          f" {total / 1e6 / seconds:,.2f} MB/s, {tokens / seconds:,.0f} tokens/s with"
          f" {workers} worker{'s' if workers != 1 else ''} ({blocks:,} block{'s' if blocks != 1 else ''}),"
          f" {memory.words()}; wrote {args.out}"
          f" ({dtype}; numpy.load reads it)", flush=True)
    return 0


def _start_worker_here(tok: Tokenizer) -> None:
    global _WORKER_TOK
    _WORKER_TOK = tok


# -- check -----------------------------------------------------------------------------------


def read_learner(path: str) -> check.LearnerOutput:
    """A learner's merges from a file, or from a folder with merges.txt (and vocab.json)."""
    name = path
    if os.path.isdir(path):
        name = os.path.join(path, "merges.txt")
        if not os.path.isfile(name):
            raise UsageError(f"{path} is a folder without merges.txt: name the file that holds"
                             " your merges")
    inputs.readable_file(name, "file of merges")
    with open(name, "rb") as f:
        data = f.read(check.MAX_INPUT_CHARS + 1)
    vocab = None
    beside = os.path.join(os.path.dirname(name), "vocab.json")
    if os.path.basename(name) != "vocab.json" and os.path.isfile(beside):
        with open(beside, "rb") as f:
            vocab = f.read(check.MAX_INPUT_CHARS + 1)
    try:
        if vocab is not None:
            try:
                return check.read_merges(data, name, vocab=vocab)
            except ValueError:
                pass  # not a merges.txt after all: read it on its own below
        return check.read_merges(data, name)
    except ValueError as e:
        raise UsageError(str(e)) from None


CHECK_READ_BYTES = 1 << 20  # check reads its corpus in blocks of this many bytes


def _char_end(data: bytes) -> int:
    """Where the last whole UTF-8 character of ``data`` ends: before a lead byte whose
    character is not complete yet (its rest is in the next block), else the end."""
    for back in range(1, min(4, len(data)) + 1):
        byte = data[-back]
        if byte < 0x80:
            return len(data)
        if byte >= 0xC0:  # a lead byte: how long its character is
            need = 2 if byte < 0xE0 else 3 if byte < 0xF0 else 4
            return len(data) - back if need > back else len(data)
    return len(data)  # continuation bytes with no lead: not UTF-8, said where they are


CHECK_BOUND_WORDS = ("the check trains on at most {limit:,} (a few thousand show most"
                     " mistakes): give a shorter sample")


def read_corpus_text(paths: list[str], errors: str, limit: int = check.MAX_CHECK_CHARS,
                     bound_words: str = CHECK_BOUND_WORDS) -> str:
    """The corpus files as one text of at most ``limit`` characters (``check`` trains its
    reference on at most 200,000; ``bound_words`` says the bound): each file is read in blocks,
    never cutting a character, and its characters are counted to the end (a corpus over the
    bound is refused with its true size); non-UTF-8 bytes are named with their offset in the
    file."""
    inputs.check_corpus(paths)
    parts: list[str] = []
    kept = count = 0
    for path in paths:
        with open(path, "rb") as f:
            offset, carry = 0, b""  # offset: of carry's first byte in the file
            while True:
                block = f.read(CHECK_READ_BYTES)
                data = carry + block
                end = _char_end(data) if block else len(data)
                try:
                    text = data[:end].decode("utf-8", errors=errors)
                except UnicodeDecodeError as e:
                    raise UsageError(
                        f"{path}, byte {offset + e.start:,}: not UTF-8"
                        f" ({data[e.start:e.start + 4]!r}); convert the file to UTF-8, or pass"
                        " --errors replace to read such bytes as U+FFFD") from None
                count += len(text)
                if kept <= limit:
                    parts.append(text)
                    kept += len(text)
                offset, carry = offset + end, data[end:]
                if not block:
                    break
    if count > limit:
        names = paths[0] if len(paths) == 1 else f"the {len(paths)} corpus files"
        raise UsageError(f"{names}: the text has {count:,} characters; "
                         + bound_words.format(limit=limit))
    return "".join(parts)


def run_check(args: argparse.Namespace) -> int:
    mine = read_learner(args.mine)
    text = read_corpus_text(args.corpus, args.errors)
    if args.special_token is None and mine.special_tokens:
        specials = list(mine.special_tokens)
        say(f"bpe-lab: using the special tokens found in {args.mine}: {', '.join(specials)}"
            " (give --special-token to choose others)")
    else:
        specials = inputs.specials_from(args.special_token)
    pattern = inputs.pattern_from(args.pattern)
    vocab_size = args.vocab_size
    if vocab_size is None:
        vocab_size = 256 + len(mine.merges) + len(specials)
        say(f"bpe-lab: checking {len(mine.merges):,} merges: --vocab-size {vocab_size:,} (give"
            " --vocab-size to check against another)")
    inputs.check_vocab_size(vocab_size, specials)
    inputs.check_pattern_speed(pattern, args.corpus)
    try:
        report = check.check_merges(mine, text, pattern=pattern, vocab_size=vocab_size,
                                    special_tokens=specials, tie_rule=args.tie_rule)
    except ValueError as e:
        raise UsageError(str(e)) from None
    for line in check.report_lines(report, mine, args.mine):  # the Check page's sentences
        print(line)
    return 0 if report.comparison.matches else 1
