"""The fuzz targets: every reader of a file or pattern a user controls, and the command line.

Each target takes the fuzzer's bytes and calls the project the way a user's input reaches it. A
``ValueError`` (bpe_core's refusal: a message naming the problem) or, for the command line, an
exit code is the right answer to bad input; anything else that escapes is a crash, and so is a
hang (libFuzzer's -timeout) or a blow-up in memory (-rss_limit_mb).

``write_seeds(target, folder)`` writes the target's seeds: the project's own files, written by
the library from small tokenizers it trains at start (every format, with sidecars, tokenizer.json
pipeline parts, the shipped split patterns). tests/fuzz/run.py runs a target under atheris;
docs/FUZZING.md says how.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import tempfile
from collections.abc import Callable
from functools import cache

import bpe_core
import bpe_core.limits
from bpe_core import BasicTokenizer, RegexTokenizer, read_tokenizer
from bpe_core.formats import to_gpt2_files, to_hf_json, to_minbpe, to_tiktoken
from bpe_core.limits import BudgetExceeded
from bpe_core.oniguruma import from_oniguruma
from bpe_core.patterns import DIGIT_PRESETS
from bpe_core.pipeline import to_oniguruma
from bpe_core.sidecar import make_sidecar, read_sidecar
from bpe_lab import check
from bpe_lab.cli import main as cli_main

TEXT = ("The quick brown fox, 1234 jumps! Über straße — 東京 it's   done.\n"
        "<|endoftext|> def f(x):\n\treturn x ** 2  # ok\r\n")
TRAIN_TEXT = TEXT * 3
SPECIALS = {"<|endoftext|>": 300}
PATTERNS = [bpe_core.GPT2_SPLIT_PATTERN, bpe_core.GPT4_SPLIT_PATTERN,
            bpe_core.GPT4O_SPLIT_PATTERN, *DIGIT_PRESETS.values()]
GPT2_SEPARATOR = b"\n\x00merges\x00\n"  # the gpt2 target's bytes: vocab.json, this, merges.txt


@cache
def tokenizers() -> dict[str, bpe_core.Tokenizer]:
    """Small tokenizers the seeds are written from (trained once per process)."""
    regex_tok = RegexTokenizer(bpe_core.GPT4_SPLIT_PATTERN)
    regex_tok.train(TRAIN_TEXT, 300)
    regex_tok.register_special_tokens(SPECIALS)
    basic = BasicTokenizer()
    basic.train(TRAIN_TEXT, 280)
    gpt2 = RegexTokenizer(bpe_core.GPT2_SPLIT_PATTERN)
    gpt2.train(TRAIN_TEXT, 290, candidates=3)  # a history with candidates, for the sidecars
    return {"regex": regex_tok, "basic": basic, "gpt2": gpt2}


@cache
def good_hf_json() -> str:
    """The regex tokenizer's tokenizer.json, written once (writing its Split pattern the
    Oniguruma way costs 0.1-0.6 s: over 2 s of wall time at a load of 20)."""
    return to_hf_json(tokenizers()["regex"])


def _use(tok: bpe_core.Tokenizer) -> None:
    """What a user does next with a tokenizer that loaded: encode, decode, look at its chunks.
    A refusal at the budget of untrusted work (a file's regexes over 0.5 s: at a load of 13 a
    seed's did) is an answer, as in the read-then-encode targets; any other error is not."""
    try:
        ids = tok.encode(TEXT, allowed_special="all")
        tok.encode_ordinary(TEXT[:40])
    except BudgetExceeded:
        return
    tok.decode(ids)


# -- readers ---------------------------------------------------------------------------------------


def read_minbpe(data: bytes) -> None:
    try:
        tok = read_tokenizer(data, "fuzz.model")
    except ValueError:
        return
    _use(tok)


def read_hf(data: bytes) -> None:
    try:
        tok = read_tokenizer(data, "tokenizer.json")
    except ValueError:
        return
    _use(tok)


def read_tiktoken(data: bytes) -> None:
    try:
        tok = read_tokenizer(data, "fuzz.tiktoken", pattern=bpe_core.GPT4_SPLIT_PATTERN,
                             special_tokens={"<|endoftext|>": 100_000})
    except ValueError:
        return
    _use(tok)


def read_gpt2(data: bytes) -> None:
    vocab, _, merges = data.partition(GPT2_SEPARATOR)
    try:
        tok = read_tokenizer(vocab, "vocab.json", merges=merges, partner_name="merges.txt",
                             pattern=bpe_core.GPT2_SPLIT_PATTERN)
    except ValueError:
        return
    _use(tok)


def read_sidecars(data: bytes) -> None:
    """A sidecar on its own, and beside the minbpe file it describes."""
    model = to_minbpe(tokenizers()["regex"])[0].encode()
    try:
        read_sidecar(data, "fuzz.model.bpe-lab.json")
    except ValueError:
        pass
    try:
        tok = read_tokenizer(model, "fuzz.model", sidecar=data,
                             sidecar_name="fuzz.model.bpe-lab.json")
    except ValueError:
        return
    _use(tok)


def read_merges(data: bytes) -> None:
    try:
        check.read_merges(data, "mine")
    except ValueError:
        return


def pipeline_parts(data: bytes) -> None:
    """A tokenizer.json's normalizer, pre-tokenizer, decoder and added tokens, from the fuzzer's
    JSON, in a file whose model is a good one."""
    try:
        parts = json.loads(data)
    except (ValueError, RecursionError):
        return
    if not isinstance(parts, dict):
        return
    document = json.loads(good_hf_json())
    for key in ("normalizer", "pre_tokenizer", "decoder", "post_processor", "added_tokens"):
        if key in parts:
            document[key] = parts[key]
    read_hf(json.dumps(document).encode())


def oniguruma(data: bytes) -> None:
    """An Oniguruma pattern (a tokenizer.json's Split) translated, then compiled and used."""
    text = data.decode("utf-8", "replace")
    try:
        translated = from_oniguruma(text)
        compiled = bpe_core.split.compile_pattern(translated)
    except ValueError:
        return
    if compiled is not None:
        try:
            bpe_core.split.split_by_pattern(compiled, TEXT, lambda: 2.0)
        except TimeoutError:  # a pattern that backtracks is stopped by the split's time bound
            return


def engine_repeat(pattern: str) -> int | None:
    """The largest product of nested repeat counts in ``pattern`` as the regex engine's own
    parser reads it (its internal ``_parse_pattern``, which builds a tree without unrolling
    anything), or None when the engine refuses the pattern. Test-only: the reference that
    ``bpe_core.limits.pattern_cost`` must never undercount."""
    from regex import _regex_core as core
    flags = 0
    for _ in range(3):  # a global flag met late restarts the parse, as regex.compile does
        try:
            source = core.Source(pattern)
            info = core.Info(flags, source.char_type, {})
            source.ignore_space = bool(info.flags & core.VERBOSE)
            tree = core._parse_pattern(source, info)
            break
        except core._UnscopedFlagSet:
            flags = info.global_flags
        except Exception:  # noqa: BLE001 - the engine refuses it (regex.error and the like)
            return None
    else:
        return None

    def product(node) -> int:
        inner = 1
        for value in vars(node).values():
            for child in value if isinstance(value, list) else [value]:
                if isinstance(child, core.RegexBase):
                    inner = max(inner, product(child))
        if hasattr(node, "min_count"):
            high = node.max_count if node.max_count is not None else 0
            inner *= max(node.min_count, high, 1)
        return inner

    return product(tree)


def regex_tokenizer(data: bytes) -> None:
    """The sidebar's custom pattern: RegexTokenizer(pattern), train, encode, decode; and the
    pattern's cost as limits.py reads it is never below the engine's own reading."""
    pattern = data.decode("utf-8", "replace")
    try:
        cost = bpe_core.limits.pattern_cost(pattern)
    except ValueError:
        cost = None
    engine = engine_repeat(pattern) if len(pattern) <= 1_000 else None
    if cost is not None and engine is not None and engine > cost.repeat:
        raise AssertionError(f"{pattern!r}: limits reads repeats of {cost.repeat:,}, the engine"
                             f" {engine:,}")
    try:
        tok = RegexTokenizer(pattern, timeout=2.0)
        tok.train(TRAIN_TEXT, 270)
        ids = tok.encode(TEXT)
    except ValueError:
        return
    if tok.decode(ids) != TEXT:
        raise AssertionError(f"{pattern!r}: decode(encode(text)) is not the text")


# -- read, then encode a fuzzed text ---------------------------------------------------------------
# Each input is a file (for GPT-2: vocab.json, GPT2_SEPARATOR, merges.txt) then TEXT_SEPARATOR then
# a text: the file is read as an upload is, and the text is what a user then types into the box.

TEXT_SEPARATOR = b"\n\x00text\x00\n"
LADDER_MAX = 4_000  # the overlapping added tokens: a, aa, ... 4,000 of them (8 MB of JSON)


def _file_and_text(data: bytes) -> tuple[bytes, str]:
    file, _, text = data.partition(TEXT_SEPARATOR)
    return file, text.decode("utf-8", "replace")


def _encode_decode(tok: bpe_core.Tokenizer, text: str) -> None:
    """Encode the fuzzed text with every special token allowed, and decode it. Where nothing
    rewrites the text (no tokenizer.json pipeline), decoding gives the text back."""
    try:
        ids = tok.encode(text, allowed_special="all")
    except ValueError:  # a refusal that names the bound (a split's time, a text's size)
        return
    out = tok.decode(ids)
    if tok.pipeline is None and out != text:
        raise AssertionError(f"decode(encode(text)) is not the text: {text[:200]!r} gave"
                             f" {out[:200]!r}")


def _read_then_encode(data: bytes, read: Callable[[bytes], bpe_core.Tokenizer]) -> None:
    file, text = _file_and_text(data)
    try:
        tok = read(file)
    except ValueError:
        return
    _encode_decode(tok, text)


def encode_minbpe(data: bytes) -> None:
    _read_then_encode(data, lambda f: read_tokenizer(f, "fuzz.model"))


def encode_hf(data: bytes) -> None:
    _read_then_encode(data, lambda f: read_tokenizer(f, "tokenizer.json"))


def encode_tiktoken(data: bytes) -> None:
    _read_then_encode(data, lambda f: read_tokenizer(
        f, "fuzz.tiktoken", pattern=bpe_core.GPT4_SPLIT_PATTERN,
        special_tokens={"<|endoftext|>": 100_000}))


def encode_gpt2(data: bytes) -> None:
    def read(f: bytes) -> bpe_core.Tokenizer:
        vocab, _, merges = f.partition(GPT2_SEPARATOR)
        return read_tokenizer(vocab, "vocab.json", merges=merges, partner_name="merges.txt",
                              pattern=bpe_core.GPT2_SPLIT_PATTERN)
    _read_then_encode(data, read)


def encode_sidecar(data: bytes) -> None:
    """A fuzzed sidecar beside a good .model (the sidecar gives the pattern and the specials)."""
    model = to_minbpe(tokenizers()["regex"])[0].encode()
    _read_then_encode(data, lambda f: read_tokenizer(model, "fuzz.model", sidecar=f,
                                                     sidecar_name="fuzz.model.bpe-lab.json"))


def _ladder(spec: object) -> list[dict]:
    """``{"content": "a", "count": n, flags...}``: the added tokens a, aa, ... n of them (at most
    LADDER_MAX), each with the given flags; a seed's short way to write the issue's 8 MB file."""
    if not isinstance(spec, dict) or not isinstance(spec.get("content"), str):
        return []
    count = spec.get("count")
    if not isinstance(count, int) or isinstance(count, bool) or not 0 < count <= LADDER_MAX:
        return []
    flags = {k: spec[k] for k in ("single_word", "lstrip", "rstrip", "normalized", "special")
             if k in spec}
    return [{"id": 400 + i, "content": spec["content"] * (i + 1), **flags} for i in range(count)]


def hf_added_tokens(data: bytes) -> None:
    """A tokenizer.json pipeline with added tokens (normalizer, pre-tokenizer, ``added_tokens``
    with normalized / single_word / lstrip / rstrip; ``"ladder"`` adds a run of overlapping
    ones) on a good model, read as an upload is, then the fuzzed text encoded and decoded."""
    parts_bytes, text = _file_and_text(data)
    try:
        parts = json.loads(parts_bytes)
    except (ValueError, RecursionError):
        return
    if not isinstance(parts, dict):
        return
    document = json.loads(good_hf_json())
    for key in ("normalizer", "pre_tokenizer", "decoder", "added_tokens"):
        if key in parts:
            document[key] = parts[key]
    if "ladder" in parts and isinstance(document.get("added_tokens"), list):
        document["added_tokens"] = document["added_tokens"] + _ladder(parts["ladder"])
    try:
        tok = read_tokenizer(json.dumps(document).encode(), "tokenizer.json")
    except ValueError:
        return
    _encode_decode(tok, text)


# -- the command line ------------------------------------------------------------------------------


@cache
def cli_folder() -> str:
    """A folder of small inputs the fuzzed arguments may name: a corpus and a tokenizer in
    every format. Arguments run in it and may name nothing outside it."""
    folder = tempfile.mkdtemp(prefix="bpe-lab-fuzz-cli-")
    tok = tokenizers()["regex"]
    files = {"c.txt": TRAIN_TEXT.encode(), "tok.model": to_minbpe(tok)[0].encode(),
             "tok.json": to_hf_json(tok).encode(), "mine.txt": to_gpt2_files(tok)[1].encode()}
    for name, data in files.items():
        with open(os.path.join(folder, name), "wb") as f:
            f.write(data)
    return folder


CLI_SEEDS = [
    ["train", "c.txt", "--vocab-size", "300", "--out", "o.model"],
    ["train", "c.txt", "--vocab-size", "290", "--pattern", r"\w+|\s+|[^\w\s]+",
     "--special-token", "<|endoftext|>", "--format", "hf", "--out", "o.json"],
    ["train", "c.txt", "--vocab-size", "280", "--format", "tiktoken", "--history",
     "--out", "o.tiktoken", "--block-bytes", "64"],
    ["encode", "tok.model", "c.txt", "--out", "ids.npy"],
    ["check", "mine.txt", "--corpus", "c.txt", "--pattern", "gpt4", "--tie-rule", "bytes"],
    ["info", "tok.json"],
    ["info", "tok.model", "--pattern", "gpt2"],
]


def cli(data: bytes) -> None:
    """``bpe-lab`` in-process with the fuzzer's arguments (one per line). ``--workers 1`` is
    added (a pool per run would make the fuzzer crawl) and ``--dask`` is left out (it dials a
    network address); an argument naming a path outside the folder (``/``, ``..``) is not run."""
    args = data.decode("utf-8", "replace").split("\n")
    if any("/" in a or "\\" in a or ".." in a or a.startswith("~") or "\x00" in a for a in args):
        return
    if any(a.startswith("--da") or a.startswith("--sc") for a in args):
        return
    if args and args[0] in ("train", "encode"):
        args += ["--workers", "1"]
    here = os.getcwd()
    out, err = io.StringIO(), io.StringIO()
    try:
        os.chdir(cli_folder())
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = cli_main(args)
    except SystemExit as e:  # argparse's usage errors: exit code 2 with its message
        code = e.code
    finally:
        os.chdir(here)
    if code not in (0, 1, 2, None):
        raise AssertionError(f"bpe-lab {args}: exit code {code}: {err.getvalue()[-500:]}")
    if "Traceback" in err.getvalue():
        raise AssertionError(f"bpe-lab {args}: a traceback: {err.getvalue()[-2000:]}")


TARGETS: dict[str, Callable[[bytes], None]] = {
    "read_minbpe": read_minbpe,
    "read_hf": read_hf,
    "read_tiktoken": read_tiktoken,
    "read_gpt2": read_gpt2,
    "read_sidecars": read_sidecars,
    "read_merges": read_merges,
    "pipeline_parts": pipeline_parts,
    "oniguruma": oniguruma,
    "regex_tokenizer": regex_tokenizer,
    "cli": cli,
    "encode_minbpe": encode_minbpe,
    "encode_hf": encode_hf,
    "encode_tiktoken": encode_tiktoken,
    "encode_gpt2": encode_gpt2,
    "encode_sidecar": encode_sidecar,
    "hf_added_tokens": hf_added_tokens,
}


# -- seeds -----------------------------------------------------------------------------------------


def seeds(target: str) -> list[bytes]:
    """The target's seeds: the project's own files, written by the library."""
    toks = tokenizers()
    if target == "read_minbpe":
        return [to_minbpe(t)[0].encode() for t in toks.values()]
    if target == "read_hf":
        return [to_hf_json(t).encode() for t in toks.values()]
    if target == "read_tiktoken":
        return [to_tiktoken(t) for t in (toks["basic"], toks["gpt2"])]
    if target == "read_gpt2":
        return [v.encode() + GPT2_SEPARATOR + m.encode()
                for v, m in (to_gpt2_files(t) for t in (toks["basic"], toks["gpt2"]))]
    if target == "read_sidecars":
        model = to_minbpe(toks["regex"])[0].encode()
        return [make_sidecar(toks["regex"], "minbpe", {"file": model}),
                make_sidecar(toks["gpt2"], "minbpe", {"file": to_minbpe(toks["gpt2"])[0].encode()})]
    if target == "read_merges":
        gpt2_vocab, gpt2_merges = to_gpt2_files(toks["gpt2"])
        merges = [(toks["basic"].vocab[a], toks["basic"].vocab[b]) for a, b in toks["basic"].merges]
        return [to_minbpe(toks["regex"])[0].encode(), gpt2_merges.encode(),
                f"merges = {merges[:30]!r}".encode(), json.dumps(merges[:0]).encode(),
                to_hf_json(toks["gpt2"]).encode(), to_tiktoken(toks["basic"]), gpt2_vocab.encode()]
    if target == "pipeline_parts":
        return [json.dumps(part).encode() for part in PIPELINE_PARTS]
    if target in ("oniguruma",):
        return [to_oniguruma(p).encode() for p in PATTERNS]
    if target == "regex_tokenizer":
        return [p.encode() for p in PATTERNS] + [rb"(\p{L}+)|( ?\p{N}{1,3})|(\s+)|.", rb"(?s).{1,4}"]
    if target == "cli":
        return ["\n".join(argv).encode() for argv in CLI_SEEDS]
    if target.startswith("encode_"):
        files = seeds({"encode_sidecar": "read_sidecars"}.get(target, "read_" + target[7:]))
        return [f + TEXT_SEPARATOR + t.encode() for f in files for t in ENCODE_TEXTS]
    if target == "hf_added_tokens":
        return [json.dumps(part).encode() + TEXT_SEPARATOR + t.encode()
                for part in ADDED_PARTS for t in ENCODE_TEXTS]
    raise KeyError(target)


ENCODE_TEXTS = [TEXT, "<|endoftext|>x<|endoftext|><|endo", "  aaaa a aa\n\n\t", ""]
_FLAGS = [dict(single_word=w, lstrip=ls, rstrip=rs, normalized=n, special=sp)
          for w, ls, rs, n, sp in [(False, False, False, False, True), (True, True, False, True, False),
                                   (False, False, True, True, False), (True, True, True, False, False)]]
ADDED_PARTS = [
    {"added_tokens": [{"id": 300 + i, "content": content, **flags}
                      for i, (content, flags) in enumerate(zip(
                          ["<|endoftext|>", " fox", "DONE", "aa"], _FLAGS))]},
    {"normalizer": {"type": "Sequence", "normalizers": [
        {"type": "NFKC"}, {"type": "Lowercase"},
        {"type": "Replace", "pattern": {"Regex": r"\s+"}, "content": " "}]},
     "pre_tokenizer": {"type": "Split", "pattern": {"Regex": r" ?\p{L}+|\p{N}|\s+|."},
                       "behavior": "Isolated", "invert": False},
     "added_tokens": [{"id": 300, "content": "Quick", **_FLAGS[1]},
                      {"id": 301, "content": "über", **_FLAGS[2]}]},
    {"pre_tokenizer": {"type": "Metaspace", "replacement": "▁", "prepend_scheme": "always",
                       "split": True},
     "ladder": {"content": "a", "count": 12, **_FLAGS[3]}, "added_tokens": []},
]

# The hostile shapes (issue 43): a pattern that backtracks, in a file's split, a
# Replace normalizer and a Split pre-tokenizer, and 4,000 overlapping added tokens. Today each
# hangs or runs long (the reader and the encoder have no bound of their own on a file's
# patterns); written as seeds only with ``run.py --hostile`` (see docs/FUZZING.md).
BACKTRACKS = "(a|aa)+$"
HOSTILE_TEXT = ("a" * 40 + "!\n") * 4


def hostile_seeds(target: str) -> list[bytes]:
    """Seeds that reach the shapes issue 43 found by hand (empty for a target they do not fit)."""
    text = TEXT_SEPARATOR + HOSTILE_TEXT.encode()
    if target == "encode_minbpe":
        tok = RegexTokenizer(BACKTRACKS + r"|\S|\s")
        tok.train("ab" * 20, 258)
        return [to_minbpe(tok)[0].encode() + text]
    if target == "encode_hf":
        document = json.loads(good_hf_json())
        document["pre_tokenizer"] = {"type": "Split", "pattern": {"Regex": BACKTRACKS},
                                     "behavior": "Isolated", "invert": False}
        return [json.dumps(document).encode() + text]
    if target == "hf_added_tokens":
        replace = {"type": "Replace", "pattern": {"Regex": BACKTRACKS}, "content": "b"}
        split = {"type": "Split", "pattern": {"Regex": BACKTRACKS}, "behavior": "Removed",
                 "invert": False}
        token = {"id": 300, "content": "a" * 40 + "!", **_FLAGS[1]}
        parts = [{"normalizer": replace, "added_tokens": [token]},  # the 5 KB file
                 {"pre_tokenizer": split, "added_tokens": []},
                 {"ladder": {"content": "a", "count": LADDER_MAX, **_FLAGS[3]},
                  "added_tokens": []}]  # the 8.5 MB file, written short
        return [json.dumps(part).encode() + text for part in parts]
    return []


PIPELINE_PARTS = [
    {"normalizer": {"type": "Sequence", "normalizers": [
        {"type": "NFC"}, {"type": "Lowercase"},
        {"type": "Replace", "pattern": {"Regex": r"\s+"}, "content": " "},
        {"type": "Prepend", "prepend": "▁"}]}},
    {"normalizer": {"type": "NFKD"}, "pre_tokenizer": {"type": "Sequence", "pretokenizers": [
        {"type": "Split", "pattern": {"Regex": r"\p{N}{1,3}"}, "behavior": "Isolated",
         "invert": False},
        {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True,
         "use_regex": False}]}},
    {"pre_tokenizer": {"type": "Sequence", "pretokenizers": [
        {"type": "Digits", "individual_digits": True}, {"type": "Punctuation",
                                                         "behavior": "Contiguous"},
        {"type": "Whitespace"}, {"type": "ByteLevel", "add_prefix_space": True,
                                 "trim_offsets": True, "use_regex": True}]},
     "decoder": {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": True,
                 "use_regex": True}},
    {"added_tokens": [{"id": 300, "content": "<|endoftext|>", "single_word": False,
                       "lstrip": True, "rstrip": False, "normalized": False, "special": True}],
     "decoder": {"type": "Sequence", "decoders": [
         {"type": "Replace", "pattern": {"String": "▁"}, "content": " "},
         {"type": "ByteFallback"}, {"type": "Fuse"},
         {"type": "Strip", "content": " ", "start": 1, "stop": 0}]}},
]


def write_seeds(target: str, folder: str, hostile: bool = False) -> int:
    """Write the target's seeds into ``folder`` (with ``hostile``: the issue's shapes too);
    how many."""
    os.makedirs(folder, exist_ok=True)
    found = seeds(target) + (hostile_seeds(target) if hostile else [])
    for i, data in enumerate(found):
        with open(os.path.join(folder, f"seed-{i:02d}"), "wb") as f:
            f.write(data)
    return len(found)
