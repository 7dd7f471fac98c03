"""The three families of BPE in Chromium, as a learner walks them: the family chosen in the
sidebar's select (click, then the option), then Tokens, Step through merges (a step taken with
the keyboard), Merge forest, Compare with GPT and Export & import, each reached through the
sidebar's links. On every page: the family named, no exception. The tokens are drawn with the
family's markers and said by their names (SentencePiece's ``▁`` "space", a byte fallback "byte
E4" for a character the model never saw, word BPE's ``</w>`` "end of word"), with the ids (or
word BPE's pieces) of the family's own tool trained here on the same text and settings
(``sentencepiece``'s trainer, subword-nmt's ``learn_bpe``/``apply_bpe``); the step moves and
names the reference's merge at that step; the forest's piece is the reference's merge; the
Export page offers the family's files, and the file downloaded gives the same ids in its own
tool (sentencepiece, subword-nmt, tiktoken). axe (WCAG 2.2 AA) runs on each family's Tokens
view. One session, one page, the session's shared server.

The app trains on the English sample (the sidebar's default text, at its default vocabulary of
512); the pages then show another text (the sidebar's text changed, not trained on), with
characters the English sample lacks (你, ï), which SentencePiece spells by byte fallback.
"""

from __future__ import annotations

import io
import re

import pytest
import sentencepiece as spm  # the references: requirements-dev.txt (a test never skips for them)
import tiktoken
from subword_nmt import apply_bpe, learn_bpe
from support import sentencepiece_as_the_app
from test_a11y_browser import violations
from test_app_browser import ENGLISH, no_exception
from tiktoken.load import load_tiktoken_bpe
from tokenizers import Tokenizer

import bpe_core

try:
    from playwright.sync_api import expect
except ImportError:  # conftest.py skips these tests, or fails them when CI=true
    expect = None

pytestmark = [pytest.mark.browser, pytest.mark.timeout(180)]

VOCAB = 512  # the sidebar's default vocabulary size
SHOWN = "Hello  world: the naïve café tokenizer sees 你好 today.\nA lower, newer token"
LABELS = {"sentencepiece": "SentencePiece (Llama 2, Mistral, Gemma)",
          "word": "word BPE (the textbook, subword-nmt)", "byte-level": "byte-level (GPT)"}
PIECES = ".bpe-tokens [role=listitem]"


# -- the reference tools, trained here on the text and settings the sidebar trains on ----------


def sentencepiece_reference(folder):
    """sentencepiece's BPE trainer with the options ui/kit/families.py gives it, on the English
    sample at the sidebar's vocabulary size."""
    return sentencepiece_as_the_app(folder, ENGLISH, VOCAB)


def subword_nmt_codes() -> str:
    """subword-nmt's learn_bpe as the app's word BPE trains: --total-symbols at the vocabulary
    size, a pair seen at least twice."""
    out = io.StringIO()
    learn_bpe.learn_bpe(io.StringIO(ENGLISH), out, VOCAB, min_frequency=2, total_symbols=True)
    return out.getvalue()


def subword_nmt_pieces(codes: str, text: str, merges: int = -1) -> list[str]:
    """apply_bpe's segmentation of each line as pieces (``low@@ er`` -> ``low``, ``er</w>``)."""
    bpe = apply_bpe.BPE(io.StringIO(codes), merges=merges)
    return [t[:-2] if t.endswith("@@") else t + "</w>"
            for line in text.split("\n") for t in bpe.segment(line).split()]


# -- what the page shows ---------------------------------------------------------------------


def drawn(app) -> tuple[list[str], list[str]]:
    """The first token view's pieces as drawn (their text: markers included) and as said."""
    pieces = app.main.locator(PIECES)
    first = app.main.locator(".bpe-tokens").first.locator("[role=listitem]")
    expect(pieces.first).to_be_visible()
    return first.all_text_contents(), first.evaluate_all(
        "s => s.map(e => e.getAttribute('aria-label'))")


def marks(app, drawn_as: str) -> list[str]:
    """The markers the first token view draws as ``drawn_as`` ("ws": SentencePiece's space,
    "bytes": a byte-fallback piece, "eow": word BPE's end of word), in order."""
    first = app.main.locator(".bpe-tokens").first
    return first.locator(f"[role=listitem] .{drawn_as}").all_text_contents()


