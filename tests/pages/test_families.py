"""The three families of BPE through every page (AppTest): the sidebar's family trains, each page
opens without an exception, the pages that show a family give its reference tool's answer
(sentencepiece's ids, subword-nmt's segmentation), and the others say by name that they show
byte-level BPE only."""

from __future__ import annotations

import html
import io
import re

import pytest
from support import live_workers, open_page, random_words, sentencepiece_as_the_app

from ui.kit.navigation import SECTIONS
from ui.kit.samples import load_samples

spm = pytest.importorskip("sentencepiece")
learn_bpe = pytest.importorskip("subword_nmt.learn_bpe")
apply_bpe = pytest.importorskip("subword_nmt.apply_bpe")

PAGES = [entry.path for entries in SECTIONS.values() for entry in entries]
# every family (Export & import: the family's own files)
SHOWN = {"pages/tokens.py", "pages/steps.py", "pages/forest.py", "pages/compare.py",
         "pages/exchange.py"}
# pages with no view of the sidebar's tokenizer (a room's controls, Check's own merges), or whose
# view of another family is still to come (the Lesson): no exception there
NEUTRAL = {"pages/check.py", "pages/lesson.py", "pages/classroom.py"}
SAMPLES = load_samples()
TEXT = SAMPLES["Multilingual + emoji"]  # byte fallback: its "\n" is in no SentencePiece piece
VOCAB = 600  # at least the 259 special and byte pieces and the text's 259 characters


@pytest.fixture(scope="module")
def at():
    """One session for the module: each test chooses its family (choosing one trains it)."""
    app = open_page()
    app.selectbox(key="sample").set_value("Multilingual + emoji").run()
    app.number_input(key="vocab_size").set_value(VOCAB).run()
    return app


def choose(app, family: str) -> None:
    app.selectbox(key="family").set_value(family).run()
    assert not app.exception and not app.error, [e.value for e in app.error]
    assert app.session_state["tok_settings"].family == family


def titles(app) -> list[str]:
    """The pieces the page's first token view draws, as their hover text names them."""
    return [html.unescape(t) for t in
            re.findall(r'title="piece (&#x27;.*?&#x27;)(?: · |")', token_view(app))]


def token_view(app) -> str:
    return next(h.value for h in app.html if "bpe-tokens" in h.value)


@pytest.mark.parametrize("family", ["sentencepiece", "word"])
def test_every_page_opens_for_each_family_and_the_others_say_so_by_name(at, family):
    """(Byte-level BPE tours every page in test_limits.py and test_hostile.py.)"""
    choose(at, family)
    for page in PAGES:
        at.switch_page(page).run()
        assert not at.exception, (page, at.exception)
        refused = [i.value for i in at.info if "byte\\-level tokenizers only" in i.value]
        if page in SHOWN | NEUTRAL:
            assert not refused, page
        else:  # says which family it is and which pages show it
            name = {"sentencepiece": "a SentencePiece model", "word": "subword\\-nmt codes"}
            assert refused and name[family] in refused[0], (page, [i.value for i in at.info])
            assert "Tokens\\, Step through merges\\, Merge forest and Compare with GPT" in refused[0]


def _sentencepiece(folder, text: str, vocab_size: int = VOCAB):
    return sentencepiece_as_the_app(folder, text, vocab_size)


def test_sentencepiece_pages_show_sentencepieces_ids_and_byte_pieces_as_bytes(at, tmp_path):
    choose(at, "sentencepiece")
    reference = _sentencepiece(tmp_path, TEXT)
    ids = reference.encode(TEXT)
    at.switch_page("pages/tokens.py").run()
    shown = [int(x) for x in at.code[0].value.split(", ")]
    assert shown == ids
    assert titles(at) == [f"'{reference.id_to_piece(i)}'" for i in ids]
    newline = reference.piece_to_id("<0x0A>")
    assert newline in ids  # "\n" is no piece: byte fallback, drawn and said as a byte
    assert f'aria-label="byte 0A, id {newline}"' in token_view(at)
    assert '<span class="bytes">&lt;0x0A&gt;</span>' in token_view(at)
    assert 'aria-label="space' in token_view(at)  # ▁ said as a space
    at.switch_page("pages/compare.py").run()
    assert not at.exception
    assert at.metric[0].value == f"{len(ids):,}"  # the family's count beside GPT's
    at.switch_page("pages/forest.py").run()
    top, *parts = tree(at)
    piece, merge = top
    # sentencepiece's model lists the merged pieces after <unk>, <s>, </s> and the 256 bytes
    assert reference.id_to_piece(3 + 256 + merge - 1) == piece
    assert "".join(p for p, _ in parts[:2]) == piece or len(parts) > 2


def tree(app) -> list[tuple[str, int]]:
    """The Merge forest's tree: the piece, then its two parts (each with its merge number, 0
    for none)."""
    lines = app.code[0].value.split("\n")
    out = []
    for line in [lines[0]] + [x for x in lines[1:] if x[:3] in ("├─ ", "└─ ")]:
        m = re.fullmatch(r"(?:[├└]─ )?(.*?)(?:  \(merge ([\d,]+)\))?", line)
        out.append((m.group(1), int((m.group(2) or "0").replace(",", ""))))
    return out


