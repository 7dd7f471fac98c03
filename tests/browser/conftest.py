"""Fixtures for the browser tests: a real Streamlit server and Debian's Chromium via Playwright.

The server runs ``streamlit run app.py`` from the repo root on a free loopback port, in its own
process group, for the whole session. Every test gets a fresh browser context (a new Streamlit
session) with a tall viewport: Streamlit scrolls an inner container, so a screenshot or a
visibility check sees only what fits in the viewport.

Without /usr/bin/chromium or the playwright package the tests are skipped, except when the
environment variable CI is true: then they fail, so that CI never passes without running them.
"""

from __future__ import annotations

import contextlib
import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

import pytest
from netguard import MARK
from support import in_ci, metric_value

try:
    from playwright.sync_api import expect, sync_playwright
except ImportError:  # pragma: no cover - depends on the machine
    expect = sync_playwright = None

ROOT = Path(__file__).resolve().parents[2]
# Debian's Chromium (apt-get install chromium); BPE_LAB_CHROMIUM points elsewhere.
CHROMIUM = os.environ.get("BPE_LAB_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
VIEWPORT = {"width": 1400, "height": 2200}
SERVER_START_TIMEOUT = 30.0  # seconds until /_stcore/health must answer "ok"
DEFAULT_TIMEOUT_MS = 20_000  # every Playwright wait, unless a test says otherwise
IDLE = "[data-testid=stApp][data-test-script-state=notRunning]"


# The sidebar's navigation (ui/kit/navigation.py): a link to every page but the one on screen,
# which is its title marked aria-current="page". These locators work with Playwright's sync and
# async APIs alike.
NAV = ".st-key-nav"
NAV_LINKS = f"{NAV} [data-testid=stPageLink-NavLink]"
NAV_HERE = f"{NAV} [aria-current=page]"


def nav_link(page, title: str):
    """The sidebar's link to the page titled ``title``."""
    return page.locator(NAV_LINKS).filter(has=page.get_by_text(title, exact=True))


def nav_here(page, title: str | None = None):
    """The sidebar's mark of the page on screen; with ``title``, only if it is that page."""
    here = page.locator(NAV_HERE)
    return here if title is None else here.filter(has=page.get_by_text(title, exact=True))


# Every entry of the navigation drawn: Streamlit loads its page links' code on first use, so a
# moment after the first page is idle its links may not be there yet (a locator waits for one
# link; a list of them does not).
NAV_DRAWN_JS = f"""() => {{
  const nav = document.querySelector('{NAV}');
  return !!nav && nav.children.length > 0 && [...nav.children].every(
    box => box.querySelector('h2, [aria-current=page], [data-testid=stPageLink-NavLink]'));
}}"""


def nav_titles(page) -> list[str]:
    """Every page's title as the sidebar lists it, in its order (sync API)."""
    page.wait_for_function(NAV_DRAWN_JS)
    entries = page.locator(f"{NAV_LINKS}, {NAV_HERE}")
    return [t.strip().splitlines()[-1] for t in entries.all_inner_texts()]  # after the icon


def missing_browser() -> str | None:
    """Why the browser tests cannot run here, or None."""
    if sync_playwright is None:
        return "the playwright package is not installed (pip install -r requirements-dev.txt)"
    if not os.access(CHROMIUM, os.X_OK):
        return f"{CHROMIUM} is missing (apt-get install -y chromium)"
    return None


def pytest_collection_modifyitems(config, items):
    here = Path(__file__).parent
    browser_items = [i for i in items if here in i.path.parents]
    for item in browser_items:
        item.add_marker(pytest.mark.browser)
    reason = missing_browser()
    if reason is None or in_ci():
        return  # in CI a missing browser fails in the fixtures, loudly
    for item in browser_items:
        item.add_marker(pytest.mark.skip(reason=f"browser tests skipped: {reason}"))


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _health(url: str) -> str | None:
    # No proxy: the request must go straight to the loopback address.
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    try:
        with opener.open(url, timeout=2) as r:
            return r.read().decode("utf-8", "replace").strip()
    except OSError:
        return None


class ServedApp(NamedTuple):
    url: str
    port: int
    output: Callable[[], str]  # what the server has printed so far (its last 20,000 characters)
    pid: int  # the server's process (tests/netguard.py runs streamlit in it), for /proc/<pid>


@contextlib.contextmanager
def serve_app(as_readme: bool = False, env: dict[str, str] | None = None):
    """Run ``streamlit run app.py`` on a free port; yield a ``ServedApp`` once healthy.

    The server runs under tests/netguard.py, which refuses (and prints) any contact beyond this
    machine: a server that tried one fails the test that started it. By default it listens on
    loopback only; ``as_readme`` starts it exactly as the README says, with nothing but
    ``.streamlit/config.toml`` and the port, so on every interface as a classroom needs.
    ``env`` adds to (or overrides) the environment the server inherits from the tests, e.g.
    ``{"BPE_LAB_ROOMS": "redis://..."}``.
    """
    with serve_apps(1, as_readme, env) as (served,):
        yield served


@contextlib.contextmanager
def serve_apps(count: int, as_readme: bool = False, env: dict[str, str] | None = None):
    """``count`` servers as ``serve_app`` runs one (the same ``env`` for each), started at once:
    a tuple of ``ServedApp``, once every one is healthy. Their starts overlap, so two take
    about as long as one where two cores are free."""
    with contextlib.ExitStack() as stack:
        starting = [stack.enter_context(_started(as_readme, env)) for _ in range(count)]
        deadline = time.monotonic() + SERVER_START_TIMEOUT
        for proc, served in starting:
            while _health(f"{served.url}/_stcore/health") != "ok":
                if proc.poll() is not None:
                    pytest.fail(f"streamlit exited with {proc.returncode}:\n{served.output()}",
                                pytrace=False)
                if time.monotonic() > deadline:
                    pytest.fail(f"streamlit not healthy after {SERVER_START_TIMEOUT:.0f} s:\n"
                                f"{served.output()}", pytrace=False)
                time.sleep(0.2)
        yield tuple(served for _, served in starting)
        for _, served in starting:
            if MARK in served.output():
                pytest.fail(f"the app's server tried to reach beyond this machine:\n"
                            f"{served.output()}", pytrace=False)


@contextlib.contextmanager
def _started(as_readme: bool, env: dict[str, str] | None):
    """One ``streamlit run app.py`` process, started (not yet healthy): (Popen, ServedApp).
    Its process group is killed on leaving."""
    port = _free_port()
    log = tempfile.TemporaryFile(mode="w+b")
    cmd = [sys.executable, str(ROOT / "tests" / "netguard.py"), "streamlit", "run", "app.py",
           "--server.port", str(port)]  # fmt: skip
    if not as_readme:
        cmd += [
            "--server.headless", "true",
            "--server.address", "127.0.0.1",
            "--server.fileWatcherType", "none",
            "--browser.gatherUsageStats", "false",
        ]  # fmt: skip
    proc = subprocess.Popen(
        cmd, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
        env=None if env is None else {**os.environ, **env},
        start_new_session=True,  # its own process group, killed as a whole below
    )  # fmt: skip

    def output() -> str:
        log.seek(0)
        return log.read().decode("utf-8", "replace")[-20_000:]

    try:
        yield proc, ServedApp(f"http://127.0.0.1:{port}", port, output, proc.pid)
    finally:
        try:
            os.killpg(proc.pid, signal.SIGTERM)
            proc.wait(timeout=10)
        except ProcessLookupError:
            pass
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=10)
        log.close()


