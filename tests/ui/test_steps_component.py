"""The stepping data the browser draws from: decoded as the component's JavaScript decodes it,
it gives the tokens bpe_core gives at every step, in about 4 bytes per byte of drawn text."""

from __future__ import annotations

import base64
import bisect
import json
from array import array

import pytest

from bpe_core import RegexTokenizer, load_pretrained
from ui.stepping.component import steps_payload
from ui.stepping.merges import WINDOW_BYTES, window

TEXT = "Hello wörld 👋🏽 你好, tokens!<|endoftext|>  hello again\n\n" * 40


def _array(code: str, text: str) -> array:
    values = array(code)
    values.frombytes(base64.b64decode(text))
    return values


def tokens_from_payload(p: dict, k: int) -> list[tuple[int, int]]:
    """``(byte start, id)`` after k merges, computed from the payload alone."""
    data = base64.b64decode(p["bytes"])
    melt = _array("H" if p["melt_bits"] == 16 else "I", p["melt"])
    never = 0xFFFF if p["melt_bits"] == 16 else 0xFFFFFFFF
    contiguous = p["used_steps"] is None
    used = None if contiguous else _array("I", p["used_steps"])
    ids = None if contiguous else _array("I", p["used_ids"])
    specials = dict(p["specials"])
    out, start = [], 0
    for b in range(1, len(data) + 1):
        if b < len(data) and melt[b - 1] != never and melt[b - 1] <= k:
            continue
        if start in specials:
            out.append((start, specials[start]))
        elif b - start == 1:
            byte = data[start]
            out.append((start, byte if p["byte_ids"] is None else p["byte_ids"][byte]))
        else:
            last = max(melt[start : b - 1])  # the merge that made this run one token
            out.append((start, 255 + last if contiguous else ids[bisect.bisect_left(used, last)]))
        start = b
    return out


def count_at(p: dict, k: int) -> int:
    steps = _array("I", p["count_steps"])
    values = _array("I", p["count_values"])
    return values[bisect.bisect_right(steps, k) - 1]


@pytest.mark.parametrize("which", ["trained", "o200k_base"])
def test_the_payload_gives_bpe_cores_tokens_and_counts_at_every_step(which):
    if which == "trained":
        tok = RegexTokenizer()
        tok.train(TEXT, 600)
        tok.register_special_tokens({"<|endoftext|>": 600})
    else:
        tok = load_pretrained(which)
    steps = tok.step_through(TEXT, allowed_special="all")
    view, _, _ = window(steps, WINDOW_BYTES)
    counts = steps.token_counts()
    p = steps_payload(view, counts, steps.num_bytes)
    n = tok.num_merges
    for k in sorted({0, 1, 2, n // 10, n // 2, n - 1, n}):
        assert tokens_from_payload(p, k) == [(s.byte_start, s.id) for s in view.tokens_at(k)]
        assert count_at(p, k) == counts[k]
    size = len(json.dumps(p)) - len(json.dumps({"palette": p["palette"], "glyphs": p["glyphs"]}))
    per_byte = size / view.num_bytes
    # base64 of 1 byte + 2 bytes of step per byte (trained); 4 bytes of step for GPT-4o's ids
    assert per_byte < (4.5 if which == "trained" else 8), per_byte
