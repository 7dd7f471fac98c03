"""The chat layouts a tokenizer's special tokens allow, and their Jinja chat templates.

Plain data about special-token spellings, used by chat.py (wrapping a conversation) and by
formats.py (``tokenizer_config.json`` for transformers): which layout a tokenizer can wrap a
conversation in (harmony or ChatML), the template that renders it as ``chat.wrap`` does, and
the roles transformers gives special tokens (``eos_token``, ``pad_token``...) by their usual
spellings.
"""

from __future__ import annotations

from collections.abc import Mapping

HARMONY_NEEDS = ("<|start|>", "<|message|>", "<|end|>")
CHATML_NEEDS = ("<|im_start|>", "<|im_end|>")

# transformers' special-token roles and the spellings that fill them, most specific first
ROLE_SPELLINGS = {
    "bos_token": ("<|begin_of_text|>", "<|startoftext|>", "<s>", "<|bos|>", "<bos>"),
    "eos_token": ("<|endoftext|>", "<|end_of_text|>", "</s>", "<|im_end|>", "<|eot_id|>",
                  "<|eos|>", "<eos>"),
    "unk_token": ("<unk>", "[UNK]", "<|unk|>", "<|unknown|>"),
    "pad_token": ("<pad>", "<|pad|>", "[PAD]", "<|padding|>", "<|finetune_right_pad_id|>"),
    "mask_token": ("[MASK]", "<mask>", "<|mask|>"),
    "cls_token": ("[CLS]", "<cls>"),
    "sep_token": ("[SEP]", "<sep>"),
}

# Jinja, rendering exactly chat.wrap's text with the reply primed (add_generation_prompt=True).
CHATML_TEMPLATE = (
    "{%- for message in messages -%}"
    "{{- '<|im_start|>' + message['role'] -}}"
    "{%- if message.get('name') -%}{{- ':' + message['name'] -}}{%- endif -%}"
    "{{- '\\n' + message['content'] + '<|im_end|>' -}}"
    "{%- endfor -%}"
    "{%- if add_generation_prompt -%}{{- '<|im_start|>assistant\\n' -}}{%- endif -%}"
)
HARMONY_TEMPLATE = (
    "{%- for message in messages -%}"
    "{{- '<|start|>' + message['role'] -}}"
    "{%- if message['role'] == 'assistant' and final_channel -%}"
    "{{- '<|channel|>final' -}}{%- endif -%}"
    "{{- '<|message|>' + message['content'] + '<|end|>' -}}"
    "{%- endfor -%}"
    "{%- if add_generation_prompt -%}{{- '<|start|>assistant' -}}{%- endif -%}"
)


def layout_of(special_tokens: Mapping[str, int]) -> str | None:
    """Which layout the special tokens allow: "harmony", "chatml" or None (harmony first)."""
    if all(s in special_tokens for s in HARMONY_NEEDS):
        return "harmony"
    if all(s in special_tokens for s in CHATML_NEEDS):
        return "chatml"
    return None


def chat_template(special_tokens: Mapping[str, int]) -> str | None:
    """The Jinja chat template for a tokenizer with these special tokens, or None."""
    layout = layout_of(special_tokens)
    if layout == "harmony":
        final = "true" if "<|channel|>" in special_tokens else "false"
        return "{%- set final_channel = " + final + " -%}" + HARMONY_TEMPLATE
    if layout == "chatml":
        return CHATML_TEMPLATE
    return None


def special_roles(special_tokens: Mapping[str, int]) -> dict[str, str]:
    """transformers' roles filled from the usual spellings: ``{"eos_token": "<|endoftext|>",
    "pad_token": "<pad>", ...}``. A chat tokenizer ends a turn with its end token, so that is its
    eos (``<|im_end|>``; gpt-oss's ``<|return|>``), and ``<|endoftext|>`` then pads."""
    roles = {}
    for role, spellings in ROLE_SPELLINGS.items():
        found = next((s for s in spellings if s in special_tokens), None)
        if found is not None:
            roles[role] = found
    layout = layout_of(special_tokens)
    turn_end = {"chatml": "<|im_end|>", "harmony": "<|return|>"}.get(layout or "")
    if turn_end in special_tokens:
        if "pad_token" not in roles and roles.get("eos_token") == "<|endoftext|>":
            roles["pad_token"] = "<|endoftext|>"
        roles["eos_token"] = turn_end
    return dict(sorted(roles.items()))
