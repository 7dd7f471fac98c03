"""A second learner types on the front page while one attacker runs the issue's (43) attacks
through the app's pages, in Chromium, on a real ``streamlit run app.py``.

    python benchmarks/page_abuse.py [--words 6] [--phases quiet check parity normalizer added]

The attacks (tests/browser/test_pages_abuse.py asserts on the same functions), each in a new
session of its own:

- ``check``: the Check page, with the sidebar's pattern ``(a|aa)+$|\\S|\\s`` from the link, "A
  text of my own" of 40 lines of 30 ``a`` and ``!``, pattern "custom", ``merges = [(b'a', b'a')]``
  pasted;
- ``parity``: parity-aware BPE on the Superwords page, with the sidebar's pattern
  ``\\p{Latin}+|\\s+|(X|XX|XXX)+$|.``, ``X = [^\\p{Latin}\\s]`` (backtracks on the parallel texts
  with no spaces);
- ``normalizer``: a 5 KB tokenizer.json uploaded on Export & import, whose ``Replace``
  normalizer ``(a|aa)+$`` backtracks on its one normalized added token (40 ``a`` then ``!``);
- ``added``: an 8 MB tokenizer.json of 4,000 overlapping added tokens (``a``, ``aa``, ...)
  uploaded, then text typed in the front page's box with it.

Per phase, the second learner types words at the end of 2 KB of the English sample, 80 ms between
keys (benchmarks/front_typing.py's ``type_words``: last key until both views show the new text
with the right token counts), while the attack runs again and again. Prints the second learner's
median and p95 per phase, how many attacks ran and what the attacker saw, the server's VmRSS
(before, the most seen, after) and the load average before and after each phase.

``ServerWatch`` reads the server's child processes and threads in /proc (state and CPU time, every
0.1 s): the test's check that no worker or thread outlives its budget.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path
from urllib.parse import quote

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks.front_typing import ARGS, load, typist  # noqa: E402
from benchmarks.route_abuse import rss_kb, type_beside  # noqa: E402
from benchmarks.stepping import CHROMIUM, idle, percentile, start_server  # noqa: E402

IDLE = "[data-testid=stApp][data-test-script-state=notRunning]"
BACKTRACKS = r"(a|aa)+$|\S|\s"
CHECK_PATH = "/check?kind=custom&pattern=(a%7Caa)%2B%24%7C%5CS%7C%5Cs"  # the link
HOSTILE_TEXT = ("a" * 30 + "!\n") * 40
X = r"[^\p{Latin}\s]"
PARITY_PATTERN = r"\p{Latin}+|\s+|(X|XX|XXX)+$|.".replace("X", X)
PARITY_PATH = "/beyond?kind=custom&pattern=" + quote(PARITY_PATTERN, safe="")
ATTACKS = ("check", "parity", "normalizer", "added")
PHASES = ("quiet", *ATTACKS)
WAIT_MS = 180_000  # a Playwright wait on a crowded machine


# -- the hostile files --------------------------------------------------------------------------


def _added(content: str, i: int, normalized: bool) -> dict:
    return {"id": 256 + i, "content": content, "special": False, "normalized": normalized,
            "single_word": False, "lstrip": False, "rstrip": False}


def hostile_tokenizer_json(kind: str) -> bytes:
    """The issue's tokenizer.json files, on a byte-level BPE with no merges (bpe_core's own
    writer): ``normalizer`` (5 KB) or ``added`` (4,000 overlapping added tokens, 8 MB)."""
    import bpe_core

    doc = json.loads(bpe_core.formats.to_hf_json(bpe_core.BasicTokenizer()))
    if kind == "normalizer":
        doc["normalizer"] = {"type": "Replace", "pattern": {"Regex": "(a|aa)+$"}, "content": "b"}
        doc["added_tokens"] = [_added("a" * 40 + "!", 0, True)]
    elif kind == "added":
        doc["added_tokens"] = [_added("a" * (i + 1), i, False) for i in range(4000)]
    else:
        raise ValueError(kind)
    return json.dumps(doc).encode()


def plain_tokenizer_json() -> bytes:
    """A tokenizer.json with nothing hostile (reading it warms a reading worker)."""
    import bpe_core

    return bpe_core.formats.to_hf_json(bpe_core.BasicTokenizer()).encode()


# -- the attacks, in a page of their own --------------------------------------------------------


def _idle(page) -> None:
    page.locator(IDLE).wait_for(state="attached", timeout=WAIT_MS)


def errors(page):
    """The page's error messages (st.error) as a locator."""
    return page.get_by_test_id("stAlertContentError")


