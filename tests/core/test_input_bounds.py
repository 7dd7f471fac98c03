"""The one owner of input bounds (bpe_core/limits.py): split patterns are read as the regex
engine reads them, so a costly pattern is refused before it is compiled, however its repeats are
spelled; the library, the app and the command line ask the same bounds. Also: a pattern with
capture groups splits by whole matches (issue 32)."""

from __future__ import annotations

import json
import resource
import subprocess
import sys
import textwrap
from pathlib import Path

import hypothesis
import hypothesis.strategies as st
import pytest
import regex
import tiktoken

import bpe_core
from bpe_core import RegexTokenizer, read_tokenizer
from bpe_core.formats import tiktoken_encoding, to_hf_json
from bpe_core.limits import (
    MAX_JSON_DEPTH,
    MAX_PATTERN_CHARS,
    MAX_PATTERN_COST,
    MAX_PATTERN_DEPTH,
    MAX_REPEAT,
    check_pattern,
    pattern_cost,
)

# Every pattern issue 32 names as taking gigabytes to compile, and the same counts spelled the
# other ways the engine reads them.
COSTLY = [
    "G{00000000000000000000001485831595}",
    "G{00001485831595}",
    "(?:(?:a{1000}){1000}){1000}",
    "a{,1485831595}",
    "a{1485831595,}",
    "a{0001000001}",
    "(?:a{100}){100}",  # 10,000 in all: only the product is large
    "(?:(?:[ab]{40}){40})",  # a class counts as one atom, repeated all the same
    r"(?:\p{L}{40}){40}",  # an escape's own braces are not a repeat; the one after it is
    "(?i:(?P<x>a{50}){50})",
    "(?:" * 29 + "a{2000}" + ")" * 29,
]
# Found by the fuzzer (tests/fuzz/crashes/oniguruma--nested-plus-*): x+ compiles as x x*, so each
# level of nested +'s doubles what is built; 20 levels took over 1 GB
NESTED_PLUS = ["(?:" * 20 + "a" + ")+" * 20, "(?:" * 20 + "a" + "){1,}" * 20,
               "(?:" * 16 + "[sdmt]" + ")++" * 16]
# The issue's fuzz input (its pattern line; the issue's file had 87 bytes): a minbpe .model whose
# pattern takes about 4 GB to compile.
COSTLY_MODEL = b"minbpe v1\nG{00000000000000000000001485831595}\n0\n97 97\n"
# The issue's second fuzz input: a .model whose pattern has two capture groups.
GROUPS_MODEL = (
    b"minbpe v1\n"
    rb"('i:?[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{0,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+"
    rb"|\s++$|\s*[\r\n]|\S+\s(!?)|\s"
    b"\n1\n<|endoftext|> 256\n"
)
THREE_GROUPS = r"(\p{L}+)|( ?\p{N}{1,3})|(\s+)|[^\s\p{L}\p{N}]+"
TEXT = "hello wörld 123 \n Hello again, world: 4567 words!  "


@pytest.mark.parametrize("pattern", COSTLY)
def test_a_costly_pattern_is_refused_naming_the_bound(pattern):
    with pytest.raises(ValueError, match=r"repeats something [\d,]+ times; use at most 1,000"):
        RegexTokenizer(pattern)


@pytest.mark.parametrize("pattern", NESTED_PLUS)
def test_nested_repeats_that_double_per_level_are_refused(pattern):
    with pytest.raises(ValueError, match=r"unrolls to [\d,]+ parts.*use at most 20,000"):
        RegexTokenizer(pattern)
    assert pattern_cost("(?:" * 12 + "a" + ")*" * 12).cost == 13  # x* is built once


def test_the_counts_are_read_as_numbers_and_nested_counts_multiply():
    assert pattern_cost("G{00001485831595}").repeat == 1_485_831_595
    assert pattern_cost("(?:(?:a{1000}){1000}){1000}").repeat == 10**9
    assert pattern_cost("a{,7}b{8,}c{2,9}").repeat == 9
    assert pattern_cost("(?:ab{3}|c){4}").cost == (2 + 3 + 1) * 4
    assert pattern_cost("(?:ab{3}|c){2,4}").cost == (2 + 3 + 1) * 5  # once more: the optional rest
    assert pattern_cost("(?:a+)+").cost == 6  # (":" + a a) twice: "(?:" syntax counts, to be safe
    assert pattern_cost("a{2}+a*?").cost == 3  # + and ? after a repeat modify it


