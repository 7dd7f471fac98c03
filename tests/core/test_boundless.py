"""Two-phase BoundlessBPE (bpe_core/boundless.py) against its definition: known answers worked by
hand, a plain reference written here on random texts, Hugging Face ``tokenizers`` reading its
tokenizer.json, the other formats, and the corpus trainer with 1 and 2 workers.

The plain reference (``naive_boundless``): phase one is the seeds' naive loop on the split
pattern's pieces, each merge's count kept. Then every piece of the text, in order, is encoded
with phase one's merges in merge order; the runs of two or more consecutive pieces that hold a
letter and became one token are phase two's chunks, one per place in the text (nothing counted
by frequency, no word-run pattern). Phase two recounts every pair of the runs at every step; the
best pair is taken when its count is greater than the next regular merge's, else that regular
merge is taken; until ``vocab_size``. Under the authors' stopping rule (the default) it takes at
most the merges phase one made, and stops when no pair of the runs is left (unless there never
was one: then phase one is kept whole); under "fill" it goes on to ``vocab_size``, taking the
regular merges left when the runs have no pair.
"""

from __future__ import annotations

import pytest
import regex
import tokenizers
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from naive import best_pair, chunks_of, get_stats, merge

from bpe_core import GPT2_SPLIT_PATTERN, GPT4_SPLIT_PATTERN, GPT4O_SPLIT_PATTERN
from bpe_core.boundless import (
    paper_encode,
    train_boundless,
    train_boundless_corpus,
    word_run_pattern,
)
from bpe_core.formats import to_hf_json


def naive_boundless(text: str, vocab_size: int, pattern: str = GPT4_SPLIT_PATTERN,
                    tie_rule: str = "seen", specials: tuple = (),
                    stopping: str = "authors") -> tuple[dict, int]:
    """(merges {pair: id} in id order, transition) of the plain two-phase loop; the text cut at
    ``specials`` first (no run crosses a cut; they count in ``vocab_size``)."""
    num = vocab_size - 256 - len(specials)
    vocab = {i: bytes([i]) for i in range(256)}
    parts = [p for p in regex.split("|".join(map(regex.escape, specials)), text) if p] \
        if specials else [text]
    pieces = [p for part in parts for p in [*chunks_of(part, pattern), None]]  # None: a cut
    ids = [list(p.encode("utf-8")) for p in pieces if p is not None]
    regular = []  # (pair, id, count) in order
    for idx in range(256, 256 + num):
        stats: dict = {}
        for chunk in ids:
            get_stats(chunk, stats)
        if not stats:
            break
        pair = best_pair(stats, vocab, tie_rule)
        ids = [merge(chunk, pair, idx) for chunk in ids]
        regular.append((pair, idx, stats[pair]))
        vocab[idx] = vocab[pair[0]] + vocab[pair[1]]
    # phase two's chunks: runs of whole lettered pieces, one per place
    runs, run = [], []
    for piece in pieces:
        encoded = list(piece.encode("utf-8")) if piece is not None else []
        for pair, idx, _ in regular:
            encoded = merge(encoded, pair, idx)
        if len(encoded) == 1 and piece is not None and regex.search(r"\p{L}", piece):
            run.append(encoded[0])
            continue
        if len(run) >= 2:
            runs.append(run)
        run = []
    if len(run) >= 2:
        runs.append(run)
    kept, supers = 0, []  # supers: (pair, phase-two id)
    next_id = 256 + len(regular)
    target = num if stopping == "fill" else min(num, len(regular))
    while kept + len(supers) < target:
        stats = {}
        for chunk in runs:
            get_stats(chunk, stats)
        pair = best_pair(stats, vocab, tie_rule) if stats else None
        if pair is None and stopping == "authors" and runs:
            break  # no candidate left: the authors stop
        if kept < len(regular) and (pair is None or regular[kept][2] >= stats[pair]):
            kept += 1
            continue
        if pair is None:
            break
        runs = [merge(chunk, pair, next_id) for chunk in runs]
        vocab[next_id] = vocab[pair[0]] + vocab[pair[1]]
        supers.append((pair, next_id))
        next_id += 1
    renumber = {old: 256 + kept + k for k, (_, old) in enumerate(supers)}
    merges = {pair: idx for pair, idx, _ in regular[:kept]}
    for (a, b), old in supers:
        assert a < 256 + kept or a in renumber, "a supermerge before its parent"
        assert b < 256 + kept or b in renumber, "a supermerge before its parent"
        merges[(renumber.get(a, a), renumber.get(b, b))] = renumber[old]
    return merges, kept


