"""Tokenizer files as plain data: writers (a tokenizer -> the file's text) and parsers (the file's
text -> ``TokenizerData``), for minbpe ``.model``, Hugging Face ``tokenizer.json``, tiktoken ranks
and GPT-2 ``vocab.json`` + ``merges.txt``; and what those formats need: GPT-2's byte-to-character
table, tiktoken rank parsing, and merges recovered from ranks.

Nothing here knows the Tokenizer class (files.py builds tokenizers from what the parsers return), so
the tokenizer's own ``save`` methods can use the writers. A malformed or hostile file is a
ValueError naming the file, the line or key, and what was expected: never another exception.

Only byte-level BPE tokenizers fit here: all 256 bytes are tokens, and every other token is a
merge of two earlier ones whose id is its rank (the lower the id, the earlier it merges).

A ``.model`` file (minbpe's format; the seeds write ``bpe v1`` as the first line instead)::

    minbpe v1                 <- version
    <split pattern>           <- empty line for BasicTokenizer
    1                         <- number of special tokens
    <|endoftext|> 100257      <- one "token id" line per special token
    101 32                    <- one merge per line: the pair that became id 256, 257, ...

The ``.vocab`` file is for people: ``[e][ ] -> [e ] 256`` per merged token, ``[a] 97`` per byte.
"""

from __future__ import annotations

import base64
import json
from typing import Any, NamedTuple

import regex

from .chat_format import chat_template, special_roles
from .limits import MAX_RECOVER_BYTES, MAX_TOKEN_BYTES, MAX_TOKENS, check_json_depth
from .merges import apply_merges, rank_parts
from .pipeline import AddedToken, Pipeline, to_oniguruma, to_tiktoken_pattern
from .pipeline_json import read_hf_pipeline
from .text import (  # noqa: F401 - bytes_to_unicode: read from here too
    GPT2_CHAR_TO_BYTE,
    bytes_to_unicode,
    gpt2_string,
    id_problem,
    parse_id,
    render_token,
    shorten,
)

MODEL_HEADERS = ("minbpe v1", "bpe v1")


class NotMergedError(ValueError):
    """A token of tiktoken ranks that is not the last merge of two lower-ranked tokens (``ab``,
    ``bc``, ``cd``, then ``abcd``): tiktoken merges such ranks by the rank of the joined bytes,
    which no list of merges says (``core.Encoding`` reads them so; the file formats refuse)."""



class TokenizerData(NamedTuple):
    """What a parser found in a file, checked: enough to build the tokenizer (files.py does)."""

    merges: dict[tuple[int, int], int]  # in merge order
    byte_ids: list[int] | None  # None when the single bytes are ids 0..255
    pattern: str
    special_tokens: dict[str, int]
    pipeline: Pipeline | None = None  # what a tokenizer.json does before BPE (pipeline.py)
    ignored: list[str] = []  # what the file said that encode() leaves out, and why


# ---------------------------------------------------------------------------------------------
# GPT-2's spelling of bytes, tiktoken ranks, merges recovered from ranks




def gpt2_bytes(s: str, where: str) -> bytes:
    """A token spelled in GPT-2's byte alphabet (one character per byte, Ġ for a space) as bytes."""
    try:
        return bytes(GPT2_CHAR_TO_BYTE[c] for c in s)
    except KeyError as e:
        raise ValueError(
            f"{where}: {shorten(s, 40)} has the character {e.args[0]!r}, which is not a byte in GPT-2's"
            " byte-level spelling (is this a byte-level BPE file?)"
        ) from None


def _unique_tokens(tok: Any, fmt: str, specials_by_text: bool = False,
                   by_text: dict[str, int] | None = None) -> None:
    """These formats key tokens by their bytes, so two ids with the same bytes cannot be saved.

    With ``specials_by_text`` the special tokens share that key space (vocab.json keys them by
    their text), so a special token spelled like a learned token cannot be saved either; so do
    the tokens of ``by_text`` (text -> id: a tokenizer.json's added tokens, keyed by their
    content, which may repeat a learned token's bytes: " the" beside "Ġthe").
    """
    by_text = by_text or {}
    seen: dict[bytes, int] = {}
    for idx, token in tok.vocab.items():
        if idx in tok.special_tokens.values() or idx in by_text.values():
            continue
        if token in seen:
            raise ValueError(
                f"tokens {seen[token]} and {idx} have the same bytes {shorten(token)}; {fmt} files key"
                " tokens by their bytes, so this tokenizer cannot be saved as one (use .model)"
            )
        seen[token] = idx
    if specials_by_text:
        spelled = {gpt2_string(token): idx for token, idx in seen.items()}
        for special in [*tok.special_tokens, *by_text]:
            if special in spelled:
                raise ValueError(
                    f"the special token {shorten(special)} is spelled like token {spelled[special]};"
                    f" {fmt} keys tokens by their text, so it cannot hold both (use .model)"
                )


