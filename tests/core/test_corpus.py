"""Training on a corpus read in blocks gives exactly what training on the joined text gives.

The reference is ``train`` on ``"".join(file texts)`` (itself checked against the seeds' naive
loop in test_training.py) and, for the table of pieces, the naive split of tests/naive.py.
Tiny ``block_bytes`` force hundreds of block edges through special tokens, "\\r\\n", runs of
spaces and multi-byte characters.
"""

from __future__ import annotations

import multiprocessing
import os
import random
import string
from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from naive import chunks_of, cut_at_specials
from support import in_ci, pattern_of

from bpe_core import BasicTokenizer, RegexTokenizer, read_tokenizer
from bpe_core.corpus import CorpusError, count_pieces
from bpe_core.formats import to_hf_json

EOT = "<|endoftext|>"

# Documents with what breaks careless cuts: CRLF, runs of spaces before line breaks, blank
# lines, 2-, 3- and 4-byte characters, digits, and a special token between documents.
DOCS = [
    "Once upon a time, a little cat saw a big red ball.\nThe cat was happy!\n",
    "Ünïcödé wörds: 中文字符 and emoji 😀😀 here.  \r\n  indented line\r\n\r\nend",
    "numbers 1234567 and 3.14159;   spaces   \n\n\n   and tabs\t\there\n",
    "code: def f(x):\n    return x ** 2  # square\n\n",
    "Ωμέγα ελληνικά, кириллица текст.\r\nLast line without newline",
]


def write_files(tmp_path, texts, newline_bytes=True):
    paths = []
    for k, text in enumerate(texts):
        path = tmp_path / f"part{k}.txt"
        path.write_bytes(text.encode("utf-8"))
        paths.append(str(path))
    return paths


def corpus_texts(with_specials: bool) -> list[str]:
    """Three files: documents joined by the special token (or not), one without final newline."""
    sep = EOT if with_specials else ""
    docs = DOCS * 3
    return [sep.join(docs[:5]) + sep, sep.join(docs[5:11]), sep + sep.join(docs[11:])]


def reference_table(text: str, pattern: str, specials) -> list[tuple[bytes, int]]:
    """The naive split of the whole text: pieces -> occurrences in first-seen order."""
    pieces = [c for part in cut_at_specials(text, specials) for c in chunks_of(part, pattern)]
    return [(piece.encode("utf-8"), n) for piece, n in Counter(pieces).items()]


@pytest.mark.parametrize("kind", ["gpt2", "gpt4", "gpt4o"])
@pytest.mark.parametrize("with_specials", [True, False])
def test_the_table_of_pieces_is_the_whole_texts_at_every_block_size(tmp_path, kind, with_specials):
    texts = corpus_texts(with_specials)
    paths = write_files(tmp_path, texts)
    specials = [EOT] if with_specials else []
    expected = reference_table("".join(texts), pattern_of(kind), specials)
    many_blocks = 0
    for block_bytes in [*range(1, 40), 97, 500, 10**6]:
        counted = count_pieces(paths, pattern=pattern_of(kind), special_tokens=specials,
                               workers=1, block_bytes=block_bytes)
        assert list(counted.counts.items()) == expected, block_bytes
        assert counted.bytes_read == sum(len(t.encode()) for t in texts)
        many_blocks = max(many_blocks, counted.blocks)
        # the same text from an iterator of str, cut at other places
        from_iter = count_pieces(iter(texts), pattern=pattern_of(kind), special_tokens=specials,
                                 workers=1, block_bytes=block_bytes)
        assert list(from_iter.counts.items()) == expected, block_bytes
    assert many_blocks >= 15  # the tiny blocks cut the corpus at least once per document