@pytest.fixture(scope="session")
def served_app():
    """A Streamlit server running app.py (a ``ServedApp``), shared by the whole test session."""
    with serve_app() as served:
        yield served


@pytest.fixture(scope="session")
def app_url(served_app):
    """The URL of the session's shared server (``served_app``)."""
    return served_app.url


@pytest.fixture(scope="session")
def browser():
    reason = missing_browser()
    if reason is not None:
        if in_ci():
            pytest.fail(f"CI=true but the browser tests cannot run: {reason}", pytrace=False)
        pytest.skip(reason)
    expect.set_options(timeout=DEFAULT_TIMEOUT_MS)
    pw = sync_playwright().start()
    try:
        b = pw.chromium.launch(
            executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True, timeout=30_000
        )
        try:
            yield b
        finally:
            b.close()
    finally:
        pw.stop()


@pytest.fixture
def context(browser):
    """A fresh browser context per test: a new Streamlit session, downloads allowed."""
    ctx = browser.new_context(viewport=VIEWPORT, accept_downloads=True)
    ctx.set_default_timeout(DEFAULT_TIMEOUT_MS)
    yield ctx
    ctx.close()


class App:
    """One browser tab on one Streamlit session, with the moves a user makes."""

    def __init__(self, page, url: str):
        self.page = page
        self.url = url
        self.sidebar = page.get_by_test_id("stSidebar")
        self.main = page.get_by_test_id("stMain")

    def wait_idle(self, *expected, timeout: float = DEFAULT_TIMEOUT_MS) -> None:
        """Wait until every expected locator is visible and the app's script is not running.

        Streamlit marks the app ``data-test-script-state=running`` while a rerun is in flight.
        The expected content, which only the new run can show, keeps this from returning
        before the rerun has even started.
        """
        for loc in expected:
            loc.first.wait_for(state="visible", timeout=timeout)
        self.page.locator(IDLE).wait_for(state="attached", timeout=timeout)

    def metric(self, label: str):
        """The number shown under this label (an st.metric, or the front page box\'s)."""
        return metric_value(self.main, label)

    def go(self, title: str, *expected) -> None:
        """Open a page through its sidebar link (page.goto would start a new session).

        Pass content that only the target page shows as ``expected``: the sidebar marks the page
        current as the run starts (app.py draws the navigation), before the page's script has
        run. On a narrow screen the sidebar starts collapsed, as on a phone: it is opened for the
        click, and closed again (a link in the sidebar leaves it open). The page on screen has no
        link to itself: going there waits for its content.
        """
        self.page.wait_for_function(NAV_DRAWN_JS)  # the links come a moment after the page
        if nav_here(self.page, title).count():
            self.wait_idle(*expected)
            return
        expand = self.page.get_by_test_id("stExpandSidebarButton")
        narrow = expand.is_visible()
        if narrow:
            expand.click()
        nav_link(self.page, title).click()
        nav_here(self.page, title).wait_for(state="attached")
        if narrow and self.sidebar.get_attribute("data-collapsed") == "false":
            self.page.get_by_test_id("stSidebarCollapseButton").locator("button").click()
            self.page.wait_for_function("s => s.getBoundingClientRect().width < 1",
                                        arg=self.sidebar.element_handle())
        self.wait_idle(*expected)

    def set_text(self, text: str) -> None:
        """Replace the sidebar text and commit it with Ctrl+Enter."""
        box = self.sidebar.get_by_label("Text", exact=True)
        box.fill(text)
        box.press("Control+Enter")

    def train(self, *expected) -> None:
        self.sidebar.get_by_role("button", name="Train", exact=True).click()
        self.wait_idle(*expected)