@pytest.mark.parametrize(("pattern", "cost"), [
    (r"[{]1000000}", 9),  # a brace in a class, then plain characters
    (r"\{1000000}", 9),  # an escaped brace
    (r"[\]{]{3}", 3),  # an escaped ] does not end the class
    (r"[]{]{3}", 3),  # nor does a ] first
    (r"[[:alpha:]{]{3}", 3),  # nor a POSIX class's
    (r"\p{L}{3}", 3),  # the escape's braces are its own
    (r"(?#[{(\))a{5}", 5),  # a comment is skipped up to its first ) not escaped
    (r"x{", 2),  # a brace that closes nothing is a character
    (r"x{a}", 4),  # a brace around no count is characters
])
def test_escapes_classes_and_comments_are_not_misread(pattern, cost):
    assert pattern_cost(pattern).cost == cost
    check_pattern(pattern)
    regex.compile(pattern)  # the engine reads them so too: it compiles them at once


def test_the_shipped_patterns_pass_with_room_to_spare():
    from bpe_core.patterns import DIGIT_PRESETS
    for pattern in [bpe_core.GPT2_SPLIT_PATTERN, bpe_core.GPT4_SPLIT_PATTERN,
                    bpe_core.GPT4O_SPLIT_PATTERN, *DIGIT_PRESETS.values()]:
        cost = pattern_cost(pattern)
        assert cost.cost < 100 and cost.repeat <= 3 and cost.depth <= 2
    assert RegexTokenizer(r"\p{L}{1000}|.").split("ab") == ["a", "b"]  # the bound itself is fine


@pytest.mark.parametrize(("pattern", "message"), [
    ("a" * (MAX_PATTERN_CHARS + 1), "1,001 characters long; write one of at most 1,000"),
    ("(?:" * (MAX_PATTERN_DEPTH + 1) + "a" + ")" * (MAX_PATTERN_DEPTH + 1), "nests groups more"),
    ("a{1000}" * 21, f"unrolls to 21,000 parts.*at most {MAX_PATTERN_COST:,}"),
    ("(?x)a{1 000 000}", r"verbose mode \(\?x\)"),
    ("(?:abc){e<=1}", "fuzzy matching"),
    ("(?r)\\w+|\\W+", r"reverse matching \(\?r\)"),  # the fuzzer's find: chunks came out of order
    ("(?r:[sdmt]|ll)|\\w+", r"reverse matching \(\?r\)"),
    # the fuzzer's find: (?0) calls the whole pattern from inside itself, and the engine ran
    # out of memory at once (MemoryError, about 1 GB) on the first split
    ("(?0).{8}", r"calls a group from inside itself"),
    ("(?R)?a|b", r"calls a group from inside itself"),
    ("(a(?1)?b)|\\w+", r"calls a group from inside itself"),
    ("(?P<w>x(?&w)?)|.", r"calls a group from inside itself"),
    ("(?P<w>x(?P>w)?)|.", r"calls a group from inside itself"),
    ("(a", "invalid split pattern: .*never closed"),
    ("a)", "invalid split pattern: .*closes no group"),
    ("[a", "invalid split pattern: .*never closed"),
    ("a\\", "invalid split pattern: .*lone backslash"),
])
def test_each_bound_and_each_unreadable_pattern_is_named(pattern, message):
    with pytest.raises(ValueError, match=message):
        check_pattern(pattern)
    with pytest.raises(ValueError, match=message):
        RegexTokenizer(pattern)


def test_a_tokenizer_json_split_pattern_gets_the_same_bound():
    doc = json.loads(to_hf_json(RegexTokenizer(bpe_core.GPT2_SPLIT_PATTERN)))
    doc["pre_tokenizer"] = {"type": "Split", "pattern": {"Regex": "(?:x{100}){100}"},
                            "behavior": "Isolated", "invert": False}
    with pytest.raises(ValueError, match=r"t\.json: the pattern of key 'pre_tokenizer.*repeats"
                                         r" something 10,000 times"):
        read_tokenizer(json.dumps(doc).encode(), "t.json")