def test_gpt2_and_gpt4_split_their_ascii_stretches_with_re_and_count_the_same(tmp_path,
                                                                              monkeypatch):
    """GPT-2's and GPT-4's patterns split a part's ASCII stretches with the stdlib's re and
    the rest with regex (words.road_chunks, about a fifth quicker on web-like text): the
    table is the naive split's; GPT-4o's pattern and others go by regex alone."""
    import bpe_core.corpus

    used = []
    road_chunks = bpe_core.corpus.road_chunks
    monkeypatch.setattr(bpe_core.corpus, "road_chunks",
                        lambda pattern, *args: used.append(pattern) or road_chunks(pattern, *args))
    texts = corpus_texts(True)
    paths = write_files(tmp_path, texts)
    for kind in ("gpt2", "gpt4", "gpt4o"):
        counted = count_pieces(paths, pattern=pattern_of(kind), special_tokens=[EOT], workers=1)
        assert list(counted.counts.items()) == reference_table("".join(texts), pattern_of(kind),
                                                               [EOT])
    assert set(used) == {pattern_of("gpt2"), pattern_of("gpt4")} and len(used) > 20


def test_gpt2_cuts_crlf_text_into_blocks(tmp_path):
    """GPT-2's pattern cuts "x \\r\\n" differently at the end of a text, so the reader cuts
    before such line breaks, not after them, and still finds many places to cut."""
    lines = [f"line {k} has words  \r\n" if k % 2 else f"line {k}\r\n" for k in range(400)]
    paths = write_files(tmp_path, ["".join(lines[:200]), "".join(lines[200:])])
    counted = count_pieces(paths, pattern=pattern_of("gpt2"), workers=1, block_bytes=200)
    assert list(counted.counts.items()) == reference_table("".join(lines), pattern_of("gpt2"), [])
    assert counted.blocks >= 20


@pytest.mark.parametrize("kind", ["gpt2", "gpt4", "gpt4o"])
def test_runs_longer_than_the_checked_context_are_cut_only_where_safe(tmp_path, kind):
    """Spaces, digits and line breaks in runs of hundreds (longer than the 300 characters the
    reader checks around a cut), where the split's pieces depend on where the run started."""
    texts = ["x" + " " * 700 + "\n" + "1" * 1001 + "\n\n" + " \r\n" * 200 + "end\n",
             "\n" * 500 + "word " * 100 + "\t" * 400 + "\r\n" + "7" * 500 + "y" * 400 + "\n"]
    paths = write_files(tmp_path, texts)
    expected = reference_table("".join(texts), pattern_of(kind), [])
    for block_bytes in (1, 100, 299, 301, 650, 1500):
        counted = count_pieces(paths, pattern=pattern_of(kind), workers=1, block_bytes=block_bytes)
        assert list(counted.counts.items()) == expected, block_bytes


def test_without_a_split_the_text_between_specials_is_one_piece(tmp_path):
    texts = corpus_texts(True)
    paths = write_files(tmp_path, texts)
    counted = count_pieces(paths, pattern="", special_tokens=[EOT], workers=1, block_bytes=5)
    assert list(counted.counts.items()) == reference_table("".join(texts), "", [EOT])
    no_specials = count_pieces(paths, pattern="", workers=1, block_bytes=5)
    assert no_specials.blocks == 1  # no place to cut: the whole corpus is one piece
    assert list(no_specials.counts) == ["".join(texts).encode()]


ALPHABET = ["a", "b", " ", "  ", "\n", "\r\n", "\r", "\t", "é", "中", "😀", "1", "22", ".", "'s",
            EOT, "<|", "|>"]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    parts=st.lists(st.lists(st.sampled_from(ALPHABET), max_size=40).map("".join),
                   min_size=1, max_size=3),
    kind=st.sampled_from(["gpt2", "gpt4", "gpt4o"]),
    with_specials=st.booleans(),
    block_bytes=st.integers(1, 30),
)
def test_any_text_any_block_size_same_table(tmp_path_factory, parts, kind, with_specials,
                                            block_bytes):
    specials = [EOT] if with_specials else []
    text = "".join(parts)
    if not text:
        return
    paths = write_files(tmp_path_factory.mktemp("c"), parts)
    expected = reference_table(text, pattern_of(kind), specials)
    for source in (paths, iter(parts)):
        counted = count_pieces(source, pattern=pattern_of(kind), special_tokens=specials,
                               workers=1, block_bytes=block_bytes)
        assert list(counted.counts.items()) == expected


