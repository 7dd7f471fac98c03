"""How long a take-over takes: from the click on "Take over here" to the tab saying "you teach".

Starts one ``streamlit run app.py`` (rooms in its memory; ``--redis``: in a ``redis-server`` on
loopback, tests/redis_server.py), opens a teacher in Debian's Chromium who opens a room and goes
to "Step through merges", and a second tab of the same browser profile on that page. Then
``--rounds`` take-overs, each tab in turn taking over from the other; with ``--race``, the taking
tab first presses → twice on its own view (the click 40 ms after the second, as
tests/browser/test_classroom_races.py does) while the teaching tab presses →. Each time is read
in the taking tab (``performance.now()`` at the click, and a MutationObserver that sees its
sidebar say "you teach"), so the test driver's own latency is not in it.

    python benchmarks/takeover.py --rounds 8 [--race] [--redis]

Prints each round's time, the median and the largest, and the load average before and after.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from contextlib import ExitStack
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "benchmarks"), str(ROOT / "tests")]

from classroom import CHROMIUM, CHROMIUM_ARGS, IDLE, STEPS, go, server  # noqa: E402

TAKE_OVER = "Take over here"
# In the taking tab: (optionally → twice on its own view first), then the click; resolves with
# the milliseconds from the click to its sidebar saying "you teach" in window.__took.
TAKE_JS = """([race, code, next]) => { window.__took = null; (async () => {
  const side = document.querySelector('[data-testid=stSidebar]');
  const teaches = () => side.innerText.includes(`Classroom ${code} · you teach`);
  const button = [...side.querySelectorAll('button')].find((b) => b.innerText.includes('Take over here'));
  const wait = (ms) => new Promise((r) => setTimeout(r, ms));
  if (race) { next.click(); await wait(20); next.click(); await wait(40); }
  const start = performance.now();
  button.click();
  const seen = () => {
    if (teaches() && window.__took === null) { obs.disconnect(); window.__took = performance.now() - start; }
  };
  const obs = new MutationObserver(seen);
  obs.observe(side, { subtree: true, childList: true, characterData: true });
  seen();
})(); }"""


def load() -> str:
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=8)
    parser.add_argument("--race", action="store_true", help="the taking tab's moves pending")
    parser.add_argument("--redis", action="store_true", help="rooms in a redis-server")
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    before = load()
    with ExitStack() as stack:
        env = {"BPE_LAB_TEACHER_TIMEOUT": "30"}
        if args.redis:
            from redis_server import start_redis

            env["BPE_LAB_ROOMS"] = stack.enter_context(start_redis())
        url, _ = stack.enter_context(server(env))
        pw = stack.enter_context(sync_playwright())
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        ctx = browser.new_context(viewport={"width": 1280, "height": 900})
        tabs = []
        for _ in range(2):
            page = ctx.new_page()
            page.set_default_timeout(120_000)
            page.goto(url, wait_until="domcontentloaded")
            page.locator(IDLE).wait_for(state="attached")
            tabs.append(page)
            if len(tabs) == 1:
                go(page, "Classroom")
                page.get_by_role("button", name="Open a room").click()
                code = page.locator(".room-code").inner_text()
            go(page, "Step through merges")
            page.locator(STEPS).wait_for()
        taking = tabs[1]
        times = []
        for i in range(args.rounds):
            driving = tabs[0] if taking is tabs[1] else tabs[1]
            taking.get_by_role("button", name=TAKE_OVER).wait_for()
            taking.locator(IDLE).wait_for(state="attached")
            time.sleep(1.0)
            slider = driving.get_by_role("slider", name="Merges applied (k)")
            slider.focus()
            taking.evaluate(TAKE_JS, [args.race, code,
                                      taking.locator(STEPS).locator(".next").element_handle()])
            if args.race:  # meanwhile the tab that teaches moves the class on
                slider.press("ArrowRight")
            ms = taking.wait_for_function("() => window.__took", polling=50).json_value()
            times.append(ms / 1000)
            print(f"take-over {i + 1}: {ms / 1000:.2f} s (load average {load()})", flush=True)
            driving.get_by_role("button", name=TAKE_OVER).wait_for()  # told it lost the role
            taking = driving
        browser.close()
    print(f"{args.rounds} take-overs{' in the race' if args.race else ''}"
          f"{' (Redis)' if args.redis else ''}: median {statistics.median(times):.2f} s, "
          f"max {max(times):.2f} s; load average before {before}, after {load()}")


if __name__ == "__main__":
    main()
