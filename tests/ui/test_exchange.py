"""Exports and imports of the exchange page (ui/exchange/files.py), without Streamlit.

Every download's bytes are loaded back with bpe_core and, where there is one, with the real tool
(Hugging Face ``tokenizers``, ``tiktoken``), and must give the ids the tokenizer gives.
"""

from __future__ import annotations

import base64
import csv
import doctest
import io
import json
import random
import zipfile

import pytest
import tiktoken
import tokenizers
from parity_corpus import openai_files_dir

import bpe_core
import ui.exchange.files
from bpe_core import GPT2_SPLIT_PATTERN, GPT4_SPLIT_PATTERN, BasicTokenizer, RegexTokenizer
from bpe_core.oniguruma import unguarded
from bpe_core.pipeline import to_oniguruma
from ui.exchange.files import (
    EXPORTS,
    HISTORY_COLUMNS,
    MAX_IMPORT_BYTES,
    export_problems,
    file_stem,
    gpt2_merges_bytes,
    gpt2_sidecar_bytes,
    gpt2_vocab_bytes,
    hf_json_bytes,
    history_csv_bytes,
    import_summary,
    minbpe_model_bytes,
    minbpe_vocab_bytes,
    parse_import_specials,
    pick_upload,
    read_uploads,
    safe_name,
    tiktoken_bytes,
    tiktoken_sidecar_bytes,
    zip_bytes,
)
from ui.kit.escape import md_escape
from ui.kit.samples import load_samples

SAMPLES = load_samples()
SPECIAL = "<|endoftext|>"
SPECIAL_ID = 1000  # above the trained vocabulary (ids 0..399)
# every sample, and one text with the special token in it
TEXTS = [*SAMPLES.values(), f"hello{SPECIAL} world {SPECIAL}\n  tail"]
# tiktoken needs a pattern; for a tokenizer with no split, one that takes the whole text
WHOLE_TEXT = r"[\s\S]+"


def trained(kind: str) -> bpe_core.Tokenizer:
    tok = BasicTokenizer() if kind == "basic" else RegexTokenizer(GPT4_SPLIT_PATTERN)
    tok.train("\n".join(SAMPLES.values()), 400)
    tok.register_special_tokens({SPECIAL: SPECIAL_ID})
    return tok


@pytest.fixture(scope="module", params=["basic", "gpt4"])
def tok(request) -> bpe_core.Tokenizer:
    return trained(request.param)


@pytest.fixture(scope="module")
def cl100k() -> bpe_core.Tokenizer:
    return bpe_core.load_pretrained("cl100k_base")


def ids_of(t, texts=TEXTS) -> list[list[int]]:
    # "all": the special token in TEXTS (and in the tricky sample) becomes its id
    return [t.encode(text, allowed_special="all") for text in texts]


def same_tokenizer(a: bpe_core.Tokenizer, b: bpe_core.Tokenizer) -> None:
    assert type(a) is type(b)
    # read from a tokenizer.json, the pattern's classes read the characters newer than
    # Oniguruma's Unicode as Hugging Face does (guards around the same pattern)
    assert unguarded(a.pattern) == b.pattern
    assert a.merges == b.merges
    assert a.vocab == b.vocab
    assert a.special_tokens == b.special_tokens
    assert ids_of(a) == ids_of(b)


def test_the_tokenizers_under_test_are_what_the_brief_says(tok):
    assert tok.num_merges == 144 and tok.vocab_size == 401
    assert all(export_problems(tok)[e.key] is None for e in EXPORTS)
    assert ids_of(tok)[-1].count(SPECIAL_ID) == 2


# -- minbpe ----------------------------------------------------------------------------------------


def test_model_bytes_load_back_with_the_same_ids(tok):
    data = minbpe_model_bytes(tok)
    assert data.startswith(b"minbpe v1\n")
    same_tokenizer(bpe_core.read_tokenizer(data, "t.model"), tok)


