"""Loading tokenizers: ``load(path)`` and ``read_tokenizer(data, name)`` for every format in
formats.py, detected from the content, built into a ``BasicTokenizer`` or ``RegexTokenizer``.
"""

from __future__ import annotations

import json
import os
import pickle

import regex

from . import oniguruma
from .base import Tokenizer
from .basic import BasicTokenizer
from .family_files import (
    KIND_NAMES,
    detect_family_file,
    guess_unread,
    holds_word_merges,
    read_family_file,
    vocab_is_clips,
)
from .formats import (  # noqa: F401 - to_minbpe and parse_minbpe: read from here too
    MODEL_HEADERS,
    NotMergedError,
    TokenizerData,
    hf_data,
    hf_document,
    parse_gpt2_files,
    parse_hf_json,
    parse_minbpe,
    parse_tiktoken,
    parse_tiktoken_ranks,
    to_minbpe,
)
from .limits import MAX_MODEL_BYTES
from .limits.budget import BudgetExceeded, read_budget, run_bounded
from .oniguruma import from_oniguruma
from .pipeline import to_oniguruma
from .regex_tokenizer import RegexTokenizer
from .sentencepiece import SentencePieceBPE, looks_like_model
from .sentencepiece import read_model as read_sentencepiece_model
from .sentencepiece.hf_json import is_sentencepiece_shape, read_hf_sentencepiece
from .sidecar import (
    MAX_SIDECAR_BYTES,
    SIDECAR_SUFFIX,
    Sidecar,
    is_sidecar,
    read_sidecar,
    sidecar_path,
    tokenizer_kind,
)
from .text import shorten
from .variant_files import as_variant


def build(data: TokenizerData, name: str, **extra) -> Tokenizer:
    """The tokenizer a file describes: a ``RegexTokenizer`` with its split pattern, or a
    ``BasicTokenizer`` when it has none. ``extra``: ``timeout``, ``name``, ``title``. A bad pattern
    or special token is a ValueError that names the file."""
    common = dict(merges=data.merges, byte_ids=data.byte_ids, special_tokens=data.special_tokens,
                  pipeline=data.pipeline, ignored=data.ignored, **extra)
    pre_split = data.pipeline is not None and data.pipeline.pre_tokenizer is not None
    try:
        tok = (RegexTokenizer(data.pattern, **common) if data.pattern or pre_split
               else BasicTokenizer(**common))
    except ValueError as e:
        raise ValueError(f"{name}: {e}") from None
    tok.from_file = True  # its regexes are the file's: bounded by the file budget by default
    return tok


def _read(path: str | os.PathLike, limit: int = MAX_MODEL_BYTES,
          what: str = "a tokenizer file") -> bytes:
    name = os.fspath(path)
    try:
        size = os.path.getsize(name)
        if size > limit:
            raise ValueError(f"{name}: {size:,} bytes is too large for {what}")
        with open(name, "rb") as f:
            return f.read()
    except OSError as e:
        raise ValueError(f"cannot read {name}: {e.strerror or e}") from e


def _text(data: bytes, name: str) -> str:
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        lineno = data.count(b"\n", 0, e.start) + 1
        raise ValueError(f"{name}, line {lineno}: not UTF-8 text (is this a tokenizer file?)") from e


