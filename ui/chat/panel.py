"""The Chat tokens page's parts: the conversation editor, the wrapped tokens, the counts.

The wrapping itself is ``bpe_core.chat``; here it is drawn. Every message becomes a block: its
role, its counts (text, the wrapper's overhead), its tokens coloured with special tokens marked,
and its ids. Token text goes through ``tokens_html`` (escaped); the rest is this module's own
words and numbers.
"""

from __future__ import annotations

import html
from collections.abc import Collection

import pandas as pd
import streamlit as st

from bpe_core.chat import FORMATS, PREAMBLE, ROLES, ChatTokens, Message
from ui.kit.choices import MAX_PASTE_CHARS
from ui.kit.projector import projector_mode
from ui.kit.state import cut_note, cut_to
from ui.kit.tokens_html import Piece, tokens_html

DEFAULT_CONVERSATION = [
    Message("system", "You are a helpful assistant. Answer in one sentence."),
    Message("user", "What does a tokenizer do?"),
    Message("assistant", "It cuts text into tokens, the pieces a model reads, and gives each an id."),
]
MAX_MESSAGES = 8
MAX_MESSAGE_CHARS = 5_000  # per message: the view draws every token (fewer than MAX_SPANS)
CHAT_YOURS = "Your tokenizer"
FORMAT_CHOICES = {**{title: fmt for fmt, title in FORMATS.items()}, CHAT_YOURS: "own"}

CHAT_CSS = """<style>
.bpe-chat .msg { border-left: 4px solid #888; padding: 0.2rem 0.6rem; margin: 0.6rem 0; }
.bpe-chat .msg.reply { border-left-style: dashed; }
.bpe-chat .head { font-weight: 600; margin-bottom: 0.2rem; }
.bpe-chat .head .n { font-weight: 400; color: #444; }
</style>"""


def conversation_editor() -> list[Message]:
    """The messages, edited in keyed widgets (role, optional name, text)."""
    n = st.number_input("Messages", min_value=1, max_value=MAX_MESSAGES,
                        value=len(DEFAULT_CONVERSATION), key="chat_count")
    messages = []
    for i in range(int(n)):
        default = DEFAULT_CONVERSATION[i] if i < len(DEFAULT_CONVERSATION) else Message(
            "user" if i % 2 else "assistant", "")
        role_col, name_col, text_col = st.columns([2, 2, 3] if projector_mode() else [1, 1, 4])
        role = role_col.selectbox(f"Role {i + 1}", ROLES, index=ROLES.index(default.role),
                                  key=f"chat_role_{i}")
        name = name_col.text_input(f"Name {i + 1} (optional)", key=f"chat_name_{i}",
                                   max_chars=64)
        key = f"chat_text_{i}"
        st.session_state.setdefault(key, default.content)
        # the box takes a long paste and cuts it, saying so (at max_chars it would refuse it)
        text = text_col.text_area(f"Message {i + 1}", height=68, key=key,
                                  max_chars=MAX_PASTE_CHARS, on_change=cut_to,
                                  args=(key, MAX_MESSAGE_CHARS),
                                  help=f"A message keeps at most {MAX_MESSAGE_CHARS:,} characters.")
        if cut_note(key):
            text_col.info(cut_note(key))
        messages.append(Message(role, text, name or None))
    return messages


def chat_html(chat: ChatTokens, vocab: dict[int, bytes], *, ids: bool = False,
              specials: Collection[int] = ()) -> str:
    """One block per message (and one for the reply priming): role, counts, tokens with the
    format's special tokens marked, and in a message's text the ids in ``specials`` (special-token
    text read as the special token); ``ids`` shows each token's id instead of its text."""
    blocks = []
    first = [PREAMBLE] if chat.preamble else []
    for i in [*first, *range(len(chat.messages)), -1]:
        tokens = [Piece(t, vocab[t], special=part.special or t in specials)
                  for part in chat.parts if part.message == i for t in part.ids]
        name = ("the reply priming" if i == -1 else "the model's system message"
                if i == PREAMBLE else f"message {i + 1}")
        body, _ = tokens_html(tokens, ids=ids, mark_new=False, whitespace=True,
                              name=f"Tokens of {name}")
        if i == PREAMBLE:
            head = (f'system <span class="n">· {chat.preamble} tokens, the model\'s own system'
                    " message (identity, knowledge cutoff, reasoning, channels)</span>")
        elif i == -1:
            head = (f'reply priming <span class="n">· {chat.reply} tokens, where the model\'s'
                    " answer starts</span>")
        else:
            count = chat.messages[i]
            head = (f'{html.escape(count.role)} <span class="n">· {count.total} tokens:'
                    f" {count.content} of text, {count.overhead} of wrapper</span>")
        kind = "msg reply" if i == -1 else "msg preamble" if i == PREAMBLE else "msg"
        blocks.append(f'<div class="{kind}" data-message="{i}"><div class="head">{head}</div>'
                      f"{body}</div>")
    return CHAT_CSS + f'<div class="bpe-chat">{"".join(blocks)}</div>'


def chat_counts_frame(chat: ChatTokens) -> pd.DataFrame:
    """Per message: text tokens, the wrapper's tokens, the total; then the priming and the sum."""
    rows = [{"message": "the model's system message", "text tokens": 0,
             "wrapper tokens": chat.preamble, "total": chat.preamble}] if chat.preamble else []
    rows += [{"message": f"{i + 1}. {m.role}", "text tokens": m.content,
              "wrapper tokens": m.overhead, "total": m.total}
             for i, m in enumerate(chat.messages)]
    rows.append({"message": "reply priming", "text tokens": 0, "wrapper tokens": chat.reply,
                 "total": chat.reply})
    text = sum(m.content for m in chat.messages)
    rows.append({"message": "whole conversation", "text tokens": text,
                 "wrapper tokens": chat.total - text, "total": chat.total})
    return pd.DataFrame(rows)
