"""The lesson keeper: a custom component with no view of its own that keeps the tab's lesson in
the browser's ``sessionStorage`` (this tab only, kept over a reload, sent nowhere), and hands it
back to the sidebar after a reload (``ui/sidebar/panel.py`` mounts it; ``ui/sidebar/lesson.py``
says what is kept).

Every run tells it ``{"session": id, "asked": bool, "lesson": {...}, "text"?: str,
"tok_text"?: str, "import"?: str, "aside": {"lesson", "text"?, "tok_text"?} | None}`` (a text, or an imported file's JSON, only when it is new to
the tab: a rerun does not carry 200,000 characters again), or, from Step through's fragment, ``{"session": id, "step": k}``.
- The first time it hears of a session that has not been answered (a reload, a restarted
  server), it reads what the tab holds: a lesson there goes back to the server, once
  (``setTriggerValue("kept", {lesson, text, tok_text, step, aside})``: a trigger, not kept in the
  widget's state, so the text does not ride along with later reruns; ``import``: the
  imported file's JSON, when the tab holds one), and nothing is written
  until the server has taken it (``asked``); with nothing held, it writes at once (no rerun).
- Otherwise it stores what it is told. If the tab lacks a text the lesson names (a run it never
  drew), it asks for it again (``setTriggerValue("resend", n)``). A full storage keeps nothing
  rather than half a lesson; an imported file the storage has no room for is left out, and the
  lesson kept says so (``import.kept`` false: the page names the file after a reload).
- ``aside``: an exploring student's work from before joining a room (its lesson and texts, under
  keys of its own); kept whole or not at all (the lesson stays), removed when a run names none.

The data is stored as strings; nothing of it is put in the page.
"""

from __future__ import annotations

from typing import Any

_KEEP_JS = r"""
const KEY = "bpe-lab.lesson", TEXT = "bpe-lab.text", TOK = "bpe-lab.tok-text", STEP = "bpe-lab.step";
const IMPORT = "bpe-lab.import";  // an imported tokenizer file, as JSON (ui/sidebar/lesson.py)
// an exploring student's work from before joining a room, kept beside the lesson
const ASIDE = "bpe-lab.aside", ASIDE_TEXT = "bpe-lab.aside-text", ASIDE_TOK = "bpe-lab.aside-tok";
const ASIDE_ALL = [ASIDE, ASIDE_TEXT, ASIDE_TEXT + ".digest", ASIDE_TOK, ASIDE_TOK + ".digest"];
const ALL = [KEY, TEXT, TEXT + ".digest", TOK, TOK + ".digest", STEP, IMPORT, IMPORT + ".digest",
             ...ASIDE_ALL];
let heard = null;  // the session this page has read the tab for (a reload starts afresh)
let waiting = null;  // the session the tab's lesson went to, until the server has taken it
let lost = null;  // the digest of an imported file the tab had no room for (not asked again)

function storage() {
  try { return window.sessionStorage; } catch (e) { return null; }  // refused: nothing kept
}

export default function (component) {
  const { data, setTriggerValue } = component;
  const store = storage();
  if (!data || !store || typeof data.session !== "string") return;
  const read = (k) => { try { return store.getItem(k); } catch (e) { return null; } };
  const parsed = (raw) => { try { return JSON.parse(raw || "null"); } catch (e) { return null; } };
  if (typeof data.step === "number") {  // Step through's step, once the tab has been read
    if (heard === data.session && waiting === null) {
      try { store.setItem(STEP, String(data.step)); } catch (e) { /* kept without it */ }
    }
    return;
  }
  if (heard !== data.session) {
    heard = data.session;
    let lesson = null;
    lesson = parsed(read(KEY));
    if (!data.asked && lesson !== null) {
      waiting = data.session;
      const step = read(STEP);
      setTriggerValue("kept", { lesson, text: read(TEXT), tok_text: read(TOK),
                                step: step === null ? null : Number(step),
                                import: read(IMPORT),
                                aside: { lesson: parsed(read(ASIDE)), text: read(ASIDE_TEXT),
                                         tok_text: read(ASIDE_TOK) } });
      return;
    }
  }
  if (waiting === data.session) {
    if (!data.asked) return;  // the lesson is on its way to the server: keep it as it is
    waiting = null;
  }
  try {
    const lesson = data.lesson;
    if (typeof data.text === "string") {
      store.setItem(TEXT, data.text);
      store.setItem(TEXT + ".digest", lesson.digest);
    }
    if (typeof data.tok_text === "string") {
      store.setItem(TOK, data.tok_text);
      store.setItem(TOK + ".digest", lesson.tok.digest);
    }
    const file = lesson.import;
    if (file && file.kept) {
      if (typeof data.import === "string") {
        try {
          store.setItem(IMPORT, data.import);
          store.setItem(IMPORT + ".digest", file.digest);
        } catch (e) {  // too large for what the tab has left: the lesson says it is not kept
          store.removeItem(IMPORT);
          store.removeItem(IMPORT + ".digest");
        }
      }
      if (read(IMPORT + ".digest") !== file.digest) {
        if (typeof data.import === "string") lost = file.digest;
        if (lost === file.digest) lesson.import = { ...file, kept: false };
      }
    } else {  // none, or one too large to keep (the server said so)
      store.removeItem(IMPORT);
      store.removeItem(IMPORT + ".digest");
    }
    store.setItem(KEY, JSON.stringify(lesson));
    const tok = lesson.tok && lesson.tok.digest !== lesson.digest ? lesson.tok.digest : null;
    const fileLacking = lesson.import && lesson.import.kept
                        && read(IMPORT + ".digest") !== lesson.import.digest;
    if (read(TEXT + ".digest") !== lesson.digest || (tok !== null && read(TOK + ".digest") !== tok)
        || fileLacking)
      setTriggerValue("resend", Date.now());
  } catch (e) {  // the tab's storage is full: keep nothing rather than half a lesson
    for (const k of ALL) { try { store.removeItem(k); } catch (e2) { /* nothing to do */ } }
    return;
  }
  const aside = data.aside;
  try {  // the work put aside: all of it, or none (the lesson above stays)
    if (!aside || !aside.lesson) throw null;
    if (typeof aside.text === "string") {
      store.setItem(ASIDE_TEXT, aside.text);
      store.setItem(ASIDE_TEXT + ".digest", aside.lesson.digest);
    }
    if (typeof aside.tok_text === "string") {
      store.setItem(ASIDE_TOK, aside.tok_text);
      store.setItem(ASIDE_TOK + ".digest", aside.lesson.tok.digest);
    }
    store.setItem(ASIDE, JSON.stringify(aside.lesson));
    const tok = aside.lesson.tok && aside.lesson.tok.digest !== aside.lesson.digest
                ? aside.lesson.tok.digest : null;
    if (read(ASIDE_TEXT + ".digest") !== aside.lesson.digest
        || (tok !== null && read(ASIDE_TOK + ".digest") !== tok))
      setTriggerValue("resend", Date.now());
  } catch (e) {
    for (const k of ASIDE_ALL) { try { store.removeItem(k); } catch (e2) { /* nothing to do */ } }
  }
}
"""


def register_keeper() -> Any:
    """The lesson keeper, a ``st.components.v2`` component (inline, no HTML: it draws nothing;
    ui/sidebar/panel.py registers it once per server)."""
    import streamlit as st

    return st.components.v2.component("bpe_lab.lesson_keeper", js=_KEEP_JS)