def test_vocab_bytes_list_every_token_once(tok):
    lines = minbpe_vocab_bytes(tok).decode("utf-8").splitlines()
    assert len(lines) == tok.vocab_size
    first_merge = next(line for line in lines if line.endswith(" 256"))
    assert " -> " in first_merge
    assert lines[-1] == f"[{SPECIAL}] {SPECIAL_ID}"


def test_preset_refuses_model_with_the_reason(cl100k):
    problems = export_problems(cl100k)
    assert "256 bytes in its own order" in problems["export_model"]
    assert problems["export_vocab"] == problems["export_model"]
    with pytest.raises(ValueError, match="256 bytes in its own order"):
        minbpe_model_bytes(cl100k)
    with pytest.raises(ValueError, match="256 bytes in its own order"):
        minbpe_vocab_bytes(cl100k)
    for key in ("export_hf", "export_tiktoken", "export_gpt2_vocab", "export_gpt2_merges",
                "export_history"):
        assert problems[key] is None


# -- Hugging Face tokenizer.json ------------------------------------------------------------------


def test_hf_json_loads_back_in_bpe_core_and_in_tokenizers(tok):
    data = hf_json_bytes(tok)
    same_tokenizer(bpe_core.read_tokenizer(data, "tokenizer.json"), tok)
    hf = tokenizers.Tokenizer.from_str(data.decode("utf-8"))
    assert [hf.encode(text).ids for text in TEXTS] == ids_of(tok)


def test_preset_hf_json_gives_tiktokens_ids_in_tokenizers(cl100k):
    hf = tokenizers.Tokenizer.from_str(hf_json_bytes(cl100k).decode("utf-8"))
    original = (openai_files_dir() / "cl100k_base.tiktoken").read_bytes()  # hash-checked
    reference = tiktoken.Encoding("cl100k-offline", pat_str=cl100k.pattern,
                                  mergeable_ranks=parse_ranks(original),
                                  special_tokens=cl100k.special_tokens)
    for text in TEXTS:
        expected = reference.encode(text, allowed_special="all")
        assert hf.encode(text).ids == expected == cl100k.encode(text, allowed_special="all")


# -- tiktoken --------------------------------------------------------------------------------------


def parse_ranks(data: bytes) -> dict[bytes, int]:
    """tiktoken's file format, read by hand (load_tiktoken_bpe caches by path)."""
    ranks = {}
    for line in data.splitlines():
        token, rank = line.split()
        ranks[base64.b64decode(token)] = int(rank)
    return ranks


def test_tiktoken_bytes_load_back_in_bpe_core_and_in_tiktoken(tok):
    data = tiktoken_bytes(tok)
    back = bpe_core.read_tokenizer(data, "t.tiktoken", pattern=tok.pattern,
                                   special_tokens=tok.special_tokens)
    same_tokenizer(back, tok)
    enc = tiktoken.Encoding(
        "bpe-lab-test", pat_str=tok.pattern or WHOLE_TEXT, mergeable_ranks=parse_ranks(data),
        special_tokens=tok.special_tokens,
    )
    assert [enc.encode(text, allowed_special="all") for text in TEXTS] == ids_of(tok)


def test_tiktoken_file_holds_neither_pattern_nor_specials(tok):
    ranks = parse_ranks(tiktoken_bytes(tok))
    assert len(ranks) == tok.vocab_size - 1
    assert SPECIAL.encode() not in ranks


def test_preset_tiktoken_bytes_equal_the_original_file(cl100k):
    original = (openai_files_dir() / "cl100k_base.tiktoken").read_bytes()  # hash-checked
    assert tiktoken_bytes(cl100k) == original


# -- GPT-2 vocab.json + merges.txt ----------------------------------------------------------------


