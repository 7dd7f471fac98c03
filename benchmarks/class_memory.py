"""A class on one server: the server's memory with N sessions, each trained on the sample and
having visited every page.

Starts one ``streamlit run app.py`` (benchmarks/classroom.py's ``server``) and opens ``--sessions``
sessions in Debian's Chromium, one browser context each (a Streamlit session each), five at a
time: each opens the app (its first page trains the sidebar's default tokenizer on the English
sample), then visits every page of ``ui.kit.navigation.SECTIONS`` by the sidebar's links, waiting
for each to finish drawing. Tabs stay open, so every session stays alive, as in a class. After
each five, it prints the resident memory (RSS, from /proc) of the server and of its children
(the pool processes it may start), their sum, and the load average.

    python benchmarks/class_memory.py --sessions 30

Needs /usr/bin/chromium and the dev requirements (playwright). The server's memory does not
depend on the machine's load; the minutes do.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(Path(__file__).parent)]

from classroom import CHROMIUM, CHROMIUM_ARGS, IDLE, server  # noqa: E402

from ui.kit.navigation import DEFAULT_PAGE, SECTIONS  # noqa: E402

MB = 1024 * 1024
MERGES = "Merges ("  # the first page's heading once the sidebar's tokenizer is trained


def rss(pid: int) -> int:
    """Resident bytes of one process (VmRSS), 0 when it is gone."""
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


def descendants(pid: int) -> list[int]:
    """Every process under ``pid`` (children, their children...), from /proc's parent ids."""
    parents: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    ppid = int(f.read().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            parents.setdefault(ppid, []).append(int(entry))
    found, todo = [], [pid]
    while todo:
        for child in parents.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


def load() -> str:
    return " ".join(open("/proc/loadavg").read().split()[:3])


def session(browser, url: str) -> tuple[object, float]:
    """One student: opens the app (trained on the sample), then visits every page; seconds."""
    start = time.monotonic()
    page = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
    page.set_default_timeout(300_000)
    page.goto(url, wait_until="domcontentloaded")
    page.get_by_role("heading", name=MERGES).first.wait_for()
    page.locator(IDLE).wait_for(state="attached")
    for entries in SECTIONS.values():
        for entry in entries:
            if entry.path == DEFAULT_PAGE:
                continue  # the page it opened on
            nav = page.locator(".st-key-nav")
            nav.get_by_role("link", name=entry.title, exact=True).click()
            nav.locator(f"[aria-current=page]:has-text('{entry.title}')").wait_for()
            page.wait_for_timeout(300)  # the page's rerun starts
            page.locator(IDLE).wait_for(state="attached")
    return page, time.monotonic() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sessions", type=int, default=30)
    parser.add_argument("--every", type=int, default=5)
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    pages = sum(len(e) for e in SECTIONS.values())
    print(f"{args.sessions} sessions, each trained on the sample and visiting {pages} pages;"
          f" load average {load()} at start", flush=True)
    with server({}) as (url, pid), sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        time.sleep(5)  # the server's warm-up (presets read, pages imported)
        kids = descendants(pid)
        print(f"sessions   0: server {rss(pid) / MB:6.0f} MB, children"
              f" {sum(rss(k) for k in kids) / MB:5.0f} MB ({len(kids)}); load {load()}", flush=True)
        tabs, took = [], []
        for i in range(1, args.sessions + 1):
            page, seconds = session(browser, url)
            tabs.append(page)
            took.append(seconds)
            if i % args.every == 0 or i == args.sessions:
                kids = descendants(pid)
                server_b, kids_b = rss(pid), sum(rss(k) for k in kids)
                print(f"sessions {i:3d}: server {server_b / MB:6.0f} MB, children"
                      f" {kids_b / MB:5.0f} MB ({len(kids)}), together"
                      f" {(server_b + kids_b) / MB:6.0f} MB; last session {seconds:.0f} s;"
                      f" load {load()}", flush=True)
        browser.close()


if __name__ == "__main__":
    main()
