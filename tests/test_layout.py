"""The house's rooms, as docs/DESIGN.md draws them: what may import what, and how big a room gets.

- ``bpe_core`` (the library) imports neither the lab (``bpe_lab``) nor the app (``ui``, pages),
  and ``import bpe_core`` loads none of the lab's analyses.
- ``bpe_lab`` (the checker, the analyses, the command) imports no Streamlit and nothing of the app.
- ``ui/`` has no module of its own at the top: each is in a feature's folder or in the kit.
- A page imports the kit, the sidebar and its own feature's folder; the few other ties are listed
  below, each with its reason, so a new one is a decision, not an accident.
- The kit (``ui/kit``) imports no other folder of ``ui/``; the sidebar (``ui/sidebar``) is composed
  above the features it shows, and no feature imports it.
- No module of the app, the library or the lab is over 800 lines.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MAX_LINES = 800

# page -> the ui folders it imports besides ui.kit (its own feature first)
PAGE_FEATURES = {
    "overview": {"front", "stepping"},  # the front page shows Step through's view under the box
    "lesson": {"lesson", "quiz"},  # the quiz is one of the lesson's modes
    "classroom": {"classroom", "quiz"},  # a class quiz
    "check": {"check"},
    "tokens": set(),
    "steps": {"stepping", "classroom", "quiz"},  # a class follows this page; the quiz toggle
    "forest": {"forest"},
    "variants": {"variants"},
    "beyond": {"variants"},  # SuperBPE and parity-aware BPE: variants of BPE, a page of their own
    "compare": {"compare"},
    "exchange": {"exchange"},
    "bytes": {"decoding"},
    "chat": {"chat"},
    "languages": {"who_pays"},
    "numbers": {"who_pays"},
    "health": {"who_pays", "forest"},  # lists a vocabulary in the forest's orders
    "report": {"who_pays"},
}
# feature folder -> other folders it may import (ui.kit aside)
FEATURE_TIES = {
    # a classroom room's part of the sidebar; an imported file read again after a reload, by
    # Export & import's one reader
    "sidebar": {"classroom", "exchange"},
    "classroom": {"exchange"},  # a room's imported tokenizer is read as an upload is
    "quiz": {"lesson"},  # the question's text is the lesson's
    "who_pays": {"forest"},  # a token id typed in a search, read as the forest reads it
}


def python_files(*places: str) -> list[Path]:
    out = []
    for place in places:
        path = ROOT / place
        out += [path] if path.is_file() else sorted(p for p in path.rglob("*.py")
                                                    if "__pycache__" not in p.parts)
    return out


def imported(path: Path) -> set[str]:
    """Every absolute module name a file imports, anywhere in it."""
    names = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module)
            names |= {f"{node.module}.{alias.name}" for alias in node.names}
    return names


def ui_folders(path: Path) -> set[str]:
    return {name.split(".")[1] for name in imported(path)
            if name.startswith("ui.") and len(name.split(".")) > 2}


def test_the_library_imports_neither_the_lab_nor_the_app():
    found = {f"{p.relative_to(ROOT)}: {name}" for p in python_files("bpe_core")
             for name in imported(p)
             if name.split(".")[0] in ("bpe_lab", "ui", "streamlit", "pandas", "altair")}
    assert found == set()


def test_the_lab_imports_nothing_of_the_app():
    found = {f"{p.relative_to(ROOT)}: {name}" for p in python_files("bpe_lab")
             for name in imported(p)
             if name.split(".")[0] in ("ui", "streamlit", "pandas", "altair")}
    assert found == set()


def test_import_bpe_core_loads_the_library_alone():
    code = ("import sys, bpe_core\n"
            "print(' '.join(sorted(m for m in sys.modules if m.startswith(('bpe_core', 'bpe_lab')))))")
    loaded = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                            text=True, check=True).stdout.split()
    assert "bpe_core.base" in loaded and "bpe_core.pretrained" in loaded  # the library is there
    assert [m for m in loaded if m.startswith("bpe_lab")] == []
    assert [m for m in loaded if m.split(".")[-1] in
            ("check", "costs", "numbers", "health", "report", "languages")] == []


def test_ui_keeps_every_module_in_a_folder():
    assert sorted(p.name for p in (ROOT / "ui").glob("*.py")) == ["__init__.py"]
    folders = {p.name for p in (ROOT / "ui").iterdir() if p.is_dir() and p.name != "__pycache__"}
    assert folders == {"kit", "sidebar"} | set().union(*PAGE_FEATURES.values()) | {"lesson", "quiz"}
    assert all((ROOT / "ui" / f / "__init__.py").is_file() for f in folders)


def test_a_page_imports_the_kit_and_its_features_only():
    pages = {p.stem: ui_folders(p) - {"kit", "sidebar"} for p in python_files("pages")}
    assert pages == PAGE_FEATURES
    assert {p.stem for p in python_files("pages") if "sidebar" in ui_folders(p)} == set(PAGE_FEATURES)


def test_a_feature_imports_only_the_kit_and_its_listed_ties():
    ties = {}
    for folder in sorted((ROOT / "ui").iterdir()):
        if folder.is_dir() and folder.name != "__pycache__":
            used = set().union(*(ui_folders(p) for p in python_files(f"ui/{folder.name}")))
            ties[folder.name] = used - {folder.name, "kit"}
    assert {k: v for k, v in ties.items() if v} == FEATURE_TIES


def test_the_kit_imports_no_other_ui_folder():
    """The kit is the ground floor of ui/: every feature and the sidebar stand on it, so an import
    from it to a feature (lazy ones inside a function too) would run back up."""
    found = {f"{p.relative_to(ROOT)}: {name}" for p in python_files("ui/kit")
             for name in imported(p)
             if name.startswith("ui.") and name.split(".")[1] != "kit"}
    assert found == set()


def test_no_feature_imports_the_sidebar():
    """The sidebar sits above the features it shows: only pages import it."""
    found = {str(p.relative_to(ROOT)) for p in python_files("ui")
             if "sidebar" in ui_folders(p) and p.parent.name != "sidebar"}
    assert found == set()


def test_no_module_is_over_800_lines():
    big = {str(p.relative_to(ROOT)): n for p in python_files("app.py", "pages", "ui", "bpe_core",
                                                              "bpe_lab")
           if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_LINES}
    assert big == {}