def _codes(text: str, vocab_size: int = VOCAB) -> str:
    out = io.StringIO()
    learn_bpe.learn_bpe(io.StringIO(text), out, vocab_size, min_frequency=2, total_symbols=True)
    return out.getvalue()


def _pieces(segmented: str) -> list[str]:
    """subword-nmt's output as pieces: ``low@@ er`` -> ``low``, ``er</w>``."""
    return [t[:-2] if t.endswith("@@") else t + "</w>" for t in segmented.split()]


def test_word_bpe_pages_show_subword_nmts_segmentation_and_its_first_merges(at):
    choose(at, "word")
    codes = _codes(TEXT)
    theirs = apply_bpe.BPE(io.StringIO(codes))
    lines = TEXT.split("\n")
    at.switch_page("pages/tokens.py").run()
    applied = "".join(theirs.process_line(line) for line in io.StringIO(TEXT))  # as on a file
    assert at.code[0].value.rstrip("\n") == applied.rstrip("\n")  # (st.code drops the last)
    assert titles(at) == [f"'{p}'" for line in lines for p in _pieces(theirs.segment(line))]
    assert '<span class="eow">&lt;/w&gt;</span>' in token_view(at)  # the end-of-word marker
    assert "end of word" in token_view(at)  # said so
    at.switch_page("pages/steps.py").run()
    at.slider(key="family_step").set_value(5).run()
    assert not at.exception
    first = apply_bpe.BPE(io.StringIO(codes), merges=5)
    assert titles(at) == [f"'{p}'" for line in lines for p in _pieces(first.segment(line))]
    at.switch_page("pages/forest.py").run()
    assert not at.exception
    (piece, merge), (left, _), (right, _) = tree(at)
    assert codes.splitlines()[merge] == f"{left} {right}"  # subword-nmt's merge number `merge`
    assert piece == left + right


def test_choosing_byte_level_again_trains_it_and_the_pages_take_it_again(at):
    choose(at, "word")
    choose(at, "byte-level")
    tok = at.session_state["tok"]
    assert tok.family == "byte-level" and tok.vocab_size == VOCAB
    at.switch_page("pages/health.py").run()
    assert not at.exception
    assert not [i.value for i in at.info if "tokenizers only" in i.value]
    at.switch_page("pages/tokens.py").run()
    assert [int(x) for x in at.code[0].value.split(", ")] == tok.encode(TEXT)


def test_importing_a_file_under_another_family_makes_the_pages_show_the_file(at):
    from bpe_core import BasicTokenizer
    from bpe_core.formats import to_hf_json

    choose(at, "word")
    tok = BasicTokenizer()
    tok.train("aaabdaaabac " * 20, 262)
    at.switch_page("pages/exchange.py").run()
    at.file_uploader(key="import_file").set_value(
        [("tokenizer.json", to_hf_json(tok).encode(), "application/json")]).run()
    assert not at.exception and at.selectbox(key="family").value == "byte-level"
    at.switch_page("pages/tokens.py").run()
    assert [int(x) for x in at.code[0].value.split(", ")] == at.session_state["imported"][0].encode(
        TEXT)
    at.selectbox(key="kind").set_value("Train: GPT-4 split").run()  # (the next tests' kind)


def test_a_link_names_the_family_and_trains_it():
    app = open_page("pages/tokens.py", {"family": "word", "sample": "english", "vocab": "300"})
    assert app.session_state["tok_settings"].family == "word"
    assert app.selectbox(key="family").value == "word"
    assert dict(app.query_params)["family"] == "word"


def test_a_vocabulary_sentencepiece_cannot_reach_is_refused_with_its_least_size(at, tmp_path):
    at.selectbox(key="family").set_value("byte-level").run()
    at.number_input(key="vocab_size").set_value(300).run()
    before = at.session_state["tok"]
    at.selectbox(key="family").set_value("sentencepiece").run()
    assert not at.exception
    with pytest.raises(RuntimeError, match=r"vs (\d+)") as refused:
        _sentencepiece(tmp_path, TEXT, 300)
    least = int(re.search(r"vs (\d+)", str(refused.value)).group(1))
    assert any(f"use at least {least}" in e.value for e in at.error), [e.value for e in at.error]
    assert at.session_state["tok"] is before  # the previous tokenizer is kept
    at.number_input(key="vocab_size").set_value(VOCAB).run()


def test_word_bpe_trains_on_the_start_of_the_text_as_subword_nmt_would():
    from ui.kit.families import MAX_WORD_TRAIN_CHARS, train_family

    text = ("low lower lowest newer newest wider widest " * 1200)[:MAX_WORD_TRAIN_CHARS] + (
        "quizzical jazz fuzzy buzz " * 600)  # words past the limit that would be merged
    codes = "".join(f"{a} {b}\n" for a, b in train_family("word", text, 300).merges)
    assert codes == _codes(text[:MAX_WORD_TRAIN_CHARS], 300).split("\n", 1)[1]
    assert codes != _codes(text, 300).split("\n", 1)[1]


