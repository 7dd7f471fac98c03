"""Export and import: the bytes of every download, and reading uploaded tokenizer files.

No Streamlit here. Each export is a pure function ``tok -> bytes``; a tokenizer that a format
cannot hold gets a ValueError whose message is the reason (``export_problem`` gives the same
reason without building the file, so the page can show it instead of a button). Imports go
through ``read_uploads``, which raises ValueError for anything it cannot read.
"""

from __future__ import annotations

import csv
import io
import re
import zipfile
from collections.abc import Callable
from dataclasses import dataclass

import bpe_core
from bpe_core import GPT2_SPLIT_PATTERN, GPT4_SPLIT_PATTERN, GPT4O_SPLIT_PATTERN
from bpe_core.family_files import KIND_NAMES, family_refusal
from bpe_core.files import MissingSettingsError, detect_format, to_minbpe
from bpe_core.formats import (
    pipeline_problem,
    to_gpt2_files,
    to_hf_json,
    to_tiktoken,
    whole_token_problem,
)
from bpe_core.limits import MAX_TOKEN_ID, MAX_UPLOAD_MB
from bpe_core.oniguruma import unguarded
from bpe_core.pipeline import to_oniguruma, to_tiktoken_pattern
from bpe_core.sentencepiece import looks_like_model
from bpe_core.sidecar import SIDECAR_SUFFIX, make_sidecar
from bpe_core.word_bpe import CLIPWordBPE
from ui.kit.tables import merge_rows

# -- export: problems -----------------------------------------------------------------------------


def minbpe_problem(tok: bpe_core.Tokenizer) -> str | None:
    """Why ``tok`` cannot be saved as a minbpe ``.model`` / ``.vocab`` pair, or None."""
    if tok.byte_ids is not None:
        return (
            "A .model file cannot hold this tokenizer: it numbers its 256 bytes in its own order"
            " (GPT vocabularies do), and a .model file assumes byte b is token b. Download"
            " tokenizer.json, tiktoken ranks or GPT-2 files instead."
        )
    if list(tok.merges.values()) != list(range(256, 256 + len(tok.merges))):
        return (
            "A .model file cannot hold this tokenizer: its merges do not make ids 256, 257, …"
            " in order. Download tokenizer.json, tiktoken ranks or GPT-2 files instead."
        )
    if any(ch in tok.pattern for ch in "\r\n"):
        return (
            "A .model file cannot hold this tokenizer: its split pattern contains a raw line"
            " break (write it as \\n inside the pattern). Download tokenizer.json instead."
        )
    return None


def duplicate_bytes_problem(tok: bpe_core.Tokenizer) -> str | None:
    """Why ``tok`` cannot go to a format that keys tokens by their bytes, or None.

    Two merges can spell the same bytes (``(ab)c`` and ``a(bc)``); tokenizer.json, tiktoken and
    GPT-2 files would have to give both the same key.
    """
    specials = set(tok.special_tokens.values())
    seen: dict[bytes, int] = {}
    for idx, token in tok.vocab.items():
        if idx in specials:
            continue
        if token in seen:
            return (
                f"Tokens {seen[token]} and {idx} have the same bytes ({token.hex(' ')}); this"
                " format keys tokens by their bytes, so it cannot hold this tokenizer."
                " Download the .model file instead."
            )
        seen[token] = idx
    return None


# -- export: the bytes of each download ------------------------------------------------------------


def _raise_if(problem: str | None) -> None:
    if problem:
        raise ValueError(problem)


def minbpe_files(tok: bpe_core.Tokenizer) -> tuple[bytes, bytes]:
    """``(.model bytes, .vocab bytes)``, as ``tok.save`` would write them."""
    _raise_if(minbpe_problem(tok))
    model, vocab = to_minbpe(tok)
    return model.encode("utf-8"), vocab.encode("utf-8")


def minbpe_model_bytes(tok: bpe_core.Tokenizer) -> bytes:
    """minbpe's ``.model`` file: version, pattern, special tokens, one merge per line."""
    return minbpe_files(tok)[0]


def minbpe_vocab_bytes(tok: bpe_core.Tokenizer) -> bytes:
    """minbpe's ``.vocab`` file: one readable line per token (for people; not loadable)."""
    return minbpe_files(tok)[1]


