"""The health of a vocabulary: which tokens can be produced, which are half a character, which
only exist on the way to longer tokens. No model is needed: only the vocabulary and a text.

Every non-special token gets exactly ONE kind, the first of these that applies:

1. ``PARTIAL_UTF8`` ("partial UTF-8"): its bytes are not valid UTF-8 on their own (a byte >= 0x80
   alone, a multibyte character cut in two). A text never *means* such a token; it only shows up
   next to its other half. Single bytes count too (``health_summary`` tells them apart).
2. ``UNREACHABLE`` ("unreachable by the split pattern"): the split pattern cuts its text into
   more than one chunk, and merges never cross a chunk boundary, so no text can produce it
   (a vocabulary trained with another pattern).
3. ``ROUND_TRIP_FAILS`` ("round trip fails"): valid UTF-8 and one chunk, yet
   ``encode(decode([t])) != [t]``: the merges, applied by rank, build other tokens from its bytes.
4. ``NEVER_PRODUCED`` ("never produced on the text"): not among the text's tokens, and not part of
   the merge tree of any token that is.
5. ``STEPPING_STONE`` ("stepping stone"): a merged token the text almost never produces on its
   own: its own count is at most ``STEPPING_STONE_SHARE`` of its own count plus the times it sits
   inside the merge trees of the text's tokens. Training made it because its pair was frequent;
   later merges swallowed it into longer tokens.
6. ``HEALTHY``: everything else.

Kinds 1-3 depend on the vocabulary alone (``vocabulary_defects``: one pass over the vocabulary,
about 2.5 s for GPT-4o's 200,000 tokens in pure Python, so keep its result); kinds 4-5 on the
text's token counts (``classify_tokens``).

    >>> from bpe_core import BasicTokenizer
    >>> tok = BasicTokenizer()
    >>> tok.train("aaabdaaabac", 259)            # 256 'aa', 257 'aaa', 258 'aaab'
    >>> rows = classify_tokens(tok, Counter(tok.encode("aaab aaab")))
    >>> [(r.text, r.kind) for r in rows if r.id >= 256]
    [('aa', 'stepping stone'), ('aaa', 'stepping stone'), ('aaab', 'healthy')]
"""

from __future__ import annotations

import gzip
import json
from collections import Counter
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any, NamedTuple

from bpe_core.base import Tokenizer
from bpe_core.merges import apply_merges
from bpe_core.patterns import GPT2_SPLIT_PATTERN, GPT4_SPLIT_PATTERN, GPT4O_SPLIT_PATTERN
from bpe_core.pretrained import PRESETS, load_pretrained, unchanged_preset
from bpe_core.text import render_token

PARTIAL_UTF8 = "partial UTF-8"
UNREACHABLE = "unreachable by the split pattern"
ROUND_TRIP_FAILS = "round trip fails"
NEVER_PRODUCED = "never produced on the text"
STEPPING_STONE = "stepping stone"
HEALTHY = "healthy"
HEALTH_KINDS = (PARTIAL_UTF8, UNREACHABLE, ROUND_TRIP_FAILS, NEVER_PRODUCED, STEPPING_STONE,
                HEALTHY)  # in the order they are tried: a token gets the first that applies

STEPPING_STONE_SHARE = 0.05  # at most this share of a token's uses on its own: a stepping stone
MAX_TEXT_BYTES = 200  # a row's text shows at most this many bytes of a token
MAX_REASON_PARTS = 4  # chunks or tokens quoted in a reason


class Defect(NamedTuple):
    """What is wrong with a token whatever the text (kinds 1-3), and why."""

    kind: str
    reason: str


class TokenHealth(NamedTuple):
    """One token of the vocabulary, classified."""

    id: int
    token: bytes
    text: str  # readable (``render_token``; invalid UTF-8 shows as U+FFFD), cut at MAX_TEXT_BYTES
    kind: str  # one of HEALTH_KINDS
    count: int  # times the text's encoding produced it
    inside: int  # times it sits inside the merge trees of the tokens produced (0 for none)
    reason: str  # why it has its kind, in a few words


class KindCount(NamedTuple):
    """How many tokens have one kind (``health_summary``)."""

    kind: str
    tokens: int
    single_bytes: int  # of them, single bytes (never merged)
    merged: int  # of them, tokens made by merges (or a file's added tokens)
    share: float  # tokens / all the tokens classified (0.0 for an empty vocabulary)


