"""The Chat page's "gpt-oss" rendering against openai-harmony (a test-only reference): the ids
gpt-oss reads for a conversation, its own system message first and the conversation's system text
as developer instructions, are openai-harmony's ids, one for one. openai-harmony reads OpenAI's
o200k file from the folder TIKTOKEN_ENCODINGS_BASE names: the published file, rebuilt from what
ships in bpe_core/data and checked against its SHA-256 (tests/parity_corpus.py), never the
network."""

from __future__ import annotations

import os

import openai_harmony as harmony  # requirements-dev.txt
import pytest
from parity_corpus import openai_files_dir

from bpe_core.chat import PREAMBLE, Message, wrap


@pytest.fixture(scope="module")
def encoding():
    os.environ["TIKTOKEN_ENCODINGS_BASE"] = str(openai_files_dir())
    return harmony.load_harmony_encoding(harmony.HarmonyEncodingName.HARMONY_GPT_OSS)


def reference(encoding, messages: list[Message]) -> list[int]:
    """openai-harmony's prompt for the conversation, ready for the assistant's reply."""
    h = harmony
    out = [h.Message.from_role_and_content(h.Role.SYSTEM, h.SystemContent.new())]
    for m in messages:
        if m.role in ("system", "developer"):
            out.append(h.Message.from_role_and_content(
                h.Role.DEVELOPER, h.DeveloperContent.new().with_instructions(m.content)))
        elif m.role == "user":
            out.append(h.Message.from_role_and_content(h.Role.USER, m.content))
        else:
            out.append(h.Message.from_role_and_content(h.Role.ASSISTANT, m.content)
                       .with_channel("final"))
    convo = h.Conversation.from_messages(out)
    return list(encoding.render_conversation_for_completion(convo, h.Role.ASSISTANT))


CONVERSATIONS = {
    "the page's default": [
        Message("system", "You are a helpful assistant. Answer in one sentence."),
        Message("user", "What does a tokenizer do?"),
        Message("assistant",
                "It cuts text into tokens, the pieces a model reads, and gives each an id."),
    ],
    "a user alone": [Message("user", "Hi")],
    "other scripts": [Message("developer", "Réponds en français."),
                      Message("user", "Wie viele Tokens hat 日本語? 🙂")],
    "two turns": [Message("user", "2+2?"), Message("assistant", "4."),
                  Message("user", "And 3+3?")],
}


@pytest.mark.parametrize("name", CONVERSATIONS)
def test_gpt_oss_rendering_is_openai_harmonys(encoding, name):
    messages = CONVERSATIONS[name]
    chat = wrap(messages, "gpt-oss")
    expected = reference(encoding, messages)
    assert chat.ids == expected
    assert encoding.decode(expected) == chat.text
    # the minimal rendering, kept under its own name, is shorter by the system message and the
    # "# Instructions" headings: what the page's counts used to leave out
    minimal = wrap(messages, "harmony")
    assert chat.total - minimal.total == chat.preamble + sum(
        c.overhead for c, m in zip(chat.messages, messages) if m.role in ("system", "developer")
    ) - sum(c.overhead for c, m in zip(minimal.messages, messages) if m.role in ("system", "developer"))
    assert chat.preamble == sum(len(p.ids) for p in chat.parts if p.message == PREAMBLE) > 30


def test_the_default_conversation_costs_what_gpt_oss_reads(encoding):
    """The issue's numbers: the page counted 51 tokens where gpt-oss reads 104."""
    messages = CONVERSATIONS["the page's default"]
    assert wrap(messages, "harmony").total == 51
    assert wrap(messages, "gpt-oss").total == len(reference(encoding, messages)) == 104
