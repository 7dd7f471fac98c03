"""The in-browser stepping view (ui/stepping/component.py) in Chromium: it draws exactly the tokens
bpe_core gives at each step, plays to the end without the server, tells the server where it
stopped, and keeps hostile text as text. Expected ids come from bpe_core itself."""

from __future__ import annotations

import pytest
from conftest import DEFAULT_TIMEOUT_MS, open_app

import bpe_core
from ui.kit.samples import load_samples
from ui.kit.tokens_html import token_text

try:
    from playwright.sync_api import expect
except ImportError:  # conftest.py skips these tests, or fails them when CI=true
    expect = None

pytestmark = [pytest.mark.browser, pytest.mark.timeout(120)]

ENGLISH = load_samples()["English prose"]
MIXED = ("Tokens 👋🏽 and 你好 meet <|endoftext|> again: naïve café, ☕️ ok!\n"
         "\t tab\u2003em\u00a0nbsp\u2028line\u200dzwj\u202eRTL\n") * 12
HOSTILE = "<img src=x onerror=\"document.title='pwned'\"><script>document.title='pwned'</script>"


def trained(text: str, vocab_size: int = 512) -> bpe_core.RegexTokenizer:
    tok = bpe_core.RegexTokenizer()  # the sidebar's default: "Train: GPT-4 split"
    tok.train(text, vocab_size)
    return tok


def view(app):
    root = app.main.get_by_test_id("bpe-steps")
    expect(root).to_be_visible()
    return root, root.get_by_role("slider", name="Merges applied (k)")


def shown_ids(root) -> list[int]:
    return [int(i) for i in root.locator(".tokens span").evaluate_all(
        "spans => spans.map(s => s.dataset.id)")]


def go_to(app, root, slider, k: int) -> None:
    slider.evaluate("(s, k) => { s.value = String(k); s.dispatchEvent(new Event('input')); }", k)
    expect(root).to_have_attribute("data-step", str(k))