def detect_format(data: bytes) -> str:
    """Which kind of tokenizer file ``data`` is, from its content.

    One of "minbpe", "hf" (tokenizer.json), "gpt2-vocab" (vocab.json / encoder.json),
    "gpt2-merges" (merges.txt / vocab.bpe), "tiktoken", "sentencepiece" (sentencepiece's
    binary tokenizer.model), "sidecar" (a bpe-lab sidecar, which describes one of the
    others), or of family_files.py: "word-codes" (subword-nmt's codes, or CLIP's merges.txt),
    "clip-merges" (CLIP's .txt.gz), "tekken" (Mistral's tekken.json); ValueError when it is
    none of them, naming what it looks like when it can tell.

    >>> detect_format(b"minbpe v1\\n\\n0\\n")
    'minbpe'
    >>> detect_format(b"IQ== 0\\nIg== 1\\n")
    'tiktoken'
    """
    if looks_like_model(data):
        return "sentencepiece"
    head = data[:4096].lstrip(b"\xef\xbb\xbf \t\r\n")
    first = head.split(b"\n", 1)[0].rstrip(b"\r")
    if first.strip() in (b"minbpe v1", b"bpe v1"):
        return "minbpe"
    if is_sidecar(data):
        return "sidecar"
    family = detect_family_file(data)
    if family is not None:
        return family
    if head.startswith(b"{"):
        try:
            document = json.loads(data)
        except (ValueError, RecursionError):
            return "hf"  # the reader says what is wrong with it
        if isinstance(document, dict) and isinstance(document.get("model"), dict):
            return "hf"
        if detect_family_file(data, document) is not None:
            return detect_family_file(data, document)
        is_vocab = (  # token -> id; GPT-2's own encoder.json even has a token "model"
            isinstance(document, dict)
            and len(document) > 0
            and all(isinstance(v, int) for v in list(document.values())[:100])
        )
        guess = None if is_vocab else guess_unread(data)
        if guess is not None:
            raise ValueError(f"this looks like {guess}")
        return "gpt2-vocab" if is_vocab else "hf"  # the tokenizer.json reader says what is wrong
    if first.startswith(b"#version"):
        return "gpt2-merges"
    if regex.fullmatch(rb"[A-Za-z0-9+/]+={0,2} \d+", first):
        return "tiktoken"
    first_lines = [line.rstrip(b"\r") for line in head.split(b"\n")[:5] if line.strip()]
    if first_lines and all(len(line.split(b" ")) == 2 for line in first_lines):
        return "gpt2-merges"
    guess = guess_unread(data)
    raise ValueError(
        (f"this looks like {guess}; " if guess else "")
        + "not a tokenizer file this tool reads: expected a minbpe .model, a Hugging Face"
        " tokenizer.json, a sentencepiece tokenizer.model, tiktoken ranks, GPT-2 vocab.json /"
        " merges.txt, subword-nmt codes, CLIP's merges or Mistral's tekken.json"
    )


def read_tokenizer(data: bytes, name: str = "tokenizer file", **options: object) -> Tokenizer:
    """A tokenizer from a file's bytes (e.g. an upload); the format is detected from the content.
    A sentencepiece ``tokenizer.model`` or a tokenizer.json of Llama 2's shape gives a
    ``sentencepiece.SentencePieceBPE`` (``family`` "sentencepiece"), any other file a
    ``Tokenizer`` (``family`` "byte-level").

    GPT-2 style files come in pairs: give the other one as ``merges=`` or ``vocab=`` (and its
    name as ``partner_name``, for messages). ``sidecar``: the bpe-lab sidecar saved with the
    file (sidecar.py), which gives the split pattern, the special tokens and the training
    history; it must describe this very file. Without one, tiktoken ranks need ``pattern=`` and
    ``special_tokens=`` and GPT-2 files need ``pattern=`` (the files do not hold them): a
    ValueError says which to pass, never a default.

    What the file controls is read within a budget (``limits.read_budget(size)``: the process's
    policy, else ``limits.FILE_BUDGET``, cut to the files' size): the file is first read in a
    worker process,
    which is stopped past the budget with a ``BudgetExceeded`` naming it; the tokenizer it read
    comes back pickled (0.1 s for cl100k's 100,256 tokens, against 2.2 s to read them; a read
    whose result does not pickle is done again here), and a bad file is refused by name.
    """
    size = len(data) + sum(len(options.get(other) or b"") for other in ("merges", "vocab"))
    budget = read_budget(size)
    if budget is not None and len(data) <= MAX_MODEL_BYTES:
        try:
            read = run_bounded("bpe_core.files:read_here", (data, name, options), budget,
                               what=f"reading {name}", fix="the file's regexes backtrack, or it is"
                               " too large to read here; fix the file or give a smaller one")
        except BudgetExceeded:
            raise
        except Exception:  # the read ended there within the budget: its error is raised here
            read = None
        if read is not None:  # our own worker's answer, never the file's bytes
            tok, translations = pickle.loads(read)
            oniguruma.remember_translations(translations)  # its patterns, shown and written
            return tok
    return _read_tokenizer(data, name, **options)


def read_here(data: bytes, name: str, options: dict) -> bytes | None:
    """``read_tokenizer`` in a worker process: the tokenizer it reads, pickled (None when it
    does not pickle: the caller reads it again itself; a ValueError as it is)."""
    start = oniguruma.touched()
    tok = _read_tokenizer(data, name, **options)
    try:
        return pickle.dumps((tok, oniguruma.translations_since(start)),
                            protocol=pickle.HIGHEST_PROTOCOL)
    except Exception:
        return None


def _read_tokenizer(
    data: bytes,
    name: str = "tokenizer file",
    **options: object,
) -> Tokenizer | SentencePieceBPE:
    tok = _read_tokenizer_kind(data, name, **options)
    if isinstance(tok, SentencePieceBPE) and options.get("sidecar") is not None:
        raise ValueError(f"{options.get('sidecar_name') or 'the sidecar'} is a bpe-lab sidecar"
                         f" of a byte-level tokenizer, but {name} is SentencePiece-style BPE;"
                         " delete the sidecar")
    return tok


