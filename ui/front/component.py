"""The front page's "tokens as you type": a text box and the two token views under it (the
sidebar's tokenizer and GPT-4o), drawn in the browser by one custom component
(``st.components.v2``).

At every key the box asks the front page's route (ui/front/route.py) for both views of its text
and draws the answer: no script runs. One question at a time; a text typed while one is out is
asked when its answer comes, so a quick typist never queues questions. An answer "superseded"
(409: a newer question of the same page's key took its place) or "too many" (429) is no
failure: the box asks again ``ASK_AGAIN_MS`` later, with its newest text. When the user pauses for
``SETTLE_MS`` the component also sets its ``text`` state, which reruns only the fragment that
holds it (pages/overview.py): the page keeps the text and redraws what follows it (the hint, the
merge slider). If the route cannot answer (a restarted server, a replaced tokenizer), that rerun
comes ``DEBOUNCE_MS`` after the last key instead and draws the views.

The box owns its text while the user types: a rerun hands back the same ``seed`` and leaves the
box alone; a new seed (the sidebar's text changed) replaces it. A view's data is
``view_data``: ids, and per distinct id the token's label parts (``label_parts``, the one
spelling) and hover text, which go into the page through ``textContent`` only.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ui.kit.focus import FOCUS_RULE
from ui.kit.page_change import PAGE_CHANGE_JS
from ui.kit.special_rule import DEFAULT_RULE, allowed_for, rule_note, specials_of
from ui.kit.tokens_html import CSS_RULES, PALETTE, label_parts, token_spoken, token_title

MAX_FRONT_CHARS = 5_000  # the box holds at most this many characters
SETTLE_MS = 400  # the page's script hears the text this long after the last key
DEBOUNCE_MS = 30  # ... or this long, when the route cannot answer and the script draws the views
PATIENCE_MS = 3_000  # ... or, while a sent text is not drawn yet, when it is (at most this long)
ASK_AGAIN_MS = 100  # the route answered "superseded" (409) or "too many" (429): ask again after
REFERENCE_VIEW = "gpt-4o"  # the second view's name (its data-view); the page chooses the tokenizer


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


def view_data(tok: Any, ids: Sequence[int], note: str = "") -> dict[str, Any]:
    """One tokenizer's tokens for the box's view, as plain JSON: the ``ids``, the bytes they
    stand for, and once per distinct id its label (``label_parts``: the one spelling of a token,
    drawn by the component as DOM nodes with ``textContent``), its hover text, whether it is
    a special token and its name for a screen reader (``token_spoken``, as every view says it); ``note``: the rule for special-token text, in words, drawn beside the
    count."""
    specials = set(tok.special_tokens.values())
    labels = {}
    for i in set(ids):
        token = tok.vocab[i]
        special = i in specials
        step = tok.step_of.get(i)  # the merge that made it: said as on every other page
        labels[str(i)] = [label_parts(token), token_title(i, token, step, special=special),
                          special, token_spoken(i, token, step, special=special)]
    return {"ids": list(ids), "labels": labels, "bytes": sum(len(tok.vocab[i]) for i in ids),
            "note": note}


def views_data(mine: Any, reference: Any, text: str,
               mine_ids: Sequence[int] | ValueError | None = None,
               reference_ids: Sequence[int] | None = None,
               rule: str = DEFAULT_RULE) -> dict[str, Any]:
    """Both views of ``text``: ``{"yours": ..., "gpt-4o": ...}``, special-token text read by
    ``rule`` (``ui.kit.special_rule``: "text" or "special"). ``mine_ids`` and ``reference_ids``
    are what the page has already (from the session's cache, under the same rule): the ids, or
    for ``mine_ids`` the ValueError that encoding them raised; the route passes neither and
    encodes. A view whose split pattern times out on the text (a custom pattern can) is
    ``{"error": message}``."""
    out: dict[str, Any] = {}
    allowed = allowed_for(rule)
    for which, tok, ids in (("yours", mine, mine_ids), (REFERENCE_VIEW, reference, reference_ids)):
        try:
            if isinstance(ids, ValueError):
                raise ids
            note = rule_note(rule, text, specials_of(tok))
            out[which] = view_data(tok, tok.encode(text, allowed_special=allowed)
                                   if ids is None else ids, note)
        except ValueError as e:
            out[which] = {"error": str(e)}
    return out


# -- the component: the box and both views, drawn in the browser -------------------------------

_BOX_CSS = CSS_RULES + """
.bpe-type textarea { width: 100%; box-sizing: border-box; resize: vertical;
  min-height: calc(8.5em / var(--bpe-scale, 1));  /* as high in projector mode: the views stay up */
  font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace;
  font-size: calc(1rem * var(--bpe-scale, 1)); line-height: 1.5; padding: 8px 10px;
  border: 1px solid #c8cad0; border-radius: 8px;
  color: #111; background: #fff; }
.bpe-type textarea:focus { @FOCUS_RULE@ }
.bpe-type label { display: block; font-size: calc(0.9rem * var(--bpe-scale, 1));
  margin-bottom: 4px; color: #31333f; }
.bpe-type .left { font-size: 0.8rem; color: #555; text-align: right; }
.bpe-type .cut { font-size: calc(0.9rem * var(--bpe-scale, 1)); color: #5c3c00; background: #fff4d6;
  border-radius: 6px; padding: 6px 10px; margin-top: 4px; }
/* two views beside each other from 30rem, their heads, counts, notes and tokens in line */
.bpe-type .views { display: grid; gap: 0 2rem; margin-top: 0.5rem;
  grid-template-columns: repeat(auto-fit, minmax(min(100%, 14rem), 1fr)); }
.bpe-type .side { display: grid; grid-row: span 4; grid-template-rows: subgrid; min-width: 0;
  align-content: start; }
.bpe-type .head { font-weight: 600; font-size: calc(1rem * var(--bpe-scale, 1)); margin: 0.3rem 0;
  overflow-wrap: anywhere; }
.bpe-type .stats { display: flex; gap: 1rem; margin: 0.2rem 0 0.5rem; }
.bpe-type .stat { flex: 0 1 auto; min-width: 0; overflow-wrap: anywhere; }  /* names wrap, not the row */
.bpe-type .stat .name { font-size: calc(0.875rem * var(--bpe-scale, 1)); color: #31333f; }
.bpe-type .stat .value { font-size: calc(2rem * var(--bpe-scale, 1)); line-height: 1.2; }
.bpe-type .front-view .bpe-tokens { max-height: 22rem; }
.bpe-type .rule { font-size: calc(0.875rem * var(--bpe-scale, 1)); color: #31333f;
  margin: 0 0 0.4rem; overflow-wrap: anywhere; }
.bpe-type .error { color: #7d353b; background: #ffecec; border-radius: 6px; padding: 8px 10px;
  white-space: pre-wrap; }
""".replace("@FOCUS_RULE@", FOCUS_RULE)

_BOX_HTML = """
<div class="bpe-type" data-testid="bpe-type">
  <label for="bpe-type-box">Type or paste here: the tokens below follow as you type</label>
  <textarea id="bpe-type-box" aria-label="Type here" spellcheck="false"></textarea>
  <div class="left" aria-live="off"></div>
  <div class="cut" role="status" hidden></div>
  <div class="views">
    <div class="side" data-side="yours">
      <div class="head"></div>
      <div class="stats">
        <div class="stat"><div class="name">Tokens</div><div class="value count"></div></div>
        <div class="stat"><div class="name">Bytes per token</div><div class="value per"></div></div>
      </div>
      <div class="rule"></div>
      <div class="front-view" data-view="yours" data-tokens="0"></div>
    </div>
    <div class="side" data-side="gpt-4o">
      <div class="head"></div>
      <div class="stats">
        <div class="stat"><div class="name">GPT-4o tokens</div><div class="value count"></div></div>
        <div class="stat"><div class="name">GPT-4o bytes per token</div><div class="value per"></div></div>
      </div>
      <div class="rule"></div>
      <div class="front-view" data-view="gpt-4o" data-tokens="0"></div>
    </div>
  </div>
</div>
"""

_BOX_JS = PAGE_CHANGE_JS + r"""
const PALETTE_SIZE = @PALETTE_SIZE@;
const ASK_AGAIN_MS = @ASK_AGAIN_MS@;

// One view: a token per span, coloured by position as ui/kit/tokens_html.py colours them; a label's
// parts ([class, text], from ui.kit.tokens_html.label_parts) go in as textContent, never as HTML.
function drawView(side, view, large) {
  const body = side.querySelector(".front-view");
  const count = side.querySelector(".count"), per = side.querySelector(".per");
  side.querySelector(".rule").textContent = view.note || "";  // which rule the count follows
  if (view.error !== undefined) {
    const error = document.createElement("div");
    error.className = "error";
    error.textContent = view.error;
    body.replaceChildren(error);
    body.dataset.tokens = "";
    count.textContent = per.textContent = "–";
    return;
  }
  const models = new Map();  // id -> a span to clone
  const model = (id) => {
    let span = models.get(id);
    if (span) return span;
    const [parts, title, special, spoken] = view.labels[String(id)];
    span = document.createElement("span");
    for (const [cls, text] of parts) {
      if (!cls) { span.append(text); continue; }
      const part = document.createElement("span");
      part.className = cls;
      part.textContent = text;
      span.append(part);
    }
    span.title = title;
    span.setAttribute("role", "listitem");
    span.setAttribute("aria-label", spoken);  // said as every view says a token (token_spoken)
    span.bpeSpecial = special;
    models.set(id, span);
    return span;
  };
  const tokens = document.createElement("div");
  tokens.className = large ? "bpe-tokens large" : "bpe-tokens";
  // it scrolls on its own: focusable by keyboard, a region named for a screen reader
  tokens.setAttribute("role", "list");  // its tokens are items: text, and the title (id) as description
  tokens.tabIndex = 0;
  tokens.setAttribute("aria-label", side.dataset.side === "yours" ? "Your tokens" : "GPT-4o's tokens");
  view.ids.forEach((id, i) => {
    const m = model(id), span = m.cloneNode(true);
    span.className = `t c${i % PALETTE_SIZE}` + (m.bpeSpecial ? " special" : "");
    tokens.append(span);
  });
  body.replaceChildren(tokens);
  const n = view.ids.length;
  body.dataset.tokens = String(n);
  count.textContent = n.toLocaleString("en-US");
  per.textContent = n ? (view.bytes / n).toFixed(2) : "–";
}

// The number of characters (code points) of a string, and its first n.
function codePoints(text) {
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0xd800 || c > 0xdbff || i + 1 === text.length) n++;
    else { const d = text.charCodeAt(i + 1); n++; if (d >= 0xdc00 && d <= 0xdfff) i++; }
  }
  return n;
}
function firstCodePoints(text, n) {
  let out = "";
  for (const ch of text) { if (n-- <= 0) break; out += ch; }
  return out;
}

export default function (component) {
  const { data, parentElement, setStateValue } = component;
  const root = parentElement.querySelector(".bpe-type");
  if (!data || !root) return;
  const box = root.querySelector("textarea");
  const left = root.querySelector(".left");
  // characters are code points, as everywhere in the app (Python's len): an emoji is one, not
  // the two UTF-16 units of a JavaScript string's length; the box's own maxLength counts units,
  // so it only bounds them (two a character at most), and a longer text is cut here
  box.maxLength = 2 * data.max;
  const counter = () => {
    left.textContent = `${codePoints(box.value).toLocaleString("en-US")} of ${data.max.toLocaleString("en-US")} characters`;
  };
  // kept between reruns (each rerun calls this function again with new data): what was sent to
  // the page's script, the route's state, and the latest rerun's data and setStateValue
  const s = root.bpeType || (root.bpeType = {
    sent: null, at: 0, timer: null, settle: null, asking: false, broken: false, drawn: null,
    asked: null, seq: 0,
    page: pageChange.count() });  // the page changes asked for in this tab when the box came
  // every text the box holds gets a number larger than any before it, a reload included (a
  // clock in ms): the server keeps the newest it heard, by the route or by the script
  s.seq = Math.max(s.seq, data.seq);
  const number = () => (s.seq = Math.max(s.seq + 1, Date.now()));
  // the route stands for new tokenizers (a retrain, a restarted server): ask it again
  if (s.data && (s.data.key !== data.key || s.data.pair !== data.pair)) s.broken = false;
  s.data = data;
  s.setStateValue = setStateValue;
  for (const side of root.querySelectorAll(".side"))
    side.querySelector(".head").textContent = data.heads[side.dataset.side];
  const draw = (views, text) => {
    for (const side of root.querySelectorAll(".side"))
      drawView(side, views[side.dataset.side], s.data.large);
    s.drawn = text;
  };
  // the server replaces the text only with a new seed (a fresh mount, or the sidebar's text
  // changed); otherwise the box owns it while the user types
  if (root.dataset.seed !== String(data.seed)) {
    root.dataset.seed = String(data.seed);
    box.value = data.text;
    s.sent = null;
  }
  if (s.sent === data.text) s.sent = null;  // the page's script has run on what was sent
  counter();
  // A paste longer than the room left is cut by the browser without a word: say so, and by how
  // much, and where a longer text goes (the sidebar takes a file of up to data.sidebarMax).
  if (!root.bpePasteHooked) {
    root.bpePasteHooked = true;
    box.addEventListener("paste", (event) => {
      const pasted = (event.clipboardData || { getData: () => "" }).getData("text");
      const max = s.data.max;
      const start = box.selectionStart, end = box.selectionEnd;
      const room = max - codePoints(box.value) + codePoints(box.value.slice(start, end));
      const note = root.querySelector(".cut");
      const n = (v) => v.toLocaleString("en-US");
      const size = codePoints(pasted);
      if (size > room) {
        // the paste's first characters that fit go in, as one edit (undo takes it back)
        event.preventDefault();
        box.setRangeText(firstCodePoints(pasted, Math.max(room, 0)), start, end, "end");
        box.dispatchEvent(new Event("input", { bubbles: true }));
        note.textContent = `Your paste was ${n(size)} characters; this box keeps ` +
          `${n(max)}, so the last ${n(size - Math.max(room, 0))} were cut. For a longer ` +
          `text, paste it in the sidebar's Text or upload it there as a file (up to ` +
          `${n(s.data.sidebarMax)} characters).`;
        note.hidden = false;
      } else {
        note.hidden = true;
      }
    });
  }

  // The page's script hears the text once the user pauses (data.settle ms): it keeps the text,
  // and redraws what follows it (the merge slider, the hint). One run at a time: a text typed
  // while the script runs waits for that run (at most data.patience ms).
  const send = (now = false) => {
    clearTimeout(s.timer);
    s.timer = null;
    if (!root.isConnected) return;  // the page changed while a send waited: nothing to tell
    // the user asked for another page since the box came (this page stays on screen until the
    // server answers): a rerun of this page's fragment now would come after the page change,
    // and blank the new page (ui/kit/page_change.py). The route has kept the text.
    if (pageChange.count() !== s.page) return;
    if (box.value === s.data.text && s.sent === null) return;  // nothing new
    if (now === true && box.value === s.sent) return;  // already on its way
    const waited = performance.now() - s.at;
    if (now !== true && s.sent !== null && waited < s.data.patience) {
      s.timer = setTimeout(() => send(), s.data.patience - waited);
      return;
    }
    s.sent = box.value;
    s.at = performance.now();
    s.setStateValue("text", { text: box.value, seq: s.seq });
    pageChange.sent();  // a click on a page link now waits until this has gone
  };
  // The views follow every key: the route (ui/front/route.py) tokenizes the text with both
  // tokenizers and runs no script. One question at a time; what is typed meanwhile is asked
  // when the answer comes. If the route cannot answer (a server restarted, a tokenizer that
  // was replaced), the page's script draws instead, as soon as the user pauses.
  // (Asking goes on after the page changed: the route also keeps the newest text.)
  const ask = () => {
    if (s.asking) return;
    if (s.broken || !s.data.url) return;
    const text = box.value;
    if (text === s.drawn || text === s.asked) return;
    s.asking = true;
    let again = false;  // answered "ask again in a moment" (409 or 429)
    const body = JSON.stringify({ key: s.data.key, text, seq: s.seq, seed: s.data.seed });
    fetch(s.data.url, {
      method: "POST", cache: "no-store", credentials: "same-origin", body,
      keepalive: body.length < 60000,  // browsers refuse a keepalive body over 64 KB
      headers: { "Content-Type": "application/json" },
    })
      // 409: a newer question of this page's key took this one's place; 429: too many
      // questions a second. Neither is a failure: the box asks again in a moment, newest text
      .then((r) => (r.status === 409 || r.status === 429 ? null
        : r.ok ? r.json() : Promise.reject(new Error(String(r.status)))))
      .then((answer) => {
        if (answer === null) { again = true; return; }
        s.asked = text;
        // an older text's answer never replaces views that already show the box's text
        if (root.isConnected && s.drawn !== box.value) draw(answer.views, text);
      })
      .catch(() => {
        s.broken = true;
        clearTimeout(s.settle);
        s.settle = setTimeout(() => send(), s.data.debounce);
      })
      .finally(() => {
        s.asking = false;
        if (s.broken || box.value === s.asked) return;
        clearTimeout(s.again);
        if (again) s.again = setTimeout(ask, ASK_AGAIN_MS);
        else ask();
      });
  };
  box.oninput = () => {
    if (box.value.length > s.data.max && codePoints(box.value) > s.data.max) {
      const at = box.selectionStart;  // typed past the bound: the end goes
      box.value = firstCodePoints(box.value, s.data.max);
      box.setSelectionRange(Math.min(at, box.value.length), Math.min(at, box.value.length));
    }
    number();
    counter();
    ask();
    clearTimeout(s.settle);
    s.settle = setTimeout(() => send(), s.broken ? s.data.debounce : s.data.settle);
  };
  // leaving the box tells the script at once. A click on another page's link leaves it too:
  // that click waits until this has gone (pageChange), so the page change comes last
  box.onblur = () => { clearTimeout(s.settle); send(true); };
  if (box.value === data.text) draw(data.views, data.text);  // the script's answer is current
  else {  // typed while that answer was on its way: the views ask the route; a text that
    // waited for this run to end goes now (otherwise the pause's timer sends it)
    ask();
    if (s.sent === null && s.timer !== null) send();
  }
}
""".replace("@PALETTE_SIZE@", str(len(PALETTE))).replace("@ASK_AGAIN_MS@", str(ASK_AGAIN_MS))


def register_box() -> Any:
    """The box and its views, registered once per process (inline, nothing fetched). Its styles
    are not isolated: every rule is under ``.bpe-type`` or ``.bpe-tokens``, and the page's
    projector variable reaches it."""
    import streamlit as st

    return st.components.v2.component("bpe_lab.type", html=_BOX_HTML, css=_BOX_CSS, js=_BOX_JS,
                                      isolate_styles=False)
