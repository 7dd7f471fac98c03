"""Hostile input, continued: what reaches the pages' pure functions (lone surrogates, every
parser of typed text), tokenizer files of random or damaged bytes, and what this matrix found
outside pages/ and ui/ and fixed there. The cases that would take the machine's memory run in a
child Python whose address space is capped. The pages themselves: test_hostile.py."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest
from hostile import (
    ABSURD_IDS,
    CONTROLS,
    HTML,
    RAW_TAG,
    ROOT,
    SAMPLES,
    WHITESPACE,
    assert_ok,
    custom,
    round_trips,
    texts_of,
    tiktoken_ranks,
)
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as hst
from streamlit.testing.v1 import AppTest
from support import APP_PATH, open_page

from bpe_core import RegexTokenizer, clean_text, load, read_tokenizer
from ui.decoding import utf8 as bv
from ui.exchange.files import (
    parse_import_specials,
    pick_upload,
    read_uploads,
)
from ui.forest import trees as fo
from ui.kit.choices import (
    cap_text,
    make_settings,
    parse_specials,
    text_problem,
    train_tokenizer,
)
from ui.kit.tokens_html import chunks_html, chunks_of, summarise, token_counts, tokens_html
from ui.lesson import tutorial as le

pytestmark = pytest.mark.timeout(120)  # per test; most take a few seconds


# -- lone surrogates and hostile text through the pure functions the pages call --------------------

SURROGATE_TEXTS = ["\ud800", "a\udfffb", "\ud83d\ude00 ok \ud83d", "x\udc80" * 50 + HTML,
                   CONTROLS + "\udbff"]


def utf8_ok(value) -> bool:
    """What Streamlit sends must be encodable: a lone surrogate would break the message."""
    if isinstance(value, str):
        value.encode("utf-8")  # raises UnicodeEncodeError on a lone surrogate
    elif isinstance(value, list | tuple | dict):
        return all(utf8_ok(v) for v in (value.values() if isinstance(value, dict) else value))
    return True


@pytest.fixture(scope="module")
def surrogate_tokenizers():
    text = " ".join(SURROGATE_TEXTS) * 3
    out = {}
    for kind in ("Train: GPT-4 split", "Train: no split (Basic)"):
        out[kind] = train_tokenizer(text, make_settings(kind, "", 300, "<|x|>"))
    return out


@pytest.mark.parametrize("text", SURROGATE_TEXTS)
@pytest.mark.parametrize("kind", ["Train: GPT-4 split", "Train: no split (Basic)"])
def test_lone_surrogates_through_the_pages_functions(text, kind, surrogate_tokenizers):
    tok = surrogate_tokenizers[kind]
    clean = clean_text(text)
    assert utf8_ok(clean) and "\ufffd" in clean
    assert cap_text(text)[0] == text and text_problem(text) is None
    assert tok.decode(tok.encode(text, allowed_special="all")) == clean
    steps = tok.step_through(text, allowed_special="all")
    for k in (0, tok.num_merges):
        body, _ = tokens_html(steps.tokens_at(k), step_of=tok.step_of, whitespace=True)
        assert utf8_ok(body) and RAW_TAG.search(body) is None
    summary = summarise(steps)
    assert utf8_ok(tokens_html(summary.shown)[0]) and utf8_ok(token_counts(text, summary.total))
    chunks, special = chunks_of(tok, text)
    assert "".join(chunks) == clean
    assert utf8_ok(chunks_html(chunks, special=special)[0])
    assert utf8_ok(bv.chars_html(text)[0]) and RAW_TAG.search(bv.chars_html(text)[0]) is None
    assert bv.LONE_SURROGATE in set(bv.chars_frame(text)["note"]) or text == clean
    assert set(bv.first_ids(tok, text)) <= set(tok.vocab)
    lesson_text, _ = le.lesson_text(text)
    assert utf8_ok(lesson_text) and utf8_ok(le.default_word(lesson_text, tok))
    assert le.byte_summary(lesson_text).characters == len(lesson_text)
    assert utf8_ok(le.char_rows(lesson_text).to_dict("list"))
    assert utf8_ok(le.marked_chunks_html(chunks, [False] * len(chunks)))
    for word in (text[:40], "\ud800"):
        assert utf8_ok(fo.describe_trace(tok, fo.word_trace(tok, word)))
        le.trace_encode(tok, word)
        found = fo.find_token(tok, word)
        assert found is None or all(i in tok.vocab for i in found.pieces)


# -- every parser of typed text: a ValueError or a result, nothing else ----------------------------

TYPED = hst.text(max_size=300) | hst.sampled_from(
    [HTML, CONTROLS, WHITESPACE, ABSURD_IDS, "²", "9" * 5_000, "0x" * 100, "\\x" * 100])


@pytest.fixture(scope="module")
def small_tok():
    tok = RegexTokenizer()
    tok.train(SAMPLES["English prose"], 300)
    tok.register_special_tokens({"<|end|>": 400})
    return tok


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=TYPED)
def test_typed_text_parsers_give_a_value_error_or_a_result(text, small_tok):
    for parse in (bv.parse_hex, le.parse_ids, parse_specials, parse_import_specials,
                  lambda t: bv.decode_ids(small_tok, t), lambda t: fo.find_token(small_tok, t),
                  lambda t: fo.vocab_rows(small_tok, t), lambda t: fo.word_trace(small_tok, t),
                  lambda t: le.trace_encode(small_tok, t[:40])):
        try:
            parse(text)
        except ValueError:
            pass



# -- tokenizer files: random bytes and damaged files give ValueError and nothing else --------------

NAMES = ["x.model", "tokenizer.json", "x.json", "x.tiktoken", "merges.txt", "vocab.json",
         "vocab.bpe", "encoder.json", "x.txt", "x.bpe", "x"]


@settings(max_examples=300, deadline=None)
@given(data=hst.binary(max_size=3_000), name=hst.sampled_from(NAMES),
       partner=hst.none() | hst.binary(max_size=300))
def test_random_bytes_with_every_kind_of_name_are_a_value_error(data, name, partner):
    with pytest.raises(ValueError):
        read_tokenizer(data, name, merges=partner, vocab=partner)


@settings(max_examples=200, deadline=None)
@given(data=hst.binary(max_size=3_000), names=hst.lists(hst.sampled_from(NAMES), min_size=1,
                                                         max_size=4))
def test_random_uploads_are_a_value_error(data, names):
    files = [(name, data[i::len(names)]) for i, name in enumerate(names)]
    pick_upload(files, [True] * len(files))
    with pytest.raises(ValueError):
        read_uploads(files)


@pytest.fixture(scope="module")
def file_folder(valid_files, tmp_path_factory):
    """A folder with a valid file of every format, so that ``load`` finds partners beside."""
    folder = tmp_path_factory.mktemp("valid")
    for name, data in valid_files.items():
        (folder / name).write_bytes(data)
    return folder


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=hst.binary(max_size=3_000), name=hst.sampled_from(NAMES))
def test_load_of_random_bytes_is_a_value_error(data, name):
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / name
        path.write_bytes(data)
        with pytest.raises(ValueError):
            load(path)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=hst.binary(max_size=3_000), name=hst.sampled_from(["vocab.json", "encoder.json",
                                                               "x.json", "tokenizer.json"]))
def test_load_of_random_bytes_beside_a_valid_merges_txt_is_a_value_error(data, name,
                                                                         file_folder):
    with tempfile.TemporaryDirectory() as folder:  # load() looks for the other half beside
        (Path(folder) / "merges.txt").write_bytes((file_folder / "merges.txt").read_bytes())
        path = Path(folder) / name
        path.write_bytes(data)
        with pytest.raises(ValueError):
            load(path)


MUTATIONS = ["truncate", "replace byte", "flip bit", "delete", "insert", "duplicate line",
             "swap lines", "drop line"]
INSERTS = [b"[", b"{", b'"', b"\\u", b"9" * 40, b"-1", b"\n", b" ", b"\xff", b"\x00", b"\r\n",
           b"\xed\xa0\x80", b"1e999", b"null", b"\\ud800"]


def mutate(content: bytes, operation: str, where: float, value: int) -> bytes:
    data = bytearray(content)
    i = int(where * len(data))
    lines = content.split(b"\n")
    j, k = int(where * len(lines)), value % len(lines)
    if operation == "truncate":
        del data[i:]
    elif operation == "replace byte":
        data[i] = value
    elif operation == "flip bit":
        data[i] ^= 1 << (value % 8)
    elif operation == "delete":
        del data[i : i + 1 + value % 16]
    elif operation == "insert":
        data[i:i] = INSERTS[value % len(INSERTS)]
    elif operation == "duplicate line":
        return b"\n".join(lines[: j + 1] + lines[j:])
    elif operation == "swap lines":
        lines[j], lines[k] = lines[k], lines[j]
        return b"\n".join(lines)
    else:
        return b"\n".join(lines[:j] + lines[j + 1 :])
    return bytes(data)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(name=hst.sampled_from(["x.model", "tokenizer.json", "x.tiktoken", "vocab.json",
                              "merges.txt"]),
       operation=hst.sampled_from(MUTATIONS), where=hst.floats(0, 1, exclude_max=True),
       value=hst.integers(0, 255))
def test_load_of_a_damaged_file_is_a_value_error_or_a_working_tokenizer(
        name, operation, where, value, file_folder):
    with tempfile.TemporaryDirectory() as folder:
        for other in ("vocab.json", "merges.txt"):
            (Path(folder) / other).write_bytes((file_folder / other).read_bytes())
        path = Path(folder) / name
        path.write_bytes(mutate((file_folder / name).read_bytes(), operation, where, value))
        try:
            tok = load(path)
        except ValueError:
            return
    text = "hello world, <|end|> naïve 😀 12345"
    assert tok.decode(tok.encode(text, allowed_special="all")) == text


JSON_VALUES = hst.recursive(
    hst.none() | hst.booleans() | hst.integers(-2, 10**40) | hst.floats() | hst.text(max_size=20),
    lambda inner: hst.lists(inner, max_size=4) | hst.dictionaries(hst.text(max_size=8), inner,
                                                                  max_size=4),
    max_leaves=12,
)
JSON_PLACES = [("model",), ("model", "type"), ("model", "vocab"), ("model", "merges"),
               ("added_tokens",), ("pre_tokenizer",), ("pre_tokenizer", "pretokenizers"),
               ("model", "vocab", "a"), ("model", "merges", 0), ("added_tokens", 0),
               ("added_tokens", 0, "id"), ("added_tokens", 0, "content")]


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(place=hst.sampled_from(JSON_PLACES), value=JSON_VALUES)
def test_tokenizer_json_with_any_value_anywhere_is_a_value_error_or_works(place, value,
                                                                          valid_files):
    document = json.loads(valid_files["tokenizer.json"])
    target = document
    for key in place[:-1]:
        target = target[key]
    target[place[-1]] = value
    try:
        tok = read_uploads([("tokenizer.json", json.dumps(document).encode())]).tok
    except ValueError:
        return
    assert round_trips(tok, "hello world naïve")


# -- found by this matrix outside pages/ and ui/, and fixed there ------------------------------------


def run_capped(code: str, memory_mb: int = 1_024, timeout: float = 60) -> str:
    """Run ``code`` in a child Python whose address space is capped, so that a blow-up is a
    MemoryError there instead of the shared machine's memory; its output."""
    prelude = ("import resource, sys\n"
               f"resource.setrlimit(resource.RLIMIT_AS, ({memory_mb} << 20, {memory_mb} << 20))\n"
               f"sys.path.insert(0, {str(ROOT)!r})\n")
    done = subprocess.run([sys.executable, "-c", prelude + code], capture_output=True, text=True,
                          timeout=timeout, cwd=ROOT, env={**os.environ, "PYTHONHASHSEED": "0"})
    return done.stdout + done.stderr


