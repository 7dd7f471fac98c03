"""Word BPE (bpe_core.word_bpe) against its reference tools, run here on text written here:
subword-nmt's learn_bpe and apply_bpe, and transformers' CLIPTokenizer built from merges
and a vocab.json written in the test."""

from __future__ import annotations

import gzip
import io
import json

import pytest
import regex
from support import CORPORA

from bpe_core.text import bytes_to_unicode
from bpe_core.word_bpe import (
    CLIPWordBPE,
    WordBPE,
    clip_vocab,
    codes_text,
    learn_merges,
)

learn_bpe = pytest.importorskip("subword_nmt.learn_bpe")
apply_bpe = pytest.importorskip("subword_nmt.apply_bpe")

# prose, code, and words with tabs and non-breaking spaces inside (subword-nmt cuts at " " only)
TEXTS = {
    "prose": CORPORA["prose"][:10_000],
    "code": CORPORA["code"][:10_000],
    "blanks": ("a\tb a\tb ab ab\xa0c ab\xa0c c\u2028d aaaa aaaa abab abab abcabc abcabc\n"
               "  low lower lowest newer wider  \r\n") * 4,
}


def reference_codes(text: str, merges: int, **options) -> str:
    out = io.StringIO()
    learn_bpe.learn_bpe(io.StringIO(text), out, merges, **options)
    return out.getvalue()


@pytest.mark.parametrize("name", TEXTS)
@pytest.mark.parametrize("merges,min_frequency", [(600, 2), (150, 1)])
def test_merges_and_segmentations_are_subword_nmts(name, merges, min_frequency):
    text = TEXTS[name]
    expected = reference_codes(text, merges, min_frequency=min_frequency)
    learned = learn_merges(text, merges, min_frequency=min_frequency)
    assert codes_text(learned) == expected  # the same merges, in the same order, same header
    assert expected.startswith("#version: 0.2\n")
    theirs = apply_bpe.BPE(io.StringIO(expected))
    ours = WordBPE.from_codes(expected)
    lines = text.split("\n")[:300]
    assert [ours.process_line(line + "\n") for line in lines] == [
        theirs.process_line(line + "\n") for line in lines]
    glued = [line.replace(" ", "")[:300] for line in lines[:100]]  # long words: the heap's way
    assert [ours.segment(line) for line in glued] == [theirs.segment(line) for line in glued]
    if name != "blanks":  # (its few words are learned whole)
        assert any("@@ " in theirs.segment(line) for line in lines)  # words were cut


def test_min_frequency_and_total_symbols_stop_where_subword_nmt_stops():
    text = TEXTS["prose"][:5000]
    expected = reference_codes(text, 5000, min_frequency=3)
    assert codes_text(learn_merges(text, 5000, min_frequency=3)) == expected
    assert len(expected.splitlines()) - 1 < 5000  # stopped by min_frequency, not the count
    expected = reference_codes(text, 200, total_symbols=True)
    assert codes_text(learn_merges(text, 200, total_symbols=True)) == expected


def test_a_codes_file_written_by_subword_nmt_loads_through_the_one_loader(tmp_path):
    import bpe_core

    text = TEXTS["prose"][:8000]
    codes = tmp_path / "codes.bpe"
    with open(tmp_path / "train.txt", "w", encoding="utf-8") as f:
        f.write(text)
    with open(tmp_path / "train.txt", encoding="utf-8") as src, open(codes, "w", encoding="utf-8") as out:
        learn_bpe.learn_bpe(src, out, 400)
    loaded = bpe_core.load(codes)
    assert isinstance(loaded, WordBPE) and loaded.family == "word"
    with open(codes, encoding="utf-8") as f:
        theirs = apply_bpe.BPE(f, glossaries=["lab", "[0-9]+"])
    ours = WordBPE.from_codes(codes.read_text(encoding="utf-8"), glossaries=["lab", "[0-9]+"])
    for line in text.split("\n")[:200] + ["bpe-lab2026 labs 1999lab", "x"]:
        assert ours.segment(line) == theirs.segment(line)
        assert loaded.segment(line) == apply_bpe.BPE(io.StringIO(loaded.codes())).segment(line)


