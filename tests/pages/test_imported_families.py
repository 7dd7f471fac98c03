"""An imported file of any family is the session's tokenizer (AppTest, through Export & import's
upload): the pages that show families draw it with its own tool's ids (sentencepiece's, HF
tokenizers', subword-nmt's segmentation, mistral-common's rule), a view that cannot show it says
so by name, and so do the byte-level-only pages. Every file is written here by the real tool."""

from __future__ import annotations

import base64
import io
import json

import pytest
from support import after_reload, llama_shaped_json, open_page
from test_families import NEUTRAL, PAGES, SHOWN, TEXT, _codes, _pieces, _sentencepiece, titles, tree

import bpe_core
from ui.kit.escape import md_escape

spm = pytest.importorskip("sentencepiece")
apply_bpe = pytest.importorskip("subword_nmt.apply_bpe")
tiktoken = pytest.importorskip("tiktoken")

FAMILY_PAGES = md_escape("Tokens, Step through merges, Merge forest and Compare with GPT")


@pytest.fixture(scope="module")
def at():
    app = open_page()
    app.selectbox(key="sample").set_value("Multilingual + emoji").run()
    app.number_input(key="vocab_size").set_value(600).run()  # sentencepiece's least is 518 here
    return app


def upload(app, name: str, data: bytes) -> None:
    app.switch_page("pages/exchange.py").run()
    app.file_uploader(key="import_file").set_value([(name, data, "application/octet-stream")])
    app.run()
    assert not app.exception and not app.error, [e.value for e in app.error]


def shown_ids(app) -> list[int]:
    """The ids in the Tokens page's "Token ids" box."""
    return [int(x) for x in app.code[0].value.split(", ")]


def test_an_imported_sentencepiece_model_is_drawn_with_its_ids_on_every_family_page(at, tmp_path):
    reference = _sentencepiece(tmp_path, TEXT, 600)
    upload(at, "tokenizer.model", (tmp_path / "m.model").read_bytes())
    assert at.selectbox(key="family").value == "sentencepiece"
    ids = reference.encode(TEXT)
    at.switch_page("pages/tokens.py").run()
    assert shown_ids(at) == ids
    assert md_escape("imported from tokenizer.model") in at.caption[0].value
    assert titles(at) == [f"'{reference.id_to_piece(i)}'" for i in ids]
    assert [i for i, _ in after_reload(at, TEXT)] == ids  # F5 keeps it
    at.switch_page("pages/steps.py").run()
    # sentencepiece's merged pieces: after <unk>, <s>, </s> and the 256 bytes, those longer
    # than a character (the text's characters are pieces too)
    merged = [p for p in map(reference.id_to_piece, range(3 + 256, len(reference))) if len(p) > 1]
    assert at.slider(key="family_step").max == len(merged)
    at.switch_page("pages/forest.py").run()
    (piece, merge), *_ = tree(at)
    assert merged[merge - 1] == piece
    at.switch_page("pages/compare.py").run()
    assert at.metric[0].value == f"{len(ids):,}"
    at.switch_page("pages/numbers.py").run()  # byte-level BPE only: says so, naming the file
    said = " ".join(i.value for i in at.info)
    assert md_escape("imported from tokenizer.model") in said and md_escape("a SentencePiece model") in said
    assert FAMILY_PAGES in said
    # trained on the text instead, then the file again
    at.selectbox(key="family_source").set_value("Trained on the text").run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert at.session_state["tok"].family == "sentencepiece"
    at.switch_page("pages/tokens.py").run()
    assert "imported from" not in at.caption[0].value
    at.selectbox(key="family_source").set_value("Imported file").run()
    assert shown_ids(at) == ids
    at.selectbox(key="family").set_value("byte-level").run()  # the file is not byte-level
    assert at.selectbox(key="kind").value != "Imported file"
    assert at.session_state["tok"].family == "byte-level"


def test_a_llama_shaped_tokenizer_json_gives_hf_tokenizers_ids_on_tokens(at, tmp_path):
    reference = _sentencepiece(tmp_path, TEXT, 600)
    hf = llama_shaped_json({reference.id_to_piece(i): i for i in range(len(reference))})
    hf.save(str(tmp_path / "tokenizer.json"))
    upload(at, "tokenizer.json", (tmp_path / "tokenizer.json").read_bytes())
    at.switch_page("pages/tokens.py").run()
    assert shown_ids(at) == hf.encode(TEXT, add_special_tokens=False).ids
    assert [i for i, _ in after_reload(at, TEXT)] == shown_ids(at)  # F5 keeps it


def test_imported_subword_nmt_codes_give_apply_bpes_segmentation_and_its_first_merges(at):
    codes = _codes(TEXT)
    upload(at, "codes.bpe", codes.encode())
    assert at.selectbox(key="family").value == "word"
    theirs = apply_bpe.BPE(io.StringIO(codes))
    at.switch_page("pages/tokens.py").run()
    applied = "".join(theirs.process_line(line) for line in io.StringIO(TEXT))
    assert at.code[0].value.rstrip("\n") == applied.rstrip("\n")
    assert [t.decode() for _, t in after_reload(at, TEXT)] == [  # F5 keeps it
        p for line in TEXT.split("\n") for p in _pieces(theirs.segment(line))]
    at.switch_page("pages/steps.py").run()
    at.slider(key="family_step").set_value(5).run()
    first = apply_bpe.BPE(io.StringIO(codes), merges=5)
    assert titles(at) == [f"'{p}'" for line in TEXT.split("\n") for p in _pieces(first.segment(line))]


