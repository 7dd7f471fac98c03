"""SuperBPE (bpe_core/superbpe.py) against its definition: known answers worked by hand, a plain
reference written here (the seeds' loop in two stages) on random texts, Hugging Face
``tokenizers`` reading its tokenizer.json, and the corpus trainer with 1 and 2 workers.

The plain reference: stage one is the seeds' naive loop on the split pattern's pieces for
``transition`` merges; stage two cuts the text with the paper's stage-two split, encodes each
piece with stage one's merges in merge order, and goes on with the same naive loop. Under the
authors' rules (the default) the text is cut into lines first (each keeps its line break, as a
file read line by line does), and a pair whose token holds ": " or more than 4 words (parts
between spaces) is never merged, as the authors' fork of ``tokenizers`` skips it.
"""

from __future__ import annotations

import pytest
import regex
import tokenizers
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from naive import best_pair, chunks_of, get_stats, merge

from bpe_core import GPT2_SPLIT_PATTERN, GPT4_SPLIT_PATTERN
from bpe_core.formats import to_hf_json
from bpe_core.superbpe import (
    STAGE_TWO_ISOLATED,
    STAGE_TWO_LINES_PATTERN,
    STAGE_TWO_PATTERN,
    is_superword,
    train_superbpe,
    train_superbpe_corpus,
)


def isolated_pieces(text: str) -> list[str]:
    """The paper's stage-two split, written plainly: matches of the isolated pattern, and the
    text between them, each a piece."""
    out, end = [], 0
    for m in regex.finditer(STAGE_TWO_ISOLATED, text):
        if m.start() > end:
            out.append(text[end:m.start()])
        out.append(m.group())
        end = m.end()
    if end < len(text):
        out.append(text[end:])
    return out


def authors_may_make(token: bytes) -> bool:
    """The authors' trainer skips a token with ":" then a space ("Ġ" after ":" in its byte-level
    spelling), or with more than 4 non-empty parts between spaces."""
    return b": " not in token and len([w for w in token.split(b" ") if w]) <= 4


def naive_loop(ids: list[list[int]], merges: dict, vocab: dict, until: int, tie_rule: str,
               allowed=None):
    """The seeds' loop on ``ids`` (one list per piece) until ``until`` ids exist: new merges
    are added to ``merges`` and ``vocab``; returns the pieces' ids. ``allowed(token)``: the
    pairs it refuses are never merged."""
    for idx in range(256 + len(merges), until):
        stats: dict = {}
        for chunk in ids:
            get_stats(chunk, stats)
        if allowed is not None:
            stats = {p: c for p, c in stats.items() if allowed(vocab[p[0]] + vocab[p[1]])}
        if not stats:
            break
        pair = best_pair(stats, vocab, tie_rule)
        ids = [merge(chunk, pair, idx) for chunk in ids]
        merges[pair] = idx
        vocab[idx] = vocab[pair[0]] + vocab[pair[1]]
    return ids


def naive_superbpe(text: str, vocab_size: int, transition: int, pattern: str = GPT4_SPLIT_PATTERN,
                   tie_rule: str = "seen", specials: tuple = (), rules: str = "authors"):
    """Merges of the plain two-stage loop, in order: {pair: id}; the text cut at ``specials``
    first (and they count in ``vocab_size``); ``rules`` "authors" or "open"."""
    merges: dict = {}
    vocab = {i: bytes([i]) for i in range(256)}
    parts = [p for p in regex.split("|".join(map(regex.escape, specials)), text) if p] \
        if specials else [text]
    vocab_size -= len(specials)
    naive_loop([list(p.encode("utf-8")) for part in parts for p in chunks_of(part, pattern)],
               merges, vocab, 256 + transition, tie_rule)
    if rules == "authors":  # a file read line by line: each line ends after its line break
        parts = [line for part in parts for line in regex.split(r"(?<=\n)", part) if line]
    ids = [list(piece.encode("utf-8")) for part in parts for piece in isolated_pieces(part)]
    for pair, idx in merges.items():  # stage one's merges, in order, on stage two's pieces
        ids = [merge(chunk, pair, idx) for chunk in ids]
    naive_loop(ids, merges, vocab, vocab_size, tie_rule,
               authors_may_make if rules == "authors" else None)
    return merges


# ---------------------------------------------------------------------------------------------
# Known answers worked by hand


