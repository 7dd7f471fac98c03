"""AppTest tests for the Export & import page (pages/exchange.py).

Download contents are not readable in AppTest: tests/test_exchange.py tests the bytes of every
download. Here: which buttons show, and uploads driven through ``at.file_uploader``.
"""

import base64
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest
from support import front_box, front_counts

from bpe_core import GPT4_SPLIT_PATTERN, BasicTokenizer, RegexTokenizer
from bpe_core.formats import to_hf_json
from ui.exchange.files import (
    EXPORTS,
    gpt2_merges_bytes,
    gpt2_vocab_bytes,
    minbpe_model_bytes,
    tiktoken_bytes,
    tiktoken_sidecar_bytes,
)

APP = str(Path(__file__).resolve().parents[2] / "app.py")
PAGE = "pages/exchange.py"
EXPORT_KEYS = [e.key for e in EXPORTS] + ["export_zip"]


@pytest.fixture
def at():
    app = AppTest.from_file(APP, default_timeout=60)
    app.run()
    app.switch_page(PAGE).run()
    assert not app.exception
    return app


def download_keys(app) -> list[str]:
    return [b.key for b in app.get("download_button")]


def basic_tokenizer() -> BasicTokenizer:
    tok = BasicTokenizer()
    tok.train("aaabdaaabac " * 20, 262)
    tok.register_special_tokens({"<|end|>": 300})
    return tok


def upload(app, *files):
    """Upload ``(name, bytes)`` files through the page's uploader and rerun."""
    value = [(name, data, "application/octet-stream") for name, data in files]
    return app.file_uploader(key="import_file").set_value(value).run()


def test_trained_tokenizer_gets_every_download_button(at):
    assert download_keys(at) == EXPORT_KEYS
    assert not at.warning and not at.error
    labels = [b.label for b in at.get("download_button")]
    assert "Download minbpe .model" in labels


def test_preset_shows_why_model_is_missing_and_offers_the_rest(at):
    at.selectbox(key="kind").set_value("Pretrained: GPT-4 (cl100k_base)").run()
    assert not at.exception
    keys = download_keys(at)
    assert "export_model" not in keys and "export_vocab" not in keys
    assert {"export_hf", "export_tiktoken", "export_gpt2_vocab", "export_gpt2_merges",
            "export_history", "export_zip"} <= set(keys)
    assert len(at.warning) == 2
    assert "256 bytes in its own order" in at.warning[0].value


def test_importing_a_model_makes_it_the_tokenizer_on_every_page(at):
    tok = basic_tokenizer()
    upload(at, ("abc.model", minbpe_model_bytes(tok)))
    assert not at.exception and not at.error
    assert at.selectbox(key="kind").value == "Imported file"
    imported, name = at.session_state["imported"]
    assert name == "abc.model" and imported.merges == tok.merges
    summary = dict(zip(*at.dataframe[0].value.to_dict("list").values(), strict=True))
    assert summary["Format"] == "minbpe .model" and summary["Merges"] == "6"
    assert "<|end|> = 300" in summary["Special tokens"]
    assert "Every page now uses" in at.success[0].value
    # another page uses it
    at.text_area(key="text").set_value("aaabdaaabac").run()
    at.switch_page("pages/overview.py").run()
    assert not at.exception
    assert at.selectbox(key="kind").value == "Imported file"
    assert front_box(at)["heads"]["yours"] == "Yours · imported from abc.model"
    assert front_counts(at)["Tokens"] == str(len(tok.encode("aaabdaaabac")))
    assert "Merges (6)" in [s.value for s in at.header]
    # and the export page now offers it for download
    at.switch_page(PAGE).run()
    assert download_keys(at) == EXPORT_KEYS


