"""Helpers for tests/cli: running the ``bpe-lab`` command line as a user does: in a subprocess (``python -m bpe_lab``,
the same ``main`` as the installed script; tests/core/test_package.py runs the installed one),
with this checkout on its path, in a temporary folder."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
EOT = "<|endoftext|>"


def cli_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")}
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), *extra.pop("PYTHONPATH", "").split(os.pathsep)])
    env.update(extra)
    return env


def cli_command(*args: object) -> list[str]:
    return [sys.executable, "-m", "bpe_lab", *map(str, args)]


def run_cli(*args: object, cwd: Path, timeout: float = 120, **env: str):
    """``bpe-lab ARGS`` with its output piped (not a terminal): a CompletedProcess."""
    return subprocess.run(cli_command(*args), cwd=cwd, capture_output=True, text=True,
                          timeout=timeout, env=cli_env(**env))


def documents(text: str, n: int) -> list[str]:
    """``text`` cut into ``n`` documents at line ends."""
    lines = text.splitlines(keepends=True)
    step = max(1, len(lines) // n)
    return ["".join(lines[i:i + step]) for i in range(0, len(lines), step)]


