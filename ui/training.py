"""Plain helpers behind the training page: choosing a tokenizer, checking input, summarising."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import bpe_core

# label shown in the app -> name of the bpe_core split pattern ("" means BasicTokenizer, no split)
SPLITS: dict[str, str] = {
    "GPT-4 (cl100k) split": "GPT4_SPLIT_PATTERN",
    "GPT-2 split": "GPT2_SPLIT_PATTERN",
    "GPT-4o split": "GPT4O_SPLIT_PATTERN",
    "No split (BasicTokenizer)": "",
}

MAX_IDS_SHOWN = 5000


def make_tokenizer(split_label: str) -> Any:
    """Return a fresh, untrained bpe_core tokenizer for one of the ``SPLITS`` labels.

    Raises ValueError for an unknown label.
    """
    if split_label not in SPLITS:
        raise ValueError(f"unknown split {split_label!r}; choose one of {list(SPLITS)}")
    pattern_name = SPLITS[split_label]
    if not pattern_name:
        return bpe_core.BasicTokenizer()
    return bpe_core.RegexTokenizer(getattr(bpe_core, pattern_name))


def text_problem(text: str | None) -> str | None:
    """Say why a text cannot be trained on, or return None when it is fine.

    >>> text_problem("  \\n")
    'The text is only whitespace: paste some text or pick a sample to train on.'
    >>> text_problem("hello") is None
    True
    """
    if not text:
        return "The text is empty: paste some text or pick a sample to train on."
    if text.isspace():
        return "The text is only whitespace: paste some text or pick a sample to train on."
    return None


@dataclass(frozen=True)
class TrainSummary:
    """Numbers describing one training run on one text."""

    merges: int  # merges actually made
    bytes_before: int  # tokens before training: one per UTF-8 byte
    tokens_after: int  # tokens after encoding with the trained merges

    @property
    def ratio(self) -> float:
        """Compression ratio: tokens before / tokens after (1.0 for no tokens)."""
        return self.bytes_before / self.tokens_after if self.tokens_after else 1.0


def summarize(text: str, ids: list[int], merges: int) -> TrainSummary:
    """Summarise a run from the text, its token ids after training and the merge count.

    >>> summarize("aaab", [257, 98], 2).ratio
    2.0
    """
    return TrainSummary(
        merges=merges, bytes_before=len(text.encode("utf-8")), tokens_after=len(ids)
    )


def clip_ids(ids: list[int], limit: int = MAX_IDS_SHOWN) -> tuple[list[int], int]:
    """Return at most ``limit`` leading ids and how many were left out.

    >>> clip_ids([1, 2, 3], 2)
    ([1, 2], 1)
    """
    shown = ids[:limit]
    return shown, len(ids) - len(shown)


def format_ids(ids: list[int]) -> str:
    """Write ids as one comma-separated line.

    >>> format_ids([104, 256, 10])
    '104, 256, 10'
    """
    return ", ".join(str(i) for i in ids)


ProgressFn = Callable[[int, int, Any], "bool | None"]


def throttled(update: Callable[[int, int], None], steps: int = 100) -> ProgressFn:
    """Wrap ``update(done, total)`` as a ``tok.train`` progress callback called ~``steps`` times.

    Only calls ``update`` when the done fraction crosses a new 1/``steps`` mark (and at the end),
    so a long training run does not send thousands of UI updates. Never stops training.
    """
    last = -1

    def callback(done: int, total: int, record: Any) -> None:
        nonlocal last
        mark = done * steps // total if total else steps
        if mark != last or done == total:
            last = mark
            update(done, total)

    return callback
