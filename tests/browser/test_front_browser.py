"""The first minutes in Chromium: tokens as you type on the front page ("Start here"), under the
sidebar's tokenizer and GPT-4o, with no run of the whole page per key; projector mode enlarges the
stepping view; the Merge forest opens at all merges.

Expected counts come from bpe_core (training is deterministic) and from tiktoken (GPT-4o). The
time from the last key to both views drawn is printed (run with ``-s``), never asserted: it
depends on the machine. What is asserted about work is a count: no full-page run while typing,
and at most one run of the fragment per key.
"""

from __future__ import annotations

import statistics
from collections import Counter

import pytest
from conftest import nav_here, nav_link
from parity_corpus import tiktoken_reference

import bpe_core
from benchmarks.front_typing import WATCH_JS
from ui.kit.samples import load_samples

try:
    from playwright.sync_api import expect
except ImportError:  # conftest.py skips these tests, or fails them when CI=true
    expect = None

pytestmark = [pytest.mark.browser, pytest.mark.timeout(240)]

ENGLISH = load_samples()["English prose"]
START = ENGLISH[:2040]  # about 2 KB of text in the box before typing
TYPED = [" token", " merges", " again", " bytes", " pairs"]  # one word per round
IDLE = "[data-testid=stApp][data-test-script-state=notRunning]"


def trained(text: str, vocab_size: int = 512) -> bpe_core.RegexTokenizer:
    tok = bpe_core.RegexTokenizer()  # the sidebar's default: "Train: GPT-4 split"
    tok.train(text, vocab_size)
    return tok


def count_runs(page) -> Counter:
    """Script runs the server reports to this page, by how they ended: "full" (the whole page),
    "fragment" (one fragment), "interrupted" (stopped for a newer run). Read from the app's
    websocket: every run ends with a ``script_finished`` message."""
    from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

    kinds = {ForwardMsg.FINISHED_SUCCESSFULLY: "full",
             ForwardMsg.FINISHED_FRAGMENT_RUN_SUCCESSFULLY: "fragment",
             ForwardMsg.FINISHED_EARLY_FOR_RERUN: "interrupted"}
    runs = Counter()

    def frame(payload) -> None:
        if isinstance(payload, bytes | bytearray):
            msg = ForwardMsg()
            msg.ParseFromString(bytes(payload))
            if msg.WhichOneof("type") == "script_finished":
                runs[kinds.get(msg.script_finished, "other")] += 1

    page.on("websocket", lambda ws: ws.on("framereceived", frame))
    return runs


@pytest.fixture
def front(context, app_url):
    """A new session on the front page, with its script runs counted."""
    page = context.new_page()
    runs = count_runs(page)
    page.goto(app_url, wait_until="domcontentloaded")
    page.locator('[data-view="gpt-4o"]').wait_for(state="visible")
    page.locator(IDLE).wait_for(state="attached")
    return page, runs


def views(page) -> tuple[str, str]:
    return (page.locator('[data-view="yours"]').get_attribute("data-tokens"),
            page.locator('[data-view="gpt-4o"]').get_attribute("data-tokens"))


