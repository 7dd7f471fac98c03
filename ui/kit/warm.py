"""What the server does while it waits for its first visitor: read and check the GPT presets
(``bpe_core.pretrained.preload``) and import the modules the pages need (pandas and altair take
longer to import than anything a page then does), and start the idle workers of untrusted work
(``bpe_core.limits.prestart_workers``). Measured in ``benchmarks/first_visits.py``."""

from __future__ import annotations

import importlib
import threading

from bpe_core.limits import prestart_workers
from bpe_core.pretrained import preload

WARM_MODULES = ("pandas", "altair", "ui.kit.state", "ui.sidebar.panel", "ui.compare.cuts",
                "ui.kit.charts", "ui.kit.tables", "ui.kit.tokens_html", "ui.chat.panel")


def warm_up() -> threading.Thread:
    """Start the warm-up in a background thread; a visitor who comes sooner waits only for what
    is still loading (imports and preset loads happen once either way)."""
    def run() -> None:
        prestart_workers()  # untrusted work's first calls find a worker ready (bpe_core.limits)
        presets = preload()
        for module in WARM_MODULES:
            importlib.import_module(module)
        presets.join()

    thread = threading.Thread(target=run, name="bpe-lab warm-up", daemon=True)
    thread.start()
    return thread