# ---------------------------------------------------------------------------------------------
# Known answers worked by hand


def test_a_supermerge_beats_a_rarer_regular_merge_and_the_transition_is_found():
    # GPT-4 pieces: "ab", " ab", " ab", " ab", " cd". Phase one (4 merges): (a, b) 4 times ->
    # 256 "ab"; (" ", ab) 3 -> 257 " ab"; then (" ", c) 1 -> " c" and (" c", d) 1 -> " cd".
    # Every piece is now one token and holds a letter: one run [ab, " ab", " ab", " ab", " cd"].
    # Phase two: (" ab", " ab") occurs twice (overlapping), more than regular merges 3 and 4
    # (once each) but not than 1 and 2 (4 and 3 times): those two are taken, then the
    # supermerge " ab ab". Then the best pair occurs once, a tie with regular merge 3 (" c"),
    # which the regular merge wins; that makes 4 merges. " cd" is left out: transition 3.
    tok = train_boundless("ab ab ab ab cd", 260)
    assert [tok.vocab[i] for i in range(256, 260)] == [b"ab", b" ab", b" c", b" ab ab"]
    assert tok.merges[(257, 257)] == 259
    assert tok.transition == 3 and tok.superword_ids() == [259]
    # encoding: the regular merges inside the words, then the supermerge joins two of them
    assert tok.encode("ab ab ab ab cd") == [256, 259, 257, 258, 100]
    assert paper_encode(tok, "ab ab ab ab cd") == [256, 259, 257, 258, 100]


def test_a_tie_goes_to_the_regular_merge():
    # "a", " b", " a", " b", " a", " b": phase one makes " b" (3 times) and " a" (2), then has
    # no pair left. Phase two's run [a, " b", " a", " b", " a", " b"]: (" b", " a") occurs twice,
    # as often as " a" did: the regular merge is taken, so 2 merges hold no superword ...
    tok = train_boundless("a b a b a b", 258, stopping="fill")
    assert [tok.vocab[i] for i in tok.merges.values()] == [b" b", b" a"]
    assert tok.superword_ids() == []
    # ... and with room for a third, phase one has run out: the supermerge fills it
    tok = train_boundless("a b a b a b", 259, stopping="fill")
    assert [tok.vocab[i] for i in tok.merges.values()] == [b" b", b" a", b" b a"]
    assert tok.transition == 2
    assert tok.encode("a b a b a b") == [97, 258, 258, 256]


def test_only_whole_pieces_that_hold_a_letter_are_joined():
    # "ab", ",", " ab", ",", " ab", ",", " abc": no two eligible pieces are neighbours (","
    # holds no letter, " abc" is not one token), so no candidate and no superword.
    tok = train_boundless("ab, ab, ab, abc", 262, stopping="fill")
    assert tok.superword_ids() == [] and tok.transition == len(tok.merges)
    # "ab", " ab" | "," | " ab", " ab" | "," | " ab", " ab": phase one makes "ab" (6) and " ab"
    # (5) and runs out; the runs give (" ab", " ab") twice and ("ab", " ab") once.
    tok = train_boundless("ab ab, ab ab, ab ab", 262, stopping="fill")
    assert [tok.vocab[i] for i in tok.merges.values()] == [b"ab", b" ab", b" ab ab", b"ab ab"]
    assert tok.stop_reason == "no merge left after 4 merges (2 of phase one, 2 supermerges)"


def test_the_encoder_differs_from_the_papers_where_a_superword_starts_a_longer_word():
    # " of" + " the" is a supermerge; " theory" is " the", "o", "r", "y" (not one token): the paper's
    # encoder leaves " of the" apart there (" theory" is no whole pretoken), the exported form
    # (ordinary BPE over word runs, what tokenizer.json and tiktoken can hold) joins them.
    tok = train_boundless(" of the" * 40 + " ory", 262)
    assert b" of the" in {tok.vocab[i] for i in tok.superword_ids()}
    ids = tok.encode(" of theory")
    assert [tok.vocab[i] for i in ids] == [b" of the", b"o", b"r", b"y"]
    assert [tok.vocab[i] for i in paper_encode(tok, " of theory")] == [
        b" of", b" the", b"o", b"r", b"y"]
    assert tok.decode(ids) == tok.decode(paper_encode(tok, " of theory")) == " of theory"