def _read_tokenizer_kind(
    data: bytes,
    name: str = "tokenizer file",
    *,
    merges: bytes | None = None,
    vocab: bytes | None = None,
    pattern: str | None = None,
    special_tokens: dict[str, int] | None = None,
    partner_name: str | None = None,
    sidecar: bytes | None = None,
    sidecar_name: str | None = None,
) -> Tokenizer:
    if len(data) > MAX_MODEL_BYTES:
        raise ValueError(f"{name}: {len(data):,} bytes is too large for a tokenizer file")
    if looks_like_model(data):
        return read_sentencepiece_model(data, name)
    if name.endswith(".model"):
        kind = "minbpe"  # minbpe's own extension: its reader says which line is wrong
    else:
        try:
            kind = detect_format(data)
        except ValueError as e:
            raise ValueError(f"{name}, line 1: {e}") from None
    if kind == "gpt2-vocab" and merges is not None and holds_word_merges(merges):
        return read_family_file("word-codes", merges, partner_name or "merges.txt", vocab=data,
                                vocab_name=name)  # CLIP's vocab.json + merges.txt
    if kind in KIND_NAMES:
        if sidecar is not None:
            raise ValueError(f"{name} is {KIND_NAMES[kind]}: a bpe-lab sidecar goes with"
                             " bpe_core's own byte-level files, not with this one")
        clip_vocab = vocab if vocab is not None and vocab_is_clips(vocab) else None
        return read_family_file(kind, data, name, vocab=clip_vocab, vocab_name=partner_name)
    if kind == "sidecar":
        raise ValueError(f"{name} is a bpe-lab sidecar: it describes a tokenizer file saved"
                         f" beside it; load that file (the same name without '{SIDECAR_SUFFIX}')")
    fmt = {"gpt2-vocab": "gpt2", "gpt2-merges": "gpt2"}.get(kind, kind)
    if kind == "gpt2-vocab" and merges is None:
        raise ValueError(f"{name} is a GPT-2 style vocab.json: it needs its merges.txt too;"
                         " pass that file's bytes as merges=")
    if kind == "gpt2-merges" and vocab is None:
        raise ValueError(f"{name} is a GPT-2 style merges.txt: it needs its vocab.json too;"
                         " pass that file's bytes as vocab=")
    if kind == "gpt2-vocab":
        files = {"vocab": (name, data), "merges": (partner_name or "merges.txt", merges)}
    elif kind == "gpt2-merges":
        files = {"vocab": (partner_name or "vocab.json", vocab), "merges": (name, data)}
    else:
        files = {"file": (name, data)}
    side = None
    if sidecar is not None:
        side = read_sidecar(sidecar, sidecar_name or files.get("vocab", files.get("file"))[0]
                            + SIDECAR_SUFFIX)
        if side.format != fmt:
            raise ValueError(f"{side.name} describes a {side.format} file, but"
                             f" {name} is {FORMAT_NAMES[fmt]}; give the sidecar saved with it")
        side.check_files(files)
        for keyword, given, saved in (("pattern", pattern, side.pattern),
                                      ("special_tokens", special_tokens, side.special_tokens)):
            if given is not None and given != saved:
                raise ValueError(f"{keyword}={shorten(given)} differs from the {keyword}"
                                 f" {shorten(saved)} that {side.name} gives for this file; leave"
                                 f" {keyword}= out, or delete the sidecar")
        pattern, special_tokens = side.pattern, side.special_tokens
    if kind == "minbpe":
        tok = _from_minbpe(_text(data, name), name)
    elif kind == "hf":
        document = hf_document(_text(data, name), name)
        if is_sentencepiece_shape(document):  # Llama 2's shape: characters, ▁, byte fallback
            return read_hf_sentencepiece(document, name)
        tok = build(hf_data(document, name), name)
    elif kind == "tiktoken":  # the file is checked first: its own faults come first
        try:
            parsed = parse_tiktoken(data, pattern=pattern or "",
                                    special_tokens=special_tokens or {}, name=name)
        except NotMergedError:  # an empty token (Whisper's multilingual): merged by rank, as tiktoken
            if not regex.search(rb"(?m)^==? +\d", data):  # no line "= rank": refused as it was
                raise
            if pattern is None or special_tokens is None:
                _refuse_missing(name, "tiktoken ranks", pattern is None, special_tokens is None)
            return _ranked(data, name, pattern or "", special_tokens or {})
        if pattern is None or special_tokens is None:
            build(parsed, name)  # the file's own faults first
            _refuse_missing(name, "tiktoken ranks", pattern is None, special_tokens is None)
        tok = build(parsed, name)
    else:
        (vocab_name, vocab_data), (merges_name, merges_data) = files["vocab"], files["merges"]
        vocab_text = _text(vocab_data, vocab_name)
        parsed = parse_gpt2_files(vocab_text, _text(merges_data, merges_name),
                                  pattern=pattern or "", special_tokens=special_tokens,
                                  names=(vocab_name, merges_name))
        if pattern is None:
            build(parsed, vocab_name)  # the file's own faults first
            _refuse_missing(vocab_name, "GPT-2 style vocab.json + merges.txt files", True, False)
        tok = build(parsed, vocab_name)
        if side is not None:
            _agree_on_specials(vocab_text, vocab_name, side)
    if side is not None:
        _agree(tok, side)
        tok.history = side.records(tok)
        if side.variant is not None:  # SuperBPE, BoundlessBPE, parity-aware: back as itself
            tok = as_variant(tok, side.variant, side.name)
    return tok


