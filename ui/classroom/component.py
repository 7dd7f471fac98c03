"""The classroom's room watcher: a small ``st.components.v2`` component in every session's
sidebar (ui/classroom/panel.py draws it, ui/sidebar/panel.py registers it once per server). Only numbers and its
own words come in; everything it shows goes in through ``textContent``.
"""

from __future__ import annotations

from typing import Any

import streamlit as st

# The room watcher, in every session's sidebar. The teacher's key lives in the tab that teaches
# (sessionStorage: a reload of that tab keeps it; another tab, or a join link, has none). Outside a
# room the watcher hands the page that tab's key ("found": the teacher reloaded), or else the key
# another tab of this browser teaches with (localStorage "bpelab.teaching", written by the
# teaching tab while it is open and dropped when it closes): "elsewhere", which the page only
# offers as "Take over here". The teaching tab's poll says whether it still drives the room; when
# another tab took over, its page is rerun and says so. In a room it asks ui/classroom/route.py for the room's
# pulse (each ask is also a check-in): "nothing new" costs one small HTTP request and no script
# run. A following student's watcher moves the in-browser stepping view when only the step moved
# (ui/stepping/component.py sets window.bpeStepsView), as under the student's own keys; any other
# change reruns the page (a trigger), which takes the room. It says, in its own line, what the
# page cannot: the store is not answering, the teacher is gone, the room is being put back; the
# teacher's says how many students are here. Only numbers come in, and its own words from the
# server; all of it as textContent.
_WATCH_JS = """
export default function (component) {
  const { data, parentElement, setTriggerValue } = component;
  if (!data) return;
  if (parentElement.bpeStop) parentElement.bpeStop();  // a rerun: the old loop goes
  clearTimeout(parentElement.bpeRecheck);
  const box = parentElement.querySelector(".bpe-room-status");
  const say = (text, kind) => {
    box.textContent = text || ""; box.hidden = !text; box.dataset.kind = text ? kind : "";
  };
  const KEY = "bpelab.teacher", TEACHING = "bpelab.teaching";
  const mark = (keep, tab) => localStorage.setItem(TEACHING, JSON.stringify(
    Object.assign({ tab }, keep)));  // the profile's "teaching": this tab teaches that room
  try {
    const mine = () => {  // whether the profile's "teaching" names this tab
      try { return JSON.parse(localStorage.getItem(TEACHING) || "{}").tab === window.bpeTeachTab; }
      catch (e) { return false; }
    };
    if (data.forget) {
      sessionStorage.removeItem(KEY);
      if (mine()) localStorage.removeItem(TEACHING);
      window.bpeTeachTab = window.bpeTeachKeep = undefined;
    }
    if (data.keep) {
      window.bpeTeachKeep = () => sessionStorage.setItem(KEY, JSON.stringify(
        Object.assign({ at: Date.now() }, data.keep)));  // renewed at each poll, and on leaving
      window.bpeTeachKeep();
      window.bpeTeachTab = data.tab;
      mark(data.keep, data.tab);
      if (!window.bpeTeachHide) {  // the tab closes (or reloads): no other tab is offered it
        window.bpeTeachHide = () => {
          if (mine()) localStorage.removeItem(TEACHING);
          if (window.bpeTeachKeep) window.bpeTeachKeep();
        };
        window.addEventListener("pagehide", window.bpeTeachHide);
      }
    }
    if (data.ask) {
      let kept = sessionStorage.getItem(KEY);
      const there = localStorage.getItem(TEACHING);
      // a key from a tab that left the room more than KEEP_MS ago (a closed tab reopened
      // later, at a lab PC: its sessionStorage comes back with it) is not used
      try { if (kept && !(Date.now() - JSON.parse(kept).at < data.keep_ms)) kept = null; }
      catch (e) { kept = null; }
      if (!kept) sessionStorage.removeItem(KEY);
      // another tab's key is told only when it differs from what the page last heard (the page
      // renders this anew at every run: telling it each time would rerun the page without end),
      // when another tab writes or drops it (the storage event), or again after recheck_ms
      const seen = data.elsewhere_seen || "";
      const tell = () => {
        let now = "";
        try { now = localStorage.getItem(TEACHING) || ""; } catch (e) { now = ""; }
        if (now !== seen) setTriggerValue("elsewhere", now);
      };
      // told again after recheck_ms if no run has drawn this watcher anew by then (each render
      // clears the timer): a trigger can be lost among others (a take-over's "changed" and
      // "elsewhere" close together), and then the other tab was never offered to take over (1
      // run in about 20 of the take-over race on two servers)
      const again = (name, read) => {
        parentElement.bpeRecheck = setTimeout(() => setTriggerValue(name, read()),
                                              data.recheck_ms || data.retry_ms);
      };
      if (kept) { setTriggerValue("found", kept); again("found", () => kept); }
      else if ((there || "") !== seen) {
        setTriggerValue("elsewhere", there || "");
        again("elsewhere", () => localStorage.getItem(TEACHING) || "");
      } else {
        window.bpeTeachingTell = tell;
        if (!window.bpeTeachingHeard) {
          window.bpeTeachingHeard = (e) => {
            if ((e.key === TEACHING || e.key === null) && window.bpeTeachingTell) {
              window.bpeTeachingTell();
            }
          };
          window.addEventListener("storage", window.bpeTeachingHeard);
        }
        if (data.recheck_ms && there) {
          parentElement.bpeRecheck = setTimeout(() => setTriggerValue("elsewhere", there),
                                                data.recheck_ms);
        }
      }
      // "Take over here" (the page's button, below this line) is answered at the click: the
      // take-over waits for this tab's run on its server, which a busy server holds up; past a
      // second without it, this line says so (the run's result replaces it)
      if (box.dataset.kind === "taking") say("");
      clearTimeout(window.bpeTakeLate);
      window.bpeTakeSay = () => {
        say(data.said.taking, "taking");
        clearTimeout(window.bpeTakeLate);
        window.bpeTakeLate = setTimeout(() => {
          if (parentElement.isConnected && box.dataset.kind === "taking") say(data.said.slow, "taking");
        }, data.take_late_ms);
      };
      if (!window.bpeTakeHeard) {
        window.bpeTakeHeard = (e) => {
          const on = e.target && e.target.closest && e.target.closest(".st-key-room_take_over");
          if (on && window.bpeTakeSay) window.bpeTakeSay();
        };
        document.addEventListener("click", window.bpeTakeHeard, true);
      }
    } else {
      window.bpeTeachingTell = undefined;  // in a room: another tab's key is not asked about
      window.bpeTakeSay = undefined;
      clearTimeout(window.bpeTakeLate);
    }
  } catch (e) { /* no storage (a private window): the teacher link still works */ }
  if (!data.url) { say(""); window.bpeRoomPublish = undefined; return; }
  if (data.step_url) {
    // the teacher's stepping view (ui/stepping/component.py) sets the room's step at each key,
    // one request after another, without waiting for the page's rerun. Each move says the step
    // it was made from (the view's step before it): a move from a step the room has left is
    // refused, and the view is brought up to the room's step instead; a tab that no longer
    // drives the room (409) stops, and its page finds out why. One request at a time, in order;
    // the moves made while one is under way go as one, the latest step with the step the first
    // of them was made from. A queue of one request per key was sent a median 8 to 30 s after
    // its key at a load average of 17 to 20 (benchmarks/classroom.py --trace; docs/CLASSROOM.md).
    let chain = Promise.resolve(), waiting = null;
    const told = (answer, body) => {
      if (!answer) return null;
      if (answer.status === 409) { window.bpeRoomPublish = undefined; return rerun(-2); }
      if (!body || typeof body.step !== "number") return null;
      const view = window.bpeStepsView;
      if (body.behind && view && view.root.isConnected && view.step() !== body.step) {
        view.follow(body.step);  // refused: this view was behind the room; now it is not
      }
      return null;
    };
    window.bpeRoomPublish = (step, seq, base) => {
      if (waiting) { waiting.step = step; waiting.seq = seq; return; }  // goes with the next
      waiting = { step, seq, base };
      chain = chain.then(async () => {
        const move = waiting;
        waiting = null;
        const body = JSON.stringify({ token: data.keep.token, step: move.step, seq: move.seq,
                                      tab: data.tab, base: move.base });
        let answer = null, said = null;
        try {
          answer = await fetch(data.step_url, {
            method: "POST", body, cache: "no-store", credentials: "same-origin",
            headers: { "Content-Type": "application/json" } });
          said = await answer.json();
        } catch (e) { /* the server did not answer: the page's rerun shares the step */ }
        told(answer, said);
      });
    };
  } else {
    window.bpeRoomPublish = undefined;
  }
  let timer = null, stopped = false;
  const since = Date.now();
  // A step that moved on by a few (two keys between two polls) is walked through, WALK_MS
  // each, so that no merge is skipped on a student's screen; a long jump is made at once.
  const walk = (view, target) => {
    parentElement.bpeWalkTo = target;
    clearTimeout(parentElement.bpeWalk);
    const next = () => {
      if (parentElement.bpeWalkTo !== target || !view.root.isConnected) return;
      const here = view.step(), gap = target - here;
      if (gap === 0) return;
      view.follow(Math.abs(gap) <= data.walk_most ? here + Math.sign(gap) : target);
      if (view.step() !== target) parentElement.bpeWalk = setTimeout(next, data.walk_ms);
    };
    next();
  };
  const quit = new AbortController();  // a poll the server holds ends with this loop
  parentElement.bpeStop = () => { stopped = true; clearTimeout(timer); quit.abort(); };
  // The page's rerun takes the room's state, the step too, and may go to another page (a class
  // quiz): the stepping view's followed step, still to be told after its settle pause, is not
  // sent after it. Sent late, that fragment's rerun named the page the student had left, and
  // the server's run of it cleared the new page (students on a blank Classroom page in CI).
  const rerun = (version) => {
    stopped = true;
    clearTimeout(parentElement.bpeWalk);
    const view = window.bpeStepsView;
    if (view && view.hold) view.hold();
    setTriggerValue("changed", version);
  };
  // A following student's poll names the version it has: the server holds it until the room
  // changes (ui/classroom/route.py, at most a few seconds), and the next goes when it is
  // answered (never sooner than every_ms after the one before).
  let had = null;  // the room's version this page's last poll was told
  const tick = async () => {
    if (stopped) return;
    if (!parentElement.isConnected) { stopped = true; return; }  // another page now
    let answer = null, pulse = null;
    const asked = Date.now();
    const hold = data.role === "student" && data.following && !data.waiting && !data.down
      && had !== null ? "&since=" + had : "";
    try {
      answer = await fetch(data.url + hold, {
        cache: "no-store", credentials: "same-origin", signal: quit.signal });
      if (answer.ok) pulse = await answer.json();
    } catch (e) { answer = null; }  // the app's server itself does not answer
    if (stopped) return;
    if (!answer || answer.status >= 500) {
      say(data.said.down, "down");  // the page keeps what it shows
    } else if (answer.status === 404) {  // the room, or this member, is not there
      if (!data.waiting) return rerun(-1);  // the page finds out why
      say(data.said.waiting, "waiting");
      if (Date.now() - since >= data.wait_ms) return rerun(-1);
    } else if (pulse && data.role === "teacher") {
      if (data.down) return rerun(pulse.version);  // back: the page says so
      if (pulse.drives === false) return rerun(-2);  // another tab took over: the page says so
      say(data.said.count.replace("{n}", String(pulse.students)), "count");
      if (window.bpeTeachKeep && pulse.drives !== false) {
        window.bpeTeachKeep();
        // the profile's "teaching" is written again when no tab holds it: a tab that lost the
        // role may have written its own key there at a run just before it heard so, and then
        // dropped it as its own, and another tab of this browser was offered nothing (seen on
        // two servers under load). Only when empty: two tabs teaching two rooms do not fight.
        try { if (!localStorage.getItem(TEACHING)) mark(data.keep, data.tab); }
        catch (e) { /* no storage: the teacher phrase still works */ }
      }
    } else if (pulse) {
      if (data.waiting || data.down) return rerun(pulse.version);  // back: the page takes it
      had = pulse.version;
      say(pulse.teacher ? "" : data.said.gone, "gone");
      const view = window.bpeStepsView;
      const here = view && view.root.isConnected;
      if (!data.following) { /* exploring alone: only checking in */ }
      else if (pulse.state === data.state && here) {
        // only the step may differ: hold the view to the teacher's (nothing reruns here; the
        // view tells its server the step as under the student's own keys)
        if (view.step() !== pulse.step) walk(view, pulse.step);
      } else if (pulse.version !== data.version) {
        return rerun(pulse.version);  // anything else, or no stepping view: the page takes it
      }
    }
    timer = setTimeout(tick, Math.max(0, asked + data.every_ms - Date.now()));
  };
  timer = setTimeout(tick, data.first_ms);
}
"""

