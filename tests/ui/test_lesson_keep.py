"""What a tab keeps for a reload, read back (ui/sidebar/lesson.py): a lesson the app wrote comes
back whole; anything edited in the browser's storage that does not check out brings nothing
back (or, for the tokenizer or the step alone, leaves that part out). An imported file kept
beside it comes back as its files, or, when it was too large or edited, as its name alone (the
sidebar then says so: tests/pages/test_imported_families.py)."""

from __future__ import annotations

import base64

import pytest

from ui.exchange.files import IMPORT_PATTERNS, MAX_IMPORT_FILES
from ui.kit.choices import DEFAULT_KIND, MAX_TEXT_CHARS, make_settings
from ui.sidebar.lesson import (
    MAX_KEPT_IMPORT_CHARS,
    VERSION,
    KeptImport,
    digest,
    import_json,
    import_note,
    read_aside,
    read_kept_import,
    read_lesson,
    room_tag,
    settings_of,
)

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


# -- an imported tokenizer file kept beside the lesson ---------------------------------------------

def _kept_file(source: dict) -> tuple[dict, str]:
    raw = import_json(source)
    return import_note("tokenizer.model", 3, digest(raw)), raw


SOURCE = {"files": [["tokenizer.model", base64.b64encode(b"abc").decode()]], "specials": None,
          "pattern": next(iter(IMPORT_PATTERNS))}


def test_a_kept_import_comes_back_as_its_files_and_options():
    note, raw = _kept_file(SOURCE)
    back = read_kept_import(note, raw, MAX_IMPORT_FILES, IMPORT_PATTERNS)
    assert back == KeptImport("tokenizer.model", 3, SOURCE)


def test_an_import_too_large_to_keep_is_named_with_its_size_and_no_file():
    note = import_note("o200k_base.tiktoken", 3_613_922, None)  # the lesson says: not kept
    assert read_kept_import(note, None, MAX_IMPORT_FILES, IMPORT_PATTERNS) == KeptImport(
        "o200k_base.tiktoken", 3_613_922, None)


@pytest.mark.parametrize("change", [
    lambda s: {**s, "pattern": "<script>"},  # no option of the page
    lambda s: {**s, "files": [["a", "not base64!"]]},
    lambda s: {**s, "files": [["a", "YWJj"]] * (MAX_IMPORT_FILES + 1)},
    lambda s: {**s, "files": [[1, "YWJj"]]},
    lambda s: {**s, "specials": {"<|endoftext|>": "1"}},
    lambda s: {**s, "specials": {"x": True}},
    lambda s: [s],
])
def test_an_edited_import_brings_back_its_name_and_no_file(change):
    note, raw = _kept_file(change(SOURCE))
    assert read_kept_import(note, raw, MAX_IMPORT_FILES, IMPORT_PATTERNS).source is None


def test_an_import_that_does_not_match_its_digest_or_bound_brings_back_no_file():
    note, raw = _kept_file(SOURCE)
    assert read_kept_import(note, raw + " ", MAX_IMPORT_FILES, IMPORT_PATTERNS).source is None
    big = {**SOURCE, "files": [["t.model", "A" * MAX_KEPT_IMPORT_CHARS]]}
    note, raw = _kept_file(big)
    assert read_kept_import(note, raw, MAX_IMPORT_FILES, IMPORT_PATTERNS).source is None
    for bad in (None, {}, {"name": "", "size": 3}, {"name": "x", "size": -1},
                {"name": "x" * 1000, "size": 3}, {"name": "x", "size": True}):
        assert read_kept_import(bad, raw, MAX_IMPORT_FILES, IMPORT_PATTERNS) is None


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


def test_an_exploring_students_work_put_aside_comes_back_through_the_same_reader():
    """The tab keeps an exploring student's work from before joining beside the lesson
    (``aside``: its own lesson and texts); it is read by read_lesson, so what does not check out
    brings nothing back, and a tokenizer trained on another text it lost is left out."""
    older = "what the tokenizer was trained on"
    kept = lesson(tok={**settings_of(DEFAULT_KIND, "", 300, ""), "digest": digest(older)})
    back = read_aside({"lesson": kept, "text": TEXT, "tok_text": older})
    assert back.text == TEXT and back.tok[0] == older and back.step is None
    assert back.values["vocab_size"] == 300
    assert read_aside({"lesson": kept, "text": TEXT, "tok_text": "edited"}).tok is None
    for bad in (None, [], "x", {}, {"lesson": kept}, {"lesson": kept, "text": TEXT + "edited"},
                {"lesson": lesson(vocab_size=10**9), "text": TEXT},
                {"lesson": lesson("x" * (MAX_TEXT_CHARS + 1)), "text": "x" * (MAX_TEXT_CHARS + 1)}):
        assert read_aside(bad) is None, str(bad)[:80]
