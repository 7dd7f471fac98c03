"""Check your BPE (bpe_lab/check.py): a learner's output read safely, compared with the reference,
the first difference explained, and the mistake named.

The learners are written plainly in tests/learners.py (``learner_train``), the way a student writes
BPE: count every pair of every distinct chunk, take the most frequent by the rule's key, merge,
again. Its switches put in each known mistake; none of it comes from bpe_lab.check, whose own
trainer (``replay_training``) is what the diagnosis replays.
"""

from __future__ import annotations

import builtins
import os
import pickle
import subprocess
from collections import Counter

import pytest
import regex
from learners import learner_train, merge_ids
from support import CORPORA

from bpe_core import (
    GPT2_SPLIT_PATTERN,
    GPT4_SPLIT_PATTERN,
    GPT4O_SPLIT_PATTERN,
    BasicTokenizer,
    RegexTokenizer,
)
from bpe_core.formats import bytes_to_unicode
from bpe_core.training import TIE_RULES
from bpe_lab import check as check_module
from bpe_lab.check import (
    MAX_CHECK_CHARS,
    MAX_INPUT_CHARS,
    MAX_MERGES,
    MAX_PYTHON_CHARS,
    MISTAKES,
    WINDOW,
    Setup,
    check_merges,
    compare_merges,
    diagnose,
    diagnose_encoding,
    encode_with_mistake,
    explain_difference,
    merge_pairs,
    read_merges,
    replay,
    replay_training,
    rule_name,
    training_chunks,
    zoo_demo,
)

EOT = "<|endoftext|>"
PROSE = CORPORA["prose"][:4_000]
CODE = CORPORA["code"][:4_000]
SPECIALS_TEXT = EOT.join(CORPORA["prose"][i : i + 300] for i in range(0, 4_500, 300))
RUNS = " ".join(["aaaa", "aaa", "baaab", "aaaaaa", "ab", "xaaay", "aaaaa", "bab"] * 12
                + ["    indented", "  x", "======", "--", "aaa"] * 6)
GPT2, GPT4, GPT4O = GPT2_SPLIT_PATTERN, GPT4_SPLIT_PATTERN, GPT4O_SPLIT_PATTERN
CAMEL = " ".join(["JSONDecoder", "HTTPServer", "getValue", "setValue", "ValueError", "KeyError",
                  "parseInt", "toString", "XMLHttpRequest", "isNaN"] * 8)
MERGES = 80
VOCAB = 256 + MERGES


def report_for(mine, text, pattern, vocab_size=VOCAB, specials=(), tie_rule="seen"):
    return check_merges(mine, text, pattern=pattern, vocab_size=vocab_size,
                        special_tokens=list(specials), tie_rule=tie_rule)


def assert_diagnosed(report, key):
    """The learner's merges differ, and the first diagnosis is ``key``, explaining all of them."""
    assert not report.comparison.matches
    assert report.diagnoses, report.summary
    top = report.diagnoses[0]
    assert top.mistake.key == key, [(d.mistake.key, d.explains) for d in report.diagnoses]
    assert top.explains_all
    assert top.explains == report.comparison.lengths[0]
    return top


# -- 1. reading ------------------------------------------------------------------------------


def test_a_minbpe_model_saved_by_the_tokenizer_reads_back(tmp_path):
    tok = BasicTokenizer()
    tok.train("aaabdaaabac", 259)  # the seeds' example: aa, aaa, aaab
    tok.register_special_tokens({EOT: 300})
    tok.save(str(tmp_path / "toy"))
    out = read_merges((tmp_path / "toy.model").read_bytes(), "toy.model")
    assert out.merges == [(b"a", b"a"), (b"aa", b"a"), (b"aaa", b"b")]
    assert out.special_tokens == [EOT]
    assert out.vocab[258] == b"aaab" and out.vocab[300] == EOT.encode()
    assert out.format == "minbpe .model"
    assert check_merges(out, "aaabdaaabac", pattern="", vocab_size=259).comparison.matches


