"""The Chat tokens page in a real browser: the ids it shows are tiktoken's o200k_harmony ids of
the conversation as gpt-oss reads it (the page's first choice; tests/core/test_chat_gpt_oss.py
holds it against openai-harmony), and the special tokens are marked."""

from __future__ import annotations

import pytest
from parity_corpus import tiktoken_harmony
from test_app_browser import no_exception

from bpe_core.chat import Message, wrap
from ui.chat.panel import DEFAULT_CONVERSATION

try:
    from playwright.sync_api import expect
except ImportError:  # conftest.py skips these tests, or fails them when CI=true
    expect = None

pytestmark = [pytest.mark.browser, pytest.mark.timeout(180)]


def shown_ids(app) -> list[int]:
    return [int(t) for t in app.main.locator(".bpe-chat .id").all_text_contents()]


def test_chat_view_shows_tiktokens_harmony_ids_and_marks_special_tokens(app):
    reference = tiktoken_harmony()
    view = app.main.locator(".bpe-chat")
    app.go("Chat tokens", view)
    no_exception(app)
    specials = app.main.locator(".bpe-chat .special")
    expect(specials.first).to_be_visible()
    # <|start|> <|message|> <|end|> per message and for gpt-oss's own system message, <|channel|>
    # for the answer, <|start|> to reply
    expect(specials).to_have_count(3 + 3 * 3 + 1 + 1)
    assert "special token" in specials.first.get_attribute("title")

    app.main.get_by_text("Show ids instead of text").click()
    app.wait_idle(app.main.locator(".bpe-chat .id"))
    text = wrap(DEFAULT_CONVERSATION, "gpt-oss").text
    assert shown_ids(app) == reference.encode(text, allowed_special="all")

    box = app.main.get_by_label("Message 2", exact=True)
    box.fill("Wie viele Tokens hat 日本語? 🙂")
    box.press("Control+Enter")
    app.wait_idle()
    no_exception(app)
    changed = [*DEFAULT_CONVERSATION]
    changed[1] = Message("user", "Wie viele Tokens hat 日本語? 🙂")
    expected = reference.encode(wrap(changed, "gpt-oss").text, allowed_special="all")
    expect(app.main.locator(".bpe-chat .id")).to_have_count(len(expected))
    assert shown_ids(app) == expected