def test_gpt2_files_load_back_in_bpe_core_and_in_tokenizers(tok, tmp_path):
    vocab, merges = gpt2_vocab_bytes(tok), gpt2_merges_bytes(tok)
    assert merges.startswith(b"#version: 0.2\n")
    assert len(merges.splitlines()) == 1 + tok.num_merges
    assert json.loads(vocab)[SPECIAL] == SPECIAL_ID
    back = bpe_core.read_tokenizer(vocab, "vocab.json", merges=merges, pattern=tok.pattern)
    same_tokenizer(back, tok)
    # Hugging Face's BPE model reads the same pair of files
    (tmp_path / "vocab.json").write_bytes(vocab)
    (tmp_path / "merges.txt").write_bytes(merges)
    from tokenizers import Regex, decoders, models, pre_tokenizers

    hf = tokenizers.Tokenizer(models.BPE.from_file(str(tmp_path / "vocab.json"),
                                                   str(tmp_path / "merges.txt")))
    steps = [pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)]
    if tok.pattern:
        steps.insert(0, pre_tokenizers.Split(Regex(to_oniguruma(tok.pattern)), "isolated"))
    hf.pre_tokenizer = pre_tokenizers.Sequence(steps)
    hf.decoder = decoders.ByteLevel()
    hf.add_special_tokens([SPECIAL])
    assert [hf.encode(text).ids for text in TEXTS] == ids_of(tok)


# -- merge history CSV ----------------------------------------------------------------------------


def test_history_csv_has_one_row_per_merge_and_rebuilds_the_tokenizer(tok):
    rows = list(csv.DictReader(io.StringIO(history_csv_bytes(tok).decode("utf-8"))))
    assert history_csv_bytes(tok).split(b"\n", 1)[0] == b"step,id,left,right,token,bytes_hex,count"
    assert len(rows) == tok.num_merges
    for step, (row, rec) in enumerate(zip(rows, tok.history, strict=True), start=1):
        assert int(row["step"]) == step and int(row["id"]) == rec.id == 255 + step
        assert (int(row["left"]), int(row["right"])) == rec.pair
        assert bytes.fromhex(row["bytes_hex"]) == rec.token == tok.vocab[rec.id]
        assert int(row["count"]) == rec.count
    # the CSV holds enough to rebuild the tokenizer: write its merges as a .model file
    lines = ["minbpe v1", tok.pattern, "0"] + [f"{r['left']} {r['right']}" for r in rows]
    back = bpe_core.read_tokenizer(("\n".join(lines) + "\n").encode(), "from-csv.model")
    assert back.merges == tok.merges
    # (the tricky sample has "<|endoftext|>" in it, which this rebuilt tokenizer does not know)
    assert [back.encode_ordinary(t) for t in TEXTS] == [tok.encode_ordinary(t) for t in TEXTS]


def test_history_csv_of_an_untrained_tokenizer_has_empty_counts(cl100k):
    data = history_csv_bytes(cl100k)
    rows = list(csv.DictReader(io.StringIO(data.decode("utf-8"))))
    assert list(rows[0]) == HISTORY_COLUMNS
    assert len(rows) == cl100k.num_merges == 100_000
    assert rows[0]["count"] == "" and bytes.fromhex(rows[0]["bytes_hex"]) == b"  "


def test_history_csv_quotes_tokens_with_commas_and_quotes():
    tok = BasicTokenizer()
    tok.train('",",",",",\n' * 20, 260)
    rows = list(csv.DictReader(io.StringIO(history_csv_bytes(tok).decode("utf-8"))))
    assert [bytes.fromhex(r["bytes_hex"]) for r in rows] == [r.token for r in tok.history]
    assert [r["token"] for r in rows] == [r.token.decode() for r in tok.history]


# -- tokenizers a format cannot hold --------------------------------------------------------------


def two_ids_for_abc() -> bpe_core.Tokenizer:
    """258 = a + bc and 259 = ab + c: two ids for the bytes b"abc"."""
    model = b"minbpe v1\n\n0\n98 99\n97 98\n97 256\n257 99\n"
    return bpe_core.read_tokenizer(model, "dup.model")


def test_duplicate_bytes_refuse_byte_keyed_formats_but_not_model():
    tok = two_ids_for_abc()
    problems = export_problems(tok)
    assert problems["export_model"] is None and problems["export_history"] is None
    for key in ("export_hf", "export_tiktoken", "export_gpt2_vocab", "export_gpt2_merges"):
        assert "Tokens 258 and 259 have the same bytes (61 62 63)" in problems[key]
    for make in (hf_json_bytes, tiktoken_bytes, gpt2_vocab_bytes, gpt2_merges_bytes):
        with pytest.raises(ValueError, match="same bytes"):
            make(tok)
    assert bpe_core.read_tokenizer(minbpe_model_bytes(tok), "d.model").merges == tok.merges


