"""A conversation as a model sees it: the messages wrapped in the chat format's special tokens.

Counts that differ from the vendor's nearly always come from the wrapper: every message costs
tokens beyond its text. Two formats, each with its source:

* **harmony**, gpt-oss's format: tiktoken's ``o200k_harmony`` encoding (o200k's ranks plus the
  chat special tokens, ``pretrained.HARMONY_SPECIAL_TOKENS``). Each message is
  ``<|start|>{role}<|message|>{content}<|end|>``; an assistant's answer goes to the ``final``
  channel, ``<|start|>assistant<|channel|>final<|message|>{content}<|end|>``; the prompt ends
  with ``<|start|>assistant``, where the model's reply begins (OpenAI's harmony response format
  guide, github.com/openai/harmony, docs/format.md).
* **chatml**, the GPT-3.5/GPT-4 era (cl100k_base): ``<|im_start|>{role}\\n{content}<|im_end|>``
  with ``<|im_start|>`` = 100264 and ``<|im_end|>`` = 100265 (the ids of tiktoken's README,
  "Extending tiktoken"). Its counts follow OpenAI's published rule (openai-cookbook, "How to
  count tokens with tiktoken", ``num_tokens_from_messages``, for gpt-3.5-turbo-0613 and gpt-4):
  3 tokens per message, plus the tokens of each of its values (role, content, name), plus 1 for a
  name, plus 3 that prime the reply. The wrapper here spends exactly those 3 per message
  (``<|im_start|>``, the newline, ``<|im_end|>``; a name is one ``:`` token more) and primes
  with ``<|im_start|>assistant\\n``; what OpenAI's servers write is not published, the rule is.

A user's own tokenizer wraps the same conversation in whichever of the two layouts its special
tokens allow (``own_format``); with neither set it says which tokens it would need.

Every part is encoded on its own (the rule counts each value on its own, and an encoder cuts the
text at special tokens first anyway). Special-token text typed in a message follows tiktoken's
``allowed_special``: by default (``"none"``) a user who types ``<|end|>`` gets the tokens of
those characters; with ``allowed_special="all"`` each such text in a message's content becomes
its special token, as ``encode(content, allowed_special="all")`` reads it. The format's own
special tokens (``<|start|>``, ``<|im_end|>``...) are special either way.

    >>> chat = wrap([Message("user", "Hi")], "harmony")
    >>> chat.text
    '<|start|>user<|message|>Hi<|end|><|start|>assistant'
    >>> [part.ids for part in chat.parts if part.special]
    [[200006], [200008], [200007], [200006]]
"""

from __future__ import annotations

from typing import NamedTuple

from .base import Tokenizer
from .chat_format import CHATML_NEEDS, HARMONY_NEEDS, layout_of
from .pretrained import load_pretrained, shared_encoding
from .text import shorten

ROLES = ("system", "developer", "user", "assistant")
FORMATS = {
    "gpt-oss": "gpt-oss, as it reads the prompt (harmony)",
    "harmony": "harmony, messages only (minimal)",
    "chatml": "GPT-4 / GPT-3.5 (ChatML, cl100k_base)",
}
# What gpt-oss really reads (openai-harmony's render_conversation_for_completion with its default
# SystemContent, the model's own chat template without a date): a system message of its own
# first; the conversation's system and developer texts go in developer messages under
# "# Instructions". openai-harmony (tests only) is the reference, id for id.
GPT_OSS_SYSTEM = (
    "You are ChatGPT, a large language model trained by OpenAI.\n"
    "Knowledge cutoff: 2024-06\n\n"
    "Reasoning: medium\n\n"
    "# Valid channels: analysis, commentary, final. Channel must be included for every message."
)
GPT_OSS_INSTRUCTIONS = "# Instructions\n\n"
PREAMBLE = -2  # ChatPart.message of the system message gpt-oss's rendering adds
CHATML_SPECIAL_TOKENS = {"<|im_start|>": 100264, "<|im_end|>": 100265}  # tiktoken's README
# OpenAI's rule for the ChatML-era models (openai-cookbook, "How to count tokens with tiktoken")
TOKENS_PER_MESSAGE = 3
TOKENS_PER_NAME = 1
REPLY_PRIMING = 3


class Message(NamedTuple):
    role: str  # system, developer, user or assistant
    content: str
    name: str | None = None


