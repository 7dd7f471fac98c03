"""AppTest tests for the Tokens page (pages/tokens.py)."""

from __future__ import annotations

import html
import re
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest
from support import open_page

from ui.kit.samples import load_samples
from ui.kit.state import PAGE_CSS
from ui.kit.tokens_html import MAX_SPANS

APP = str(Path(__file__).resolve().parents[2] / "app.py")
SAMPLES = load_samples()
HOSTILE = (
    "<script>alert(1)</script><img src=x onerror=alert(1)>\"'><style>body{display:none}</style>"
)


@pytest.fixture
def at():
    return open_page("pages/tokens.py")


def view(app) -> str:
    """The token (or chunk) view's HTML: the first st.html element on the page."""
    return app.html[0].value


def spans(markup: str) -> list[str]:
    """The class lists of the token spans."""
    return re.findall(r'<span class="(t [^"]*)"', markup)


def read_back(markup: str) -> str:
    """The text a reader sees in the view: its tags dropped, its entities decoded."""
    body = markup.split('<div class="bpe-tokens', 1)[1].split(">", 1)[1]
    return html.unescape(re.sub(r"<[^>]*>", "", body))


def metrics(app) -> dict[str, str]:
    return {m.label: m.value for m in app.metric}


def test_coloured_view_has_one_span_per_token(at):
    tok = at.session_state["tok"]
    text = SAMPLES["English prose"]
    ids = tok.encode(text)
    markup = view(at)
    assert len(spans(markup)) == len(ids)
    assert re.findall(r'title="id (\d+) ', markup) == [str(i) for i in ids]
    assert metrics(at) == {
        "Characters": f"{len(text):,}",
        "Bytes": f"{len(text.encode()):,}",
        "Tokens": f"{len(ids):,}",
        "Bytes per token": f"{len(text.encode()) / len(ids):.2f}",
    }
    assert at.code[0].value == ", ".join(map(str, ids))  # the id list in its expander


def test_toggles_change_the_view(at):
    tok = at.session_state["tok"]
    ids = tok.encode(SAMPLES["English prose"])
    plain = view(at)
    at.toggle(key="tokens_ids").set_value(True).run()
    assert re.findall(r'<span class="id">(\d+)</span>', view(at)) == [str(i) for i in ids]
    assert 'class="bpe-tokens ids"' in view(at)
    at.toggle(key="tokens_ids").set_value(False).run()
    assert view(at) == plain
    at.toggle(key="tokens_whitespace").set_value(True).run()
    assert '<span class="ws">·</span>' in view(at) and "↵" in view(at)
    at.toggle(key="tokens_large").set_value(True).run()
    assert 'class="bpe-tokens large"' in view(at)
    at.toggle(key="tokens_large").set_value(False).run()
    assert 'class="bpe-tokens"' in view(at)
    at.toggle(key="projector").set_value(True).run()  # the sidebar's projector mode
    assert 'class="bpe-tokens large"' in view(at)
    at.radio(key="tokens_colour").set_value("length").run()
    assert {c.split()[1] for c in spans(view(at))} <= {f"s{i}" for i in range(8)}
    assert "8+ bytes" in at.html[1].value  # the legend
    at.radio(key="tokens_colour").set_value("age").run()
    assert "merge 1–" in at.html[1].value
    assert not at.exception


def test_options_survive_a_page_change(at):
    at.toggle(key="tokens_ids").set_value(True).run()
    at.radio(key="tokens_colour").set_value("age").run()
    at.switch_page("pages/overview.py").run()
    at.switch_page("pages/tokens.py").run()
    assert at.toggle(key="tokens_ids").value is True
    assert at.radio(key="tokens_colour").value == "age"


