"""Every relative link in README.md and docs/*.md leads somewhere: the file exists, and a
``#heading`` after it names a heading of that file (as GitHub spells its anchors). A reader who
follows the README into docs/ never lands on a missing page. And every file of the project and
every ``bpe_core``/``bpe_lab``/``ui`` name the documents quote exists, so that a move of the code
that forgets the documents fails here (the changelog names old places on purpose)."""

from __future__ import annotations

import importlib
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCUMENTS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]

FENCE = re.compile(r"^```.*?^```", re.DOTALL | re.MULTILINE)
CODE_SPAN = re.compile(r"`[^`\n]*`")
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")


def anchor(heading: str) -> str:
    """GitHub's anchor of a Markdown heading: lower case, code marks and punctuation dropped
    (hyphens and underscores kept), spaces to hyphens."""
    text = heading.strip().lower().replace("`", "")
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def anchors(path: Path) -> set[str]:
    text = FENCE.sub("", path.read_text(encoding="utf-8"))
    seen: dict[str, int] = {}
    out = set()
    for line in text.splitlines():
        if m := re.match(r"#{1,6} (.+)", line):
            a = anchor(m[1])
            n = seen.get(a, 0)
            seen[a] = n + 1
            out.add(a if n == 0 else f"{a}-{n}")
    return out


def links(path: Path) -> list[str]:
    """The link targets of a Markdown file, outside code blocks and code spans."""
    text = CODE_SPAN.sub("", FENCE.sub("", path.read_text(encoding="utf-8")))
    return LINK.findall(text)


def broken(path: Path) -> list[str]:
    """The relative links of ``path`` that lead to no file, or to no heading of it."""
    out = []
    for target in links(path):
        if re.match(r"[a-z][a-z0-9+.-]*:", target):  # http:, https:, mailto:
            continue
        file, _, fragment = target.partition("#")
        dest = (path.parent / file).resolve() if file else path
        if not dest.is_file():
            shown = dest.relative_to(ROOT) if dest.is_relative_to(ROOT) else dest
            out.append(f"{target}: no file {shown}")
        elif fragment and dest.suffix == ".md" and fragment not in anchors(dest):
            out.append(f"{target}: no heading #{fragment} in {dest.name}")
    return out


@pytest.mark.parametrize("path", DOCUMENTS, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_leads_to_a_file_and_heading(path):
    assert broken(path) == []


def test_the_readme_links_every_document_in_docs():
    readme = {(ROOT / t.partition("#")[0]).resolve() for t in links(ROOT / "README.md")}
    assert [p.name for p in DOCUMENTS[1:] if p.resolve() not in readme] == []


def test_a_broken_link_is_found(tmp_path):
    (tmp_path / "A.md").write_text("# Top\n\n## The part (`x.y`)\n", encoding="utf-8")
    doc = tmp_path / "B.md"
    doc.write_text(
        "[ok](A.md) [ok](A.md#the-part-xy) [self](#here) [web](https://example.org/x)\n"
        "[gone](C.md) [no heading](A.md#elsewhere) `[in code](D.md)`\n\n# Here\n\n"
        "```\n[in a block](E.md)\n```\n",
        encoding="utf-8",
    )
    found = broken(doc)
    assert len(found) == 2
    assert found[0].startswith("C.md: no file")
    assert found[1] == "A.md#elsewhere: no heading #elsewhere in A.md"


# A project file in a code span: `ui/kit/warm.py`, `bpe_lab/who_pays/data/health.json.gz`, `tests/ui/`
PROJECT_PATH = re.compile(r"`((?:app|ui|pages|bpe_core|bpe_lab|tests|benchmarks|assets|docs|\.ci)"
                          r"(?:/[\w.-]+)*/?(?:\.py)?)`")
# A dotted name of the project's packages: `bpe_lab.check.read_merges`, `ui.compare.cuts.FIRST_VIEW_BYTES`
DOTTED_NAME = re.compile(r"`((?:ui|bpe_core|bpe_lab)(?:\.\w+)+)`")


def resolves(dotted: str) -> bool:
    """Whether ``dotted`` is a module of the project, or a name inside one."""
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for attr in parts[cut:]:
            try:
                obj = getattr(obj, attr)
            except (AttributeError, ImportError):  # bpe_core's moved names raise ImportError
                return False
        return True
    return False


def missing_names(path: Path) -> list[str]:
    text = path.read_text(encoding="utf-8")
    files = [p for p in PROJECT_PATH.findall(text) if not (ROOT / p).exists()]
    names = [n for n in DOTTED_NAME.findall(text) if not resolves(n)]
    return files + names


@pytest.mark.parametrize("path", [p for p in DOCUMENTS if p.name != "CHANGELOG.md"],
                         ids=lambda p: str(p.relative_to(ROOT)))
def test_every_project_file_and_module_name_quoted_exists(path):
    assert missing_names(path) == []


def test_a_stale_name_is_found(tmp_path):
    doc = tmp_path / "C.md"
    doc.write_text("`bpe_core/merges.py` `ui/kit/` `bpe_lab.check.read_merges` `bpe_core.base`\n"
                   "`ui/front.py` `bpe_core.check` `bpe_core.no_such_name` `tiktoken/model.py`\n",
                   encoding="utf-8")
    assert missing_names(doc) == ["ui/front.py", "bpe_core.check", "bpe_core.no_such_name"]
