"""bpe_core reads bottom-up: no module of the package imports, at any depth, one that imports it
back (an import circle), counting imports inside functions too."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "bpe_core"


def imports_of(path: Path) -> set[str]:
    """The bpe_core modules a module imports anywhere in its code (``from .x import``)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.level == 1 and node.module:
            found.add(node.module.split(".")[0])
    return found


def test_no_module_of_bpe_core_is_part_of_an_import_circle():
    graph = {p.stem: imports_of(p) for p in PACKAGE.glob("*.py") if p.stem != "__init__"}
    assert graph["base"] and graph["files"]  # the walk sees imports

    def reaches(start: str) -> set[str]:
        seen, todo = set(), [start]
        while todo:
            for nxt in graph.get(todo.pop(), ()):
                if nxt not in seen:
                    seen.add(nxt)
                    todo.append(nxt)
        return seen

    circles = sorted(m for m in graph if m in reaches(m))
    assert circles == []


def test_loaders_build_tokenizers_through_the_constructor():
    """No module reaches into another's private parts (``tok._rebuild()`` and the like)."""
    calls = []
    for path in PACKAGE.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (isinstance(node, ast.Attribute) and node.attr.startswith("_")
                    and not node.attr.startswith("__")
                    and not (isinstance(node.value, ast.Name) and node.value.id in ("self", "cls"))):
                calls.append(f"{path.name}:{node.lineno} .{node.attr}")
    assert calls == []


def test_each_name_is_defined_once_across_ui_and_bpe_core():
    """A name means one thing: no two modules of ui/ and bpe_core/ define the same top-level
    name (``token_text``, ``TraceStep``, ``Decoded``... each had two or three meanings once)."""
    where: dict[str, list[str]] = {}
    for folder in (PACKAGE, PACKAGE.parent / "ui"):
        for path in folder.glob("*.py"):
            for node in ast.parse(path.read_text(encoding="utf-8")).body:
                if isinstance(node, ast.FunctionDef | ast.ClassDef):
                    names = [node.name]
                elif isinstance(node, ast.Assign):
                    names = [t.id for t in node.targets if isinstance(t, ast.Name)]
                elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
                    names = [node.target.id]
                else:
                    names = []
                for name in names:
                    where.setdefault(name, []).append(f"{folder.name}/{path.name}")
    twice = {name: places for name, places in where.items() if len(places) > 1}
    assert twice == {}