def merges_and_counts(tok):
    return list(tok.merges.items()), [r.count for r in tok.history]


@pytest.mark.parametrize("tie_rule", ["seen", "bytes", "ids"])
@pytest.mark.parametrize("kind", ["basic", "gpt4"])
def test_same_merges_as_train_on_the_joined_text_for_each_tie_rule(tmp_path, tie_rule, kind):
    texts = corpus_texts(True)
    paths = write_files(tmp_path, texts)
    options = dict(tie_rule=tie_rule, special_tokens=[EOT], candidates=3)
    whole = BasicTokenizer() if kind == "basic" else RegexTokenizer(pattern_of(kind))
    whole.train("".join(texts), 400, **options)
    tok = BasicTokenizer() if kind == "basic" else RegexTokenizer(pattern_of(kind))
    result = tok.train_corpus(paths, 400, workers=1, block_bytes=64, **options)
    assert merges_and_counts(tok) == merges_and_counts(whole)
    assert [r.candidates for r in tok.history] == [r.candidates for r in whole.history]
    assert tok.special_tokens == whole.special_tokens == {EOT: 256 + len(whole.merges)}
    assert tok.stop_reason == whole.stop_reason
    assert result.blocks > 10 and result.counts == {}  # counts freed once laid out


def test_min_frequency_and_max_token_bytes_as_train(tmp_path):
    texts = corpus_texts(False)
    paths = write_files(tmp_path, texts)
    options = dict(min_frequency=6, max_token_bytes=4, tie_rule="bytes")
    whole = RegexTokenizer(pattern_of("gpt2"))
    whole.train("".join(texts), 1000, **options)
    tok = RegexTokenizer(pattern_of("gpt2"))
    tok.train_corpus(paths, 1000, workers=1, block_bytes=50, **options)
    assert merges_and_counts(tok) == merges_and_counts(whole)
    assert "min_frequency" in tok.stop_reason and tok.stop_reason == whole.stop_reason
    assert max(len(t) for t in tok.vocab.values()) <= 4


def test_two_worker_processes_give_the_same_merges(tmp_path):
    texts = corpus_texts(True) * 4
    paths = write_files(tmp_path, texts)
    whole = RegexTokenizer(pattern_of("gpt4o"))
    whole.train("".join(texts), 350, special_tokens=[EOT], tie_rule="seen")
    tok = RegexTokenizer(pattern_of("gpt4o"))
    seen = []
    result = tok.train_corpus(paths, 350, special_tokens=[EOT], workers=2, block_bytes=200,
                              on_bytes=lambda done, total: seen.append((done, total)))
    assert merges_and_counts(tok) == merges_and_counts(whole)
    total = sum(len(t.encode()) for t in texts)
    assert seen[-1] == (total, total) and len(seen) == result.blocks >= 20
    assert [d for d, _ in seen] == sorted(d for d, _ in seen)
    assert result.workers == 2 and result.max_in_flight <= 4  # two blocks per worker at most
    assert multiprocessing.active_children() == []  # the workers are gone


def test_a_corpus_of_one_block_is_counted_without_worker_processes(tmp_path):
    paths = write_files(tmp_path, corpus_texts(True))
    small = count_pieces(paths, pattern=pattern_of("gpt4"), special_tokens=[EOT])
    assert small.workers == 1 and small.blocks == 1
    assert list(small.counts.items()) == reference_table("".join(corpus_texts(True)),
                                                         pattern_of("gpt4"), [EOT])


def many_distinct_words(megabytes: float) -> str:
    """Web-like text: 150,000 made-up words (most occurring a few times, so many distinct
    pieces), capitals and numbers, ``<|endoftext|>`` every 200 words."""
    rng = random.Random(37)
    vocab = ["".join(rng.choices(string.ascii_lowercase, k=rng.randint(3, 11)))
             for _ in range(150_000)]
    vocab += [w.capitalize() for w in vocab[:20_000]] + [str(n) for n in range(20_000)]
    words = rng.choices(vocab, k=int(megabytes * 1e6 / 8))
    return "".join(" ".join(words[k:k + 200]) + ".\n" + EOT
                   for k in range(0, len(words), 200))


