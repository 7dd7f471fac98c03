"""Thirty screens following a teacher: the follow delay on every screen, the steps skipped, and
the server's CPU per follower per step.

Starts a ``redis-server`` on loopback (tests/redis_server.py) and one ``streamlit run app.py``
with its rooms there (``BPE_LAB_ROOMS``), so that this process can make simulated members. Opens
the teacher and ``--real`` students in Debian's Chromium (one browser context each: a Streamlit
session each; the students join by the link and go to "Step through merges"), and adds
``--simulated`` followers: each a member of the room (``Rooms.join`` on the same Redis) and an
HTTP client that asks the route ``/_bpelab/rooms/<CODE>/version?member=...&since=V`` as the
browser's watcher does (held by the server until the room is past version V, and asked again at
most every 250 ms; ``--hold 0``: the server holds no poll, as before) and, as it does, counts a
jump of 2 to 5 steps as walked through, 0.1 s a step. (On a 2-core machine 30 browser tabs starve the
server; the simulated followers cost the server what a follower's polls cost, not its rerun.)

Phases, the server's CPU read from /proc (user + system, the server and its waited-for children):

1. the teacher alone presses → once a second for ``--alone`` seconds: the teacher's own cost;
2. everyone present, nobody moves, ``--idle`` seconds: what the polls alone cost;
3. the teacher presses → once a second for ``--seconds`` seconds.

The follow delay of a step on a screen is from the teacher's key press (time.time() here) to the
first moment that screen shows the step: a real student's in-browser view (a MutationObserver on
its ``data-step``, Date.now(): the same machine's clock), a simulated follower's first answer with
that step. A step is skipped on a screen that never shows it. CPU per follower per step is phase 3's
server CPU less the teacher's own (phase 1's rate), divided by followers and steps; the real
students' share is given apart (``--real-only`` seconds more with the simulated followers
stopped).

The teacher's key goes to the focused slider (``keyboard.press``; ``--press locator``: through
Playwright's locator, as before 2026-12-06, which counted a role query over the whole page in
every delay). ``--load N`` runs N processes that only spin for the whole run (``--load-nice``:
their niceness), so that a run can be had at a chosen load average on a quiet machine; the load
average is read every 5 s during the stepping and printed. ``--trace FILE`` splits the Chromium
students' delay into its parts (``breakdown``) and gives each page's main-thread time per step.

    python benchmarks/classroom.py --real 4 --simulated 26 --seconds 60 --markdown
    python benchmarks/classroom.py --real 5 --simulated 20 --seconds 60 --alone 10 --idle 10 \
        --real-only 0 --load 8 --trace /tmp/trace.json

Needs /usr/bin/chromium and /usr/bin/redis-server and the dev requirements (playwright).
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from redis_server import start_redis  # noqa: E402

from ui.classroom.rooms import RedisKV, Rooms  # noqa: E402

CHROMIUM = os.environ.get("BPE_LAB_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
IDLE = "[data-testid=stApp][data-test-script-state=notRunning]"
STEPS = "[data-testid=bpe-steps]"
TICKS = os.sysconf("SC_CLK_TCK")
POLL_S = 0.25  # the watcher's period (ui/classroom/panel.py POLL_MS)
WALK_S, WALK_MOST = 0.1, 5  # a jump of a few steps is walked through (WALK_MS, WALK_MOST)
# Every (Date.now() / 1000, step) the page's stepping view shows.
# Every room request the page makes (--trace): [kind, sent, answered (Date.now() ms), step]: the
# teacher's step POSTs (the step it sets) and a student's polls (the step answered).
TRACE_JS = """(() => {
  window.__rooms = [];
  const fetched = window.fetch.bind(window);
  window.fetch = async (url, init) => {
    const sent = Date.now(), at = String(url);
    const answer = await fetched(url, init);
    const got = Date.now();  // the answer's headers (its small body comes with them)
    if (at.includes("/_bpelab/rooms/")) {
      const post = init && init.method === "POST";
      if (post) window.__rooms.push(["step", sent, got, JSON.parse(init.body).step]);
      else answer.clone().json().then((j) => window.__rooms.push(["poll", sent, got, j.step]))
        .catch(() => {});
    }
    return answer;
  };
  window.__keys = [];  // when the page's document first hears each key
  window.addEventListener("keydown", () => window.__keys.push(Date.now() / 1000), true);
})()"""
RECORD_JS = """(view) => {
  window.__seen = [[Date.now() / 1000, Number(view.dataset.step)]];
  new MutationObserver(() => window.__seen.push([Date.now() / 1000, Number(view.dataset.step)]))
    .observe(view, {attributes: true, attributeFilter: ['data-step']});
}"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def cpu_seconds(pid: int) -> float:
    """User + system CPU of a process and of its children that have been waited for."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    utime, stime, cutime, cstime = (int(x) for x in fields[11:15])
    return (utime + stime + cutime + cstime) / TICKS


OPENER = urllib.request.build_opener(urllib.request.ProxyHandler({}))


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
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                with OPENER.open(url + "/_stcore/health", timeout=2) as r:
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


SENT: dict[int, int] = {}  # id(page) -> WebSocket messages its browser sent (runs it asked for)


def open_page(browser, url: str, trace: bool = False):
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    if trace:
        context.add_init_script(TRACE_JS)
    page = context.new_page()
    page.set_default_timeout(120_000)
    SENT[id(page)] = 0

    def count(_frame) -> None:
        SENT[id(page)] += 1

    page.on("websocket", lambda ws: ws.on("framesent", count))
    page.goto(url, wait_until="domcontentloaded")
    page.locator('[data-view="gpt-4o"]').wait_for()  # the front page's token views
    page.locator(IDLE).wait_for(state="attached")
    return page


def go(page, title: str) -> None:
    # the sidebar's navigation (ui/kit/navigation.py): a link to each page, the current one marked
    page.locator(".st-key-nav [data-testid=stPageLink-NavLink]").filter(has_text=title).click()
    page.locator(f".st-key-nav [aria-current=page]:has-text('{title}')").wait_for()


def step_of(page) -> int:
    return int(page.locator(STEPS).get_attribute("data-step"))


class Simulated(threading.Thread):
    """A follower that polls the route as the watcher does, recording (time, step) answers."""

    def __init__(self, url: str, code: str, sid: str):
        super().__init__(daemon=True)
        self.url = f"{url}/_bpelab/rooms/{code}/version?member={sid}"
        self.seen: list[tuple[float, int]] = []
        self.failed = 0
        self.running = threading.Event()
        self.running.set()
        self.done = False

    def run(self) -> None:
        version = None
        while not self.done:
            if not self.running.is_set():
                time.sleep(0.05)
                continue
            asked = time.monotonic()
            try:  # with the version it has, as the watcher does: held until the room changes
                url = self.url + ("" if version is None else f"&since={version}")
                with OPENER.open(url, timeout=10) as r:
                    pulse = json.loads(r.read())
                version = pulse["version"]
                now, step = time.time(), pulse["step"]
                last = self.seen[-1][1] if self.seen else step
                if 1 < step - last <= WALK_MOST:  # the watcher walks through them, as a view does
                    self.seen += [(now + WALK_S * i, last + i) for i in range(1, step - last)]
                    now += WALK_S * (step - last - 1)
                self.seen.append((now, step))
            except OSError:
                self.failed += 1
            time.sleep(max(0.0, asked + POLL_S - time.monotonic()))


def press_phase(teacher, pid: int, seconds: int, locator: bool = False
                ) -> tuple[float, list[tuple[int, float]]]:
    """The teacher presses → once a second; returns (server CPU seconds, [(step, press time)]).
    The key goes to the focused slider as a person's does (``keyboard.press``: one input event
    sent to the browser); ``locator``: through Playwright's locator, which first finds the slider
    by its role and name: from the press to the page hearing the key took 0.43 s (median) and
    1.6 s (p95) that way at a load average of 17 (``--trace``), all of it counted in the follow
    delay."""
    slider = teacher.get_by_role("slider", name="Merges applied (k)")
    slider.focus()
    presses = []
    step0 = step_of(teacher)
    cpu0 = cpu_seconds(pid)
    start = time.monotonic()
    for i in range(seconds):
        time.sleep(max(0.0, start + i - time.monotonic()))
        at = time.time()
        if locator:
            slider.press("ArrowRight")
        else:
            teacher.keyboard.press("ArrowRight")
        # the step this press makes (read from the page after the press, it was at times still
        # the one before on a busy machine, and that step's delay was then measured from here)
        presses.append((step0 + i + 1, at))
    time.sleep(max(0.0, start + seconds - time.monotonic()))
    return cpu_seconds(pid) - cpu0, presses


def delays(seen: list[tuple[float, int]], presses: list[tuple[int, float]]
           ) -> tuple[list[float], int]:
    """Each pressed step's delay on one screen (first time it showed that step or a later one,
    after the press), and how many pressed steps that screen never showed."""
    out, skipped = [], 0
    shown = {k for _, k in seen}
    for k, at in presses:
        if k not in shown:
            skipped += 1
        first = next((t for t, s in seen if t >= at - 0.05 and s >= k), None)
        if first is not None:
            out.append(max(0.0, first - at))
    return out, skipped


def breakdown(teacher_seen, teacher_rooms, teacher_keys, students, presses
              ) -> dict[str, list[float]]:
    """Where each (Chromium student, step)'s follow delay went (--trace): the teacher's browser
    from the key press to its page hearing the key (``heard``: the keydown), to its view showing
    the step (``key``) and to its POST of the step being
    sent (``send``), the POST's round trip (``post``: the server sets the room's step), from the
    POST's answer to the student's poll answering that step or a later one (``poll``: the held
    poll's wake-up), and from that answer to the student's view showing it (``draw``: the
    watcher's walk and the view's drawing). Times are the browsers' Date.now() (this machine's
    clock), and time.time() for the press."""
    out: dict[str, list[float]] = {k: [] for k in ("heard", "key", "send", "post", "poll",
                                                   "draw")}
    posts = [(sent / 1000, done / 1000, k) for kind, sent, done, k in teacher_rooms
             if kind == "step"]
    for k, at in presses:
        heard = next((t for t in teacher_keys if t >= at - 0.05), None)
        if heard is not None:
            out["heard"].append(heard - at)
        shown = next((t for t, s in teacher_seen if t >= at - 0.05 and s >= k), None)
        if shown is not None:
            out["key"].append(shown - at)
        post = next(((a, b) for a, b, s in posts if a >= at - 0.05 and s >= k), None)
        if post is None:
            continue
        out["send"].append(post[0] - at)
        out["post"].append(post[1] - post[0])
        for seen, rooms in students:
            answer = next((done / 1000 for kind, _, done, s in sorted(rooms, key=lambda r: r[2])
                           if kind == "poll" and s is not None and s >= k
                           and done / 1000 >= post[0]), None)
            if answer is None:
                continue
            out["poll"].append(answer - post[1])
            view = next((t for t, s in seen if t >= answer - 0.05 and s >= k), None)
            if view is not None:
                out["draw"].append(view - answer)
    return out


@contextmanager
def busy(n: int, nice: int):
    """``n`` processes that only spin, at niceness ``nice``, for the run: the machine held at a
    known load (each adds about 1 to the load average once it has run a minute)."""
    procs = [subprocess.Popen([sys.executable, "-c", "while True: pass"],
                              preexec_fn=lambda: os.nice(nice)) for _ in range(n)]
    try:
        yield
    finally:
        for proc in procs:
            proc.kill()
            proc.wait()


def main_thread(cdp) -> dict[str, float]:
    """A page's main-thread seconds so far: all its tasks, and their script, layout and style."""
    got = {m["name"]: m["value"] for m in cdp.send("Performance.getMetrics")["metrics"]}
    return {k: got.get(k, 0.0) for k in ("TaskDuration", "ScriptDuration", "LayoutDuration",
                                         "RecalcStyleDuration")}


