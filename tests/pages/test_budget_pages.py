"""The issue's (43) hostile inputs through the pages a student uses, in a real session (AppTest):
a custom split pattern that backtracks, on the Check page and in parity-aware BPE on the
Superwords page, is stopped at the app's budget with a message naming it; no traceback, no
thread left running."""

from __future__ import annotations

import threading
import time

from support import open_page

from bpe_core.limits import untrusted_budget

BACKTRACKS = r"(a|aa)+$|\S|\s"  # /check?kind=custom&pattern=(a%7Caa)%2B%24%7C%5CS%7C%5Cs
X = r"[^\p{Latin}\s]"
PARITY_PATTERN = r"\p{Latin}+|\s+|(X|XX|XXX)+$|.".replace("X", X)


def running() -> list[str]:
    """The threads alive, leaving out the background starts of spare workers (a worker killed
    at its budget is replaced ahead of the next call; such a start ends on its own)."""
    return [t.name for t in threading.enumerate() if t.name != "bpe_core worker start"]


def errors(app) -> list[str]:
    return [e.value for e in app.error]


def test_the_check_page_stops_a_custom_pattern_at_the_apps_budget():
    app = open_page("pages/check.py", query={"kind": "custom", "pattern": BACKTRACKS})
    assert untrusted_budget() is not None and untrusted_budget().seconds == 2  # app.py set it
    threads = running()
    app.radio(key="check_source").set_value("A text of my own").run()
    app.text_area(key="check_text").set_value(("a" * 30 + "!\n") * 40).run()
    app.selectbox(key="check_pattern").set_value("custom: the sidebar's pattern").run()
    start = time.monotonic()
    app.text_area(key="check_paste").set_value("merges = [(b'a', b'a')]").run()
    assert not app.exception
    assert any("took longer than 2 s" in e and "simplify the pattern" in e for e in errors(app))
    assert time.monotonic() - start < 60  # a bound on the run, far from the 263 s it took
    assert len(running()) <= len(threads), running()  # no thread left running the pattern


def test_parity_aware_bpe_stops_the_sidebars_pattern_at_the_apps_budget():
    app = open_page("pages/beyond.py", query={"kind": "custom", "pattern": PARITY_PATTERN})
    app.radio(key="beyond_variant").set_value("Parity-aware BPE: fair merges").run()
    if not app.error:  # the page waits for Train
        app.button(key="beyond_train").click().run()
    assert not app.exception
    assert any("took longer than 2 s" in e for e in errors(app)), errors(app)
