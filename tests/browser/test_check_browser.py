"""Check your BPE in a real browser: a second upload replaces the first and its verdict (it was
once ignored while the first file's verdict stayed), and byte labels keep their spaces."""

from __future__ import annotations

import pytest
from test_app_browser import ENGLISH, no_exception

import bpe_core

try:
    from playwright.sync_api import expect
except ImportError:  # conftest.py skips these tests, or fails them when CI=true
    expect = None

pytestmark = [pytest.mark.browser, pytest.mark.timeout(180)]


def saved(tmp_path, name: str, tie_rule: str) -> str:
    """A minbpe .model trained as the sidebar trains by default (GPT-4 split, 512 tokens), with
    the tie rule given; its path."""
    tok = bpe_core.RegexTokenizer()
    tok.train(ENGLISH, 512, tie_rule=tie_rule)
    tok.save(str(tmp_path / name))
    return str(tmp_path / f"{name}.model")


def test_a_second_upload_replaces_the_first_and_its_verdict(app, tmp_path):
    app.go("Check your BPE", app.main.get_by_role("heading", name="2. Your output"))
    uploader = app.main.locator(".st-key-check_file input[type=file]")
    errors = app.main.get_by_test_id("stAlertContentError")
    uploader.set_input_files(saved(tmp_path, "ties-by-bytes", "bytes"))
    app.wait_idle(app.main.get_by_text("from ties-by-bytes.model", exact=False))
    expect(errors.first).to_contain_text("Your merges")
    uploader.set_input_files(saved(tmp_path, "right", "seen"))
    app.wait_idle(app.main.get_by_text("from right.model", exact=False))
    expect(app.main.get_by_text("from ties-by-bytes.model", exact=False)).to_have_count(0)
    expect(app.main.get_by_test_id("stAlertContentSuccess").first).to_contain_text(
        "Your merges match the reference's 256 merges.")
    no_exception(app)


def test_byte_labels_keep_two_spaces_apart_from_one(app):
    app.go("Check your BPE", app.main.get_by_role("heading", name="2. Your output"))
    app.main.get_by_text("A text of my own").click()
    own = app.main.get_by_role("textbox", name="Your text")
    own.wait_for()
    # GPT-4's pattern (the sidebar's) cuts "a    b    c" into a, "   ", " b", "   ", " c": the
    # reference merges " " + " " (4 times), then "  " + " " (twice)
    own.fill("a    b    c")
    own.press("Control+Enter")
    app.wait_idle()
    vocab = app.main.get_by_role("spinbutton", name="Vocabulary size")
    vocab.fill("258")
    vocab.press("Enter")
    app.wait_idle()
    paste = app.main.get_by_role("textbox", name="Paste your merges")
    paste.fill("merges = [(b' ', b' '), (b'  ', b'b')]")
    paste.press("Control+Enter")
    error = app.main.get_by_test_id("stAlertContentError").first
    app.wait_idle(error)
    # the rendered text, as a reader sees it: two spaces and one never look alike
    assert error.inner_text().strip() == ("Your merges match the first 1; at merge 2 you merged"
                                          " ·· + b and the reference merged ·· + ·.")
