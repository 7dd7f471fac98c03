"""Shared fixtures for the bpe_core test suite.

Corpora come from what every Python ships with, so the suite needs no downloads:
prose from the language reference topics (pydoc_data) and code from a few stdlib modules.
They are sliced so that the naive reference (tests/naive.py) trains in about a second.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))  # tests/naive.py and tests/support.py

import netguard  # noqa: E402
from support import CORPORA  # noqa: E402


def pytest_configure(config):
    # Nothing in the suite may reach beyond this machine: every contact is refused and printed.
    netguard.install()
    # With filterwarnings = error, Hypothesis' failure report (it imports a formatter that uses
    # mypy_extensions.TypedDict) would turn a failing property test into an INTERNALERROR.
    config.addinivalue_line(
        "filterwarnings", "ignore:mypy_extensions.TypedDict is deprecated:DeprecationWarning"
    )


@pytest.fixture(autouse=True)
def no_untrusted_budget():
    """Each test starts as a library user does, with no budget policy (bpe_core.limits): the app
    (app.py, run by AppTest) and the command line install theirs, and a policy is the process's,
    so one test's would otherwise hold for the next."""
    from bpe_core.limits import clear_untrusted_budget

    clear_untrusted_budget()
    yield
    clear_untrusted_budget()


@pytest.fixture(scope="session")
def prose_text() -> str:
    """About 24 KB of English prose with a few typographic quotes and dashes."""
    return CORPORA["prose"]


@pytest.fixture(scope="session")
def code_text() -> str:
    """About 24 KB of Python source (textwrap, json.decoder)."""
    return CORPORA["code"]
