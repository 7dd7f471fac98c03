"""Step through the merges in the browser (issue 14): the data a text's step-through needs, packed
small, and a custom component that draws the tokens after any k merges without the server.

The data is ``StepThrough.melt_steps()``: for each byte boundary of the drawn window, the merge
step that joins it. After k merges the tokens are the runs between boundaries whose step is above
k; a run's id is its byte's id (one byte), its special token's id, or the id the merge at the
run's largest step made. Sent as base64 (uint16 steps when the vocabulary allows, else uint32).
"""

from __future__ import annotations

import base64
import sys
from array import array
from typing import Any

from bpe_core.steps import NEVER

from ui.tokens_html import PALETTE, WHITESPACE_GLYPHS


def _b64(values: array) -> str:
    if sys.byteorder != "little":  # the browser reads little-endian typed arrays
        values = array(values.typecode, values)
        values.byteswap()
    return base64.b64encode(values.tobytes()).decode("ascii")


def steps_payload(view: Any, counts: list[int]) -> dict[str, Any]:
    """What the component needs for ``view`` (a StepThrough, or its ``head``) and the whole
    text's token ``counts`` at every step: plain JSON, binary parts in base64."""
    tok = view.tokenizer
    melt = view.melt_steps()
    n = tok.num_merges
    small = n < 0xFFFF  # steps fit in 16 bits: 0xFFFF stands for "never"
    steps = array("H" if small else "I", (0xFFFF if small and m == NEVER else m for m in melt))
    data = b"".join(tok.vocab[t] for t in view.final)
    used = sorted({m for m in melt if 0 < m != NEVER})
    made = list(tok.merges.values())
    contiguous = made == list(range(256, 256 + n))
    changes = [k for k in range(1, len(counts)) if counts[k] != counts[k - 1]]
    return {
        "bytes": base64.b64encode(data).decode("ascii"),
        "melt": _b64(steps),
        "melt_bits": 16 if small else 32,
        # the id merge s made: 255 + s when merges made ids 256, 257, ... (trained here), else
        # a table of the steps this window uses
        "used_steps": None if contiguous else _b64(array("I", used)),
        "used_ids": None if contiguous else _b64(array("I", (made[s - 1] for s in used))),
        "byte_ids": None if tok.byte_ids is None else list(tok.byte_ids),
        "specials": [[start, t] for t, start, special in zip(view.final, view.starts, view.special)
                     if special],
        "num_merges": n,
        "count_steps": _b64(array("I", [0, *changes])),
        "count_values": _b64(array("I", [counts[0], *(counts[k] for k in changes)])),
        "palette": PALETTE,
        "glyphs": WHITESPACE_GLYPHS,
    }