OUTCOME = """
try:
    {call}
    print("no error")
except ValueError as e:
    print("ValueError", str(e)[:200])
except MemoryError:
    print("MemoryError")
"""


@pytest.mark.parametrize("pattern", ["a{1000000000}", "(?:a{3000}){3000}", "[ab]{100000000}"])
def test_a_counted_repeat_in_a_pattern_cannot_take_the_servers_memory(pattern):
    out = run_capped("import bpe_core\n" + OUTCOME.format(
        call=f"bpe_core.RegexTokenizer({pattern!r})"))
    assert out.startswith("ValueError"), out


def test_a_model_file_cannot_spell_a_token_larger_than_memory():
    lines = ["minbpe v1", "", "0", "97 97"] + [f"{256 + i} {256 + i}" for i in range(40)]
    data = ("\n".join(lines) + "\n").encode()
    out = run_capped("import bpe_core\n" + OUTCOME.format(
        call=f"bpe_core.read_tokenizer({data!r}, 'bomb.model')"))
    assert out.startswith("ValueError"), out


@pytest.mark.timeout(8)
def test_a_tiktoken_file_with_one_long_token_is_read_quickly():
    with pytest.raises(ValueError):  # "a" * 200_000 cannot be made from "a" and "aa"
        read_tokenizer(tiktoken_ranks((b"aa", 256), (b"a" * 200_000, 257)), "long.tiktoken")