def test_cs336_vocab_and_merges_pasted_as_python():
    text = (
        "vocab = {0: b'<|endoftext|>', 105: b'h', 102: b'e', 117: b't', 257: b'he', 258: b'the'}\n"
        "merges = [(b'h', b'e'), (b't', b'he')]\n"
    )
    out = read_merges(text)
    assert out.merges == [(b"h", b"e"), (b"t", b"he")]
    assert out.special_tokens == [EOT]
    assert out.vocab[258] == b"the"
    # what CS336's train_bpe returns, printed: (vocab, merges)
    same = read_merges("({0: b'<|endoftext|>', 257: b'he'}, [(b'h', b'e')])")
    assert same.merges == [(b"h", b"e")] and same.special_tokens == [EOT]


def test_a_merges_txt_in_gpt2_bytes_and_its_vocab_json():
    assert bytes_to_unicode()[ord(" ")] == "Ġ"
    out = read_merges("#version: 0.2\nĠ t\nh e\nĠt he\n", "merges.txt",
                      vocab='{"<|endoftext|>": 0, "Ġ": 1, "t": 2, "h": 3, "e": 4, "Ġt": 5,'
                            ' "he": 6, "Ġthe": 7}')
    assert out.merges == [(b" ", b"t"), (b"h", b"e"), (b" t", b"he")]
    assert out.special_tokens == [EOT]
    # a byte with no printable self: newline is "Ċ"
    assert read_merges("Ċ Ċ\n").merges == [(b"\n", b"\n")]


def test_id_merges_as_a_list_and_as_a_dict_in_any_order():
    expected = [(b"h", b"i"), (b"hi", b"!")]
    assert read_merges("[(104, 105), (256, 33)]").merges == expected
    assert read_merges("{(256, 33): 257, (104, 105): 256}").merges == expected  # values: order
    assert read_merges("[[104, 105], [256, 33]]").merges == expected  # as JSON
    with pytest.raises(ValueError, match="uses id 256, which is not made yet"):
        read_merges("[(256, 33), (104, 105)]")


def test_the_tokenizer_files_the_app_reads_give_their_merges_in_rank_order(tmp_path):
    tok = RegexTokenizer(GPT2_SPLIT_PATTERN)
    tok.train("the cat sat on the mat, the cat sat on the hat", 270)
    expected = merge_pairs(tok)
    # "at" occurs 6 times (cat twice, sat twice, mat, hat); then "th" and "he" 4 times each,
    # and "th" is seen first
    assert expected[:2] == [(b"a", b"t"), (b"t", b"h")]
    tok.save_hf(str(tmp_path / "tokenizer.json"))
    tok.save_tiktoken(str(tmp_path / "toy.tiktoken"))
    tok.save_gpt2(str(tmp_path / "vocab.json"), str(tmp_path / "merges.txt"))
    assert read_merges((tmp_path / "tokenizer.json").read_bytes()).merges == expected
    assert read_merges((tmp_path / "toy.tiktoken").read_bytes()).merges == expected
    assert read_merges((tmp_path / "merges.txt").read_text()).merges == expected


# -- hostile input -------------------------------------------------------------------------------


@pytest.fixture
def nothing_runs(monkeypatch, tmp_path):
    """Fail the test if reading calls eval, exec, os.system, a subprocess or unpickles."""

    def refuse(*args, **kwargs):
        raise AssertionError("the reader ran code")

    for owner, name in [(builtins, "eval"), (builtins, "exec"), (os, "system"),
                        (subprocess, "Popen"), (pickle, "loads")]:
        monkeypatch.setattr(owner, name, refuse)
    return tmp_path / "pwned"


@pytest.mark.parametrize(
    ("pasted", "message"),
    [
        ("__import__('os').system('touch {flag}')", "found a function call"),
        ("merges = __import__('os').system('touch {flag}')", "found a function call"),
        ("open('{flag}', 'w').write('x')", "found a function call"),
        ("merges = [lambda: open('{flag}', 'w')]", "found a lambda"),
        ("merges = [(f'{{open}}', b'a')]", "found an f-string"),
        ("merges = [(a, b)]", "found a name"),
        ("import os; os.system('touch {flag}')", "found an import"),
        ("[(x := 1, 2)]", "assignment expression"),
        ("this is not python {{{{", "line 1: not merges"),
    ],
)
def test_code_is_refused_and_never_run(nothing_runs, pasted, message):
    text = pasted.format(flag=nothing_runs)
    with pytest.raises(ValueError, match=regex.escape(message)):
        read_merges(text)
    assert not nothing_runs.exists()