class LoadSampler(threading.Thread):
    """The 1-minute load average, read every ``every`` seconds while it runs."""

    def __init__(self, every: float = 5.0):
        super().__init__(daemon=True)
        self.every, self.samples, self.done = every, [], threading.Event()

    def run(self) -> None:
        while True:
            self.samples.append(float(Path("/proc/loadavg").read_text().split()[0]))
            if self.done.wait(self.every):
                return


def pct(values: list[float], q: float) -> float:
    xs = sorted(values)
    return xs[min(len(xs) - 1, max(0, round(q * (len(xs) - 1))))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--real", type=int, default=4, help="students in Chromium")
    parser.add_argument("--simulated", type=int, default=26, help="followers that only poll")
    parser.add_argument("--seconds", type=int, default=60, help="stepping, one step a second")
    parser.add_argument("--alone", type=int, default=20, help="the teacher alone, seconds")
    parser.add_argument("--idle", type=int, default=20, help="nobody moves, seconds")
    parser.add_argument("--real-only", type=int, default=20,
                        help="stepping with the simulated followers stopped, seconds (0: skip)")
    parser.add_argument("--hold", type=float, default=2.0,
                        help="seconds the server holds a follower's poll (BPE_LAB_HOLD_S; 0: "
                             "every follower asks every 250 ms, as before holding)")
    parser.add_argument("--load", type=int, default=0,
                        help="processes that only spin, started before the server and stopped "
                             "at the end, to run at a known load (each adds about 1 to the load "
                             "average; the benchmark itself adds about 5)")
    parser.add_argument("--load-nice", type=int, default=0,
                        help="their niceness (0: they take the CPU as the machine's other work "
                             "does; 19: they add to the load average and yield the CPU)")
    parser.add_argument("--trace", metavar="FILE",
                        help="where the Chromium students' delay goes (see breakdown()); the "
                             "pages' records are written to FILE (JSON)")
    parser.add_argument("--press", choices=("key", "locator"), default="key",
                        help="how the teacher's key is sent: to the focused slider (key), or "
                             "through Playwright's locator, as before 2026-12-06 (see press_phase)")
    parser.add_argument("--markdown", action="store_true")
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    load_before = Path("/proc/loadavg").read_text().split()[:3]
    with busy(args.load, args.load_nice), start_redis() as redis_url, server({"BPE_LAB_ROOMS": redis_url, "BPE_LAB_HOLD_S": str(args.hold)}) as (url, pid), \
            sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        teacher = open_page(browser, url, bool(args.trace))
        go(teacher, "Classroom")
        teacher.get_by_role("button", name="Open a room").click()
        code = teacher.locator(".room-code").inner_text().replace("-", "")
        go(teacher, "Step through merges")
        teacher.locator(STEPS).wait_for()
        teacher.locator(IDLE).wait_for(state="attached")
        alone_cpu, _ = press_phase(teacher, pid, args.alone, args.press == "locator")
        alone_rate = alone_cpu / args.alone

        real = []
        for _ in range(args.real):
            page = open_page(browser, f"{url}/?room={code}", bool(args.trace))
            go(page, "Step through merges")
            page.locator(STEPS).wait_for()
            real.append(page)
        rooms = Rooms(RedisKV(redis_url))
        sims = [Simulated(url, code, rooms.join(code, client=f"simulated-{i}"))
                for i in range(args.simulated)]
        for s in sims:
            s.start()
        want = step_of(teacher)
        deadline = time.monotonic() + 120
        while any(step_of(p) != want for p in real) and time.monotonic() < deadline:
            time.sleep(0.2)
        time.sleep(2)
        followers = args.real + args.simulated
        cpu0 = cpu_seconds(pid)
        time.sleep(args.idle)
        idle_cpu = cpu_seconds(pid) - cpu0

        for p in [teacher, *real]:
            p.evaluate(RECORD_JS, p.locator(STEPS).element_handle())
            if args.trace:
                p.evaluate("() => { window.__rooms = []; window.__keys = []; }")
        for s in sims:
            s.seen.clear()
        load_during = None
        sent0 = sum(SENT[id(p)] for p in real)
        cdps = {}
        if args.trace:  # each page's main-thread time (Chromium's Performance metrics)
            for name, p in (("teacher", teacher), ("a student", real[0] if real else None)):
                if p is not None:
                    cdps[name] = p.context.new_cdp_session(p)
                    cdps[name].send("Performance.enable")
            main0 = {name: main_thread(c) for name, c in cdps.items()}
        sampler = LoadSampler()
        sampler.start()
        cpu, presses = press_phase(teacher, pid, args.seconds, args.press == "locator")
        sampler.done.set()
        main_time = {name: {k: (v - main0[name][k]) / args.seconds
                            for k, v in main_thread(c).items()} for name, c in cdps.items()}
        sent = sum(SENT[id(p)] for p in real) - sent0
        load_during = Path("/proc/loadavg").read_text().split()[:3]
        time.sleep(3)  # the last step reaches every screen
        moved = step_of(teacher) - (presses[0][0] - 1)  # a press lost would misnumber them
        all_delays, skipped_screens, skipped_steps = [], 0, 0
        for p in real:
            d, skipped = delays([tuple(x) for x in p.evaluate("() => window.__seen")], presses)
            all_delays += d
            skipped_steps += skipped
            skipped_screens += bool(skipped)
        real_delays = list(all_delays)
        parts = {}
        if args.trace:
            def got(p, what):
                return [tuple(x) for x in p.evaluate(f"() => window.{what}")]
            raw = {"presses": presses, "teacher": [got(teacher, "__seen"), got(teacher, "__rooms"),
                                                   teacher.evaluate("() => window.__keys")],
                   "students": [(got(p, "__seen"), got(p, "__rooms")) for p in real]}
            Path(args.trace).write_text(json.dumps(raw))
            parts = breakdown(*raw["teacher"], raw["students"], presses)
        for s in sims:
            d, skipped = delays(s.seen, presses)
            all_delays += d
            skipped_steps += skipped
            skipped_screens += bool(skipped)

        real_only = None
        if args.real_only and args.real:
            for s in sims:
                s.running.clear()
            time.sleep(1)
            real_cpu, _ = press_phase(teacher, pid, args.real_only, args.press == "locator")
            real_only = (real_cpu - alone_rate * args.real_only) / (args.real * args.real_only)
        for s in sims:
            s.done = True
        browser.close()

    per_step = (cpu - alone_rate * args.seconds) / (followers * args.seconds)
    rows = [
        ("followers", f"{followers} ({args.real} in Chromium, {args.simulated} simulated)"),
        ("steps, one a second", f"{args.seconds}"),
        ("follow delay, key press to the screen: median / p95 / max (all followers)",
         f"{statistics.median(all_delays):.2f} s / {pct(all_delays, .95):.2f} s / "
         f"{max(all_delays):.2f} s ({len(all_delays)} samples)"),
        ("follow delay, the Chromium students only: median / p95",
         f"{statistics.median(real_delays):.2f} s / {pct(real_delays, .95):.2f} s"
         if real_delays else "–"),
        ("steps skipped (screens that skipped one)", f"{skipped_steps} ({skipped_screens})"),
        ("the teacher's view moved (for one press a second)",
         f"{moved} steps for {len(presses)} presses"),
        ("server CPU per follower per step (all followers)", f"{per_step * 1000:.1f} ms"),
        ("messages a Chromium student's browser sent its server per step (runs asked for)",
         f"{sent / (args.real * args.seconds):.2f}" if args.real else "–"),
        ("server CPU per Chromium student per step (simulated stopped)",
         "–" if real_only is None else f"{real_only * 1000:.1f} ms"),
        ("server CPU per follower per second, nobody moving (polls)",
         f"{idle_cpu / args.idle / followers * 1000:.2f} ms"),
        ("the teacher alone, stepping once a second", f"{alone_rate * 1000:.0f} ms per second"),
        ("the server holds a follower's poll (BPE_LAB_HOLD_S)", f"{args.hold:g} s"),
        ("load average before / at the stepping's end",
         f"{' '.join(load_before)} / {' '.join(load_during)}"),
        ("load average (1 min) during the stepping, read every 5 s: min / mean / max",
         f"{min(sampler.samples):.1f} / {statistics.mean(sampler.samples):.1f} / "
         f"{max(sampler.samples):.1f}"),
        ("the key sent (--press)", args.press),
        ("processes spinning for the run (--load, niceness)",
         f"{args.load} (nice {args.load_nice})" if args.load else "none"),
    ]
    for name, spent in main_time.items():
        rows.append((f"trace, {name}'s page, main thread per step: tasks (script / layout / style)",
                     f"{spent['TaskDuration'] * 1000:.0f} ms ({spent['ScriptDuration'] * 1000:.0f}"
                     f" / {spent['LayoutDuration'] * 1000:.0f} / "
                     f"{spent['RecalcStyleDuration'] * 1000:.0f} ms)"))
    for name, values in parts.items():
        rows.append((f"trace, {name}: median / p95 ({len(values)} samples)",
                     f"{statistics.median(values):.3f} s / {pct(values, .95):.3f} s"
                     if values else "–"))
    if args.markdown:
        print("| measure | value |\n|---|---|")
        for name, value in rows:
            print(f"| {name} | {value} |")
    else:
        for name, value in rows:
            print(f"{name}: {value}")


if __name__ == "__main__":
    main()
