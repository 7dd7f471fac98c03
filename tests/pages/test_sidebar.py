"""The sidebar (ui/sidebar/panel.py) in a real session (AppTest): its special tokens train as the
library's ``train(special_tokens=...)`` does, and one count of characters."""

from __future__ import annotations

from support import open_page

import bpe_core
from bpe_core import GPT4_SPLIT_PATTERN

SPECIALS = ["<|endoftext|>", "<|im_start|>"]


def test_the_sidebars_special_tokens_train_as_the_librarys_train_does():
    at = open_page("pages/tokens.py")
    text = "".join(f"<|im_start|>user {i}: the cat sat on the mat, then on the hat.<|endoftext|>"
                   for i in range(60))
    at.text_area(key="text").input(text).run()
    at.text_input(key="specials").input(", ".join(SPECIALS)).run()
    at.number_input(key="vocab_size").set_value(300).run()
    at.button(key="train").click().run()
    assert not at.exception
    tok = at.session_state["tok"]
    library = bpe_core.RegexTokenizer(GPT4_SPLIT_PATTERN)
    library.train(text, 300, special_tokens=SPECIALS)
    assert library.special_tokens == {"<|endoftext|>": 298, "<|im_start|>": 299}  # counted in 300
    assert len(library.merges) == 42
    assert tok.merges == library.merges
    assert tok.special_tokens == library.special_tokens
    assert tok.vocab == library.vocab
    # no merge is learned inside a special token's text
    assert not any(b"|" in token for token in (tok.vocab[i] for i in tok.merges.values()))
    page = " ".join(c.value for c in at.caption) + " ".join(m.value for m in at.markdown)
    assert "vocabulary 300" in page and "vocabulary 302" not in page
