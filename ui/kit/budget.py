"""What one session may hold in the server's memory: a stated bound, and what counts against it.

A session's memory is mostly its tokenizers (the trained one, the train memo's, an imported one)
and what the pages derive from them (``state.derived``: orderings, tables, step-throughs, most of
them a row or an entry per token). So a tokenizer counts for what it holds and what a tour of
every page derives from it: ``SESSION_TOKEN_BYTES`` a token, plus its bytes, a figure measured
(``benchmarks/session_memory.py``, docs/LIMITS.md). The shared GPT presets count for no session.

``refusal(what, cost, held)`` says, before a tokenizer is kept, whether it would take the
session past ``SESSION_MEMORY_MB``; the caller keeps what the session had and shows the message,
which names the bound.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

import bpe_core
from bpe_core.limits.budget import MB

SESSION_MEMORY_MB = 160  # the bound a session's tokenizers and what they derive stay under
# bytes a token costs a session, measured (docs/LIMITS.md): a session that imports cl100k_base
# (100,256 tokens) and visits every page holds 61 MB more than a trained one, 639 B a token
# (benchmarks/session_memory.py); the tokenizer alone, once read, 204-328 B a token
SESSION_TOKEN_BYTES = 640


def tokenizer_bytes(tok: bpe_core.Tokenizer) -> int:
    """The memory a session holding ``tok`` pays for it (estimated from its size, measured). A
    word-BPE tokenizer (``ui.kit.families``) has no vocabulary of ids: its merges count; CLIP's
    vocabulary maps its tokens to ids, a tekken.json's is its ``encoding``'s."""
    vocab = getattr(getattr(tok, "encoding", tok), "vocab", None)
    if isinstance(vocab, dict):
        tokens = vocab if vocab and isinstance(next(iter(vocab)), str) else vocab.values()
        sizes = [len(token) for token in tokens]
    else:
        sizes = [len((a + b).encode("utf-8", "surrogatepass")) for a, b in tok.merges]
    return len(sizes) * SESSION_TOKEN_BYTES + 2 * sum(sizes)


def size_bytes(vocab_size: int) -> int:
    """The same estimate before a tokenizer exists (training asks for ``vocab_size`` tokens;
    trained tokens are short: 16 bytes each is more than any sample's)."""
    return vocab_size * (SESSION_TOKEN_BYTES + 2 * 16)


def file_tokens(files: Sequence[bytes]) -> int:
    """How many tokens uploaded files may hold, counted before they are read (reading a 10 MB
    tokenizer.json of 440,000 tokens peaks at 490 MB): a line or a JSON key given a number
    (``"token": 12``, a vocabulary's entry) each, the largest count of one file (vocab.json and
    merges.txt describe the same tokens)."""
    return max((max(data.count(b"\n"), sum(1 for _ in _ENTRY.finditer(data))) for data in files),
               default=0)


_ENTRY = re.compile(rb'":\s*\d')


def held_bytes(tokenizers: Iterable[bpe_core.Tokenizer | None]) -> int:
    """What a session's own tokenizers (trained, imported: never the shared presets) cost
    together, each counted once."""
    seen = {id(tok): tok for tok in tokenizers if tok is not None}
    return sum(tokenizer_bytes(tok) for tok in seen.values())


def refusal(what: str, cost: int, held: int) -> str | None:
    """The message that refuses ``what`` (costing ``cost`` bytes) in a session already holding
    ``held``, or None when it fits under the bound."""
    if held + cost <= SESSION_MEMORY_MB * MB:
        return None
    return (f"{what} would take about {cost / MB:,.1f} MB of the server's memory, and this"
            f" session already holds about {held / MB:,.1f} MB: each session may hold"
            f" {SESSION_MEMORY_MB:g} MB (its tokenizers and what the pages derive from them), so"
            " that a class fits on one server.")
