"""Check your BPE says only what it knows: a mistake is the cause only when it explains all the
learner's merges, else the closest known mistake with how many it explains; tie rules it cannot
name are another tie rule, with the tied pairs; last-seen and greatest-id ties are in the zoo;
minbpe's spelling of the GPT-4 pattern is GPT-4; a merges.txt's bad line is named; the text the
page shows comes as plain text, tokens spelled as the caller asks.

The wrong trainers are tests/learners.py's; the numbers they should give are worked out from them
(the common beginning of two learners' merges), never from bpe_lab.check.
"""

from __future__ import annotations

import random

import pytest
import regex
from learners import learner_train, prefix
from support import CORPORA

from bpe_core import GPT2_SPLIT_PATTERN, GPT4_SPLIT_PATTERN, RegexTokenizer
from bpe_core.training import TIE_RULES
from bpe_lab.check import (
    MINBPE_GPT2_SPLIT_PATTERN,
    MINBPE_GPT4_SPLIT_PATTERN,
    ZOO_TIE_RULES,
    Setup,
    check_merges,
    check_verdict,
    pattern_name,
    read_merges,
    replay,
    report_lines,
    report_text,
)
from bpe_lab.check.task import rule_name
from bpe_lab.check.zoo import mistake_variants

PROSE = CORPORA["prose"][:4_000]
CODE = CORPORA["code"][:4_000]
GPT4 = GPT4_SPLIT_PATTERN
MERGES = 80
VOCAB = 256 + MERGES


# -- last-seen and greatest-id ties are in the zoo ---------------------------------------------


@pytest.mark.parametrize("rule", ZOO_TIE_RULES)
def test_the_zoo_replays_last_seen_and_greatest_id_ties_as_a_learner_makes_them(rule):
    setup = Setup(GPT4, 256 + 150, tie_rule=rule)
    assert replay(CODE, setup) == learner_train(CODE, 256 + 150, GPT4, tie_rule=rule)


@pytest.mark.parametrize("theirs", ZOO_TIE_RULES)
@pytest.mark.parametrize("ours", TIE_RULES)
@pytest.mark.parametrize("text", [PROSE, CODE], ids=["prose", "code"])
def test_last_seen_and_greatest_id_ties_are_named_as_what_they_are(ours, theirs, text):
    mine = learner_train(text, VOCAB, GPT4, tie_rule=theirs)
    report = check_merges(mine, text, pattern=GPT4, vocab_size=VOCAB, tie_rule=ours)
    top = report.diagnoses[0]
    assert (top.mistake.key, top.setup.tie_rule, top.explains_all) == ("tie_rule", theirs, True)
    assert report.explanation.winners[theirs] == report.explanation.mine.pair
    said = check_verdict(report)
    assert (said.kind, said.heading) == ("cause", "The cause")
    assert f"{rule_name(theirs)} rule" in said.text and f"explains all your {MERGES} merges" in said.text


# -- a tie rule nobody named ---------------------------------------------------------------------


def test_a_tie_rule_nobody_named_is_another_tie_rule_with_the_tied_pairs():
    # "ab c dzyef": nine pairs, once each. A learner that keeps tokens as GPT-2 strings takes the
    # greatest pair of strings: "Ġ" (a space) sorts after the letters, so (Ġ, d) wins. The five
    # rules pick ab (seen first), ef (seen last), zy (greatest bytes, greatest ids), " c"
    # (smallest ids: a space is byte 32).
    mine = learner_train("ab c dzyef", 257, tie_rule="gpt2_strings")
    assert mine == [(b" ", b"d")]
    report = check_merges(mine, "ab c dzyef", pattern="", vocab_size=257)
    step = report.explanation
    assert len(step.tied) == 9 and step.rule_of_mine is None
    assert set(step.winners.values()) == {(b"a", b"b"), (b"e", b"f"), (b"z", b"y"), (b" ", b"c")}
    assert report.diagnoses == []
    said = check_verdict(report)
    assert (said.kind, said.heading) == ("another tie rule", "Another tie rule")
    assert "you broke ties by another tie rule" in said.text
    text = report_text(report)
    assert "The tied pairs: b'a' + b'b'; b'b' + b' '; b' ' + b'c'; b'c' + b' '; b' ' + b'd'" in text
    assert "cause" not in text.lower()


@pytest.mark.parametrize("text", [PROSE, CODE], ids=["prose", "code"])
def test_ties_by_gpt2_strings_are_never_called_the_cause(text):
    # the learner agrees with some known rule at some ties and with none at others
    mine = learner_train(text, VOCAB, GPT4, tie_rule="gpt2_strings")
    report = check_merges(mine, text, pattern=GPT4, vocab_size=VOCAB)
    said = check_verdict(report)
    assert said.kind in ("another tie rule", "closest")
    assert "The cause" not in report.summary and "Most likely" not in report.summary
    first = prefix(mine, learner_train(text, VOCAB, GPT4)) + 1
    assert report.explanation.step == first and report.explanation.is_tie