def test_two_merges_worked_by_hand_across_a_space():
    # "a b a b", GPT-4 split: "a", " b", " a", " b". Stage one (1 merge): (" ", "b") occurs
    # twice -> 256 " b". Stage two: one piece "a b a b" = a, " b", " ", a, " b".
    # (a, " b") occurs twice -> 257 "a b"; then 257, " ", 257: (257, " ") and (" ", 257) once
    # each, the first to occur wins -> 258 "a b ".
    tok = train_superbpe("a b a b", 259, transition=1)
    assert [tok.vocab[i] for i in range(256, 259)] == [b" b", b"a b", b"a b "]
    assert tok.transition == 1
    assert tok.encode("a b a b") == [258, 257]
    assert tok.superword_ids() == [257, 258]


def test_stage_two_stops_at_runs_of_punctuation_and_at_numbers():
    # Stage two's pieces: "x, y" | "!!" | " x, y" — the comma and space join, "!!" stays apart.
    assert isolated_pieces("x, y!! x, y") == ["x, y", "!!", " x, y"]
    tok = train_superbpe("x, y!! x, y", 300, transition=0)
    tokens = {tok.vocab[i] for i in tok.merges.values()}
    assert b"x, y" in tokens and not any(b"!" in t and len(t.strip(b"!")) for t in tokens)
    assert not any(t.isdigit() and len(t) > 3 for t in {tok.vocab[i] for i in tok.merges.values()})


def test_stage_one_is_ordinary_bpe_and_stage_two_goes_on_when_it_runs_out():
    text = "the cat sat on the mat, the cat ate the rat"
    from bpe_core import RegexTokenizer

    plain = RegexTokenizer()
    plain.train(text, 270)
    tok = train_superbpe(text, 270, transition=14)
    assert list(tok.merges.items()) == list(plain.merges.items())
    assert tok.superword_ids() == []
    # Inside words this text has 16 merges; asked for 24 in stage one, stage two makes the rest.
    plain.train(text, 300)
    assert len(plain.merges) == 16
    tok = train_superbpe(text, 300, transition=24)
    assert tok.transition == 16 and len(tok.merges) > 16
    assert list(tok.merges.items())[:16] == list(plain.merges.items())
    assert tok.superword_ids()


def test_superword_marks_tokens_that_bridge_whitespace():
    assert [is_superword(t) for t in (b" the", b" of the", b"the\n", b"\n\n", b"  ", b".\n",
                                      "é à".encode(), b"x, y")] == [
        False, True, True, False, False, False, True, True]


def test_a_transition_past_the_vocabulary_is_refused_by_name():
    with pytest.raises(ValueError, match="transition 100 .* at most 44"):
        train_superbpe("abc", 300, transition=100)


# ---------------------------------------------------------------------------------------------
# The plain reference on random texts

WORDS = st.sampled_from(["the", "of", "by", "way", "a", "é", "😄", "12", "345", ",", "!!", ".",
                         " ", "  ", "\n", "\t"])
TEXTS = st.lists(WORDS, max_size=40).map(lambda ws: " ".join(ws)) | st.text(max_size=80)
# Hugging Face's regex engine has older Unicode tables: characters assigned lately (U+323B0) are
# letters to Python's ``regex`` and not to it, whatever the pattern (GPT-4's too). Its texts
# keep to long-assigned characters.
OLD_CHARS = st.characters(max_codepoint=0x2FFF, exclude_categories=("Cs", "Cn", "Co"))
HF_TEXTS = st.lists(WORDS, max_size=40).map(lambda ws: " ".join(ws)) | st.text(OLD_CHARS, max_size=80)


@settings(max_examples=80, deadline=None)
@given(text=TEXTS, extra=st.integers(0, 60), transition=st.integers(0, 40),
       tie_rule=st.sampled_from(["seen", "ids", "bytes"]),
       specials=st.sampled_from([(), ("<|e|>",), ("the", ", ")]),
       rules=st.sampled_from(["authors", "open"]))
def test_matches_the_plain_two_stage_loop(text, extra, transition, tie_rule, specials, rules):
    vocab_size = 256 + transition + extra + len(specials)
    tok = train_superbpe(text, vocab_size, transition, tie_rule=tie_rule,
                         special_tokens=list(specials), stage_two=rules)
    expected = naive_superbpe(text, vocab_size, transition, tie_rule=tie_rule, specials=specials,
                              rules=rules)
    assert list(tok.merges.items()) == list(expected.items())