FORMAT_NAMES = {"minbpe": "a minbpe .model", "hf": "a tokenizer.json", "tiktoken": "tiktoken ranks",
                "gpt2": "a GPT-2 vocab.json + merges.txt"}
_PATTERN_HINT = {
    "tiktoken ranks": "pattern=bpe_core.GPT4_SPLIT_PATTERN for OpenAI's cl100k_base,"
                      " GPT4O_SPLIT_PATTERN for o200k_base",
    "GPT-2 style vocab.json + merges.txt files": "pattern=bpe_core.GPT2_SPLIT_PATTERN for"
                                             " OpenAI's GPT-2 files",
}


class MissingSettingsError(ValueError):
    """A file that does not hold its split pattern or special tokens came without its sidecar:
    ``keywords`` says which of ``pattern`` and ``special_tokens`` to pass."""

    def __init__(self, message: str, keywords: tuple[str, ...]) -> None:
        super().__init__(message)
        self.keywords = keywords


def _refuse_missing(name: str, what: str, no_pattern: bool, no_specials: bool) -> None:
    """A file that does not hold its split pattern (or special tokens) and came without its
    sidecar: say which keywords to pass, never guess."""
    missing = []
    if no_pattern:
        missing.append(f"pattern= (the split pattern it was made with: {_PATTERN_HINT[what]},"
                       " or \"\" for no split)")
    if no_specials:
        missing.append("special_tokens= (e.g. {'<|endoftext|>': 100257}, or {} for none)")
    if missing:
        lacks = " or ".join(["the split pattern"] * no_pattern + ["the special tokens"] * no_specials)
        raise MissingSettingsError(
            f"{name}: {what} do not hold {lacks}, and no bpe-lab sidecar"
            f" ({os.path.basename(name)}{SIDECAR_SUFFIX}, written by bpe_core's save methods)"
            " came with it; pass " + " and ".join(missing),
            ("pattern",) * no_pattern + ("special_tokens",) * no_specials)


def _agree(tok: Tokenizer, side: Sidecar) -> None:
    """A sidecar beside a file that holds the same facts must say what the file says. A
    tokenizer.json spells the pattern for Oniguruma: the sidecar's spelling comes back when it
    is the one that file was written from."""
    if side.format == "hf" and side.pattern and tok.pipeline is None and tok.pattern:
        try:
            if from_oniguruma(to_oniguruma(side.pattern)) == tok.pattern:
                tok.pattern = side.pattern
        except ValueError:
            pass  # then the comparison below says what differs
    checks = (("split pattern", tok.pattern, side.pattern),
              ("special tokens", tok.special_tokens, side.special_tokens),
              ("kind of tokenizer", tokenizer_kind(tok), side.kind),
              ("vocabulary size", tok.vocab_size, side.vocab_size))
    for what, found, saved in checks:
        if found != saved:
            raise ValueError(f"{side.name} says the {what} is {shorten(saved)}, but the file"
                             f" gives {shorten(found)}; the sidecar is from another tokenizer:"
                             " save the tokenizer again, or delete the sidecar")


def _agree_on_specials(vocab_text: str, vocab_name: str, side: Sidecar) -> None:
    """A GPT-2 vocab.json lists its special tokens with their ids (as ``transformers`` reads
    them); the sidecar lists them too. Where they differ, the files contradict each other:
    refused, naming both (never the sidecar's ids silently)."""
    entries = json.loads(vocab_text)  # parse_gpt2_files has read it: a JSON object
    for token, idx in side.special_tokens.items():
        found = entries.get(token)
        if found != idx:
            in_vocab = f"gives it id {found}" if found is not None else "does not hold it"
            raise ValueError(
                f"{side.name} says the special token {shorten(token)} has id {idx}, but"
                f" {vocab_name} {in_vocab}: the two files contradict each other. Save the"
                " tokenizer again, or delete the sidecar and pass pattern= yourself (the"
                " special tokens then come from vocab.json)")