def test_another_split_pattern_is_refused_by_name():
    with pytest.raises(ValueError, match="GPT-2's, GPT-4's or GPT-4o's split pattern"):
        train_boundless("a b", 300, pattern=r"\w+|\s+")
    with pytest.raises(ValueError, match="at least 256"):
        train_boundless("a b", 100)


# ---------------------------------------------------------------------------------------------
# Special tokens: never merged across or inside in either phase, kept with their ids

EOT = "<|endoftext|>"


def test_special_tokens_cut_both_phases_and_take_the_ids_after_the_merges():
    # Cut at <|endoftext|>: three parts "ab ab", GPT-4 pieces "ab", " ab" in each. Phase one:
    # (a, b) 6 times -> 256 "ab", (" ", ab) 3 -> 257 " ab", then no pair is left. Phase two's
    # runs: [ab, " ab"] in each part (none runs on over the cut): (ab, " ab") 3 times. Regular
    # merge 1 (6) is taken, merge 2 (3) wins the tie, then the supermerge "ab ab" -> 258.
    text = f"ab ab{EOT}ab ab{EOT}ab ab"
    tok = train_boundless(text, 256 + 3 + 1, special_tokens=[EOT], stopping="fill")
    assert [tok.vocab[i] for i in tok.merges.values()] == [b"ab", b" ab", b"ab ab"]
    assert tok.transition == 2 and tok.superword_ids() == [258]
    assert tok.special_tokens == {EOT: 259}
    assert tok.encode(text, allowed_special="all") == [258, 259, 258, 259, 258]
    # Without the cut the special token's bytes are text: ">ab" is a GPT-4 piece, and merges
    # and supermerges take in its bytes
    uncut = train_boundless(text, 256 + 20, stopping="fill")
    assert any(b"|" in uncut.vocab[i] or b"e" in uncut.vocab[i]
               for i in uncut.merges.values())
    with pytest.raises(ValueError, match="no room for the 256 bytes and 2 special tokens"):
        train_boundless(text, 257, special_tokens=[EOT, "<s>"])


BOUND_PROSE = ("By the way, the cat sat on the mat. By the way, the dog sat on the log!\n"
               "In 2024 the cat sat on the mat again... By the way, it was a good mat.\n") * 6
SPECIAL_PROSE = BOUND_PROSE.replace("\n", EOT, 3).replace(" the mat", f" the{EOT} mat", 2)


def test_a_tokenizer_json_with_special_tokens_gives_the_same_ids_in_hf(tmp_path):
    tok = train_boundless(SPECIAL_PROSE, 256 + 50 + 2, special_tokens=[EOT, "<|pad|>"], stopping="fill")
    assert tok.superword_ids() and tok.num_merges == 50
    assert tok.special_tokens == {EOT: 306, "<|pad|>": 307}
    assert not any(b"<|" in tok.vocab[i] or b"|>" in tok.vocab[i] for i in tok.merges.values())
    path = tmp_path / "tokenizer.json"
    path.write_text(to_hf_json(tok), encoding="utf-8")
    hf = tokenizers.Tokenizer.from_file(str(path))
    assert hf.token_to_id(EOT) == 306 and hf.token_to_id("<|pad|>") == 307
    for text in [SPECIAL_PROSE, f"By the way,{EOT} the cat<|pad|>{EOT}{EOT}sat on", EOT]:
        ids = tok.encode(text, allowed_special="all")
        assert hf.encode(text).ids == ids
        assert hf.decode(ids, skip_special_tokens=False) == text


def test_tiktoken_and_the_other_formats_keep_the_special_tokens(tmp_path):
    import tiktoken

    import bpe_core
    from bpe_core.formats import tiktoken_encoding

    tok = train_boundless(SPECIAL_PROSE, 256 + 50 + 1, special_tokens=[EOT], stopping="fill")
    text = f"By the way, the cat{EOT}sat on the mat.{EOT}"
    expected = tok.encode(text, allowed_special="all")
    assert expected.count(256 + 50) == 2
    assert tiktoken.Encoding(**tiktoken_encoding(tok)).encode(text, allowed_special="all") \
        == expected
    tok.save(str(tmp_path / "s"))
    tok.save_tiktoken(str(tmp_path / "s.tiktoken"))
    for name in ("s.model", "s.tiktoken"):
        loaded = bpe_core.load(str(tmp_path / name))
        assert loaded.special_tokens == {EOT: 306}
        assert loaded.encode(text, allowed_special="all") == expected


