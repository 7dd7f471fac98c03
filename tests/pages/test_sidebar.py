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


def test_a_long_paste_with_emoji_is_counted_in_characters_everywhere():
    """A 300,000-character paste with emoji (each one character, two UTF-16 units): the note, the
    sidebar's counter and the front box count the same characters (code points)."""
    from support import front_box

    from ui.front.component import MAX_FRONT_CHARS
    from ui.kit.choices import MAX_TEXT_CHARS

    line = "Tokens 😀 cost 🚀 money, 你好 🎉 ok.\n"  # 33 characters, 4 of them emoji
    paste = (line * (300_000 // len(line) + 1))[:300_000]
    assert len(paste.encode("utf-16-le")) // 2 > len(paste)  # more units than characters
    at = open_page()
    at.text_area(key="text").input(paste).run()
    assert not at.exception
    notes = [i.value.replace("\\", "") for i in at.sidebar.info]  # Markdown-escaped
    assert ("Keeping the first 200,000 of 300,000 characters: the last 100,000 were cut."
            in notes)
    captions = [c.value for c in at.sidebar.caption]
    assert f"{MAX_TEXT_CHARS:,} of {MAX_TEXT_CHARS:,} characters" in captions
    assert at.session_state["text"] == paste[:MAX_TEXT_CHARS]
    box = front_box(at)  # the front page's box starts from the kept text, at most its bound
    assert box["max"] == MAX_FRONT_CHARS and 0 < len(box["text"]) <= MAX_FRONT_CHARS
    assert paste.startswith(box["text"])
