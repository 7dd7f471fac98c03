"""A reload (F5) keeps the lesson: the tab's sessionStorage holds the text and the settings, and
the sidebar trains the same tokenizer again (ui/sidebar/component.py, ui/sidebar/panel.py).
Expected tokens come from bpe_core's own training."""

from __future__ import annotations

import re

import pytest
from conftest import IDLE
from test_steps_in_browser import go_to, shown_ids, view

import bpe_core

try:
    from playwright.sync_api import expect
except ImportError:  # conftest.py skips these tests, or fails them when CI=true
    expect = None

pytestmark = [pytest.mark.browser, pytest.mark.timeout(120)]

TEXT = "".join(f"Lesson {i}: tokens 😀 cost money, 你好 🎉 naïve café.<|endoftext|>\n"
               for i in range(40))
SPECIALS = ["<|endoftext|>"]


def test_a_reload_comes_back_at_the_same_step_with_the_same_text_and_tokenizer(app):
    box = app.sidebar.get_by_label("Text", exact=True)
    box.fill(TEXT)
    # one count of characters: Streamlit's own counter under the box (UTF-16 units) is hidden,
    # its "Ctrl+Enter" hint stays; the sidebar counts code points once the text is applied
    hint = app.sidebar.locator(".st-key-text [data-testid=InputInstructions] > span")
    expect(hint.first).to_contain_text("Enter to apply")
    expect(hint.nth(1)).to_be_hidden()
    box.press("Control+Enter")
    expect(app.sidebar.get_by_text(f"{len(TEXT):,} of 200,000 characters")).to_be_visible()
    specials = app.sidebar.get_by_label("Special tokens (comma-separated)")
    specials.fill(", ".join(SPECIALS))
    specials.press("Enter")
    app.wait_idle()
    app.train()
    app.go("Step through merges")
    root, slider = view(app)
    go_to(app, root, slider, 20)
    expect(app.metric("Step")).to_contain_text("20 of")  # the server heard the step
    page = app.page
    page.wait_for_function("() => sessionStorage.getItem('bpe-lab.step') === '20'")
    before = shown_ids(root)

    page.reload(wait_until="domcontentloaded")
    page.locator(IDLE).wait_for(state="attached")
    expect(app.sidebar.get_by_label("Text", exact=True)).to_have_value(TEXT)
    expect(specials).to_have_value(", ".join(SPECIALS))
    root, _ = view(app)
    expect(root).to_have_attribute("data-step", "20")
    expect(app.metric("Step")).to_contain_text("20 of")
    after = shown_ids(root)
    tok = bpe_core.RegexTokenizer()  # the sidebar's default, trained as the library trains
    tok.train(TEXT, 512, special_tokens=SPECIALS)
    # the sidebar's rule: special-token text in the text read as text
    expected = [s.id for s in tok.step_through(TEXT, allowed_special="none").tokens_at(20)]
    assert len(after) > 100 and after == before == expected[:len(after)]
    assert app.sidebar.get_by_text("came back after the reload").count() == 1


SENTENCEPIECE = "SentencePiece (Llama 2, Mistral, Gemma)"


def sentencepiece_model(folder, text: str, vocab_size: int) -> str:
    """A model the sentencepiece package trains on ``text`` with the sidebar's SentencePiece
    options (Llama 2's: byte fallback, every character, spaces kept); its path."""
    spm = pytest.importorskip("sentencepiece")
    (folder / "input.txt").write_text(text, encoding="utf-8")
    spm.SentencePieceTrainer.train(
        input=str(folder / "input.txt"), model_prefix=str(folder / "tokenizer"),
        vocab_size=vocab_size, model_type="bpe", character_coverage=1.0,
        normalization_rule_name="identity", byte_fallback=True, remove_extra_whitespaces=False,
        input_sentence_size=0, shuffle_input_sentence=False, num_threads=1, minloglevel=2)
    return str(folder / "tokenizer.model")


def drawn_ids(app) -> list[int]:
    """The ids of the Tokens page's pieces, as each piece's name says them."""
    labels = app.main.locator(".bpe-tokens [role=listitem]").evaluate_all(
        "s => s.map(e => e.getAttribute('aria-label'))")
    return [int(re.search(r", id (\d+)$", label).group(1)) for label in labels]