def test_zip_holds_every_format_that_fits_and_says_what_it_left_out(tok):
    stem = file_stem("GPT-4 split, 400 tokens")
    with zipfile.ZipFile(io.BytesIO(zip_bytes(tok, stem))) as z:
        names = set(z.namelist())
        assert tok.history  # trained here: the .model and tokenizer.json get a sidecar too
        history = {stem + ".model.bpe-lab.json", stem + "-tokenizer.json.bpe-lab.json"}
        assert names == {stem + e.suffix for e in EXPORTS} | {"README.txt"} | history
        for e in EXPORTS:
            assert z.read(stem + e.suffix) == e.make(tok)
        assert "Not included" not in z.read("README.txt").decode()
        for main in (".model", "-tokenizer.json", ".tiktoken"):  # each with its sidecar
            back = read_uploads([(stem + main, z.read(stem + main)),
                                 (stem + main + ".bpe-lab.json",
                                  z.read(stem + main + ".bpe-lab.json"))]).tok
            same_tokenizer(back, tok)
            assert back.history == tok.history
    with zipfile.ZipFile(io.BytesIO(zip_bytes(two_ids_for_abc(), "dup"))) as z:
        assert set(z.namelist()) == {"dup.model", "dup.vocab", "dup-merges.csv", "README.txt"}
        assert "same bytes" in z.read("README.txt").decode()


# -- import ---------------------------------------------------------------------------------------


def test_read_uploads_reads_each_format(tok):
    imported = read_uploads([("my.model", minbpe_model_bytes(tok))])
    assert imported.format == "minbpe" and imported.name == "my.model"
    same_tokenizer(imported.tok, tok)
    same_tokenizer(read_uploads([("tokenizer.json", hf_json_bytes(tok))]).tok, tok)
    imported = read_uploads([("t.tiktoken", tiktoken_bytes(tok))], pattern=tok.pattern,
                            special_tokens={SPECIAL: SPECIAL_ID})
    assert imported.format == "tiktoken"
    same_tokenizer(imported.tok, tok)
    files = [("merges.txt", gpt2_merges_bytes(tok)), ("vocab.json", gpt2_vocab_bytes(tok))]
    for pair in (files, files[::-1]):
        imported = read_uploads(pair, pattern=tok.pattern)
        assert imported.name == "vocab.json + merges.txt"
        same_tokenizer(imported.tok, tok)


def test_read_uploads_guesses_no_pattern_and_says_what_is_missing(tok):
    with pytest.raises(ValueError, match=r"do not hold the split pattern or the special tokens.*"
                                         r"t\.tiktoken\.bpe-lab\.json.*choose its split pattern"
                                         r" above and write its special tokens"):
        read_uploads([("t.tiktoken", tiktoken_bytes(tok))])
    with pytest.raises(ValueError, match="write its special tokens"):
        read_uploads([("t.tiktoken", tiktoken_bytes(tok))], pattern=tok.pattern)
    files = [("vocab.json", gpt2_vocab_bytes(tok)), ("merges.txt", gpt2_merges_bytes(tok))]
    with pytest.raises(ValueError, match="GPT-2 files do not hold the split pattern"):
        read_uploads(files)
    assert type(read_uploads(files, pattern="").tok) is BasicTokenizer
    # with the sidecar, in any order
    imported = read_uploads([("s.json", gpt2_sidecar_bytes(tok)), *files])
    assert imported.sidecar and imported.tok.pattern == tok.pattern
    same_tokenizer(imported.tok, tok)
    assert dict(import_summary(imported))["Split pattern"].endswith("(from the bpe-lab sidecar)")
    # a sidecar of another file is refused, naming it
    other = RegexTokenizer(GPT2_SPLIT_PATTERN)
    other.train("something else entirely " * 5, 270)
    with pytest.raises(ValueError, match="s.json was written for another file"):
        read_uploads([("t.tiktoken", tiktoken_bytes(tok)),
                      ("s.json", tiktoken_sidecar_bytes(other))])


