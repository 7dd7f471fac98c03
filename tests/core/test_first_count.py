"""The first count (bpe_core/first_count.py): a table laid out and counted with a helper
process is, array by array, the layout of one process, and so trains the same merges; when the
helper cannot start or stops, the layout is made here."""

from __future__ import annotations

import multiprocessing
import random

import pytest
from naive import naive_train

from bpe_core import first_count, merge_loop
from bpe_core.merge_loop import Layout
from bpe_core.training import piece_table, train_bpe

ARRAYS = ("pid", "light", "places", "keys", "cnt", "first", "end", "starts", "weight")


def table_items(seed: int = 3, n: int = 3000) -> list[tuple[bytes, int]]:
    """Distinct pieces of 0 to 12 bytes (one empty), of weights on both sides of the weight
    byte's 255, a few of 1: what a corpus's table holds."""
    rng = random.Random(seed)
    letters = b"abcdefgh \xc3\xa9"
    pieces = dict.fromkeys(bytes(rng.choices(letters, k=rng.randint(1, 12))) for _ in range(n))
    weights = [1, 1, 1, 2, 3, 254, 255, 256, 1000]
    return [(b"", 7)] + [(piece, rng.choice(weights)) for piece in pieces]


def snapshot(layout: Layout) -> dict:
    return {name: (getattr(layout, name).typecode if hasattr(getattr(layout, name), "typecode")
                   else "bytes", bytes(getattr(layout, name))) for name in ARRAYS} | {
        "total": layout.total, "positive": layout.positive, "live": layout.live_pairs}


@pytest.fixture
def helped(monkeypatch):
    """Every table goes to the helper (no size below which it is laid out here alone); the
    helpers made are listed, with what failed in each (None: it did its part)."""
    made = []
    monkeypatch.setattr(first_count, "PARALLEL_NODES", 0)
    real_tail = first_count.Helper.tail

    def tail(self, pairs):
        result = real_tail(self, pairs)
        made.append(self.failed)
        return result

    monkeypatch.setattr(first_count.Helper, "tail", tail)
    return made


@pytest.mark.parametrize("share", [0.1, 0.5, 0.9])
@pytest.mark.parametrize("last_id", [300, 70_000])  # tokens in 2 bytes a node, then in 4
def test_a_table_laid_out_with_a_helper_is_the_layout_of_one_process(helped, monkeypatch,
                                                                      share, last_id):
    monkeypatch.setattr(first_count, "HELPER_SHARE", share)
    items = table_items()
    alone = Layout(piece_table(dict(items)), last_id)
    helper = Layout(piece_table(dict(items)), last_id, parallel=True)
    assert helped == [None]  # the helper did the table's end
    assert snapshot(helper) == snapshot(alone)
    assert multiprocessing.active_children() == []


def test_huge_and_zero_counts_are_laid_out_alike_with_a_helper(helped, monkeypatch):
    """A count past 2**32 in the helper's part only (8 bytes a weight from there on) and a
    count of 0 in this process's part (no pair is forgotten at 0 then)."""
    monkeypatch.setattr(first_count, "HELPER_SHARE", 0.5)
    items = table_items(seed=8, n=400)
    items[5] = (items[5][0], 0)
    items[-3] = (items[-3][0], 5 << 32)
    alone = Layout(piece_table(dict(items)), 300)
    helper = Layout(piece_table(dict(items)), 300, parallel=True)
    assert helped == [None] and not helper.positive and helper.weight.typecode == "Q"
    assert snapshot(helper) == snapshot(alone)


def test_train_bpe_with_a_helper_makes_the_same_merges(helped):
    items = table_items(seed=5)
    alone = train_bpe(piece_table(dict(items)), 120)
    helper = train_bpe(piece_table(dict(items)), 120, parallel=True)
    assert helped == [None]
    assert [(m.pair, m.count) for m in helper.history] == [(m.pair, m.count) for m in alone.history]


