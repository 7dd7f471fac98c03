"""Tokens as you type on the front page, in Chromium: the box's route against the script's rerun.

    python benchmarks/front_typing.py [--words 10] [--rounds 1]

One `streamlit run app.py` on a free local port (benchmarks/stepping.py's server, which counts
script runs), Debian's Chromium driven by Playwright. In one run, for each way the views can
follow the box: words are typed at the end of 2 KB of the English sample, 80 ms between keys,
and the time from the last key until both views show the new text with the right token counts
is read in the page (a keydown listener and a MutationObserver, ``performance.now()``):

- ``route``: as shipped, the box asks the front page's route (ui/front/route.py) at every key;
- ``script``: the route refused (Playwright answers 404 for it), so the box falls back to the
  fragment's rerun, the way the page worked before the route.

Prints the median and p95 of each, their ratio, the script runs, and the load average before
and after. Expected counts come from bpe_core (the sidebar's default training, and o200k_base).
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import bpe_core  # noqa: E402
from benchmarks.stepping import CHROMIUM, RUN_MARK, idle, percentile, start_server  # noqa: E402
from ui.kit.samples import load_samples  # noqa: E402

ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]
WORDS = [" token", " merges", " again", " bytes", " pairs", " count", " split", " vocab",
         " learn", " class"]
START_BYTES = 2040

# In the page: the time of the last key, and the first moment both views show the text that
# ends with ``tail`` in ``mine`` and ``theirs`` tokens (their data-tokens): a mutation observer,
# so the moment is when the DOM changed, not when a poll looked. (tests/browser/test_front_browser.py
# uses it too.)
WATCH_JS = """([mine, theirs, tail]) => {
  const t = window.__bpeType = {key: null, done: null};
  if (window.__bpeKeys) document.removeEventListener('keydown', window.__bpeKeys, true);
  window.__bpeKeys = () => { t.key = performance.now(); t.done = null; };
  document.addEventListener('keydown', window.__bpeKeys, true);
  const shows = (which, n) => {
    const v = document.querySelector(`[data-view="${which}"]`);
    return v && v.dataset.tokens === String(n) && v.textContent.endsWith(tail);
  };
  if (window.__bpeObserver) window.__bpeObserver.disconnect();
  window.__bpeObserver = new MutationObserver(() => {
    if (t.key !== null && t.done === null && shows('yours', mine) && shows('gpt-4o', theirs))
      t.done = performance.now();
  });
  window.__bpeObserver.observe(document.body, {subtree: true, childList: true, attributes: true,
                                              characterData: true});
}"""


def type_words(page, start: str, words: list[str], mine, theirs) -> list[float]:
    """Type ``words`` at the end of ``start`` in the box; the time from each word's last key
    until both views show it (ms)."""
    box = page.get_by_label("Type here")
    box.fill(start)
    text, times = start, []
    for word in words:
        text += word
        page.evaluate(WATCH_JS, [len(mine.encode(text)), len(theirs.encode(text)), text[-12:]])
        box.press("Control+End")
        box.press_sequentially(word, delay=80)
        page.wait_for_function("() => window.__bpeType.done !== null", timeout=60_000)
        times.append(page.evaluate("() => window.__bpeType.done - window.__bpeType.key"))
    return times


def typist(n_words: int) -> tuple[str, bpe_core.RegexTokenizer, bpe_core.Tokenizer, list[str]]:
    """What a typing benchmark needs: the English sample, the sidebar's default tokenizer trained
    on it (GPT-4 split, 512 tokens), o200k_base, and ``n_words`` words to type."""
    english = load_samples()["English prose"]
    mine = bpe_core.RegexTokenizer()
    mine.train(english, 512)
    theirs = bpe_core.load_pretrained("o200k_base")
    return english, mine, theirs, (WORDS * (n_words // len(WORDS) + 1))[:n_words]


def load() -> str:
    """The load average (1, 5 and 15 minutes)."""
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


def main(argv: list[str] | None = None) -> int:
    from playwright.sync_api import sync_playwright

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--words", type=int, default=10, help="words typed per way and round")
    parser.add_argument("--rounds", type=int, default=1)
    args = parser.parse_args(argv)
    english, mine, theirs, words = typist(args.words)
    before = load()
    proc, url, lines = start_server()
    times: dict[str, list[float]] = {"route": [], "script": []}
    runs: dict[str, int] = {"route": 0, "script": 0}
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            for _ in range(args.rounds):
                for way in times:
                    page = browser.new_page(viewport={"width": 1440, "height": 1000})
                    if way == "script":
                        page.route("**/_bpelab/front/tokens", lambda r: r.fulfill(
                            status=404, body='{"views": null}', content_type="application/json"))
                    page.goto(url)
                    page.locator('[data-view="gpt-4o"]').wait_for(state="visible",
                                                                  timeout=120_000)
                    idle(page)
                    counted = sum(RUN_MARK in line for line in lines)
                    times[way] += type_words(page, english[:START_BYTES], words, mine, theirs)
                    idle(page)
                    runs[way] += sum(RUN_MARK in line for line in lines) - counted
                    page.close()
            browser.close()
    finally:
        proc.terminate()
        proc.wait(timeout=20)
    after = load()
    print(f"Front page, last key -> both views drawn, {args.words} words x {args.rounds} "
          f"round(s) per way, 2 KB of text, 80 ms between keys; load average before {before}, "
          f"after {after}")
    print("| way | median | p95 | script runs | keys |")
    print("|---|---|---|---|---|")
    keys = sum(len(w) for w in words) * args.rounds
    for way, values in times.items():
        print(f"| {way} | {statistics.median(values):.0f} ms | {percentile(values, 95):.0f} ms "
              f"| {runs[way]} | {keys} |")
    ratio = statistics.median(times["script"]) / statistics.median(times["route"])
    print(f"route is {ratio:.1f}x faster than the script's rerun (medians)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
