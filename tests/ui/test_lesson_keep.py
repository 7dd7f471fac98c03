"""What a tab keeps for a reload, read back (ui/sidebar/lesson.py): a lesson the app wrote comes
back whole; anything edited in the browser's storage that does not check out brings nothing
back (or, for the tokenizer or the step alone, leaves that part out)."""

from __future__ import annotations

import pytest

from ui.kit.choices import DEFAULT_KIND, MAX_TEXT_CHARS, make_settings
from ui.sidebar.lesson import VERSION, digest, read_lesson, room_tag, settings_of

TEXT = "Tokens 😀 cost money.<|endoftext|>"


def lesson(text: str = TEXT, **changes) -> dict:
    kept = {"v": VERSION, "digest": digest(text),
            **settings_of(DEFAULT_KIND, "", 300, "<|endoftext|>"),
            "special_rule": "text", "projector": False,
            "tok": {**settings_of(DEFAULT_KIND, "", 300, "<|endoftext|>"), "digest": digest(text)}}
    kept.update(changes)
    return kept


def test_a_kept_lesson_comes_back_whole():
    back = read_lesson(lesson(), TEXT, None, 20)
    assert back.text == TEXT and back.step == 20
    assert back.values == {"kind": DEFAULT_KIND, "pattern": "", "vocab_size": 300,
                           "specials": "<|endoftext|>", "family": "byte-level",
                           "special_rule": "text", "projector": False}
    tok_text, values = back.tok
    assert tok_text == TEXT
    # the sidebar trains again from these: they make the Settings the first training had
    assert make_settings(values["kind"], values["pattern"], values["vocab_size"],
                         values["specials"]).specials == ("<|endoftext|>",)


def test_the_family_comes_back_and_a_tab_kept_before_families_reads_as_byte_level():
    word = settings_of(DEFAULT_KIND, "", 300, "", "word")
    back = read_lesson(lesson(**word, tok={**word, "digest": digest(TEXT)}), TEXT)
    assert back.values["family"] == "word" and back.tok[1]["family"] == "word"
    older = lesson()
    del older["family"], older["tok"]["family"]
    assert read_lesson(older, TEXT).values["family"] == "byte-level"
    assert read_lesson(lesson(family="unigram"), TEXT) is None  # not one of the three


def test_a_tokenizer_trained_on_another_text_comes_back_with_that_text():
    older = "an older text"
    kept = lesson(tok={**settings_of(DEFAULT_KIND, "", 300, ""), "digest": digest(older)})
    assert read_lesson(kept, TEXT, older).tok[0] == older
    assert read_lesson(kept, TEXT, "not the older text").tok is None  # lost: Train again
    assert read_lesson(kept, TEXT, None).text == TEXT


@pytest.mark.parametrize("kept, text", [
    (None, TEXT),
    (lesson(), TEXT + "edited"),  # the text does not match its digest
    (lesson(v=VERSION + 1), TEXT),
    (lesson(vocab_size=10**9), TEXT),
    (lesson(vocab_size=True), TEXT),
    (lesson(kind="Pretrained: GPT-5"), TEXT),
    (lesson(pattern="x" * 100_000), TEXT),
    (lesson(special_rule="<script>"), TEXT),
    (lesson(projector="yes"), TEXT),
    (lesson(), 12),
    (lesson("x" * (MAX_TEXT_CHARS + 1)), "x" * (MAX_TEXT_CHARS + 1)),
])
def test_storage_that_does_not_check_out_brings_nothing_back(kept, text):
    assert read_lesson(kept, text, None, 20) is None


@pytest.mark.parametrize("step", [-1, 10**7, "20", 2.5, True, None])
def test_a_step_that_does_not_check_out_is_left_out(step):
    assert read_lesson(lesson(), TEXT, None, step).step is None


def test_a_lesson_kept_in_a_room_names_the_room_and_a_bad_tag_names_none():
    """A student's tab in a room keeps their own work tagged with the room's code
    (ui/classroom/reload.py); a tag edited in the browser's storage reads as no room, and the
    lesson itself still reads back."""
    assert room_tag(lesson(aside="ABCDEFGH")) == {"aside": "ABCDEFGH"}
    assert room_tag(lesson(explore="ABCDEFGH")) == {"explore": "ABCDEFGH"}
    assert room_tag(lesson()) == {}
    for bad in ({"aside": "A" * 17}, {"aside": ""}, {"aside": 7}, {"explore": "AB<i>"},
                {"aside": "ABCDEFGH", "explore": "ABCDEFGH"}):
        assert room_tag(lesson(**bad)) == {}, bad
    assert room_tag(None) == {} and room_tag([]) == {}
    assert read_lesson(lesson(aside="ABCDEFGH"), TEXT).text == TEXT