def hf_json_bytes(tok: bpe_core.Tokenizer) -> bytes:
    """A Hugging Face ``tokenizer.json`` (UTF-8)."""
    _raise_if(duplicate_bytes_problem(tok))
    return to_hf_json(tok).encode("utf-8")


def tiktoken_bytes(tok: bpe_core.Tokenizer) -> bytes:
    """tiktoken ranks: ``base64(token) id`` per line (no pattern, no special tokens)."""
    _raise_if(duplicate_bytes_problem(tok))
    return to_tiktoken(tok)


def gpt2_vocab_bytes(tok: bpe_core.Tokenizer) -> bytes:
    """GPT-2 style ``vocab.json`` (token spelled with GPT-2's byte characters -> id)."""
    _raise_if(duplicate_bytes_problem(tok))
    return to_gpt2_files(tok)[0].encode("utf-8")


def gpt2_merges_bytes(tok: bpe_core.Tokenizer) -> bytes:
    """GPT-2 style ``merges.txt`` (``#version: 0.2`` then one ``left right`` pair per line)."""
    _raise_if(duplicate_bytes_problem(tok))
    return to_gpt2_files(tok)[1].encode("utf-8")


def tiktoken_sidecar_bytes(tok: bpe_core.Tokenizer) -> bytes:
    """The bpe-lab sidecar of ``tiktoken_bytes(tok)``: its pattern, special tokens, history."""
    return make_sidecar(tok, "tiktoken", {"file": tiktoken_bytes(tok)})


def gpt2_sidecar_bytes(tok: bpe_core.Tokenizer) -> bytes:
    """The bpe-lab sidecar of the GPT-2 pair: its pattern, special tokens and history."""
    return make_sidecar(tok, "gpt2", {"vocab": gpt2_vocab_bytes(tok),
                                      "merges": gpt2_merges_bytes(tok)})


HISTORY_COLUMNS = ["step", "id", "left", "right", "token", "bytes_hex", "count"]


def history_rows(tok: bpe_core.Tokenizer) -> list[dict[str, object]]:
    """The CSV's rows: ``ui.kit.tables.merge_rows`` with bytes as plain hex and unknown counts empty."""
    rows = []
    for row in merge_rows(tok):
        row["bytes_hex"] = row.pop("bytes").replace(" ", "")
        row["count"] = "" if row["count"] is None else row["count"]
        rows.append(row)
    return rows


def history_csv_bytes(tok: bpe_core.Tokenizer) -> bytes:
    """The merge history as CSV: step,id,left,right,token,bytes_hex,count (UTF-8)."""
    out = io.StringIO(newline="")
    writer = csv.DictWriter(out, fieldnames=HISTORY_COLUMNS, lineterminator="\n")
    writer.writeheader()
    writer.writerows(history_rows(tok))
    return out.getvalue().encode("utf-8")


@dataclass(frozen=True)
class Export:
    """One download on the page."""

    key: str  # the download button's key
    title: str
    suffix: str  # appended to the file stem, e.g. ".model" or "-tokenizer.json"
    mime: str
    make: Callable[[bpe_core.Tokenizer], bytes]
    what: str  # one line for the page