def pipeline_problem(tok: Any, fmt: str) -> str | None:
    """Why ``fmt`` cannot hold this tokenizer, if it came from a tokenizer.json that does more
    than split before BPE (only a tokenizer.json can say so)."""
    if tok.pipeline is None:
        return None
    what = "; ".join(tok.pipeline.described) or "its added tokens' rules"
    return (f"this tokenizer does more than split before BPE ({what}), and a {fmt} file cannot"
            " say so: it would give other ids. Save it as tokenizer.json")


def whole_token_problem(tok: Any) -> str | None:
    """Why tiktoken would give other ids, if a token's own bytes do not encode to that token.

    tiktoken takes a piece that is a whole token as that token before any merging (as Hugging
    Face's ``ignore_merges`` does); BPE may cut it otherwise (merges b+c, a+b, ab+c make "abc",
    yet BPE on "abc" merges b+c first). Such a tokenizer cannot go to tiktoken unchanged.
    O(vocabulary): about 2 s for GPT-4o's 200,000 tokens.
    """
    specials = set(tok.special_tokens.values())
    byte_ids = tok.byte_token_ids
    for idx, token in tok.vocab.items():
        if len(token) > 1 and idx not in specials:
            if apply_merges([byte_ids[b] for b in token], tok.merges) != [idx]:
                return (f"token {idx} ({shorten(token, 40)}) does not encode to itself: BPE cuts"
                        " its bytes otherwise, and tiktoken would take the whole piece as that"
                        " token, so tiktoken would give other ids. Save it as tokenizer.json or"
                        " .model")
    return None


def _refuse(problem: str | None) -> None:
    if problem:
        raise ValueError(problem)


def _refuse_pipeline(tok: Any, fmt: str) -> None:
    _refuse(pipeline_problem(tok, fmt))
    if getattr(tok, "ranked", False) and fmt != "tiktoken":  # core.RankedEncoding: no merges
        raise ValueError(f"a {fmt} file holds merges, and this encoding has none: its tiktoken"
                         " ranks are not all the last merge of two lower-ranked tokens, which"
                         " tiktoken merges by the rank of the joined bytes. Save it with"
                         " save_tiktoken")


def _whole_token_problem(tok: Any) -> str | None:
    """``whole_token_problem``, which a ``RankedEncoding`` never has (it takes a piece that is
    a whole token as that token, as tiktoken does)."""
    return None if getattr(tok, "ranked", False) else whole_token_problem(tok)


def parse_tiktoken_ranks(data: bytes, name: str = "tiktoken file") -> dict[bytes, int]:
    """``base64(token) rank`` lines -> ``{token bytes: rank}``; ValueError names the bad line.
    A token of ``=`` is the empty token, kept as tiktoken keeps it (a rank no text encodes to,
    which decodes to nothing)."""
    ranks: dict[bytes, int] = {}
    line_of_rank: dict[int, int] = {}
    for lineno, line in enumerate(data.splitlines(), 1):
        if not line.strip():
            continue
        try:
            token_b64, rank_text = line.split()
            # "=" alone is the empty token (Whisper's multilingual.tiktoken holds one at 50256;
            # tiktoken's lenient base64 reads it as b"")
            token = (b"" if token_b64 in (b"=", b"==")
                     else base64.b64decode(token_b64, validate=True))
            if not (rank_text.isdigit() and rank_text.isascii()):
                raise ValueError("the rank is not a whole number >= 0")
        except (ValueError, TypeError) as e:
            raise ValueError(
                f"{name}, line {lineno}: expected 'base64-token rank' with a rank >= 0,"
                f" found {line[:60]!r}"
            ) from e
        rank = parse_id(rank_text)
        if id_problem(rank):
            raise ValueError(f"{name}, line {lineno}: the rank {shorten(rank_text, 40)}"
                             f" {id_problem(rank)}")
        if rank in line_of_rank:
            raise ValueError(f"{name}, line {lineno}: rank {rank} was already given on line"
                             f" {line_of_rank[rank]}")
        if token in ranks:
            raise ValueError(f"{name}, line {lineno}: this token already has rank {ranks[token]}")
        line_of_rank[rank] = lineno
        ranks[token] = rank
    return ranks


