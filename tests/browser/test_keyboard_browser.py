"""The keyboard alone, and motion, in Chromium: a learner who cannot use a mouse walks the whole
lesson with Tab, the arrow keys and Enter, seeing where the focus is; a learner who asks for
reduced motion gets the stepping view's Play at one step a second."""

from __future__ import annotations

import pytest
from conftest import DEFAULT_TIMEOUT_MS, open_app
from test_app_browser import no_exception

from ui.lesson.tutorial import STEPS

try:
    from playwright.sync_api import expect
except ImportError:  # conftest.py skips these tests, or fails them when CI=true
    expect = None

pytestmark = [pytest.mark.browser, pytest.mark.timeout(240)]

MAX_TABS = 200  # Tab presses allowed to reach a control from the top of the page

# What has the focus, and whether it is drawn: an outline or a ring (box-shadow) on the element or
# on the box Streamlit draws around it (a radio's circle, a button).
FOCUSED_JS = """() => {
  const el = document.activeElement;
  if (!el || el === document.body) return null;
  const drawn = [el, el.parentElement, el.nextElementSibling].filter(Boolean).some(e => {
    const s = getComputedStyle(e);
    return (s.outlineStyle !== 'none' && parseFloat(s.outlineWidth) > 0) || s.boxShadow !== 'none';
  });
  const key = el.closest('[class*=st-key-]');
  return {tag: el.tagName, type: el.type || '', text: (el.innerText || el.value || '').trim(),
          key: key ? [...key.classList].find(c => c.startsWith('st-key-')) : '', drawn};
}"""


def tab_to(page, want) -> dict:
    """Press Tab until ``want(focused)`` holds; the focused element's facts."""
    for _ in range(MAX_TABS):
        page.keyboard.press("Tab")
        focused = page.evaluate(FOCUSED_JS)
        if focused and want(focused):
            return focused
    raise AssertionError(f"{MAX_TABS} Tab presses never reached the control")


def test_the_lesson_by_keyboard_alone(app):
    page = app.page
    heading = app.main.get_by_role("heading", level=2)
    app.go("Lesson: BPE step by step", app.main.get_by_role("heading", name="Text to bytes"))
    page.locator("body").focus()
    page.evaluate("() => document.activeElement && document.activeElement.blur()")

    # Tab to the lesson's steps (a radio group), then the arrow keys walk all eight steps
    focused = tab_to(page, lambda f: f["key"] == "st-key-lesson_step" and f["type"] == "radio")
    assert focused["drawn"], f"the focus on the steps is not visible: {focused}"
    expect(heading.first).to_have_text(STEPS[0])
    for step in STEPS[1:]:
        page.keyboard.press("ArrowRight")
        app.wait_idle(app.main.get_by_role("heading", name=step.split(" · ")[1]))
        no_exception(app)
        # the focus stays on the steps after the page's rerun, so the next arrow moves on
        assert page.evaluate(FOCUSED_JS)["key"] == "st-key-lesson_step"

    # on to "◀ Previous step" with Tab, and Enter presses it
    focused = tab_to(page, lambda f: f["key"] == "st-key-lesson_prev")
    assert focused["drawn"], f"the focus on the button is not visible: {focused}"
    page.keyboard.press("Enter")
    app.wait_idle(app.main.get_by_role("heading", name=STEPS[-2].split(" · ")[1]))
    no_exception(app)


@pytest.mark.parametrize("motion", ["reduce", "no-preference"])
def test_play_honours_prefers_reduced_motion(browser, app_url, motion):
    context = browser.new_context(viewport={"width": 1400, "height": 1600}, reduced_motion=motion)
    context.set_default_timeout(DEFAULT_TIMEOUT_MS)
    try:
        app = open_app(context, app_url)
        speed = app.main.get_by_test_id("bpe-steps").get_by_label("Speed")
        app.go("Step through merges", speed)
        options = speed.locator("option").all_inner_texts()
        if motion == "reduce":
            assert options == ["1 step/s", "5 steps/s"]
            expect(speed).to_have_value("1")
        else:
            assert options[:4] == ["1 step/s", "5 steps/s", "20 steps/s", "60 steps/s"]
            expect(speed).to_have_value("20")
    finally:
        context.close()
