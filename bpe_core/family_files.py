"""The files of the word-BPE family and of models' own formats, for the one loader (files.py),
and what a file that is read nowhere looks like, so that its refusal names it.

Read here, detected from the content:

- ``"word-codes"``: subword-nmt's codes (``#version: 0.2``, then merges such as ``e s</w>``):
  a ``WordBPE``; with a vocab.json beside them that holds ``</w>`` tokens, they are CLIP's merges
  in transformers' files (``merges.txt`` + ``vocab.json``): a ``CLIPWordBPE``;
- ``"clip-merges"``: CLIP's own ``bpe_simple_vocab_16e6.txt.gz`` (gzip, or a first line
  ``"bpe_simple_vocab...``): a ``CLIPWordBPE`` of its first 48,894 merges, as CLIP takes them;
- ``"tekken"``: Mistral's ``tekken.json``: a ``TekkenTokenizer`` (tekken.py).

``guess_unread(data)`` says what a file that no reader takes probably is (a GGUF model, a
checkpoint, a tokenizer_config.json, BERT's vocab.txt, a SentencePiece .vocab listing ...), and
what to load instead.
"""

from __future__ import annotations

import json

from .tekken import WHAT as TEKKEN_WHAT
from .tekken import is_tekken, read_tekken
from .word_bpe import CLIP_MERGES, CLIPWordBPE, WordBPE, clip_vocab

KIND_NAMES = {"word-codes": "subword-nmt codes (word BPE)",
              "clip-merges": "CLIP's merges file (word BPE over bytes)",
              "clip": "CLIP's vocab.json + merges.txt (word BPE over bytes)",
              "tekken": TEKKEN_WHAT}
FAMILY = {"word-codes": "word", "clip-merges": "word", "clip": "word", "tekken": "byte-level"}


def _first_line(data: bytes) -> bytes:
    head = data[:4096].lstrip(b"\xef\xbb\xbf \t\r\n")
    return head.split(b"\n", 1)[0].rstrip(b"\r")


def holds_word_merges(data: bytes) -> bool:
    """Whether merges text marks word ends with ``</w>`` (subword-nmt's codes, CLIP's merges)
    rather than spelling spaces as GPT-2's ``Ġ``: some symbol of its first 1,000 lines ends with
    ``</w>`` and none holds ``Ġ``."""
    lines = data[:65536].split(b"\n")[1:1001]
    symbols = [s for line in lines for s in line.split()]
    return (any(s.endswith(b"</w>") for s in symbols)
            and not any("Ġ".encode() in s for s in symbols))


def detect_family_file(data: bytes, document: object = None) -> str | None:
    """``"word-codes"``, ``"clip-merges"``, ``"tekken"`` or None. ``document``: the file's JSON
    when the caller has parsed it."""
    if data[:2] == b"\x1f\x8b":
        return "clip-merges"
    if document is not None:
        return "tekken" if is_tekken(document) else None
    first = _first_line(data)
    if first.startswith(b'"bpe_simple_vocab'):
        return "clip-merges"
    if (first.startswith(b"#version") or len(first.split(b" ")) == 2) and holds_word_merges(data):
        return "word-codes"
    return None


def vocab_is_clips(vocab: bytes) -> bool:
    """Whether a vocab.json holds word-end tokens (``x</w>``), as CLIP's does."""
    try:
        document = json.loads(vocab)
    except (ValueError, RecursionError):
        return False
    return isinstance(document, dict) and any(
        isinstance(k, str) and k.endswith("</w>") for k in list(document)[:1000])


def read_family_file(kind: str, data: bytes, name: str, vocab: bytes | None = None,
                     vocab_name: str | None = None) -> object:
    """The tokenizer of a file ``detect_family_file`` named (``vocab``: CLIP's vocab.json that
    came with its merges, checked against them)."""
    if kind == "tekken":
        return read_tekken(data, name)
    if kind == "clip-merges":
        gz = data[:2] == b"\x1f\x8b"
        tok = CLIPWordBPE.from_file(data, name, CLIP_MERGES if gz else None)
    elif vocab is not None:
        tok = CLIPWordBPE.from_file(data, name)
    else:
        try:
            text = data.decode("utf-8-sig")
        except UnicodeDecodeError as e:
            raise ValueError(f"{name}: subword-nmt codes must be UTF-8 text ({e})") from None
        return WordBPE.from_codes(text, name)
    if vocab is not None:
        _check_clip_vocab(tok, vocab, vocab_name or "vocab.json")
    return tok


