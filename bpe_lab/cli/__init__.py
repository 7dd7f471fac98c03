"""``bpe-lab``: train, encode, check and inspect byte-level BPE tokenizers from the command line.

    bpe-lab train corpus.txt --vocab-size 10000 --special-token '<|endoftext|>' --out tok.model
    bpe-lab encode tok.model corpus.txt --out ids.npy
    bpe-lab check my_merges.txt --corpus corpus.txt --pattern gpt2 --tie-rule bytes
    bpe-lab info tok.model

Exit codes: 0 done (``check``: the merges match), 1 ``check`` found a difference (or the output
pipe closed), 2 bad input (the message names the file or option and the fix), 130 interrupted
(Ctrl-C; nothing written).
"""

from __future__ import annotations

import argparse
import os
import sys
import textwrap

from bpe_core import __version__
from bpe_core.corpus import DEFAULT_BLOCK_BYTES
from bpe_core.text import shorten
from bpe_core.training import TIE_RULES

from . import commands, spm_family
from .inputs import PATTERNS, UsageError, install_budget
from .outputs import FORMATS
from .variants import VARIANTS

PATTERN_HELP = ("split pattern: gpt2, gpt4, gpt4o, none (no split: merges may cross words) or a"
                " regular expression (default: gpt4)")
TIE_HELP = ("which of equally frequent pairs is merged: seen (the rule \"seen first\": the pair"
            " first seen in the corpus, minbpe's), bytes (\"greatest bytes\": the greatest token"
            " bytes, CS336's), ids (\"smallest ids\") (default: seen)")
SPECIAL_HELP = ("a special token, e.g. '<|endoftext|>' (repeatable): the corpus is cut at it, no"
                " merge crosses it, and it counts in --vocab-size")

TRAIN_EXAMPLE = """\
what it writes (--out PATH):
  minbpe    PATH, which must end in .model, and PATH's .vocab beside it
  hf        PATH, a Hugging Face tokenizer.json
  tiktoken  PATH, tiktoken's ranks
  gpt2      a folder PATH with vocab.json and merges.txt
  cs336     a folder PATH with vocab.json and merges.txt as CS336's fixtures (no #version line)
  Files that cannot hold the pattern, the special tokens or --history get bpe_core's sidecar
  (NAME.bpe-lab.json) beside them; bpe_core.load and the app read it back.
  --family sentencepiece: PATH, sentencepiece's NAME.model (and --hf-json FILE.json, a
  tokenizer.json of Llama 2's shape); --special-token makes user-defined pieces

variants (each file is one language with --variant parity):
  bpe-lab train corpus.txt --vocab-size 8000 --variant superbpe --transition 6000 --out s.json --format hf
  bpe-lab train corpus.txt --vocab-size 8000 --variant boundless --out b.json --format hf
  bpe-lab train en.txt de.txt hi.txt --vocab-size 8000 --variant parity --out p.model
  (both take --special-token as the classical trainer does)

SentencePiece (Llama 2's family; the pieces of the sentencepiece package's BPE trainer):
  bpe-lab train corpus.txt --family sentencepiece --vocab-size 4000 --byte-fallback \
      --keep-whitespace --out spm.model --hf-json tokenizer.json

example (CS336's TinyStories run):
  bpe-lab train TinyStoriesV2-GPT4-train.txt --vocab-size 10000 --pattern gpt2 \\
      --special-token '<|endoftext|>' --tie-rule bytes --format cs336 --out tinystories/
"""


def _para(text: str) -> str:
    """A description as a paragraph of 78 columns (the raw formatter keeps the examples'
    line breaks but does not wrap)."""
    return textwrap.fill(text, 78)


def _int(text: str) -> int:
    try:
        return int(text.replace("_", "").replace(",", ""))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None


FORCE_HELP = ("replace --out even if bpe-lab did not write the file there (without it, only"
              " bpe-lab's own earlier output is replaced)")


def _add_training_settings(p: argparse.ArgumentParser, specials_default: str = "") -> None:
    """--pattern, --special-token and --tie-rule: what train and check train with."""
    p.add_argument("--pattern", default="gpt4", metavar="gpt2|gpt4|gpt4o|none|REGEX",
                   help=PATTERN_HELP)
    p.add_argument("--special-token", action="append", metavar="TOK",
                   help=SPECIAL_HELP + specials_default)
    p.add_argument("--tie-rule", choices=TIE_RULES, default="seen", help=TIE_HELP)