EXPORTS: tuple[Export, ...] = (
    Export("export_model", "minbpe .model", ".model", "text/plain", minbpe_model_bytes,
           "minbpe's format: pattern, special tokens, one merge per line. `bpe_core.load`"
           " reads it."),
    Export("export_vocab", "minbpe .vocab", ".vocab", "text/plain", minbpe_vocab_bytes,
           "minbpe's readable listing, one token per line (for people: import the .model)."),
    Export("export_hf", "Hugging Face tokenizer.json", "-tokenizer.json", "application/json",
           hf_json_bytes,
           "`tokenizers.Tokenizer.from_file` reads it: split pattern, merges, special tokens."),
    Export("export_tiktoken", "tiktoken ranks", ".tiktoken", "text/plain", tiktoken_bytes,
           "`tiktoken.load.load_tiktoken_bpe` reads it; give tiktoken the pattern and special"
           " tokens yourself (the file has neither: its sidecar below has them)."),
    Export("export_tiktoken_sidecar", "tiktoken sidecar", ".tiktoken" + SIDECAR_SUFFIX,
           "application/json", tiktoken_sidecar_bytes,
           "The split pattern, special tokens and merge history the ranks cannot hold. Keep it"
           " beside the .tiktoken file: `bpe_core.load` and this page read it."),
    Export("export_gpt2_vocab", "GPT-2 vocab.json", "-vocab.json", "application/json",
           gpt2_vocab_bytes, "GPT-2's encoder.json format: token -> id. Needs merges.txt."),
    Export("export_gpt2_merges", "GPT-2 merges.txt", "-merges.txt", "text/plain",
           gpt2_merges_bytes, "GPT-2's vocab.bpe format: one merge per line. Needs vocab.json."),
    Export("export_gpt2_sidecar", "GPT-2 sidecar", "-vocab.json" + SIDECAR_SUFFIX,
           "application/json", gpt2_sidecar_bytes,
           "The split pattern, special tokens and merge history the pair cannot hold. Keep it"
           " beside the vocab.json: `bpe_core.load` and this page read it."),
    Export("export_history", "Merge history CSV", "-merges.csv", "text/csv", history_csv_bytes,
           "step, id, left, right, token, bytes_hex, count (count only for tokenizers trained"
           " here)."),
)


def export_problems(tok: bpe_core.Tokenizer) -> dict[str, str | None]:
    """For every export key: why ``tok`` cannot be written in that format, or None.

    Cheap (no file is built); the export functions raise ValueError with the same message.
    """
    minbpe = pipeline_problem(tok, ".model") or minbpe_problem(tok)
    keyed = duplicate_bytes_problem(tok)
    hf = keyed or _pattern_problem(tok, to_oniguruma) if (
        tok.pipeline is None or tok.pipeline.pre_tokenizer is None) else keyed
    tiktoken = pipeline_problem(tok, "tiktoken") or keyed or whole_token_problem(tok)
    gpt2 = pipeline_problem(tok, "vocab.json + merges.txt") or keyed
    by_key = {"export_model": minbpe, "export_vocab": minbpe, "export_hf": hf,
              "export_tiktoken": tiktoken, "export_tiktoken_sidecar": tiktoken,
              "export_gpt2_vocab": gpt2, "export_gpt2_merges": gpt2, "export_gpt2_sidecar": gpt2,
              "export_history": None}
    return {e.key: by_key[e.key] for e in EXPORTS}


def _pattern_problem(tok: bpe_core.Tokenizer, spell: Callable[[str], str]) -> str | None:
    """Why ``tok``'s split pattern cannot be spelled for another engine (``spell``), or None."""
    if not tok.pattern:
        return None
    try:
        spell(tok.pattern)
    except ValueError as e:
        return f"This tokenizer cannot be written in this format: {e}."
    return None


def zip_bytes(tok: bpe_core.Tokenizer, stem: str) -> bytes:
    """Every format this tokenizer can be written in, in one zip, with the bpe-lab sidecars
    (for a .model and a tokenizer.json only when there is a merge history to keep) and a
    README.txt that gives the split pattern and special tokens."""
    problems = export_problems(tok)
    buffer = io.BytesIO()
    left_out = []
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as z:
        for e in EXPORTS:
            if problems[e.key]:
                left_out.append(f"{e.title}: {problems[e.key]}")
                continue
            z.writestr(stem + e.suffix, e.make(tok))
        history_sidecars = {"export_model": "minbpe", "export_hf": "hf"}
        for e in EXPORTS:  # the files that hold everything but the history
            if tok.history and e.key in history_sidecars and not problems[e.key]:
                z.writestr(stem + e.suffix + SIDECAR_SUFFIX,
                           make_sidecar(tok, history_sidecars[e.key], {"file": e.make(tok)}))
        readme = [
            f"{stem}: a byte-level BPE tokenizer exported by bpe-lab",
            f"vocabulary size: {tok.vocab_size}",
            f"merges: {tok.num_merges}",
            f"split pattern (empty: no split): {shown_pattern(tok)}",
            f"special tokens: {tok.special_tokens}",
        ]
        if not problems["export_tiktoken"] and not _pattern_problem(tok, to_tiktoken_pattern):
            readme += [
                "",
                "tiktoken (its regex engine reads the pattern spelled so):",
                "  import tiktoken, tiktoken.load",
                f"  enc = tiktoken.Encoding(name={stem!r},"
                f" pat_str={to_tiktoken_pattern(tok.pattern)!r},",
                f"      mergeable_ranks=tiktoken.load.load_tiktoken_bpe({stem + '.tiktoken'!r}),",
                f"      special_tokens={tok.special_tokens!r})",
            ]
        readme += ["", f"*{SIDECAR_SUFFIX}: bpe-lab sidecars, with what a file cannot hold (split"
                   " pattern, special tokens, merge history). Keep each beside its file:"
                   " bpe_core.load and the Export & import page read it."]
        if tok.pipeline is not None:
            readme += ["", "before BPE (tokenizer.json only): " + "; ".join(tok.pipeline.described)]
        if left_out:
            readme += ["", "Not included:"] + left_out
        z.writestr("README.txt", "\n".join(readme) + "\n")
    return buffer.getvalue()