def recover_merges(ranks: dict[bytes, int], from_rank: int = 0) -> dict[tuple[int, int], int]:
    """Which two tokens make each token: BPE on its bytes using only lower-ranked tokens.

    The last two parts left are its parents. Slow in Python for 200 000 tokens (about 1.5 s),
    which is why ``build_assets`` stores the result. ``from_rank``: only the tokens ranked
    there or later (those of a vocabulary that extends one whose merges are known).
    """
    merges: dict[tuple[int, int], int] = {}
    for token, rank in sorted(ranks.items(), key=lambda item: item[1]):
        if len(token) == 1 or rank < from_rank:
            continue
        parts = rank_parts(token, ranks, below=rank, parts_left=2)
        if len(parts) != 2 or parts[0] not in ranks or parts[1] not in ranks:
            raise NotMergedError(f"token {shorten(token)} (rank {rank}) has no two lower-ranked"
                                 " parents")
        merges[(ranks[parts[0]], ranks[parts[1]])] = rank
    return merges


# ---------------------------------------------------------------------------------------------
# minbpe .model and .vocab


def to_minbpe(tok: Any) -> tuple[str, str]:
    """The text of the ``.model`` and ``.vocab`` files (see the top of this module)."""
    _refuse_pipeline(tok, ".model")
    if any(ch in tok.pattern for ch in "\r\n"):
        raise ValueError(
            "this split pattern contains a raw line break, which a .model file cannot hold;"
            r" write it as \n or \r inside the pattern instead"
        )
    expected = range(256, 256 + len(tok.merges))
    if tok.byte_ids is not None or list(tok.merges.values()) != list(expected):
        raise ValueError(
            "a .model file can only hold merges that made ids 256, 257, ... in order;"
            " save this tokenizer in another format"
        )
    lines = ["minbpe v1", tok.pattern, str(len(tok.special_tokens))]
    lines += [f"{special} {idx}" for special, idx in tok.special_tokens.items()]
    lines += [f"{a} {b}" for a, b in tok.merges]
    model_text = "\n".join(lines) + "\n"

    listing = []
    for idx, token in tok.vocab.items():
        s = render_token(token)
        if idx in tok.parents:
            a, b = tok.parents[idx]
            listing.append(f"[{render_token(tok.vocab[a])}][{render_token(tok.vocab[b])}] -> [{s}] {idx}\n")
        else:
            listing.append(f"[{s}] {idx}\n")
    return model_text, "".join(listing)