def test_read_uploads_skips_a_vocab_listing_next_to_its_model(tok):
    files = [("t.model", minbpe_model_bytes(tok)), ("t.vocab", minbpe_vocab_bytes(tok))]
    imported = read_uploads(files)
    assert imported.tok.merges == tok.merges and "listing" in imported.notes[0]
    with pytest.raises(ValueError, match="readable listing.*upload the .model"):
        read_uploads([("t.vocab", minbpe_vocab_bytes(tok))])


@pytest.mark.parametrize(
    ("files", "message"),
    [
        ([("bad.model", b"minbpe v1\n\n0\n1 2 3\n")], r"bad\.model, line 4: expected a merge"),
        ([("noise.bin", bytes(range(256)) * 4)], r"noise\.bin, line 1: not a tokenizer file"),
        ([("t.model", b"\xff\xfe" * 10)], r"t\.model, line 1"),
        ([("t.json", b"{" * 100_000)], r"t\.json, line 1: not valid JSON"),
        ([("a.model", b"minbpe v1\n\n0\n")] * 2, "one tokenizer at a time"),
        ([("a.model", b"")] * 5, "5 files"),
        ([("big.tiktoken", b"A" * (MAX_IMPORT_BYTES + 1))], "more than the 10 MB"),
        ([("vocab.json", b'{"a": 0}')], "needs its merges.txt"),
        ([("merges.txt", b"#version: 0.2\na b\n")], "needs its vocab.json"),
        ([], "No file"),
    ],
)
def test_read_uploads_rejects_bad_files_with_a_clear_message(files, message):
    with pytest.raises(ValueError, match=message):
        read_uploads(files)


def test_read_uploads_turns_hostile_names_into_plain_ones():
    with pytest.raises(ValueError) as e:
        read_uploads([("![x](http://evil.example/p.png).model", b"minbpe v1\n")])
    assert "](" not in str(e.value) and "__x__http___evil.example_p.png_.model" in str(e.value)


def test_mangled_files_give_value_errors_only(tok):
    """Random cuts and byte flips of every format: ValueError or a tokenizer, nothing else."""
    rng = random.Random(7)
    originals = [("t.model", minbpe_model_bytes(tok)), ("t.json", hf_json_bytes(tok)),
                 ("t.tiktoken", tiktoken_bytes(tok)), ("vocab.json", gpt2_vocab_bytes(tok))]
    merges = gpt2_merges_bytes(tok)
    for _ in range(150):
        name, data = rng.choice(originals)
        data = bytearray(data)
        for _ in range(rng.randint(1, 4)):
            pos = rng.randrange(len(data))
            if rng.random() < 0.5:
                data[pos] = rng.randrange(256)
            else:
                del data[pos : pos + rng.randint(1, 40)]
        files = [(name, bytes(data))] + ([("merges.txt", merges)] if name == "vocab.json" else [])
        try:
            read_uploads(files, pattern=tok.pattern, special_tokens={})
        except ValueError:
            pass


def test_pick_upload_reads_what_was_just_added_to_the_list(tok):
    model, broken = ("a.model", minbpe_model_bytes(tok)), ("b.model", b"minbpe v1\n\n0\n1 2 3\n")
    vocab, merges = ("vocab.json", gpt2_vocab_bytes(tok)), ("merges.txt", gpt2_merges_bytes(tok))
    listing = ("a.vocab", minbpe_vocab_bytes(tok))
    # files that make one tokenizer are read together, whichever was added last
    assert pick_upload([model], [True]) == [0]
    assert pick_upload([vocab, merges], [False, True]) == [0, 1]
    assert pick_upload([model, listing], [False, True]) == [0, 1]
    # a second tokenizer added under the first: read the new one only
    assert pick_upload([model, broken], [False, True]) == [1]
    assert pick_upload([broken, model, listing], [True, False, False]) == [0]
    # a GPT-2 half added under other files pairs with the latest other half
    assert pick_upload([vocab, model, merges], [False, False, True]) == [0, 2]
    assert pick_upload([model, vocab], [False, True]) == [1]  # read_uploads: needs merges.txt
    # two tokenizers added at once: all of them, and read_uploads says one at a time
    assert pick_upload([model, model, broken], [False, True, True]) == [1, 2]
    with pytest.raises(ValueError, match="one tokenizer at a time"):
        read_uploads([model, broken])
    # a sidecar goes with the tokenizer read; one added alone re-reads the latest tokenizer
    side = ("v.json.bpe-lab.json", gpt2_sidecar_bytes(tok))
    assert pick_upload([vocab, merges, side], [True, True, True]) == [0, 1, 2]
    assert pick_upload([model, vocab, merges, side], [False, False, False, True]) == [1, 2, 3]
    assert pick_upload([model, broken, side], [False, True, True]) == [1, 2]