def test_a_pickle_is_refused_without_loading_it(nothing_runs):
    with pytest.raises(ValueError, match="never does"):
        read_merges(pickle.dumps([(b"a", b"b")]))


def test_deep_nesting_is_refused_before_any_parser_sees_it(nothing_runs):
    for deep in ["[" * 100_000, "x = " + "(" * 100_000, "{" * 100_000, "[" * 11 + "]" * 11]:
        with pytest.raises(ValueError, match="nested more than 10 deep"):
            read_merges(deep)
    # brackets inside tokens are not nesting
    tokens = "merges = [(b'(', b'('), (b'((', b'(('), (b'((((', b'((((')]  # ]]]] ((((("
    assert read_merges(tokens).merges[-1] == (b"((((", b"((((")


def test_huge_input_and_a_million_merges_are_refused_with_the_numbers(nothing_runs):
    with pytest.raises(ValueError, match=f"at most {MAX_INPUT_CHARS:,}"):
        read_merges("x" * (MAX_INPUT_CHARS + 1))
    with pytest.raises(ValueError, match=f"at most {MAX_PYTHON_CHARS:,}"):
        read_merges("merges = [" + "(b'a', b'a'), " * (MAX_PYTHON_CHARS // 14 + 1) + "]")
    with pytest.raises(ValueError, match=f"about 1,000,000 merges; this tool reads at most"
                                         f" {MAX_MERGES:,}"):
        read_merges("[" + "(1,2)," * 1_000_000 + "]")


def test_wrong_types_name_the_item_and_what_was_expected():
    with pytest.raises(ValueError, match=regex.escape(
            "line 1: item 3 of merges is (b'a', 5): expected a pair of bytes")):
        read_merges("merges = [(b'a', b'b'), (b'ab', b'c'), (b'a', 5)]")
    with pytest.raises(ValueError, match="line 2: item 2 of merges .* not str"):
        read_merges("merges = [(b'a', b'b'),\n (' ', 't')]")
    with pytest.raises(ValueError, match="item 2 of vocab is .*expected id: bytes"):
        read_merges("vocab = {0: b'a', 1: 'b'}\nmerges = []")
    with pytest.raises(ValueError, match="not an id"):
        read_merges("[(-1, 2)]")
    with pytest.raises(ValueError, match=regex.escape("b'xy' is neither a single byte")):
        read_merges("merges = [(b'xy', b'z')]")
    with pytest.raises(ValueError, match="a vocab but no merges"):
        read_merges("vocab = {0: b'a'}")


# -- 2. comparing --------------------------------------------------------------------------------

A, B, C = (b"a", b"b"), (b"ab", b"c"), (b"c", b"d")


@pytest.mark.parametrize(
    ("mine", "ref", "first", "common", "summary"),
    [
        ([A, B], [A, B], None, 2, "Your merges match the reference's 2 merges."),
        ([A], [A, B, C], None, 1,
         "Your 1 merge matches the reference's first; the reference made 2 more (3 in all)."),
        ([A, B, C], [A, B], None, 2,
         "The reference's 2 merges match your first 2; you made 1 more (3 in all)."),
        ([A, C], [A, B], 2, 1,
         "Your merges match the first 1; at merge 2 you merged b'c' + b'd' and the reference"
         " merged b'ab' + b'c'."),
        ([C], [A], 1, 0, "Your merges differ from the first one; at merge 1 you merged"
                         " b'c' + b'd' and the reference merged b'a' + b'b'."),
    ],
)
def test_compare_merges_known_answers(mine, ref, first, common, summary):
    result = compare_merges(mine, ref)
    assert result.matches == (mine == ref)
    assert result.first_difference == first
    assert result.common == common
    assert result.lengths == (len(mine), len(ref))
    assert result.summary == summary
    if first is not None:
        assert (result.mine_pair, result.reference_pair) == (mine[first - 1], ref[first - 1])


def test_the_same_merges_in_another_numbering_match():
    tok = RegexTokenizer(GPT2_SPLIT_PATTERN)
    tok.train(PROSE, 256 + 40, special_tokens=[EOT])
    # CS336's numbering: the special token first, the bytes at 1..256, merges from 257
    vocab = {0: EOT.encode(), **{b + 1: bytes([b]) for b in range(256)}}
    id_of = {bytes([b]): b + 1 for b in range(256)}
    id_merges = {}
    for a, b in merge_pairs(tok):
        new = len(vocab)
        vocab[new] = a + b
        id_merges[(id_of[a], id_of[b])] = new
        id_of[a + b] = new
    out = read_merges(f"vocab = {vocab!r}\nmerges = {id_merges!r}")
    assert out.special_tokens == [EOT]
    assert compare_merges(out, tok).matches


# -- 3. the first difference explained -----------------------------------------------------------


def test_a_tie_says_which_rule_picks_which():
    # "mzab": mz, za and ab occur once each; seen picks mz, bytes za, ids ab
    report = report_for([(b"z", b"a")], "mzab", "", vocab_size=257)
    step = report.explanation
    assert step.step == 1
    assert step.mine.count == step.reference.count == 1
    assert step.reference.pair == (b"m", b"z")
    assert [t.pair for t in step.tied] == [(b"m", b"z"), (b"z", b"a"), (b"a", b"b")]
    assert step.winners == {"seen": (b"m", b"z"), "bytes": (b"z", b"a"), "ids": (b"a", b"b"),
                            # the zoo's: ab is seen last; (z, a) = (122, 97) has the greatest ids
                            "last_seen": (b"a", b"b"), "greatest_ids": (b"z", b"a")}
    assert "Your pick is the one the “greatest bytes” rule makes" in step.summary


def test_a_lower_count_and_a_pair_that_is_not_there():
    # "abaaa": aa occurs twice (overlapping), ab once
    step = report_for([(b"a", b"b")], "abaaa", "", vocab_size=257).explanation
    assert (step.mine.count, step.reference.count) == (1, 2)
    assert "your counts differ" in step.summary
    # "aaab": after aa the tokens are aa a b: a + aa is never side by side
    step = report_for([(b"a", b"a"), (b"a", b"aa")], "aaab", "", vocab_size=258).explanation
    assert step.step == 2 and step.mine.count == 0
    assert "never side by side" in step.summary
    step = report_for([(b"x", b"yz")], "aaab", "", vocab_size=257).explanation
    assert "the reference has no token b'yz'" in step.summary


def test_explain_difference_from_the_merges_or_from_a_comparison():
    mine = [(b"z", b"a")]
    direct = explain_difference("mzab", mine, pattern="", vocab_size=257)
    compared = compare_merges(mine, [(b"m", b"z")])
    assert explain_difference("mzab", compared, pattern="", vocab_size=257) == direct
    assert direct.step == 1 and direct.reference.pair == (b"m", b"z")
    assert explain_difference("mzab", [(b"m", b"z")], pattern="", vocab_size=257) is None


# -- 4. the bug zoo: each mistake diagnosed as itself ---------------------------------------------


@pytest.mark.parametrize("rule", TIE_RULES)
@pytest.mark.parametrize(
    ("text", "pattern", "specials"),
    [(PROSE, GPT4_SPLIT_PATTERN, ()), (CODE, GPT2_SPLIT_PATTERN, ()), (PROSE, "", ()),
     (SPECIALS_TEXT, GPT2_SPLIT_PATTERN, (EOT,))],
    ids=["prose", "code", "no-split", "specials"],
)
def test_a_correct_implementation_matches_for_each_tie_rule(rule, text, pattern, specials):
    mine = learner_train(text, VOCAB, pattern, specials, rule)
    report = report_for(mine, text, pattern, specials=specials, tie_rule=rule)
    assert report.comparison.matches, report.summary
    assert report.explanation is None and report.diagnoses == []
    assert len(mine) == VOCAB - 256 - len(specials)


@pytest.mark.parametrize(("ours", "theirs"),
                         [(a, b) for a in TIE_RULES for b in TIE_RULES if a != b])
@pytest.mark.parametrize("text", [PROSE, CODE], ids=["prose", "code"])
def test_another_tie_rule(ours, theirs, text):
    mine = learner_train(text, VOCAB, GPT4_SPLIT_PATTERN, tie_rule=theirs)
    report = report_for(mine, text, GPT4_SPLIT_PATTERN, tie_rule=ours)
    top = assert_diagnosed(report, "tie_rule")
    assert top.setup.tie_rule == theirs and rule_name(theirs) in top.detail
    step = report.explanation  # the first difference is a tie that the learner's rule wins
    assert step.mine.count == step.reference.count
    assert step.winners[theirs] == step.mine.pair


@pytest.mark.parametrize("text", [RUNS, CODE, PROSE], ids=["runs", "code", "prose"])
def test_overlapping_pairs_counted_once(text):
    mine = learner_train(text, VOCAB, GPT4_SPLIT_PATTERN, count_overlaps=False)
    assert_diagnosed(report_for(mine, text, GPT4_SPLIT_PATTERN), "overlap")


@pytest.mark.parametrize("text", [PROSE, CODE], ids=["prose", "code"])
@pytest.mark.parametrize("pattern", [GPT2_SPLIT_PATTERN, GPT4_SPLIT_PATTERN])
def test_pairs_counted_across_chunks(text, pattern):
    mine = learner_train(text, VOCAB, "")  # the split forgotten
    assert_diagnosed(report_for(mine, text, pattern), "no_split")


@pytest.mark.parametrize(
    ("text", "ours", "theirs"),
    [(PROSE, GPT4, GPT2), (CODE, GPT4, GPT2), (PROSE, GPT2, GPT4), (CODE, GPT2, GPT4),
     # GPT-4o cuts CamelCase words apart ("JSON", "Decoder"), which the prose and code here lack
     (CAMEL, GPT4, GPT4O), (CAMEL, GPT4O, GPT4), (PROSE, "", GPT4), (CODE, "", GPT2)],
    ids=["gpt2-for-gpt4-prose", "gpt2-for-gpt4-code", "gpt4-for-gpt2-prose", "gpt4-for-gpt2-code",
         "gpt4o-for-gpt4-camel", "gpt4-for-gpt4o-camel", "gpt4-for-none-prose",
         "gpt2-for-none-code"],
)
def test_another_split_pattern(text, ours, theirs):
    mine = learner_train(text, VOCAB, theirs)
    report = report_for(mine, text, ours)
    assert_diagnosed(report, "other_pattern")
    # on CamelCase words without digits or newlines GPT-2 and GPT-4 cut alike: both explain it
    assert theirs in [d.setup.pattern for d in report.diagnoses if d.explains_all]


@pytest.mark.parametrize("pattern", [GPT2_SPLIT_PATTERN, GPT4_SPLIT_PATTERN, ""])
def test_special_tokens_not_cut_out(pattern):
    mine = learner_train(SPECIALS_TEXT, VOCAB, pattern, (EOT,), cut_specials=False)
    report = report_for(mine, SPECIALS_TEXT, pattern, specials=(EOT,))
    assert_diagnosed(report, "specials_not_cut")
    # the symptom: a merge made of the special token's text
    assert any(b"endoftext" in a + b or b"<|" in a + b for a, b in mine)


@pytest.mark.parametrize("specials", [(EOT,), (EOT, "<|pad|>")])
def test_special_tokens_not_counted_in_the_vocab_size(specials):
    text = SPECIALS_TEXT.replace(EOT, EOT + "<|pad|>") if len(specials) == 2 else SPECIALS_TEXT
    mine = learner_train(text, VOCAB, GPT2_SPLIT_PATTERN, specials, specials_in_size=False)
    report = report_for(mine, text, GPT2_SPLIT_PATTERN, specials=specials)
    assert report.comparison.first_difference is None  # a longer list, not another one
    assert report.comparison.lengths == (MERGES, MERGES - len(specials))
    assert_diagnosed(report, "specials_not_counted")


@pytest.mark.parametrize("extra", [1, -1])
@pytest.mark.parametrize("text", [PROSE, CODE], ids=["prose", "code"])
def test_vocab_size_off_by_one(extra, text):
    mine = learner_train(text, VOCAB, GPT4_SPLIT_PATTERN, extra=extra)
    top = assert_diagnosed(report_for(mine, text, GPT4_SPLIT_PATTERN), "vocab_off_by_one")
    assert ("too many" if extra > 0 else "too few") in top.detail


@pytest.mark.parametrize("text", [PROSE, CODE], ids=["prose", "code"])
def test_chunk_counts_ignored(text):
    mine = learner_train(text, VOCAB, GPT4_SPLIT_PATTERN, use_counts=False)
    assert_diagnosed(report_for(mine, text, GPT4_SPLIT_PATTERN), "ignore_counts")


@pytest.mark.parametrize("text", [RUNS, CODE], ids=["runs", "code"])
@pytest.mark.parametrize("rule", ["seen", "bytes"])
def test_merges_applied_right_to_left(text, rule):
    mine = learner_train(text, VOCAB, GPT4_SPLIT_PATTERN, tie_rule=rule, merge_from="right")
    assert_diagnosed(report_for(mine, text, GPT4_SPLIT_PATTERN, tie_rule=rule), "right_to_left")


@pytest.mark.parametrize("text", [PROSE, CODE, RUNS], ids=["prose", "code", "runs"])
def test_merge_applied_to_the_first_occurrence_only(text):
    mine = learner_train(text, VOCAB, GPT4_SPLIT_PATTERN, merge_all=False)
    if text is RUNS:
        assert len(set(mine)) < len(mine)  # the symptom: a pair comes back
    assert_diagnosed(report_for(mine, text, GPT4_SPLIT_PATTERN), "first_only")


def test_diagnose_is_the_reports_diagnoses_and_empty_when_correct():
    mine = learner_train(RUNS, VOCAB, GPT4_SPLIT_PATTERN, count_overlaps=False)
    found = diagnose(mine, RUNS, pattern=GPT4_SPLIT_PATTERN, vocab_size=VOCAB)
    assert [d.mistake.key for d in found][:1] == ["overlap"]
    right = learner_train(RUNS, VOCAB, GPT4_SPLIT_PATTERN)
    assert diagnose(right, RUNS, pattern=GPT4_SPLIT_PATTERN, vocab_size=VOCAB) == []


def test_mistakes_are_replayed_only_a_window_past_the_first_difference(monkeypatch):
    calls = []
    real = check_module.replay

    def counting(text, setup, steps=None):
        calls.append((setup, steps))
        return real(text, setup, steps)

    monkeypatch.setattr(check_module, "replay", counting)
    mine = learner_train(PROSE, 256 + 300, GPT4_SPLIT_PATTERN, tie_rule="bytes")
    report = report_for(mine, PROSE, GPT4_SPLIT_PATTERN, vocab_size=256 + 300)
    first = report.comparison.first_difference
    assert first < 300 - WINDOW - 1  # else the window would cover everything
    seen = set()
    for setup, steps in calls:
        if setup in seen:  # a second replay: only for a mistake that agreed all the way
            assert setup.tie_rule == "bytes"
        else:
            assert steps <= first + WINDOW + 1
        seen.add(setup)
    assert report.diagnoses[0].explains_all


def test_the_text_is_capped():
    with pytest.raises(ValueError, match=f"at most {MAX_CHECK_CHARS:,}"):
        check_merges([], "a" * (MAX_CHECK_CHARS + 1), pattern="", vocab_size=300)


@pytest.mark.parametrize("rule", TIE_RULES)
@pytest.mark.parametrize("pattern", ["", GPT4_SPLIT_PATTERN])
def test_the_plain_trainer_makes_the_fast_trainers_merges(rule, pattern):
    # the diagnosis replays input and tie-rule mistakes with train_bpe: the same merges
    setup = Setup(pattern, 256 + 150, tie_rule=rule)
    plain = list(replay_training(training_chunks(CODE, setup), 150, tie_rule=rule))
    assert plain == replay(CODE, setup) == learner_train(CODE, 256 + 150, pattern, tie_rule=rule)


def test_every_training_demo_is_diagnosed_as_itself():
    for mistake in MISTAKES:
        if mistake.stage != "training":
            continue
        demo = zoo_demo(mistake.key)
        report = check_merges(demo.merges, demo.text, **demo.settings)
        assert not report.comparison.matches, mistake.key
        assert report.diagnoses[0].mistake is mistake, (mistake.key, report.summary)


def test_the_zoo_says_symptom_and_fix_in_words():
    keys = [m.key for m in MISTAKES]
    assert len(set(keys)) == len(keys)
    for m in MISTAKES:
        assert m.title and m.symptom and m.fix and m.stage in ("training", "encoding")
        assert not regex.search(r"\n|def |\w\(|\w = ", m.fix)  # words, not code
    with pytest.raises(ValueError, match="needs"):
        zoo_demo("specials_not_cut", special_tokens=[])
    with pytest.raises(ValueError, match="unknown mistake"):
        zoo_demo("typo")


# -- encoding ------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def prose_tok():
    tok = RegexTokenizer(GPT4_SPLIT_PATTERN)
    tok.train(CORPORA["prose"][:8_000], 256 + 200)
    return tok


def learner_encode(tok, text, how):
    """A student's encoder: per chunk of the split (``how="no_split"``: the whole text)."""
    chunks = [text] if how == "no_split" else regex.findall(tok.pattern, text)
    out = []
    for chunk in chunks:
        ids = list(chunk.encode("utf-8"))
        if how == "first_only":  # every merge once, in order, on its first occurrence
            for pair, idx in tok.merges.items():
                ids = merge_ids(ids, pair, idx, merge_all=False)
            out += ids
            continue
        while len(ids) > 1:
            stats = Counter(zip(ids, ids[1:]))
            learned = [p for p in stats if p in tok.merges]
            if not learned:
                break
            if how == "frequency":
                pair = max(learned, key=lambda p: stats[p])
            else:
                pair = min(learned, key=tok.merges.get)
            if how == "right":
                ids = merge_ids(ids[::-1], pair[::-1], tok.merges[pair])[::-1]
            else:
                ids = merge_ids(ids, pair, tok.merges[pair])
        out += ids
    return out


SENTENCE = ("The theory of the other thermometer: these three are there, then the theme.    "
            "aaaa    x 2024 1234567 ======            x")


@pytest.mark.parametrize(
    ("how", "key"),
    [("frequency", "encode_by_frequency"), ("right", "encode_right_to_left"),
     ("first_only", "encode_first_only"), ("no_split", "encode_no_split")],
)
def test_encoding_mistakes_are_named(prose_tok, how, key):
    theirs = learner_encode(prose_tok, SENTENCE, how)
    check = diagnose_encoding(prose_tok, SENTENCE, theirs)
    assert not check.matches and check.expected == prose_tok.encode(SENTENCE)
    assert key in [m.key for m in check.mistakes]
    assert encode_with_mistake(key, prose_tok, SENTENCE) == theirs


def test_a_correct_encoder_matches_and_ids_may_come_as_text(prose_tok):
    assert learner_encode(prose_tok, SENTENCE, "rank") == prose_tok.encode(SENTENCE)
    check = diagnose_encoding(prose_tok, SENTENCE, str(prose_tok.encode(SENTENCE)))
    assert check.matches and check.mistakes == []
    tok = BasicTokenizer()
    tok.train("aaa aaa", 257)  # one merge: a + a = 256
    check = diagnose_encoding(tok, "aaa", "97 256")
    assert check.first_difference == 1
    assert [m.key for m in check.mistakes] == ["encode_right_to_left"]
    with pytest.raises(ValueError, match="found a function call"):
        diagnose_encoding(tok, "aaa", "__import__('os').getcwd()")


def test_the_check_is_exported_from_the_lab_and_the_library_says_where_it_went():
    import bpe_lab.check
    for name in ["check_merges", "compare_merges", "read_merges", "diagnose", "diagnose_encoding",
                 "explain_difference", "zoo_demo", "MISTAKES", "LearnerOutput", "CheckReport"]:
        assert callable(getattr(bpe_lab.check, name)) or getattr(bpe_lab.check, name)
        with pytest.raises(ImportError, match=rf"moved to bpe_lab\.check\.{name}.*"
                                              rf"from bpe_lab\.check import {name}"):
            exec(f"from bpe_core import {name}")