def parse_minbpe(text: str, name: str = "model file") -> tuple[str, dict[str, int], list[tuple[int, int]]]:
    """Read a ``.model`` file's text: ``(pattern, special tokens, merges in order)``.

    Any problem is a ValueError naming the file, the line and what was expected.
    """
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()  # the file's final newline

    def fail(lineno: int, message: str) -> ValueError:
        return ValueError(f"{name}, line {lineno}: {message}")

    def line(lineno: int, what: str) -> str:
        if lineno > len(lines):
            raise fail(lineno, f"the file ends early; expected {what}")
        return lines[lineno - 1].rstrip("\r")

    header = line(1, "the version line 'minbpe v1'").strip()
    if header not in MODEL_HEADERS:
        raise fail(1, f"expected 'minbpe v1' (or the seeds' 'bpe v1'), found {header[:40]!r}")
    pattern = line(2, "the split pattern (an empty line for no split)")
    count_line = line(3, "the number of special tokens").strip()
    if not count_line.isdigit() or not count_line.isascii():
        raise fail(3, f"expected the number of special tokens, found {count_line[:40]!r}")
    num_special = int(count_line)
    if num_special > len(lines):
        raise fail(3, f"says {num_special} special tokens, but the file has only {len(lines)} lines")

    special_tokens: dict[str, int] = {}
    for lineno in range(4, 4 + num_special):
        entry = line(lineno, "a special token line 'token id'")
        special, _, idx = entry.rpartition(" ")
        if not special or not idx.isdigit() or not idx.isascii():
            raise fail(lineno, f"expected a special token line 'token id', found {entry[:60]!r}")
        if special in special_tokens:
            raise fail(lineno, f"special token {shorten(special)} appears twice")
        value = parse_id(idx)
        if id_problem(value):
            raise fail(lineno, f"the id of special token {shorten(special)} {id_problem(value)}")
        special_tokens[special] = value

    merges: list[tuple[int, int]] = []
    seen: set[tuple[int, int]] = set()
    length = [1] * 256  # bytes of each token so far
    for lineno in range(4 + num_special, len(lines) + 1):
        fields = line(lineno, "a merge").split()
        if len(fields) != 2 or not all(f.isdigit() and f.isascii() and len(f) <= 10 for f in fields):
            raise fail(
                lineno, f"expected a merge: two token ids such as '101 32', found {lines[lineno - 1][:60]!r}"
            )
        a, b = int(fields[0]), int(fields[1])
        new_id = 256 + len(merges)
        if a >= new_id or b >= new_id:
            raise fail(
                lineno,
                f"merge '{a} {b}' makes token {new_id} but uses token {max(a, b)}, which does"
                " not exist yet (merges may only use bytes 0..255 and earlier merges)",
            )
        if (a, b) in seen:
            raise fail(lineno, f"the merge '{a} {b}' appears twice")
        length.append(length[a] + length[b])
        if length[-1] > MAX_TOKEN_BYTES:
            raise fail(lineno, f"the merge '{a} {b}' makes a token of {length[-1]:,} bytes; this"
                       f" tool reads tokens of at most {MAX_TOKEN_BYTES:,} bytes")
        seen.add((a, b))
        merges.append((a, b))
    return pattern, special_tokens, merges


# ---------------------------------------------------------------------------------------------
# Hugging Face tokenizer.json


def to_hf_json(tok: Any) -> str:
    """The tokenizer as a Hugging Face ``tokenizer.json``: byte-level BPE, the split pattern spelled
    for Hugging Face's regex engine, the special tokens, and what a tokenizer read from a
    tokenizer.json does before BPE (normalizer, pre-tokenizer, added tokens, ignore_merges)."""
    if getattr(tok, "ranked", False):
        _refuse_pipeline(tok, "tokenizer.json")
    pipeline = tok.pipeline
    added = dict(pipeline.added) if pipeline is not None else {}
    for s, idx in tok.special_tokens.items():
        added.setdefault(s, AddedToken(s, idx))
    made_here = {t.id for t in added.values()} - set(tok.merges.values()) - set(tok.byte_token_ids)
    _unique_tokens(tok, "tokenizer.json", specials_by_text=True, by_text={
        t.content: t.id for t in added.values() if t.id in made_here and not t.special})
    vocab = {gpt2_string(token): idx for idx, token in sorted(tok.vocab.items())
             if idx not in made_here}
    vocab.update({t.content: t.id for t in added.values() if t.id in made_here})
    merges = [
        [gpt2_string(tok.vocab[a]), gpt2_string(tok.vocab[b])]
        for (a, b), _ in sorted(tok.merges.items(), key=lambda item: item[1])
    ]
    if pipeline is not None and pipeline.pre_tokenizer is not None:
        pre_tokenizer = pipeline.json["pre_tokenizer"]
    else:
        pre_tokenizers = [{"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True,
                           "use_regex": False}]
        if tok.pattern:
            split = {"type": "Split", "pattern": {"Regex": to_oniguruma(tok.pattern)},
                     "behavior": "Isolated", "invert": False}
            pre_tokenizers.insert(0, split)
        pre_tokenizer = {"type": "Sequence", "pretokenizers": pre_tokenizers}
    document = {
        "version": "1.0",
        "truncation": None,
        "padding": None,
        "added_tokens": [
            {"id": t.id, "content": t.content, "single_word": t.single_word, "lstrip": t.lstrip,
             "rstrip": t.rstrip, "normalized": t.normalized, "special": t.special}
            for t in sorted(added.values(), key=lambda t: t.id)
        ],
        "normalizer": pipeline.json.get("normalizer") if pipeline is not None else None,
        "pre_tokenizer": pre_tokenizer,
        "post_processor": None,
        "decoder": pipeline.json["decoder"] if pipeline is not None and "decoder" in pipeline.json
        else {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True,
              "use_regex": False},
        "model": {"type": "BPE", "dropout": None, "unk_token": None,
                  "continuing_subword_prefix": None, "end_of_word_suffix": None,
                  "fuse_unk": False, "byte_fallback": False,
                  "ignore_merges": bool(pipeline is not None and pipeline.ignore_merges),
                  "vocab": vocab, "merges": merges},
    }
    return json.dumps(document, ensure_ascii=False, indent=1)


