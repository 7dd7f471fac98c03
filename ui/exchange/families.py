"""What the Export & import page says about a file of another family than bpe_core's byte-level
``Tokenizer``: a SentencePiece model (``tokenizer.model``, a Llama-shaped tokenizer.json),
word BPE (subword-nmt's codes, CLIP's merges), Mistral's tekken.json, and a tiktoken file
merged by rank (Whisper's multilingual.tiktoken). No Streamlit here.

- ``family_rows(tok)``: the table's rows that say what it holds (pieces, byte fallback,
  merges, ids);
- ``family_exports(tok)``: the downloads its family can be written as (``files.Export``), each
  with ``export_problem`` for the reason one cannot be made.

The family's name is ``ui.kit.families.family_title``; its tokens on a text
``ui.kit.family_tokens.family_pieces``.
"""

from __future__ import annotations

import json

from bpe_core.base import Tokenizer
from bpe_core.core import RankedEncoding
from bpe_core.sentencepiece import (
    BYTE,
    CONTROL,
    NORMAL,
    UNKNOWN,
    UNUSED,
    USER_DEFINED,
    SentencePieceBPE,
    to_model_file,
)
from bpe_core.sentencepiece.hf_json import to_hf_sentencepiece_json
from bpe_core.tekken import TekkenTokenizer
from bpe_core.word_bpe import CLIPWordBPE, WordBPE, codes_text
from ui.exchange.files import FORMAT_TITLES, Export, Imported, import_summary
from ui.kit.families import family_title

_KINDS = ((NORMAL, "normal"), (BYTE, "byte (<0x00> to <0xFF>)"), (CONTROL, "control"),
          (UNKNOWN, "unknown"), (USER_DEFINED, "user-defined"), (UNUSED, "unused"))


def _sentencepiece_rows(tok: SentencePieceBPE) -> list[tuple[str, str]]:
    counts = {kind: 0 for kind, _ in _KINDS}
    for _, _, kind in tok.pieces:
        counts[kind] += 1
    kinds = ", ".join(f"{counts[k]:,} {name}" for k, name in _KINDS if counts[k])
    merged = sum(1 for p, _, kind in tok.pieces if kind == NORMAL and len(p) > 1)
    merges = getattr(tok, "merges", None)
    unk = "none" if tok.unk_id is None else f"{tok.pieces[tok.unk_id][0]} (id {tok.unk_id})"
    return [
        ("Pieces", f"{tok.vocab_size:,}: {kinds}"),
        ("Byte fallback", "on: a character that is no piece becomes the pieces of its UTF-8"
         " bytes (<0xF0> <0x9F> …)" if tok.byte_fallback else
         f"off: a character that is no piece becomes the unknown piece, {unk}"),
        ("Merges", f"{len(merges):,}, the file's list in order (as Hugging Face tokenizers"
         " merges)" if merges is not None else
         f"none listed: the pair whose joined piece scores highest is merged first ({merged:,}"
         " pieces of two characters or more)"),
        ("Spaces", "written ▁ (U+2581)" + (", one ▁ put before the text"
                                           if tok.add_dummy_prefix else "")
         + (", runs of spaces made one" if tok.remove_extra_whitespaces else "")),
    ]


def family_rows(tok: object) -> list[tuple[str, str]]:
    """``(field, value)`` rows that say what a tokenizer of another family holds (plain text),
    after the page's File, Format and Family rows; [] for a byte-level ``Tokenizer`` that is
    not merged by rank."""
    if isinstance(tok, SentencePieceBPE):
        return _sentencepiece_rows(tok)
    if isinstance(tok, WordBPE):
        return [("Merges", f"{len(tok.merges):,} (version {'.'.join(map(str, tok.version))}:"
                 " a word's last character carries </w>)"),
                ("Ids", "none: subword-nmt cuts text into pieces, @@ after a piece whose word"
                 " goes on")]
    if isinstance(tok, CLIPWordBPE):
        return [("Merges", f"{len(tok.merges):,}"),
                ("Vocabulary", f"{tok.vocab_size:,} ids: the 256 byte characters, each again"
                 " with </w>, the merges, <|startoftext|> and <|endoftext|>")]
    if isinstance(tok, TekkenTokenizer):
        return [("Vocabulary", f"{tok.n_words:,} ids: {tok.num_special_tokens:,} special tokens"
                 f" first, then {tok.encoding.n_vocab:,} byte-level tokens"),
                ("Version", tok.version),
                ("Split pattern", tok.encoding.pattern)]
    if isinstance(tok, RankedEncoding):
        empty = tok.token_ranks.get(b"")
        return [("Merges", "none: ranks only, a piece merged by the rank of the joined bytes"
                 " (as tiktoken merges)" + ("" if empty is None else
                                            f"; the empty token at rank {empty:,} is kept"))]
    return []


