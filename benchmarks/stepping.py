"""Stepping through merges in Chromium: the in-browser view against the server round trip.

    python benchmarks/stepping.py               # the table
    python benchmarks/stepping.py --markdown    # the table for docs/BENCHMARKS.md

One `streamlit run app.py` on a free local port, Debian's Chromium driven by Playwright, and for
each text (2 KB of the English sample, 100 KB and the largest text the sidebar accepts, all
trained with the sidebar's defaults): key press -> the new step drawn, 30 presses of ArrowRight
on the slider, for the in-browser view (until its ``data-step`` changes: the tokens are drawn
then) and for the server path (until the page shows the step's token count); the page's first
drawing; distinct steps drawn per second while playing at the fastest speed; and the server's
script runs in the first 3 s of play (counted by the server process, which prints a line per
run; the one run when play stops at the last merge, telling the server the step, comes after).
Nothing is fetched: the app is served from this checkout.
"""

from __future__ import annotations

import argparse
import os
import socket
import statistics
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks.limits import worst_text  # noqa: E402
from ui.kit.choices import MAX_TEXT_CHARS  # noqa: E402
from ui.kit.samples import load_samples  # noqa: E402

CHROMIUM = "/usr/bin/chromium"
PRESSES = 30
RUN_MARK = "BPE-LAB SCRIPT RUN"
SERVER = f"""
import sys
import streamlit.runtime.scriptrunner.script_runner as runner
original = runner.ScriptRunner._run_script
def counted(self, *args, **kwargs):
    print({RUN_MARK!r}, flush=True)
    return original(self, *args, **kwargs)
runner.ScriptRunner._run_script = counted
from streamlit.web import cli
sys.argv = ["streamlit", "run", "app.py", "--server.port", sys.argv[1], "--server.headless",
            "true", "--server.address", "127.0.0.1", "--browser.gatherUsageStats", "false"]
cli.main()
"""