# -- kinds 1-3: the vocabulary alone ----------------------------------------------------------


def ordinary_ids(tok: Any) -> list[int]:
    """The ids of every token that is not a special token, in id order."""
    specials = set(tok.special_tokens.values())
    return sorted(idx for idx in tok.vocab if idx not in specials)


def partial_reason(token: bytes) -> str | None:
    """Why ``token`` is not valid UTF-8 on its own, or None when it is.

    >>> partial_reason(b"\\xe2"), partial_reason(b"\\x80a"), partial_reason(b"ok")
    ('the first byte of a 3-byte character, alone', 'starts inside a character', None)
    """
    try:
        token.decode("utf-8")
        return None
    except UnicodeDecodeError as e:
        error = e
    if len(token) == 1:
        b = token[0]
        if 0x80 <= b < 0xC0:
            return "a continuation byte alone (the middle or end of a character)"
        if b in (0xC0, 0xC1) or b >= 0xF5:
            return "a byte that never occurs in UTF-8"
        size = 2 if b < 0xE0 else 3 if b < 0xF0 else 4
        return f"the first byte of a {size}-byte character, alone"
    starts = 0x80 <= token[0] < 0xC0
    ends = error.reason == "unexpected end of data"
    if starts and ends:
        return "starts and ends inside a character"
    if starts:
        return "starts inside a character"
    if ends:
        return "ends inside a character"
    return f"byte {error.start} ({token[error.start]:#04x}) is not valid UTF-8 there"


def _quoted(parts: list[str]) -> str:
    """Chunks or tokens as ``' the' + 'x'`` (repr shows spaces and line breaks), a few at most."""
    shown = " + ".join(repr(p[:40]) for p in parts[:MAX_REASON_PARTS])
    return shown + (" + …" if len(parts) > MAX_REASON_PARTS else "")


def vocabulary_defects(tok: Any, pattern: str | None = None, *,
                       precomputed: bool = True) -> dict[int, Defect]:
    """Kinds 1-3 for every non-special token that has one: ``{id: Defect(kind, reason)}``.

    ``pattern``: None checks the tokenizer's own split (and, for a tokenizer read from a
    tokenizer.json, its normalizer and added tokens too); a pattern string checks the
    vocabulary's merges against that pattern instead, e.g. a GPT-2-split vocabulary against the
    GPT-4 split (``""``: no split at all). A file's added tokens are matched whole before any
    split, so they are never unreachable. One pass over the vocabulary; a ValueError when the
    pattern is not a valid split pattern.

    For an unchanged GPT preset and one of the four GPT split patterns (or its own), which
    tokens have a defect ships in ``bpe_core/data/health.json.gz`` (``build_health_assets``):
    only those tokens are checked again, for their reasons (``precomputed=False``: all of them).

    >>> from bpe_core import RegexTokenizer, GPT4_SPLIT_PATTERN
    >>> tok = RegexTokenizer("")                 # no split: " 1" can be learned
    >>> tok.train(" 1 1 1", 257)
    >>> vocabulary_defects(tok)[128].kind        # the byte 0x80: never a character alone
    'partial UTF-8'
    >>> print(vocabulary_defects(tok, GPT4_SPLIT_PATTERN)[256].reason)
    the split pattern cuts it into 2 chunks: ' ' + '1'
    """
    own = pattern is None
    with_pipeline = own and tok.pipeline is not None
    split = tok.split if own else Tokenizer(pattern).split  # a Tokenizer checks the pattern
    byte_ids = tok.byte_token_ids
    merges, parents, vocab = tok.merges, tok.parents, tok.vocab
    single = set(byte_ids)
    defects: dict[int, Defect] = {}
    shipped = shipped_defect_ids(tok, pattern) if precomputed else None
    for idx in ordinary_ids(tok) if shipped is None else shipped:
        token = vocab[idx]
        try:
            text = token.decode("utf-8")
        except UnicodeDecodeError:
            defects[idx] = Defect(PARTIAL_UTF8, partial_reason(token) or "")
            continue
        if idx in single or idx not in parents:
            continue  # a single byte; or a file's added token, matched whole before splitting
        if with_pipeline:  # normalized, added tokens matched, pre-tokenized: as encode does
            pieces = tok.chunks(text, "none")
            chunks = [chunk for chunk, _ in pieces]
        else:
            chunks = split(text)
        if len(chunks) > 1:
            defects[idx] = Defect(UNREACHABLE, f"the split pattern cuts it into {len(chunks)}"
                                               f" chunks: {_quoted(chunks)}")
            continue
        if with_pipeline:
            if not pieces:
                ids = []
            else:
                chunk, added = pieces[0]
                ids = [added] if added is not None else tok.encode_chunk(chunk)
        else:  # one chunk: encoding it is merging its bytes by rank
            ids = apply_merges([byte_ids[b] for b in token], merges)
        if ids != [idx]:
            made = [render_token(vocab[i]) for i in ids]
            defects[idx] = Defect(ROUND_TRIP_FAILS, f"encoding its text gives {len(ids)} tokens:"
                                                    f" {_quoted(made)}")
    return defects


