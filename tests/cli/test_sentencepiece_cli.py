"""``bpe-lab train --family sentencepiece`` writes a .model that ``sentencepiece`` loads, with
the pieces and ids of the model sentencepiece trains from the same text and options, and a
tokenizer.json that HF ``tokenizers`` reads with the same ids; ``bpe-lab encode`` with that
.model writes sentencepiece's ids line by line; commands that cannot handle the family refuse
it by name: ``info``, and ``check`` (which once gave a traceback on such a tokenizer.json)
(issue 46)."""

from __future__ import annotations

import numpy as np
import sentencepiece as spm
from cli_support import run_cli
from tokenizers import Tokenizer


def test_a_trained_model_is_sentencepieces_and_encodes_with_its_ids(tmp_path, prose_text):
    text = prose_text[:30_000] + "\n東京は日本の首都です。 naïve café 🙂\n  two  spaces  \n"
    (tmp_path / "a.txt").write_text(text, encoding="utf-8")
    done = run_cli("train", "a.txt", "--family", "sentencepiece", "--vocab-size", "700",
                   "--byte-fallback", "--keep-whitespace", "--out", "spm.model",
                   "--hf-json", "tokenizer.json", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "wrote spm.model, tokenizer.json" in done.stdout

    spm.SentencePieceTrainer.train(
        input=str(tmp_path / "a.txt"), model_prefix=str(tmp_path / "ref"), vocab_size=700,
        model_type="bpe", character_coverage=1.0, normalization_rule_name="identity",
        byte_fallback=True, remove_extra_whitespaces=False, input_sentence_size=0,
        num_threads=1, minloglevel=2)
    reference = spm.SentencePieceProcessor(model_file=str(tmp_path / "ref.model"))
    ours = spm.SentencePieceProcessor(model_file=str(tmp_path / "spm.model"))
    assert [ours.id_to_piece(i) for i in range(len(ours))] == \
        [reference.id_to_piece(i) for i in range(len(reference))]
    hf = Tokenizer.from_file(str(tmp_path / "tokenizer.json"))
    lines = text.split("\n")
    for line in lines[::5] + ["unseen 搞 🦜", " a  b "]:
        assert ours.encode(line) == reference.encode(line), line
        assert hf.encode(line, add_special_tokens=False).ids == reference.encode(line), line

    done = run_cli("encode", "spm.model", "a.txt", "--out", "ids.npy", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    ids = np.load(tmp_path / "ids.npy")
    assert ids.dtype == np.uint16
    expected = [i for line in text.removesuffix("\n").split("\n") for i in reference.encode(line)]
    assert ids.tolist() == expected

    done = run_cli("info", "spm.model", cwd=tmp_path)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert "spm.model is a SentencePiece model (sentencepiece BPE)" in done.stderr
    assert "byte-level tokenizers only" in done.stderr
    for name in ("spm.model", "tokenizer.json"):  # check compares byte-level merges only
        done = run_cli("check", name, "--corpus", "a.txt", cwd=tmp_path)
        assert done.returncode == 2 and "Traceback" not in done.stderr
        assert f"{name} is sentencepiece BPE" in done.stderr and "byte-level BPE" in done.stderr


def test_options_of_the_other_family_and_the_text_bound_are_refused_by_name(tmp_path):
    (tmp_path / "a.txt").write_text("hello world\n" * 50)
    done = run_cli("train", "a.txt", "--family", "sentencepiece", "--vocab-size", "60",
                   "--pattern", "gpt2", "--out", "s.model", cwd=tmp_path)
    assert done.returncode == 2 and "does not take --pattern" in done.stderr
    done = run_cli("train", "a.txt", "--vocab-size", "300", "--byte-fallback", "--out", "b.model",
                   cwd=tmp_path)
    assert done.returncode == 2 and "--byte-fallback belongs to --family sentencepiece" in done.stderr
    # a corpus of more bytes than 4 x MAX_SPM_TRAIN_CHARS is refused before it is read
    with open(tmp_path / "big.txt", "wb") as f:
        f.truncate(80_000_001)
    done = run_cli("train", "big.txt", "--family", "sentencepiece", "--vocab-size", "60",
                   "--out", "s.model", cwd=tmp_path)
    assert done.returncode == 2 and "at most 20,000,000 characters" in done.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.txt", "big.txt"]
