"""Fixtures for the command line's tests (helpers are in cli_support.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
from cli_support import EOT, documents


@pytest.fixture
def corpus(tmp_path, prose_text) -> tuple[list[Path], str]:
    """Three files of prose whose documents end in <|endoftext|>; the joined text."""
    docs = documents(prose_text[:9_000], 9)
    texts = [EOT.join(docs[i:i + 3]) + EOT for i in range(0, 9, 3)]
    paths = []
    for k, text in enumerate(texts):
        path = tmp_path / f"part{k}.txt"
        path.write_bytes(text.encode("utf-8"))
        paths.append(path)
    return paths, "".join(texts)
