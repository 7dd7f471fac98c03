"""Where the corpus reader cuts blocks: only where the split of the whole text provably stays the
same (issue 32). Any pattern gives ``train(text)``'s merges, or a refusal naming the fix.

- Patterns that look further than any fixed window (``(?s).{1,4}`` counts characters from the
  start, ``(?:\\S+\\s*){1,3}`` groups words in threes) are cut only after special tokens.
- The built-in patterns are cut beside line breaks by the rules of ``split.proven_cuts``;
  a property test checks every place a rule allows on hostile text against the whole split.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from naive import chunks_of
from support import pattern_of
from test_corpus import DOCS, EOT, merges_and_counts, reference_table, write_files

import bpe_core.corpus
from bpe_core import RegexTokenizer
from bpe_core.corpus import CorpusError, count_pieces, file_blocks, read_block
from bpe_core.split import proven_cuts
from bpe_core.text import clean_text

FAR_LOOKING = [r"(?s).{1,4}", r"(?:\S+\s*){1,3}"]


def corpus(with_specials: bool) -> list[str]:
    """About 5 KB in three files: documents (with the special token between them, or not)."""
    sep = EOT if with_specials else ""
    docs = [d.replace("\n", f" {k}\n") for k, d in enumerate(DOCS * 12)]
    return [sep.join(docs[:20]) + sep, sep.join(docs[20:40]) + sep, sep.join(docs[40:])]


@pytest.mark.parametrize("pattern", FAR_LOOKING)
@pytest.mark.parametrize("with_specials", [True, False])
def test_patterns_that_look_far_give_the_merges_of_train(tmp_path, pattern, with_specials):
    texts = corpus(with_specials)
    paths = write_files(tmp_path, texts)
    specials = [EOT] if with_specials else None
    whole = RegexTokenizer(pattern)
    whole.train("".join(texts), 256 + 300, special_tokens=specials)
    for block_bytes in (4096, 40, 1):
        for source in (paths, iter(texts)):
            tok = RegexTokenizer(pattern)
            result = tok.train_corpus(source, 256 + 300, special_tokens=specials, workers=1,
                                      block_bytes=block_bytes)
            assert merges_and_counts(tok) == merges_and_counts(whole), (block_bytes, source)
            if with_specials:  # cut right after the special tokens (59), and only there
                assert result.blocks > 40 if block_bytes < 100 else result.blocks == 2
            else:
                assert result.blocks == 1


def test_cuts_of_a_far_looking_pattern_fall_right_after_special_tokens(tmp_path):
    texts = corpus(True)
    cut = file_blocks(write_files(tmp_path, texts), pattern=FAR_LOOKING[0],
                      special_tokens=[EOT], block_bytes=40)
    blocks = [read_block(b)[0] for b in cut.blocks]
    assert "".join(blocks) == "".join(texts) and len(blocks) > 10
    assert all(b.endswith(EOT) for b in blocks[:-1])


def test_a_corpus_that_cannot_be_cut_is_refused_past_the_block_bound(tmp_path, monkeypatch):
    monkeypatch.setattr(bpe_core.corpus, "MAX_BLOCK_BYTES", 2000)
    texts = corpus(False)
    paths = write_files(tmp_path, texts)
    for source in (paths, iter(texts)):
        with pytest.raises(CorpusError) as err:
            count_pieces(source, pattern=FAR_LOOKING[1], workers=1, block_bytes=100)
        message = str(err.value)
        assert "more than 2,000" in message and "no place to cut" in message
        assert "not one whose cuts bpe_core can prove harmless" in message
        assert "special token" in message and "built-in pattern" in message
    # with special tokens between the documents, the same corpus is read
    with_specials = write_files(tmp_path, corpus(True))
    counted = count_pieces(with_specials, pattern=FAR_LOOKING[1], special_tokens=[EOT],
                           workers=1, block_bytes=100)
    assert counted.blocks > 10


def test_special_tokens_that_can_overlap_are_not_cut_after(tmp_path):
    """With "xyx" and "yxy", where the matches fall depends on where a scan starts ("xyxyx"),
    so the reader does not cut after them; the merges are train's."""
    specials = ["xyx", "yxy"]
    texts = ["ab xyxyxyx cd\n" * 40, "yxyx ef xyxy\n" * 40]
    paths = write_files(tmp_path, texts)
    whole = RegexTokenizer(pattern_of("gpt4"))
    whole.train("".join(texts), 300, special_tokens=specials)
    tok = RegexTokenizer(pattern_of("gpt4"))
    tok.train_corpus(paths, 300, special_tokens=specials, workers=1, block_bytes=3)
    assert merges_and_counts(tok) == merges_and_counts(whole)