def test_json_nested_past_the_bound_is_refused_by_name():
    deep = '{"model": {"type": "BPE", "x": ' + "[" * MAX_JSON_DEPTH + "]" * MAX_JSON_DEPTH + "}}"
    with pytest.raises(ValueError, match=rf"t\.json, line 1: not valid JSON for this tool"
                                         rf" \(brackets nested more than {MAX_JSON_DEPTH}"):
        read_tokenizer(deep.encode(), "t.json")


def test_the_app_and_the_command_line_ask_the_same_bounds():
    from bpe_core import limits
    from bpe_lab.check import task
    from bpe_lab.cli import inputs
    from ui.kit import choices
    assert choices.MAX_PATTERN_CHARS is inputs.MAX_PATTERN_CHARS is limits.MAX_PATTERN_CHARS
    assert task.MAX_MERGES is limits.MAX_MERGES and task.MAX_INPUT_CHARS is limits.MAX_INPUT_CHARS
    assert bpe_core.base.MAX_VOCAB_SIZE is limits.MAX_VOCAB_SIZE
    assert bpe_core.split.MAX_REPEAT is MAX_REPEAT
    for pattern in COSTLY[:3]:
        with pytest.raises(inputs.UsageError, match="repeats something"):
            inputs.pattern_from(pattern)
        with pytest.raises(ValueError, match="repeats something"):
            choices.make_settings("Train: custom split pattern", pattern, 512, "")


# -- under a memory bound ---------------------------------------------------------------------------

MEMORY_LIMIT = 100 * 1024 * 1024


def _in_100_mb(code: str) -> subprocess.CompletedProcess:
    def limit():
        resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], preexec_fn=limit,
                          capture_output=True, text=True, timeout=120)


def test_every_costly_input_is_refused_within_100_mb():
    code = f"""
        import bpe_core
        refused = 0
        for pattern in {COSTLY + NESTED_PLUS!r}:
            try:
                bpe_core.RegexTokenizer(pattern)
            except ValueError as e:
                refused += "repeats something" in str(e) or "unrolls to" in str(e)
        try:
            bpe_core.read_tokenizer({COSTLY_MODEL!r}, "fuzz.model")
        except ValueError as e:
            refused += str(e).startswith("fuzz.model, line 2: the split pattern repeats something")
        tok = bpe_core.read_tokenizer({GROUPS_MODEL!r}, "groups.model")
        print(refused, tok.decode(tok.encode("hello wörld 123 ")))
    """
    done = _in_100_mb(code)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split(None, 1) == [str(len(COSTLY + NESTED_PLUS) + 1), "hello wörld 123 \n"]


@pytest.mark.parametrize("pattern", ["G{00001485831595}", NESTED_PLUS[0], "(?0).{8}"])
def test_the_memory_bound_is_one_the_engine_breaks_without_the_check(pattern):
    done = _in_100_mb(f"import regex; regex.compile({pattern!r}).findall('hello world')")
    assert done.returncode != 0 and "MemoryError" in done.stderr


# -- capture groups split by whole matches ----------------------------------------------------------


def _tiktoken(tok: bpe_core.Tokenizer) -> tiktoken.Encoding:
    return tiktoken.Encoding(**tiktoken_encoding(tok))


def test_the_issues_model_with_capture_groups_encodes_as_tiktoken_does():
    tok = read_tokenizer(GROUPS_MODEL, "groups.model")
    ids = tok.encode("hello wörld 123 ")
    assert ids == list("hello wörld 123 ".encode())  # no merges: one id per byte
    chunks = tok.split("hello wörld 123 it's")
    assert chunks == ["hello", " wörld", " ", "123", " it", "'s"]  # whole matches, not groups
    # tiktoken cannot take this pattern (\p{N}{0,3}+ matches "", and tiktoken panics on an empty
    # piece); the engine's own whole matches are the reference
    whole = [m.group() for m in regex.finditer(tok.pattern, TEXT) if m.group()]
    assert tok.split(TEXT) == whole and "".join(whole) == TEXT


