"""Stop in a real browser ends a SentencePiece training's worker process (issue 43): the app
trains the other families of BPE in a worker of bpe_core.limits' pool, and Streamlit raises at
the progress bar's next update once Stop is pressed, where the worker is killed."""

from __future__ import annotations

import os
import re
import time

import pytest
from conftest import IDLE
from support import live_workers, random_words

try:
    from playwright.sync_api import expect
except ImportError:  # conftest.py skips these tests, or fails them when CI=true
    expect = None

pytestmark = [pytest.mark.browser, pytest.mark.timeout(120)]


def workers(server_pid: int) -> set[int]:
    """The server's live worker processes (bpe_core.limits.worker), by pid."""
    return set(live_workers(server_pid))


def test_stop_kills_the_worker_training_sentencepiece(context, served_app):
    page = context.new_page()
    page.goto(served_app.url + "/?family=sentencepiece&vocab=8192", wait_until="domcontentloaded")
    sidebar = page.get_by_test_id("stSidebar")
    train = sidebar.get_by_role("button", name="Train", exact=True)
    train.wait_for(state="visible")
    page.locator(IDLE).wait_for(state="attached")
    box = sidebar.get_by_label("Text", exact=True)
    box.fill(random_words(200_000))  # SentencePiece's worst at the app's cap: 3.6 s of CPU
    box.press("Control+Enter")
    expect(sidebar.get_by_text("press Train", exact=False)).to_be_visible()
    page.locator(IDLE).wait_for(state="attached")
    train.click()
    expect(sidebar.get_by_text(re.compile(r"^Merge [\d,]+ of [\d,]+$"))).to_be_visible()  # the bar
    during = workers(served_app.pid)
    assert during, "the training runs in a worker process"
    sidebar.get_by_role("button", name="Stop", exact=True).click()
    deadline = time.monotonic() + 3  # the bar's next update, the kill, and slack
    while during <= workers(served_app.pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    killed = during - workers(served_app.pid)
    assert killed, "the worker that was training is gone (killed, not left to finish)"
    assert not any(os.path.exists(f"/proc/{pid}") for pid in killed), "and reaped"
    expect(sidebar.get_by_text("Training was stopped; the previous tokenizer is kept.")).to_be_visible()
