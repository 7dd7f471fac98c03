"""What following a teacher costs the server: CPU per student per minute, and the follow latency.

Starts ``streamlit run app.py`` on a free loopback port (in-process rooms, or ``--redis URL``),
opens one teacher and ``--students`` students in Debian's Chromium (one browser context each: one
Streamlit session each), the teacher opens a room, the students join by its link, and everyone
goes to "Step through merges". Then, reading the server's CPU time from /proc (user + system, the
server process and its children):

1. idle: nobody moves for ``--idle`` seconds: what the students' polls alone cost;
2. stepping: the teacher presses → once per second for ``--seconds`` seconds; every student's
   in-browser view must show the teacher's step before the next press (the follow latency is the
   time from the press until the last student shows it, read from Python every 10 ms).

It prints the CPU seconds per student per minute of each phase (the teacher's own share taken
out: a first stepping phase with no student measures it), and the latency's median and p95.

    python benchmarks/classroom.py --students 8 --markdown

Needs /usr/bin/chromium (apt-get install chromium) and the dev requirements (playwright).
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
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = os.environ.get("BPE_LAB_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
IDLE = "[data-testid=stApp][data-test-script-state=notRunning]"
STEPS = "[data-testid=bpe-steps]"
TICKS = os.sysconf("SC_CLK_TCK")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def cpu_seconds(pid: int) -> float:
    """User + system CPU of a process and of its children that have been waited for."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    utime, stime, cutime, cstime = (int(x) for x in fields[11:15])
    return (utime + stime + cutime + cstime) / TICKS


@contextmanager
def server(env: dict[str, str]):
    port = free_port()
    log = tempfile.TemporaryFile()
    proc = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", "app.py", "--server.port", str(port),
         "--server.headless", "true", "--server.address", "127.0.0.1",
         "--server.fileWatcherType", "none", "--browser.gatherUsageStats", "false"],
        cwd=ROOT, stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
        env={**os.environ, **env})  # fmt: skip
    url = f"http://127.0.0.1:{port}"
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                with opener.open(url + "/_stcore/health", timeout=2) as r:
                    if r.read().strip() == b"ok":
                        break
            except OSError:
                pass
            if time.monotonic() > deadline or proc.poll() is not None:
                log.seek(0)
                raise SystemExit("the server did not start:\n" + log.read().decode()[-3000:])
            time.sleep(0.2)
        yield url, proc.pid
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=10)


def open_page(browser, url: str):
    page = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
    page.set_default_timeout(120_000)
    page.goto(url, wait_until="domcontentloaded")
    page.get_by_test_id("stMetric").first.wait_for()
    page.locator(IDLE).wait_for(state="attached")
    return page


def go(page, title: str) -> None:
    page.get_by_test_id("stSidebarNavLink").filter(has_text=title).click()
    page.locator(f"[data-testid=stSidebarNavLink][aria-current=page]:has-text('{title}')").wait_for()


def step_of(page) -> str | None:
    return page.locator(STEPS).get_attribute("data-step")


def step_phase(teacher, students, seconds: int, pid: int) -> tuple[float, list[float]]:
    """The teacher presses → once a second; returns (server CPU seconds, latencies)."""
    slider = teacher.get_by_role("slider", name="Merges applied (k)")
    latencies = []
    cpu0 = cpu_seconds(pid)
    start = time.monotonic()
    for i in range(seconds):
        tick = start + i
        time.sleep(max(0.0, tick - time.monotonic()))
        pressed = time.monotonic()
        slider.press("ArrowRight")
        want = step_of(teacher)
        waiting = list(students)
        while waiting and time.monotonic() - pressed < 30:
            waiting = [s for s in waiting if step_of(s) != want]
            if waiting:
                time.sleep(0.01)
        if waiting:
            raise SystemExit(f"{len(waiting)} students did not follow to step {want} in 30 s")
        if students:
            latencies.append(time.monotonic() - pressed)
    time.sleep(max(0.0, start + seconds - time.monotonic()))
    return cpu_seconds(pid) - cpu0, latencies


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--students", type=int, default=8)
    parser.add_argument("--seconds", type=int, default=60, help="stepping phase, one step a second")
    parser.add_argument("--idle", type=int, default=30, help="idle phase, seconds")
    parser.add_argument("--redis", default="", help="a redis:// URL: rooms in Redis")
    parser.add_argument("--markdown", action="store_true")
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    env = {"BPE_LAB_ROOMS": args.redis} if args.redis else {}
    with server(env) as (url, pid), sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        teacher = open_page(browser, url)
        go(teacher, "Classroom")
        teacher.get_by_role("button", name="Open a room").click()
        code = teacher.locator(".room-code").inner_text().replace("-", "")
        go(teacher, "Step through merges")
        teacher.locator(STEPS).wait_for()
        teacher.locator(IDLE).wait_for(state="attached")
        alone_cpu, _ = step_phase(teacher, [], max(10, args.seconds // 3), pid)
        alone_per_min = alone_cpu / max(10, args.seconds // 3) * 60

        students = []
        for _ in range(args.students):
            page = open_page(browser, f"{url}/?room={code}")
            go(page, "Step through merges")
            page.locator(STEPS).wait_for()
            students.append(page)
        want = step_of(teacher)
        deadline = time.monotonic() + 60
        while any(step_of(s) != want for s in students) and time.monotonic() < deadline:
            time.sleep(0.1)
        time.sleep(2)

        cpu0 = cpu_seconds(pid)
        time.sleep(args.idle)
        idle_cpu = cpu_seconds(pid) - cpu0
        stepping_cpu, latencies = step_phase(teacher, students, args.seconds, pid)
        browser.close()

    n = args.students
    idle_per = idle_cpu / args.idle * 60 / n
    stepping_per = (stepping_cpu / args.seconds * 60 - alone_per_min) / n
    lat = sorted(latencies)
    p95 = lat[min(len(lat) - 1, round(0.95 * (len(lat) - 1)))]
    store = "Redis" if args.redis else "in-process"
    rows = [
        ("students following", f"{n}"),
        ("rooms", store),
        ("server CPU per student per minute, idle (polls only)", f"{idle_per:.2f} s"),
        ("server CPU per student per minute, teacher steps once a second",
         f"{stepping_per:.2f} s"),
        ("the teacher alone, stepping once a second", f"{alone_per_min:.2f} s per minute"),
        ("follow latency, key press to the last student's view: median / p95",
         f"{statistics.median(lat):.2f} s / {p95:.2f} s"),
    ]
    if args.markdown:
        print("| measure | value |\n|---|---|")
        for name, value in rows:
            print(f"| {name} | {value} |")
    else:
        for name, value in rows:
            print(f"{name}: {value}")


if __name__ == "__main__":
    main()