def test_sentencepiece_training_reports_each_merged_piece_so_stop_can_interrupt_it():
    from ui.kit.families import train_family
    from ui.kit.family_tokens import merges_made

    seen = []
    tok = train_family("sentencepiece", TEXT, VOCAB, lambda done, total, piece: seen.append(
        (done, total, piece)))
    made = merges_made(tok)
    assert seen == [(i + 1, len(made), p) for i, p in enumerate(made)]

    def stop(done, total, piece):
        if done == 3:
            raise KeyboardInterrupt  # as Streamlit's Stop raises in the callback
    with pytest.raises(KeyboardInterrupt):
        train_family("sentencepiece", TEXT, VOCAB, stop)


def test_export_offers_the_sidebars_family_files_beside_a_loaded_file_of_that_family(at, tmp_path):
    """The sidebar's SentencePiece model and an uploaded one (written by sentencepiece) each get
    their download buttons on the one page (keys of their own: no duplicate widget). The
    uploaded file becomes the session's tokenizer, its downloads under Import; with the
    sidebar's Tokenizer set back to the trained one, both sets are offered."""
    choose(at, "byte-level")  # (a choice trains only when the family changes)
    choose(at, "sentencepiece")
    at.switch_page("pages/exchange.py").run()
    assert not at.exception
    sidebars = {"sidebar_export_spm_model", "sidebar_export_spm_hf"}
    assert {b.key for b in at.get("download_button")} == sidebars
    _sentencepiece(tmp_path, TEXT)
    at.file_uploader(key="import_file").set_value(
        [("tokenizer.model", (tmp_path / "m.model").read_bytes(), "application/octet-stream")]).run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    loaded = {"export_spm_model", "export_spm_hf"}
    assert {b.key for b in at.get("download_button")} == loaded  # the file is the tokenizer
    at.selectbox(key="family_source").select("Trained on the text").run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert {b.key for b in at.get("download_button")} == sidebars | loaded


# -- the app's training budget (bpe_core.limits.train_budget, ui.kit.choices.install_budget) ----


def test_within_the_apps_budget_each_family_trains_in_a_worker_as_its_reference_tool(tmp_path):
    from bpe_core.limits import shutdown_workers, train_budget, workers_started
    from ui.kit.choices import install_budget
    from ui.kit.families import train_family

    install_budget()  # as app.py does
    assert train_budget() is not None and train_budget().clock == "cpu"
    shutdown_workers()  # no idle worker: this training starts one
    started = workers_started()
    tok = train_family("sentencepiece", TEXT, VOCAB)
    assert workers_started() > started, "SentencePiece trained in a worker"
    assert tok.encode(TEXT) == _sentencepiece(tmp_path, TEXT).encode(TEXT)
    started = workers_started()
    shutdown_workers()
    codes = "".join(f"{a} {b}\n" for a, b in train_family("word", TEXT, VOCAB).merges)
    assert workers_started() > started, "word BPE trained in a worker"
    assert codes == _codes(TEXT).split("\n", 1)[1]


def test_a_family_training_past_its_budget_is_refused_by_name_and_the_tokenizer_kept(monkeypatch):
    monkeypatch.setattr("ui.kit.choices.TRAIN_SECONDS", 0.2)  # the app's, installed at each run
    app = open_page()
    before = app.session_state["tok"]
    app.text_area(key="text").set_value(random_words(20_000)).run()
    app.number_input(key="vocab_size").set_value(8_192).run()
    app.selectbox(key="family").set_value("word").run()  # choosing a family trains it
    assert not app.exception
    errors = [e.value.replace("\\", "") for e in app.error]  # (Markdown's escapes)
    assert any("word BPE's training took more than 0.2 s of CPU (or 0.8 s in all) and was stopped;"
               " train on a shorter text or with fewer merges (a smaller vocabulary size)" in e
               for e in errors), errors
    assert app.session_state["tok"] is before


def test_stop_or_a_closed_session_ends_the_training_worker_not_only_the_thread():
    import os

    from streamlit.runtime.scriptrunner_utils.exceptions import StopException

    from bpe_core.limits import shutdown_workers
    from ui.kit.choices import install_budget
    from ui.kit.families import train_family

    install_budget()
    shutdown_workers()  # no idle worker: the one alive in the training is the training's
    text = random_words(20_000)  # 1.7 s of a worker's CPU at load 7
    running: list[set[int]] = []

    def stop(done, total, merge):  # Streamlit raises StopException at the progress bar's next
        running.append(set(live_workers()))  # update after Stop is pressed or the session closed
        raise StopException()
    with pytest.raises(StopException):
        train_family("word", text, 8_192, stop)
    assert len(running) == 1 and len(running[0]) == 1, running  # stopped at its first report
    pid = running[0].pop()
    assert not os.path.exists(f"/proc/{pid}"), "the worker was killed and reaped"