def to_transformers_files(tok: Any) -> tuple[str, str]:
    """``(tokenizer_config.json, special_tokens_map.json)`` for ``transformers``: placed beside
    a ``tokenizer.json``, ``AutoTokenizer.from_pretrained(folder)`` reads the three as a
    ``PreTrainedTokenizerFast`` that knows the special tokens' roles (eos, pad, bos, unk, mask,
    by their usual spellings: ``chat_format.special_roles``), renders conversations as
    ``chat.wrap`` does when the tokenizer has ChatML's or harmony's tokens (``chat_template``)
    and does not change the text when decoding."""
    added = dict(tok.pipeline.added) if tok.pipeline is not None else {}
    for s, idx in tok.special_tokens.items():
        added.setdefault(s, AddedToken(s, idx))
    specials = special_roles(tok.special_tokens)
    template = chat_template(tok.special_tokens)
    config = {
        "tokenizer_class": "PreTrainedTokenizerFast",
        "clean_up_tokenization_spaces": False,  # decode gives the text back as it was
        "added_tokens_decoder": {
            str(t.id): {"content": t.content, "lstrip": t.lstrip, "normalized": t.normalized,
                        "rstrip": t.rstrip, "single_word": t.single_word, "special": t.special}
            for t in sorted(added.values(), key=lambda t: t.id)},
        **specials,
        **({"chat_template": template} if template else {}),
        "model_max_length": 1_000_000_000_000_000_019_884_624_838_656,  # transformers' "no limit"
    }
    return (json.dumps(config, ensure_ascii=False, indent=1) + "\n",
            json.dumps(specials, ensure_ascii=False, indent=1) + "\n")


def parse_hf_json(text: str, name: str = "tokenizer.json") -> TokenizerData:
    """Read a byte-level BPE ``tokenizer.json``: what it does before BPE comes back as a
    ``Pipeline`` (pipeline.py); anything that would change ids and is not supported is a
    ValueError naming the key."""
    return hf_data(hf_document(text, name), name)


def hf_document(text: str, name: str = "tokenizer.json") -> dict:
    """A tokenizer.json's JSON object, with its ``model`` object (a ValueError otherwise)."""
    check_json_depth(text, name)
    try:
        document = json.loads(text)
    except (json.JSONDecodeError, RecursionError) as e:
        line = getattr(e, "lineno", "?")
        raise ValueError(f"{name}, line {line}: not valid JSON ({e})") from None
    if not isinstance(document, dict) or not isinstance(document.get("model"), dict):
        raise ValueError(f"{name}: expected a JSON object with a 'model' object")
    return document


def hf_merge_pairs(merges: list, name: str) -> list[tuple[str, str]]:
    """A tokenizer.json's ``model.merges`` as pairs of strings: each "a b" or ["a", "b"]
    (byte-level and SentencePiece-shaped files alike); ValueError names the first that is not."""
    pairs = []
    for k, m in enumerate(merges):
        if isinstance(m, str) and m.count(" ") == 1:
            m = m.split(" ")
        if not (isinstance(m, list) and len(m) == 2 and all(isinstance(s, str) for s in m)):
            raise ValueError(f"{name}: key 'model.merges[{k}]' should be two strings, found"
                             f" {shorten(m)}")
        pairs.append((m[0], m[1]))
    return pairs


