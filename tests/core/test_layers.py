"""bpe_core reads bottom-up: no module of the package imports, at any depth, one that imports it
back (an import circle), counting imports inside functions too. Sub-packages (``bpe_lab/check/``)
are walked too: each of their modules is a module here, named by its dotted path."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "bpe_core"
LAB = PACKAGE.parent / "bpe_lab"  # the lab's analyses, which lived in bpe_core until issue 31


def module_files(folder: Path) -> list[Path]:
    """Every module of a package folder and of its sub-packages (caches left out)."""
    return sorted(p for p in folder.rglob("*.py") if "__pycache__" not in p.parts)


def module_name(path: Path) -> str:
    """A module of bpe_core by its dotted path inside the package: ``base``, ``check`` (the
    sub-package's ``__init__``), ``check.reading``."""
    parts = list(path.relative_to(PACKAGE).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imports_of(path: Path) -> set[str]:
    """The bpe_core modules a module imports anywhere in its code (``from .x import``, and
    ``from ..x import`` in a sub-package), by their names as ``module_name`` gives them.
    Importing ``check.task`` from outside ``check/`` runs ``check/__init__`` first: it counts."""
    package = module_name(path).split(".") if module_name(path) else []
    if path.stem != "__init__":
        package = package[:-1]  # the package the module is in ([] for bpe_core itself)
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not (isinstance(node, ast.ImportFrom) and node.level >= 1):
            continue
        up = node.level - 1
        if up > len(package):
            continue  # above bpe_core: not one of its modules
        base = package[: len(package) - up]
        targets = ([base + node.module.split(".")] if node.module
                   else [base + [alias.name] for alias in node.names])
        for target in targets:
            module = known_module(target)
            if not module:
                continue
            found.add(module)
            parts = module.split(".")
            for end in range(1, len(parts)):
                if parts[:end] != package[:end]:
                    found.add(".".join(parts[:end]))
    return found


def known_module(parts: list[str]) -> str:
    """The longest leading part of a dotted name that is a module of bpe_core (``check.task``,
    or ``base`` for ``base.something``); "" when none is."""
    names = {module_name(p) for p in module_files(PACKAGE)}
    for end in range(len(parts), 0, -1):
        if ".".join(parts[:end]) in names:
            return ".".join(parts[:end])
    return ""


def test_no_module_of_bpe_core_is_part_of_an_import_circle():
    graph = {module_name(p): imports_of(p) for p in module_files(PACKAGE)
             if module_name(p) != ""}
    assert graph["base"] and graph["files"]  # the walk sees imports
    assert "formats" in graph["files"]

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
    for path in module_files(PACKAGE):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (isinstance(node, ast.Attribute) and node.attr.startswith("_")
                    and not node.attr.startswith("__")
                    and not (isinstance(node.value, ast.Name) and node.value.id in ("self", "cls"))):
                calls.append(f"{path.relative_to(PACKAGE)}:{node.lineno} .{node.attr}")
    assert calls == []


def test_each_name_is_defined_once_across_ui_and_bpe_core():
    """A name means one thing: no two modules of ui/ and bpe_core/ define the same top-level
    name (``token_text``, ``TraceStep``, ``Decoded``... each had two or three meanings once)."""
    where: dict[str, list[str]] = {}
    for folder in (PACKAGE, LAB / "check", LAB / "who_pays", PACKAGE.parent / "ui"):
        for path in module_files(folder):
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
                    if name.startswith("__") and name.endswith("__"):
                        continue  # __all__, __version__: each package's own, by Python's rules
                    where.setdefault(name, []).append(str(path.relative_to(PACKAGE.parent)))
    twice = {name: places for name, places in where.items() if len(places) > 1}
    assert twice == {}