def test_corpus_with_special_tokens_gives_the_merges_of_the_joined_text(tmp_path):
    path = tmp_path / "c.txt"
    path.write_bytes(SPECIAL_PROSE.encode("utf-8"))
    expected = train_boundless(SPECIAL_PROSE, 400, special_tokens=[EOT])
    for workers in (1, 2):
        tok = train_boundless_corpus([str(path)], 400, special_tokens=[EOT], workers=workers,
                                     block_bytes=100)
        assert list(tok.merges.items()) == list(expected.merges.items())
        assert tok.special_tokens == expected.special_tokens == {EOT: 256 + len(tok.merges)}


# ---------------------------------------------------------------------------------------------
# The plain reference on random texts

WORDS = st.sampled_from(["the", "of", "by", "way", "a", "é", "😄", "12", "345", ",", "!!", ".",
                         " ", "  ", "\n", "\t", "'s", "don't", "Ωμέγα", "x\u0301"])
TEXTS = st.lists(WORDS, max_size=40).map(lambda ws: " ".join(ws)) | st.text(max_size=80)
# Hugging Face's regex engine has older Unicode tables (see test_superbpe.py)
OLD_CHARS = st.characters(max_codepoint=0x2FFF, exclude_categories=("Cs", "Cn", "Co"))
HF_TEXTS = st.lists(WORDS, max_size=40).map(lambda ws: " ".join(ws)) | st.text(OLD_CHARS, max_size=80)
PATTERNS = st.sampled_from([GPT4_SPLIT_PATTERN, GPT2_SPLIT_PATTERN, GPT4O_SPLIT_PATTERN])


@settings(max_examples=80, deadline=None)
@given(text=TEXTS, num=st.integers(0, 60), pattern=PATTERNS,
       tie_rule=st.sampled_from(["seen", "ids", "bytes"]),
       stopping=st.sampled_from(["authors", "fill"]))
def test_matches_the_plain_two_phase_loop(text, num, pattern, tie_rule, stopping):
    tok = train_boundless(text, 256 + num, pattern=pattern, tie_rule=tie_rule, stopping=stopping)
    merges, kept = naive_boundless(text, 256 + num, pattern, tie_rule, stopping=stopping)
    assert list(tok.merges.items()) == list(merges.items())
    assert tok.transition == kept


def test_when_phase_one_runs_out_the_authors_stop_at_its_size_and_fill_goes_on():
    # "the cat the cat the cat": phase one has 6 merges in it (" c" .. " cat" and "th" ..
    # "the", then " the"); asked for 40, it runs out. The authors' rule keeps the size phase
    # one made and stops when the runs have no pair; "fill" makes supermerges up to 40.
    text = "the cat the cat the cat"
    tok = train_boundless(text, 256 + 40)
    fill = train_boundless(text, 256 + 40, stopping="fill")
    assert tok.ran_out_early and tok.phase_one_merges < 40 and tok.asked_merges == 40
    assert tok.num_merges <= tok.phase_one_merges and "phase one ran out" in tok.stop_reason \
        or "no supermerge candidate left" in tok.stop_reason
    assert fill.num_merges > tok.phase_one_merges
    for t, rule in ((tok, "authors"), (fill, "fill")):
        merges, kept = naive_boundless(text, 256 + 40, stopping=rule)
        assert list(t.merges.items()) == list(merges.items()) and t.transition == kept
    with pytest.raises(ValueError, match="stopping must be one of 'authors', 'fill'"):
        train_boundless(text, 300, stopping="paper")


@settings(max_examples=60, deadline=None)
@given(text=TEXTS, cut=st.lists(st.integers(0, 80), max_size=4), num=st.integers(0, 60),
       pattern=PATTERNS, specials=st.sampled_from([("<|e|>",), ("the", ", "), (" ", "<|e|>")]))
def test_with_special_tokens_it_matches_the_plain_loop_on_the_parts(text, cut, num, pattern,
                                                                   specials):
    for at in sorted(cut, reverse=True):  # the first special token at random places
        text = text[:at] + specials[0] + text[at:]
    vocab_size = 256 + num + len(specials)
    tok = train_boundless(text, vocab_size, pattern=pattern, special_tokens=list(specials))
    merges, kept = naive_boundless(text, vocab_size, pattern, specials=specials)
    assert list(tok.merges.items()) == list(merges.items())
    assert tok.transition == kept
    assert tok.special_tokens == {s: 256 + len(merges) + i for i, s in enumerate(specials)}
    assert tok.decode(tok.encode(text, allowed_special="all")) == text


