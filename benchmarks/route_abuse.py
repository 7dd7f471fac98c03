"""A second learner types on the front page while one attacker hits the app's HTTP routes.

    python benchmarks/route_abuse.py [--words 10] [--phases quiet flood bodies]

One `streamlit run app.py` on a free local port (benchmarks/stepping.py's server), Debian's
Chromium driven by Playwright. The second learner types words at the end of 2 KB of the English
sample, 80 ms between keys (benchmarks/front_typing.py's ``type_words``: the time from the last
key until both views show the new text with the right token counts), in three phases:

- ``quiet``: nobody else;
- ``flood``: the attacker's own page key (a real session's) asked about 2 KB texts from 10
  connections, as fast as the server answers, for the whole phase;
- ``bodies``: ten POSTs to the front route at once, each stating 100 MB and sending its
  body until answered, again and again for the whole phase.

Prints the second learner's median and p95 per phase, the attacker's answers by status, the
server's VmRSS (before, the most seen while sampling every 0.1 s, after) and the load average
before and after each phase. ``push_body``, ``flood`` and ``page_key`` are the attacks that
tests/browser/test_routes_abuse.py asserts on.
"""

from __future__ import annotations

import argparse
import http.client
import json
import socket
import statistics
import sys
import threading
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks.front_typing import ARGS, START_BYTES, load, type_words, typist  # noqa: E402
from benchmarks.stepping import CHROMIUM, idle, percentile, start_server  # noqa: E402
from ui.front.route import TOKENS_PATH  # noqa: E402

HUGE = 100 * 1024 * 1024  # the stated length of the attack's body
PHASES = ("quiet", "flood", "bodies")
_CHUNK = b"x" * (256 * 1024)


def rss_kb(pid: int) -> int:
    """The process's resident memory (VmRSS in /proc/<pid>/status), KB."""
    with open(f"/proc/{pid}/status") as f:
        return next(int(line.split()[1]) for line in f if line.startswith("VmRSS:"))


def push_body(port: int, path: str, chunked: bool = False) -> tuple[int, int, bool]:
    """Send the headers of a 100 MB POST (a stated length, or chunked with none), then the body
    until the server answers: (status, bytes of body sent, whether the server closed)."""
    s = socket.create_connection(("127.0.0.1", port), timeout=30)
    length = b"Transfer-Encoding: chunked" if chunked else f"Content-Length: {HUGE}".encode()
    s.sendall(b"POST " + path.encode() + b" HTTP/1.1\r\nHost: 127.0.0.1\r\n"
              b"Content-Type: application/json\r\n" + length + b"\r\n\r\n")
    s.setblocking(False)
    sent, answer = 0, b""
    piece = (b"%x\r\n" % len(_CHUNK) + _CHUNK + b"\r\n") if chunked else _CHUNK
    deadline = time.monotonic() + 120
    while b"\r\n\r\n" not in answer and sent < HUGE and time.monotonic() < deadline:
        try:
            answer += s.recv(65536)
            continue
        except BlockingIOError:
            pass
        except OSError:
            break
        try:
            sent += s.send(piece)
        except BlockingIOError:
            time.sleep(0.01)
        except OSError:  # the server closed its end: read what it said
            break
    s.setblocking(True)
    s.settimeout(10)
    closed = False
    try:
        while True:
            more = s.recv(65536)
            if not more:
                closed = True
                break
            answer += more
    except OSError:
        closed = b"\r\n\r\n" in answer  # reset after the answer: closed too
    s.close()
    return int(answer.split(b" ", 2)[1]) if answer else 0, sent, closed


def flood(port: int, key: str, texts: list[str], first_seq: int,
          threads: int = 10) -> list[tuple[int, str, int, dict]]:
    """Ask the front route about each text, numbered from ``first_seq`` in order, from
    ``threads`` connections at once: [(seq, text, status, answer)]."""
    numbered = list(enumerate(texts, first_seq))
    numbered.reverse()  # popped from the end: in order of seq
    lock = threading.Lock()
    out: list[tuple[int, str, int, dict]] = []

    def worker() -> None:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
        while True:
            with lock:
                if not numbered:
                    break
                seq, text = numbered.pop()
            body = json.dumps({"key": key, "text": text, "seq": seq, "seed": 1}).encode()
            conn.request("POST", TOKENS_PATH, body=body,
                         headers={"Content-Type": "application/json"})
            r = conn.getresponse()
            answer = json.loads(r.read())
            with lock:
                out.append((seq, text, r.status, answer))
        conn.close()

    pool = [threading.Thread(target=worker) for _ in range(threads)]
    for t in pool:
        t.start()
    for t in pool:
        t.join()
    return out


