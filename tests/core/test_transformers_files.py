"""``save_hf`` writes what ``transformers`` reads: ``tokenizer_config.json`` and
``special_tokens_map.json`` beside ``tokenizer.json``, so that ``AutoTokenizer.from_pretrained``
on the folder knows the end-of-text token and gives the same ids (issue 27). Offline: a local
folder, ``HF_HUB_OFFLINE=1``."""

from __future__ import annotations

import json

import pytest
from parity_corpus import CORPUS

import bpe_core
from bpe_core import GPT4_SPLIT_PATTERN, BasicTokenizer, RegexTokenizer

TEXTS = [bpe_core.clean_text(text) for _, text in CORPUS][:20] + [
    "a<|endoftext|>b", "<|endoftext|>", "two  spaces . and ,commas", ""]


@pytest.fixture
def auto_tokenizer(monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")  # a local folder: nothing to fetch
    monkeypatch.setenv("TRANSFORMERS_OFFLINE", "1")
    from transformers import AutoTokenizer

    return AutoTokenizer.from_pretrained


@pytest.mark.parametrize("kind", ["regex", "basic"])
def test_auto_tokenizer_knows_the_end_of_text_and_gives_the_same_ids(auto_tokenizer, kind,
                                                                     tmp_path):
    tok = RegexTokenizer(GPT4_SPLIT_PATTERN) if kind == "regex" else BasicTokenizer()
    tok.train(" ".join(text for _, text in CORPUS)[:8000], 400,
              special_tokens=["<|endoftext|>", "<|pad|>"])
    tok.save_hf(str(tmp_path / "tokenizer.json"))
    assert json.loads((tmp_path / "special_tokens_map.json").read_text()) == {
        "eos_token": "<|endoftext|>", "pad_token": "<|pad|>"}
    fast = auto_tokenizer(str(tmp_path))
    assert fast.eos_token == "<|endoftext|>"
    assert fast.eos_token_id == tok.special_tokens["<|endoftext|>"] == 398
    assert fast.convert_tokens_to_ids("<|pad|>") == 399
    for text in TEXTS:
        ids = tok.encode(text, allowed_special="all")
        assert fast(text)["input_ids"] == ids  # no post-processor: nothing added around
        assert fast.decode(ids) == tok.decode(ids)  # and no clean-up of spaces


def test_a_tokenizer_without_an_end_of_text_token_has_no_eos(auto_tokenizer, tmp_path):
    tok = RegexTokenizer()
    tok.train("hello world " * 50, 270)
    tok.save_hf(str(tmp_path / "tokenizer.json"))
    fast = auto_tokenizer(str(tmp_path))
    assert fast.eos_token is None
    assert fast("hello world")["input_ids"] == tok.encode("hello world")


def test_only_a_file_named_tokenizer_json_gets_the_transformers_files(tmp_path):
    tok = RegexTokenizer()
    tok.train("hello world " * 50, 270)
    tok.save_hf(str(tmp_path / "mine.json"))
    names = sorted(p.name for p in tmp_path.iterdir())
    assert names == ["mine.json", "mine.json.bpe-lab.json"]  # and the history's sidecar


@pytest.mark.parametrize(("specials", "roles"), [
    (["<s>", "</s>", "<unk>", "<pad>", "<mask>"],
     {"bos_token": "<s>", "eos_token": "</s>", "unk_token": "<unk>", "pad_token": "<pad>",
      "mask_token": "<mask>"}),
    (["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"],
     {"pad_token": "[PAD]", "unk_token": "[UNK]", "cls_token": "[CLS]", "sep_token": "[SEP]",
      "mask_token": "[MASK]"}),
    (["<|endoftext|>", "<|im_start|>", "<|im_end|>"],  # ChatML: a turn ends with <|im_end|>
     {"eos_token": "<|im_end|>", "pad_token": "<|endoftext|>"}),
])
def test_the_usual_spellings_take_their_roles_and_padding_works(auto_tokenizer, tmp_path,
                                                                specials, roles):
    tok = RegexTokenizer()
    tok.train("hello world, a longer text " * 20, 300, special_tokens=specials)
    tok.save_hf(str(tmp_path / "tokenizer.json"))
    fast = auto_tokenizer(str(tmp_path))
    for role, spelling in roles.items():
        assert getattr(fast, role) == spelling
        assert getattr(fast, role + "_id") == tok.special_tokens[spelling]
    batch = fast(["hello", "hello world, a longer text"], padding=True)
    pad = tok.special_tokens[roles["pad_token"]]
    short = tok.encode("hello")
    assert batch["input_ids"][0] == short + [pad] * (len(batch["input_ids"][1]) - len(short))
    assert batch["attention_mask"][0] == [1] * len(short) + [0] * (
        len(batch["input_ids"][1]) - len(short))


CONVERSATIONS = [
    [{"role": "system", "content": "You are terse."},
     {"role": "user", "content": "Hi there!\nHow are you?"},
     {"role": "assistant", "content": "Fine, thanks."},
     {"role": "user", "content": "Count to 3: 1 2 3 ... and (émoji 👍🏽)"}],
    [{"role": "developer", "content": ""}],
]


@pytest.mark.parametrize("fmt", ["chatml", "harmony"])
def test_the_chat_template_renders_bpe_cores_chat_id_for_id(auto_tokenizer, tmp_path, fmt):
    from bpe_core import chat

    tok = chat.chat_encoding(fmt)
    tok.save_hf(str(tmp_path / "tokenizer.json"))
    fast = auto_tokenizer(str(tmp_path))
    assert fast.eos_token == {"chatml": "<|im_end|>", "harmony": "<|return|>"}[fmt]
    for messages in CONVERSATIONS:
        wrapped = chat.wrap(messages, fmt, tok)
        assert fast.apply_chat_template(messages, add_generation_prompt=True,
                                        tokenize=False) == wrapped.text
        ids = fast.apply_chat_template(messages, add_generation_prompt=True, tokenize=True)
        ids = ids if isinstance(ids, list) else ids["input_ids"]
        assert ids == wrapped.ids


def test_chatmls_name_and_leading_newline_render_the_same_text(auto_tokenizer, tmp_path):
    """The template's text is wrap's; its ids are that text encoded whole, while wrap encodes
    each value on its own (OpenAI's counting rule): they differ where a name or a message that
    starts with a newline would merge with the wrapper's text."""
    from bpe_core import chat

    tok = chat.chat_encoding("chatml")
    tok.save_hf(str(tmp_path / "tokenizer.json"))
    fast = auto_tokenizer(str(tmp_path))
    messages = [{"role": "user", "content": "\n\nhi", "name": "bob"}]
    wrapped = chat.wrap(messages, "chatml", tok)
    ids = fast.apply_chat_template(messages, add_generation_prompt=True, tokenize=True)
    ids = ids if isinstance(ids, list) else ids["input_ids"]
    assert ids == tok.encode(wrapped.text, allowed_special="all")
    spelled = [tok.decode([i]) for i in ids]
    assert spelled[2:5] == [":b", "ob", "\n\n\n"]  # wrap's: ":", "bob", "\n", "\n\n"
    assert [tok.decode([i]) for i in wrapped.ids][2:6] == [":", "bob", "\n", "\n\n"]


def test_a_tokenizer_without_chat_tokens_gets_no_template(tmp_path):
    tok = RegexTokenizer()
    tok.train("hello world " * 50, 270, special_tokens=["<|endoftext|>"])
    tok.save_hf(str(tmp_path / "tokenizer.json"))
    config = json.loads((tmp_path / "tokenizer_config.json").read_text())
    assert "chat_template" not in config
    assert config["eos_token"] == "<|endoftext|>"
