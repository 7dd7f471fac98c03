"""The README's first library snippet runs for a newcomer after ``pip install .``: in a fresh
virtual environment that sees none of the machine's packages (a plain ``python -m venv``),
from an empty folder (issue 27).

The wheel is built from a copy of the checkout with this environment's setuptools (no build
isolation, nothing downloaded). The fresh environment gets the wheel and what its metadata says it
depends on (``regex``, ``tqdm``), copied in as this environment has them installed (their files
and metadata), so that ``pip install --no-index`` finds them satisfied without the network. Then the
snippet, cut from README.md as it stands, runs in an empty temporary folder.
"""

from __future__ import annotations

import importlib.metadata
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.timeout(300)


def readme_snippet() -> str:
    """The first Python block of the README's "Use bpe_core from Python" section."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Use bpe_core from Python", 1)[1]
    return re.search(r"```python\n(.*?)```", section, re.DOTALL)[1]


def run(*cmd, cwd) -> subprocess.CompletedProcess:
    done = subprocess.run([str(c) for c in cmd], cwd=cwd, capture_output=True, text=True,
                          timeout=240)
    assert done.returncode == 0, f"{cmd}\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return done


def requirements(metadata: str) -> list[Requirement]:
    """The ``Requires-Dist`` entries of a METADATA text that apply here (no extras)."""
    out = []
    for line in metadata.splitlines():
        if line.startswith("Requires-Dist:"):
            req = Requirement(line.split(":", 1)[1].strip())
            if req.marker is None or req.marker.evaluate({"extra": ""}):
                out.append(req)
    return out


def copy_dependencies(wheel: Path, site: Path) -> list[str]:
    """Copy what the wheel depends on (and what that depends on), as this environment has it
    installed, into ``site``; their names."""
    with zipfile.ZipFile(wheel) as z:
        metadata = next(z.read(n).decode() for n in z.namelist() if n.endswith("/METADATA"))
    todo, done = [r.name for r in requirements(metadata)], []
    while todo:
        name = canonicalize_name(todo.pop())
        if name in done:
            continue
        dist = importlib.metadata.distribution(name)
        for file in dist.files or []:
            if file.parts[0] != "..":  # scripts live outside site-packages: not needed
                target = site / file
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(file.locate(), target)
        done.append(name)
        todo += [r.name for r in requirements(dist.read_text("METADATA") or "")]
    return done


def test_the_snippet_needs_no_file_of_the_checkout():
    snippet = readme_snippet()
    assert "open(" not in snippet and "assets/" not in snippet


def test_the_readme_snippet_runs_after_pip_install_in_a_fresh_venv(tmp_path):
    source = tmp_path / "src"
    shutil.copytree(ROOT, source, ignore=shutil.ignore_patterns(
        ".git", "__pycache__", ".pytest_cache", ".ruff_cache", ".hypothesis", "build", "dist",
        "*.egg-info", "node_modules"))
    wheels = tmp_path / "wheels"
    run(sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--no-index",
        "-w", wheels, source, cwd=tmp_path)
    (wheel,) = wheels.glob("*.whl")

    venv = tmp_path / "venv"
    run(sys.executable, "-m", "venv", "--without-pip", venv, cwd=tmp_path)  # no system packages
    python = venv / "bin" / "python"
    site = Path(run(python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])",
                    cwd=tmp_path).stdout.strip())
    needed = copy_dependencies(wheel, site)
    run(sys.executable, "-m", "pip", "--python", python, "install", "--no-index", wheel,
        cwd=tmp_path)
    seen = run(python, "-c", "import importlib.metadata as m;"
               " print(sorted(d.metadata['Name'].lower() for d in m.distributions()))",
               cwd=tmp_path).stdout
    assert "regex" in needed
    assert seen.strip() == str(sorted(["bpe-lab", *needed]))  # not the machine's packages

    empty = tmp_path / "newcomer"
    empty.mkdir()
    (empty / "snippet.py").write_text(readme_snippet(), encoding="utf-8")
    out = run(python, "snippet.py", cwd=empty).stdout
    assert "[15339, 1917]" in out  # cl100k_base's ids for "hello world", as tiktoken gives them
    assert sorted(p.name for p in empty.iterdir()) == [
        "snippet.py", "toy.model", "toy.model.bpe-lab.json", "toy.vocab"]