def file_stem(label: str) -> str:
    """A file name stem from a tokenizer's label.

    >>> file_stem("GPT-4 split, 512 tokens")
    'bpe-lab-gpt-4-split-512-tokens'
    >>> file_stem("imported from my model.model")
    'bpe-lab-imported-from-my-model-model'
    """
    slug = re.sub(r"[^a-z0-9]+", "-", label.lower()).strip("-")[:60].strip("-")
    return f"bpe-lab-{slug}" if slug else "bpe-lab"


# -- import ---------------------------------------------------------------------------------------

MAX_IMPORT_MB = MAX_UPLOAD_MB
MAX_IMPORT_BYTES = MAX_IMPORT_MB * 1024 * 1024
MAX_IMPORT_FILES = 4  # vocab.json + merges.txt + their sidecar (+ a .vocab listing)
MAX_IMPORT_SPECIALS = 20
MAX_IMPORT_ID = MAX_TOKEN_ID  # bpe_core's readers refuse larger ids (they mean nothing)

# label in the import page's selectbox -> split pattern given to the reader (None: its default)
IMPORT_PATTERNS: dict[str, str | None] = {
    "Not given (read from the file's bpe-lab sidecar)": None,
    "GPT-4 (cl100k_base)": GPT4_SPLIT_PATTERN,
    "GPT-2": GPT2_SPLIT_PATTERN,
    "GPT-4o (o200k_base)": GPT4O_SPLIT_PATTERN,
    "None (no split, like Basic)": "",
}

FORMAT_TITLES = {
    "minbpe": "minbpe .model",
    "hf": "Hugging Face tokenizer.json",
    "tiktoken": "tiktoken ranks",
    "gpt2-vocab": "GPT-2 vocab.json + merges.txt",
    "gpt2-merges": "GPT-2 vocab.json + merges.txt",
    "sentencepiece": "sentencepiece tokenizer.model",
    **KIND_NAMES,  # word BPE and tekken (bpe_core.family_files)
}
FORMAT_FILE = {"gpt2-vocab": "vocab.json", "gpt2-merges": "merges.txt"}
PATTERN_FREE = ("tiktoken", "gpt2-vocab", "gpt2-merges")  # formats that do not store the pattern


@dataclass(frozen=True)
class Imported:
    """What ``read_uploads`` made: the tokenizer (a byte-level ``Tokenizer``, or one of another
    family: ``ui.exchange.families``), a safe display name, the format read."""

    tok: object
    name: str
    format: str  # a FORMAT_TITLES key
    notes: tuple[str, ...] = ()
    sidecar: bool = False  # whether a bpe-lab sidecar came with the file(s)


def safe_name(name: str) -> str:
    """A file name cut to letters, digits and ``._-+ `` (it is shown in labels and captions).

    >>> safe_name("my ![x](http://e) tok.model")
    'my __x__http___e_ tok.model'
    """
    cleaned = re.sub(r"[^A-Za-z0-9._+ -]", "_", name).strip()[:60]
    return cleaned or "upload"


