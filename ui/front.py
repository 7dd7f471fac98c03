"""The front page's "tokens as you type": a text box drawn in the browser that hands its text to
the server a moment after the last key, and the two token views the server draws from it.

The box is a custom component (``st.components.v2``): typing changes nothing on the server until
the user pauses for ``DEBOUNCE_MS``; then the component sets its ``text`` state, which reruns only
the fragment that holds it (pages/overview.py), never the whole page. One run at a time: what is
typed while the server draws a text is sent when that answer comes (the answer carries the text
it drew), so runs never queue behind a quick typist. The box owns its text while
the user types: a rerun hands back the same ``seed`` and leaves the box alone; a new seed (the
sidebar's text changed) replaces it. User text goes in through ``.value`` / ``textContent`` only.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from typing import Any

from ui.tokens_html import tokens_html

MAX_FRONT_CHARS = 5_000  # the box holds at most this many characters
DEBOUNCE_MS = 30  # the box sends its text this long after the last key
PATIENCE_MS = 3_000  # ... or, while a sent text is not drawn yet, when it is (at most this long)


def seed_text(sidebar_text: str) -> str:
    """What the box starts with: the sidebar's text, cut to ``MAX_FRONT_CHARS`` characters at the
    last line break before the limit when there is one.

    >>> seed_text("short")
    'short'
    >>> len(seed_text("ab\\n" * 3000)) <= MAX_FRONT_CHARS
    True
    """
    if len(sidebar_text) <= MAX_FRONT_CHARS:
        return sidebar_text
    cut = sidebar_text[:MAX_FRONT_CHARS]
    line = cut.rfind("\n")
    return cut[: line + 1] if line > MAX_FRONT_CHARS // 2 else cut


def view_html(tokens: Sequence, which: str, large: bool = False) -> str:
    """One tokenizer's tokens of the typed text (TokenSpans, or anything ``tokens_html`` draws),
    every piece of text escaped. ``which`` names the view for the page (and its browser test):
    ``data-view`` and ``data-tokens`` (how many tokens) on the wrapper."""
    body, _ = tokens_html(tokens, large=large, mark_new=False)
    return (
        f'<div class="front-view" data-view="{html.escape(which, quote=True)}" '
        f'data-tokens="{len(tokens)}">{body}</div>'
        "<style>.front-view .bpe-tokens { max-height: 22rem; }</style>"
    )


# -- the component: a text box that sends its text a moment after the last key -------------------

_BOX_CSS = """
.bpe-type textarea { width: 100%; box-sizing: border-box; min-height: 8.5em; resize: vertical;
  font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace;
  font-size: calc(1rem * var(--bpe-scale, 1)); line-height: 1.5; padding: 8px 10px;
  border: 1px solid #c8cad0; border-radius: 8px;
  color: #111; background: #fff; }
.bpe-type textarea:focus { outline: 2px solid #ff4b4b; outline-offset: 0; }
.bpe-type label { display: block; font-size: calc(0.9rem * var(--bpe-scale, 1));
  margin-bottom: 4px; color: #31333f; }
.bpe-type .left { font-size: 0.8rem; color: #555; text-align: right; }
"""

_BOX_HTML = """
<div class="bpe-type" data-testid="bpe-type">
  <label for="bpe-type-box">Type or paste here: the tokens below follow as you type</label>
  <textarea id="bpe-type-box" aria-label="Type here" spellcheck="false"></textarea>
  <div class="left" aria-live="off"></div>
</div>
"""

_BOX_JS = r"""
export default function (component) {
  const { data, parentElement, setStateValue } = component;
  const root = parentElement.querySelector(".bpe-type");
  if (!data || !root) return;
  const box = root.querySelector("textarea");
  const left = root.querySelector(".left");
  box.maxLength = data.max;
  const counter = () => {
    left.textContent = `${box.value.length.toLocaleString("en-US")} of ${data.max.toLocaleString("en-US")} characters`;
  };
  // what this box sent and when, kept between the server's answers (each answer calls this
  // function again, with the text the server drew as data.text)
  const s = root.bpeType || (root.bpeType = { sent: null, at: 0, timer: null });
  // the server replaces the text only with a new seed (a fresh mount, or the sidebar's text
  // changed); otherwise the box owns it while the user types
  if (root.dataset.seed !== String(data.seed)) {
    root.dataset.seed = String(data.seed);
    box.value = data.text;
    s.sent = null;
  }
  if (s.sent === data.text) s.sent = null;  // the answer to what was sent has come
  counter();
  // One run at a time: a text typed while the server draws the last one waits for that answer
  // and then goes at once, so a quick typist never queues runs behind one another (after
  // data.patience ms without an answer it goes anyway).
  const send = () => {
    clearTimeout(s.timer);
    s.timer = null;
    if (!root.isConnected) return;  // the page changed while a send waited: nothing to tell
    if (box.value === data.text && s.sent === null) return;  // nothing new
    const waited = performance.now() - s.at;
    if (s.sent !== null && waited < data.patience) {
      s.timer = setTimeout(send, data.patience - waited);
      return;
    }
    s.sent = box.value;
    s.at = performance.now();
    setStateValue("text", box.value);
  };
  box.oninput = () => {
    counter();
    clearTimeout(s.timer);
    s.timer = setTimeout(send, s.sent === null ? data.debounce : 0);
  };
  if (s.sent === null && box.value !== data.text) send();  // typed while the answer was on its way
}
"""


def register_box() -> Any:
    """The text box component, registered once per process (inline, nothing fetched)."""
    import streamlit as st

    return st.components.v2.component("bpe_lab.type", html=_BOX_HTML, css=_BOX_CSS, js=_BOX_JS)