def loaded_rows(imported: Imported) -> list[tuple[str, str]]:
    """``(field, value)`` rows that say what was loaded, of any family (plain text, for a
    table): the file, its format and family, then what it holds."""
    tok = imported.tok
    own = family_rows(tok)
    if isinstance(tok, Tokenizer):
        rows = import_summary(imported)
        replaced = dict(own)
        rows = [(k, replaced.pop(k, v)) for k, v in rows] + list(replaced.items())
        return rows[:2] + [("Family", family_title(tok))] + rows[2:]
    return [("File", imported.name), ("Format", FORMAT_TITLES[imported.format]),
            ("Family", family_title(tok)), ("Tokenizer", type(tok).__name__)] + own


# -- the downloads of each family ---------------------------------------------------------------


def spm_model_bytes(tok: SentencePieceBPE) -> bytes:
    """sentencepiece's ``tokenizer.model`` (a ValueError says why a model cannot be one)."""
    return to_model_file(tok)


def spm_hf_json_bytes(tok: SentencePieceBPE) -> bytes:
    """A tokenizer.json of Llama 2's shape (UTF-8)."""
    return to_hf_sentencepiece_json(tok).encode("utf-8")


def word_codes_bytes(tok: WordBPE) -> bytes:
    """subword-nmt's codes file, as ``learn_bpe`` writes it."""
    return tok.codes().encode("utf-8")


def clip_merges_bytes(tok: CLIPWordBPE) -> bytes:
    """CLIP's merges.txt (``#version: 0.2``, then one merge a line), as transformers reads it."""
    return codes_text(tok.merges).encode("utf-8")


def clip_vocab_bytes(tok: CLIPWordBPE) -> bytes:
    """CLIP's vocab.json: token -> id."""
    return json.dumps(tok.vocab, ensure_ascii=False).encode("utf-8")


SPM_EXPORTS = (
    Export("export_spm_model", "sentencepiece tokenizer.model", ".model",
           "application/octet-stream", spm_model_bytes,
           "`sentencepiece.SentencePieceProcessor(model_file=...)` reads it, with these ids."),
    Export("export_spm_hf", "Hugging Face tokenizer.json (Llama 2's shape)", "-tokenizer.json",
           "application/json", spm_hf_json_bytes,
           "`tokenizers.Tokenizer.from_file` reads it: pieces, merges, byte fallback."),
)
WORD_EXPORTS = (
    Export("export_word_codes", "subword-nmt codes", ".codes", "text/plain", word_codes_bytes,
           "`subword-nmt apply-bpe -c` reads it: one merge a line, in order."),
)
CLIP_EXPORTS = (
    Export("export_clip_merges", "CLIP merges.txt", "-merges.txt", "text/plain",
           clip_merges_bytes, "`transformers.CLIPTokenizer` reads it with its vocab.json."),
    Export("export_clip_vocab", "CLIP vocab.json", "-vocab.json", "application/json",
           clip_vocab_bytes, "token -> id, as CLIP's rule numbers them from the merges."),
)


def family_exports(tok: object) -> tuple[Export, ...]:
    """The downloads a tokenizer of another family can be written as (none for a tekken.json:
    bpe_core reads it and writes no tekken.json)."""
    if isinstance(tok, SentencePieceBPE):
        return SPM_EXPORTS
    if isinstance(tok, WordBPE):
        return WORD_EXPORTS
    if isinstance(tok, CLIPWordBPE):
        return CLIP_EXPORTS
    return ()


def export_problem(export: Export, tok: object) -> str | None:
    """Why ``export`` cannot be made of ``tok`` (the writer's own reason), or None. A .model of
    a model read from a tokenizer.json is refused before anything is built."""
    if export.key == "export_spm_model" and getattr(tok, "merges", None) is not None:
        try:
            spm_model_bytes(tok)
        except ValueError as e:
            return str(e)
    if export.key == "export_spm_hf":
        try:
            spm_hf_json_bytes(tok)
        except ValueError as e:
            return str(e)
    return None