# each pattern's word alternatives (its first two), as the pattern spells them
WORD_ALTERNATIVES = {
    GPT2_SPLIT_PATTERN: r"'(?:[sdmt]|ll|ve|re)| ?\p{L}++",
    GPT4_SPLIT_PATTERN: r"'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++",
    GPT4O_SPLIT_PATTERN:
        r"[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?"
        r"|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?",
}


@settings(max_examples=80, deadline=None)
@given(text=HF_TEXTS, pattern=PATTERNS)
def test_word_runs_are_the_patterns_pieces_with_word_neighbours_joined(text, pattern):
    words = WORD_ALTERNATIVES[pattern]
    assert pattern.startswith(words + "|")
    expected: list[str] = []
    after_word = False
    for piece in regex.findall(pattern, text):
        word = regex.fullmatch(words, piece) is not None
        if word and after_word:
            expected[-1] += piece
        else:
            expected.append(piece)
        after_word = word
    assert regex.findall(word_run_pattern(pattern), text) == expected
    hf = tokenizers.pre_tokenizers.Split(tokenizers.Regex(word_run_pattern(pattern)), "isolated")
    assert [p for p, _ in hf.pre_tokenize_str(text)] == expected


# ---------------------------------------------------------------------------------------------
# Hugging Face tokenizers reads it and gives the same ids

PROSE = ("By the way, the cat sat on the mat. By the way, the dog sat on the log!\n"
         "In 2024 the cat sat on the mat again... By the way, it was a good mat.\n") * 6


@pytest.mark.parametrize("pattern", [GPT4_SPLIT_PATTERN, GPT2_SPLIT_PATTERN, GPT4O_SPLIT_PATTERN])
def test_its_tokenizer_json_gives_the_same_ids_in_hf_tokenizers(tmp_path, pattern):
    tok = train_boundless(PROSE, 400, pattern=pattern)
    assert tok.superword_ids(), "the text should make superwords (' the cat', 'By the way')"
    path = tmp_path / "tokenizer.json"
    path.write_text(to_hf_json(tok), encoding="utf-8")
    hf = tokenizers.Tokenizer.from_file(str(path))
    for text in [PROSE, "By the way, the mat sat on the cat.\n\n12345 !!? ok", "é😄 by the way"]:
        ids = tok.encode(text)
        assert hf.encode(text).ids == ids
        assert len(ids) < len(text.encode())
        assert hf.decode(ids) == text


_SHARED: list = []


@settings(max_examples=40, deadline=None)
@given(text=HF_TEXTS)
def test_hf_tokenizers_agrees_on_random_texts(tmp_path_factory, text):
    if not _SHARED:
        _SHARED.append(train_boundless(PROSE + " the of by way é😄 12 345 , !! .\n\t don't", 380))
    tok = _SHARED[0]
    path = tmp_path_factory.mktemp("hf") / "tokenizer.json"
    path.write_text(to_hf_json(tok), encoding="utf-8")
    assert tokenizers.Tokenizer.from_file(str(path)).encode(text).ids == tok.encode(text)


@pytest.mark.parametrize("pattern", [GPT4_SPLIT_PATTERN, GPT2_SPLIT_PATTERN, GPT4O_SPLIT_PATTERN])
def test_tiktoken_and_the_other_formats_hold_it_with_the_same_ids(tmp_path, pattern):
    import tiktoken

    import bpe_core
    from bpe_core.formats import tiktoken_encoding

    tok = train_boundless(PROSE + " Don't! the dog's x\u0301y", 400, pattern=pattern)
    enc = tiktoken.Encoding(**tiktoken_encoding(tok))
    for text in [PROSE, "By the way, 12345!! ok\n\n  x é😄", "the cat's mat, don't\r\n x\u0301y"]:
        assert enc.encode(text) == tok.encode(text)
    tok.save(str(tmp_path / "s"))
    tok.save_tiktoken(str(tmp_path / "s.tiktoken"))
    tok.save_gpt2(str(tmp_path / "vocab.json"), str(tmp_path / "merges.txt"))
    for name in ("s.model", "s.tiktoken", "vocab.json"):
        loaded = bpe_core.load(str(tmp_path / name))
        assert loaded.encode(PROSE) == tok.encode(PROSE)