def test_a_link_with_a_5000_digit_number_is_explained():
    at = AppTest.from_file(APP_PATH, default_timeout=60)
    at.query_params.update({"vocab": "9" * 5_000, "step": "9" * 5_000})
    at.run()
    assert_ok(at)
    assert "is not a whole number" in texts_of(at.info)


def slow_run(seconds: float) -> str:
    """A run of "a"s then "!" that ``(a|aa)+$`` takes about ``seconds`` of this thread's time to
    split (it tries every way to cut the run; each "a" more costs about 1.6 times as much),
    measured here, so that the test means the same on a fast or a slow machine."""
    splitter = RegexTokenizer(r"(a|aa)+$|\S|\s")  # no budget: in-process, on this thread
    n = 12
    while True:
        start = time.thread_time()
        splitter.split("a" * n + "!")
        if time.thread_time() - start >= seconds:
            return "a" * n + "!"
        n += 1


@pytest.mark.timeout(60)
def test_special_tokens_do_not_multiply_the_split_timeout():
    tok = RegexTokenizer(r"(a|aa)+$|\S|\s", timeout=0.5)
    tok.register_special_tokens({"<|s|>": 1000})
    piece = slow_run(0.1)
    # 12 segments of about 0.1 s each: 1.2 s in all, against a bound of 0.5 s for the whole text
    with pytest.raises(ValueError, match="took longer"):
        tok.encode((piece + "<|s|>") * 12, allowed_special="all")


