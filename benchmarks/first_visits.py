"""Server time of two first visits on a fresh server, each in a fresh process with Streamlit's
AppTest: ``python benchmarks/first_visits.py [--rounds 3]``.

* Compare: the app's first run straight on the Compare page (the sidebar trains its default
  tokenizer; Compare encodes the sample with it and the three GPT presets). Measured twice: with
  the server's warm-up done (``ui.kit.warm.warm_up``, which ``streamlit run app.py`` starts at server
  start: the presets read and the pages' modules imported), with only the presets read, and cold
  (the first visit reads and imports everything itself).
* Vocabulary health for GPT-4o: the app's first run, then the sidebar set to pretrained GPT-4o,
  then the Vocabulary health page, timed; with the shipped defects, and with them turned off.

Script time only (what the server spends; the browser's painting is not in it). Medians, with the
load average.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

RUN = """
import sys, time
sys.path.insert(0, {root!r})
from streamlit.testing.v1 import AppTest
import bpe_core.pretrained, bpe_lab.who_pays.health
app = AppTest.from_file({app!r}, default_timeout=600)
if {case!r} == "compare, presets preloaded":
    bpe_core.pretrained.preload().join()
if {case!r} == "compare, after the server's warm-up":
    import ui.kit.warm
    ui.kit.warm.warm_up().join()
if {case!r}.startswith("compare"):
    app.switch_page("pages/compare.py")
    start = time.perf_counter(); app.run()
else:
    if {case!r}.endswith("full check"):
        bpe_lab.who_pays.health.shipped_defect_ids = lambda tok, pattern: None
    app.run()
    app.selectbox(key="kind").set_value("Pretrained: GPT-4o (o200k_base)").run()
    app.switch_page("pages/health.py")
    start = time.perf_counter(); app.run()
took = time.perf_counter() - start
assert not app.exception, app.exception
print(took)
"""

CASES = ["compare, after the server's warm-up", "compare, presets preloaded",
         "compare, cold", "health GPT-4o, shipped defects",
         "health GPT-4o, full check"]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args(argv)
    times: dict[str, list[float]] = {case: [] for case in CASES}
    for _ in range(args.rounds):
        for case in CASES:
            code = RUN.format(root=str(ROOT), app=str(ROOT / "app.py"), case=case)
            done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                                  check=True, cwd=ROOT)
            times[case].append(float(done.stdout.strip().splitlines()[-1]))
    load = " ".join(open("/proc/loadavg").read().split()[:3]) if os.path.exists(
        "/proc/loadavg") else "?"
    print(f"{args.rounds} rounds of fresh processes, load average {load}")
    for case, ts in times.items():
        print(f"  {case:46} median {statistics.median(ts):.2f} s  (all: "
              f"{', '.join(f'{t:.2f}' for t in ts)})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
