"""The server's warm-up: the presets read and checked, the pages' modules imported."""

import sys

import bpe_core.pretrained as pretrained
from ui.kit.warm import WARM_MODULES, warm_up


def test_warm_up_loads_the_presets_and_imports_the_pages_modules(monkeypatch):
    monkeypatch.setattr(pretrained, "_LOADED", {})  # as in a server that has just started
    warm_up().join(timeout=300)
    assert sorted(name for name, _ in pretrained._LOADED) == sorted(pretrained.PRESETS)
    assert all(module in sys.modules for module in WARM_MODULES)