def open_app(context, url: str) -> App:
    page = context.new_page()
    page.goto(url, wait_until="domcontentloaded")
    app = App(page, url)
    # the first page's merges heading: it is drawn once training is done
    app.wait_idle(app.main.get_by_role("heading", name=re.compile(r"^Merges \(\d[\d,]*\)$")))
    return app


@pytest.fixture
def app(context, app_url):
    """A fresh Streamlit session on the first page, idle and trained on the English sample."""
    return open_app(context, app_url)


@pytest.fixture
def first_app(context):
    """The first session of a server of its own (where a first click was once dropped)."""
    with serve_app() as served:
        yield open_app(context, served.url)


# -- for a test that starts Playwright itself (test_classroom.py: the async API, many sessions) --


@pytest.fixture(scope="session")
def playwright_kit():
    """What the fixtures above use, for a test that drives Playwright on its own.

    A dict: ``launch`` (keyword arguments for ``chromium.launch``), ``viewport``, ``idle`` (the
    selector of an app whose script is not running), ``serve_app`` (the context manager that
    runs a server) and ``serve_apps`` (several, started at once). Skips, or fails when CI is true, where the browser cannot run, like ``browser``.
    """
    reason = missing_browser()
    if reason is not None:
        if in_ci():
            pytest.fail(f"CI=true but the browser tests cannot run: {reason}", pytrace=False)
        pytest.skip(reason)
    launch = {"executable_path": CHROMIUM, "args": CHROMIUM_ARGS, "headless": True,
              "timeout": 30_000}  # fmt: skip
    return {"launch": launch, "viewport": VIEWPORT, "idle": IDLE, "serve_app": serve_app,
            "serve_apps": serve_apps}
