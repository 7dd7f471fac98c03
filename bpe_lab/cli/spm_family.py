"""The SentencePiece family on the command line (issue 46): ``bpe-lab train --family
sentencepiece`` trains SentencePiece-style BPE (``bpe_core.train_sentencepiece``, the pieces of
the ``sentencepiece`` package's BPE trainer) and writes sentencepiece's ``.model`` (and, with
``--hf-json``, a tokenizer.json of Llama 2's shape); ``bpe-lab encode`` with such a file
encodes line by line, as sentencepiece's ``spm_encode`` does.

Training reads the whole text into memory, so it is bounded as the library bounds it: at most
``MAX_SPM_TRAIN_CHARS`` characters (a corpus larger than that is refused by its size before it
is read), and ``--vocab-size`` at most ``MAX_VOCAB_SIZE``.
"""

from __future__ import annotations

import argparse
import os

import bpe_core
from bpe_core.limits import MAX_SPM_TRAIN_CHARS, MAX_VOCAB_SIZE

from . import inputs, outputs
from .inputs import UsageError
from .progress import Bars, Clock, megabytes

FAMILIES = ("byte-level", "sentencepiece")
FAMILY_HELP = ("byte-level (default: GPT's BPE over bytes) or sentencepiece (Llama 2's: BPE over"
               " characters, '▁' for a space, the pieces of the sentencepiece package's BPE"
               " trainer; writes sentencepiece's .model)")
# the options only --family sentencepiece takes: (attribute, flag)
SPM_OPTIONS = (("byte_fallback", "--byte-fallback"), ("split_digits", "--split-digits"),
               ("keep_whitespace", "--keep-whitespace"), ("hf_json", "--hf-json"))
# the byte-level options it does not take: (attribute, flag, the value when not given)
BYTE_LEVEL_OPTIONS = (("format", "--format", None), ("pattern", "--pattern", "gpt4"),
                      ("tie_rule", "--tie-rule", "seen"), ("history", "--history", False),
                      ("min_frequency", "--min-frequency", None),
                      ("max_token_bytes", "--max-token-bytes", None),
                      ("variant", "--variant", "classic"), ("dask", "--dask", None),
                      ("workers", "--workers", None))


def add_train_options(t: argparse.ArgumentParser) -> None:
    t.add_argument("--family", choices=FAMILIES, default="byte-level", help=FAMILY_HELP)
    t.add_argument("--byte-fallback", action="store_true",
                   help="--family sentencepiece: the 256 byte pieces <0x00>..<0xFF>, so that a"
                        " character never seen is its UTF-8 bytes, not <unk> (Llama 2's)")
    t.add_argument("--split-digits", action="store_true",
                   help="--family sentencepiece: every digit is a piece of its own")
    t.add_argument("--keep-whitespace", action="store_true",
                   help="--family sentencepiece: keep every space (remove_extra_whitespaces off,"
                        " as Llama 2); a tokenizer.json (--hf-json) can say only this")
    t.add_argument("--hf-json", metavar="PATH",
                   help="--family sentencepiece: also write a Hugging Face tokenizer.json of"
                        " Llama 2's shape (needs --keep-whitespace)")


def check_family(args: argparse.Namespace) -> None:
    """UsageError for an option the chosen family does not take."""
    if args.family == "sentencepiece":
        for attr, flag, unset in BYTE_LEVEL_OPTIONS:
            if getattr(args, attr, unset) != unset:
                raise UsageError(f"--family sentencepiece does not take {flag} (it belongs to"
                                 " byte-level BPE); train without it")
        return
    for attr, flag in SPM_OPTIONS:
        if getattr(args, attr, None):
            raise UsageError(f"{flag} belongs to --family sentencepiece")


def _check_out(out: str, what: str, suffix: str, force: bool, ours) -> None:
    """Refuse, before any work, an output path that cannot be written, or that would replace a
    file bpe-lab did not write (unless ``force``)."""
    outputs.check_parent(out, what)
    if os.path.isdir(out):
        raise UsageError(f"{what} {out} is a folder; name the file, e.g."
                         f" {os.path.join(out, 'tokenizer' + suffix)}")
    outputs.refuse_not_regular(out)
    if not out.endswith(suffix):
        raise UsageError(f"{what} {out}: name the file NAME{suffix}; try {what} {out}{suffix}")
    if not force and os.path.lexists(out):
        data = outputs.read_small(out) if os.path.isfile(out) and not os.path.islink(out) else None
        if data is None or not ours(data):
            raise UsageError(f"{what} {out} exists and is not a file bpe-lab wrote for the"
                             f" sentencepiece family; {outputs.FORCE_HINT}")


def _our_model(data: bytes) -> bool:
    try:
        return bpe_core.to_sentencepiece_model(bpe_core.read_sentencepiece_model(data)) == data
    except ValueError:
        return False


def _our_json(data: bytes) -> bool:
    try:
        text = data.decode("utf-8")
        return bpe_core.to_hf_sentencepiece_json(bpe_core.parse_hf_sentencepiece(text)) == text
    except (ValueError, RecursionError):
        return False


