"""benchmarks/corpus.py's pieces on 1 MB corpora: reproducible text of the kind it says, and a
trainer run that learns the merges asked for. No timing is asserted."""

from __future__ import annotations

import hashlib

from benchmarks.corpus import EOT, documents, make_corpus, run_trainer
from bpe_core import GPT2_SPLIT_PATTERN, count_pieces


def test_corpora_are_reproducible_and_of_their_kind(tmp_path):
    tiny = make_corpus("tiny", 1, tmp_path / "a")
    again = make_corpus("tiny", 1, tmp_path / "b")
    assert hashlib.sha256(tiny.read_bytes()).digest() == hashlib.sha256(again.read_bytes()).digest()
    web = make_corpus("web", 1, tmp_path / "a")
    for path in (tiny, web):
        assert path.stat().st_size >= 1_000_000
        assert path.read_text(encoding="utf-8").count(EOT) > 50
    tiny_table = count_pieces(str(tiny), pattern=GPT2_SPLIT_PATTERN, special_tokens=[EOT], workers=1)
    web_table = count_pieces(str(web), pattern=GPT2_SPLIT_PATTERN, special_tokens=[EOT], workers=1)
    assert web_table.distinct > 5 * tiny_table.distinct  # few distinct words against many
    text = web.read_text(encoding="utf-8")
    assert any("\u0400" <= ch <= "\u04ff" for ch in text) and "def " in text  # scripts and code
    assert "".join(documents(web)) == text.replace(EOT, "")


def test_a_trainer_run_reports_its_merges_and_phases(tmp_path):
    path = make_corpus("tiny", 1, tmp_path)
    result = run_trainer("bpe_core-1", path, 300)
    assert result["merges"] == 300 - 256 - 1  # the special token counts in the vocabulary
    assert result["distinct"] > 100 and result["rss_main_mb"] > 0