# Time from a key press to a change: a keydown listener starts the clock, a MutationObserver on
# what the step changes stops it (on the attribute or text it watches).
CLOCK_JS = """
([selector, attribute]) => {
  window.__bpeTimes = []; window.__bpeStart = null;
  document.addEventListener("keydown", () => { window.__bpeStart = performance.now(); }, true);
  const find = () => {
    const direct = document.querySelector(selector);
    if (direct) return direct;
    for (const host of document.querySelectorAll("*")) {
      if (host.shadowRoot && host.shadowRoot.querySelector(selector))
        return host.shadowRoot.querySelector(selector);
    }
    return null;
  };
  const target = find();
  new MutationObserver(() => {
    if (window.__bpeStart !== null) {
      window.__bpeTimes.push(performance.now() - window.__bpeStart); window.__bpeStart = null;
    }
  }).observe(target, attribute ? {attributes: true, attributeFilter: [attribute]}
                                : {subtree: true, characterData: true, childList: true});
}
"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server() -> tuple[subprocess.Popen, str, list[str]]:
    port = free_port()
    lines: list[str] = []
    proc = subprocess.Popen([sys.executable, "-c", SERVER, str(port)], cwd=ROOT, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    import threading

    threading.Thread(target=lambda: lines.extend(iter(proc.stdout.readline, "")),
                     daemon=True).start()
    url = f"http://127.0.0.1:{port}"
    for _ in range(120):
        try:
            with urllib.request.urlopen(url + "/_stcore/health", timeout=1) as r:
                if r.read() == b"ok":
                    return proc, url, lines
        except OSError:
            time.sleep(0.25)
    proc.kill()
    raise RuntimeError("the app did not start:\n" + "".join(lines))


def percentile(values: list[float], p: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(round(p / 100 * (len(values) - 1))))]


def idle(page) -> None:
    page.wait_for_selector("[data-testid=stApp][data-test-script-state=notRunning]",
                           state="attached", timeout=120_000)
    time.sleep(0.3)


def measure_text(browser, url: str, text: str, lines: list[str]) -> dict:
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    page.goto(url)
    idle(page)
    box = page.get_by_test_id("stSidebar").get_by_label("Text", exact=True)
    box.fill(text)
    box.press("Control+Enter")
    idle(page)
    page.get_by_test_id("stSidebar").get_by_role("button", name="Train", exact=True).click()
    idle(page)
    out: dict = {}
    main = page.get_by_test_id("stMain")
    links = page.locator(".st-key-nav [data-testid=stPageLink-NavLink]")  # ui/kit/navigation.py
    links.filter(has_text="Step through merges").click()  # a first visit computes the steps
    root = main.get_by_test_id("bpe-steps")
    root.wait_for(timeout=120_000)
    idle(page)
    links.filter(has_text="Tokens").click()
    idle(page)
    start = time.perf_counter()
    links.filter(has_text="Step through merges").click()
    main.locator("[data-testid=bpe-steps] .tokens span").first.wait_for(timeout=120_000)
    out["load instant"] = time.perf_counter() - start
    idle(page)
    slider = root.get_by_role("slider", name="Merges applied (k)")
    page.evaluate(CLOCK_JS, ["[data-testid=bpe-steps]", "data-step"])
    slider.focus()
    for _ in range(PRESSES):
        slider.press("ArrowRight")
        page.wait_for_function("() => window.__bpeStart === null", timeout=10_000)
    out["instant"] = page.evaluate("() => window.__bpeTimes")
    # playing: distinct steps drawn per second, and the server's runs meanwhile
    idle(page)
    speed = root.get_by_label("Speed")
    speed.select_option(index=speed.locator("option").count() - 1)
    slider.press("Home")
    time.sleep(0.6)  # the view tells the server 300 ms after the last key: let that run first
    idle(page)
    runs_before = sum(RUN_MARK in line for line in lines)
    page.evaluate("""() => { window.__bpeSteps = [];
      const root = [...document.querySelectorAll('*')].map(h => h.shadowRoot)
        .filter(Boolean).map(s => s.querySelector('[data-testid=bpe-steps]')).find(Boolean)
        || document.querySelector('[data-testid=bpe-steps]');
      new MutationObserver(() => window.__bpeSteps.push([root.dataset.step, performance.now()]))
        .observe(root, {attributes: true, attributeFilter: ['data-step']}); }""")
    root.get_by_role("button", name="Play").click()
    # the default vocabulary's 256 merges take about 4 s at this speed: the server's runs are
    # counted over the first 3 s (it hears the step once play stops at the end, after that)
    time.sleep(3)
    runs = sum(RUN_MARK in line for line in lines) - runs_before
    root.get_by_role("button", name="Play").wait_for(timeout=60_000)  # "Pause" until the end
    time.sleep(1)
    drawn = page.evaluate("() => window.__bpeSteps")
    playing = root.get_by_role("button", name="Pause")
    if playing.count():
        playing.click()
    steps = [int(step) for step, _ in drawn]
    end = steps.index(max(steps)) if steps else 0  # until the last merge (then play stops)
    distinct = len(set(steps[: end + 1]))
    seconds = (drawn[end][1] - drawn[0][1]) / 1000 if end else 0
    out["fps"] = (distinct - 1) / seconds if seconds else 0
    out["runs while playing"] = runs
    idle(page)
    # the server path: the toggle off, the same presses on the server's slider
    main.locator(".st-key-step_instant label").click()
    main.locator(".bpe-tokens").first.wait_for(timeout=120_000)
    idle(page)
    links.filter(has_text="Tokens").click()
    idle(page)
    start = time.perf_counter()
    links.filter(has_text="Step through merges").click()
    main.locator(".st-key-step").wait_for(timeout=120_000)
    main.locator(".bpe-tokens .t").first.wait_for(timeout=120_000)
    out["load server"] = time.perf_counter() - start
    idle(page)
    server_slider = main.locator(".st-key-step").get_by_role("slider")
    page.evaluate("""() => { window.__bpeStart = null; document.addEventListener('keydown',
      () => { window.__bpeStart = performance.now(); }, true); }""")
    step_js = """() => [...document.querySelectorAll('[data-testid=stMetric]')]
      .map(m => m.textContent).find(t => t.startsWith('Step'))"""
    server_slider.focus()
    server_slider.press("Home")  # play left the step at the last merge
    page.wait_for_function(f"() => ({step_js})().startsWith('Step0 of')", timeout=60_000)
    idle(page)
    times = []
    for _ in range(PRESSES):
        k = int(page.evaluate(step_js).removeprefix("Step").split(" of ")[0].replace(",", ""))
        server_slider.press("ArrowRight")
        # drawn: the page shows step k + 1 and the fragment's run is over (metrics, merge,
        # chart and tokens all drawn)
        done = page.wait_for_function(
            """([k, stepJs]) => window.__bpeStart !== null
                 && eval(stepJs)().startsWith('Step' + (k + 1).toLocaleString('en-US') + ' of')
                 && document.querySelector('[data-testid=stApp][data-test-script-state=notRunning]')
                 && performance.now() - window.__bpeStart""", arg=[k, step_js], polling="raf",
            timeout=60_000)
        times.append(done.json_value())
        page.evaluate("() => { window.__bpeStart = null; }")
        idle(page)
    out["server"] = times
    page.close()
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python benchmarks/stepping.py", description=__doc__)
    parser.add_argument("--markdown", action="store_true")
    args = parser.parse_args(argv)
    if not os.path.exists(CHROMIUM):
        print(f"{CHROMIUM} not found: install Debian's chromium", file=sys.stderr)
        return 1
    from playwright.sync_api import sync_playwright

    english = load_samples()["English prose"]
    texts = {
        "2 KB": english[:2_000],
        "100 KB": worst_text(100_000),
        f"{MAX_TEXT_CHARS:,} characters": worst_text(MAX_TEXT_CHARS),
    }
    proc, url, lines = start_server()
    rows = []
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=[
                "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"])
            for label, text in texts.items():
                r = measure_text(browser, url, text, lines)
                med_i, p95_i = statistics.median(r["instant"]), percentile(r["instant"], 95)
                med_s, p95_s = statistics.median(r["server"]), percentile(r["server"], 95)
                rows.append([label, f"{med_i:.1f} / {p95_i:.1f} ms", f"{med_s:.0f} / {p95_s:.0f} ms",
                             f"{med_s / med_i:.0f}×", f"{r['fps']:.0f}", str(r["runs while playing"]),
                             f"{r['load instant']:.2f} s / {r['load server']:.2f} s"])
            browser.close()
    finally:
        proc.terminate()
    head = ["text", "key → step drawn, in the browser (median / p95)",
            "the same on the server (median / p95)", "faster", "steps drawn per s, playing",
            "server script runs in 3 s of play", "page drawn: browser / server"]
    if args.markdown:
        print("| " + " | ".join(head) + " |")
        print("|" + "---|" * len(head))
        for row in rows:
            print("| " + " | ".join(row) + " |")
    else:
        for row in rows:
            print(dict(zip(head, row, strict=True)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
