"""Chat wrapping: harmony ids equal tiktoken's o200k_harmony; ChatML counts equal OpenAI's rule."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from parity_corpus import openai_files_dir, tiktoken_harmony

from bpe_core import RegexTokenizer
from bpe_core.chat import Message, openai_rule, own_format, wrap
from bpe_core.pretrained import GPT4_SPLIT_PATTERN

CONVERSATIONS = [
    [Message("user", "Hi")],
    [Message("system", "You are a terse assistant."), Message("user", "What is BPE?"),
     Message("assistant", "Byte pair encoding: merge the most frequent pair, repeat."),
     Message("user", "Und auf Deutsch? 日本語でも。 🙂")],
    [Message("developer", "Answer in one word.\n\nNo punctuation."),
     Message("user", "  leading spaces, trailing newline\n"),
     Message("assistant", "OK")],
]


@pytest.fixture(scope="module")
def harmony_reference():
    return tiktoken_harmony()


@pytest.fixture(scope="module")
def chatml_reference():
    """cl100k_base with <|im_start|> and <|im_end|>, as tiktoken's README extends it."""
    import tiktoken
    import tiktoken.load
    import tiktoken_ext.openai_public as public

    path = str(openai_files_dir() / "cl100k_base.tiktoken")
    original = public.load_tiktoken_bpe
    public.load_tiktoken_bpe = lambda url, expected_hash=None: original(path, expected_hash)
    try:
        base = public.cl100k_base()
    finally:
        public.load_tiktoken_bpe = original
    base["special_tokens"] = {**base["special_tokens"], "<|im_start|>": 100264,
                              "<|im_end|>": 100265}
    return tiktoken.Encoding(**{**base, "name": "cl100k_im"})


@pytest.mark.parametrize("messages", CONVERSATIONS)
def test_harmony_ids_equal_tiktokens(harmony_reference, messages):
    chat = wrap(messages, "harmony")
    assert chat.ids == harmony_reference.encode(chat.text, allowed_special="all")
    assert chat.text.startswith(f"<|start|>{messages[0].role}<|message|>{messages[0].content}")
    assert chat.text.endswith("<|end|><|start|>assistant")


def test_harmony_marks_its_special_tokens(harmony_reference):
    chat = wrap(CONVERSATIONS[1], "harmony")
    specials = [part.text for part in chat.parts if part.special]
    assert specials[:3] == ["<|start|>", "<|message|>", "<|end|>"]
    assert "<|channel|>" in specials  # the assistant's answer goes to the final channel
    for part in chat.parts:
        assert part.special == (len(part.ids) == 1 and harmony_reference.is_special_token(
            part.ids[0]))


def test_message_text_that_spells_a_special_token_stays_text(harmony_reference):
    messages = [Message("user", "please print <|end|> and <|start|>")]
    chat = wrap(messages, "harmony")
    content = next(part for part in chat.parts if part.content)
    assert content.ids == harmony_reference.encode_ordinary(messages[0].content)
    assert 200007 not in content.ids and 200006 not in content.ids
    assert chat.messages[0].content == len(content.ids)


def test_typed_special_token_text_read_as_the_special_token_when_asked(chatml_reference):
    """allowed_special="all": a message's own text reads as tiktoken's encode(content,
    allowed_special="all"); the format's tokens around it are special either way."""
    content = "one<|endoftext|>two <|im_end|> three"
    messages = [Message("user", content)]
    as_text, as_special = wrap(messages, "chatml"), wrap(messages, "chatml", allowed_special="all")
    part = next(p for p in as_special.parts if p.content)
    assert part.ids == chatml_reference.encode(content, allowed_special="all")
    assert 100257 in part.ids and 100265 in part.ids  # <|endoftext|>, <|im_end|>: one id each
    assert as_special.messages[0].content == len(part.ids)
    assert as_text.messages[0].content == len(chatml_reference.encode(content,
                                                                     disallowed_special=()))
    # the wrapper is the same under both readings, and so is its share of OpenAI's rule
    assert as_special.messages[0].overhead == as_text.messages[0].overhead == 4
    assert openai_rule(messages, allowed_special="all") == as_special.total
    assert openai_rule(messages) == as_text.total
    with pytest.raises(ValueError, match="'none' .* or 'all'"):
        wrap(messages, "chatml", allowed_special="some")


def test_harmony_overhead_per_message(harmony_reference):
    chat = wrap(CONVERSATIONS[1], "harmony")
    def n(text):
        return len(harmony_reference.encode_ordinary(text))

    # <|start|> role <|message|> ... <|end|>; an assistant adds <|channel|> final
    assert [m.overhead for m in chat.messages] == [
        3 + n("system"), 3 + n("user"), 4 + n("assistant") + n("final"), 3 + n("user")]
    assert chat.reply == 1 + n("assistant")
    assert chat.total == sum(m.total for m in chat.messages) + chat.reply == len(chat.ids)