def _ranked(data: bytes, name: str, pattern: str, special_tokens: dict[str, int]) -> Tokenizer:
    """tiktoken ranks with an empty token (Whisper's multilingual.tiktoken), whose merges
    cannot be recovered: a ``core.RankedEncoding``, which merges by rank as tiktoken does."""
    from .core import Encoding

    tok = Encoding(name, pat_str=pattern, mergeable_ranks=parse_tiktoken_ranks(data, name),
                   special_tokens=special_tokens)
    tok.from_file = True
    return tok


def _from_minbpe(text: str, name: str) -> Tokenizer:
    pattern, special_tokens, merges = parse_minbpe(text, name)
    try:
        RegexTokenizer(pattern)  # the pattern alone first, so that the message names line 2
    except ValueError as e:
        raise ValueError(f"{name}, line 2: {e}") from e
    data = TokenizerData({pair: 256 + i for i, pair in enumerate(merges)}, None, pattern,
                         special_tokens)
    return build(data, f"{name}, special tokens (lines 4-{3 + len(special_tokens)})")


_PARTNERS = {"gpt2-vocab": ("merges.txt", "vocab.bpe"), "gpt2-merges": ("vocab.json", "encoder.json")}


def load(
    path: str | os.PathLike,
    *,
    merges_path: str | os.PathLike | None = None,
    vocab_path: str | os.PathLike | None = None,
    pattern: str | None = None,
    special_tokens: dict[str, int] | None = None,
) -> Tokenizer:
    """Load a tokenizer file of any supported kind, detected from its content.

    A minbpe ``.model`` (or the seeds' ``bpe v1``) gives a ``BasicTokenizer`` when its pattern
    line is empty, else a ``RegexTokenizer``. For ``vocab.json`` / ``merges.txt`` the partner file
    is taken from ``merges_path`` / ``vocab_path`` or found beside it (merges.txt or vocab.bpe,
    vocab.json or encoder.json).

    The bpe-lab sidecar beside the file (``<file>.bpe-lab.json``; for GPT-2 files, beside the
    vocab.json), written by the save methods, gives back the split pattern, the special tokens
    and the training history, so that everything bpe_core saves loads with the same ids. Without
    it, tiktoken ranks need ``pattern=`` and ``special_tokens=``, GPT-2 files ``pattern=``.
    """
    name = os.fspath(path)
    data = _read(name)
    try:
        kind = detect_format(data)
    except ValueError:
        kind = "unknown"  # read_tokenizer says what is wrong
    partner: dict[str, bytes] = {}
    partner_name = None
    if kind == "word-codes":  # CLIP's merges.txt when CLIP's vocab.json is beside it
        beside = os.fspath(vocab_path) if vocab_path is not None else os.path.join(
            os.path.dirname(name), "vocab.json")
        if os.path.exists(beside):
            partner["vocab"], partner_name = _read(beside), beside
    if kind in _PARTNERS:
        given = merges_path if kind == "gpt2-vocab" else vocab_path
        candidates = [given] if given is not None else [
            os.path.join(os.path.dirname(name), c) for c in _PARTNERS[kind]
        ]
        found = next((c for c in candidates if os.path.exists(c)), None)
        if found is None:
            keyword, other = (("merges_path", "merges.txt") if kind == "gpt2-vocab"
                              else ("vocab_path", "vocab.json"))
            where = (f"{os.fspath(given)} does not exist" if given is not None
                     else f"no {' or '.join(_PARTNERS[kind])} beside it")
            raise ValueError(f"{name} is a GPT-2 style {'vocab.json' if kind == 'gpt2-vocab' else 'merges.txt'}:"
                             f" it needs its {other} too, and {where}; pass {keyword}=")
        partner["merges" if kind == "gpt2-vocab" else "vocab"] = _read(found)
        partner_name = os.fspath(found)
    vocab_file = partner_name if kind == "gpt2-merges" else name
    side_name = sidecar_path(vocab_file)
    sidecar = (_read(side_name, MAX_SIDECAR_BYTES, "a bpe-lab sidecar")
               if os.path.exists(side_name) else None)
    return read_tokenizer(data, name, pattern=pattern, special_tokens=special_tokens,
                          partner_name=partner_name, sidecar=sidecar, sidecar_name=side_name,
                          **partner)