def parse_import_specials(text: str) -> dict[str, int] | None:
    """Special tokens for a tiktoken or GPT-2 upload, written ``token=id`` and comma-separated;
    ``none`` for none, and None when nothing is written (then the sidecar must say).

    >>> parse_import_specials("<|endoftext|>=100257, <|pad|>=100258")
    {'<|endoftext|>': 100257, '<|pad|>': 100258}
    >>> parse_import_specials("none"), parse_import_specials(" ")
    ({}, None)
    """
    if not text.strip():
        return None
    if text.strip().lower() == "none":
        return {}
    specials: dict[str, int] = {}
    for item in text.split(","):
        item = item.strip()
        if not item:
            continue
        token, sep, idx = item.rpartition("=")
        token, idx = token.strip(), idx.strip()
        if not sep or not token or not (idx.isascii() and idx.isdigit()):
            raise ValueError(
                f"Write special tokens as token=id, comma-separated, e.g. <|endoftext|>=100257"
                f" (found {item[:40]!r})."
            )
        if len(token) > 100:
            raise ValueError(
                f"The special token {token[:20]!r}… is too long (100 characters at most)."
            )
        if len(idx) > 10 or int(idx) > MAX_IMPORT_ID:
            raise ValueError(f"The id of {token[:20]!r} is too large: {MAX_IMPORT_ID:,} at most.")
        specials[token] = int(idx)
    if len(specials) > MAX_IMPORT_SPECIALS:
        raise ValueError(f"At most {MAX_IMPORT_SPECIALS} special tokens, please.")
    return specials


def _kind(name: str, data: bytes) -> str:
    if looks_like_model(data):
        return "sentencepiece"
    if name.endswith(".model"):  # not a sidecar ending .model.bpe-lab.json
        return "minbpe"
    try:
        return detect_format(data)
    except ValueError as e:
        raise ValueError(f"{name}, line 1: {e}") from None


def _safe_kind(name: str, data: bytes) -> str:
    try:
        return _kind(name, data)
    except ValueError:
        return "unknown"


def _one_tokenizer(kinds: list[str | None]) -> bool:
    """Whether files of these kinds (None: a .vocab listing) make exactly one tokenizer (a
    sidecar goes with the tokenizer file)."""
    readable = sorted(k for k in kinds if k not in (None, "sidecar"))
    return len(readable) == 1 or readable == ["gpt2-merges", "gpt2-vocab"]


def pick_upload(files: list[tuple[str, bytes]], new: list[bool]) -> list[int]:
    """Which of the uploader's files to read (indices), when ``new`` marks the ones just added.

    A multiple-file uploader keeps earlier files: adding ``b.model`` under ``a.model`` means
    "read b.model". All files are read when they make one tokenizer (one file, or vocab.json +
    merges.txt); else the new ones, with a GPT-2 half paired with the latest other half.
    A bpe-lab sidecar goes with the tokenizer read (the newest sidecar, when there are several);
    when only a sidecar was added, the latest tokenizer file is read again with it.
    """
    kinds = [None if safe_name(name).endswith(".vocab") else _safe_kind(safe_name(name), data)
             for name, data in files]
    sidecars = [i for i, kind in enumerate(kinds) if kind == "sidecar"]
    others = [i for i, kind in enumerate(kinds) if kind != "sidecar"]
    if _one_tokenizer([kinds[i] for i in others]):
        chosen = others
    else:
        newest = [i for i in others if new[i]]
        if not newest:  # only a sidecar was added
            newest = [i for i in others if kinds[i] is not None][-1:]
        chosen = _newest_tokenizer(kinds, newest, new) or others
    return sorted(chosen + sidecars[-1:])


def _newest_tokenizer(kinds: list[str | None], newest: list[int], new: list[bool]) -> list[int]:
    halves = {"gpt2-vocab": "gpt2-merges", "gpt2-merges": "gpt2-vocab"}
    readable_new = [i for i in newest if kinds[i] is not None]
    if len(readable_new) == 1 and kinds[readable_new[0]] in halves:
        other = halves[kinds[readable_new[0]]]  # type: ignore[index]
        partners = [i for i in range(len(kinds)) if kinds[i] == other and not new[i]]
        if partners:
            return sorted([partners[-1], *newest])
    return newest


