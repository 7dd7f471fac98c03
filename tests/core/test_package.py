"""``pip install .`` gives a working library on its own: the wheel holds bpe_core with its GPT
vocabularies and the ``bpe-lab`` command (bpe_lab) and nothing else, its metadata says the truth,
the installed package encodes like tiktoken from any folder, away from this checkout, and the
installed ``bpe-lab`` command trains and describes a tokenizer there.

The wheel is built from a copy of the checkout with the setuptools that requirements-dev.txt pins
(no build isolation: nothing is downloaded), and installed into fresh virtual environments that
see the running environment's packages (for ``regex``) but not this checkout.
"""

from __future__ import annotations

import importlib.metadata
import re
import shutil
import subprocess
import sys
import sysconfig
import tomllib
import zipfile
from pathlib import Path

import pytest
from packaging.specifiers import SpecifierSet

import bpe_core
from bpe_core.unicode_gap import REGEX_FLOOR
from bpe_lab.who_pays.languages import LANGUAGES_DIR, load_parallel

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.timeout(300)

CHECK = """
import importlib.metadata, pathlib, sys
import bpe_core
where = pathlib.Path(bpe_core.__file__).resolve()
assert not where.is_relative_to(pathlib.Path(sys.argv[1])), where
print(where)
print(bpe_core.__version__, importlib.metadata.version("bpe-lab"))
print(bpe_core.load_pretrained("o200k_base").encode("hello world"))
print(bpe_core.load_pretrained("cl100k_base").encode("hello world"))
print(bpe_core.load_pretrained("gpt2").encode("hello world"))
from bpe_lab.who_pays.languages import load_parallel
print(*[f"{lang.code}:{len(lang.lines)}" for lang in load_parallel()])
"""
EXPECTED = [  # OpenAI's ids for "hello world", as tiktoken gives them
    "[24912, 2375]",  # o200k_base
    "[15339, 1917]",  # cl100k_base
    "[31373, 995]",  # gpt2
]
# every language of the parallel text set, each with all its lines, as the checkout has them
PARALLEL = " ".join(f"{lang.code}:{len(lang.lines)}" for lang in load_parallel())


DEPENDENCIES = ["regex", "tqdm"]  # pyproject's [project] dependencies, as import names


def run(*cmd, cwd) -> str:
    done = subprocess.run([str(c) for c in cmd], cwd=cwd, capture_output=True, text=True,
                          timeout=240)
    assert done.returncode == 0, f"{cmd}\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return done.stdout


@pytest.fixture(scope="module")
def source(tmp_path_factory) -> Path:
    """A copy of the checkout without its caches, so a build leaves nothing behind in it."""
    target = tmp_path_factory.mktemp("src") / "bpe-lab"
    shutil.copytree(ROOT, target, ignore=shutil.ignore_patterns(
        ".git", "__pycache__", ".pytest_cache", ".ruff_cache", ".hypothesis", "build", "dist",
        "*.egg-info"))
    return target


@pytest.fixture(scope="module")
def wheel(source, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    run(sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--no-index",
        "-w", out, source, cwd=out)
    (built,) = out.glob("*.whl")
    return built


def fresh_venv(folder: Path) -> Path:
    """A new virtual environment that sees the packages of the environment running the tests (pip,
    ``regex`` and the pinned setuptools among them) but not this checkout; its python.

    A venv that shares the system's site packages would not do: made from inside a virtual
    environment, it sees the base interpreter's packages instead of the running environment's. A ``.pth`` file in the
    new environment names the running one's package folders, after its own.
    """
    run(sys.executable, "-m", "venv", "--without-pip", folder, cwd=folder.parent)
    python = folder / "bin" / "python"
    inner = run(python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])",
                cwd=folder).strip()
    outer = dict.fromkeys(sysconfig.get_paths()[k] for k in ("purelib", "platlib"))
    Path(inner, "running-environment.pth").write_text("".join(f"{p}\n" for p in outer))
    return python


def test_the_wheel_holds_the_library_its_vocabularies_and_the_command_only(wheel):
    names = zipfile.ZipFile(wheel).namelist()
    top = {name.split("/")[0] for name in names}
    assert top == {"bpe_core", "bpe_lab", f"bpe_lab-{bpe_core.__version__}.dist-info"}
    (entry_points,) = [n for n in names if n.endswith(".dist-info/entry_points.txt")]
    assert "bpe-lab = bpe_lab.cli:main" in zipfile.ZipFile(wheel).read(entry_points).decode()
    lab = {n for n in names if n.startswith("bpe_lab/")}
    assert {"bpe_lab/__main__.py", "bpe_lab/cli/__init__.py", "bpe_lab/check/__init__.py",
            "bpe_lab/who_pays/costs.py", "bpe_lab/who_pays/data/health.json.gz"} <= lab
    shipped = {Path(n).name for n in names if Path(n).parent == Path("bpe_core/data")}
    assert shipped == {"encoder.json.gz", "vocab.bpe.gz", "cl100k_base.bpe.gz", "o200k_base.bpe.gz"}
    assert wheel.stat().st_size < 2_500_000  # the presets in their compact form (about 1.9 MB)
    languages = {Path(n).name for n in names if n.startswith("bpe_lab/who_pays/data/languages/")}
    assert languages == {p.name for p in LANGUAGES_DIR.iterdir()}  # texts, languages.tsv, README
    modules = {Path(n).name for n in names if re.fullmatch(r"bpe_core/[^/]+\.py", n)}
    assert {"__init__.py", "base.py", "training.py", "pretrained.py", "files.py"} <= modules
    assert "bench.py" not in modules  # the benchmark is in benchmarks/, outside the library


