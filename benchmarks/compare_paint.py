"""Compare's first visit painted in Chromium, on a fresh server: ``python
benchmarks/compare_paint.py [--rounds 3] [--wait 8]``.

Each round starts ``streamlit run app.py`` (which starts the warm-up, ui/kit/warm.py), waits until it
is healthy and then ``--wait`` seconds more (a server that has been up a few seconds), opens
``/compare`` in headless Chromium (Debian's ``/usr/bin/chromium``) and times from ``goto`` until
the summary table and the views are drawn and the script is idle. Medians, with the load average.

``--floor``: before each round, the same on a trivial Streamlit script (a title and a line, written
to a temporary folder, run with this project's ``.streamlit/config.toml``): what Streamlit's own
start costs in this browser, the part no page can save.
"""

from __future__ import annotations

import argparse
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


TRIVIAL = """import streamlit as st
st.set_page_config(page_title="floor", layout="wide")
st.title("Floor")
st.write("A title and a line.")
"""


def one_round(browser, wait: float, floor_dir: str | None = None) -> float:
    """One fresh server and one first visit; ``floor_dir``: the trivial script's folder instead
    of the app (then the visit is timed until its title is drawn and the script is idle)."""
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", "app.py", "--server.port", str(port),
         "--server.headless", "true", "--server.address", "127.0.0.1",
         "--server.fileWatcherType", "none"],
        cwd=floor_dir or ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        start_new_session=True)
    url = f"http://127.0.0.1:{port}"
    try:
        for _ in range(300):
            try:
                if urllib.request.urlopen(f"{url}/_stcore/health", timeout=1).read() == b"ok":
                    break
            except OSError:
                time.sleep(0.2)
        time.sleep(wait)
        page = browser.new_page(viewport={"width": 1440, "height": 900})
        start = time.perf_counter()
        page.goto(f"{url}/" if floor_dir else f"{url}/compare", wait_until="domcontentloaded")
        for selector in ["h1"] if floor_dir else ["[data-testid=stHtml] table", ".bpe-compare"]:
            page.locator(selector).first.wait_for(state="visible", timeout=120_000)
        page.locator("[data-testid=stApp][data-test-script-state=notRunning]").wait_for(
            state="attached", timeout=120_000)
        took = time.perf_counter() - start
        page.close()
        return took
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=20)


def main(argv: list[str] | None = None) -> int:
    from playwright.sync_api import sync_playwright

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--wait", type=float, default=8.0)
    parser.add_argument("--floor", action="store_true",
                        help="also time a trivial Streamlit page the same way, round by round")
    args = parser.parse_args(argv)
    times, floors = [], []
    with sync_playwright() as p, tempfile.TemporaryDirectory() as floor_dir:
        if args.floor:
            Path(floor_dir, "app.py").write_text(TRIVIAL)
            Path(floor_dir, ".streamlit").mkdir()
            Path(floor_dir, ".streamlit", "config.toml").write_bytes(
                (ROOT / ".streamlit" / "config.toml").read_bytes())
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=ARGS)
        for _ in range(args.rounds):
            if args.floor:
                floors.append(one_round(browser, args.wait, floor_dir))
            times.append(one_round(browser, args.wait))
        browser.close()
    load = " ".join(open("/proc/loadavg").read().split()[:3])
    print(f"Compare's first visit painted in Chromium, {args.rounds} fresh servers (each up"
          f" {args.wait:g} s first), load average {load}: median {statistics.median(times):.2f} s"
          f" (all: {', '.join(f'{t:.2f}' for t in times)})")
    if floors:
        print(f"A trivial Streamlit page the same way (the floor): median"
              f" {statistics.median(floors):.2f} s (all: {', '.join(f'{t:.2f}' for t in floors)})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