def _add_reading(p: argparse.ArgumentParser, verb: str | None) -> None:
    """--errors, and (for work in blocks over workers: ``verb``) --workers and --block-bytes."""
    p.add_argument("--errors", choices=("strict", "replace"), default="strict",
                   help="bytes that are not UTF-8: strict stops and says where (default);"
                        " replace reads them as U+FFFD")
    if verb is None:
        return
    p.add_argument("--workers", type=_int, metavar="N",
                   help=f"{verb} processes (default: one per core; more than the cores is"
                        " lowered to the cores, with a warning)")
    p.add_argument("--block-bytes", type=_int, default=DEFAULT_BLOCK_BYTES, metavar="N",
                   help="about how many bytes a worker takes at a time (default: 2 MiB)")


def _add_file_settings(p: argparse.ArgumentParser) -> None:
    """--pattern and --special-token for a tiktoken or GPT-2 file that came without the bpe-lab
    sidecar that says them (bpe_core.load's pattern= and special_tokens=)."""
    p.add_argument("--pattern", metavar="gpt2|gpt4|gpt4o|none|REGEX",
                   help="the split pattern of a tiktoken or GPT-2 file that came without its"
                        " bpe-lab sidecar (gpt2 for OpenAI's GPT-2 files)")
    p.add_argument("--special-token", action="append", metavar="TOK=ID",
                   help="a special token of a tiktoken file that came without its sidecar, with"
                        " its id, e.g. '<|endoftext|>=100257' (repeatable; 'none' for none)")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="bpe-lab",
        description=_para("Train, encode, check and inspect byte-level BPE tokenizers (bpe_core)."),
        epilog="Run 'bpe-lab COMMAND --help' for a command's options and an example.",
    )
    parser.add_argument("--version", action="version", version=f"bpe-lab {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    raw = argparse.RawDescriptionHelpFormatter

    t = sub.add_parser(
        "train", formatter_class=raw, help="train a tokenizer on text files",
        description=_para("Train a byte-level BPE tokenizer on text files, streaming them in blocks and"
                    " counting in worker processes (or on a Dask cluster), and save it. The"
                    " merges are exactly those of bpe_core's train() on the files' joined text."),
        epilog=TRAIN_EXAMPLE)
    t.add_argument("corpus", nargs="+", metavar="CORPUS", help="UTF-8 text files")
    t.add_argument("--vocab-size", type=_int, required=True, metavar="N",
                   help="tokens in all: 256 bytes + merges + special tokens")
    _add_training_settings(t)
    _add_reading(t, "counting")
    t.add_argument("--format", choices=FORMATS, help="file format (default: minbpe)")
    t.add_argument("--out", required=True, metavar="PATH", help="where to write (see below)")
    t.add_argument("--force", action="store_true", help=FORCE_HELP)
    t.add_argument("--history", action="store_true",
                   help="keep each merge's corpus count and its 5 runner-up pairs (the app's"
                        " 'why this merge'), in bpe_core's sidecar")
    t.add_argument("--min-frequency", type=_int, metavar="N",
                   help="stop when the most frequent pair occurs fewer than N times")
    t.add_argument("--max-token-bytes", type=_int, metavar="N",
                   help="never make a token longer than N bytes")
    t.add_argument("--variant", choices=VARIANTS, default="classic",
                   help="classic (default); superbpe: tokens that span words after --transition"
                        " merges (Liu et al. 2025); boundless: two-phase BoundlessBPE, whose"
                        " second phase finds that transition itself (Schmidt et al. 2026);"
                        " parity: each CORPUS file is one language,"
                        " named by its file name, and each merge serves the language that costs"
                        " most (Foroutan et al. 2026)")
    t.add_argument("--transition", type=_int, metavar="T",
                   help="--variant superbpe: merges made inside words before merging across them")
    t.add_argument("--stage-two", choices=("authors", "open"),
                   help="--variant superbpe: the stage-two rules: authors (default: the corpus"
                        " read line by line, no token of more than 4 words or holding ': ') or"
                        " open (this project's earlier rules: over line breaks, no limit)")
    t.add_argument("--stopping", choices=("authors", "fill"),
                   help="--variant boundless: when phase one runs out of pairs, stop at its"
                        " size as the authors do (default), or fill the vocabulary with"
                        " supermerges (this project's earlier rule)")
    t.add_argument("--parallel", action="store_true",
                   help="--variant parity: the files say the same thing, so a language's cost"
                        " is its number of tokens (the default when every file has the same"
                        " number of lines)")
    t.add_argument("--per-byte", action="store_true",
                   help="--variant parity: a language's cost is its tokens per byte (the"
                        " default when the files have different numbers of lines)")
    t.add_argument("--global-merges", type=_int, metavar="J",
                   help="--variant parity: make the first J merges as classical BPE (the"
                        " paper's hybrid)")
    t.add_argument("--window", type=_int, metavar="W",
                   help="--variant parity: the authors' moving window: a language served more"
                        " than --alpha x W / languages of the last W merges waits for the others")
    t.add_argument("--alpha", type=float, metavar="A",
                   help="--variant parity with --window: a language's share of the window"
                        " (default: 2, the authors')")
    spm_family.add_train_options(t)
    t.add_argument("--dask", metavar="tcp://HOST:PORT",
                   help="count on this Dask scheduler's workers (pip install 'bpe-lab[dask]');"
                        " the files must be readable there at the same paths")
    t.set_defaults(run=commands.train)

    e = sub.add_parser(
        "encode", formatter_class=raw, help="encode text files into a .npy array of token ids",
        description=_para("Encode text files with a tokenizer, in blocks over worker processes, into"
                    " one array of token ids in a NumPy .npy file (uint16 when the vocabulary"
                    " fits in 16 bits, else uint32), in corpus order. Special tokens in the text"
                    " become their ids. Prints the throughput."),
        epilog="example (CS336's experiment):\n"
               "  bpe-lab encode tinystories/ TinyStoriesV2-GPT4-valid.txt --out valid.npy\n"
               "  python -c \"import numpy; print(numpy.load('valid.npy')[:10])\"\n")
    e.add_argument("model", metavar="MODEL", help="a tokenizer file, or a gpt2/cs336 folder (a"
                   " SentencePiece .model or tokenizer.json encodes each line, as spm_encode)")
    e.add_argument("corpus", nargs="+", metavar="CORPUS", help="UTF-8 text files")
    e.add_argument("--out", required=True, metavar="IDS", help="the .npy file to write")
    e.add_argument("--force", action="store_true", help=FORCE_HELP)
    _add_reading(e, "encoding")
    _add_file_settings(e)
    e.set_defaults(run=commands.encode)

    c = sub.add_parser(
        "check", formatter_class=raw, help="check a learner's merges against the reference",
        description=_para("Check the merges your own BPE trainer learned: train the reference on the"
                    " same corpus and settings, show the first merge where yours differ, why"
                    " (both pairs' counts, the tie rules), and the known mistake that gives"
                    " your merges. Reads a minbpe .model, a merges.txt (with vocab.json beside"
                    " it), Python literals (CS336's vocab and merges), a tokenizer.json or"
                    " tiktoken ranks. Exit code 0 when they match, 1 when they differ."),
        epilog="example (CS336):\n"
               "  bpe-lab check my_merges.txt --corpus corpus.en --vocab-size 500 --pattern gpt2"
               " \\\n      --special-token '<|endoftext|>' --tie-rule bytes\n")
    c.add_argument("mine", metavar="MINE", help="your merges (a file, or a folder with"
                   " merges.txt)")
    c.add_argument("--corpus", nargs="+", required=True, metavar="FILE",
                   help="the text you trained on (at most 200,000 characters)")
    c.add_argument("--vocab-size", type=_int, metavar="N",
                   help="default: 256 + your merges + the special tokens")
    _add_training_settings(c, " (default: the special tokens in your file)")
    _add_reading(c, None)
    c.set_defaults(run=commands.run_check)

    i = sub.add_parser(
        "info", formatter_class=raw, help="describe a tokenizer file",
        description=_para("Say what a tokenizer file holds: its format, kind, split pattern, vocabulary"
                    " size, merges, special tokens, and whether it keeps a training history."),
        epilog="example:\n  bpe-lab info tok.model\n")
    i.add_argument("model", metavar="MODEL", help="a tokenizer file, or a gpt2/cs336 folder")
    _add_file_settings(i)
    i.set_defaults(run=commands.info)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    install_budget()  # every command's untrusted work is bounded (bpe_core.limits)
    try:
        code = args.run(args)
        sys.stdout.flush()  # here, so that a closed pipe is caught below, not at exit
        return code
    except UsageError as e:
        print(f"bpe-lab {args.command}: error: {e}", file=sys.stderr)
        return 2
    except commands.Interrupted as e:
        print(f"bpe-lab {args.command}: {e}", file=sys.stderr)
        return 130
    except KeyboardInterrupt:  # after the work was done (its files are complete) or before it
        print(f"bpe-lab {args.command}: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # the reader went away (bpe-lab info x | head -3): stop quietly
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # no error at exit
        return 1
    except OSError as e:  # the system refused a file (a name too long, a full disk): say which
        where = shorten(os.fsdecode(e.filename), 80) if e.filename else "a file"
        print(f"bpe-lab {args.command}: error: {where}: {e.strerror or e}", file=sys.stderr)
        return 2


__all__ = ["PATTERNS", "build_parser", "main"]