def _commit(page, key: str, text: str) -> None:
    box = page.locator(f".st-key-{key} textarea")
    box.fill(text)
    box.press("Control+Enter")


def open_check(page, url: str) -> None:
    """The Check page from the issue's link, "A text of my own" with the hostile text, pattern
    "custom": all but the paste that starts the check."""
    page.goto(url + CHECK_PATH, wait_until="domcontentloaded")
    source = page.locator(".st-key-check_source")
    source.wait_for(state="visible", timeout=WAIT_MS)
    _idle(page)
    source.get_by_text("A text of my own", exact=True).click()
    page.locator(".st-key-check_text textarea").wait_for(state="visible", timeout=WAIT_MS)
    _commit(page, "check_text", HOSTILE_TEXT)
    _idle(page)
    chosen = page.locator(".st-key-check_pattern")
    if "custom" not in chosen.inner_text():
        chosen.click()
        page.get_by_role("option").filter(has_text="custom").first.click()
        _idle(page)


def start_check(page) -> None:
    _commit(page, "check_paste", "merges = [(b'a', b'a')]")


def open_parity(page, url: str) -> None:
    """The Superwords page with the parity pattern in the sidebar, its tokenizer trained."""
    page.goto(url + PARITY_PATH, wait_until="domcontentloaded")
    page.locator(".st-key-beyond_variant").wait_for(state="visible", timeout=WAIT_MS)
    _idle(page)


def start_parity(page) -> None:
    variant = page.locator(".st-key-beyond_variant")
    variant.get_by_text("Parity-aware BPE: fair merges", exact=True).click()
    train = page.locator(".st-key-beyond_train button")
    try:
        train.wait_for(state="visible", timeout=5_000)
    except Exception:  # noqa: BLE001 - training started with no button to press
        return
    if not errors(page).count():
        train.click()


def open_exchange(page, url: str, warm: Path | None = None) -> None:
    """Export & import; with ``warm``, a harmless tokenizer.json read first (as a user who tried
    one; it leaves a reading worker ready)."""
    page.goto(url + "/exchange", wait_until="domcontentloaded")
    page.locator(".st-key-import_file").wait_for(state="visible", timeout=WAIT_MS)
    _idle(page)
    if warm is not None:
        upload(page, warm)
        page.get_by_role("heading", name="Loaded").wait_for(state="visible", timeout=WAIT_MS)
        _idle(page)


def upload(page, path: Path) -> None:
    page.locator(".st-key-import_file input[type=file]").set_input_files(str(path))


def go_front(page) -> None:
    """To the front page through the sidebar's link (the same session, its imported file)."""
    link = page.locator(".st-key-nav [data-testid=stPageLink-NavLink]")
    link.filter(has_text="Start here").first.click()
    page.get_by_label("Type here").wait_for(state="visible", timeout=WAIT_MS)


def yours(page):
    """The front page's view of the session's own tokenizer."""
    return page.locator('[data-view="yours"]')


def type_in_box(page, text: str) -> None:
    """Replace the front page box's text (the route tokenizes it at the key)."""
    box = page.get_by_label("Type here")
    box.fill(text[:-1])
    box.press("Control+End")
    box.press(text[-1])


# -- the server, seen from /proc --------------------------------------------------------------