def read_uploads(
    files: list[tuple[str, bytes]],
    *,
    pattern: str | None = None,
    special_tokens: dict[str, int] | None = None,
) -> Imported:
    """A tokenizer from uploaded ``(file name, bytes)``: one file, or vocab.json + merges.txt,
    with or without the bpe-lab sidecar saved with it.

    The format is detected from the content. ``pattern`` and ``special_tokens`` (None: not
    given) are for tiktoken and GPT-2 files without their sidecar, which do not store them;
    without either, the ValueError says what to upload or choose. Anything unreadable is a
    ValueError that names the file (and the line, where there is one).
    """
    if not files:
        raise ValueError("No file uploaded.")
    if len(files) > MAX_IMPORT_FILES:
        raise ValueError(
            f"{len(files)} files: upload one tokenizer file, or a vocab.json with its merges.txt,"
            " and the bpe-lab sidecar saved with it."
        )
    for name, data in files:
        if len(data) > MAX_IMPORT_BYTES:
            raise ValueError(
                f"{safe_name(name)}: {len(data):,} bytes is more than the {MAX_IMPORT_MB} MB this"
                " page reads."
            )
    named = [(safe_name(name), data) for name, data in files]
    sidecars = [(name, data) for name, data in named
                if not name.endswith(".vocab") and _safe_kind(name, data) == "sidecar"]
    if len(sidecars) > 1:
        raise ValueError("Upload one bpe-lab sidecar (the one saved with the tokenizer file);"
                         f" found {', '.join(name for name, _ in sidecars)}.")
    sidecar = sidecars[0] if sidecars else (None, None)
    readable = [(name, data) for name, data in named
                if not name.endswith(".vocab") and (name, data) not in sidecars]
    notes = []
    if not readable:
        if sidecars:
            raise ValueError(f"{sidecar[0]} is a bpe-lab sidecar: it goes with the tokenizer file"
                             " saved beside it. Upload that file too.")
        raise ValueError(
            f"{named[0][0]} is minbpe's readable listing of the tokens, which cannot be"
            " loaded: upload the .model file saved with it."
        )
    if len(readable) + len(sidecars) < len(named):
        notes.append("The .vocab file is a listing for people; the tokenizer was read from the"
                     " other file.")
    if sidecars:
        notes.append(f"The split pattern, special tokens and merge history come from the"
                     f" bpe-lab sidecar {sidecar[0]}.")

    if len(readable) == 1:
        name, data = readable[0]
        kind = _kind(name, data)
        if kind in ("gpt2-vocab", "gpt2-merges"):
            other = "merges.txt" if kind == "gpt2-vocab" else "vocab.json"
            raise ValueError(f"{name} is a GPT-2 style {FORMAT_FILE[kind]}: it needs its {other}"
                             " too. Upload both in one go (with their bpe-lab sidecar).")
        try:
            tok = bpe_core.read_tokenizer(data, name, pattern=pattern,
                                          special_tokens=special_tokens, sidecar=sidecar[1],
                                          sidecar_name=sidecar[0])
        except MissingSettingsError as e:
            raise _missing(kind, name, e.keywords) from None
        notes += [f"Left out: {note}" for note in getattr(tok, "ignored", ())]
        return Imported(_checked(tok), name, kind, tuple(notes), bool(sidecars))

    kinds = {_kind(name, data): (name, data) for name, data in readable}
    if "word-codes" in kinds:  # CLIP's merges.txt comes with its vocab.json
        kinds["gpt2-merges"] = kinds.pop("word-codes")
    if len(readable) != 2 or set(kinds) != {"gpt2-vocab", "gpt2-merges"}:
        found = ", ".join(f"{name} ({FORMAT_TITLES.get(_kind(name, data), '?')})"
                          for name, data in readable)
        raise ValueError(
            f"Upload one tokenizer at a time (remove the files you do not want from the list);"
            f" only GPT-2 style vocab.json + merges.txt come as two files. Found: {found}."
        )
    (vocab_name, vocab), (merges_name, merges) = kinds["gpt2-vocab"], kinds["gpt2-merges"]
    try:
        tok = bpe_core.read_tokenizer(vocab, vocab_name, merges=merges, pattern=pattern,
                                      special_tokens=special_tokens, partner_name=merges_name,
                                      sidecar=sidecar[1], sidecar_name=sidecar[0])
    except MissingSettingsError as e:
        raise _missing("gpt2-vocab", vocab_name, e.keywords) from None
    return Imported(_checked(tok), f"{vocab_name} + {merges_name}",
                    "clip" if isinstance(tok, CLIPWordBPE) else "gpt2-vocab",
                    tuple(notes), bool(sidecars))