def test_version_one_codes_and_a_cut_number_of_merges_apply_as_subword_nmt():
    text = TEXTS["prose"][:6000]
    codes = reference_codes(text, 300).split("\n", 1)[1]  # no header: version 0.1
    theirs = apply_bpe.BPE(io.StringIO(codes), merges=150)
    ours = WordBPE.from_codes(codes, merges=150)
    assert ours.version == (0, 1) and len(ours.merges) == 150
    for line in text.split("\n")[:200]:
        assert ours.segment(line) == theirs.segment(line)


def test_a_bad_codes_line_is_refused_by_its_number():
    with pytest.raises(ValueError, match=r"codes file, line 3: expected two symbols"):
        WordBPE.from_codes("#version: 0.2\nl o\nl o w\n")


def test_the_text_learned_from_is_bounded():
    from bpe_core.limits import MAX_WORD_BPE_CHARS

    with pytest.raises(ValueError, match="at most 8,000,000"):
        learn_merges("a" * (MAX_WORD_BPE_CHARS + 1), 10)


# -- CLIP ----------------------------------------------------------------------------------------

CLIP_SAMPLE = ("Héllo  WORLD!! it's 12 cats' toys ΟΔΟΣ İstanbul 😀 naïve café\t\ttabs\u00a0nbsp"
               " <|endoftext|> x<|startoftext|>y ｆｕｌｌ　ｗｉｄｔｈ e\u0301 Å")


@pytest.fixture(scope="module")
def clip_files(tmp_path_factory):
    """A small CLIP merges file (gzip, as CLIP ships it) and its vocab.json, written here."""
    table = bytes_to_unicode()
    prose = CORPORA["prose"][:20_000].lower()
    pieces = regex.findall(r"\p{L}+|\p{N}|[^\s\p{L}\p{N}]+", prose)
    merges = learn_merges(" ".join("".join(table[b] for b in p.encode()) for p in pieces), 600)
    folder = tmp_path_factory.mktemp("clip")
    body = "".join(f"{a} {b}\n" for a, b in merges)
    (folder / "merges.txt").write_text("#version: 0.2\n" + body, encoding="utf-8")  # HF's
    clips = "\"bpe_simple_vocab_16e6.txt#version: 0.2\n" + body  # CLIP's own first line
    (folder / "bpe_simple_vocab_16e6.txt.gz").write_bytes(gzip.compress(clips.encode()))
    (folder / "vocab.json").write_text(json.dumps(clip_vocab(merges)), encoding="utf-8")
    return folder


def test_clip_merges_give_the_ids_of_transformers_clip_tokenizer(clip_files):
    transformers = pytest.importorskip("transformers")
    import bpe_core

    theirs = transformers.CLIPTokenizer(str(clip_files / "vocab.json"),
                                        str(clip_files / "merges.txt"))
    ours = bpe_core.load(clip_files / "bpe_simple_vocab_16e6.txt.gz")
    assert isinstance(ours, CLIPWordBPE) and ours.family == "word"
    pair = bpe_core.load(clip_files / "merges.txt")  # transformers' two files: vocab.json beside
    assert isinstance(pair, CLIPWordBPE) and pair.merges == ours.merges
    prose = CORPORA["prose"]
    samples = [CLIP_SAMPLE, ""] + [prose[i:i + 400] for i in range(0, 40_000, 2_000)]
    for text in samples:
        ids = theirs(text)["input_ids"]
        assert ours.encode(text) == ids
        assert ours.decode(ids) == theirs.decode(ids)
    assert len(theirs(prose[:400])["input_ids"]) < len(prose[:400]) / 2  # the merges were used