def test_an_imported_tekken_json_has_mistral_commons_ids_and_step_through_says_it_cannot(at):
    tok = bpe_core.RegexTokenizer(bpe_core.GPT4O_SPLIT_PATTERN)
    tok.train(TEXT, 400)
    document = {"config": {"pattern": bpe_core.GPT4O_SPLIT_PATTERN, "default_vocab_size": 410,
                           "default_num_special_tokens": 10, "version": "v7"},
                "vocab": [{"rank": i, "token_bytes": base64.b64encode(tok.vocab[i]).decode(),
                           "token_str": None} for i in range(400)],
                "special_tokens": [{"rank": i, "token_str": s, "is_control": True}
                                   for i, s in enumerate(["<unk>", "<s>", "</s>"])]}
    upload(at, "tekken.json", json.dumps(document).encode())
    assert at.selectbox(key="kind").value == "Imported file"
    # mistral-common's rule (its tekken.py): tiktoken over the ranks, ids after the specials
    inner = tiktoken.Encoding("tekken", pat_str=bpe_core.GPT4O_SPLIT_PATTERN,
                              mergeable_ranks={tok.vocab[i]: i for i in range(400)},
                              special_tokens={})
    at.switch_page("pages/tokens.py").run()
    assert shown_ids(at) == [i + 10 for i in inner.encode(TEXT)]
    assert [i for i, _ in after_reload(at, TEXT)] == shown_ids(at)  # F5 keeps it
    for page, view in (("pages/steps.py", "Step through merges"),
                       ("pages/forest.py", "the Merge forest")):
        at.switch_page(page).run()
        assert not at.exception
        said = " ".join(i.value for i in at.info)
        assert md_escape("imported from tekken.json") in said and md_escape(f"{view} draws the merges") in said
    for page in PAGES:  # the byte-level-only pages name the file; no page raises
        at.switch_page(page).run()
        assert not at.exception, (page, at.exception)
        said = " ".join(i.value for i in at.info)
        if page not in SHOWN | NEUTRAL:
            assert md_escape("imported from tekken.json") in said, page
            assert md_escape("Mistral tekken.json") in said and FAMILY_PAGES in said, page


def test_a_teachers_imported_sentencepiece_model_is_the_rooms_tokenizer(tmp_path, monkeypatch):
    """A classroom room carries an imported file of any family, as it carries a byte-level one:
    a student who joins sees sentencepiece's ids on Tokens."""
    from test_page_classroom import student, teacher

    import ui.classroom.rooms

    monkeypatch.setattr(ui.classroom.rooms, "CREATES_PER_HOUR", 10_000)  # (as that module does)
    reference = _sentencepiece(tmp_path, TEXT, 600)
    app, code = teacher()
    upload(app, "tokenizer.model", (tmp_path / "m.model").read_bytes())
    pupil = student(code)
    assert not pupil.exception and not pupil.warning, [w.value for w in pupil.warning]
    assert pupil.session_state["family"] == "sentencepiece"
    pupil.switch_page("pages/tokens.py").run()
    assert shown_ids(pupil) == reference.encode(pupil.session_state["text"])


def test_a_byte_level_tiktoken_file_comes_back_after_a_reload_with_the_pages_options(at):
    """tiktoken ranks hold neither the split pattern nor the special tokens: the page's choices
    come back with the file, and the ids are tiktoken's."""
    gpt2 = bpe_core.get_encoding("gpt2")  # GPT-2's ranks, shipped in bpe_core (no network)
    ranks = dict(sorted(gpt2._mergeable_ranks.items(), key=lambda item: item[1])[:2000])
    data = "".join(f"{base64.b64encode(t).decode()} {r}\n" for t, r in ranks.items())
    at.switch_page("pages/exchange.py").run()
    at.selectbox(key="import_pattern").set_value("GPT-2").run()
    at.text_input(key="import_specials").input("<|endoftext|>=2000").run()
    upload(at, "ranks.tiktoken", data.encode())
    assert at.selectbox(key="family").value == "byte-level"
    theirs = tiktoken.Encoding("ranks", pat_str=gpt2._pat_str, mergeable_ranks=ranks,
                               special_tokens={"<|endoftext|>": 2000})
    assert [i for i, _ in after_reload(at, TEXT)] == theirs.encode_ordinary(TEXT)


def _keep_then_reload(name: str, size: int) -> None:
    """(An AppTest script.) The sidebar hands the tab an imported file of ``size`` bytes, and a
    reload reads back what it kept: the sentence the sidebar says after the reload."""
    import base64

    import streamlit as st

    from ui.sidebar.panel import _keep_import, _restore_import

    ss = st.session_state
    ss["_import_source"] = {"files": [[name, base64.b64encode(bytes(size)).decode()]],
                            "specials": None, "pattern": "GPT-2"}
    ss["imported"] = (object(), name)
    lesson, data = {}, {}
    _keep_import(lesson, data, {})
    ss["handed"] = "import" in data
    said, back = _restore_import(lesson, data.get("import"))
    st.write(said)
    ss["back"] = back


def test_a_file_too_large_to_keep_is_not_handed_to_the_tab_and_is_named_after_the_reload():
    from streamlit.testing.v1 import AppTest

    from ui.sidebar.lesson import MAX_KEPT_IMPORT_CHARS

    size = MAX_KEPT_IMPORT_CHARS * 3 // 4 + 3  # its base64 alone is over the bound
    app = AppTest.from_function(_keep_then_reload, args=("o200k_base.tiktoken", size),
                                default_timeout=30).run()
    assert not app.exception and app.session_state["handed"] is False
    assert app.session_state["back"] is False
    assert app.markdown[0].value == (
        f"The imported file o200k_base.tiktoken ({size / 2**20:.1f} MB) is not kept across a"
        " reload: upload it again on the Export & import page.")