# What the watcher says (its own line in the sidebar).
WATCH_SAID = {
    "down": "The classroom's server is not answering. Your screen keeps what it shows and "
            "follows again when the server is back.",
    "waiting": "The room is not there right now (the classroom's server restarted?): waiting "
               "for your teacher's app to bring it back. Your screen keeps what it shows.",
    "gone": "Your teacher has left (or lost the connection). You keep what you have: explore "
            "on your own, or wait; your app follows again when your teacher is back.",
    "count": "Students here now: {n}",
    "taking": "Taking over: this tab teaches the room as soon as its server has run the page.",
    "slow": "Still taking over: this tab's server has not run the page for a second (it is "
            "busy). This tab teaches as soon as it has; the other tab is told then.",
}
TAKE_LATE_MS = 1000  # a take-over not done this long after the click is said to be waiting


def register_watcher() -> Any:
    """The room watcher, a ``st.components.v2`` component (inline; ui/sidebar/panel.py registers it once
    per server)."""
    return st.components.v2.component(
        "bpe_lab.room_watch", js=_WATCH_JS,
        html='<div class="bpe-room-status" role="status" data-testid="room-status" hidden></div>',
        css=_WATCH_CSS)


_WATCH_CSS = """
.bpe-room-status { font-size: .9rem; padding: .25rem 0; }
.bpe-room-status[data-kind=down], .bpe-room-status[data-kind=waiting],
.bpe-room-status[data-kind=gone], .bpe-room-status[data-kind=taking] {
  color: #8a4b00; font-weight: 600; }
.bpe-room-status[data-kind=count] { font-weight: 600; }
"""