def test_worker_processes_give_the_same_table_and_this_process_adds_up_no_block(tmp_path,
                                                                                monkeypatch):
    """Web-like 2 MB with over 100,000 distinct pieces: with worker processes the table (its
    first-seen order too) and the merges are those of counting in this process. The blocks'
    tables are added up in the reducer process, not here: this process adds up none of them
    (a dict of every piece, once freed, left 65-90 MB here that the merge loop never reused, on
    web-like 200 MB), and the reducer is gone once the table came back."""
    import bpe_core.corpus

    path = tmp_path / "web.txt"
    path.write_text(many_distinct_words(2), encoding="utf-8")
    added = []
    add_table = bpe_core.corpus._add_table
    monkeypatch.setattr(bpe_core.corpus, "_add_table",
                        lambda counts, block: (added.append(len(block)), add_table(counts, block)))
    options = dict(pattern=pattern_of("gpt2"), special_tokens=[EOT], block_bytes=256 << 10)
    here = count_pieces(str(path), workers=1, **options)
    assert len(added) == here.blocks >= 7 and here.distinct > 100_000
    added.clear()
    pool = count_pieces(str(path), workers=2, **options)
    assert added == [] and pool.blocks == here.blocks and pool.distinct == here.distinct
    assert list(pool.counts) == list(here.counts.items())
    assert multiprocessing.active_children() == []  # workers and reducer gone
    trained = []
    for workers in (1, 2):
        tok = RegexTokenizer(pattern_of("gpt2"))
        tok.train_corpus(str(path), 320, special_tokens=[EOT], workers=workers,
                         block_bytes=256 << 10, tie_rule="seen")
        trained.append(merges_and_counts(tok))
    assert trained[0] == trained[1] and len(trained[0][0]) == 63


def test_a_reducer_that_stops_is_an_error_not_a_wait(tmp_path):
    """A reducer killed (as the system does when memory runs out) while the workers count: a
    CorpusError (the ValueError the command line prints as a message) saying so, and no process
    left."""
    path = tmp_path / "web.txt"
    path.write_text(many_distinct_words(1), encoding="utf-8")

    def kill_the_reducer(done, total):
        for child in multiprocessing.active_children():
            if child.name == "bpe_core reducer":
                child.kill()
                child.join()

    with pytest.raises(CorpusError, match=r"adding up the counts stopped \(exit code -9\)"):
        count_pieces(str(path), pattern=pattern_of("gpt2"), workers=2, block_bytes=64 << 10,
                     on_bytes=kill_the_reducer)
    assert multiprocessing.active_children() == []


def test_blocks_in_flight_are_bounded_and_the_iterator_is_read_as_counted():
    """The reader never runs ahead of the counting by more than the bound: at every progress
    report, the text pulled from the iterator exceeds the text counted by a few blocks at most."""
    docs = [f"document {k} says hello to {k * 7} friends.\n" for k in range(3000)]
    pulled = 0

    def source():
        nonlocal pulled
        for doc in docs:
            pulled += len(doc)
            yield doc

    ahead = []
    block = 400
    counted = count_pieces(source(), pattern=pattern_of("gpt4"), workers=1, block_bytes=block,
                           on_bytes=lambda done, total: ahead.append(pulled - done))
    assert counted.max_in_flight == 1 and counted.blocks >= 100
    assert max(ahead) <= block + 2 * 300 + 60  # one block, its look-ahead, one document
    pool = count_pieces(iter(docs), pattern=pattern_of("gpt4"), workers=2, block_bytes=block,
                        max_in_flight=3)
    assert pool.max_in_flight == 3 and list(pool.counts) == list(counted.counts.items())


