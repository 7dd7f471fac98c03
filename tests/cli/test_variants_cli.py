"""``bpe-lab train --variant superbpe|boundless|parity``: the saved tokenizer is the library's, in every
format; what a variant does not take is refused by name, with exit code 2 and nothing written."""

from __future__ import annotations

from pydoc_data.topics import topics

import pytest
import tokenizers
from cli_support import run_cli

import bpe_core
from bpe_core.boundless import train_boundless, word_run_pattern
from bpe_core.parity import train_parity
from bpe_core.superbpe import STAGE_TWO_PATTERN, train_superbpe

# English prose that ships with Python (pydoc's help topics): enough for 74 merges in words
EN = "\n\n".join(v for _, v in sorted(topics.items()))[:6000]
EL = "Η γάτα κάθισε στο χαλί. Ο σκύλος κάθισε στο κούτσουρο.\n" * 8
HI = "बिल्ली चटाई पर बैठी। कुत्ता लकड़ी पर बैठा।\n" * 8

OUT = {"minbpe": "tok.model", "hf": "tok.json", "tiktoken": "tok.tiktoken", "gpt2": "gpt2",
       "cs336": "cs336"}


def write(folder, name, text):
    (folder / name).write_bytes(text.encode("utf-8"))
    return name


@pytest.mark.parametrize("fmt", list(OUT))
def test_superbpe_saves_in_every_format_with_the_librarys_ids(tmp_path, fmt):
    corpus = write(tmp_path, "en.txt", EN)
    done = run_cli("train", corpus, "--vocab-size", 330, "--variant", "superbpe",
                   "--transition", 40, "--format", fmt, "--out", OUT[fmt], "--workers", 2,
                   cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "40 merges in stage one" in done.stdout and "superword tokens" in done.stdout
    expected = train_superbpe(EN, 330, 40)
    path = tmp_path / OUT[fmt]
    loaded = bpe_core.load(str(path / "vocab.json" if path.is_dir() else path))
    if fmt != "hf":  # a tokenizer.json's regex is read as Oniguruma reads it (other spelling)
        assert loaded.pattern == STAGE_TWO_PATTERN
    assert list(loaded.merges.items()) == list(expected.merges.items())
    assert loaded.encode(EN) == expected.encode(EN)
    if fmt == "hf":
        hf = tokenizers.Tokenizer.from_file(str(tmp_path / OUT[fmt]))
        assert hf.encode(EN[:300]).ids == expected.encode(EN[:300])


@pytest.mark.parametrize("fmt", ["minbpe", "hf"])
def test_boundless_saves_with_the_librarys_ids_and_says_the_transition_it_found(tmp_path, fmt):
    corpus = write(tmp_path, "en.txt", EN)
    done = run_cli("train", corpus, "--vocab-size", 400, "--variant", "boundless",
                   "--format", fmt, "--out", OUT[fmt], "--workers", 2, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    expected = train_boundless(EN, 400)
    assert expected.superword_ids() and expected.transition < 144
    assert (f"phase two kept {expected.transition} of phase one's merges (the transition it"
            f" found), then {len(expected.superword_ids())} supermerges") in done.stdout
    loaded = bpe_core.load(str(tmp_path / OUT[fmt]))
    if fmt != "hf":  # a tokenizer.json's regex is read as Oniguruma reads it (other spelling)
        assert loaded.pattern == word_run_pattern(bpe_core.GPT4_SPLIT_PATTERN)
    assert list(loaded.merges.items()) == list(expected.merges.items())
    assert loaded.encode(EN) == expected.encode(EN)
    if fmt == "hf":
        hf = tokenizers.Tokenizer.from_file(str(tmp_path / OUT[fmt]))
        assert hf.encode(EN[:300]).ids == expected.encode(EN[:300])


def test_parity_takes_one_language_a_file_named_by_the_file(tmp_path):
    files = [write(tmp_path, f"{name}.txt", text) for name, text in
             (("en", EN), ("el", EL), ("hi", HI))]
    done = run_cli("train", *files, "--vocab-size", 400, "--variant", "parity",
                   "--out", "p.model", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    expected = train_parity({"en": EN, "el": EL, "hi": HI}, 400, parallel=False)
    served = ", ".join(f"{n} {expected.served.count(n)}" for n in ("en", "el", "hi"))
    assert f"merges served {served}" in done.stdout
    loaded = bpe_core.load(str(tmp_path / "p.model"))
    assert list(loaded.merges.items()) == list(expected.merges.items())
    parallel = run_cli("train", *files, "--vocab-size", 400, "--variant", "parity", "--parallel",
                       "--global-merges", 10, "--out", "q.model", cwd=tmp_path)
    assert parallel.returncode == 0, parallel.stderr
    expected = train_parity({"en": EN, "el": EL, "hi": HI}, 400, global_merges=10)
    assert list(bpe_core.load(str(tmp_path / "q.model")).merges.items()) == list(
        expected.merges.items())


EOT = "<|endoftext|>"


def test_superbpe_takes_special_tokens_and_hf_tokenizers_gives_the_same_ids(tmp_path):
    text = EN[:3000] + EOT + EN[3000:] + EOT
    corpus = write(tmp_path, "en.txt", text)
    done = run_cli("train", corpus, "--vocab-size", 331, "--variant", "superbpe",
                   "--transition", 40, "--special-token", EOT, "--format", "hf",
                   "--out", "tok.json", "--workers", 2, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    expected = train_superbpe(text, 331, 40, special_tokens=[EOT])
    assert expected.special_tokens == {EOT: 330}
    hf = tokenizers.Tokenizer.from_file(str(tmp_path / "tok.json"))
    assert hf.token_to_id(EOT) == 330
    sample = EN[:200] + EOT + EN[200:400]
    assert hf.encode(sample).ids == expected.encode(sample, allowed_special="all")
    assert hf.encode(sample).ids.count(330) == 1
    loaded = bpe_core.load(str(tmp_path / "tok.json"))
    assert list(loaded.merges.items()) == list(expected.merges.items())
    assert loaded.special_tokens == {EOT: 330}


def test_boundless_takes_special_tokens_and_hf_tokenizers_gives_the_same_ids(tmp_path):
    text = EN[:3000] + EOT + EN[3000:] + EOT
    corpus = write(tmp_path, "en.txt", text)
    done = run_cli("train", corpus, "--vocab-size", 391, "--variant", "boundless",
                   "--special-token", EOT, "--format", "hf", "--out", "tok.json",
                   "--workers", 2, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    expected = train_boundless(text, 391, special_tokens=[EOT])
    assert expected.superword_ids() and expected.special_tokens == {EOT: 390}
    assert not any(b"<|" in expected.vocab[i] for i in expected.merges.values())
    hf = tokenizers.Tokenizer.from_file(str(tmp_path / "tok.json"))
    assert hf.token_to_id(EOT) == 390
    sample = EN[:200] + EOT + EN[200:400]
    assert hf.encode(sample).ids == expected.encode(sample, allowed_special="all")
    assert hf.encode(sample).ids.count(390) == 1
    loaded = bpe_core.load(str(tmp_path / "tok.json"))
    assert list(loaded.merges.items()) == list(expected.merges.items())
    assert loaded.special_tokens == {EOT: 390}


def test_parity_takes_special_tokens_and_the_moving_window(tmp_path):
    texts = {"en": EN[:2000] + EOT + EN[2000:4000], "el": EL + EOT + EL, "hi": HI + EOT + HI}
    files = [write(tmp_path, f"{name}.txt", text) for name, text in texts.items()]
    done = run_cli("train", *files, "--vocab-size", 401, "--variant", "parity", "--parallel",
                   "--window", 30, "--alpha", 1.5, "--special-token", EOT, "--format",
                   "tiktoken", "--out", "p.tiktoken", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    expected = train_parity(texts, 401, window=30, alpha=1.5, special_tokens=[EOT])
    assert expected.special_tokens == {EOT: 400}
    loaded = bpe_core.load(str(tmp_path / "p.tiktoken"))
    assert list(loaded.merges.items()) == list(expected.merges.items())
    assert loaded.special_tokens == {EOT: 400}
    sample = "Η γάτα" + EOT + "the cat"
    assert loaded.encode(sample, allowed_special="all") == expected.encode(
        sample, allowed_special="all")


@pytest.mark.parametrize("args, words", [
    (["--variant", "superbpe"], "needs --transition"),
    (["--variant", "superbpe", "--transition", 500], "--transition 500 must be from 0 to 144"),
    (["--transition", 5], "add --variant superbpe"),
    (["--parallel"], "--parallel belongs to --variant parity"),
    (["--variant", "parity", "--transition", 5], "--transition belongs to --variant superbpe"),
    (["--variant", "parity", "--dask", "tcp://127.0.0.1:1"], "does not take --dask"),
    (["--window", 10], "--window belongs to a variant: add --variant parity"),
    (["--variant", "superbpe", "--transition", 5, "--window", 10], "belong to --variant parity"),
    (["--variant", "parity", "--alpha", 3], "--alpha goes with --window"),
    (["--variant", "parity", "--window", 10, "--alpha", 0.5], "--alpha 0.5 must be at least 1"),
    (["--variant", "superbpe", "--transition", 144, "--special-token", "<|x|>"],
     "--transition 144 must be from 0 to 143 (--vocab-size minus 256 and the special tokens)"),
    (["--variant", "superbpe", "--transition", 5, "--history"], "does not take --history"),
    (["sub/en.txt", "--variant", "parity"], "both name the language 'en'"),
    (["--variant", "boundless", "--transition", 5], "finds its transition itself"),
    (["--variant", "boundless", "--pattern", r"\w+|\s+"],
     "GPT-2's, GPT-4's or GPT-4o's split pattern"),
    (["--variant", "boundless", "--dask", "tcp://x:1"], "does not take --dask"),
    (["--stage-two", "open"], "--stage-two belongs to --variant superbpe"),
    (["--variant", "parity", "--stopping", "fill"], "--stopping belongs to --variant boundless"),
    (["--variant", "superbpe", "--transition", 5, "--per-byte"],
     "--per-byte belongs to --variant parity"),
    (["--variant", "parity", "--parallel", "--per-byte"], "give one of them"),
])
def test_what_a_variant_does_not_take_is_refused_by_name(tmp_path, args, words):
    write(tmp_path, "en.txt", EN)
    (tmp_path / "sub").mkdir()
    write(tmp_path, "sub/en.txt", EL)
    done = run_cli("train", "en.txt", *args, "--vocab-size", 400, "--out", "t.model",
                   cwd=tmp_path)
    assert done.returncode == 2
    assert words in done.stderr
    assert "Traceback" not in done.stderr
    assert not (tmp_path / "t.model").exists()


def test_ctrl_c_in_phase_two_says_how_far_phase_two_got(tmp_path, monkeypatch, capsys):
    # the trainer is replaced by one that is interrupted at phase two's fifth merge: what the
    # command says counts phase two's merges, not both phases as one
    from bpe_lab.cli import main, variants

    def interrupted(corpus, vocab_size, *, progress, on_stage, **options):
        on_stage("phase one", 144)
        for done in range(1, 145):
            progress(done, 144, None)
        on_stage("phase two", 144)
        for done in range(1, 6):
            progress(done, 144, None)
        raise KeyboardInterrupt

    monkeypatch.setattr(variants, "train_boundless_corpus", interrupted)
    monkeypatch.chdir(tmp_path)
    corpus = write(tmp_path, "en.txt", EN)
    out = tmp_path / "t.model"
    assert main(["train", corpus, "--vocab-size", "400", "--variant", "boundless",
                 "--out", str(out)]) == 130
    said = capsys.readouterr().err
    assert "made 5 of 144 merges of phase two; nothing was written" in said, said
    assert not out.exists()


# The 33 parallel texts that ship with the package, one file a language, 16 lines each
def parallel_files(folder):
    from bpe_lab.who_pays.languages import load_parallel

    texts = {lang.code: "\n".join(lang.lines) + "\n" for lang in load_parallel()}
    return texts, [write(folder, f"{code}.txt", text) for code, text in texts.items()]


def test_parity_counts_tokens_when_the_files_have_the_same_number_of_lines(tmp_path):
    # The authors' cost on parallel texts is the number of tokens; tokens per byte on them made
    # the Gini of the 33 languages' token counts 0.22 at 1,000, against classical BPE's 0.11.
    from bpe_lab.who_pays.parity import gini

    texts, files = parallel_files(tmp_path)
    done = run_cli("train", *files, "--vocab-size", 1000, "--variant", "parity",
                   "--out", "p.model", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "cost: tokens, since every file has 16 lines" in done.stdout
    # no --workers: these one-block files are counted in the command's own process
    assert "largest worker" not in done.stdout
    expected = train_parity(texts, 1000, parallel=True)
    loaded = bpe_core.load(str(tmp_path / "p.model"))
    assert list(loaded.merges.items()) == list(expected.merges.items())
    classical = bpe_core.RegexTokenizer()
    classical.train("".join(texts.values()), 1000)
    counts = {name: [len(t.encode(x)) for x in texts.values()]
              for name, t in (("classical", classical), ("parity", loaded))}
    assert gini(counts["parity"]) < gini(counts["classical"]) / 2
    per_byte = run_cli("train", *files, "--vocab-size", 1000, "--variant", "parity",
                       "--per-byte", "--out", "b.model", cwd=tmp_path)
    assert per_byte.returncode == 0, per_byte.stderr
    assert "cost: tokens per byte (--per-byte)" in per_byte.stdout
    assert list(bpe_core.load(str(tmp_path / "b.model")).merges.items()) == list(
        train_parity(texts, 1000, parallel=False).merges.items())


def test_parity_counts_tokens_per_byte_when_the_files_differ_in_lines(tmp_path):
    files = [write(tmp_path, f"{name}.txt", text) for name, text in
             (("en", EN), ("el", EL), ("hi", HI))]
    done = run_cli("train", *files, "--vocab-size", 300, "--variant", "parity",
                   "--out", "p.model", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "cost: tokens per byte, since the files have from 8 to" in done.stdout


def test_superbpe_open_rules_and_boundless_fill_rule_are_named_options(tmp_path):
    corpus = write(tmp_path, "en.txt", EN)
    done = run_cli("train", corpus, "--vocab-size", 330, "--variant", "superbpe",
                   "--transition", 40, "--stage-two", "open", "--out", "s.model", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "SuperBPE (open stage-two rules)" in done.stdout
    expected = train_superbpe(EN, 330, 40, stage_two="open")
    assert list(bpe_core.load(str(tmp_path / "s.model")).merges.items()) == list(
        expected.merges.items())
    # 40 merges of a 700-byte text: phase one runs out; the authors stop at its size
    small = write(tmp_path, "small.txt", EN[:700])
    for rule in ("authors", "fill"):
        done = run_cli("train", small, "--vocab-size", 700, "--variant", "boundless",
                       *(["--stopping", rule] if rule == "fill" else []),
                       "--out", f"{rule}.model", cwd=tmp_path)
        assert done.returncode == 0, done.stderr
        expected = train_boundless(EN[:700], 700, stopping=rule)
        assert expected.ran_out_early
        assert (f"phase one ran out after {expected.phase_one_merges} of 444 merges ({rule}"
                " stopping rule)") in done.stdout
        assert list(bpe_core.load(str(tmp_path / f"{rule}.model")).merges.items()) == list(
            expected.merges.items())