@pytest.mark.parametrize("kept", [0, 50])
def test_a_merges_txt_cut_at_a_line_is_a_value_error(kept, valid_files):
    vocab, merges = valid_files["vocab.json"], valid_files["merges.txt"]
    cut = b"\n".join(merges.split(b"\n")[: 1 + kept]) + b"\n"  # "#version" and `kept` merges
    with pytest.raises(ValueError):
        read_tokenizer(vocab, "vocab.json", merges=cut)


@pytest.mark.parametrize("name", ["vocab.json", "tokenizer.json"])
def test_two_tokens_with_one_id_are_a_value_error(name, valid_files):
    # GPT-2's table spells the byte 0x99 "Ļ"; give it the id of "5" (53): one byte deleted
    data = valid_files[name].replace('"Ļ": 153'.encode(), '"Ļ": 53'.encode())
    assert data != valid_files[name]
    with pytest.raises(ValueError):
        read_tokenizer(data, name, merges=valid_files["merges.txt"])


@pytest.mark.timeout(180)
def test_a_huge_custom_pattern_is_refused_or_cut():
    at = open_page()
    custom(at, "a" * 150_000).button(key="train").click().run(timeout=120)
    assert_ok(at)
    assert len(at.session_state["pattern"]) <= 10_000 or at.error


