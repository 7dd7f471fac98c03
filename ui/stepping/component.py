"""Step through the merges in the browser (issue 14): the data a text's step-through needs, packed
small, and a custom component that draws the tokens after any k merges without the server.

The data is ``StepThrough.melt_steps()``: for each byte boundary of the drawn window, the merge
step that joins it. After k merges the tokens are the runs between boundaries whose step is above
k; a run's id is its byte's id (one byte), its special token's id, or the id the merge at the
run's largest step made. Sent as base64 (uint16 steps when the vocabulary allows, else uint32).
"""

from __future__ import annotations

import base64
import sys
from array import array
from typing import Any

from bpe_core.steps import NEVER
from ui.kit.focus import FOCUS_RULE
from ui.kit.page_change import PAGE_CHANGE_JS
from ui.kit.tokens_html import PALETTE, SPOKEN_NAMES, TITLE_CHARS, WHITESPACE_GLYPHS


def _b64(values: array) -> str:
    if sys.byteorder != "little":  # the browser reads little-endian typed arrays
        values = array(values.typecode, values)
        values.byteswap()
    return base64.b64encode(values.tobytes()).decode("ascii")


def steps_payload(view: Any, counts: Any, num_bytes: int) -> dict[str, Any]:
    """What the component needs for ``view`` (a StepThrough, or its ``head``), the whole text's
    token ``counts`` at every step and its ``num_bytes``: plain JSON, binary parts in base64."""
    tok = view.tokenizer
    melt = view.melt_steps()
    n = tok.num_merges
    small = n < 0xFFFF  # steps fit in 16 bits: 0xFFFF stands for "never"
    steps = array("H" if small else "I", (0xFFFF if small and m == NEVER else m for m in melt))
    data = b"".join(tok.vocab[t] for t in view.final)
    used = sorted({m for m in melt if 0 < m != NEVER})
    made = list(tok.merges.values())
    contiguous = made == list(range(256, 256 + n))
    changes = [k for k in range(1, len(counts)) if counts[k] != counts[k - 1]]
    return {
        "bytes": base64.b64encode(data).decode("ascii"),
        "melt": _b64(steps),
        "melt_bits": 16 if small else 32,
        # the id merge s made: 255 + s when merges made ids 256, 257, ... (trained here), else
        # a table of the steps this window uses
        "used_steps": None if contiguous else _b64(array("I", used)),
        "used_ids": None if contiguous else _b64(array("I", (made[s - 1] for s in used))),
        "byte_ids": None if tok.byte_ids is None else list(tok.byte_ids),
        "specials": [[start, t] for t, start, special in zip(view.final, view.starts, view.special)
                     if special],
        "num_merges": n,
        "num_bytes": num_bytes,  # of the whole text: compression = bytes / tokens, as the page says
        "count_steps": _b64(array("I", [0, *changes])),
        "count_values": _b64(array("I", [counts[0], *(counts[k] for k in changes)])),
        "palette": PALETTE,
        "glyphs": WHITESPACE_GLYPHS,
        "spoken": SPOKEN_NAMES,  # a token for the ear, as ui.kit.tokens_html.token_spoken says it
        "title_chars": TITLE_CHARS,
    }


# -- the component: drawn in the browser, user text only ever as textContent ----------------------

_CSS = """
.bpe-steps { font-family: ui-monospace, monospace; --scale: var(--bpe-scale, 1); }
.bpe-steps .controls { display: flex; gap: 6px; align-items: center; flex-wrap: wrap; margin: 4px 0; }
.bpe-steps .controls, .bpe-steps button, .bpe-steps select, .bpe-steps .status {
  font-size: calc(1rem * var(--scale)); }
.bpe-steps button, .bpe-steps select { padding: calc(2px * var(--scale)) calc(8px * var(--scale)); }
.bpe-steps input[type=range] { height: calc(16px * var(--scale)); }
.bpe-steps input[type=range] { flex: 1 1 240px; }
.bpe-steps .tokens { white-space: pre-wrap; overflow-wrap: anywhere; line-height: 1.9;
  font-size: calc(1rem * var(--scale));
  max-height: 60vh; overflow-y: auto; color: #111; }
.bpe-steps .tokens:focus-visible, .bpe-steps button:focus-visible, .bpe-steps select:focus-visible,
.bpe-steps input:focus-visible { @FOCUS_RULE@ }
.bpe-steps .tokens span.sp::before { content: "\\200b"; }
.bpe-steps .tokens span { border-radius: 3px; padding: 1px 0; margin-right: 1px; }
.bpe-steps .tokens span.new { outline: 2px solid #d62728; }
.bpe-steps .tokens span.special { background: #222 !important; color: #fff; font-weight: 700; }
.bpe-steps .hex { font-size: 0.8em; color: #6b1d1d; }
""".replace("@FOCUS_RULE@", FOCUS_RULE)