def test_a_reload_keeps_the_family_and_trains_the_same_sentencepiece_model(app, tmp_path):
    """The sidebar's family comes back after F5 with its tokenizer: the Tokens page's ids are
    those of the model the sentencepiece package trains from the same text and options."""
    spm = pytest.importorskip("sentencepiece")
    from ui.kit.samples import load_samples

    family = app.sidebar.get_by_role("combobox", name="Family of BPE")
    family.click()
    app.page.get_by_role("option", name=SENTENCEPIECE).click()
    app.wait_idle()
    marks = app.main.get_by_text("marks a space", exact=False)
    app.go("Tokens", marks)
    before = drawn_ids(app)
    app.page.reload(wait_until="domcontentloaded")
    app.page.locator(IDLE).wait_for(state="attached")
    expect(family).to_have_value(SENTENCEPIECE)
    app.wait_idle(marks)
    after = drawn_ids(app)
    text = load_samples()["English prose"]
    model = sentencepiece_model(tmp_path, text, 512)
    expected = spm.SentencePieceProcessor(model_file=model).encode(text)
    assert len(after) > 100 and after == before == expected


def test_a_reload_keeps_an_imported_sentencepiece_model_with_its_ids(app, tmp_path):
    """A tokenizer.model uploaded on Export & import (written here by the sentencepiece
    package) is the session's tokenizer: after F5 the tab gives it back, the server reads it
    again, and the Tokens page shows sentencepiece's ids. A file the tab has no room for is
    named after the reload."""
    spm = pytest.importorskip("sentencepiece")
    from ui.kit.samples import load_samples

    text = load_samples()["English prose"]  # the sidebar's first text
    model = sentencepiece_model(tmp_path, text, 400)
    expected = spm.SentencePieceProcessor(model_file=model).encode(text)
    app.go("Export & import", app.main.get_by_role("heading", name="Import"))
    app.main.locator(".st-key-import_file input[type=file]").set_input_files(model)
    app.wait_idle(app.main.get_by_text("now use this tokenizer", exact=False))
    marks = app.main.get_by_text("marks a space", exact=False)
    app.go("Tokens", marks)
    before = drawn_ids(app)
    page = app.page
    page.wait_for_function("() => sessionStorage.getItem('bpe-lab.import') !== null")
    page.reload(wait_until="domcontentloaded")
    page.locator(IDLE).wait_for(state="attached")
    app.wait_idle(marks)
    expect(app.sidebar.get_by_text("The imported file tokenizer.model came back too.",
                                   exact=False)).to_be_visible()
    expect(app.sidebar.get_by_role("combobox", name="Tokenizer")).to_have_value("Imported file")
    assert len(before) > 100 and drawn_ids(app) == before == expected

    # a tab with no room left for the file (another page's data filled it): the file is not
    # kept, the lesson says so, and after the reload the sidebar names it
    page.evaluate("""() => {
        sessionStorage.removeItem('bpe-lab.import');
        sessionStorage.removeItem('bpe-lab.import.digest');
        let used = 0;
        for (let i = 0; i < sessionStorage.length; i++) {
            const key = sessionStorage.key(i);
            used += key.length + sessionStorage.getItem(key).length;
        }
        sessionStorage.setItem('junk', 'x'.repeat(5242880 - used - 'junk'.length - 2000));
    }""")
    app.go("Compare with GPT", app.main.get_by_text("The GPT tokenizers"))  # a rerun: resent
    page.wait_for_function("() => JSON.parse(sessionStorage.getItem('bpe-lab.lesson'))"
                           ".import.kept === false")
    assert page.evaluate("() => sessionStorage.getItem('bpe-lab.import')") is None
    page.reload(wait_until="domcontentloaded")
    page.locator(IDLE).wait_for(state="attached")
    expect(app.sidebar.get_by_text(re.compile(
        r"The imported file tokenizer\.model \(0\.\d MB\) is not kept across a reload: upload it"
        r" again"))).to_be_visible()
