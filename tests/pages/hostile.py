"""What the hostile-input matrix (tests/pages/test_hostile.py, test_hostile_files.py) shares:
the payloads, the checks of a page after one, and a small tokenizer in every format."""

from __future__ import annotations

import base64
import re
from pathlib import Path

from bpe_core import clean_text
from ui.kit.samples import load_samples
from ui.lesson import tutorial as le

ROOT = Path(__file__).resolve().parents[2]

PAGES = ["pages/overview.py", "pages/tokens.py", "pages/steps.py", "pages/forest.py",
         "pages/compare.py", "pages/exchange.py", "pages/bytes.py", "pages/variants.py",
         "pages/beyond.py",
         "pages/check.py", "pages/languages.py", "pages/numbers.py", "pages/health.py",
         "pages/report.py", "pages/chat.py",
         "pages/lesson.py"]  # the lesson last: visit_all goes on there
SAMPLES = load_samples()

# -- payloads --------------------------------------------------------------------------------------

HTML = (
    "<script>alert(1)</script> <img src=x onerror=alert(2)> <style>body{display:none}</style>"
    " [x](javascript:alert(3)) [y](https://e.vil/) <iframe srcdoc='<script>alert(4)</script>'>"
)
CONTROLS = ("".join(map(chr, range(32))) + "\x7f" + "".join(map(chr, range(0x80, 0xA0)))
            + "\u202e\u2066\u200b ok")
WHITESPACE = " \t\n\r\n\u00a0\u3000 "
HUGE = 10_000_000  # characters or bytes: ten times the text cap, just under the upload limit
ABSURD_IDS = "99999999999999999999999999999999999 -5 1e9 0x10 ² ٣ 1.5 NaN 104 105"
PAYLOADS = {"empty": "", "whitespace": WHITESPACE, "controls": CONTROLS, "html": HTML}

# Markup from the payload, unescaped (the app's own <style> blocks are fine; the payload's is not)
RAW_TAG = re.compile(r"<\s*(script|img|iframe)\b|<style>body", re.IGNORECASE)
RAW_TAG_MD = re.compile(r"(?<!\\)" + RAW_TAG.pattern, re.IGNORECASE)  # Markdown escapes: \<
# A Markdown link made from the payload: an unescaped "](" before the payload's targets
LINK = re.compile(r"(?<!\\)\]\(\s*(javascript:|https://e\.vil)", re.IGNORECASE)


def markdown_values(at) -> list[str]:
    """Every value Streamlit renders as Markdown."""
    values = []
    for kind in ("markdown", "caption", "info", "warning", "error", "success", "title",
                 "header", "subheader"):
        values += [str(e.value) for e in getattr(at, kind)]
    for m in at.metric:
        values += [str(m.label), str(m.value)]
    return values


def assert_ok(at, where: str = "") -> None:
    """No traceback, and nothing of the payload runs or links in the browser."""
    assert not at.exception, (where, [e.value for e in at.exception])
    for h in at.html:
        found = RAW_TAG.search(h.value)
        assert found is None, (where, h.value[max(0, found.start() - 80) : found.end() + 80])
    for value in [m.value for m in at.markdown]:
        assert RAW_TAG_MD.search(value) is None, (where, value[:300])
    for value in markdown_values(at):
        assert LINK.search(value) is None, (where, value[:300])


def visit_all(at, lesson: bool = True) -> None:
    """Every page, the Tokens page's chunk view, every lesson step and the quiz."""
    for page in PAGES:
        at.switch_page(page).run()
        assert_ok(at, page)
        if page == "pages/tokens.py" and "tokens_view" in [r.key for r in at.radio]:
            at.radio(key="tokens_view").set_value("Chunks (split pattern)").run()
            assert_ok(at, "chunks")
            at.radio(key="tokens_view").set_value("Tokens").run()
    if not lesson:
        return
    for step in le.STEPS:
        at.radio(key="lesson_step").set_value(step).run()
        assert_ok(at, step)
    at.radio(key="lesson_mode").set_value("Predict the next merge").run()
    assert_ok(at, "quiz")
    at.radio(key="lesson_mode").set_value("Guided lesson").run()


def texts_of(elements) -> str:
    """The messages as a reader sees them: Markdown's backslash escapes removed."""
    return "\n".join(re.sub(r"\\(.)", r"\1", str(e.value)) for e in elements)


def round_trips(tok, text: str) -> bool:
    return tok.decode(tok.encode(text, allowed_special="all")) == clean_text(text)


def custom(at, pattern: str):
    at.selectbox(key="kind").set_value("Train: custom split pattern").run()
    at.text_input(key="pattern").set_value(pattern).run()
    return at


def tiktoken_ranks(*extra: tuple[bytes, int]) -> bytes:
    lines = [base64.b64encode(bytes([b])) + b" %d" % b for b in range(256)]
    lines += [base64.b64encode(token) + b" %d" % rank for token, rank in extra]
    return b"\n".join(lines) + b"\n"