def test_bad_utf8_names_the_file_and_offset_and_replace_goes_on(tmp_path):
    good = tmp_path / "good.txt"
    good.write_bytes(b"fine text\n" * 10)
    bad = tmp_path / "bad.txt"
    data = b"hello world\n" * 5 + b"caf\xe9 au lait\n" + b"more text\n"
    bad.write_bytes(data)
    for workers in (1, 2):  # in this process, or in a worker (then the pool and reducer stop)
        with pytest.raises(CorpusError) as err:
            count_pieces([str(good), str(bad)], pattern=pattern_of("gpt4"), workers=workers,
                         block_bytes=16)
        message = str(err.value)
        offset = data.index(b"\xe9")
        assert str(bad) in message and f"offset {offset}" in message
        assert 'errors="replace"' in message
        assert multiprocessing.active_children() == []
    tok = RegexTokenizer(pattern_of("gpt4"))
    tok.train_corpus([str(good), str(bad)], 300, errors="replace", workers=1, block_bytes=16)
    whole = RegexTokenizer(pattern_of("gpt4"))
    whole.train(good.read_text() + data.decode("utf-8", "replace"), 300)
    assert merges_and_counts(tok) == merges_and_counts(whole)


def test_a_character_cut_by_the_end_of_a_file_is_bad_utf8(tmp_path):
    first, second = tmp_path / "a.txt", tmp_path / "b.txt"
    first.write_bytes("ab中".encode()[:-1])  # the file ends inside a character
    second.write_bytes(b"cd\n")
    with pytest.raises(CorpusError, match=rf"{first.name}.*offset 2"):
        count_pieces([str(first), str(second)], pattern="", workers=1)


def test_bad_paths_say_what_is_wrong(tmp_path):
    gpt4 = pattern_of("gpt4")
    with pytest.raises(CorpusError, match="does not exist"):
        count_pieces(str(tmp_path / "missing.txt"), pattern=gpt4, workers=1)
    with pytest.raises(CorpusError, match="is a directory"):
        count_pieces([str(tmp_path)], pattern=gpt4, workers=1)
    empty = tmp_path / "empty.txt"
    empty.write_bytes(b"")
    with pytest.raises(CorpusError, match="empty"):
        count_pieces([str(empty), str(empty)], pattern=gpt4, workers=1)
    with pytest.raises(CorpusError, match="empty"):
        count_pieces(iter(["", ""]), pattern=gpt4, workers=1)
    with pytest.raises(CorpusError, match="no corpus files"):
        count_pieces([], pattern=gpt4, workers=1)
    with pytest.raises(CorpusError, match="iter"):
        count_pieces(["a long text, not a path\n" * 20], pattern=gpt4, workers=1)
    with pytest.raises(CorpusError, match="bytes at item 1"):
        count_pieces(iter(["ok", b"raw"]), pattern=gpt4, workers=1)
    if os.geteuid() != 0:  # root reads every file
        locked = tmp_path / "locked.txt"
        locked.write_bytes(b"secret\n")
        locked.chmod(0)
        with pytest.raises(CorpusError, match="permission"):
            count_pieces(str(locked), pattern=gpt4, workers=1)


def test_bad_options_say_what_to_do(tmp_path):
    path = tmp_path / "c.txt"
    path.write_text("some text\n")
    gpt4 = pattern_of("gpt4")
    cores = os.cpu_count()
    for workers in (0, -1, cores + 1, 1.5):
        with pytest.raises(CorpusError, match=f"1 to {cores}"):
            count_pieces(str(path), pattern=gpt4, workers=workers)
    with pytest.raises(CorpusError, match="replace"):
        count_pieces(str(path), pattern=gpt4, errors="ignore", workers=1)
    tok = RegexTokenizer(gpt4)
    with pytest.raises(ValueError, match="at least 258"):
        tok.train_corpus(str(path), 257, special_tokens=["<a>", "<b>"], workers=1)
    with pytest.raises(ValueError, match="tie_rule"):
        tok.train_corpus(str(path), 300, tie_rule="longest", workers=1)
    with pytest.raises(ValueError, match="invalid split pattern"):
        count_pieces(str(path), pattern="(unclosed", workers=1)


