"""Chat tokens: a conversation as gpt-oss, GPT-4 or your own tokenizer wraps it, with every
message's cost beyond its text."""

import streamlit as st

from bpe_core.chat import chat_encoding, openai_rule, own_format, what_it_needs, wrap
from ui.chat.panel import (
    CHAT_YOURS,
    FORMAT_CHOICES,
    chat_counts_frame,
    chat_html,
    conversation_editor,
)
from ui.kit.escape import md_escape
from ui.kit.projector import explain, projector_mode
from ui.kit.state import (
    active_tokenizer,
    allowed_special,
    family_stop,
    rule_caption,
    tokenizer_label,
)
from ui.sidebar.panel import sidebar

sidebar()

st.title("Chat tokens")
family_stop()  # byte-level BPE only: another family is refused by name
explain(
    "A chat model never reads your messages alone: each one is wrapped in special tokens that "
    "say who speaks, and the prompt ends with the start of the model's reply. Those tokens count "
    "too, which is why a count of the text alone is lower than the vendor's. Special tokens are "
    "drawn dark; hover over a token for its id."
)

large = projector_mode()  # the tokens first on a projector's screen; the messages a click away
with st.expander("The conversation and its format") if large else st.container():
    messages = conversation_editor()
    choice = st.radio("Wrap it as", list(FORMAT_CHOICES), horizontal=True, key="chat_format")
fmt = FORMAT_CHOICES[choice]
if fmt == "own":
    tok = active_tokenizer()
    if tok is None:
        st.info("You have no tokenizer of your own yet: press **Train** in the sidebar.")
        st.stop()
    fmt = own_format(tok)
    if fmt is None:
        st.warning(f"{tokenizer_label()} cannot wrap a conversation: {md_escape(what_it_needs(tok))}."
                   " In the sidebar, write them in **Special tokens (comma-separated)** and"
                   " train again.")
        st.stop()
    st.caption(f"{tokenizer_label()} has the special tokens of the {fmt} format; its ids below.")
else:
    tok = chat_encoding(fmt)

try:
    chat = wrap(messages, fmt, tok, allowed_special())  # typed special-token text: the sidebar's rule
except ValueError as e:
    st.error(md_escape(str(e)))
    st.stop()

text_tokens = sum(m.content for m in chat.messages)
counted, view = st.container(), st.container()
if large:  # the view under the counts, and what the captions say under the view
    notes = st.container()
else:
    notes = counted
cols = counted.columns(3)
cols[0].metric("Tokens in all", f"{chat.total:,}")
cols[1].metric("Of the messages' text", f"{text_tokens:,}")
cols[2].metric("Of the wrapper", f"{chat.total - text_tokens:,}")
typed = "\n".join(m.content for m in messages)
notes.caption(f"Your messages' text: {rule_caption(typed, tok)}."
              " The format's own special tokens around each message are special tokens either way.")
if fmt == "chatml" and choice != CHAT_YOURS:
    notes.caption(
        f"OpenAI's published rule for gpt-3.5-turbo and gpt-4 (openai-cookbook, \"How to count "
        f"tokens with tiktoken\": 3 per message, the tokens of its role, text and name, 1 more "
        f"per name, 3 to prime the reply) gives "
        f"{openai_rule(messages, allowed_special=allowed_special()):,} tokens."
    )
elif fmt == "gpt-oss":
    notes.caption(md_escape("What gpt-oss reads, as openai-harmony and the model's chat template"
                            " render it: its own system message first (identity, knowledge cutoff,"
                            " reasoning effort, channels); your system and developer text go in a"
                            " developer message under \"# Instructions\"; then <|start|>role"
                            "<|message|>text<|end|> per message, an answer in the final channel,"
                            " and <|start|>assistant where the reply begins."))
elif fmt == "harmony" and choice != CHAT_YOURS:
    notes.caption(md_escape("harmony's layout alone (tiktoken's o200k_harmony): <|start|>role"
                            "<|message|>text<|end|> per message; an answer goes to the final"
                            " channel; the prompt ends with <|start|>assistant. gpt-oss reads more:"
                            " choose the first option for its real prompt."))
for note in chat.notes:
    notes.caption(md_escape(note))

(notes if large else view).dataframe(chat_counts_frame(chat), hide_index=True, key="chat_counts")
with view:
    show_ids = st.toggle("Show ids instead of text", value=False, key="chat_ids")
    st.html(chat_html(chat, tok.vocab, ids=show_ids, specials=set(tok.special_tokens.values())))