# ---------------------------------------------------------------------------------------------
# From a corpus on disk: the same merges with 1 and 2 workers


def test_corpus_gives_the_merges_of_the_joined_text_with_one_and_two_workers(tmp_path):
    docs = [PROSE, "The end. By the way, 12 cats!!\n", "Ωμέγα by the way, кириллица.\r\n"] * 3
    paths = []
    for k, doc in enumerate(docs):
        path = tmp_path / f"doc{k}.txt"
        path.write_bytes(doc.encode("utf-8"))
        paths.append(str(path))
    expected = train_boundless("".join(docs), 420)
    assert expected.superword_ids()
    for workers in (1, 2):
        tok = train_boundless_corpus(paths, 420, workers=workers, block_bytes=200)
        assert list(tok.merges.items()) == list(expected.merges.items())
        assert tok.transition == expected.transition
    from_texts = train_boundless_corpus(iter(docs), 420, workers=1)
    assert list(from_texts.merges.items()) == list(expected.merges.items())


@settings(max_examples=30, deadline=None)
@given(docs=st.lists(TEXTS, min_size=1, max_size=5), block=st.integers(1, 64))
def test_corpus_blocks_cut_anywhere_give_the_merges_of_the_joined_text(docs, block):
    # tiny blocks put block edges everywhere the patterns' proven rules allow (beside line
    # breaks, which no word run holds): the pieces, the runs and so the merges stay the same
    text = "".join(docs)
    assume(text.strip())  # an empty corpus is refused (CorpusError), as the classical trainer's
    tok = train_boundless_corpus(iter(docs), 330, workers=1, block_bytes=block)
    assert list(tok.merges.items()) == list(train_boundless(text, 330).merges.items())


HOSTILE = ["a", "Z", "é", "e\u0301", "\u0301", "中", "7", "12", " ", "  ", "\t", "\n", "\r\n", "\r",
           ".", "/", "'", "'s", "'ll", "😀", "\u00a0", "(", "x'", "don't"]


@settings(max_examples=300, deadline=None)
@given(parts=st.lists(st.sampled_from(HOSTILE), min_size=2, max_size=30), pattern=PATTERNS)
def test_every_cut_the_corpus_reader_may_make_keeps_the_word_runs(parts, pattern):
    # split.proven_cuts gives a word-run pattern its base pattern's rule (beside line breaks)
    from bpe_core.split import proven_cuts

    runs = word_run_pattern(pattern)
    text = "".join(parts)
    for m in proven_cuts(runs).finditer(text):
        c = m.start()
        assert regex.findall(runs, text[:c]) + regex.findall(runs, text[c:]) == regex.findall(
            runs, text), (text, c)


@pytest.mark.parametrize("stop_at", [3, 200, 287])
def test_progress_counts_each_phase_and_false_stops_with_a_working_tokenizer(stop_at):
    from pydoc_data.topics import topics

    text = "\n\n".join(v for _, v in sorted(topics.items()))[:6000]  # 144 merges in words
    seen: list = []

    def progress(done, total, record):
        seen.append((done, total))
        return sum(isinstance(d, int) for d, _ in seen) < stop_at

    full = train_boundless(text, 400)
    assert len(full.merges) == 144 and full.superword_ids()
    tok = train_boundless(text, 400, progress=progress,
                          on_stage=lambda words, total: seen.append((words, total)))
    # phase one's merges 1 to 144 of 144, then phase two's taken ones, from 1 again
    expected = [("phase one", 144), *((d, 144) for d in range(1, min(stop_at, 144) + 1))]
    if stop_at > 144:
        expected += [("phase two", 144), *((d, 144) for d in range(1, stop_at - 144 + 1))]
    assert seen == expected
    assert tok.stop_reason.startswith("stopped by the progress callback")
    assert len(tok.merges) < len(full.merges)
    assert tok.decode(tok.encode(text)) == text
    if stop_at > 144:  # stopped in phase two after stop_at - 144 merges: the full run's first
        assert len(tok.merges) == stop_at - 144
        k = tok.transition
        assert [tok.vocab[i] for i in range(256, 256 + k)] == [
            full.vocab[i] for i in range(256, 256 + k)]
        supers = [tok.vocab[i] for i in tok.superword_ids()]
        assert supers == [full.vocab[i] for i in full.superword_ids()][:len(supers)]