def test_typing_updates_both_token_views_without_a_page_run(front):
    page, runs = front
    tok, gpt4o = trained(ENGLISH), tiktoken_reference("o200k_base")
    box = page.get_by_label("Type here")
    expect(box).to_have_value(ENGLISH)  # the box starts from the sidebar's text
    box.fill(START)
    expect(page.locator('[data-view="yours"]')).to_have_attribute(
        "data-tokens", str(len(tok.encode(START))))
    expect(page.locator('[data-view="gpt-4o"]')).to_have_attribute(
        "data-tokens", str(len(gpt4o.encode(START))))
    page.locator(IDLE).wait_for(state="attached")
    before = Counter(runs)

    text, times, keys = START, [], 0
    for word in TYPED:
        text += word
        mine, theirs = len(tok.encode(text)), len(gpt4o.encode(text))
        page.evaluate(WATCH_JS, [mine, theirs, text[-12:]])
        box.press("Control+End")
        box.press_sequentially(word, delay=80)  # a quick typist: 80 ms between keys
        keys += len(word)
        page.wait_for_function("() => window.__bpeType.done !== null")
        times.append(page.evaluate("() => window.__bpeType.done - window.__bpeType.key"))
        assert views(page) == (str(mine), str(theirs))
        expect(page.locator('[data-side="gpt-4o"] .count')).to_have_text(f"{theirs:,}")
    drawn_by_route = (runs - before)["fragment"]  # runs while the views followed the keys
    # the page's script hears the text once the user pauses: one run of the fragment
    for _ in range(100):
        if (runs - before)["fragment"]:
            break
        page.wait_for_timeout(100)
    page.locator(IDLE).wait_for(state="attached")
    during = runs - before
    assert during["full"] == 0, f"the whole page ran while typing: {dict(during)}"
    assert 1 <= during["fragment"] <= keys, dict(during)  # at most one run per key
    # ... and the script kept what was typed: another page and back shows it
    nav_link(page, "Tokens").click()
    page.locator(IDLE).wait_for(state="attached")
    nav_link(page, "Start here").click()
    expect(box).to_have_value(text)
    print(f"\nfront page, {len(text.encode()):,} bytes: last key to both views drawn, ms: "
          f"{[round(t) for t in times]}, median {statistics.median(times):.0f} "
          f"(fragment runs {during['fragment']}, {drawn_by_route} of them while typing, "
          f"interrupted {during['interrupted']}, "
          f"keys {keys})")


def sent_reruns(page) -> list[tuple[str, str]]:
    """The runs this page asks the server for, in the order sent: (page's script hash, fragment
    id), the fragment id empty for a run of the whole page. Read from the app's websocket."""
    from streamlit.proto.BackMsg_pb2 import BackMsg

    sent = []

    def frame(payload) -> None:
        if isinstance(payload, bytes | bytearray):
            msg = BackMsg()
            msg.ParseFromString(bytes(payload))
            if msg.WhichOneof("type") == "rerun_script":
                sent.append((msg.rerun_script.page_script_hash, msg.rerun_script.fragment_id))

    page.on("websocket", lambda ws: ws.on("framesent", frame))
    return sent


def test_what_was_typed_is_kept_when_the_learner_leaves_at_once(context, app_url):
    """Typing, then a click on another page before the pause that would tell the script: the
    other page is drawn, whole (it was blank, with nothing running, in 6 runs of 8: the box told
    its fragment after the click, and that late run of the old page cleared the new one), and
    nothing of the old page's fragment is asked for after the page change; coming back shows the
    typed text."""
    page = context.new_page()
    sent = sent_reruns(page)
    page.goto(app_url, wait_until="domcontentloaded")
    page.locator('[data-view="gpt-4o"]').wait_for(state="visible")
    page.locator(IDLE).wait_for(state="attached")
    box = page.get_by_label("Type here")
    box.fill("first words")
    box.press("End")
    box.press_sequentially(" and more", delay=20)
    before = len(sent)
    nav_link(page, "Tokens").click()
    main = page.get_by_test_id("stMain")
    expect(main.get_by_role("heading", name="Tokens", exact=True)).to_be_visible()
    expect(main.locator(".bpe-tokens .t").first).to_be_visible()
    expect(page.get_by_test_id("stSidebar").get_by_label("Text", exact=True)).to_be_visible()
    page.locator(IDLE).wait_for(state="attached")
    asked = sent[before:]
    change = next(i for i, (_, fragment) in enumerate(asked) if not fragment)  # to Tokens
    assert [run for run in asked[change + 1:] if run[1]] == [], asked
    nav_link(page, "Start here").click()
    expect(box).to_have_value("first words and more")
    expect(page.locator('[data-view="gpt-4o"]')).to_have_attribute(
        "data-tokens", str(len(tiktoken_reference("o200k_base").encode("first words and more"))))


def test_hostile_text_is_drawn_as_text(front):
    page, _ = front
    box = page.get_by_label("Type here")
    box.fill("")
    box.press_sequentially('<img src=x onerror="window.__pwned=1"><b>hi</b>', delay=5)
    for which in ("yours", "gpt-4o"):
        view = page.locator(f'[data-view="{which}"]')
        expect(view).to_contain_text('<img src=x onerror="window.__pwned=1"><b>hi</b>')
        assert view.locator("img, b").count() == 0
    assert page.evaluate("() => window.__pwned") is None