def hf_data(document: dict, name: str = "tokenizer.json") -> TokenizerData:
    """A byte-level tokenizer.json's object (``hf_document``) as plain data."""
    model = document["model"]
    if model.get("type", "BPE") != "BPE":
        raise ValueError(f"{name}: key 'model.type' is {shorten(model.get('type'))}; only BPE is supported")
    vocab, merges = model.get("vocab"), model.get("merges")
    if not isinstance(vocab, dict) or not isinstance(merges, list):
        raise ValueError(f"{name}: 'model.vocab' must be an object and 'model.merges' a list")
    pairs = hf_merge_pairs(merges, name)
    pipeline, pattern, specials, ignored = read_hf_pipeline(document, name)
    added = pipeline.added if pipeline is not None else {}
    made = {a + b for a, b in pairs}
    learned = [s for s in specials if s in made or (len(s) == 1 and s in vocab)]
    if learned:  # tokenizers gives it the learned token's id: one id, two kinds of token
        raise ValueError(
            f"{name}: the special added token {shorten(learned[0])} is also the vocabulary's"
            f" token {vocab.get(learned[0])}, which Hugging Face gives it; bpe_core keeps special"
            " tokens apart from learned ones, so it cannot read this file (make the added token"
            " non-special, or give it a content of its own)")
    # added tokens stand beside the vocabulary, unless they are one of its byte-level tokens
    outside = {s for s in [*specials, *added] if s not in made and len(s) != 1}
    data = _build(name, {s: i for s, i in vocab.items() if s not in outside}, pairs, pattern,
                  specials, "model.vocab")
    return TokenizerData(*data[:4], pipeline=pipeline, ignored=ignored)


# ---------------------------------------------------------------------------------------------
# GPT-2 style vocab.json + merges.txt (GPT-2's own encoder.json + vocab.bpe are the same formats)


# How special tokens are spelled: <|endoftext|>, <s>, </s>, <pad>, [MASK]
_SPECIAL_SPELLING = regex.compile(r"<\|[^\s]*\|>|</?[^\s<>]+>|\[[^\s\[\]]+\]")


def to_gpt2_files(tok: Any) -> tuple[str, str]:
    """``(vocab.json text, merges.txt text)``, spelled with GPT-2's byte-to-character table."""
    _refuse_pipeline(tok, "vocab.json + merges.txt")
    _unique_tokens(tok, "vocab.json", specials_by_text=True)
    vocab = {gpt2_string(token): idx for idx, token in sorted(tok.vocab.items())
             if idx not in tok.special_tokens.values()}
    vocab.update(tok.special_tokens)
    lines = ["#version: 0.2"]
    for (a, b), _ in sorted(tok.merges.items(), key=lambda item: item[1]):
        lines.append(f"{gpt2_string(tok.vocab[a])} {gpt2_string(tok.vocab[b])}")
    return json.dumps(vocab, ensure_ascii=False), "\n".join(lines) + "\n"


def parse_gpt2_files(
    vocab_text: str,
    merges_text: str,
    *,
    pattern: str,
    special_tokens: dict[str, int] | None = None,
    names: tuple[str, str] = ("vocab.json", "merges.txt"),
) -> TokenizerData:
    """Read ``vocab.json`` + ``merges.txt`` with the split ``pattern`` they were made with (the
    files do not say; OpenAI's GPT-2 files go with ``GPT2_SPLIT_PATTERN``).

    Entries of vocab.json that no merge makes and that are spelled like special tokens
    (``<|endoftext|>``, ``<pad>``, ``[MASK]``) become special tokens; any other entry that is not
    a single byte is an error (a merges.txt cut short would otherwise load as another tokenizer).
    """
    vocab_name, merges_name = names
    check_json_depth(vocab_text, vocab_name)
    try:
        vocab = json.loads(vocab_text)
    except (json.JSONDecodeError, RecursionError) as e:
        raise ValueError(f"{vocab_name}, line {getattr(e, 'lineno', '?')}: not valid JSON ({e})") from None
    if not isinstance(vocab, dict):
        raise ValueError(f"{vocab_name}: expected a JSON object of token -> id")
    pairs = []
    lines = merges_text.split("\n")
    for lineno, line in enumerate(lines, 1):
        line = line.rstrip("\r")
        if not line or (lineno == 1 and line.startswith("#version")):
            continue
        fields = line.split(" ")
        if len(fields) != 2 or not all(fields):
            raise ValueError(f"{merges_name}, line {lineno}: expected two tokens separated by one"
                             f" space, found {line[:60]!r}")
        pairs.append((fields[0], fields[1], lineno))
    # entries that are neither a byte nor made by a merge, such as <|endoftext|>, are special
    made = {a + b for a, b, _ in pairs}
    specials = dict(special_tokens or {})
    for s in list(vocab):  # any other unmade entry is refused below (a cut merges.txt)
        if len(s) != 1 and s not in made and (s in specials or _SPECIAL_SPELLING.fullmatch(s)):
            specials.setdefault(s, vocab.pop(s))
    return _build(vocab_name, vocab, pairs, pattern, specials, "vocab", merges_name)


