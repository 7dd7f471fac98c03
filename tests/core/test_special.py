"""Special tokens: minbpe's allowed_special semantics and id clashes."""

from __future__ import annotations

import pytest
import regex
from naive import naive_encode
from support import KINDS, trained

EOT = "<|endoftext|>"
EOT_ID = 100257
FIM = "<|fim_prefix|>"
FIM_ID = 100258


def tokenizer(kind: str = "gpt4"):
    tok = trained(kind, "aaabdaaabac hello world, hello there", 300)
    tok.register_special_tokens({EOT: EOT_ID, FIM: FIM_ID})
    return tok


@pytest.mark.parametrize("kind", KINDS)
def test_registering_adds_to_vocab_and_vocab_size(kind):
    tok = tokenizer(kind)
    assert tok.special_tokens == {EOT: EOT_ID, FIM: FIM_ID}
    assert tok.vocab[EOT_ID] == EOT.encode()
    assert tok.vocab[FIM_ID] == FIM.encode()
    assert tok.vocab_size == 256 + len(tok.merges) + 2
    assert tok.decode([EOT_ID]) == EOT
    assert tok.decode_single_token_bytes(FIM_ID) == FIM.encode()


@pytest.mark.parametrize("kind", KINDS)
def test_all_encodes_specials_atomically(kind):
    tok = tokenizer(kind)
    text = f"hello {EOT} world{FIM}{EOT}"
    ids = tok.encode(text, allowed_special="all")
    expected = (
        tok.encode_ordinary("hello ")
        + [EOT_ID]
        + tok.encode_ordinary(" world")
        + [FIM_ID, EOT_ID]
    )
    assert ids == expected
    assert tok.decode(ids) == text


@pytest.mark.parametrize("kind", KINDS)
def test_special_at_the_edges_and_alone(kind):
    tok = tokenizer(kind)
    assert tok.encode(EOT, allowed_special="all") == [EOT_ID]
    assert tok.encode(EOT + EOT, allowed_special="all") == [EOT_ID, EOT_ID]
    ids = tok.encode(f"{EOT}hello{EOT}", allowed_special="all")
    assert ids == [EOT_ID, *tok.encode_ordinary("hello"), EOT_ID]


@pytest.mark.parametrize("kind", KINDS)
def test_none_encodes_special_text_as_ordinary_text(kind):
    tok = tokenizer(kind)
    text = f"hello {EOT} world"
    ids = tok.encode(text, allowed_special="none")
    assert ids == tok.encode_ordinary(text)
    assert EOT_ID not in ids
    assert tok.decode(ids) == text


@pytest.mark.parametrize("kind", KINDS)
def test_none_raise_is_the_default_and_names_token_and_fix(kind):
    tok = tokenizer(kind)
    text = f"hello {FIM} world"
    for call in (lambda: tok.encode(text), lambda: tok.encode(text, allowed_special="none_raise")):
        with pytest.raises(ValueError) as info:
            call()
        message = str(info.value)
        assert FIM in message, "the error must name the special token found in the text"
        assert "allowed_special" in message, "the error must tell the user how to allow it"
    # text without special tokens is fine
    assert tok.encode("hello world") == tok.encode_ordinary("hello world")


@pytest.mark.parametrize("kind", KINDS)
def test_set_allows_only_the_listed_specials(kind):
    tok = tokenizer(kind)
    text = f"a{EOT}b{FIM}c"
    # tiktoken: the other special tokens' text is still an error, naming the one found
    with pytest.raises(ValueError, match=regex.escape(FIM)):
        tok.encode(text, allowed_special={EOT})
    # ... unless disallowed_special=() makes it plain text (what minbpe does with a set)
    ids = tok.encode(text, allowed_special={EOT}, disallowed_special=())
    assert ids == tok.encode_ordinary("a") + [EOT_ID] + tok.encode_ordinary(f"b{FIM}c")
    assert FIM_ID not in ids
    assert tok.decode(ids) == text
    both = tok.encode(text, allowed_special={EOT, FIM})
    assert both == tok.encode(text, allowed_special="all")
    assert tok.encode(text, allowed_special=set(), disallowed_special=()) == tok.encode_ordinary(text)
    # a special token the tokenizer does not have is ignored in the set, as tiktoken and minbpe do
    assert tok.encode(text, allowed_special={EOT, FIM, "<|nope|>"}) == both


def test_unknown_allowed_special_value_is_a_value_error():
    tok = tokenizer()
    with pytest.raises(ValueError) as info:
        tok.encode("hello", allowed_special="everything")
    assert "allowed_special" in str(info.value)


def test_encode_ordinary_ignores_specials():
    tok = tokenizer()
    text = f"x{EOT}y"
    ids = tok.encode_ordinary(text)
    assert ids == naive_encode(text, tok.merges, tok.pattern)
    assert ids == tok.encode(text, allowed_special="none")
    assert EOT_ID not in ids


@pytest.mark.parametrize("which", ["byte", "first merge", "last merge"])
def test_special_id_clashing_with_existing_id_is_a_value_error(which):
    tok = trained("gpt4", "aaabdaaabac hello world, hello there", 300)
    clash_id = {"byte": 65, "first merge": 256, "last merge": max(tok.merges.values())}[which]
    assert clash_id in tok.vocab
    with pytest.raises(ValueError) as info:
        tok.register_special_tokens({EOT: clash_id})
    assert str(clash_id) in str(info.value)
    assert EOT not in tok.special_tokens
    assert tok.vocab[clash_id] != EOT.encode()


def test_two_specials_with_one_id_is_a_value_error():
    tok = trained("basic", "aaabdaaabac", 259)
    with pytest.raises(ValueError):
        tok.register_special_tokens({EOT: 1000, FIM: 1000})