def test_a_link_cannot_put_a_link_on_the_page():
    at = AppTest.from_file(APP_PATH, default_timeout=60)
    at.query_params.update({"sample": "[y](https://e.vil/)", "kind": "[x](javascript:alert(3))"})
    at.run()
    assert_ok(at)


def test_an_uploaded_file_name_cannot_put_a_link_on_the_page():
    at = open_page()
    at.file_uploader(key="upload").set_value(("[y](https://e.vil/).txt", b"\xff", "text/plain"))
    at.run()
    assert_ok(at)


def test_a_special_token_message_cannot_put_a_link_on_the_page():
    at = open_page()
    at.text_input(key="specials").set_value("[y](https://e.vil/)" + "x" * 100).run()
    assert "too long" in texts_of(at.error)
    assert_ok(at)


LONG = "Ω" * 100_000  # a file's text that no message may quote whole


def long_cases(valid) -> dict[str, tuple[bytes, dict]]:
    """Files whose one bad part is 100,000 characters long: ``{label: (data, read_tokenizer
    keyword arguments)}``, each refused by a reader that quotes the bad part."""
    document = json.loads(valid["tokenizer.json"])
    document["model"]["type"] = LONG
    bad_type = json.dumps(document).encode()
    document = json.loads(valid["tokenizer.json"])
    document["model"]["merges"][0] = LONG + " x"
    bad_merge = json.dumps(document).encode()
    special_twice = f"minbpe v1\n\n2\n{LONG} 300\n{LONG} 301\n".encode()
    long_key = valid["vocab.json"].replace(b'{"', ('{"' + LONG + '": 7, "').encode(), 1)
    return {
        "tokenizer.json model.type": (bad_type, {"name": "tokenizer.json"}),
        "tokenizer.json merge of unknown tokens": (bad_merge, {"name": "tokenizer.json"}),
        ".model special token twice": (special_twice, {"name": "x.model"}),
        "vocab.json key outside GPT-2's bytes": (long_key, {"name": "vocab.json",
                                                            "merges": valid["merges.txt"]}),
        "merges.txt line of unknown tokens": (
            valid["merges.txt"] + ("Ġ" + LONG + " q\n").encode(),
            {"name": "merges.txt", "vocab": valid["vocab.json"]}),
        "tiktoken line that is not base64": (tiktoken_ranks() + LONG.encode() + b" 300\n",
                                             {"name": "x.tiktoken"}),
    }


@pytest.mark.parametrize("label", [
    "tokenizer.json model.type", "tokenizer.json merge of unknown tokens",
    ".model special token twice", "vocab.json key outside GPT-2's bytes",
    "merges.txt line of unknown tokens", "tiktoken line that is not base64"])
def test_messages_quote_file_content_briefly(label, valid_files):
    data, kwargs = long_cases(valid_files)[label]
    with pytest.raises(ValueError) as info:
        read_tokenizer(data, **kwargs)
    message = str(info.value)
    assert len(message) < 600, message[:600]
    assert "ΩΩΩ" in message or "line" in message  # it still says where, or shows the start


def test_the_special_token_messages_of_the_core_are_brief():
    tok = RegexTokenizer()
    tok.train("hello world", 260)
    tok.register_special_tokens({LONG: 1000})
    for call in (lambda: tok.register_special_tokens({LONG: 1001}),
                 lambda: tok.encode("a" + LONG),
                 lambda: tok.encode("a" + LONG, allowed_special={LONG + "x"})):
        with pytest.raises(ValueError) as info:
            call()
        assert len(str(info.value)) < 600


ABSURD = {  # an id far beyond any vocabulary, in every place a file gives one
    "x.tiktoken rank": lambda v: (tiktoken_ranks((b"ab", 10**30)), {}),
    "x.model special id": lambda v: (b"minbpe v1\n\n1\n<|s|> 1" + b"0" * 30 + b"\n", {}),
    "x.model special id of 5,000 digits": lambda v: (b"minbpe v1\n\n1\n<|s|> " + b"9" * 5_000
                                                     + b"\n", {}),
    "tokenizer.json vocab id": lambda v: (
        v["tokenizer.json"].replace(b'"a": 97', b'"a": ' + b"9" * 40), {}),
    "vocab.json id": lambda v: (v["vocab.json"].replace(b'"<|end|>": 500',
                                                        b'"<|end|>": ' + str(2**31).encode()),
                                {"merges": v["merges.txt"]}),
}