@pytest.mark.parametrize(
    ("name", "data", "message"),
    [
        ("bad.model", b"minbpe v1\n\n0\n1 2 3\n", "line 4"),
        ("noise.bin", bytes(range(256)) * 8, "not a tokenizer file"),
        ("huge.tiktoken", b"QQ== 0\n" * (10 * 1024 * 1024 // 7 + 1), "more than the 10 MB"),
    ],
)
def test_a_bad_file_shows_an_error_and_keeps_the_tokenizer(at, name, data, message):
    before = at.session_state["tok"]
    upload(at, (name, data))
    assert not at.exception
    assert message in at.error[0].value.replace("\\", "")
    assert "current tokenizer is kept" in at.error[0].value
    assert at.session_state["tok"] is before
    assert at.selectbox(key="kind").value == "Train: GPT-4 split"
    assert "imported" not in at.session_state


def test_a_bad_file_after_an_import_keeps_the_imported_tokenizer(at):
    upload(at, ("good.model", minbpe_model_bytes(basic_tokenizer())))
    first = at.session_state["imported"]
    upload(at, ("bad.model", b"minbpe v1\n\n0\n1 2 3\n"))
    assert at.error and at.session_state["imported"] is first
    assert at.selectbox(key="kind").value == "Imported file"
    assert "Every page now uses" in at.success[0].value  # the summary of the one still in use


def test_vocab_json_and_merges_txt_together_with_the_chosen_pattern(at):
    tok = at.session_state["tok"]  # trained with the GPT-4 split
    at.selectbox(key="import_pattern").set_value("GPT-4 (cl100k_base)").run()
    upload(at, ("vocab.json", gpt2_vocab_bytes(tok)), ("merges.txt", gpt2_merges_bytes(tok)))
    assert not at.exception and not at.error
    imported, name = at.session_state["imported"]
    assert name == "vocab.json + merges.txt"
    assert imported.pattern == GPT4_SPLIT_PATTERN and imported.merges == tok.merges
    # choosing another pattern reads the files again with it
    at.selectbox(key="import_pattern").set_value("None (no split, like Basic)").run()
    assert type(at.session_state["imported"][0]) is BasicTokenizer


def test_tiktoken_upload_takes_the_special_tokens_written_on_the_page(at):
    tok = basic_tokenizer()
    at.selectbox(key="import_pattern").set_value("None (no split, like Basic)").run()
    at.text_input(key="import_specials").input("<|end|>=300").run()
    upload(at, ("abc.tiktoken", tiktoken_bytes(tok)))
    assert not at.exception and not at.error
    imported = at.session_state["imported"][0]
    assert imported.special_tokens == {"<|end|>": 300}
    text = "aaab<|end|>daaabac"
    assert imported.encode(text, allowed_special="all") == tok.encode(text, allowed_special="all")


def test_tiktoken_without_its_sidecar_says_what_is_missing_and_reads_it_with_the_sidecar(at):
    tok = basic_tokenizer()
    before = at.session_state["tok"]
    upload(at, ("abc.tiktoken", tiktoken_bytes(tok)))
    assert not at.exception
    message = at.error[0].value.replace("\\", "")
    assert "do not hold the split pattern or the special tokens" in message
    assert "abc.tiktoken.bpe-lab.json" in message and "choose its split pattern" in message
    assert at.session_state["tok"] is before
    upload(at, ("abc.tiktoken", tiktoken_bytes(tok)),
           ("abc.tiktoken.bpe-lab.json", tiktoken_sidecar_bytes(tok)))
    assert not at.exception and not at.error
    imported = at.session_state["imported"][0]
    assert type(imported) is BasicTokenizer and imported.special_tokens == {"<|end|>": 300}
    assert imported.history == tok.history and len(tok.history) == 6
    text = "aaab<|end|>daaabac"
    assert imported.encode(text, allowed_special="all") == tok.encode(text, allowed_special="all")


def test_badly_written_special_tokens_show_an_error(at):
    at.text_input(key="import_specials").input("<|end|>").run()
    upload(at, ("abc.tiktoken", tiktoken_bytes(basic_tokenizer())))
    assert not at.exception
    assert "token=id" in at.error[0].value.replace("\\", "")
    assert "imported" not in at.session_state


def test_an_imported_file_name_is_shown_as_written_not_as_markdown():
    from bpe_core import BasicTokenizer
    from bpe_core.files import to_minbpe

    tok = BasicTokenizer()
    tok.train("hello hello hello", 260)
    at = AppTest.from_file(APP, default_timeout=60)
    at.run()
    at.switch_page("pages/exchange.py").run()
    at.file_uploader(key="import_file").set_value(
        [("__init__.model", to_minbpe(tok)[0].encode(), "application/octet-stream")]
    ).run()
    at.switch_page("pages/overview.py").run()
    # the box's heading is text (textContent): written as it is
    assert front_box(at)["heads"]["yours"] == "Yours · imported from __init__.model"
    # in Markdown (the caption), escaped so that it reads __init__.model, not bold "init"
    assert any(r"Tokenizer: imported from \_\_init\_\_\.model." in c.value for c in at.caption)


def test_a_tokenizer_json_that_normalizes_works_on_every_page(at):
    """Lowercase + NFKC and an added token: the import page says what happens before BPE and
    what encode() leaves out, the formats that cannot carry it are refused with the reason, and
    every page runs on it with Hugging Face's ids."""
    from tokenizers import AddedToken, Tokenizer, normalizers, processors

    tok = RegexTokenizer()
    tok.train("Hello World, hello world. Ｆｕｌｌ ｗｉｄｔｈ ﬁne. " * 20, 300)
    hf = Tokenizer.from_str(to_hf_json(tok))
    hf.normalizer = normalizers.Sequence([normalizers.NFKC(), normalizers.Lowercase()])
    hf.add_tokens([AddedToken("<tool>", special=False)])
    hf.post_processor = processors.TemplateProcessing(single="<tool> $A",
                                                      special_tokens=[("<tool>", 300)])
    upload(at, ("tokenizer.json", hf.to_str().encode()))
    assert not at.exception and not at.error
    summary = dict(zip(*at.dataframe[0].value.to_dict("list").values(), strict=True))
    assert "lowercase" in summary["Before BPE"] and "NFKC" in summary["Before BPE"]
    assert any("Left out" in c.value and "processor" in c.value for c in at.caption)
    keys = download_keys(at)
    assert "export_hf" in keys and "export_model" not in keys and "export_tiktoken" not in keys
    assert any("tokenizer.json" in w.value and "lowercase" in w.value for w in at.warning)
    text = "HELLO <tool> Ｗｏｒｌｄ"
    expected = hf.encode(text, add_special_tokens=False).ids
    at.text_area(key="text").set_value(text).run()
    for page in ("pages/overview.py", "pages/tokens.py", "pages/steps.py", "pages/forest.py",
                 "pages/compare.py", "pages/lesson.py", "pages/bytes.py"):
        at.switch_page(page).run()
        assert not at.exception, page
    # every page's sidebar says the text is shown as BPE sees it, and why
    assert any("Before BPE it does" in c.value and "lowercase" in c.value for c in at.caption)
    imported, _ = at.session_state["imported"]
    assert imported.encode(text) == expected


def counting_tokenizer(vocab_size: int) -> BasicTokenizer:
    tok = BasicTokenizer()
    tok.train(" ".join(str(i) for i in range(4_000)), vocab_size)
    return tok


def test_an_upload_past_the_sessions_memory_bound_is_refused_by_name(at, monkeypatch):
    """The bound a session's tokenizers may take (ui/kit/budget.py), set here between what a
    small and a larger upload would take the session to: the larger is refused with a message
    naming the bound, the trained tokenizer stays; the small one loads."""
    from ui.kit import budget

    small, large = counting_tokenizer(300), counting_tokenizer(900)
    assert len(large.vocab) > 2 * len(small.vocab)
    held = budget.tokenizer_bytes(at.session_state["tok"])  # the sample's, trained on arrival
    between = held + (budget.tokenizer_bytes(small) + budget.tokenizer_bytes(large)) // 2
    monkeypatch.setattr(budget, "SESSION_MEMORY_MB", between / budget.MB)
    before = at.session_state["tok"]
    upload(at, ("large.model", minbpe_model_bytes(large)))
    assert not at.exception
    message = at.error[0].value.replace("\\", "")
    assert f"each session may hold {between / budget.MB:g} MB" in message
    assert "This tokenizer (900 tokens)" in message and "current tokenizer is kept" in message
    assert at.session_state["tok"] is before and "imported" not in at.session_state
    assert at.selectbox(key="kind").value == "Train: GPT-4 split"
    # a file with more lines than the bound has room for tokens is refused before it is read
    ranks = b"".join(base64.b64encode(bytes([a, b])) + b" %d\n" % (a * 256 + b)
                     for a in range(256) for b in range(256))
    upload(at, ("many.tiktoken", ranks))
    message = at.error[0].value.replace("\\", "")
    assert "A file of up to 65,536 tokens" in message
    assert f"each session may hold {between / budget.MB:g} MB" in message
    assert at.session_state["tok"] is before and "imported" not in at.session_state

    upload(at, ("small.model", minbpe_model_bytes(small)))
    assert not at.exception and not at.error
    assert at.session_state["imported"][0].encode("1234 567") == small.encode("1234 567")
    assert at.selectbox(key="kind").value == "Imported file"


def test_the_bound_admits_gpt_4o_and_refuses_a_300k_token_vocabulary():
    """GPT-4o's 200,019 tokens (a user may upload its file) fit a session's bound beside a
    trained tokenizer; a 300,000-token one (issue 43: 303 MB a session) does not."""
    from bpe_core.pretrained import load_pretrained
    from ui.kit import budget

    o200k = load_pretrained("o200k_base")
    trained = budget.size_bytes(8_192)
    assert budget.refusal("GPT-4o", budget.tokenizer_bytes(o200k), trained) is None
    scale = 300_000 / len(o200k.vocab)
    assert budget.refusal("300k", int(budget.tokenizer_bytes(o200k) * scale), trained)