def train(args: argparse.Namespace) -> int:
    """``bpe-lab train --family sentencepiece``."""
    clock = Clock()
    check_family(args)
    if args.hf_json and not args.keep_whitespace:
        raise UsageError("--hf-json needs --keep-whitespace: a tokenizer.json of Llama 2's shape"
                         " keeps every space, so it cannot say sentencepiece's default"
                         " (remove_extra_whitespaces)")
    if not 1 <= args.vocab_size <= MAX_VOCAB_SIZE:
        raise UsageError(f"--vocab-size {args.vocab_size:,}: use 1 to {MAX_VOCAB_SIZE:,}")
    specials = inputs.specials_from(args.special_token)
    _check_out(args.out, "--out", ".model", args.force, _our_model)
    if args.hf_json:
        _check_out(args.hf_json, "--hf-json", ".json", args.force, _our_json)
        if os.path.abspath(args.hf_json) == os.path.abspath(args.out):
            raise UsageError("--hf-json and --out name the same file: name two")
    total = inputs.check_corpus(args.corpus)
    bound = (f"SentencePiece-style training reads at most {MAX_SPM_TRAIN_CHARS:,} characters"
             " (MAX_SPM_TRAIN_CHARS in bpe_core/limits): give a shorter sample")
    if total > 4 * MAX_SPM_TRAIN_CHARS:  # more characters than that, whatever they are
        raise UsageError(f"the corpus is {megabytes(total)}; " + bound)
    from .commands import Interrupted, read_corpus_text

    text = read_corpus_text(args.corpus, args.errors, MAX_SPM_TRAIN_CHARS,
                            bound.replace("{", "{{").replace("}", "}}"))
    options = {"byte_fallback": args.byte_fallback, "split_digits": args.split_digits,
               "remove_extra_whitespaces": not args.keep_whitespace,
               "user_defined_symbols": specials, "name": os.path.basename(args.out)}
    try:
        tok = bpe_core.train_sentencepiece(text, args.vocab_size, **options)
        files = [(args.out, bpe_core.to_sentencepiece_model(tok))]
        if args.hf_json:
            files.append((args.hf_json, bpe_core.to_hf_sentencepiece_json(tok).encode("utf-8")))
        written = _write_all(files)
    except KeyboardInterrupt:
        raise Interrupted(f"interrupted after {clock.words()}: training; nothing was written"
                          f" ({args.out} is as it was)") from None
    except ValueError as e:  # bpe_core's word for bad input: a size, an option, the text
        raise UsageError(str(e)) from None
    print(f"trained {tok.vocab_size:,} SentencePiece pieces on {megabytes(total)} in"
          f" {clock.words()}; wrote {', '.join(written)}", flush=True)
    return 0


def _write_all(files: list[tuple[str, bytes]]) -> list[str]:
    """Each file written whole in a folder beside it, then moved into place (Ctrl-C is held off
    for the moves): an interrupted run leaves the files as they were."""
    with outputs.staging(files[0][0]) as folder:
        staged = []
        for i, (path, data) in enumerate(files):
            temp = os.path.join(folder, str(i))
            with open(temp, "wb") as f:
                f.write(data)
            staged.append((temp, path))
        with outputs.uninterrupted():
            for temp, path in staged:
                os.replace(temp, path)
    return [path for path, _ in files]


# -- encode ----------------------------------------------------------------------------------


def encode(args: argparse.Namespace, tok, clock: Clock, memory) -> int:
    """``bpe-lab encode`` with a SentencePiece file: each line of the corpus (without its line
    break) encoded as sentencepiece encodes it, the ids of all lines in order, in one process.
    A line longer than ``--block-bytes`` is refused by its number (it would be held whole)."""
    from .commands import Interrupted

    if args.workers not in (None, 1):
        raise UsageError(f"--workers {args.workers}: a SentencePiece file is encoded in one"
                         " process; leave --workers out")
    inputs.check_block_bytes(args.block_bytes)
    total = inputs.check_corpus(args.corpus)
    outputs.check_ids_out(args.out, args.force)
    dtype = outputs.id_dtype(max(tok.vocab_size - 1, 0))
    bars = Bars()
    tokens = 0

    def fill(writer: outputs.IdWriter) -> None:
        nonlocal tokens
        bars.start_bytes(total, "encoding")
        for path in args.corpus:
            with open(path, "rb") as f:
                for number, line in enumerate(iter(lambda: f.readline(args.block_bytes + 1), b""),
                                              1):
                    if len(line) > args.block_bytes and not line.endswith(b"\n"):
                        raise UsageError(f"{path}, line {number:,}: longer than --block-bytes"
                                         f" {args.block_bytes:,}; a SentencePiece file encodes"
                                         " a line at a time: give a larger --block-bytes")
                    try:
                        text = line.decode("utf-8", errors=args.errors)
                    except UnicodeDecodeError as e:
                        raise UsageError(f"{path}, line {number:,}: not UTF-8 ({e.reason});"
                                         " convert the file to UTF-8, or pass --errors replace"
                                         " to read such bytes as U+FFFD") from None
                    ids = tok.encode(text[:-1] if text.endswith("\n") else text)
                    writer.write(ids)
                    tokens += len(ids)
                    bars.add_bytes(len(line))

    try:
        outputs.write_ids(args.out, dtype, fill, force=args.force)
    except KeyboardInterrupt:
        raise Interrupted(f"interrupted after {clock.words()}: encoded {tokens:,} tokens;"
                          f" nothing was written ({args.out} is as it was)") from None
    finally:
        bars.close()
    print(f"encoded {megabytes(total)} into {tokens:,} tokens line by line in {clock.words()},"
          f" {memory.words()}; wrote {args.out} ({dtype}; numpy.load reads it)", flush=True)
    return 0