# -- the closest known mistake, with its numbers ------------------------------------------------


@pytest.mark.parametrize("text", [PROSE, CODE], ids=["prose", "code"])
@pytest.mark.parametrize("mistakes", [
    {"tie_rule": "bytes", "merge_from": "right"},
    {"tie_rule": "bytes", "count_overlaps": False},
    {"use_counts": False, "tie_rule": "ids"},
], ids=["bytes+right", "bytes+overlap", "counts+ids"])
def test_two_mistakes_at_once_give_the_closest_known_mistake_and_how_much_it_explains(
        text, mistakes):
    mine = learner_train(text, VOCAB, GPT4, **mistakes)
    report = check_merges(mine, text, pattern=GPT4, vocab_size=VOCAB)
    # each mistake alone, in the learner: how far its merges go along the learner's
    alone = max(prefix(learner_train(text, VOCAB, GPT4, **{k: v}), mine)
                for k, v in mistakes.items())
    reference = prefix(learner_train(text, VOCAB, GPT4), mine)
    said = check_verdict(report)
    assert (said.kind, said.heading) == ("closest", "Closest known mistake")
    assert said.diagnosis.explains == alone and not said.diagnosis.explains_all
    assert (f"explains your first {alone} of {MERGES} merges (the reference: the first"
            f" {reference})") in said.text
    assert f"part at merge {alone + 1}, so it is not the whole cause" in said.text
    assert "The cause" not in report.summary and "Most likely" not in report.summary


def test_mistakes_that_each_explain_everything_are_not_called_one_cause():
    # "mzab", one merge z + a: the greatest bytes and the greatest ids both pick it
    report = check_merges([(b"z", b"a")], "mzab", pattern="", vocab_size=257)
    said = check_verdict(report)
    assert said.kind == "causes" and said.diagnosis is None
    assert "2 known mistakes each explain all your 1 merge" in said.text
    assert rule_name("bytes") in said.text and rule_name("greatest_ids") in said.text


# -- minbpe's spelling of the patterns -----------------------------------------------------------


def test_minbpe_s_spelling_of_the_gpt4_pattern_counts_as_gpt4(tmp_path):
    assert pattern_name(MINBPE_GPT4_SPLIT_PATTERN) == "the GPT-4 pattern (as minbpe writes it)"
    assert pattern_name(MINBPE_GPT2_SPLIT_PATTERN) == "the GPT-2 pattern (as minbpe writes it)"
    tok = RegexTokenizer(MINBPE_GPT4_SPLIT_PATTERN)  # as minbpe's RegexTokenizer() trains
    tok.train(PROSE, 256 + 50)
    tok.save(str(tmp_path / "mine"))
    out = read_merges((tmp_path / "mine.model").read_bytes(), "mine.model")
    assert out.notes == ["its split pattern is the GPT-4 pattern (as minbpe writes it)"]
    assert check_merges(out, PROSE, pattern=GPT4, vocab_size=256 + 50).comparison.matches
    # "another split pattern" never offers GPT-4 against minbpe's GPT-4
    variants = mistake_variants("other_pattern", Setup(MINBPE_GPT4_SPLIT_PATTERN, 300))
    assert GPT4 not in [setup.pattern for _, setup in variants] and variants


def test_minbpe_s_and_tiktoken_s_spellings_cut_alike_but_for_whitespace_ending_a_piece():
    # known by hand: tiktoken's \s++$ keeps "\n  " at the end together, minbpe cuts after "\n"
    assert regex.findall(GPT4, "a\n  ") == ["a", "\n  "]
    assert regex.findall(MINBPE_GPT4_SPLIT_PATTERN, "a\n  ") == ["a", "\n", "  "]
    rng = random.Random(26)
    alphabet = "ab A1 2\n\r\t'sé,.-  \u00a0"
    for _ in range(3_000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(1, 14)))
        assert regex.findall(GPT2_SPLIT_PATTERN, text) == regex.findall(
            MINBPE_GPT2_SPLIT_PATTERN, text)
        ours, theirs = regex.findall(GPT4, text), regex.findall(MINBPE_GPT4_SPLIT_PATTERN, text)
        if ours != theirs:
            k = prefix(ours, theirs)
            rest = "".join(ours[k:])
            assert rest.isspace() and text.endswith(rest) and regex.search(r"[\r\n]", rest)


# -- a merges.txt with a bad line ----------------------------------------------------------------