def cookbook_count(enc, messages: list[dict]) -> int:
    """OpenAI's rule, as the cookbook states it for gpt-3.5-turbo-0613 and gpt-4: 3 tokens per
    message, the tokens of every value, 1 more for a name, 3 to prime the reply."""
    total = 3
    for message in messages:
        total += 3
        for key, value in message.items():
            total += len(enc.encode(value))
            if key == "name":
                total += 1
    return total


@pytest.mark.parametrize("messages", [
    *CONVERSATIONS,
    [Message("system", "Be brief."), Message("user", "Hello", name="alice"),
     Message("user", "And me", name="bob_2")],
])
def test_chatml_total_is_openais_rule(chatml_reference, messages):
    as_dicts = [{k: v for k, v in m._asdict().items() if v is not None} for m in messages]
    chat = wrap(as_dicts, "chatml")
    assert chat.total == cookbook_count(chatml_reference, as_dicts)
    for m, count in zip(messages, chat.messages, strict=True):
        expected = 3 + len(chatml_reference.encode(m.role))
        if m.name:
            expected += 1 + len(chatml_reference.encode(m.name))
        assert count.overhead == expected
    assert chat.reply == 3


def test_chatml_ids_are_tiktokens(chatml_reference):
    messages = CONVERSATIONS[1]  # no names; each text starts with a letter
    chat = wrap(messages, "chatml")
    assert chat.ids == chatml_reference.encode(chat.text, allowed_special="all")
    assert chat.ids[0] == 100264 and 100265 in chat.ids


def test_your_tokenizer_wraps_with_its_own_special_tokens():
    tok = RegexTokenizer(GPT4_SPLIT_PATTERN)
    tok.train("user: hello there. assistant: hi! " * 20, 300,
              special_tokens=["<|im_start|>", "<|im_end|>"])
    assert own_format(tok) == "chatml"
    chat = wrap(CONVERSATIONS[0], "chatml", tok)
    start, end = tok.special_tokens["<|im_start|>"], tok.special_tokens["<|im_end|>"]
    assert chat.ids[0] == start and end in chat.ids
    content = next(part for part in chat.parts if part.content)
    assert content.ids == tok.encode_ordinary("Hi")
    assert chat.text.startswith("<|im_start|>user\nHi<|im_end|>")


def test_a_tokenizer_without_chat_tokens_says_what_it_needs():
    tok = RegexTokenizer(GPT4_SPLIT_PATTERN)
    tok.train("hello hello world", 260)
    assert own_format(tok) is None
    with pytest.raises(ValueError) as info:
        wrap(CONVERSATIONS[0], "chatml", tok)
    message = str(info.value)
    for needed in ("<|im_start|>", "<|im_end|>", "<|start|>", "<|message|>", "register_special_tokens"):
        assert needed in message


@pytest.mark.parametrize(("messages", "words"), [
    ([{"role": "robot", "content": "x"}], "unknown role"),
    ([{"content": "x"}], "needs 'role'"),
    ("just text", "must be a list"),
    ([Message("user", b"bytes")], "must be str"),
])
def test_bad_messages_are_named(messages, words):
    with pytest.raises(ValueError, match=words):
        wrap(messages, "harmony")


def test_harmony_loads_first_in_a_fresh_process():
    """o200k_harmony builds on o200k_base: loading it first must not wait on itself."""
    root = Path(__file__).resolve().parents[2]
    done = subprocess.run(
        [sys.executable, "-c", "import bpe_core; print(bpe_core.get_encoding('o200k_harmony')"
         ".encode('<|call|>', allowed_special='all'))"],
        cwd=root, capture_output=True, text=True, timeout=120)
    assert done.stdout.strip() == "[200012]", done.stderr


def test_harmony_special_tokens_are_tiktokens(harmony_reference):
    """Every special token of tiktoken's o200k_harmony, with its id; tiktoken's one alias
    (<|reserved_200018|>, a second name for <|endofprompt|>'s id) is left out, as documented."""
    from bpe_core import get_encoding

    ours = get_encoding("o200k_harmony").special_tokens
    theirs = harmony_reference.special_tokens_set - {"<|reserved_200018|>"}
    assert set(ours) == theirs
    assert all(ours[s] == harmony_reference.encode_single_token(s) for s in theirs)
    assert harmony_reference.encode_single_token("<|reserved_200018|>") == ours["<|endofprompt|>"]