def test_the_authors_rules_by_default_no_line_break_inside_no_colon_space_at_most_4_words():
    # A text whose open stage two would make all three: the same two lines many times, with
    # a colon and long runs of words. Known answer: the authors' rules, written in the test.
    text = ("Note: the cat sat on the mat by the door\nNote: the dog sat on the log by the fire\n"
            * 12)
    tok = train_superbpe(text, 256 + 200, transition=30)
    open_ = train_superbpe(text, 256 + 200, transition=30, stage_two="open")
    assert tok.stage_two == "authors" and open_.stage_two == "open"
    two = [tok.vocab[i] for i in tok.merges.values() if tok.is_stage_two(i)]
    two_open = [open_.vocab[i] for i in open_.merges.values() if open_.is_stage_two(i)]
    assert two and two_open
    assert sum(b"\n" in t[:-1] for t in two) == 0
    assert sum(b": " in t for t in two) == 0
    assert sum(len([w for w in t.split(b" ") if w]) > 4 for t in two) == 0
    assert any(b"\n" in t[:-1] for t in two_open) and any(b": " in t for t in two_open)
    assert any(len([w for w in t.split(b" ") if w]) > 4 for t in two_open)
    expected = naive_superbpe(text, 256 + 200, 30)
    assert list(tok.merges.items()) == list(expected.items())


def test_unknown_stage_two_rules_are_refused_by_name():
    with pytest.raises(ValueError, match="stage_two must be one of 'authors', 'open'"):
        train_superbpe("a b", 260, 1, stage_two="paper")


@settings(max_examples=60, deadline=None)
@given(text=HF_TEXTS)
def test_stage_two_pattern_cuts_as_the_papers_isolated_split(text):
    assert regex.findall(STAGE_TWO_PATTERN, text) == isolated_pieces(text)
    lines = [line for line in regex.split(r"(?<=\n)", text) if line]
    assert regex.findall(STAGE_TWO_LINES_PATTERN, text) == [
        piece for line in lines for piece in isolated_pieces(line)]
    hf = tokenizers.pre_tokenizers.Split(tokenizers.Regex(STAGE_TWO_ISOLATED), "isolated")
    assert [p for p, _ in hf.pre_tokenize_str(text)] == isolated_pieces(text)


@settings(max_examples=200, deadline=None)
@given(parts=st.lists(st.sampled_from(["a", "é", "7", "12", "345", " ", "  ", "\t", "\n", "\r\n",
                                       "\r", ".", "..", "/", "!!", ": ", "\u2028", "😀"]),
                      min_size=2, max_size=30))
def test_every_cut_after_a_line_break_keeps_the_lines_split(parts):
    # what lets the corpus trainer count the authors' stage two in blocks (split.proven_cuts)
    from bpe_core.split import proven_cuts

    text = "".join(parts)
    cuts = [m.start() for m in proven_cuts(STAGE_TWO_LINES_PATTERN).finditer(text)]
    assert cuts == [k + 1 for k, c in enumerate(text[:-1]) if c == "\n"]
    whole = regex.findall(STAGE_TWO_LINES_PATTERN, text)
    for c in cuts:
        assert (regex.findall(STAGE_TWO_LINES_PATTERN, text[:c])
                + regex.findall(STAGE_TWO_LINES_PATTERN, text[c:])) == whole


# ---------------------------------------------------------------------------------------------
# Hugging Face tokenizers reads it and gives the same ids

PROSE = ("By the way, the cat sat on the mat. By the way, the dog sat on the log!\n"
         "In 2024 the cat sat on the mat again... By the way, it was a good mat.\n") * 6


@pytest.mark.parametrize("pattern", [GPT4_SPLIT_PATTERN, GPT2_SPLIT_PATTERN])
def test_its_tokenizer_json_gives_the_same_ids_in_hf_tokenizers(tmp_path, pattern):
    tok = train_superbpe(PROSE, 400, transition=60, pattern=pattern)
    assert tok.superword_ids(), "the text should make superwords (' the cat', 'By the way')"
    path = tmp_path / "tokenizer.json"
    path.write_text(to_hf_json(tok), encoding="utf-8")
    hf = tokenizers.Tokenizer.from_file(str(path))
    for text in [PROSE, "By the way, the mat sat on the cat.\n\n12345 !!? ok", "é😄 by the way"]:
        ids = tok.encode(text)
        assert hf.encode(text).ids == ids
        assert len(ids) < len(text.encode())
        assert hf.decode(ids) == text


@settings(max_examples=40, deadline=None)
@given(text=HF_TEXTS)
def test_hf_tokenizers_agrees_on_random_texts(tmp_path_factory, text):
    tok = _shared_tokenizer()
    path = tmp_path_factory.mktemp("hf") / "tokenizer.json"
    path.write_text(to_hf_json(tok), encoding="utf-8")
    assert tokenizers.Tokenizer.from_file(str(path)).encode(text).ids == tok.encode(text)


_SHARED: list = []