# ---------------------------------------------------------------------------------------------
# tiktoken ranks


def to_tiktoken(tok: Any) -> bytes:
    """tiktoken's ``base64(token) rank`` lines; load with ``tiktoken.load.load_tiktoken_bpe``.

    The file holds neither the split pattern nor the special tokens (``save_tiktoken`` writes
    them in a sidecar): ``tiktoken_encoding(tok)`` gives everything ``tiktoken.Encoding`` needs.
    """
    _refuse_pipeline(tok, "tiktoken")
    _unique_tokens(tok, "tiktoken")
    _refuse(_whole_token_problem(tok))
    specials = set(tok.special_tokens.values())
    return b"".join(
        base64.b64encode(token) + b" " + str(idx).encode() + b"\n"
        for idx, token in sorted(tok.vocab.items()) if idx not in specials
    )


def tiktoken_encoding(tok: Any) -> dict[str, Any]:
    """The arguments of ``tiktoken.Encoding`` for this tokenizer: ``tiktoken.Encoding(**args)``
    gives the same ids. The split pattern is spelled for tiktoken's regex engine (a
    BasicTokenizer's "no split" becomes one piece for the whole text)."""
    _refuse_pipeline(tok, "tiktoken")
    _unique_tokens(tok, "tiktoken")
    _refuse(_whole_token_problem(tok))
    specials = set(tok.special_tokens.values())
    return {
        "name": tok.name or "bpe_lab",
        "pat_str": to_tiktoken_pattern(tok.pattern),
        "mergeable_ranks": {token: idx for idx, token in tok.vocab.items() if idx not in specials},
        "special_tokens": dict(tok.special_tokens),
    }


def parse_tiktoken(
    data: bytes,
    *,
    pattern: str,
    special_tokens: dict[str, int],
    name: str = "tiktoken file",
) -> TokenizerData:
    """Read tiktoken ranks with the split ``pattern`` and ``special_tokens`` they go with (the
    file holds neither); the merges are recovered from the ranks (slow for 100 000+ tokens)."""
    return ranks_data(parse_tiktoken_ranks(data, name), pattern, special_tokens, name)


def ranks_data(
    ranks: dict[bytes, int], pattern: str, special_tokens: dict[str, int], name: str
) -> TokenizerData:
    """A tokenizer from tiktoken's ranks (``{token bytes: rank}``), its merges recovered; bounded
    and checked as a file's are."""
    total = sum(map(len, ranks))
    if total > MAX_RECOVER_BYTES:  # every token's merges are recovered from its bytes
        raise ValueError(f"{name}: its tokens hold {total:,} bytes in all; this tool reads"
                         f" tiktoken files of at most {MAX_RECOVER_BYTES:,}")
    if len(ranks) > MAX_TOKENS:
        raise ValueError(f"{name}: {len(ranks):,} tokens is more than this tool reads ({MAX_TOKENS:,})")
    _check_ranks(ranks, name)
    try:
        merges = recover_merges(ranks)
    except ValueError as e:
        raise type(e)(f"{name}: {e}") from None
    return _assemble(name, ranks, merges, pattern, special_tokens)


def _check_ranks(ranks: dict[bytes, int], name: str) -> None:
    missing = [b for b in range(256) if bytes([b]) not in ranks]
    if missing:
        raise ValueError(f"{name}: byte {missing[0]:#04x} has no token; a byte-level BPE file"
                         " needs all 256 single bytes")


# ---------------------------------------------------------------------------------------------
# Shared assembly and checks


