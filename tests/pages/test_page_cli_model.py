"""A tokenizer trained on the command line (``bpe-lab train``) opens on Export & import, and
every page works with it; trained with ``--history``, Step through's "why this merge" shows the
corpus's counts."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from support import open_page

import bpe_core
from bpe_core import GPT2_SPLIT_PATTERN, RegexTokenizer
from ui.kit.navigation import all_pages

ROOT = Path(__file__).resolve().parents[2]
EOT = "<|endoftext|>"
VOCAB = 330
PAGES = [page.path for page in all_pages()]  # every page of the app, as the sidebar lists them


def train_on_the_command_line(folder: Path, text: str, *options: str) -> None:
    (folder / "corpus.txt").write_text(text, encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "bpe_lab", "train", "corpus.txt", "--vocab-size", str(VOCAB),
         "--pattern", "gpt2", "--special-token", EOT, "--workers", "1", *options],
        cwd=folder, capture_output=True, text=True, timeout=120,
        env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.returncode == 0, done.stderr


def upload(at, folder: Path, *names: str):
    files = [(n, (folder / n).read_bytes(), "application/octet-stream") for n in names]
    return at.file_uploader(key="import_file").set_value(files).run()


@pytest.mark.timeout(300)
def test_a_command_line_tokenizer_opens_and_every_page_works(tmp_path, prose_text):
    text = EOT.join(prose_text[i:i + 3_000] for i in range(0, 12_000, 3_000))
    train_on_the_command_line(tmp_path, text, "--out", "cli.model")
    at = open_page("pages/exchange.py")
    upload(at, tmp_path, "cli.model")
    assert not at.exception and not at.error
    assert at.selectbox(key="kind").value == "Imported file"
    imported, name = at.session_state["imported"]
    assert name == "cli.model"
    expected = RegexTokenizer(GPT2_SPLIT_PATTERN)
    expected.train(text, VOCAB, special_tokens=[EOT])
    assert imported.merges == expected.merges and imported.special_tokens == {EOT: VOCAB - 1}
    for page in PAGES:
        at.switch_page(page).run()
        assert not at.exception, (page, [e.value for e in at.exception])
        assert at.selectbox(key="kind").value == "Imported file", page


@pytest.mark.timeout(300)
def test_with_history_why_this_merge_shows_the_corpus_counts(tmp_path, prose_text):
    text = EOT.join(prose_text[i:i + 3_000] for i in range(0, 12_000, 3_000))
    train_on_the_command_line(tmp_path, text, "--history", "--out", "cli.model")
    sidecars = sorted(n for n in os.listdir(tmp_path) if n.startswith("cli.model."))
    assert sidecars, "no sidecar beside the .model: the history has nowhere to go"
    at = open_page("pages/exchange.py")
    upload(at, tmp_path, "cli.model", *sidecars)
    assert not at.exception and not at.error
    imported, _ = at.session_state["imported"]
    expected = RegexTokenizer(GPT2_SPLIT_PATTERN)
    expected.train(text, VOCAB, special_tokens=[EOT], candidates=5)
    assert [(r.pair, r.count) for r in imported.history] == [
        (r.pair, r.count) for r in expected.history]
    at.switch_page("pages/steps.py").run()
    at.toggle(key="step_instant").set_value(False).run()  # the server's slider
    for k in (1, 7):
        at.slider(key="step").set_value(k).run()
        assert not at.exception
        assert "**Why this merge**" in [m.value for m in at.markdown]
        (frame,) = [d.value for d in at.dataframe if "first seen" in d.value.columns]  # why
        record = expected.history[k - 1]
        assert list(frame["count"]) == [c.count for c in record.candidates]
        assert (frame["left id"][0], frame["right id"][0]) == record.pair
    assert bpe_core.load(tmp_path / "cli.model").history == imported.history