def test_hostile_pasted_text_is_shown_escaped(at):
    at.text_area(key="text").input(HOSTILE).run()
    assert not at.exception
    for ws in (False, True):
        at.toggle(key="tokens_whitespace").set_value(ws).run()
        markup = view(at).lower()
        for raw in ("<script", "<img", "<style>body", "onerror=alert"):
            assert raw not in markup
    at.toggle(key="tokens_whitespace").set_value(False).run()
    assert read_back(view(at)) == HOSTILE
    at.radio(key="tokens_view").set_value("Chunks (split pattern)").run()
    markup = view(at).lower()
    assert "<script" not in markup and "<img" not in markup and "<style>body" not in markup
    assert read_back(view(at)) == HOSTILE


def test_empty_text_says_so(at):
    at.text_area(key="text").input("").run()
    assert not at.exception
    assert "The text is empty" in at.info[0].value
    assert [h.value for h in at.html] == [PAGE_CSS]  # no tokens drawn; only the app's own CSS


def test_no_tokenizer_yet_says_so():
    app = AppTest.from_file(APP, default_timeout=60)
    app.session_state["text"] = ""  # the first visit cannot train on an empty text
    app.run()
    app.switch_page("pages/tokens.py").run()
    assert not app.exception
    assert "Train" in app.info[0].value


def test_pretrained_gpt4(at):
    at.selectbox(key="kind").set_value("Pretrained: GPT-4 (cl100k_base)").run()
    at.text_area(key="text").input("hello world €").run()
    assert not at.exception
    markup = view(at)
    assert re.findall(r'title="id (\d+) ', markup) == ["15339", "1917", "13281"]  # tiktoken's
    assert metrics(at)["Tokens"] == "3"


def test_partial_characters_show_as_bytes(at):
    at.selectbox(key="kind").set_value("Pretrained: GPT-2").run()
    at.text_area(key="text").input("🧩").run()  # GPT-2 has no token for the emoji's last bytes
    markup = view(at)
    assert "\ufffd" not in markup
    assert '<span class="bytes">' in markup
    assert any("part of a UTF-8 character" in c.value for c in at.caption)


def test_special_token_stands_out(at):
    at.text_area(key="text").input("the end<|endoftext|>a new start. " * 20).run()
    at.text_input(key="specials").input("<|endoftext|>").run()
    at.button(key="train").click().run()
    assert not at.exception and not at.error
    pattern = r'<span class="t [^"]*special[^"]*" role="listitem" title="([^"]*)"[^>]*>([^<]*)<'
    # by default the sidebar reads special-token text as text: no special token, and it says so
    assert re.findall(pattern, view(at)) == []
    captions = [re.sub(r"\\(.)", r"\1", c.value) for c in at.caption]  # Markdown's escapes undone
    assert any("<|endoftext|> appears 20 times; read as text" in c for c in captions)
    at.sidebar.radio(key="special_rule").set_value("special").run()  # read as special tokens
    markup = view(at)
    special = re.findall(pattern, markup)
    assert len(special) == 20
    assert special[0][1] == "&lt;|endoftext|&gt;"
    assert "special token" in special[0][0]
    at.radio(key="tokens_view").set_value("Chunks (split pattern)").run()
    assert view(at).count("special") >= 20


def test_chunks_view(at):
    tok = at.session_state["tok"]
    at.radio(key="tokens_view").set_value("Chunks (split pattern)").run()
    assert not at.exception
    assert len(spans(view(at))) == len(tok.split(SAMPLES["English prose"]))
    assert at.radio(key="tokens_colour").disabled
    at.selectbox(key="kind").set_value("Train: no split (Basic)").run()
    at.button(key="train").click().run()
    assert "the whole text is one chunk" in at.info[0].value
    assert len(spans(view(at))) == 1


def test_long_text_is_bounded_with_a_note(at):
    at.text_area(key="text").input("ab cd " * 25_000).run()  # 50,000 tokens
    assert not at.exception
    n = int(metrics(at)["Tokens"].replace(",", ""))
    assert n > MAX_SPANS
    assert len(spans(view(at))) == MAX_SPANS
    captions = [c.value for c in at.caption]
    assert f"Showing the first {MAX_SPANS:,} of {n:,} tokens." in captions
    assert f"Showing the first 5,000 of {n:,} ids." in captions
    assert len(at.code[0].value.split(", ")) == 5_000