def _shared_tokenizer():
    if not _SHARED:
        _SHARED.append(train_superbpe(PROSE + " the of by way é😄 12 345 , !! .\n\t", 380, 40))
    return _SHARED[0]


# ---------------------------------------------------------------------------------------------
# From a corpus on disk: the same merges with 1 and 2 workers


def test_corpus_gives_the_merges_of_the_joined_text_with_one_and_two_workers(tmp_path):
    docs = [PROSE, "The end. By the way, 12 cats!!\n", "Ωμέγα by the way, кириллица.\r\n"] * 3
    paths = []
    for k, doc in enumerate(docs):
        path = tmp_path / f"doc{k}.txt"
        path.write_bytes(doc.encode("utf-8"))
        paths.append(str(path))
    expected = train_superbpe("".join(docs), 420, transition=50)
    for workers in (1, 2):
        tok = train_superbpe_corpus(paths, 420, 50, workers=workers, block_bytes=200)
        assert list(tok.merges.items()) == list(expected.merges.items())
        assert tok.transition == 50
    from_texts = train_superbpe_corpus(iter(docs), 420, 50, workers=1)
    assert list(from_texts.merges.items()) == list(expected.merges.items())


def test_tiktoken_and_the_other_formats_hold_it_with_the_same_ids(tmp_path):
    # Every format holds a split pattern (tiktoken's and GPT-2's in the sidecar), and stage two's
    # pattern matches the whole text, so tiktoken (which keeps only what its pattern matches)
    # cuts as the library does.
    import tiktoken

    import bpe_core
    from bpe_core.formats import tiktoken_encoding

    tok = train_superbpe(PROSE, 400, transition=60)
    enc = tiktoken.Encoding(**tiktoken_encoding(tok))
    for text in [PROSE, "By the way, 12345!! ok\n\n  x é😄"]:
        assert enc.encode(text) == tok.encode(text)
    tok.save(str(tmp_path / "s"))
    tok.save_tiktoken(str(tmp_path / "s.tiktoken"))
    tok.save_gpt2(str(tmp_path / "vocab.json"), str(tmp_path / "merges.txt"))
    for name in ("s.model", "s.tiktoken", "vocab.json"):
        loaded = bpe_core.load(str(tmp_path / name))
        assert loaded.encode(PROSE) == tok.encode(PROSE)


@settings(max_examples=30, deadline=None)
@given(docs=st.lists(TEXTS, min_size=1, max_size=5), block=st.integers(1, 64))
def test_corpus_blocks_cut_anywhere_give_the_merges_of_the_joined_text(docs, block):
    # tiny blocks put block edges everywhere stage two's pieces allow (beside numbers and runs
    # of punctuation after a line break): the pieces, and so the merges, stay the same
    text = "".join(docs)
    assume(text.strip())  # an empty corpus is refused (CorpusError), as the classical trainer's
    tok = train_superbpe_corpus(iter(docs), 330, 30, workers=1, block_bytes=block)
    assert list(tok.merges.items()) == list(train_superbpe(text, 330, 30).merges.items())


# ---------------------------------------------------------------------------------------------
# Special tokens: never merged across in either stage, kept with their ids in every export

EOT = "<|endoftext|>"


def test_special_tokens_cut_both_stages_and_take_the_ids_after_the_merges():
    # "a b" twice, with <|endoftext|> between: stage one (1 merge) " b"; stage two's pieces are
    # "a b" and "a b" (cut at the special token), so "a b" is merged (twice) and nothing can
    # join the special token's bytes or cross it ("a b<|" or "b a").
    text = f"a b{EOT}a b{EOT}"
    tok = train_superbpe(text, 256 + 3 + 1, transition=1, special_tokens=[EOT])
    assert [tok.vocab[i] for i in tok.merges.values()] == [b" b", b"a b"]
    assert tok.stop_reason and "stage two" in tok.stop_reason  # nothing else to merge
    assert tok.special_tokens == {EOT: 258}
    assert tok.encode(text, allowed_special="all") == [257, 258, 257, 258]
    # Without cutting, stage two merges across it: "a b<|endoftext|>a b" is one piece.
    uncut = train_superbpe(text, 256 + 40, transition=1)
    assert any(b"<|" in uncut.vocab[i] for i in uncut.merges.values())
    with pytest.raises(ValueError, match="transition 40 .* at most 38 .* special tokens"):
        train_superbpe(text, 256 + 40, transition=40, special_tokens=[EOT, "<s>"])


SPECIAL_PROSE = PROSE.replace("\n", EOT, 3)