def page_key(context, url: str) -> tuple[object, dict]:
    """A new session's front page, and the first question its box asks of the route
    (``{"key", "text", "seq", "seed"}``: the key is the page's own)."""
    page = context.new_page()
    page.goto(url, wait_until="domcontentloaded")
    box = page.get_by_label("Type here")
    box.wait_for(state="visible", timeout=120_000)
    page.locator('[data-view="gpt-4o"]').wait_for(state="visible", timeout=120_000)
    with page.expect_request(f"**{TOKENS_PATH}") as asked:
        box.press("Control+End")
        box.press("!")
    return page, json.loads(asked.value.post_data)


def _attack(kind: str, port: int, key: str, stop: threading.Event, seen: Counter) -> None:
    seq = int(time.time() * 1000)
    texts = [f"flood {i:04d} " + "the cat sat on the mat. " * 90 for i in range(100)]
    while not stop.is_set():
        if kind == "flood":
            answers = flood(port, key, texts, seq)
            seq += len(texts)
            seen.update(a[2] for a in answers)
        else:
            with ThreadPoolExecutor(10) as pool:
                done = list(pool.map(lambda _: push_body(port, TOKENS_PATH), range(10)))
            seen.update(d[0] for d in done)
            seen["bytes sent"] += sum(d[1] for d in done)


def type_beside(attack: threading.Thread | None, stop: threading.Event, pid: int, rss: list[int],
                learner, typed: tuple, settle: float = 0.0) -> tuple[list[float], float]:
    """The second learner types (``typed``: ``typist``'s english, words, mine, theirs) while
    ``attack`` runs (started here, ``settle`` seconds ahead; None: nobody else), the server's
    VmRSS sampled into ``rss`` every 0.1 s; ``stop`` is set once the typing is done. Returns
    each word's time and the whole typing's seconds (both benchmarks of the attacks use it)."""
    english, words, mine, theirs = typed
    if attack:
        attack.start()
        time.sleep(settle)
    sampler_stop = threading.Event()

    def sample() -> None:
        while not sampler_stop.wait(0.1):
            rss.append(rss_kb(pid))

    sampler = threading.Thread(target=sample)
    sampler.start()
    started = time.monotonic()
    times = type_words(learner, english[:START_BYTES], words, mine, theirs)
    took = time.monotonic() - started
    stop.set()
    if attack:
        attack.join()
    sampler_stop.set()
    sampler.join()
    return times, took


def main(argv: list[str] | None = None) -> int:
    from playwright.sync_api import sync_playwright

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--words", type=int, default=10, help="words typed per phase")
    parser.add_argument("--phases", nargs="+", choices=PHASES, default=list(PHASES))
    args = parser.parse_args(argv)
    english, mine, theirs, words = typist(args.words)
    proc, url, _ = start_server()
    port = int(url.rsplit(":", 1)[1])
    rows = []
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            _, attacker = page_key(browser.new_context(), url)
            learner = browser.new_context().new_page()
            learner.set_viewport_size({"width": 1440, "height": 1000})
            learner.goto(url)
            learner.locator('[data-view="gpt-4o"]').wait_for(state="visible", timeout=120_000)
            idle(learner)
            for phase in args.phases:
                before, rss = load(), [rss_kb(proc.pid)]
                stop, seen = threading.Event(), Counter()
                attack = None if phase == "quiet" else threading.Thread(
                    target=_attack, args=(phase, port, attacker["key"], stop, seen))
                times, took = type_beside(attack, stop, proc.pid, rss, learner,
                                          (english, words, mine, theirs))
                rows.append((phase, times, before, load(), rss[0], max(rss), rss_kb(proc.pid),
                             dict(seen), took))
                idle(learner)
            browser.close()
    finally:
        proc.terminate()
        proc.wait(timeout=20)
    print(f"The second learner, last key -> both views drawn, {args.words} words per phase, 2 KB "
          f"of text, 80 ms between keys (2 cores shared with other work: see the load average)")
    print("| phase | median | p95 | load before -> after | server VmRSS before / peak / after "
          "| the attacker's answers |")
    print("|---|---|---|---|---|---|")
    for phase, times, before, after, rss0, peak, rss1, seen, took in rows:
        answers = ", ".join(f"{n:,} x {s}" for s, n in sorted(seen.items(), key=str)) or "-"
        print(f"| {phase} | {statistics.median(times):.0f} ms | {percentile(times, 95):.0f} ms "
              f"| {before} -> {after} | {rss0 / 1024:.0f} / {peak / 1024:.0f} / "
              f"{rss1 / 1024:.0f} MB | {answers} in {took:.0f} s |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