_HTML = """
<div class="bpe-steps" data-testid="bpe-steps" data-step="0" data-tokens="0">
  <div class="controls">
    <button class="prev-change" title="Previous merge that changes this text"
      aria-label="Previous merge that changes this text">|◀</button>
    <button class="prev" title="One merge back" aria-label="Previous merge">◀</button>
    <input class="slider" type="range" min="0" value="0" aria-label="Merges applied (k)">
    <button class="next" title="One merge on" aria-label="Next merge">▶</button>
    <button class="next-change" title="Next merge that changes this text"
      aria-label="Next merge that changes this text">▶|</button>
    <button class="play">▶ Play</button>
    <label>Speed <select class="speed" aria-label="Speed"></select></label>
  </div>
  <div class="status" aria-live="polite"></div>
  <div class="tokens" role="list" tabindex="0" aria-label="Tokens after k merges"></div>
</div>
"""

_JS = PAGE_CHANGE_JS + r"""
function decode(b64, Type) {
  const raw = atob(b64 || "");
  const bytes = new Uint8Array(raw.length);
  for (let i = 0; i < raw.length; i++) bytes[i] = raw.charCodeAt(i);
  return Type === Uint8Array ? bytes : new Type(bytes.buffer);
}

// the spelling of ui.kit.tokens_html.token_text: whitespace glyphs, invisible characters escaped,
// bytes that are not whole UTF-8 characters as hex in angle brackets
function charSize(bytes, i) {
  const b = bytes[i];
  const size = b < 0x80 ? 1 : (b & 0xe0) === 0xc0 ? 2 : (b & 0xf0) === 0xe0 ? 3 : (b & 0xf8) === 0xf0 ? 4 : 0;
  if (!size || i + size > bytes.length) return 0;
  for (let j = 1; j < size; j++) if ((bytes[i + j] & 0xc0) !== 0x80) return 0;
  return size;
}

const utf8 = new TextDecoder();

function spell(bytes, glyphs, byLine = false) {
  let out = "", i = 0;
  const lines = [];
  while (i < bytes.length) {
    const size = charSize(bytes, i);
    if (!size) {
      const run = [];
      while (i < bytes.length && !charSize(bytes, i)) run.push(bytes[i++].toString(16).padStart(2, "0"));
      out += "\u27e8" + run.join(" ") + "\u27e9";
      continue;
    }
    const ch = utf8.decode(bytes.subarray(i, i + size));
    const code = ch.codePointAt(0);
    if (glyphs[ch] !== undefined) {
      out += glyphs[ch];
      if (ch === "\n") { lines.push(out); out = ""; }
    }
    else if (ch !== " " && /[\p{C}\p{Z}]/u.test(ch))  // what Python's isprintable() refuses
      out += code < 0x10000 ? "\\u" + code.toString(16).padStart(4, "0")
                            : "\\U" + code.toString(16).padStart(8, "0");
    else out += ch;
    i += size;
  }
  if (!byLine) return lines.join("") + out;
  lines.push(out);
  return lines;
}

// a token for the ear, as ui.kit.tokens_html.token_spoken says it: words as they are, whitespace
// by name (data.spoken), other invisible characters as U+XXXX, stray bytes as "byte E4"
function speak(bytes, names) {
  const words = [];
  let glued = false, i = 0;
  while (i < bytes.length) {
    const size = charSize(bytes, i);
    if (!size) {
      words.push("byte " + bytes[i++].toString(16).padStart(2, "0").toUpperCase());
      glued = false;
      continue;
    }
    const ch = utf8.decode(bytes.subarray(i, i + size));
    i += size;
    let name = names[ch];
    if (name === undefined && ch !== " " && /[\p{C}\p{Z}]/u.test(ch))
      name = "U+" + ch.codePointAt(0).toString(16).toUpperCase().padStart(4, "0");
    if (name !== undefined) { words.push(name); glued = false; }
    else if (glued) words[words.length - 1] += ch;
    else { words.push(ch); glued = true; }
  }
  return words.join(" ");
}

export default function (component) {
  const { data, parentElement, setStateValue } = component;
  const root = parentElement.querySelector(".bpe-steps");
  if (!data || !root) return;
  if (root.bpeStop) root.bpeStop();  // new data from the server: the old timers go
  const bytes = decode(data.bytes, Uint8Array);
  const melt = decode(data.melt, data.melt_bits === 16 ? Uint16Array : Uint32Array);
  const never = data.melt_bits === 16 ? 0xffff : 0xffffffff;
  const usedSteps = data.used_steps ? decode(data.used_steps, Uint32Array) : null;
  const usedIds = data.used_ids ? decode(data.used_ids, Uint32Array) : null;
  const countSteps = decode(data.count_steps, Uint32Array);
  const countValues = decode(data.count_values, Uint32Array);
  const specials = new Map(data.specials);
  const n = data.num_merges;
  const slider = root.querySelector(".slider");
  const box = root.querySelector(".tokens");
  const status = root.querySelector(".status");
  const play = root.querySelector(".play");
  const speed = root.querySelector(".speed");
  slider.max = String(n);

  const idOf = (step) => {
    if (!usedSteps) return 255 + step;
    let lo = 0, hi = usedSteps.length - 1;
    while (lo < hi) { const mid = (lo + hi) >> 1; if (usedSteps[mid] < step) lo = mid + 1; else hi = mid; }
    return usedIds[lo];
  };
  const countAt = (k) => {
    let lo = 0, hi = countSteps.length - 1;
    while (lo < hi) { const mid = (lo + hi + 1) >> 1; if (countSteps[mid] <= k) lo = mid; else hi = mid - 1; }
    return countValues[lo];
  };

  // Colours by position, as the server's view cycles them: CSS does it, so a merge that removes
  // one span recolours the rest without a line of JavaScript (palette: constants from Python)
  let colours = root.querySelector("style.palette");
  if (!colours) { colours = document.createElement("style"); colours.className = "palette"; root.appendChild(colours); }
  colours.textContent = data.palette.map((c, i) =>
    `.bpe-steps .tokens span:nth-child(${data.palette.length}n+${i + 1}) { background: ${c}; }`).join("\n");

  // the boundaries each merge step joins, for stepping without redrawing everything
  const byStep = new Map();
  for (let b = 1; b < bytes.length; b++) {
    const m = melt[b - 1];
    if (m !== never && m > 0) { if (!byStep.has(m)) byStep.set(m, []); byStep.get(m).push(b); }
  }
  const joinSteps = [...byStep.keys()].sort((x, y) => x - y);

  let runs = [], spans = [], shown = -1, fresh = [];  // run starts, their spans, the step drawn
  const endOf = (i) => (i + 1 < runs.length ? runs[i + 1] : bytes.length);
  const runAt = (b) => {  // the index of the run that holds byte b
    let lo = 0, hi = runs.length - 1;
    while (lo < hi) { const mid = (lo + hi + 1) >> 1; if (runs[mid] <= b) lo = mid; else hi = mid - 1; }
    return lo;
  };

  function fill(span, start, end) {
    let id, last = 0;
    const special = specials.has(start);
    if (special) id = specials.get(start);
    else if (end - start === 1) id = data.byte_ids ? data.byte_ids[bytes[start]] : bytes[start];
    else { for (let j = start; j < end - 1; j++) if (melt[j] > last) last = melt[j]; id = idOf(last); }
    const piece = bytes.subarray(start, end);
    span.className = special ? "special" : "";
    // the text as textContent; each line feed's glyph is followed by a <br>, as the server's
    // view breaks the line there (a <br> adds no text)
    const lines = spell(piece, data.glyphs, true);
    span.replaceChildren();
    lines.forEach((line, i) => {
      if (line) span.append(line);
      if (i < lines.length - 1) span.append(document.createElement("br"));
    });
    // spaces are drawn as "·", which offers no place to break a line: a token that starts with
    // one gets a zero-width break before it (.sp), so lines break between words, not inside them
    if (span.textContent.startsWith(data.glyphs[" "] || "·")) span.classList.add("sp");
    span.dataset.id = String(id);
    span.setAttribute("role", "listitem");
    // hover text and the name a screen reader says, as ui.kit.tokens_html's token_title and
    // token_spoken give them on every other page
    const cut = piece.subarray(0, data.title_chars);
    const hex = Array.from(cut, (x) => x.toString(16).padStart(2, "0")).join(" ")
      + (piece.length > data.title_chars ? ` … (${piece.length.toLocaleString("en-US")} bytes)` : "");
    let shown = spell(cut, data.glyphs);
    if (piece.length > data.title_chars) shown = shown.slice(0, -1) + "\u2026";
    const size = `${piece.length.toLocaleString("en-US")} byte${piece.length === 1 ? "" : "s"}`;
    if (special) {
      span.title = `id ${id} · special token '${shown}'`;
      span.setAttribute("aria-label", `special token ${shown}, id ${id}`);
    } else {
      span.title = `id ${id} · '${shown}'` + (shown.includes("\u27e8") ? " (part of a character)" : "")
        + ` · bytes ${hex}` + (last ? ` · made by merge ${last}` : "");
      span.setAttribute("aria-label", `${speak(cut, data.spoken)}${piece.length > data.title_chars
        ? " \u2026" : ""}, id ${id}, ${size}` + (last ? `, made by merge ${last}` : ""));
    }
  }

  function redraw(k) {  // every run from scratch (the first drawing, or a long jump)
    runs = []; spans = [];
    let start = 0;
    for (let b = 1; b <= bytes.length; b++) {
      if (b < bytes.length && melt[b - 1] !== never && melt[b - 1] <= k) continue;
      const span = document.createElement("span");
      fill(span, start, b);
      runs.push(start); spans.push(span);
      start = b;
    }
    box.replaceChildren(...spans);
  }

  function joinAt(b) {  // boundary b melts: the run starting at b joins the one before it
    const i = runAt(b);
    spans[i].remove(); runs.splice(i, 1); spans.splice(i, 1);
    fill(spans[i - 1], runs[i - 1], endOf(i - 1));
  }

  function splitAt(b) {  // boundary b comes back (stepping backwards)
    const i = runAt(b), end = endOf(i), span = document.createElement("span");
    runs.splice(i + 1, 0, b); spans.splice(i + 1, 0, span);
    spans[i].after(span);
    fill(spans[i], runs[i], b); fill(span, b, end);
  }

  const stepsBetween = (a, b) => {  // the join steps s with a < s <= b
    let lo = 0, hi = joinSteps.length;
    while (lo < hi) { const mid = (lo + hi) >> 1; if (joinSteps[mid] <= a) lo = mid + 1; else hi = mid; }
    const out = [];
    for (let i = lo; i < joinSteps.length && joinSteps[i] <= b; i++) out.push(joinSteps[i]);
    return out;
  };

  function draw(k) {
    const between = shown < 0 ? null : stepsBetween(Math.min(k, shown), Math.max(k, shown));
    const work = between ? between.reduce((sum, s) => sum + byStep.get(s).length, 0) : Infinity;
    if (work > 400) redraw(k);  // a long jump: drawing afresh is cheaper
    else if (k > shown) for (const s of between) for (const b of byStep.get(s)) joinAt(b);
    else for (const s of between.reverse()) for (const b of byStep.get(s).slice().reverse()) splitAt(b);
    for (const span of fresh) span.classList.remove("new");
    fresh = k > 0 && byStep.has(k) ? byStep.get(k).map((b) => spans[runAt(b)]) : [];
    for (const span of fresh) span.classList.add("new");
    shown = k;
    const count = countAt(k);
    const ratio = count ? (data.num_bytes / count).toFixed(2) + "×" : "–";
    status.textContent = `k = ${k} of ${n} · ${count.toLocaleString("en-US")} tokens · compression ${ratio}`;
    slider.value = String(k);
    root.dataset.tokens = String(count);
    root.dataset.step = String(k);
  }

  // Who owns the step: the view, while the user acts. Every move here (a key, the slider, Play,
  // a classroom's follow) counts in root.bpeSeq and is sent with its number; the server hands
  // back, with each rerun's data, the number of the last move it heard (data.seq). Data from a
  // rerun that has not heard the latest move is older than the view: its step is ignored, so a
  // rerun never moves the view back. Kept on the root: it outlives the reruns that call this.
  const heard = data.seq || 0;
  if (root.bpeSeq === undefined || heard > root.bpeSeq) root.bpeSeq = heard;
  const clamp = (k) => Math.min(Math.max(k, 0), n);
  let current = heard >= root.bpeSeq || root.bpeCurrent === undefined
    ? clamp(data.step || 0) : clamp(root.bpeCurrent);
  let timer = null;
  root.bpeCurrent = current;
  if (root.bpeSendTimer === undefined) root.bpeSendTimer = null;
  if (root.bpePage === undefined) root.bpePage = pageChange.count();  // when the view came
  root.bpeStop = () => { cancelAnimationFrame(timer); timer = null; };
  // the server hears the step at most every SEND_MS while it moves, and the last one always
  // (a send that is still waiting when a rerun comes keeps waiting: it sends root.bpeCurrent)
  const SEND_MS = 250;
  const send = () => {
    root.bpeSendTimer = null;
    // a timer (the throttle, a classroom's settle) that fires after this view left the page (the
    // user went to another page): nothing to tell. Sent anyway, it reruns the old page's
    // fragment on the new page, which then draws nothing.
    if (!root.isConnected) return;
    // nor once the user asked for another page: this page stays on screen until the server
    // answers, and a rerun of its fragment would come after the page change (ui/kit/page_change.py)
    if (pageChange.count() !== root.bpePage) return;
    root.bpeSentAt = performance.now();
    // with the step the moves since the last send were made from (a classroom room refuses a
    // move from a step it has left: ui/classroom/rooms.py)
    const from = root.bpeFromSent === undefined ? root.bpeCurrent : root.bpeFromSent;
    root.bpeFromSent = undefined;
    setStateValue("step", { k: root.bpeCurrent, seq: root.bpeSeq, from });
    pageChange.sent();  // a click on a page link now waits until this has gone
  };
  root.bpeSend = send;  // the latest rerun's setStateValue
  const sendSoon = () => {
    if (root.bpeSendTimer !== null) return;
    const wait = Math.max(0, (root.bpeSentAt || -1e9) + SEND_MS - performance.now());
    root.bpeSendTimer = setTimeout(() => root.bpeSend(), wait);
  };
  function moved(k) {
    // the step this run of moves was made from, for each way the view tells it (a send to its
    // server, a classroom teacher's push to the room): the first move since each told
    if (root.bpeFromSent === undefined) root.bpeFromSent = current;
    if (root.bpeFromPushed === undefined) root.bpeFromPushed = current;
    current = clamp(k);
    root.bpeSeq += 1;
    root.bpeCurrent = current;
  }
  // a classroom teacher's view also sets the room's step at once (ui/classroom/panel.py's watcher)
  const publish = () => {
    const from = root.bpeFromPushed === undefined ? current : root.bpeFromPushed;
    root.bpeFromPushed = undefined;
    if (window.bpeRoomPublish) window.bpeRoomPublish(current, root.bpeSeq, from);
  };
  function go(k) {
    moved(k);
    if (!timer) publish();  // a classroom's room hears it first: its students wait on it
    draw(current);
    if (!timer) sendSoon();
  }
  // A learner who asks the system for reduced motion (prefers-reduced-motion) gets Play at one
  // step a second, and no speed above 5 steps a second: the text never flickers.
  const reduced = window.matchMedia?.("(prefers-reduced-motion: reduce)").matches ?? false;
  let speeds = [[1, "1 step/s"], [5, "5 steps/s"], [20, "20 steps/s"], [60, "60 steps/s"]];
  if (n / 10 > 60) speeds.push([Math.ceil(n / 10), "whole training in 10 s"]);
  if (reduced) speeds = speeds.filter(([v]) => v <= 5);
  const chosen = speed.value;  // kept when the server sends new data (a rerun)
  speed.replaceChildren(...speeds.map(([v, label]) => {
    const o = document.createElement("option"); o.value = String(v); o.textContent = label; return o;
  }));
  speed.value = speeds.some(([v]) => String(v) === chosen) ? chosen
    : String(speeds[reduced ? 0 : 2][0]);
  function stop() {
    if (timer) { cancelAnimationFrame(timer); timer = null; }
    play.textContent = "▶ Play";
    sendSoon();
    publish();
  }
  // Play: every frame moves on by (steps per second) x (seconds since the last frame), so the
  // fastest speed draws a new step on every frame the browser paints
  play.onclick = () => {
    if (timer) return stop();
    if (current >= n) moved(0);
    play.textContent = "⏸ Pause";
    let last = performance.now(), carried = 0;
    const frame = (now) => {
      carried += (now - last) / 1000 * Number(speed.value);
      last = now;
      const moves = Math.floor(carried);
      if (moves > 0) { carried -= moves; moved(current + moves); draw(current); }
      if (current >= n) { timer = null; return stop(); }
      timer = requestAnimationFrame(frame);
    };
    timer = requestAnimationFrame(frame);
  };
  slider.oninput = () => go(Number(slider.value));
  root.querySelector(".prev").onclick = () => go(current - 1);
  root.querySelector(".next").onclick = () => go(current + 1);
  root.querySelector(".prev-change").onclick = () => {
    for (let i = countSteps.length - 1; i >= 0; i--) if (countSteps[i] < current && countSteps[i] > 0) return go(countSteps[i]);
    go(0);
  };
  root.querySelector(".next-change").onclick = () => {
    for (let i = 0; i < countSteps.length; i++) if (countSteps[i] > current) return go(countSteps[i]);
    go(n);
  };
  // A classroom room moves this view when only the teacher's step changed (ui/classroom/panel.py).
  // Followed steps reach this view's own server once the teacher pauses (FOLLOW_SETTLE_MS after
  // the last): while the teacher steps once a second, no follower's server reruns for each step
  // (the view, its tokens and its counts move at once; the details below it catch up). At 1.2 s
  // the polls' jitter on a crowded machine made gaps long enough: 0.58 runs per Chromium
  // student per step (benchmarks/classroom.py, load 22); at 3 s, none.
  const FOLLOW_SETTLE_MS = 3000;
  const follow = (k) => {
    if (timer || clamp(k) === current) return;
    moved(k);
    // followed, not moved by this view's user: the next move is made from here
    root.bpeFromSent = root.bpeFromPushed = undefined;
    draw(current);
    clearTimeout(root.bpeSettle);
    root.bpeSettle = setTimeout(() => { if (root.bpeSendTimer === null) root.bpeSend(); },
                                FOLLOW_SETTLE_MS);
  };
  // the view a classroom's watcher moves (ui/classroom/component.py); not one inside a fragment that the
  // page asks to keep out of it (data.follow false: the front page's), whose settle send would
  // rerun that fragment, and could do so just as the student goes to another page
  // hold: the page reruns with the room's step (ui/classroom/component.py): no settle send
  const hold = () => clearTimeout(root.bpeSettle);
  if (data.follow !== false) window.bpeStepsView = { root, step: () => current, follow, hold };
  draw(current);
}
"""


def register() -> Any:
    """The component, registered once per process (``st.components.v2``; inline, nothing fetched)."""
    import streamlit as st

    return st.components.v2.component("bpe_lab.steps", html=_HTML, css=_CSS, js=_JS)