def sidebar_refusal(imported: Imported) -> str | None:
    """Why an imported file cannot be the sidebar's tokenizer (the pages draw bpe_core's
    byte-level tokenizers: ``family_files.family_refusal`` says so, naming its family), or
    None when it can."""
    return family_refusal(imported.tok, imported.name, "the other pages")


def _missing(kind: str, name: str, keywords: tuple[str, ...]) -> ValueError:
    """What a file without its sidecar lacks, said in the page's words (bpe_core's
    ``MissingSettingsError`` says it in keywords)."""
    missing = []
    if "pattern" in keywords:
        missing.append("choose its split pattern above")
    if "special_tokens" in keywords:
        missing.append("write its special tokens above (none if it has none)")
    what = ("tiktoken ranks do not hold the split pattern or the special tokens"
            if kind == "tiktoken" else "GPT-2 files do not hold the split pattern")
    return ValueError(f"{name}: {what}. Upload the bpe-lab sidecar saved with it"
                      f" ({name}{SIDECAR_SUFFIX}) together with it, or " + " and ".join(missing)
                      + ".")


def _checked(tok: bpe_core.Tokenizer) -> bpe_core.Tokenizer:
    """An uploaded tokenizer as the pages use it: its regexes (a file's, which may backtrack for
    ever) run within the app's budget (``choices.install_budget``: the tokenizer is
    ``from_file``), and its ids are bounded by the readers."""
    tok.from_file = True
    return tok


def shown_pattern(tok: bpe_core.Tokenizer) -> str:
    """The split pattern to show: a tokenizer.json's without the guards that read characters
    newer than Oniguruma's Unicode as Hugging Face does (thousands of code points), said in
    words instead; "" for no split."""
    plain = unguarded(tok.pattern)
    if plain == tok.pattern:
        return plain
    return (plain + "   (its classes read the characters newer than Hugging Face's Unicode"
            " tables, such as U+0558, as Hugging Face does)")


def import_summary(imported: Imported) -> list[tuple[str, str]]:
    """``(field, value)`` rows that say what was loaded (plain text, for a table)."""
    tok = imported.tok
    specials = ", ".join(f"{s} = {i}" for s, i in tok.special_tokens.items()) or "none"
    pattern = shown_pattern(tok) or "none (no split: the whole text is one chunk)"
    if imported.sidecar:
        pattern += "  (from the bpe-lab sidecar)"
    elif imported.format in PATTERN_FREE:
        pattern += "  (chosen on this page: the file does not store it)"
    return [
        ("File", imported.name),
        ("Format", FORMAT_TITLES[imported.format]),
        ("Tokenizer", type(tok).__name__),
        ("Vocabulary size", f"{tok.vocab_size:,}"),
        ("Merges", f"{tok.num_merges:,}"),
        ("Split pattern", pattern),
        ("Special tokens", specials),
        ("Merge history", f"{len(tok.history):,} steps (from the sidecar)" if tok.history
         else "none"),
    ] + _pipeline_rows(tok)


def _pipeline_rows(tok: bpe_core.Tokenizer) -> list[tuple[str, str]]:
    """What a tokenizer.json does before BPE, and how it decodes when not as the bytes."""
    if tok.pipeline is None:
        return []
    before = [line for line in tok.pipeline.described if not line.startswith("decoder: ")]
    decoding = [line.removeprefix("decoder: ") for line in tok.pipeline.described
                if line.startswith("decoder: ")]
    return ([("Before BPE", "; ".join(before))] if before else []) + (
        [("Decoding", f"as Hugging Face's decoder: {decoding[0]} (decode() follows it)")]
        if decoding else [])