def _check_clip_vocab(tok: CLIPWordBPE, vocab: bytes, vocab_name: str) -> None:
    """CLIP's ids follow from its merges: a vocab.json that says otherwise is refused, naming
    the first token that differs."""
    try:
        given = json.loads(vocab)
    except (ValueError, RecursionError) as e:
        raise ValueError(f"{vocab_name}: not valid JSON ({e})") from None
    expected = clip_vocab(tok.merges)
    if given != expected:
        differ = next((t for t in expected if given.get(t) != expected[t]), None)
        detail = (f"{differ!r} is {expected[differ]} by CLIP's rule and {given.get(differ)} there"
                  if differ is not None else f"it holds {len(given) - len(expected)} more tokens")
        raise ValueError(f"{vocab_name} is not CLIP's vocabulary of {tok.name}'s merges (the 256"
                         f" byte characters, each with </w>, the merges, <|startoftext|>,"
                         f" <|endoftext|>): {detail}")


def family_refusal(tok: object, name: str, where: str, instead: str | None = None) -> str | None:
    """For a place that takes byte-level ``Tokenizer`` objects only (``where``: "the app's
    pages", "bpe-lab's commands"): why a loaded SentencePiece, word-BPE or tekken tokenizer is
    not taken there,
    naming its format and family; None for a ``Tokenizer``. ``instead``: what to do, for a
    tokenizer that is no file (the app's trained ones); by default, how to load the file."""
    from .base import Tokenizer

    if isinstance(tok, Tokenizer) and tok.family == "byte-level":
        return None
    what = {"WordBPE": "subword-nmt codes", "CLIPWordBPE": "CLIP's merges",
            "TekkenTokenizer": TEKKEN_WHAT, "SentencePieceBPE": "a SentencePiece model"}.get(
                type(tok).__name__, type(tok).__name__)
    family = getattr(tok, "family", "another")
    if instead is not None:
        return (f"{name} is {what} ({family} BPE), and {where} take bpe_core's byte-level"
                f" tokenizers only so far: {instead}")
    return (f"{name} is {what} ({family} BPE) and loads, but {where} take bpe_core's byte-level"
            f" tokenizers only so far: read it in Python with bpe_core.load({name!r})")


# -- what a file read nowhere looks like ---------------------------------------------------------

def _json_guess(document: object) -> str | None:
    if not isinstance(document, dict):
        return None
    if "tokenizer_class" in document or "added_tokens_decoder" in document or (
            "model_max_length" in document):
        return ("a transformers tokenizer_config.json: it holds settings, not the vocabulary;"
                " load the tokenizer.json (or vocab.json + merges.txt) from the same folder")
    if "architectures" in document or "model_type" in document:
        return ("a model's config.json: it describes the network, not the tokenizer; load the"
                " tokenizer.json (or tokenizer.model, tekken.json) from the same folder")
    if document and all(k in ("bos_token", "eos_token", "unk_token", "pad_token", "sep_token",
                              "cls_token", "mask_token", "additional_special_tokens")
                        for k in document):
        return ("a transformers special_tokens_map.json: it names the special tokens only; load"
                " the tokenizer.json from the same folder")
    if "config" in document and "vocab" not in document:
        return (f"a {TEKKEN_WHAT} without its \"vocab\" list of tokens (cut short, or another"
                " file)")
    return None


def guess_unread(data: bytes) -> str | None:
    """What a file that no reader takes probably is, with what is missing or what to load
    instead (None: no guess)."""
    head = data[:4096]
    if head.startswith(b"GGUF"):
        return ("a GGUF model file (llama.cpp): its tokenizer is in the model's metadata, which"
                " bpe_core does not read; load the model's tokenizer.json instead")
    if head.startswith(b"PK\x03\x04"):
        return ("a zip archive (a PyTorch checkpoint is one): not a tokenizer file; unpack the"
                " tokenizer file and load it")
    if head[:1] == b"\x80" and head[1:2] in (b"\x02", b"\x03", b"\x04", b"\x05"):
        return "a Python pickle (a checkpoint?): bpe_core never unpickles files"
    if len(head) > 8 and head[8:10] == b'{"' and int.from_bytes(head[:8], "little") < len(data):
        return "a safetensors file of model weights: not a tokenizer file"
    if head[:1] == b"\x0a" and b"\x15" in head[:64] and b"\x00" in head:
        return ("a SentencePiece .model (protobuf)? bpe_core's readers take byte-level BPE files"
                " and word BPE here")
    stripped = head.lstrip(b"\xef\xbb\xbf \t\r\n")
    if stripped.startswith(b"{"):
        try:
            return _json_guess(json.loads(data))
        except (ValueError, RecursionError):
            return None
    lines = [line.rstrip(b"\r") for line in head.split(b"\n")[:50] if line.strip()]
    if lines and any(t in lines for t in (b"[PAD]", b"[UNK]", b"[CLS]")) and all(
            len(line.split()) == 1 for line in lines):
        return ("a WordPiece vocab.txt (BERT's: one token a line, [UNK], [CLS], ##pieces):"
                " WordPiece is not BPE and is not read here")
    if lines and all(len(line.split(b"\t")) == 2 for line in lines[:20]):
        return ("a SentencePiece .vocab listing (a piece and its score a line): it lists the"
                " pieces only; the model is the .model file beside it")
    return None