# -- the proven rules of the built-in patterns ----------------------------------------------------

HOSTILE = ["a", "Z", "é", "e\u0301", "\u0301", "中", "7", "12", " ", "  ", "\t", "\n", "\r\n", "\r",
           ".", "/", "'", "'s", "'ll", "😀", "\u00a0", "\u2028", "\ufffd"]


def whole_split_kept(pattern: str, text: str, c: int) -> bool:
    return chunks_of(text[:c], pattern) + chunks_of(text[c:], pattern) == chunks_of(text, pattern)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(parts=st.lists(st.sampled_from(HOSTILE), min_size=2, max_size=30),
       kind=st.sampled_from(["gpt2", "gpt4", "gpt4o"]))
def test_every_cut_a_rule_allows_keeps_the_whole_split(parts, kind):
    text = "".join(parts)
    for m in proven_cuts(pattern_of(kind)).finditer(text):
        assert 0 < m.start() < len(text)
        assert whole_split_kept(pattern_of(kind), text, m.start()), (text, m.start())


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(parts=st.lists(st.lists(st.sampled_from([*HOSTILE, EOT]), max_size=40).map("".join),
                      min_size=1, max_size=3),
       kind=st.sampled_from(["gpt2", "gpt4", "gpt4o"]), block_bytes=st.integers(1, 30))
def test_hostile_text_in_tiny_blocks_gives_the_whole_texts_table(tmp_path_factory, parts, kind,
                                                                  block_bytes):
    text = "".join(parts)
    if not text:
        return
    paths = write_files(tmp_path_factory.mktemp("c"), parts)
    for specials in ([], [EOT]):
        expected = reference_table(text, pattern_of(kind), specials)
        for source in (paths, iter(parts)):
            counted = count_pieces(source, pattern=pattern_of(kind), special_tokens=specials,
                                   workers=1, block_bytes=block_bytes)
            assert list(counted.counts.items()) == expected


@pytest.mark.parametrize(("kind", "text", "c"), [
    ("gpt2", "a\n\nb", 3),        # after a line break: "\n\n" at the end is one piece ($)
    ("gpt2", "x \r\ny", 2),       # before a line break after a space
    ("gpt4", "x.\ny", 2),         # before a line break after punctuation: ".\n" is one piece
    ("gpt4o", "x.\n/y", 3),       # after it where a "/" follows: ".\n/" is one piece
    ("gpt4o", "x\n \ny", 2),      # after a line break followed by spaces: "\n \n" is one piece
])
def test_the_rules_leave_out_the_places_where_a_cut_changes_the_split(kind, text, c):
    assert not whole_split_kept(pattern_of(kind), text, c)  # the place is a real trap
    assert c not in [m.start() for m in proven_cuts(pattern_of(kind)).finditer(text)]


@pytest.mark.parametrize("kind", ["gpt2", "gpt4", "gpt4o"])
def test_the_rules_cut_prose_at_every_line(kind):
    """Lines ending in a word or in a full stop: every one is a place to cut, so a corpus of
    ordinary text is cut into blocks of about block_bytes."""
    lines = [f"Line {k} ends with a word" if k % 2 else f"Line {k} ends with a stop." for k in range(50)]
    text = "\n".join(lines) + "\n"
    assert len(list(proven_cuts(pattern_of(kind)).finditer(text))) == len(lines)


@pytest.mark.parametrize("kind", ["gpt2", "gpt4", "gpt4o"])
def test_a_surrogate_pair_split_over_an_iterators_strings_is_not_cut_after(kind):
    """"a\\ud835" + "\\udc00..." is cleaned into one letter, 𝐀, after the cut is chosen: a rule
    must not take the lone surrogate for punctuation (GPT-4 cut "𝐀\\n\\n | \\n" apart)."""
    texts = ["a\ud835", "\udc00\n\n \nb\n"] * 300
    expected = reference_table(clean_text("".join(texts)), pattern_of(kind), [])
    for block_bytes in (1, 5, 50, 333):
        counted = count_pieces(iter(texts), pattern=pattern_of(kind), workers=1,
                               block_bytes=block_bytes)
        assert list(counted.counts.items()) == expected, block_bytes


def test_other_patterns_have_no_rule():
    assert all(proven_cuts(p) is None for p in [*FAR_LOOKING, r"\w+|\s+", ""])