def test_the_box_reads_special_token_text_by_the_sidebars_rule_and_says_so(front):
    """The route answers each key under the rule the sidebar chose, and each view says it."""
    page, _ = front
    gpt4o = tiktoken_reference("o200k_base")
    box = page.get_by_label("Type here")
    text = "the end<|endoftext|>the start"
    box.fill(text)  # typed: the route answers, no page run
    theirs = page.locator('[data-view="gpt-4o"]')
    note = page.locator('[data-side="gpt-4o"] .rule')
    expect(theirs).to_have_attribute("data-tokens",
                                     str(len(gpt4o.encode(text, disallowed_special=()))))
    expect(note).to_have_text("special tokens read as text · <|endoftext|> appears 1 time; "
                              "read as text")
    page.locator(IDLE).wait_for(state="attached")
    page.get_by_test_id("stSidebar").get_by_text("Read as special tokens").click()
    expect(note).to_contain_text("read as the special token")
    expect(theirs).to_have_attribute("data-tokens",
                                     str(len(gpt4o.encode(text, allowed_special="all"))))
    page.locator(IDLE).wait_for(state="attached")
    answered = []  # what the route answers from now on: (text asked, GPT-4o's ids)
    page.on("response", lambda r: answered.append(
        (r.request.post_data_json["text"], r.json()["views"]["gpt-4o"]["ids"]))
        if r.url.endswith("/_bpelab/front/tokens") and r.ok else None)
    box.press("Control+End")
    box.press_sequentially("<|endoftext|>", delay=5)  # the first key is asked of the route
    expect(theirs).to_have_attribute("data-tokens", str(len(gpt4o.encode(
        text + "<|endoftext|>", allowed_special="all"))))
    expect(note).to_contain_text("<|endoftext|> appears 2 times; read as the special token")
    assert answered  # the route answered under the rule chosen, as the page's script does
    assert all(ids == gpt4o.encode(asked, allowed_special="all") for asked, ids in answered)


PASTE_JS = """([text]) => {
  const box = document.querySelector('[data-testid=bpe-type] textarea');
  box.focus();
  box.setSelectionRange(box.value.length, box.value.length);
  const data = new DataTransfer();
  data.setData('text/plain', text);
  box.dispatchEvent(new ClipboardEvent('paste', {clipboardData: data, bubbles: true,
                                                 cancelable: true}));
  return box.value.length;
}"""


def test_a_paste_too_long_for_the_box_says_how_much_was_cut(front):
    """The box keeps MAX_FRONT_CHARS characters; the browser cuts a longer paste without a word,
    so the box says by how much and where a longer text goes."""
    from ui.front.component import MAX_FRONT_CHARS
    from ui.kit.choices import MAX_TEXT_CHARS

    page, _ = front
    box = page.get_by_label("Type here")
    box.fill("abc ")
    note = page.locator("[data-testid=bpe-type] .cut")
    expect(note).to_be_hidden()
    page.evaluate(PASTE_JS, ["x" * 100])  # fits: no note
    expect(note).to_be_hidden()
    page.evaluate(PASTE_JS, ["y" * 50_000])
    expect(note).to_be_visible()
    cut = 50_000 - (MAX_FRONT_CHARS - 4)
    expect(note).to_have_text(
        f"Your paste was 50,000 characters; this box keeps {MAX_FRONT_CHARS:,}, so the last "
        f"{cut:,} were cut. For a longer text, paste it in the sidebar's Text or upload it there "
        f"as a file (up to {MAX_TEXT_CHARS:,} characters).")
    assert note.get_attribute("role") == "status"  # a screen reader hears it
    # characters are code points, in the note and the counter alike: an emoji is one (two UTF-16
    # units in the browser's strings)
    box.fill("")
    page.evaluate(PASTE_JS, ["a😀" * 3_000])
    expect(note).to_contain_text(f"Your paste was 6,000 characters; this box keeps "
                                 f"{MAX_FRONT_CHARS:,}, so the last 1,000 were cut.")
    expect(page.locator("[data-testid=bpe-type] .left")).to_have_text(
        f"{MAX_FRONT_CHARS:,} of {MAX_FRONT_CHARS:,} characters")
    assert box.input_value() == ("a😀" * 3_000)[:MAX_FRONT_CHARS]