@pytest.mark.parametrize(("bad", "found"), [
    ("Ġthe", "'Ġthe', one token"),
    ("Ġthe x y", "'Ġthe x y', 3 tokens"),
    ("Ġt  he", "two in a row"),
])
def test_a_merges_txt_with_one_bad_line_names_the_line_and_the_expected_form(bad, found):
    lines = ["#version: 0.2", "Ġ t", "h e", "Ġt he", bad, "a t", "", "Ġ c", "Ġc at"]
    with pytest.raises(ValueError) as error:
        read_merges("\n".join(lines) + "\n", "merges.txt")
    message = str(error.value)
    assert message.startswith("merges.txt, line 5: expected a merge: two tokens in GPT-2's byte"
                              " alphabet separated by one space, such as 'Ġ t'")
    assert found in message and "Python" not in message


def test_the_bad_line_of_a_real_merges_txt_is_found_far_down(tmp_path):
    tok = RegexTokenizer(GPT4)
    tok.train(PROSE, 256 + 300)
    tok.save_gpt2(str(tmp_path / "vocab.json"), str(tmp_path / "merges.txt"))
    lines = (tmp_path / "merges.txt").read_text(encoding="utf-8").split("\n")
    assert lines[0].startswith("#version") and len(lines) > 250
    lines[199] = lines[199].replace(" ", "")  # line 200 loses its space
    with pytest.raises(ValueError, match=r"^merges\.txt, line 200: expected a merge"):
        read_merges("\n".join(lines), "merges.txt")


# -- the page's text, plain ----------------------------------------------------------------------


def test_the_summary_text_spells_tokens_as_asked_and_keeps_two_spaces_apart_from_one():
    # "a    b    c": the reference merges " " + " " (6 times), then "  " + "  " (twice); the
    # learner's second merge "  " + "b" occurs once
    mine = read_merges("merges = [(b' ', b' '), (b'  ', b'b')]")
    report = check_merges(mine, "a    b    c", pattern="", vocab_size=258)
    glyphs = report_text(report, mine, "pasted", spell=lambda t: t.decode().replace(" ", "·"))
    assert glyphs.split("\n")[:2] == ["Read 2 merges from pasted: Python literals (merges).",
                                     "Your merges match the first 1; at merge 2 you merged ·· + b"
                                     " and the reference merged ·· + ··."]
    assert "your pair ·· + b occurs 1 time" in glyphs and "·· + ·· 2 times" in glyphs
    plain = report_lines(report)
    assert plain[0] == ("Your merges match the first 1; at merge 2 you merged b'  ' + b'b' and"
                        " the reference merged b'  ' + b'  '.")
    assert report.summary.startswith(plain[0])


def test_a_file_that_names_another_pattern_than_the_task_s_says_so(tmp_path):
    tok = RegexTokenizer(GPT2_SPLIT_PATTERN)
    tok.train(PROSE, 256 + 20)
    tok.save(str(tmp_path / "gpt2"))
    out = read_merges((tmp_path / "gpt2.model").read_bytes(), "gpt2.model")
    lines = report_lines(check_merges(out, PROSE, pattern=GPT4, vocab_size=256 + 20), out)
    assert lines[2] == ("Your file's split pattern is the GPT-2 pattern; the task's is the GPT-4"
                        " pattern: set the task's pattern to yours, or your merges are compared"
                        " with another pattern's.")
    same = report_lines(check_merges(out, PROSE, pattern=GPT2_SPLIT_PATTERN,
                                     vocab_size=256 + 20), out)
    assert not any("Your file's split pattern" in line for line in same)


def test_a_learner_that_stops_early_is_told_so_not_sent_to_a_pair_that_does_not_differ():
    mine = learner_train(PROSE, VOCAB - 5, GPT4)  # five merges fewer than asked
    report = check_merges(mine, PROSE, pattern=GPT4, vocab_size=VOCAB)
    assert report.comparison.first_difference is None and report.diagnoses == []
    said = check_verdict(report)
    assert said.kind == "unknown"
    assert said.text.startswith(f"None of the known mistakes makes {MERGES - 5} merges where the"
                                f" reference makes {MERGES}")


def test_one_merge_of_evidence_is_weak_evidence_never_the_cause():
    # overlaps counted once AND each merge applied to its first occurrence only, on code: the
    # first-only mistake alone goes one merge further along the learner's than the reference
    mine = learner_train(CODE, VOCAB, GPT2_SPLIT_PATTERN, count_overlaps=False, merge_all=False)
    alone = prefix(learner_train(CODE, VOCAB, GPT2_SPLIT_PATTERN, merge_all=False), mine)
    reference = prefix(learner_train(CODE, VOCAB, GPT2_SPLIT_PATTERN), mine)
    assert alone == reference + 1
    report = check_merges(mine, CODE, pattern=GPT2_SPLIT_PATTERN, vocab_size=VOCAB)
    said = check_verdict(report)
    assert (said.kind, said.diagnosis.mistake.key) == ("closest", "first_only")
    assert f"explains your first {alone} of {MERGES} merges" in said.text
    assert said.text.endswith("That is one merge more than the reference explains: weak"
                              " evidence.")
