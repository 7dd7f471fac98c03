"""AppTest tests for the Chat tokens page: counts, the formats, your tokenizer, escaping."""

import pytest
from support import open_page

from bpe_core.chat import Message, openai_rule, wrap
from ui.chat.panel import DEFAULT_CONVERSATION

GPT_OSS = "gpt-oss, as it reads the prompt (harmony)"
HARMONY = "harmony, messages only (minimal)"
CHATML = "GPT-4 / GPT-3.5 (ChatML, cl100k_base)"


@pytest.fixture(scope="module")
def at():
    return open_page("pages/chat.py")


def metrics(app) -> list[int]:
    return [int(m.value.replace(",", "")) for m in app.metric]


def chat_view(app) -> str:
    return next(h.value for h in app.html if 'class="bpe-chat"' in h.value)


def test_what_gpt_oss_reads_is_shown_first_with_its_counts(at):
    chat = wrap(DEFAULT_CONVERSATION, "gpt-oss")
    total, text, wrapper = metrics(at)
    assert total == chat.total == text + wrapper == 104  # openai-harmony's count (tests/core)
    assert wrapper == chat.preamble + sum(m.overhead for m in chat.messages) + chat.reply
    table = at.dataframe[0].value
    assert list(table["message"]) == ["the model's system message", "1. system", "2. user",
                                      "3. assistant", "reply priming", "whole conversation"]
    view = chat_view(at)
    assert view.count('data-message="') == 5  # its system message, three messages, the priming
    assert "special" in view and "&lt;|start|&gt;" in view  # the special tokens, escaped
    assert "Instructions</span>" in view  # the system text, as the developer's instructions


def test_the_minimal_harmony_rendering_stays_under_its_own_name(at):
    at.radio(key="chat_format").set_value(HARMONY).run()
    assert not at.exception
    chat = wrap(DEFAULT_CONVERSATION, "harmony")
    assert metrics(at)[0] == chat.total == 51
    assert chat_view(at).count('data-message="') == 4  # three messages and the reply priming


def test_chatml_shows_openais_rule_and_the_same_total(at):
    at.radio(key="chat_format").set_value(CHATML).run()
    assert not at.exception
    total = metrics(at)[0]
    assert total == openai_rule(DEFAULT_CONVERSATION)
    assert any(f"gives {total:,} tokens" in c.value for c in at.caption)


def test_ids_view(at):
    at.radio(key="chat_format").set_value(HARMONY).run()
    at.toggle(key="chat_ids").set_value(True).run()
    view = chat_view(at)
    assert '<span class="id">200006</span>' in view  # <|start|>
    assert '<span class="id">200007</span>' in view  # <|end|>


def test_message_text_is_escaped_and_stays_text(at):
    at.toggle(key="chat_ids").set_value(False).run()
    at.text_area(key="chat_text_1").input("<b>bold</b> <|end|>").run()
    assert not at.exception
    view = chat_view(at)
    assert "<b>" not in view and "</b>" not in view
    assert view.count("&lt;") >= 3  # <b>, </b> and <|end|>, drawn as text
    user = wrap([Message("user", "<b>bold</b> <|end|>")], "harmony")
    assert user.messages[0].content == metrics(at)[1] - sum(
        m.content for i, m in enumerate(wrap(DEFAULT_CONVERSATION, "harmony").messages) if i != 1)


def test_your_tokenizer_without_chat_tokens_says_what_it_needs(at):
    at.radio(key="chat_format").set_value("Your tokenizer").run()
    assert not at.exception
    warning = at.warning[0].value
    assert "im\\_start" in warning or "im_start" in warning
    assert "Special tokens" in warning


def test_a_trained_tokenizer_with_chatml_tokens_wraps_with_its_ids():
    app = open_page()
    app.sidebar.text_input(key="specials").input("<|im_start|>, <|im_end|>").run()
    app.sidebar.button(key="train").click().run()
    app.switch_page("pages/chat.py").run()
    app.radio(key="chat_format").set_value("Your tokenizer").run()
    assert not app.exception
    assert not app.warning
    assert any("chatml" in c.value for c in app.caption)
    total, text, wrapper = metrics(app)
    assert total == text + wrapper and wrapper > 0


def test_hostile_message_and_name_stay_inert():
    from test_hostile import HTML, assert_ok

    app = open_page("pages/chat.py")
    app.text_area(key="chat_text_1").input(HTML).run()
    app.text_input(key="chat_name_1").input("<img src=x onerror=alert(1)>"[:64]).run()
    assert_ok(app, "chat harmony")
    assert any("no name" in c.value for c in app.caption)  # harmony leaves the name out, and says so
    app.radio(key="chat_format").set_value(CHATML).run()
    assert_ok(app, "chat chatml")


def test_a_message_longer_than_the_page_keeps_is_cut_with_a_note():
    from ui.chat.panel import MAX_MESSAGE_CHARS

    app = open_page("pages/chat.py")
    app.radio(key="chat_format").set_value(CHATML).run()
    long = "word " * (MAX_MESSAGE_CHARS // 5 + 300)  # 1,500 characters too many
    app.text_area(key="chat_text_1").input(long).run()
    assert not app.exception
    kept = long[:MAX_MESSAGE_CHARS]
    assert app.text_area(key="chat_text_1").value == kept
    notes = [i.value for i in app.info if "were cut" in i.value]
    assert notes == [f"Keeping the first {MAX_MESSAGE_CHARS:,} of {len(long):,} characters: the"
                     f" last {len(long) - MAX_MESSAGE_CHARS:,} were cut."]
    # the counts are those of the kept text
    messages = [DEFAULT_CONVERSATION[0], Message("user", kept), DEFAULT_CONVERSATION[2]]
    assert metrics(app)[0] == wrap(messages, "chatml").total