def said_ids(said: list[str]) -> list[int]:
    return [int(re.search(r", id (\d+)(?:,|$)", s).group(1)) for s in said]


def choose_family(app, family: str) -> None:
    """The sidebar's select clicked and the family's option picked (choosing trains it)."""
    app.sidebar.get_by_role("combobox", name="Family of BPE").click()
    app.page.get_by_role("option", name=LABELS[family], exact=True).click()
    app.wait_idle()
    expect(app.sidebar.get_by_role("combobox", name="Family of BPE")).to_have_value(
        LABELS[family])
    no_exception(app)


def set_text(app, text: str) -> None:
    box = app.sidebar.get_by_label("Text", exact=True)
    box.fill(text)
    box.press("Control+Enter")
    app.wait_idle(app.sidebar.get_by_text(f"{len(text):,} of 200,000 characters"))


def visit(app, title: str, named: str, *expected) -> None:
    """A page through its sidebar link: idle, the tokenizer (its family) named, no exception."""
    heading = app.main.get_by_role("heading", level=1, name=title.removesuffix(" with GPT"))
    app.go(title, heading, *expected)
    expect(app.main).to_contain_text(named)
    no_exception(app)


def download(app, button: str, folder):
    with app.page.expect_download() as info:
        app.main.get_by_role("button", name=button, exact=True).click()
    path = folder / info.value.suggested_filename
    info.value.save_as(path)
    return path


def axe_clean(app, where: str) -> None:
    found = violations(app.page, "[data-testid=stMain]")
    assert not found, (where, found)