class ChatPart(NamedTuple):
    """A piece of the wrapped conversation and its ids."""

    text: str
    ids: list[int]
    special: bool  # a special token of the format
    message: int  # which message it belongs to; -1 for the reply priming at the end
    content: bool  # part of the message's own text (the rest is the wrapper's overhead)


class MessageCount(NamedTuple):
    role: str
    content: int  # tokens of the message's text
    overhead: int  # tokens the wrapper adds around it (role and name included)

    @property
    def total(self) -> int:
        return self.content + self.overhead


class ChatTokens(NamedTuple):
    format: str  # "gpt-oss", "harmony" or "chatml"
    tokenizer: str  # which tokenizer encoded it
    parts: list[ChatPart]
    messages: list[MessageCount]
    reply: int  # tokens that prime the reply
    notes: list[str]  # what the wrapping left out or changed, in words
    preamble: int = 0  # tokens of the system message the format adds of its own (gpt-oss)

    @property
    def ids(self) -> list[int]:
        return [i for part in self.parts for i in part.ids]

    @property
    def text(self) -> str:
        return "".join(part.text for part in self.parts)

    @property
    def total(self) -> int:
        return sum(len(part.ids) for part in self.parts)


def check_messages(messages: object) -> list[Message]:
    """Messages as ``Message``s; a dict with role/content/name (OpenAI's shape) is accepted."""
    if isinstance(messages, str | bytes) or not hasattr(messages, "__iter__"):
        raise ValueError("messages must be a list such as [Message('user', 'Hi')] or"
                         " [{'role': 'user', 'content': 'Hi'}]")
    out = []
    for m in messages:
        if isinstance(m, dict):
            unknown = set(m) - {"role", "content", "name"}
            if unknown or "role" not in m or "content" not in m:
                raise ValueError(f"a message needs 'role' and 'content' (and may have 'name'),"
                                 f" not {shorten(m)}")
            m = Message(m["role"], m["content"], m.get("name"))
        if not isinstance(m, Message):
            raise ValueError(f"a message must be a Message or a dict, not {shorten(m)}")
        if m.role not in ROLES:
            raise ValueError(f"unknown role {shorten(m.role)}; use one of {', '.join(ROLES)}")
        if not isinstance(m.content, str) or (m.name is not None and not isinstance(m.name, str)):
            raise ValueError("a message's content and name must be str")
        out.append(m)
    return out


def chat_encoding(fmt: str) -> Tokenizer:
    """The tokenizer a format is counted with (shared, read-only)."""
    if fmt in ("harmony", "gpt-oss"):
        return shared_encoding("o200k_harmony")
    if fmt == "chatml":
        return _chatml()
    raise ValueError(f"unknown chat format {shorten(fmt)}; choose one of {', '.join(FORMATS)}")


_CHATML: list[Tokenizer] = []  # cl100k_base with ChatML's two tokens, made once per process


def _chatml() -> Tokenizer:
    if not _CHATML:
        tok = load_pretrained("cl100k_base")
        tok.register_special_tokens(CHATML_SPECIAL_TOKENS)
        tok.name, tok.title = "cl100k_base + ChatML", "GPT-4 (cl100k_base) with ChatML's tokens"
        _CHATML.append(tok)
    return _CHATML[0]


def own_format(tok: Tokenizer) -> str | None:
    """Which layout a tokenizer's special tokens allow: "harmony", "chatml" or None."""
    return layout_of(tok.special_tokens)


def what_it_needs(tok: Tokenizer) -> str:
    """In words, the special tokens a tokenizer lacks to wrap a conversation."""
    harmony = [s for s in HARMONY_NEEDS if s not in tok.special_tokens]
    chatml = [s for s in CHATML_NEEDS if s not in tok.special_tokens]
    return (f"it needs the special tokens {' '.join(chatml)} (ChatML) or {' '.join(harmony)}"
            " (harmony): train it with special_tokens=[...] or add them with"
            " register_special_tokens")