def test_import_summary_names_format_sizes_pattern_and_specials(tok):
    imported = read_uploads([("t.tiktoken", tiktoken_bytes(tok))], pattern=tok.pattern,
                            special_tokens={SPECIAL: SPECIAL_ID})
    rows = dict(import_summary(imported))
    assert rows["Format"] == "tiktoken ranks"
    assert rows["Vocabulary size"] == "401" and rows["Merges"] == "144"
    assert rows["Special tokens"] == f"{SPECIAL} = {SPECIAL_ID}"
    assert "does not store it" in rows["Split pattern"]


def test_parse_import_specials():
    assert parse_import_specials("") is None  # not given: the sidecar must say
    assert parse_import_specials(" None ") == {}
    assert parse_import_specials(" <|a|>=5 ,x=y=7") == {"<|a|>": 5, "x=y": 7}
    for bad in ("<|a|>", "<|a|>=-1", "=5", "<|a|>=five"):
        with pytest.raises(ValueError, match="token=id"):
            parse_import_specials(bad)
    with pytest.raises(ValueError, match="At most 20"):
        parse_import_specials(",".join(f"t{i}={i + 300}" for i in range(21)))


def test_small_helpers():
    assert safe_name("") == "upload"
    assert md_escape("[a](b) <i>*x*</i> `c`") == r"\[a\]\(b\) \<i\>\*x\*\<\/i\> \`c\`"
    assert file_stem("") == "bpe-lab"
    assert doctest.testmod(ui.exchange.files).failed == 0


def test_import_summary_says_how_a_tokenizer_json_decodes(tok):
    document = json.loads(hf_json_bytes(tok))
    document["decoder"] = None  # Hugging Face then joins the token strings with spaces
    imported = read_uploads([("tokenizer.json", json.dumps(document).encode())])
    rows = dict(import_summary(imported))
    assert "joins the token strings with spaces" in rows["Decoding"]
    assert "Before BPE" not in rows
    document["decoder"] = {"type": "WordPiece", "prefix": "##", "cleanup": True}
    imported = read_uploads([("tokenizer.json", json.dumps(document).encode())])
    assert "Decoding" not in dict(import_summary(imported))
    assert any("WordPiece" in note and note.startswith("Left out") for note in imported.notes)


def test_an_imported_pattern_is_shown_without_the_unicode_guards():
    """A tokenizer.json's pattern reads characters newer than Oniguruma's Unicode as HF does,
    through guards of thousands of code points; the page shows the pattern as written."""
    import json

    from bpe_core import GPT4_SPLIT_PATTERN, RegexTokenizer, read_tokenizer
    from bpe_core.formats import to_hf_json
    from ui.exchange.files import shown_pattern

    tok = RegexTokenizer(GPT4_SPLIT_PATTERN)
    tok.train("hello world " * 20, 270)
    back = read_tokenizer(to_hf_json(tok).encode(), "tokenizer.json")
    assert len(back.pattern) > 1000  # the guards
    shown = shown_pattern(back)
    assert shown.startswith(GPT4_SPLIT_PATTERN + "   (") and "U+0558" in shown
    assert shown_pattern(tok) == GPT4_SPLIT_PATTERN
    assert json.dumps(shown)  # plain text