def test_a_three_group_pattern_trains_and_encodes_by_whole_matches():
    tok = RegexTokenizer(THREE_GROUPS)
    tok.train(TEXT * 20, 300)
    assert "".join(tok.split(TEXT)) == TEXT
    assert tok.split("ab 12 cd!") == ["ab", " 12", " ", "cd", "!"]
    assert tok.decode(tok.encode(TEXT)) == TEXT
    plain = RegexTokenizer(regex.sub(r"\((?!\?)", "(?:", THREE_GROUPS))  # the same, no captures
    plain.train(TEXT * 20, 300)
    assert tok.merges == plain.merges and tok.encode(TEXT) == plain.encode(TEXT)
    assert _tiktoken(tok).encode_ordinary(TEXT) == tok.encode(TEXT)


def test_the_servers_upload_cap_is_the_one_the_app_states():
    import tomllib
    from pathlib import Path

    from bpe_core.limits import MAX_UPLOAD_MB
    from ui.exchange.files import MAX_IMPORT_BYTES
    config = tomllib.loads((Path(__file__).parents[2] / ".streamlit/config.toml").read_text())
    assert config["server"]["maxUploadSize"] == MAX_UPLOAD_MB
    assert MAX_IMPORT_BYTES == MAX_UPLOAD_MB * 1024 * 1024


# -- limits.py reads repeats as the engine does: never fewer ------------------------------------

sys.path.insert(0, str(Path(__file__).parents[1] / "fuzz"))
from targets import engine_repeat  # noqa: E402

FRAGMENTS = ["a", "b", "\\", "\\{", "\\}", "\\p{L}", "\\x{41}", "\\N{SPACE}", "[", "]", "^", "[{]",
             "[]", "[^", "[:alpha:]", "(", ")", "(?:", "(?i)", "(?V1)", "(?#", "(?P<n>", "|",
             "{", "}", ",", "0", "1", "7", "00", "99", "{2}", "{0,3}", "{,4}", "{5,}", "{1,2}",
             "*", "+", "?", "-", ":", " ", "#", "\n", "x{", "{e<=1}", "&&", "--"]


@hypothesis.settings(max_examples=3_000, deadline=None, derandomize=True)
@hypothesis.given(st.lists(st.sampled_from(FRAGMENTS), max_size=14).map("".join))
def test_limits_never_reads_fewer_repeats_than_the_engine(pattern):
    engine = engine_repeat(pattern)  # the engine's own parse tree (nothing unrolled)
    try:
        ours = pattern_cost(pattern).repeat
    except ValueError:
        return  # refused: the safe side
    assert engine is None or ours >= engine


# -- the fuzzer's other finds, as a user meets them ----------------------------------------------


def test_an_out_name_the_system_refuses_is_a_message_not_a_traceback(tmp_path, monkeypatch,
                                                                      capsys):
    from bpe_lab.cli import main
    monkeypatch.chdir(tmp_path)
    (tmp_path / "c.txt").write_text(TEXT * 5)
    out = "t" * 300 + ".tiktoken"  # longer than a file name may be (255 bytes)
    code = main(["train", "c.txt", "--vocab-size", "270", "--format", "tiktoken", "--out", out,
                 "--workers", "1"])
    err = capsys.readouterr().err
    assert code == 2 and "bpe-lab train: error:" in err and "File name too long" in err
    assert "Traceback" not in err and list(tmp_path.iterdir()) == [tmp_path / "c.txt"]


def test_a_sidecar_history_record_without_an_id_is_refused_by_name():
    from bpe_core.formats import to_minbpe
    from bpe_core.sidecar import CHECKSUM_KEY, content_checksum, make_sidecar
    tok = RegexTokenizer(bpe_core.GPT4_SPLIT_PATTERN)
    tok.train(TEXT * 5, 260)
    model = to_minbpe(tok)[0].encode()
    side = json.loads(make_sidecar(tok, "minbpe", {"file": model}))
    side["history"][0] = {"pair": [1, 2], "count": 3}  # no "id", and no such merge
    side[CHECKSUM_KEY] = content_checksum(side)  # as if bpe-lab had written it
    with pytest.raises(ValueError, match=r"s.json: key 'history\[0\]': the merge \[1, 2\] -> None"):
        read_tokenizer(model, "t.model", sidecar=json.dumps(side).encode(), sidecar_name="s.json")