def test_a_helper_that_stops_leaves_the_layout_to_this_process(helped, monkeypatch):
    """The helper killed before it sends (as the kernel would when memory runs out): the end
    is laid out here, the same layout."""
    real_tell = first_count.Helper.tell

    def tell(self, pairs):
        self.process.kill()
        self.process.join()
        real_tell(self, pairs)

    monkeypatch.setattr(first_count.Helper, "tell", tell)
    items = table_items(seed=6)
    alone = Layout(piece_table(dict(items)), 300)
    helper = Layout(piece_table(dict(items)), 300, parallel=True)
    assert len(helped) == 1 and helped[0] is not None  # it failed, and it was said
    assert snapshot(helper) == snapshot(alone)
    assert multiprocessing.active_children() == []


def test_no_helper_process_at_all_lays_the_table_out_here(helped, monkeypatch):
    def refuse(self):
        raise OSError("no processes here")

    monkeypatch.setattr(multiprocessing.get_context("spawn").Process, "start", refuse)
    items = table_items(seed=7)
    alone = Layout(piece_table(dict(items)), 300)
    helper = Layout(piece_table(dict(items)), 300, parallel=True)
    assert helped == ["OSError: no processes here"]
    assert snapshot(helper) == snapshot(alone)


def test_a_small_table_is_laid_out_here_alone(monkeypatch):
    started = []
    monkeypatch.setattr(first_count.Helper, "__init__",
                        lambda *args: started.append(args) or pytest.fail("a helper started"))
    Layout(piece_table(dict(table_items())), 300, parallel=True)  # 3,000 pieces: 20,000 nodes
    assert started == []


def test_the_corpus_trainer_uses_a_helper_with_two_workers(helped, tmp_path):
    text = " ".join("".join(random.Random(k).choices("abcdé ", k=9)) for k in range(4000))
    path = tmp_path / "c.txt"
    path.write_text(text, encoding="utf-8")
    from bpe_core import GPT2_SPLIT_PATTERN, RegexTokenizer

    merges = []
    for workers in (1, 2):
        tok = RegexTokenizer(GPT2_SPLIT_PATTERN)
        tok.train_corpus(str(path), 300, workers=workers, block_bytes=4096)
        merges.append(tok.merges)
    assert helped == [None]  # with 2 workers only
    assert merges[0] == merges[1]


@pytest.mark.parametrize("run", [2, 3, 4, 5, 6, 7, 9, 12])
def test_runs_of_one_letter_train_as_the_naive_loop(run):
    """Runs of a letter make a pair, forget it (its count at 0) and make it again within one
    merge (aaaaaa: (A, a) at 0, then at 2): the new pairs are found by the pair they replace,
    and such a pair's second id still finds (A, A) made from its first."""
    pieces = [("a" * run, 3), ("a" * (run + 1), 1), ("ba" * run, 2), ("a" * 2 * run + "b", 5)]
    text = " ".join(" ".join([piece] * w) for piece, w in pieces)
    merges, counts = naive_train(text, 256 + 6, r"[a-z]+| ")
    result = train_bpe([(piece.encode(), w) for piece, w in pieces], 6)
    assert [m.count for m in result.history] == counts
    spell = {i: bytes([i]) for i in range(256)}
    for (a, b), idx in merges.items():
        spell[idx] = spell[a] + spell[b]
    assert [m.token for m in result.history] == [spell[i] for i in merges.values()]
    assert merge_loop.Layout is Layout


def test_a_helper_killed_while_it_sends_is_a_memory_error_that_says_so(helped, monkeypatch):
    """Killed once it has begun to send (its arrays are larger than the pipe holds): the
    layout cannot be finished from half an array, so it stops with a MemoryError that names
    the helper and what to do, and no process is left."""
    real_tail = first_count.Helper.tail

    def tail(self, pairs):
        got = real_tail(self, pairs)
        self.process.kill()
        return got

    monkeypatch.setattr(first_count.Helper, "tail", tail)
    items = table_items(seed=9, n=120_000)  # about 800,000 nodes: 1.6 MB of pids sent back
    with pytest.raises(MemoryError, match="laying out the end of the piece table.*1 worker"):
        Layout(piece_table(dict(items)), 300, parallel=True)
    assert multiprocessing.active_children() == []