def test_the_wheels_metadata_says_the_version_and_what_it_needs(wheel):
    (meta,) = [n for n in zipfile.ZipFile(wheel).namelist() if n.endswith(".dist-info/METADATA")]
    text = zipfile.ZipFile(wheel).read(meta).decode()
    assert f"\nVersion: {bpe_core.__version__}\n" in text
    assert "\nRequires-Python: >=3.11\n" in text
    floor = ".".join(map(str, REGEX_FLOOR))  # the oldest regex whose Unicode holds the tables
    assert re.search(rf"^Requires-Dist: regex>={re.escape(floor)}$", text, re.MULTILINE)
    assert re.search(r"^Requires-Dist: tqdm>=4\.66$", text, re.MULTILINE)  # the progress bars
    assert re.search(r"^Provides-Extra: dask$", text, re.MULTILINE)  # bpe-lab[dask]
    needs = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    assert [re.match(r"[\w-]+", n).group() for n in needs] == DEPENDENCIES  # regex and tqdm, nothing more


def test_an_older_regex_is_refused_at_import_by_name():
    """regex 2026.5.9 lacks blocks of Unicode 17 (Jurchen, Seal): bpe_core's import failed deep
    in a translated pattern ("unknown property value at position 28"). It says what it needs."""
    code = "import regex; regex.__version__ = '2026.5.9'; import bpe_core"
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert run.returncode == 1
    last = run.stderr.strip().splitlines()[-1]
    assert last == ("ImportError: bpe_core needs the regex package 2026.9.29 or newer"
                    " (Unicode 17), and this Python has 2026.5.9: pip install -U regex"), last
    ok = subprocess.run([sys.executable, "-c", "import bpe_core"], capture_output=True, cwd=ROOT)
    assert ok.returncode == 0, ok.stderr


def lowest_python(spec: str) -> str:
    """The lowest 3.x release that a Requires-Python specifier admits."""
    admitted = [f"3.{minor}" for minor in range(6, 20) if f"3.{minor}" in SpecifierSet(spec)]
    return admitted[0]


def test_requires_python_is_what_the_pinned_requirements_need():
    ours = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["requires-python"]
    needs = {}
    for line in (ROOT / "requirements.txt").read_text().splitlines():
        if "==" in line:
            name = line.split("==")[0].strip()
            needs[name] = lowest_python(importlib.metadata.metadata(name)["Requires-Python"])
    highest = max(needs.values(), key=lambda v: tuple(map(int, v.split("."))))
    assert lowest_python(ours) == highest, needs


def test_pip_install_dot_works_away_from_the_checkout(source, wheel, tmp_path):
    python = fresh_venv(tmp_path / "venv")
    run(python, "-m", "pip", "install", "--no-deps", "--no-index", wheel, cwd=tmp_path)
    away = tmp_path / "elsewhere"
    away.mkdir()
    lines = run(python, "-c", CHECK, ROOT, cwd=away).splitlines()
    assert Path(lines[0]).is_relative_to(tmp_path / "venv")  # the installed copy, not the repo
    version, metadata_version = lines[1].split()
    assert version == metadata_version == bpe_core.__version__
    assert lines[2:] == [*EXPECTED, PARALLEL]
    # the installed command, from its own script in the venv's bin/, away from the checkout
    command = tmp_path / "venv" / "bin" / "bpe-lab"
    (away / "corpus.txt").write_text("low lower lowest<|endoftext|>newer newest wider\n" * 20)
    out = run(command, "train", "corpus.txt", "--vocab-size", "270", "--special-token",
              "<|endoftext|>", "--workers", "1", "--out", "tok.model", cwd=away)
    assert "wrote tok.model" in out
    described = run(command, "info", "tok.model", cwd=away)
    assert re.search(r"^merges\s+13$", described, re.MULTILINE)  # 270 - 256 - 1 special
    assert re.search(r"^special tokens\s+<\|endoftext\|> = 269$", described, re.MULTILINE)


def test_pip_install_editable_works_away_from_the_checkout(source, tmp_path):
    python = fresh_venv(tmp_path / "venv")
    run(python, "-m", "pip", "install", "--no-deps", "--no-build-isolation", "--no-index", "-e",
        source, cwd=tmp_path)
    away = tmp_path / "elsewhere"
    away.mkdir()
    lines = run(python, "-c", CHECK, ROOT, cwd=away).splitlines()
    assert Path(lines[0]).is_relative_to(source)  # the editable copy's own files
    assert lines[2:] == [*EXPECTED, PARALLEL]


def test_nothing_in_the_project_reads_outside_the_checkout():
    """No code, test, benchmark or CI script names the folder beside the checkout: a fresh clone
    has nothing there (``.ci/run`` proves it by running the tests in one)."""
    outside = ["..", "shared"]
    needles = ["/".join(outside), "shared" + "/data", "parent / " + '"shared"']
    tracked = run("git", "ls-files", cwd=ROOT).split()
    hits = []
    for name in tracked:
        if name.endswith((".py", ".toml", ".txt", ".cfg")) or name.startswith(".ci/"):
            text = (ROOT / name).read_text(encoding="utf-8", errors="replace")
            hits += [f"{name}: {n}" for n in needles if n in text]
    assert hits == []