def test_a_catastrophic_pattern_stops_at_the_time_bound(tmp_path):
    path = tmp_path / "c.txt"
    path.write_text("ok\n" + "a" * 40 + "!\n")
    tok = RegexTokenizer(r"(a|aa)+$|\S+|\s", timeout=0.2)
    with pytest.raises(CorpusError, match=r"longer than 0.2 s on bytes 0..45 of .*c.txt.*simplify"):
        tok.train_corpus(str(path), 300, workers=1)
    # tiny blocks too: the reader never splits text to look for a cut (a pattern without a
    # proven rule is not cut at all), so the one block is where the bound is met
    with pytest.raises(CorpusError, match=r"longer than 0.2 s on bytes 0..45 of .*c.txt.*simplify"):
        tok.train_corpus(str(path), 300, workers=1, block_bytes=1)


def pipeline_tokenizer(timeout=None):
    """A tokenizer.json with a normalizer (NFKC, Lowercase, a Replace that can match across a
    line break), a Split + ByteLevel pre-tokenizer and added tokens, read by bpe_core."""
    from tokenizers import AddedToken, Regex, normalizers, pre_tokenizers
    from tokenizers import Tokenizer as HFTokenizer

    plain = RegexTokenizer()
    plain.train("some text\n", 260)
    plain.register_special_tokens({"<pad>": 399})  # the added tokens after it: past training's ids
    hf = HFTokenizer.from_str(to_hf_json(plain))
    hf.normalizer = normalizers.Sequence([
        normalizers.NFKC(), normalizers.Lowercase(), normalizers.Replace(Regex(r"[ \t]+\r?\n"), "\n")])
    hf.pre_tokenizer = pre_tokenizers.Sequence([
        pre_tokenizers.Split(Regex(r" ?\p{L}+| ?\p{N}| ?[^\s\p{L}\p{N}]+|\s+"), "isolated"),
        pre_tokenizers.ByteLevel(False, use_regex=False)])
    hf.add_tokens([AddedToken("<tool>", normalized=False), AddedToken("\nmark", normalized=True)])
    tok = read_tokenizer(hf.to_str().encode("utf-8"), "tokenizer.json")
    tok.timeout = timeout
    assert tok.pipeline is not None and tok.pipeline.normalizer and tok.pipeline.added
    return tok


def pipeline_texts():
    docs = [d.replace("cat", "cat<tool>").replace("line", "line  \nmark") for d in DOCS]
    return corpus_texts(True)[:1] + [EOT.join(docs) + "ＡＢＣ  \n", "  \nmark TAIL ①"]


@pytest.mark.parametrize(("tie_rule", "specials", "workers"), [
    ("seen", [EOT], 1), ("bytes", [EOT], 1), ("seen", None, 1), ("bytes", None, 1),
    ("seen", [EOT], 2), ("bytes", None, 2),  # spawn workers get the pipeline (pickled)
])
def test_a_tokenizer_json_pipeline_trains_as_train_on_the_joined_text(tmp_path, tie_rule,
                                                                       specials, workers):
    texts = pipeline_texts()
    paths = write_files(tmp_path, texts)
    options = dict(tie_rule=tie_rule, special_tokens=specials, candidates=2)
    whole = pipeline_tokenizer()
    whole.train("".join(texts), 330, **options)
    tok = pipeline_tokenizer()
    result = tok.train_corpus(paths, 330, workers=workers, block_bytes=40, **options)
    assert merges_and_counts(tok) == merges_and_counts(whole)
    assert [r.candidates for r in tok.history] == [r.candidates for r in whole.history]
    assert tok.special_tokens == whole.special_tokens
    # a pipeline is cut only right after a special token (no rule proves a cut elsewhere)
    assert result.blocks > 5 if specials else result.blocks == 1
    # an iterator of str too, cut into blocks at the pipeline's safe places
    again = pipeline_tokenizer()
    again.train_corpus(iter(texts), 330, workers=1, block_bytes=40, **options)
    assert merges_and_counts(again) == merges_and_counts(whole)


