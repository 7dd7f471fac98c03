"""The lesson in a real browser, in projector mode: what the back row of a classroom sees.

The screenshots are written to the test's temporary folder (and, with BPE_LAB_SHOTS=<folder>,
there too) so that a person can look at them; the assertions check what makes projector mode
readable: large token text and large numbers.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

pytestmark = [pytest.mark.browser, pytest.mark.timeout(180)]

STEPS = ("3 · One merge by hand", "7 · Split first")


def font_px(locator) -> float:
    return float(locator.first.evaluate("e => parseFloat(getComputedStyle(e).fontSize)"))


def test_two_lesson_steps_in_projector_mode(app, tmp_path):
    page = app.page
    page.set_viewport_size({"width": 1400, "height": 1600})
    normal_token_px = None
    app.go("Lesson: BPE step by step", app.main.get_by_text("Lesson: BPE step by step"))
    app.sidebar.locator(".st-key-projector label").first.click()
    app.wait_idle(app.sidebar.locator(".st-key-projector input[type=checkbox]:checked"))
    folders = [tmp_path] + ([Path(os.environ["BPE_LAB_SHOTS"])] if "BPE_LAB_SHOTS" in os.environ
                            else [])
    for step in STEPS:
        page.locator(".st-key-lesson_step").get_by_text(step, exact=True).click()
        heading = app.main.get_by_role("heading", name=step.split(" · ")[1])
        app.wait_idle(heading, page.locator(".bpe-tokens.large"))
        tokens = page.locator(".bpe-tokens.large .t")
        assert tokens.count() > 0
        assert font_px(tokens) >= 24, "projector mode draws tokens at 1.6rem or more"
        if normal_token_px is None:
            assert font_px(page.get_by_test_id("stMetricValue")) >= 40
            normal_token_px = font_px(tokens)
        for folder in folders:
            folder.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(folder / f"lesson-projector-{step[0]}.png"))
        assert not app.main.get_by_test_id("stException").count()