def test_every_step_drawn_is_bpe_cores_tokens(app):
    app.set_text(MIXED)
    app.sidebar.get_by_label("Special tokens (comma-separated)").fill("<|endoftext|>")
    # the text's <|endoftext|> as the special token (the sidebar's default reads it as text)
    app.sidebar.get_by_text("Read as special tokens").click()
    app.wait_idle()
    app.train()
    app.go("Step through merges")
    root, slider = view(app)
    tok = bpe_core.RegexTokenizer()  # as the sidebar trains: cut at the special token, which
    tok.train(MIXED, 512, special_tokens=["<|endoftext|>"])  # counts in the vocabulary size
    steps = tok.step_through(MIXED, allowed_special="all")
    counts = steps.token_counts()
    for k in (0, 1, 7, tok.num_merges // 2, tok.num_merges):
        go_to(app, root, slider, k)
        spans = steps.tokens_at(k)
        assert shown_ids(root) == [s.id for s in spans], k
        expect(root).to_have_attribute("data-tokens", str(counts[k]))
        ratio = steps.num_bytes / counts[k]
        expect(root).to_contain_text(f"{counts[k]:,} tokens · compression {ratio:.2f}×")
        # spelled as every other page spells a token: glyphs, and half characters in hex
        texts = root.locator(".tokens span").all_text_contents()
        assert texts == [token_text(s.token) for s in spans], k
    # one merge at a time, forwards and back: the view joins and splits only what changes
    go_to(app, root, slider, 3)
    slider.focus()
    for key, k in [("ArrowRight", 4), ("ArrowRight", 5), ("ArrowRight", 6), ("ArrowLeft", 5),
                   ("ArrowLeft", 4), ("ArrowLeft", 3), ("ArrowLeft", 2)]:
        slider.press(key)
        expect(root).to_have_attribute("data-step", str(k))
        assert shown_ids(root) == [s.id for s in steps.tokens_at(k)], (key, k)
        new = root.locator(".tokens span.new").evaluate_all("s => s.map(x => +x.dataset.id)")
        assert new == [s.id for s in steps.tokens_at(k) if s.new], k


def test_gpt4o_steps_in_the_browser_too(app):
    """199,742 merges: the steps need 32 bits; ids come from the window's own step table."""
    app.sidebar.get_by_label("Tokenizer").click()
    app.page.get_by_role("option", name="Pretrained: GPT-4o (o200k_base)").click()
    app.wait_idle()
    app.go("Step through merges")
    root, slider = view(app)
    steps = bpe_core.load_pretrained("o200k_base").step_through(ENGLISH, allowed_special="all")
    for k in (0, 300, 20_000, 199_742):
        go_to(app, root, slider, k)
        assert shown_ids(root) == [s.id for s in steps.tokens_at(k)], k


def test_keys_step_and_the_server_follows_when_the_user_stops(app):
    app.go("Step through merges")
    root, slider = view(app)
    tok = trained(ENGLISH)
    n = tok.num_merges
    expect(root).to_have_attribute("data-step", "1")
    slider.focus()
    slider.press("End")
    expect(root).to_have_attribute("data-step", str(n))
    slider.press("Home")
    slider.press("ArrowRight")
    slider.press("ArrowRight")
    expect(root).to_have_attribute("data-step", "2")
    # 300 ms after the last key the server hears it: its metrics, merge card and chart follow
    expect(app.metric("Step")).to_have_text(f"2 of {n}")
    counts = tok.step_through(ENGLISH).token_counts()
    expect(app.metric("Tokens")).to_have_text(f"{counts[2]:,}")


def test_play_reaches_the_last_merge_and_the_server_hears_it_once(app):
    app.go("Step through merges")
    root, _ = view(app)
    n = trained(ENGLISH).num_merges
    speed = root.get_by_label("Speed")
    speed.select_option(index=speed.locator("option").count() - 1)  # the fastest
    root.get_by_role("button", name="Play").click()
    expect(root.get_by_role("button", name="Pause")).to_be_visible()
    expect(root).to_have_attribute("data-step", str(n), timeout=15_000)
    expect(root.get_by_role("button", name="Play")).to_be_visible()
    expect(app.metric("Step")).to_have_text(f"{n} of {n}")


def test_hostile_text_is_drawn_as_text(app):
    app.set_text(HOSTILE)
    app.train()
    app.go("Step through merges")
    root, slider = view(app)
    go_to(app, root, slider, 0)
    assert root.locator("img, script").count() == 0
    assert "<script>" in root.locator(".tokens").text_content()
    assert app.page.title() != "pwned"


def test_on_a_phone_the_stepping_view_breaks_lines_between_words(browser, app_url):
    """Spaces are drawn as "·" (no place to break a line): at 390 px the view still breaks its
    lines between words, never inside a token."""
    context = browser.new_context(viewport={"width": 390, "height": 844})
    context.set_default_timeout(DEFAULT_TIMEOUT_MS)
    try:
        app = open_app(context, app_url)
        app.go("Step through merges", app.main.get_by_test_id("bpe-steps"))
        root, slider = view(app)
        go_to(app, root, slider, trained(ENGLISH).num_merges)  # whole words, the longest tokens
        spans = root.locator(".tokens span")
        lines = spans.evaluate_all("ss => new Set(ss.map(s => Math.round(s.getBoundingClientRect()"
                                   ".top))).size")
        assert lines > 20  # the text runs over many lines on a phone
        split = spans.evaluate_all(
            "ss => ss.filter(s => !s.querySelector('br')"
            " && [...s.getClientRects()].filter(r => r.width > 0.5).length > 1)"
            ".map(s => s.textContent)")  # (a line may end in the empty break before a token)
        assert split == [], f"tokens broken across two lines: {split[:10]}"
    finally:
        context.close()