def _stat(path: str) -> tuple[str, int, float] | None:
    """(state, parent pid, CPU seconds) from a /proc stat file, or None if it is gone."""
    try:
        with open(path) as f:
            fields = f.read().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return fields[0], int(fields[1]), (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def children(pid: int) -> dict[int, tuple[str, float]]:
    """The process's live children: {pid: (state, CPU seconds)}."""
    out = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            st = _stat(f"/proc/{entry}/stat")
            if st and st[1] == pid and st[0] not in "ZX":
                out[int(entry)] = (st[0], st[2])
    return out


def address_space(pid: int) -> int | None:
    """The process's address-space limit (RLIMIT_AS, a worker sets its own as it starts), bytes;
    None while it has none or is gone."""
    try:
        with open(f"/proc/{pid}/limits") as f:
            line = next(x for x in f if x.startswith("Max address space"))
    except (OSError, StopIteration):
        return None
    soft = line.split()[3]
    return None if soft == "unlimited" else int(soft)


def threads(pid: int) -> dict[int, tuple[str, float]]:
    """The process's threads: {tid: (state, CPU seconds)}."""
    out = {}
    for entry in os.listdir(f"/proc/{pid}/task"):
        st = _stat(f"/proc/{pid}/task/{entry}/stat")
        if st:
            out[int(entry)] = (st[0], st[2])
    return out


class ServerWatch:
    """Samples the server's children and threads every 0.1 s while it runs (a thread).

    ``runs()``: for each child busy at the end of its life or now, how long its last busy
    stretch lasted (from the first sample where it was running or gaining CPU to the first
    sample without it, or now): a worker killed at its deadline shows its budget here, plus the
    kill. A worker never seen idle counts from when it was first seen: its start (not in the
    budget) is counted too."""

    def __init__(self, pid: int, every: float = 0.1):
        self.pid, self.every = pid, every
        self.seen: dict[int, dict] = {}  # child pid -> busy_since, cpu, gone, idle (seen so)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> ServerWatch:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join()

    def _run(self) -> None:
        while True:
            now, live = time.monotonic(), children(self.pid)
            for child, (state, cpu) in live.items():
                info = self.seen.setdefault(child, {"busy_since": now, "cpu": cpu, "gone": None,
                                                    "idle": False})
                if info.get("memory") is None:
                    info["memory"] = address_space(child)
                busy = state == "R" or cpu > info["cpu"]
                if not busy:
                    info["busy_since"], info["idle"] = None, True
                elif info["busy_since"] is None:
                    info["busy_since"] = now
                info["cpu"] = cpu
            for child, info in self.seen.items():
                if info["gone"] is None and child not in live:
                    info["gone"] = now
            if self._stop.wait(self.every):
                return

    def busy(self) -> list[int]:
        """The children busy at the last sample."""
        return [c for c, i in self.seen.items() if i["gone"] is None and i["busy_since"]]

    def runs(self) -> dict[int, tuple[float, bool, bool, int | None, float]]:
        """For each child busy when it ended or now: (seconds of its last busy stretch, whether
        it was seen idle before, so its start is not counted in, whether it has ended, its
        address-space limit in bytes: which budget it runs under, its CPU seconds when last
        seen)."""
        now = time.monotonic()
        return {c: (round((i["gone"] or now) - i["busy_since"], 2), i["idle"],
                      i["gone"] is not None, i.get("memory"), round(i["cpu"], 2))
                for c, i in list(self.seen.items()) if i["busy_since"] is not None}


def busy_now(pid: int, window: float = 1.0, every: float = 0.1) -> dict[str, list]:
    """What of the server is busy over ``window`` seconds: its children and threads that were
    running in most samples and gained CPU. {"children": [(pid, cpu s)], "threads": [...]}."""
    kinds = {"children": children, "threads": threads}
    first = {k: f(pid) for k, f in kinds.items()}
    running = {k: dict.fromkeys(first[k], 0) for k in kinds}
    n = 0
    end = time.monotonic() + window
    while time.monotonic() < end:
        time.sleep(every)
        n += 1
        for k, f in kinds.items():
            for who, (state, _) in f(pid).items():
                if state == "R" and who in running[k]:
                    running[k][who] += 1
    last = {k: f(pid) for k, f in kinds.items()}
    out = {}
    for k in kinds:
        out[k] = [(who, round(last[k][who][1] - first[k][who][1], 2)) for who in first[k]
                  if who in last[k] and running[k][who] * 2 > n
                  and last[k][who][1] - first[k][who][1] >= 0.05]
    out["children"] = [(who, cpu, age(who)) for who, cpu in out["children"]]
    return out


def age(pid: int) -> float:
    """Seconds since the process started (its CPU time is at most this)."""
    with open(f"/proc/{pid}/stat") as f:
        started = int(f.read().rsplit(")", 1)[1].split()[19]) / os.sysconf("SC_CLK_TCK")
    with open("/proc/uptime") as f:
        return round(float(f.read().split()[0]) - started, 2)


# -- the benchmark ------------------------------------------------------------------------------


def _attack(kind: str, browser, url: str, files: dict[str, Path], stop: threading.Event,
            seen: list[str]) -> None:
    """Run the attack again and again, each time in a new session, until ``stop``."""
    while not stop.is_set():
        ctx = browser.new_context(viewport={"width": 1400, "height": 2200})
        page = ctx.new_page()
        page.set_default_timeout(WAIT_MS)
        try:
            if kind == "check":
                open_check(page, url)
                start_check(page)
            elif kind == "parity":
                open_parity(page, url)
                start_parity(page)
            else:
                open_exchange(page, url)
                upload(page, files[kind])
            if kind == "added":
                page.get_by_role("heading", name="Loaded").or_(errors(page)).first.wait_for()
                go_front(page)
                type_in_box(page, "aaaaaaaaaa typed with it!")
                page.wait_for_timeout(3_000)
                seen.append(yours(page).inner_text()[:60])
            else:
                errors(page).first.wait_for(state="visible")
                seen.append(errors(page).first.inner_text()[:60])
        except Exception as e:  # noqa: BLE001 - said in the table, the phase goes on
            seen.append(f"{type(e).__name__}")
        finally:
            ctx.close()


def main(argv: list[str] | None = None) -> int:
    from playwright.sync_api import sync_playwright

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--words", type=int, default=6, help="words typed per phase")
    parser.add_argument("--phases", nargs="+", choices=PHASES, default=list(PHASES))
    args = parser.parse_args(argv)
    english, mine, theirs, words = typist(args.words)
    tmp = Path(tempfile.mkdtemp(prefix="page_abuse-"))
    files = {}
    for kind in ("normalizer", "added"):
        files[kind] = tmp / f"{kind}.tokenizer.json"
        files[kind].write_bytes(hostile_tokenizer_json(kind))
    proc, url, _ = start_server()
    rows = []
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            learner = browser.new_context().new_page()
            learner.set_viewport_size({"width": 1440, "height": 1000})
            learner.goto(url)
            learner.locator('[data-view="gpt-4o"]').wait_for(state="visible", timeout=WAIT_MS)
            idle(learner)
            for phase in args.phases:
                before, rss = load(), [rss_kb(proc.pid)]
                stop, seen = threading.Event(), []
                attack = None if phase == "quiet" else threading.Thread(
                    target=_attack_in_own_playwright, args=(phase, url, files, stop, seen))
                # the attacker's page is open and at work 5 s before the learner types
                times, took = type_beside(attack, stop, proc.pid, rss, learner,
                                          (english, words, mine, theirs), settle=5)
                rows.append((phase, times, before, load(), rss[0], max(rss), rss_kb(proc.pid),
                             seen, took))
                idle(learner)
            browser.close()
    finally:
        proc.terminate()
        proc.wait(timeout=20)
    print(f"The second learner, last key -> both views drawn, {args.words} words per phase, 2 KB "
          f"of text, 80 ms between keys (2 cores shared with other work: see the load average)")
    print("| phase | median | p95 | load before -> after | server VmRSS before / peak / after "
          "| the attacker saw |")
    print("|---|---|---|---|---|---|")
    for phase, times, before, after, rss0, peak, rss1, seen, took in rows:
        said = "; ".join(f"{n} x {s!r}" for s, n in _counts(seen)) or "-"
        print(f"| {phase} | {statistics.median(times):.0f} ms | {percentile(times, 95):.0f} ms "
              f"| {before} -> {after} | {rss0 / 1024:.0f} / {peak / 1024:.0f} / "
              f"{rss1 / 1024:.0f} MB | {said} (typing took {took:.0f} s) |")
    return 0


def _counts(seen: list[str]) -> list[tuple[str, int]]:
    out: dict[str, int] = {}
    for s in seen:
        out[s] = out.get(s, 0) + 1
    return list(out.items())


def _attack_in_own_playwright(kind: str, url: str, files: dict[str, Path],
                              stop: threading.Event, seen: list[str]) -> None:
    # Playwright's sync API belongs to one thread: the attacker drives a browser of its own
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            _attack(kind, browser, url, files, stop, seen)
        finally:
            browser.close()


if __name__ == "__main__":
    sys.exit(main())