def wrap(messages: list, fmt: str = "harmony", tok: Tokenizer | None = None,
         allowed_special: str = "none") -> ChatTokens:
    """The conversation wrapped as ``fmt`` ("gpt-oss", "harmony" or "chatml") and encoded by
    ``tok`` (the format's own encoding when None). ValueError when ``tok`` lacks the format's special tokens,
    saying which. ``allowed_special``: how special-token text in a message's content is read,
    "none" (as text, the default) or "all" (as the special token)."""
    messages = check_messages(messages)
    if fmt not in FORMATS:
        raise ValueError(f"unknown chat format {shorten(fmt)}; choose one of {', '.join(FORMATS)}")
    tok = chat_encoding(fmt) if tok is None else tok
    content_ids = _content_encoder(tok, allowed_special)
    harmony = fmt in ("harmony", "gpt-oss")
    needs = HARMONY_NEEDS if harmony else CHATML_NEEDS
    missing = [s for s in needs if s not in tok.special_tokens]
    if missing:
        raise ValueError(f"{tok.name or 'this tokenizer'} has no special token"
                         f" {' '.join(missing)}, which the {fmt} format needs; "
                         + what_it_needs(tok))
    parts: list[ChatPart] = []
    notes: list[str] = []

    def add(text: str, message: int, *, special: bool = False, content: bool = False) -> None:
        if text:
            ids = ([tok.special_tokens[text]] if special else content_ids(text) if content
                   else tok.encode_ordinary(text))
            parts.append(ChatPart(text, ids, special, message, content))

    if fmt == "gpt-oss":
        for text, special in (("<|start|>", True), ("system", False), ("<|message|>", True),
                              (GPT_OSS_SYSTEM, False), ("<|end|>", True)):
            add(text, PREAMBLE, special=special)
    for i, m in enumerate(messages):
        if harmony:
            instructions = fmt == "gpt-oss" and m.role in ("system", "developer")
            add("<|start|>", i, special=True)
            add("developer" if instructions else m.role, i)
            if m.role == "assistant" and "<|channel|>" in tok.special_tokens:
                add("<|channel|>", i, special=True)
                add("final", i)
            add("<|message|>", i, special=True)
            if instructions:
                add(GPT_OSS_INSTRUCTIONS, i)
            add(m.content, i, content=True)
            add("<|end|>", i, special=True)
            if m.name:
                notes.append(f"harmony has no name for a {m.role} message: {shorten(m.name)}"
                             " is left out")
        else:
            add("<|im_start|>", i, special=True)
            add(m.role, i)
            if m.name:
                add(":", i)
                add(m.name, i)
            add("\n", i)
            add(m.content, i, content=True)
            add("<|im_end|>", i, special=True)
    if harmony:
        add("<|start|>", -1, special=True)
        add("assistant", -1)
    else:
        add("<|im_start|>", -1, special=True)
        add("assistant", -1)
        add("\n", -1)
    counts = []
    for i, m in enumerate(messages):
        mine = [p for p in parts if p.message == i]
        content = sum(len(p.ids) for p in mine if p.content)
        counts.append(MessageCount(m.role, content, sum(len(p.ids) for p in mine) - content))
    reply = sum(len(p.ids) for p in parts if p.message == -1)
    preamble = sum(len(p.ids) for p in parts if p.message == PREAMBLE)
    return ChatTokens(fmt, tok.name or "", parts, counts, reply, notes, preamble)


def _content_encoder(tok: Tokenizer, allowed_special: str):
    """How a message's own text is encoded: special-token text as text ("none") or as the
    special token ("all")."""
    if allowed_special == "none":
        return tok.encode_ordinary
    if allowed_special == "all":
        return lambda text: tok.encode(text, allowed_special="all")
    raise ValueError(f"allowed_special must be 'none' (special-token text is text) or 'all' (it"
                     f" is the special token), not {shorten(allowed_special)}")


def openai_rule(messages: list, tok: Tokenizer | None = None,
                allowed_special: str = "none") -> int:
    """OpenAI's published count for the ChatML-era models (gpt-3.5-turbo-0613, gpt-4): 3 per
    message, the tokens of each value, 1 more per name, 3 for the reply priming; a message's
    content read by ``allowed_special`` as in ``wrap``."""
    enc = chat_encoding("chatml") if tok is None else tok
    content_ids = _content_encoder(enc, allowed_special)
    total = REPLY_PRIMING
    for m in check_messages(messages):
        total += TOKENS_PER_MESSAGE + len(enc.encode_ordinary(m.role))
        total += len(content_ids(m.content))
        if m.name:
            total += TOKENS_PER_NAME + len(enc.encode_ordinary(m.name))
    return total
