"""The examples in the docstrings of ``bpe_core`` and ``ui`` run as tests (doctest): an example a
reader copies from the code must still be true."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import bpe_core
import ui

MODULES = sorted(
    info.name
    for package in (bpe_core, ui)
    for info in pkgutil.walk_packages(package.__path__, package.__name__ + ".")
) + ["bpe_core", "ui"]


@pytest.mark.parametrize("name", MODULES)
def test_the_examples_in_the_docstrings_hold(name):
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS, report=True, verbose=False)
    assert result.failed == 0, f"{result.failed} of {result.attempted} examples in {name} failed"


def test_the_library_has_examples_to_run():
    # counted, not run again: the test above runs each module's (running them all here once
    # took 300 s in one CI worker, where the per-module runs took seconds; cause not found)
    finder = doctest.DocTestFinder()
    examples = sum(len(test.examples) for n in MODULES if n.startswith("bpe_core")
                   for test in finder.find(importlib.import_module(n)))
    assert examples >= 20