# -- kinds 1-3 of the presets, computed once and shipped ------------------------------------------

HEALTH_ASSET = Path(__file__).resolve().parent / "data" / "health.json.gz"
SHIPPED_PATTERNS = {  # the patterns whose results ship, by a short name
    "own": None, "gpt2": GPT2_SPLIT_PATTERN, "gpt4": GPT4_SPLIT_PATTERN,
    "gpt4o": GPT4O_SPLIT_PATTERN,
}
_SHIPPED: list[dict] = []  # the file's contents, read once per process


def _shipped() -> dict:
    if not _SHIPPED:
        try:
            data = json.loads(gzip.decompress(HEALTH_ASSET.read_bytes()))
        except (OSError, EOFError, ValueError) as e:
            data = {"error": str(e)}
        _SHIPPED.append(data)
    return _SHIPPED[0]


def shipped_defect_ids(tok: Any, pattern: str | None) -> list[int] | None:
    """The ids of the tokens with a defect, from the shipped file, when ``tok`` is an unchanged
    preset (``pretrained.unchanged_preset``) and the file was built from the same published files;
    None otherwise (then every token is checked)."""
    name = unchanged_preset(tok)
    key = next((k for k, p in SHIPPED_PATTERNS.items() if p == pattern), None)
    entry = _shipped().get("presets", {}).get(name) if name and key else None
    if not entry or entry.get("files") != PRESETS[name]["files"] or key not in entry:
        return None
    return entry[key]


def build_health_assets(target: Path = HEALTH_ASSET) -> None:
    """Compute kinds 1-3 of every preset against each of the four patterns (minutes in Python)
    and write them, with the published hashes they belong to, to ``target``."""
    presets = {}
    for name in PRESETS:
        tok = load_pretrained(name)
        entry: dict[str, Any] = {"files": PRESETS[name]["files"]}
        for key, pattern in SHIPPED_PATTERNS.items():
            entry[key] = sorted(vocabulary_defects(tok, pattern, precomputed=False))
        presets[name] = entry
    text = json.dumps({"presets": presets}, separators=(",", ":"), sort_keys=True)
    partial = target.with_name(target.name + ".partial")
    partial.write_bytes(gzip.compress(text.encode("utf-8"), 9, mtime=0))
    partial.replace(target)


# -- kinds 4-5: the text ------------------------------------------------------------------------


def inside_counts(tok: Any, counts: Mapping[int, int]) -> dict[int, int]:
    """How many times each token sits inside the merge trees of the tokens of a text, given the
    text's token counts (``{id: count}``). A token used n times adds n to each of its two parts,
    and so on down to the bytes.

    >>> from bpe_core import BasicTokenizer
    >>> tok = BasicTokenizer()
    >>> tok.train("aaabdaaabac", 259)            # 256 'aa', 257 'aaa' = 'aa' + 'a'
    >>> inside_counts(tok, {257: 2})
    {256: 2, 97: 6}
    """
    uses = {idx: n for idx, n in counts.items() if n > 0}  # on its own or inside a longer token
    inside: dict[int, int] = {}
    parents = tok.parents
    # Merge order puts every token after its two parts, so backwards every token's uses are
    # complete before they pass down to its parts.
    for idx in reversed(tok.merges.values()):
        n = uses.get(idx)
        if not n:
            continue
        for part in parents[idx]:
            uses[part] = uses.get(part, 0) + n
            inside[part] = inside.get(part, 0) + n
    return inside


