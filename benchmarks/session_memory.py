"""What one session holds: ``python benchmarks/session_memory.py``.

Three sessions of the app in this process (Streamlit's AppTest, the pages' real scripts), each
measured by tracemalloc (Python's allocations, after a collection), each after the one before:

1. a session trained on the sample (the app's first page) that visits every page of the
   sidebar: what the first visitor costs, shared caches (the GPT presets, the samples) included;
2. a second such session: what one more trained session holds;
3. a third session that uploads OpenAI's cl100k_base.tiktoken (100,256 tokens) on Export &
   import, then visits every page with it: what an imported vocabulary costs a session, a token.

The cost a token is what ``ui/kit/budget.SESSION_TOKEN_BYTES`` is set from. Prints the load
average (the figures are memory, which the load does not change; the minutes it does).
"""

from __future__ import annotations

import gc
import sys
import tracemalloc
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(Path(__file__).parent)]

from streamlit.testing.v1 import AppTest  # noqa: E402

from ui.kit.navigation import SECTIONS  # noqa: E402

APP = str(ROOT / "app.py")
MB = 1024 * 1024


def tour(app: AppTest) -> None:
    for entries in SECTIONS.values():
        for entry in entries:
            app.switch_page(entry.path).run()
            assert not app.exception, (entry.path, app.exception)


def held() -> int:
    gc.collect()
    return tracemalloc.get_traced_memory()[0]


def load() -> str:
    return " ".join(open("/proc/loadavg").read().split()[:3])


def main() -> None:
    from bench_kit import shipped_tiktoken

    print(f"load average {load()} at start", flush=True)
    tracemalloc.start()
    first = AppTest.from_file(APP, default_timeout=1800)
    first.run()
    tour(first)
    print(f"1. the first session, trained, every page visited: {held() / MB:.0f} MB (shared"
          f" caches included); load {load()}", flush=True)
    base = held()
    second = AppTest.from_file(APP, default_timeout=1800)
    second.run()
    tour(second)
    print(f"2. one more such session: +{(held() - base) / MB:.1f} MB; load {load()}", flush=True)
    base = held()
    third = AppTest.from_file(APP, default_timeout=1800)
    third.run()
    trained = held() - base
    third.switch_page("pages/exchange.py").run()
    third.selectbox(key="import_pattern").set_value("GPT-4 (cl100k_base)").run()
    third.text_input(key="import_specials").set_value("none").run()
    data = shipped_tiktoken("cl100k_base")
    third.file_uploader(key="import_file").set_value(
        [("cl100k_base.tiktoken", data, "application/octet-stream")]).run()
    tok = third.session_state["imported"][0]
    tokens = len(tok.vocab)
    read = held() - base - trained
    print(f"3. a session that imports cl100k_base ({tokens:,} tokens): +{read / MB:.1f} MB once"
          f" read ({read / tokens:.0f} B a token); load {load()}", flush=True)
    tour(third)
    toured = held() - base - trained
    print(f"   and once every page is visited with it: +{toured / MB:.1f} MB"
          f" ({toured / tokens:.0f} B a token); load {load()}", flush=True)


if __name__ == "__main__":
    main()