def test_without_the_route_the_pages_script_draws_the_views(front):
    """A server that restarted, or a route that fails: the box asks once, then lets the
    fragment draw, a moment after the last key (ui/front/component.py's DEBOUNCE_MS)."""
    page, runs = front
    asked = []

    def refuse(route):
        asked.append(route.request.url)
        route.fulfill(status=404, body='{"views": null}', content_type="application/json")

    page.route("**/_bpelab/front/tokens", refuse)
    tok, gpt4o = trained(ENGLISH), tiktoken_reference("o200k_base")
    box = page.get_by_label("Type here")
    box.press("Control+End")
    box.press_sequentially(" no route here", delay=40)
    text = ENGLISH + " no route here"
    expect(page.locator('[data-view="yours"]')).to_have_attribute(
        "data-tokens", str(len(tok.encode(text))))
    expect(page.locator('[data-view="gpt-4o"]')).to_have_attribute(
        "data-tokens", str(len(gpt4o.encode(text))))
    assert len(asked) == 1, asked  # asked once; after a refusal the script draws
    assert runs["fragment"] >= 1


def font_px(locator) -> float:
    """The element's computed font size. A span the view is redrawing at that moment (its
    replaceChildren) has none (NaN): read again once it is back in the page."""
    for _ in range(50):
        px = float(locator.evaluate("e => parseFloat(getComputedStyle(e).fontSize)"))
        if px == px:
            return px
        locator.page.wait_for_timeout(100)
    return px


def test_projector_mode_enlarges_the_stepping_view_and_the_front_page(front):
    page, _ = front
    sidebar = page.get_by_test_id("stSidebar")
    box = page.get_by_label("Type here")
    token = page.locator('[data-view="yours"] .bpe-tokens .t').first
    front_sizes = font_px(box), font_px(token)
    nav_link(page, "Step through merges").click()
    steps = page.get_by_test_id("bpe-steps")
    expect(steps).to_be_visible()
    page.locator(IDLE).wait_for(state="attached")  # the view drawn from this page's data
    span, button = steps.locator(".tokens span").first, steps.locator("button.play")
    normal = font_px(span), font_px(button), font_px(steps.locator("select.speed"))
    normal_height = button.evaluate("b => b.getBoundingClientRect().height")

    sidebar.locator(".st-key-projector label").first.click()
    page.locator(".st-key-projector input[type=checkbox]:checked").wait_for(state="attached")
    page.locator(IDLE).wait_for(state="attached")
    # the span is found again at each try: the view may redraw its spans (replaceChildren),
    # and a handle to the old span would read no size for ever
    for _ in range(200):
        if font_px(span) > 20:
            break
        page.wait_for_timeout(100)
    large = font_px(span), font_px(button), font_px(steps.locator("select.speed"))
    assert large[0] >= 1.5 * normal[0], (normal, large)  # tokens
    assert large[1] >= 1.5 * normal[1] and large[2] >= 1.5 * normal[2], (normal, large)
    height = button.evaluate("b => b.getBoundingClientRect().height")
    assert height >= 1.4 * normal_height, "the buttons grow with their text"

    nav_link(page, "Start here").click()
    expect(box).to_be_visible()
    page.locator(IDLE).wait_for(state="attached")
    assert font_px(box) >= 1.5 * front_sizes[0]
    assert font_px(page.locator('[data-view="yours"] .bpe-tokens .t').first) >= 1.5 * front_sizes[1]


def test_the_merge_forest_opens_at_all_merges_after_the_step_page(front):
    page, _ = front
    n = trained(ENGLISH).num_merges
    nav_link(page, "Step through merges").click()
    expect(page.get_by_test_id("bpe-steps")).to_have_attribute("data-step", "1")
    nav_link(page, "Merge forest").click()
    nav_here(page, "Merge forest").wait_for(state="attached")  # the forest's run has begun
    # the forest's own slider (the step page's "Merges applied (k)" may still be there while
    # the forest's run starts)
    slider = page.locator(".st-key-forest_step").get_by_role("slider", name="Merges applied")
    expect(slider).to_be_attached()
    page.locator(IDLE).wait_for(state="attached")
    value = slider.evaluate("e => e.getAttribute('aria-valuenow') ?? e.value")
    assert value == str(n), f"the forest opened at step {value}, not at all {n} merges"