def test_three_families_through_tokens_steps_forest_compare_and_export(app, tmp_path):
    # -- SentencePiece -------------------------------------------------------------------------
    ref = sentencepiece_reference(tmp_path)
    ids = ref.encode(SHOWN)
    choose_family(app, "sentencepiece")
    set_text(app, SHOWN)
    named = f"{LABELS['sentencepiece']}, vocabulary {VOCAB}"
    visit(app, "Tokens", named)
    texts, said = drawn(app)
    assert said_ids(said) == ids  # sentencepiece's ids, id for id
    assert texts == [ref.id_to_piece(i) for i in ids]  # ▁ and <0xE4> drawn as written
    assert marks(app, "ws") == ["▁"] * "".join(texts).count("▁")  # each ▁ drawn as a marker
    assert marks(app, "bytes") == [ref.id_to_piece(i) for i in ids if ref.is_byte(i)]
    e4 = ref.piece_to_id("<0xE4>")
    assert e4 in ids and f"byte E4, id {e4}" in said  # 你: a character it never saw
    assert any(s.startswith("space ") for s in said)  # ▁the said "space the"
    axe_clean(app, "SentencePiece tokens")

    visit(app, "Step through merges", named)
    # sentencepiece lists <unk>, <s>, </s>, the 256 bytes, its merged pieces, then characters
    total = sum(len(ref.id_to_piece(i)) > 1 for i in range(259, ref.get_piece_size()))
    slider = app.main.get_by_role("slider", name="Merges applied")
    expect(slider).to_have_value(str(total))
    slider.focus()
    slider.press("Home")  # every character a piece
    app.wait_idle(app.main.get_by_text("pieces before any merge"))
    slider.press("ArrowRight")
    app.wait_idle(app.main.get_by_text(f"Merge 1 of {total}: the piece “{ref.id_to_piece(259)}”"))
    expect(slider).to_have_value("1")

    visit(app, "Merge forest", named)
    top = app.main.locator("[data-testid=stCode]").first.inner_text().splitlines()[0]
    piece, merge = re.fullmatch(r"(.*?)  \(merge ([\d,]+)\)", top).groups()
    assert ref.id_to_piece(259 + int(merge.replace(",", "")) - 1) == piece

    visit(app, "Compare with GPT", f"Yours: {LABELS['sentencepiece']}")
    expect(app.metric("Tokens").first).to_have_text(f"{len(ids):,}")

    visit(app, "Export & import", named)
    model = download(app, "Download sentencepiece tokenizer.model", tmp_path)
    assert spm.SentencePieceProcessor(model_file=str(model)).encode(SHOWN) == ids
    hf = download(app, "Download Hugging Face tokenizer.json (Llama 2's shape)", tmp_path)
    assert Tokenizer.from_file(str(hf)).encode(SHOWN, add_special_tokens=False).ids == ids

    # -- word BPE --------------------------------------------------------------------------------
    codes = subword_nmt_codes()
    merges = codes.splitlines()[1:]  # after subword-nmt's "#version: 0.2"
    pieces = subword_nmt_pieces(codes, SHOWN)
    set_text(app, ENGLISH)  # choosing a family trains it on the sidebar's text
    choose_family(app, "word")
    set_text(app, SHOWN)
    named = f"{LABELS['word']}, merges {len(merges):,}"
    visit(app, "Tokens", named)
    texts, said = drawn(app)
    assert texts == pieces  # apply_bpe's segmentation, </w> drawn where a word ends
    assert marks(app, "eow") == ["</w>"] * sum(p.endswith("</w>") for p in pieces)
    assert [s.endswith(" end of word") for s in said] == [p.endswith("</w>") for p in pieces]
    axe_clean(app, "word BPE tokens")

    visit(app, "Step through merges", named)
    slider = app.main.get_by_role("slider", name="Merges applied")
    expect(slider).to_have_value(str(len(merges)))
    slider.focus()
    slider.press("Home")
    app.wait_idle(app.main.get_by_text("pieces before any merge"))
    for _ in range(3):
        slider.press("ArrowRight")
    left, right = merges[2].split(" ")
    app.wait_idle(app.main.get_by_text(f"Merge 3 of {len(merges):,}: “{left}” + “{right}”"))
    assert drawn(app)[0] == subword_nmt_pieces(codes, SHOWN, merges=3)

    visit(app, "Merge forest", named)
    lines = app.main.locator("[data-testid=stCode]").first.inner_text().splitlines()
    piece, merge = re.fullmatch(r"(.*?)  \(merge ([\d,]+)\)", lines[0]).groups()
    parts = [re.sub(r"^[├└]─ |  \(merge [\d,]+\)$", "", x) for x in lines[1:]
             if x[:3] in ("├─ ", "└─ ")]
    assert merges[int(merge.replace(",", "")) - 1] == " ".join(parts) and piece == "".join(parts)

    visit(app, "Compare with GPT", f"Yours: {LABELS['word']}")
    expect(app.metric("Tokens").first).to_have_text(f"{len(pieces):,}")

    visit(app, "Export & import", named)
    written = download(app, "Download subword-nmt codes", tmp_path).read_text(encoding="utf-8")
    assert subword_nmt_pieces(written, SHOWN) == pieces

    # -- byte-level (GPT) --------------------------------------------------------------------
    tok = bpe_core.RegexTokenizer()  # the sidebar's default training: GPT-4's split
    tok.train(ENGLISH, VOCAB)
    ids = tok.encode_ordinary(SHOWN)
    set_text(app, ENGLISH)
    choose_family(app, "byte-level")
    set_text(app, SHOWN)
    named = f"GPT-4 split, vocabulary {VOCAB}"
    visit(app, "Tokens", named)
    _, said = drawn(app)
    assert said_ids(said) == ids
    assert f"byte E4, id {0xE4}" in [s.split(", 1 byte")[0] for s in said]
    axe_clean(app, "byte-level tokens")

    visit(app, "Step through merges", named)
    root = app.main.get_by_test_id("bpe-steps")
    slider = root.get_by_role("slider", name="Merges applied (k)")
    step = int(root.get_attribute("data-step"))
    key, step = ("ArrowLeft", step - 1) if step == tok.num_merges else ("ArrowRight", step + 1)
    slider.focus()
    slider.press(key)
    expect(root).to_have_attribute("data-step", str(step))
    expect(app.metric("Step")).to_have_text(f"{step} of {tok.num_merges}")  # the server heard

    visit(app, "Merge forest", named, app.main.get_by_role("heading", name="Token tree"))

    visit(app, "Compare with GPT", f"Yours: {named}")

    visit(app, "Export & import", named)
    ranks = download(app, "Download tiktoken ranks", tmp_path)
    enc = tiktoken.Encoding("walk", pat_str=bpe_core.GPT4_SPLIT_PATTERN,
                            mergeable_ranks=load_tiktoken_bpe(str(ranks)), special_tokens={})
    assert enc.encode_ordinary(SHOWN) == ids