def _build(
    name: str,
    vocab: dict[str, int],
    pairs: list[tuple],
    pattern: str,
    specials: dict[str, int],
    vocab_key: str,
    merges_name: str | None = None,
) -> TokenizerData:
    """The data of GPT-2-spelled ``vocab`` and merge ``pairs`` ((a, b) or (a, b, line))."""
    if len(vocab) > MAX_TOKENS or len(pairs) > MAX_TOKENS:
        raise ValueError(f"{name}: more than {MAX_TOKENS:,} tokens is more than this tool reads")
    ranks: dict[bytes, int] = {}
    entry_of: dict[int, str] = {}
    for s, idx in vocab.items():
        if id_problem(idx):
            raise ValueError(f"{name}: key '{vocab_key}[{shorten(s, 40)}]' should be a token id;"
                             f" {shorten(idx, 40)} {id_problem(idx)}")
        if idx in entry_of:
            raise ValueError(f"{name}: the entries {shorten(entry_of[idx], 40)} and"
                             f" {shorten(s, 40)} of '{vocab_key}' both have id {idx}")
        entry_of[idx] = s
        token = gpt2_bytes(s, f"{name}, key '{vocab_key}'")
        if token in ranks:
            raise ValueError(f"{name}: tokens {ranks[token]} and {idx} have the same bytes")
        ranks[token] = idx
    _check_ranks(ranks, name)
    by_bytes = ranks
    merges: dict[tuple[int, int], int] = {}
    last_made = -1
    for k, pair in enumerate(pairs):
        a, b = pair[0], pair[1]
        where = f"{merges_name}, line {pair[2]}" if merges_name else f"{name}: merge {k}"
        left = by_bytes.get(gpt2_bytes(a, where))
        right = by_bytes.get(gpt2_bytes(b, where))
        made = by_bytes.get(gpt2_bytes(a + b, where))
        if left is None or right is None or made is None:
            raise ValueError(f"{where}: the merge {shorten(a, 40)} + {shorten(b, 40)} uses or makes a token missing"
                             " from the vocabulary")
        if (left, right) in merges:
            raise ValueError(f"{where}: the merge {shorten(a, 40)} + {shorten(b, 40)} appears twice")
        if made <= last_made:
            raise ValueError(
                f"{where}: the merge {shorten(a, 40)} + {shorten(b, 40)} makes id {made}, but an"
                f" earlier merge made id {last_made}. Merges rank by their place in the list, and"
                " bpe_core needs that order to be the order of the ids they make")
        last_made = made
        merges[(left, right)] = made
    return _assemble(name, ranks, merges, pattern, specials)


def _assemble(
    name: str,
    ranks: dict[bytes, int],
    merges: dict[tuple[int, int], int],
    pattern: str,
    specials: dict[str, int],
) -> TokenizerData:
    """Check what a file gave and put it in order (the split pattern and the special tokens are
    checked when the tokenizer is built)."""
    ordered = sorted(merges.items(), key=lambda item: item[1])
    for (a, b), idx in ordered:
        if not (a < idx and b < idx):
            raise ValueError(
                f"{name}: token {idx} is made from {a} and {b}, but a merged token's id must be"
                " larger than its parts' ids (ids are merge ranks here)"
            )
    multi = len(ranks) - 256
    if len(ordered) != multi:
        made = set(merges.values())
        unmade = sorted((idx, token) for token, idx in ranks.items()
                        if len(token) > 1 and idx not in made)
        detail = ""
        if unmade:
            idx, token = unmade[0]
            detail = (f": token {idx} ({shorten(token, 40)}) and {len(unmade) - 1:,} more are made"
                      " by no merge. Is the merges list cut short, or from another vocabulary?"
                      " (Only special tokens, spelled like <|endoftext|>, <pad> or [MASK], may"
                      " stand in a vocabulary without a merge.)")
        raise ValueError(f"{name}: {multi:,} multi-byte tokens but {len(ordered):,} merges make"
                         f" them{detail}")
    token_of = {idx: token for token, idx in ranks.items()}
    for (a, b), idx in ordered:
        if token_of[a] + token_of[b] != token_of[idx]:
            raise ValueError(f"{name}: token {idx}'s merge does not spell its bytes"
                             f" {shorten(token_of[idx])}")
    byte_ids = [ranks[bytes([b])] for b in range(256)]
    return TokenizerData(dict(ordered), None if byte_ids == list(range(256)) else byte_ids,
                         pattern, dict(specials))