@pytest.mark.parametrize("label", list(ABSURD))
def test_absurd_ids_are_refused_by_the_core(label, valid_files):
    data, kwargs = ABSURD[label](valid_files)
    assert data not in valid_files.values()  # the absurd id is in
    name = label.split()[0]
    with pytest.raises(ValueError, match="larger than this tool reads") as info:
        read_tokenizer(data, name, **kwargs)
    assert len(str(info.value)) < 600


def test_an_absurd_added_token_id_in_a_tokenizer_json_is_read_as_hugging_face_reads_it(valid_files):
    """tokenizers ignores the ids written in ``added_tokens`` and numbers the added tokens after
    the vocabulary (issue 35): an id of 2**31 there is no longer refused, it is not read at all,
    and ``tok.ignored`` says which id the file gave and which the token took."""
    import tokenizers

    data = valid_files["tokenizer.json"].replace(b'"id": 500', b'"id": ' + str(2**31).encode())
    assert data != valid_files["tokenizer.json"]
    tok = read_tokenizer(data, "tokenizer.json")
    hf = tokenizers.Tokenizer.from_str(data.decode("utf-8"))
    assert tok.special_tokens["<|end|>"] == hf.token_to_id("<|end|>") < 2**31
    assert any(str(2**31) in line and "Hugging Face" in line for line in tok.ignored)


def test_an_absurd_special_id_is_refused_and_changes_nothing():
    tok = RegexTokenizer()
    tok.train("hello world", 260)
    with pytest.raises(ValueError, match="larger than this tool reads"):
        tok.register_special_tokens({"<|s|>": 2**31})
    assert tok.special_tokens == {}


@pytest.mark.parametrize("bad", [
    {"<|ok|>": 1000, "\ud800": 1001},  # a lone surrogate: UTF-8 cannot encode it
    {"<|ok|>": 1000, "<|also|>": 1000},  # two tokens, one id
    {"<|ok|>": 1000, "<|s|>": -1},
    {"<|ok|>": 1000, "": 1001},
    {"<|ok|>": 1000, "<|s|>": 100},  # the id of a learned token
])
def test_register_special_tokens_is_all_or_nothing(bad):
    tok = RegexTokenizer()
    tok.train("hello world, hello again", 262)
    tok.register_special_tokens({"<|first|>": 900})
    vocab, specials = dict(tok.vocab), dict(tok.special_tokens)
    with pytest.raises(ValueError):
        tok.register_special_tokens(bad)
    assert tok.special_tokens == specials and tok.vocab == vocab
    assert tok.encode("hello <|first|> world", allowed_special="all") == (
        tok.encode("hello ") + [900] + tok.encode(" world"))
    assert tok.decode(tok.encode("<|ok|>", allowed_special="all")) == "<|ok|>"  # plain text


def test_a_failed_first_training_from_a_link_is_not_retried_on_every_rerun(monkeypatch):
    import ui.sidebar.panel

    calls = []

    def failing(text, settings, **kwargs):
        calls.append(settings.kind)
        raise ValueError("the split pattern took longer than 2.0 s on this text")

    monkeypatch.setattr(ui.sidebar.panel, "train", failing)  # the sidebar trains by ui.kit.families.train
    at = AppTest.from_file(APP_PATH, default_timeout=60)
    at.query_params.update({"kind": "custom", "pattern": r"(\w+)+!"})
    at.run()
    assert_ok(at)
    assert "took longer" in texts_of(at.error)
    assert calls == ["Train: custom split pattern"]
    at.run()  # a rerun, e.g. any widget
    at.switch_page("pages/tokens.py").run()
    assert_ok(at)
    assert len(calls) == 1  # not tried again by itself
    at.button(key="train").click().run()  # the user asks: it is tried again
    assert len(calls) == 2