def test_with_special_tokens_it_matches_the_plain_two_stage_loop_on_the_parts():
    tok = train_superbpe(SPECIAL_PROSE, 256 + 120 + 1, 50, special_tokens=[EOT])
    expected = naive_superbpe(SPECIAL_PROSE, 256 + 120 + 1, 50, specials=(EOT,))
    assert list(tok.merges.items()) == list(expected.items())
    assert tok.special_tokens == {EOT: 256 + len(tok.merges)}  # (the text runs out first)


def test_a_superbpe_tokenizer_json_with_a_special_token_gives_the_same_ids_in_hf(tmp_path):
    tok = train_superbpe(SPECIAL_PROSE, 256 + 60 + 2, 30, special_tokens=[EOT, "<|pad|>"])
    assert tok.superword_ids() and tok.num_merges == 60
    assert tok.special_tokens == {EOT: 316, "<|pad|>": 317}
    path = tmp_path / "tokenizer.json"
    path.write_text(to_hf_json(tok), encoding="utf-8")
    hf = tokenizers.Tokenizer.from_file(str(path))
    assert hf.token_to_id(EOT) == 316 and hf.token_to_id("<|pad|>") == 317
    for text in [SPECIAL_PROSE, f"By the way,{EOT} the cat<|pad|>{EOT}{EOT}sat", EOT]:
        ids = tok.encode(text, allowed_special="all")
        assert hf.encode(text).ids == ids
        assert hf.decode(ids, skip_special_tokens=False) == text


def test_tiktoken_and_the_other_formats_keep_the_special_tokens_with_their_ids(tmp_path):
    import tiktoken

    import bpe_core
    from bpe_core.formats import tiktoken_encoding

    tok = train_superbpe(SPECIAL_PROSE, 256 + 60 + 1, 30, special_tokens=[EOT])
    text = f"By the way, the cat{EOT}sat on the mat.{EOT}"
    expected = tok.encode(text, allowed_special="all")
    assert expected.count(316) == 2
    enc = tiktoken.Encoding(**tiktoken_encoding(tok))
    assert enc.encode(text, allowed_special="all") == expected
    tok.save(str(tmp_path / "s"))
    tok.save_tiktoken(str(tmp_path / "s.tiktoken"))
    tok.save_gpt2(str(tmp_path / "vocab.json"), str(tmp_path / "merges.txt"))
    for name in ("s.model", "s.tiktoken", "vocab.json"):
        loaded = bpe_core.load(str(tmp_path / name))
        assert loaded.special_tokens == {EOT: 316}, name
        assert loaded.encode(text, allowed_special="all") == expected, name


def test_corpus_with_special_tokens_gives_the_merges_of_the_joined_text(tmp_path):
    docs = [PROSE + EOT, "The end. By the way, 12 cats!!" + EOT, "Ωμέγα by the way" + EOT] * 3
    paths = []
    for k, doc in enumerate(docs):
        path = tmp_path / f"doc{k}.txt"
        path.write_bytes(doc.encode("utf-8"))
        paths.append(str(path))
    expected = train_superbpe("".join(docs), 256 + 80 + 1, 40, special_tokens=[EOT])
    assert expected.num_merges == 80
    for workers in (1, 2):
        tok = train_superbpe_corpus(paths, 256 + 80 + 1, 40, workers=workers, block_bytes=200,
                                    special_tokens=[EOT])
        assert list(tok.merges.items()) == list(expected.merges.items())
        assert tok.special_tokens == expected.special_tokens == {EOT: 336}


@pytest.mark.parametrize("stop_at", [0, 5, 30, 45])
def test_progress_counts_each_stage_and_says_which(stop_at):
    # 40 merges, transition 25: stage one's merges 1 to 25 of 25, then stage two's 1 to 15 of
    # 15, each stage announced first; False at a merge stops there (0: never)
    seen: list = []

    def progress(done, total, record):
        seen.append((done, total))
        return sum(isinstance(d, int) for d, _ in seen) != stop_at

    full = train_superbpe(PROSE, 256 + 40, 25)
    assert full.num_merges == 40
    tok = train_superbpe(PROSE, 256 + 40, 25, progress=progress,
                         on_stage=lambda words, total: seen.append((words, total)))
    made = min(stop_at or 40, 40)
    expected = [("stage one", 25), *((d, 25) for d in range(1, min(made, 25) + 1))]
    if made > 25:
        expected += [("stage two", 15), *((d, 15) for d in range(1, made - 25 + 1))]
    assert seen == expected
    assert list(tok.merges.items()) == list(full.merges.items())[:made]
    assert (tok.stop_reason is not None) == (0 < stop_at < 40)