def readable_cut(token: bytes) -> str:
    """``render_token`` of a token's first MAX_TEXT_BYTES bytes, saying how long a longer one is."""
    if len(token) <= MAX_TEXT_BYTES:
        return render_token(token)
    return render_token(token[:MAX_TEXT_BYTES]) + f"… ({len(token):,} bytes)"


def token_kind(
    tok: Any,
    idx: int,
    count: int,
    inside: int,
    defects: Mapping[int, Defect],
    share: float = STEPPING_STONE_SHARE,
) -> str:
    """One token's kind: its defect's if it has one, else what the text makes of it (``count``:
    times on its own; ``inside``: times inside the text's longer tokens)."""
    defect = defects.get(idx)
    if defect is not None:
        return defect.kind
    if count == 0 and inside == 0:
        return NEVER_PRODUCED
    if idx in tok.parents and count <= share * (count + inside):
        return STEPPING_STONE
    return HEALTHY


def token_health(
    tok: Any,
    idx: int,
    counts: Mapping[int, int],
    inside: Mapping[int, int],
    defects: Mapping[int, Defect],
    share: float = STEPPING_STONE_SHARE,
) -> TokenHealth:
    """One token's row: its kind (``token_kind``) with the reason, given the text's ``counts`` and
    ``inside`` counts (``inside_counts``)."""
    token = tok.vocab[idx]
    n, within = counts.get(idx, 0), inside.get(idx, 0)
    kind = token_kind(tok, idx, n, within, defects, share)
    if kind in (PARTIAL_UTF8, UNREACHABLE, ROUND_TRIP_FAILS):
        reason = defects[idx].reason
    elif kind == NEVER_PRODUCED:
        reason = "not in the text's tokens, nor inside any of them"
    elif kind == STEPPING_STONE:
        reason = (f"{n:,}× on its own, {within:,}× inside longer tokens"
                  f" ({n / (n + within):.1%} on its own)")
    else:
        reason = f"{n:,}× on its own, {within:,}× inside longer tokens"
    return TokenHealth(idx, token, readable_cut(token), kind, n, within, reason)


def classify_tokens(
    tok: Any,
    counts: Mapping[int, int],
    defects: Mapping[int, Defect] | None = None,
    *,
    pattern: str | None = None,
    share: float = STEPPING_STONE_SHARE,
) -> list[TokenHealth]:
    """Every non-special token with its kind, in id order.

    ``counts``: the text's token counts (``Counter(ids)``, e.g. of ``step_through(...).final``);
    special tokens among them are ignored. ``defects``: ``vocabulary_defects(tok, pattern)``,
    when it is already known (it is computed here otherwise). ``share``: the stepping-stone
    threshold.
    """
    if defects is None:
        defects = vocabulary_defects(tok, pattern)
    inside = inside_counts(tok, counts)
    return [token_health(tok, idx, counts, inside, defects, share) for idx in ordinary_ids(tok)]


def health_summary(rows: list[TokenHealth]) -> list[KindCount]:
    """How many tokens of each kind, in ``HEALTH_KINDS`` order (kinds with none included).

    >>> health_summary([TokenHealth(97, b"a", "a", HEALTHY, 3, 0, "")])[-1]
    KindCount(kind='healthy', tokens=1, single_bytes=1, merged=0, share=1.0)
    """
    return kinds_summary((r.kind, len(r.token) == 1) for r in rows)


def kinds_summary(kinds: Iterable[tuple[str, bool]]) -> list[KindCount]:
    """``health_summary`` from ``(kind, is a single byte)`` pairs, one per token."""
    tokens: Counter = Counter()
    singles: Counter = Counter()
    for kind, single in kinds:
        tokens[kind] += 1
        singles[kind] += single
    total = sum(tokens.values())
    return [KindCount(kind, tokens[kind], singles[kind], tokens[kind] - singles[kind],
                      tokens[kind] / total if total else 0.0) for kind in HEALTH_KINDS]


def vocabulary_health(tok: Any, text: str, pattern: str | None = None) -> list[TokenHealth]:
    """``classify_tokens`` on a text, for a notebook: the text is encoded here (special tokens'
    text as special tokens)."""
    return classify_tokens(tok, Counter(tok.encode(text, allowed_special="all")), pattern=pattern)


if __name__ == "__main__":  # python -m bpe_lab.who_pays.health: rebuild bpe_core/data/health.json.gz
    build_health_assets()