def test_a_pipelines_cuts_keep_its_chunks(tmp_path):
    """A pipeline is cut only right after a special token: a Replace matching "  \n" across a
    cut, or an added token holding a line break, is never cut into two."""
    from bpe_core.base import split_from_json
    from bpe_core.corpus import PipelineSplit, file_blocks, read_block

    text = "".join(pipeline_texts())
    paths = write_files(tmp_path, pipeline_texts())
    split = PipelineSplit(pipeline_tokenizer(), split_from_json)
    no_specials = file_blocks(paths, pattern=split, block_bytes=5)
    assert len(list(no_specials.blocks)) == 1
    cut = file_blocks(paths, pattern=split, special_tokens=[EOT], block_bytes=5)
    blocks = [read_block(b)[0] for b in cut.blocks]
    assert "".join(blocks) == text and len(blocks) > 5
    assert all(b.endswith(EOT) for b in blocks[:-1])
    parts = [p for p in text.split(EOT) if p]
    assert [c for b in blocks for p in b.split(EOT) if p for c in split.chunks(p, None)] == \
        [c for p in parts for c in split.chunks(p, None)]


def test_a_pipeline_stops_at_the_time_bound(tmp_path):
    path = tmp_path / "c.txt"
    path.write_text("some text\n" * 2000)
    tok = pipeline_tokenizer(timeout=1e-6)
    with pytest.raises(CorpusError, match=r"longer than 1e-06 s"):
        tok.train_corpus(str(path), 300, workers=1)


def test_ctrl_c_stops_the_worker_processes(tmp_path):
    paths = write_files(tmp_path, corpus_texts(True) * 4)

    def interrupt(done, total):
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        count_pieces(paths, pattern=pattern_of("gpt4"), workers=2, block_bytes=100,
                     on_bytes=interrupt)
    assert multiprocessing.active_children() == []


def test_a_dask_cluster_counts_the_blocks_and_the_merges_are_the_same(tmp_path):
    try:
        from dask.distributed import Client, LocalCluster
    except ImportError:
        if in_ci():
            raise
        pytest.skip("dask[distributed] is not installed (pip install -r requirements-dev.txt)")
    texts = corpus_texts(True)
    paths = write_files(tmp_path, texts)
    whole = RegexTokenizer(pattern_of("gpt4"))
    whole.train("".join(texts), 380, special_tokens=[EOT], tie_rule="bytes")
    # host: the loopback address, so that the cluster never looks for a way out of this machine
    with LocalCluster(n_workers=1, threads_per_worker=2, processes=False, protocol="tcp://",
                      host="127.0.0.1", dashboard_address=":0") as cluster, Client(cluster) as client:
        tok = RegexTokenizer(pattern_of("gpt4"))
        result = tok.train_corpus(paths, 380, special_tokens=[EOT], tie_rule="bytes",
                                  client=client, block_bytes=20)
    assert merges_and_counts(tok) == merges_and_counts(whole)
    assert result.workers == 2 and result.blocks > 10 and result.max_in_flight <= 4


def test_a_dask_cluster_without_workers_is_an_error_not_a_wait_forever(tmp_path, monkeypatch):
    try:
        from dask.distributed import Client, LocalCluster
    except ImportError:
        if in_ci():
            raise
        pytest.skip("dask[distributed] is not installed (pip install -r requirements-dev.txt)")
    import bpe_core.corpus

    monkeypatch.setattr(bpe_core.corpus, "DASK_NO_WORKER_SECONDS", 1.0)
    paths = write_files(tmp_path, corpus_texts(True))
    with LocalCluster(n_workers=0, processes=False, protocol="tcp://", host="127.0.0.1",
                      dashboard_address=":0") as cluster, Client(cluster) as client:
        with pytest.raises(CorpusError, match=r"has had no worker for 1 s.*dask worker tcp://"):
            count_pieces(paths, pattern=pattern_of("gpt4"), client=client, block_bytes=100)
