"""Accessibility in Chromium: axe-core's WCAG 2.0, 2.1 and 2.2 level A and AA rules on every page
and in every state a learner reaches there, at the widths of a laptop (1440 px), a projector
(1024 px) and a phone (390 px); the focus mark on every focusable element; what a screen reader
says for a token, a button, a view and a chart.

axe-core comes bundled in the pinned ``axe-playwright-python`` (requirements-dev.txt); nothing is
fetched. One session walks every page through the sidebar, as a learner does, and runs axe on
each once it is idle; then it drives the page through ``STATES`` (each Lesson step, a merge
stepped, a quiz answered, a file loaded, a room opened, ...) on the same page, every expander
open, and runs axe again in each state. Each page and state is reached once; axe runs in it at
the three widths by resizing the window. Every violation is reported with the rule, the page,
the state, the width and the first elements it names, so a failure says what to fix. Nothing
is left out: the sidebar's navigation is the app's own (ui/kit/navigation.py), not
Streamlit's, whose list markup axe flags (see docs/ACCESSIBILITY.md).
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable

import pytest
from conftest import DEFAULT_TIMEOUT_MS, IDLE, NAV, App, nav_here, nav_link, open_app
from test_app_browser import ENGLISH, PAGE_TITLES, no_exception, trained, visit_every_page

import bpe_core
from ui.kit.navigation import SECTIONS
from ui.lesson.tutorial import STEPS

try:
    from axe_playwright_python.base import AXE_SCRIPT
    from playwright.sync_api import expect
except ImportError:  # in CI a missing package fails below, like a missing browser
    AXE_SCRIPT = expect = None

pytestmark = [pytest.mark.browser, pytest.mark.timeout(420)]

WCAG_AA = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22a", "wcag22aa"]  # 2.2 AA is all six
AXE_OPTIONS = {"runOnly": {"type": "tag", "values": WCAG_AA}, "resultTypes": ["violations"]}
WIDTHS = [{"width": 1440, "height": 1000}, {"width": 1024, "height": 768},
          {"width": 390, "height": 844}]  # fmt: skip
MAIN = "[data-testid=stMain]"
TRAIN_TIMEOUT_MS = 90_000  # a page's own training (Language tax's two tokenizers) on a busy machine
PHONE_BELOW = 768  # a phone's width: Streamlit's sidebar is closed at 390 px, open at 1024 and 1440
FOCUS_WIDTH = 1024  # where each page is tabbed through and every focus mark measured
# axe-core goes into a page once (Streamlit changes pages without loading a new document); each run
# hands back only what a failure reports
AXE_LOADED_JS = "() => typeof window.axe === 'object' && typeof window.axe.run === 'function'"
AXE_RUN_JS = """([context, options]) => axe.run(context || document, options).then(r =>
  r.violations.map(v => ({id: v.id, impact: v.impact, targets: v.nodes.map(n => n.target.join(' '))})))"""
# the layout after a resize: two frames drawn (ResizeObserver callbacks, the charts' redraw)
FRAMES_JS = "() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))"


def violations(page, context: str | None = None) -> list[str]:
    """What axe finds on the page as it is (or in ``context``, a selector), nothing left out:
    "rule (impact, nodes): target; target; …" per rule."""
    if not page.evaluate(AXE_LOADED_JS):
        page.evaluate(AXE_SCRIPT)
    found = page.evaluate(AXE_RUN_JS, [context, AXE_OPTIONS])
    return [f"{v['id']} ({v['impact']}, {len(v['targets'])}): " + "; ".join(v["targets"][:3])
            for v in found]


def at_width(app, viewport: dict) -> None:
    """The same page in a window of another size, as a learner resizes it: the viewport set, the
    layout drawn again, the script idle (a view may rerun it on a resize); the sidebar open on a
    laptop or projector and closed on a phone, as Streamlit opens a page at that width."""
    page = app.page
    if page.viewport_size != viewport:
        page.set_viewport_size(viewport)
        page.evaluate(FRAMES_JS)
    phone = viewport["width"] < PHONE_BELOW
    if app.sidebar.get_attribute("data-collapsed") != str(phone).lower():
        if phone:
            page.get_by_test_id("stSidebarCollapseButton").locator("button").click()
        else:
            page.get_by_test_id("stExpandSidebarButton").click()
        expect(app.sidebar).to_have_attribute("data-collapsed", str(phone).lower())
        page.evaluate(FRAMES_JS)
    app.wait_idle()


def widths_from(app) -> list[dict]:
    """``WIDTHS`` in the order that starts at the page's width (one resize fewer per state)."""
    return WIDTHS[::-1] if app.page.viewport_size == WIDTHS[-1] else WIDTHS


def heading_skips(app) -> list[str]:
    """The main column's headings that go down more than one level from the one before (h1 to
    h3), from the page's title on: a screen reader's list of headings has a gap there."""
    levels = app.main.locator("h1, h2, h3, h4, h5, h6").evaluate_all(
        "hs => hs.filter(h => h.offsetParent).map(h => [Number(h.tagName[1]), h.innerText])")
    return [f"h{a} to h{b} at {text!r}" for (a, _), (b, text) in zip(levels, levels[1:])
            if b > a + 1]


# -- the states a learner reaches after the first click ------------------------------------------


def open_expanders(app) -> int:
    """Open every closed expander in the main column (all at once: one click each, one wait);
    how many there were."""
    closed = app.main.locator("details:not([open]) > summary")
    n = closed.count()
    for _ in range(n):
        closed.first.click()
    app.page.locator(IDLE).wait_for(state="attached")
    return n


def pick(app, label: str, expected=None) -> None:
    """Choose the radio option ``label`` in the main column, as a click on its text."""
    app.main.get_by_text(label, exact=True).first.click()
    app.wait_idle(*(() if expected is None else (expected,)))


def lesson_step(title: str) -> Callable:
    return lambda app: pick(app, title, app.main.get_by_role("heading", name=title, level=2))


def quiz_answered(app) -> None:
    """The quiz's first option chosen and revealed (the Lesson's and Step through's quiz)."""
    question = app.main.get_by_role("radiogroup", name=re.compile(r"^Which pair does merge"))
    if app.main.get_by_role("button", name="Reveal").is_disabled():  # answered on another page
        app.main.get_by_role("button", name="Next ▶").click()
        app.wait_idle(question.get_by_role("radio").and_(app.main.locator(":enabled")).first)
    question.get_by_role("radio").first.check(force=True)
    app.wait_idle()
    app.main.get_by_role("button", name="Reveal").click()
    app.wait_idle(app.main.get_by_role("button", name="Reveal").and_(
        app.main.locator("button[disabled]")))


def lesson_quiz(app) -> None:
    pick(app, "Predict the next merge")
    quiz_answered(app)


def merge_stepped(app) -> None:
    view = app.main.get_by_test_id("bpe-steps")
    before = view.get_attribute("data-step")
    view.get_by_role("button", name="Next merge", exact=True).click()
    expect(view).not_to_have_attribute("data-step", before)
    app.wait_idle()


def step_quiz(app) -> None:
    app.main.get_by_text("Quiz: predict the next merge", exact=True).click()
    app.wait_idle(app.main.get_by_role("button", name="Reveal"))
    quiz_answered(app)


def file_loaded(app) -> None:
    """A tokenizer file written by bpe_core's save, loaded on Export & import."""
    path, _ = app.page.context.bpe_model
    app.main.locator("[data-testid=stFileUploader] input[type=file]").set_input_files(path)
    app.wait_idle(app.main.get_by_role("heading", name="Loaded"))


def clicked(name: str, *expected: str) -> Callable:
    def act(app) -> None:
        app.main.get_by_role("button", name=name).click()
        app.wait_idle(*(app.main.get_by_text(e).first for e in expected))
    return act


def trained_by(button: str, shown: str) -> Callable:
    """A page's own training, started by its ``button``; done when a text that matches
    ``shown`` (a regular expression), which only the trained page draws, is on screen."""
    def act(app) -> None:
        app.main.get_by_role("button", name=button, exact=True).click()
        app.wait_idle(app.main.get_by_text(re.compile(shown)),
                      timeout=TRAIN_TIMEOUT_MS)
    return act


def merges_uploaded(app) -> None:
    """Check your BPE with a merges file uploaded: a minbpe .model written by bpe_core's save,
    read (as many merges as bpe_core made) and checked against the reference."""
    path, merges = app.page.context.bpe_model
    app.main.locator(".st-key-check_file input[type=file]").set_input_files(path)
    app.wait_idle(app.main.get_by_text(re.compile(rf"^Read {merges:,} merges from english\.model")),
                  timeout=TRAIN_TIMEOUT_MS)


def room_opened(app) -> None:
    app.main.get_by_role("button", name="Open a room", exact=True).click()
    app.wait_idle(app.main.locator(".room-code"))


def class_quiz_started(app) -> None:
    app.main.get_by_role("button", name="Start the class quiz", exact=True).click()
    app.wait_idle(app.main.get_by_text(re.compile(r"^Which pair does merge \d+ join\?$")))


def student_joined(app):
    """A student's tab (a session of its own) joins the room by its link and opens Classroom:
    the student's view, the class quiz's question to answer. Yields the student's ``App``; when
    resumed, the student's tab is closed and the teacher closes the room (the pages after this
    one open as before)."""
    code = app.main.locator(".room-code").inner_text().strip()
    page = app.page.context.new_page()
    page.goto(f"{app.url}/?room={code.replace('-', '')}", wait_until="domcontentloaded")
    student = App(page, app.url)
    student.wait_idle(student.sidebar.get_by_text(f"Classroom {code} · you are a student"))
    student.go("Classroom", student.main.get_by_role(
        "radiogroup", name=re.compile(r"^Which pair does merge")))
    yield student
    student.page.close()
    app.main.get_by_role("button", name="Close the room", exact=True).click()
    app.wait_idle(app.main.get_by_role("button", name="Open a room", exact=True))


def variant_trained(app) -> None:
    """SuperBPE trained beside the classical tokenizer: its merges can then be stepped through."""
    app.main.get_by_role("button", name="Train", exact=True).click()
    app.wait_idle(app.main.get_by_role("button", name=re.compile(r"^Step through .*'s merges$")))


def tab(label: str) -> Callable:
    return lambda app: app.main.get_by_role("tab", name=label).click()


def both(*acts: Callable) -> Callable:
    def act(app) -> None:
        for one in acts:
            one(app)
    return act


def toggled(label: str) -> Callable:
    def act(app) -> None:
        app.main.get_by_text(label, exact=True).click()
        app.wait_idle()
    return act


# Each page's states after interaction, in the order they are driven on one page; after each, every
# expander on the page is opened and axe runs (the page as it opens is checked before these).
STATES: dict[str, list[tuple[str, Callable]]] = {
    "Start here": [],  # its expander, "What training made" (the ids box), is opened below
    "Lesson: BPE step by step": [
        *((f"step {title}", lesson_step(title)) for title in STEPS[1:]),
        ("the quiz answered", lesson_quiz),
    ],
    "Step through merges": [("a merge stepped", merge_stepped), ("the quiz answered", step_quiz)],
    "Classroom": [("a room opened", room_opened), ("the class quiz started", class_quiz_started),
                  ("a student's view", student_joined)],
    "Check your BPE": [("a merges file uploaded", merges_uploaded),
                       ("a bug shown", clicked("Show it"))],
    "Bytes & decoding": [("stray bytes", tab("Stray bytes")), ("the ids filled in", both(
        tab("Ids → text"), clicked("Fill in the ids of the text's first tokens")))],
    "Chat tokens": [("ids shown", toggled("Show ids instead of text"))],
    "Export & import": [("a file loaded", file_loaded)],
    "Superwords and fair merges": [("a variant trained", variant_trained)],
    "Compare with GPT": [("stacked", lambda app: pick(app, "Stacked"))],
    "Language tax": [("trained", trained_by("Train English-only vs all languages",
                                            "^Tokens relative to English under the"))],
    "Numbers": [("trained", trained_by("Train with digit presets",
                                       r"^Vocabulary size [\d,]+\. Tokens for 0–999"))],
}
assert set(STATES) <= set(PAGE_TITLES)


def axe_at_every_width(app, where: str, found: dict[str, list[str]], context: str | None = MAIN,
                       at_focus_width: Callable | None = None) -> None:
    """axe on the page as it is (in ``context``) at each of ``WIDTHS``, the window resized
    between runs; ``at_focus_width()`` once the window is ``FOCUS_WIDTH`` wide."""
    for viewport in widths_from(app):
        at_width(app, viewport)
        if problems := violations(app.page, context):
            found[f"{where} at {viewport['width']} px"] = problems
        if at_focus_width is not None and viewport["width"] == FOCUS_WIDTH:
            at_focus_width()


def walk_states(app, title: str, found: dict[str, list[str]]) -> list[str]:
    """Drive page ``title`` through its ``STATES``, every expander open after each, and run axe
    on the main column in each state at every width; returns the states walked. A state that
    is another learner's tab (a student in the teacher's room) is a generator: it yields that
    tab's ``App``, checked the same way, and closes it when resumed."""
    walked = []
    for name, act in [("as opened", None), *STATES.get(title, [])]:
        done = act(app) if act is not None else None
        seen = next(done) if inspect.isgenerator(done) else app
        expect(seen.page.get_by_test_id("stException")).to_have_count(0)
        opened = open_expanders(seen)
        if act is None and not opened:
            continue  # the page as it opens, checked whole already
        state = name + (f", {opened} expander(s) open" if opened else "")
        walked.append(state)
        axe_at_every_width(seen, f"{title} ({state})", found)
        if inspect.isgenerator(done):
            next(done, None)
    return walked


@pytest.mark.timeout(900)  # about 650 s at load 20 on 2 cores
def test_every_page_and_state_passes_axe_wcag_22_aa(browser, app_url, tmp_path):
    """Every page as it opens (whole page, the sidebar too), then each of its ``STATES`` and its
    expanders (the main column): 0 violations of WCAG 2.2 A/AA at each of ``WIDTHS``. One session
    walks every page once and drives each state once; axe runs at the three widths by resizing
    the window. The states walked are listed in the failure message and checked against
    ``STATES``; at ``FOCUS_WIDTH`` every page is tabbed through and each focus mark measured."""
    assert AXE_SCRIPT is not None, "pip install -r requirements-dev.txt (axe-playwright-python)"
    context = browser.new_context(viewport=WIDTHS[0])
    context.set_default_timeout(DEFAULT_TIMEOUT_MS)
    model, tok = tmp_path / "english", trained(ENGLISH)
    tok.save(str(model))  # the file Export & import and Check your BPE load
    context.bpe_model = (str(model) + ".model", tok.num_merges)
    try:
        app = open_app(context, app_url)
        found: dict[str, list[str]] = {}
        walked: dict[str, list[str]] = {}
        focus: dict[str, list[str]] = {}
        tabbed: dict[str, int] = {}

        def check() -> None:
            no_exception(app)
            title = nav_here(app.page).inner_text().splitlines()[-1]
            if skips := heading_skips(app):
                found[f"{title}, headings"] = skips

            def tab_through() -> None:  # the sidebar's stops on the first page only
                marks = focus_marks(app, from_main=bool(tabbed))
                tabbed[title] = len(marks)
                if problems := focus_problems(marks):
                    focus[title] = problems

            axe_at_every_width(app, title, found, context=None, at_focus_width=tab_through)
            walked[title] = walk_states(app, title, found)

        titles = visit_every_page(app, check)
        assert sorted(titles) == sorted(PAGE_TITLES)
        for title, states in STATES.items():  # every state listed was reached
            assert [s.split(",")[0] for s in walked[title] if s.split(",")[0] != "as opened"
                    ] == [name for name, _ in states], (title, walked[title])
        assert any("expander" in s for s in walked["Start here"])  # "What training made"
        assert any("expander" in s for s in walked["Report card"])  # "Read the texts"
        assert all(tabbed.values()), tabbed  # every page had stops to tab to
        at_width(app, next(v for v in WIDTHS if v["width"] == FOCUS_WIDTH))
        if problems := current_and_focused_differ(app):
            focus["the sidebar"] = problems
        found.update({f"focus mark, {t}": ps for t, ps in focus.items()})
        if found:
            pytest.fail("axe (WCAG 2.2 AA):\n" + "\n".join(
                f"{t}: {p}" for t, ps in found.items() for p in ps), pytrace=False)
    finally:
        context.close()


def test_a_screen_reader_hears_tokens_buttons_views_and_charts_by_what_they_are(app):
    """What a screen reader says, from the browser's accessibility tree, with known answers: a
    token's whitespace by name ("space the"), a stray byte as "byte C3" (the UTF-8 bytes of "ä"),
    its id and "1 byte" / "4 bytes"; the same words on the front page, the Tokens page and the
    stepping view; the stepping buttons by their action; Compare's views by whose tokens they
    show; Step's chart by its numbers (the text's bytes before any merge, bpe_core's token count
    after the last); the sidebar's special-token choice without Markdown."""
    tok = bpe_core.RegexTokenizer()
    tok.train(ENGLISH, 512)
    the = next(i for i, t in tok.vocab.items() if t == b" the")
    made = next(k for k, (pair, i) in enumerate(tok.merges.items(), 1) if i == the)
    said = f"space the, id {the}, 4 bytes, made by merge {made}"
    front = app.page.get_by_role("list", name="Your tokens")
    expect(front.get_by_role("listitem", name=said, exact=True).first).to_be_attached()
    expect(app.page.get_by_role("list", name="GPT-4o's tokens").get_by_role("listitem").first
           ).to_be_attached()
    box = app.main.get_by_label("Type here")
    box.fill("ä")
    expect(front.get_by_role("listitem")).to_have_count(2)
    expect(front.get_by_role("listitem").nth(0)).to_have_accessible_name("byte C3, id 195, 1 byte")
    expect(front.get_by_role("listitem").nth(1)).to_have_accessible_name("byte A4, id 164, 1 byte")
    expect(app.page.get_by_role("radiogroup", name="Special-token text such as <|endoftext|>")
           ).to_have_count(1)

    app.go("Tokens", app.main.locator(".bpe-tokens .t").first)
    items = app.main.get_by_role("list", name="Tokens").get_by_role("listitem")
    expect(items).to_have_count(len(tok.encode(ENGLISH)))
    expect(items.and_(app.main.get_by_label(said, exact=True)).first).to_be_attached()

    app.go("Step through merges", app.main.get_by_test_id("bpe-steps"))
    view = app.main.get_by_test_id("bpe-steps")
    for name in ["Previous merge that changes this text", "Previous merge", "Next merge",
                 "Next merge that changes this text"]:
        expect(view.get_by_role("button", name=name, exact=True)).to_have_count(1)
    slider = view.get_by_role("slider", name="Merges applied (k)")
    slider.focus()
    slider.press("End")
    expect(view).to_have_attribute("data-step", str(tok.num_merges))
    steps = view.get_by_role("list", name="Tokens after k merges")
    expect(steps.get_by_role("listitem", name=said, exact=True).first).to_be_attached()
    # the chart's graphics-document (Chromium names it by this attribute; Playwright's own role
    # mapping does not know the role)
    chart = app.main.locator("[data-testid=stVegaLiteChart][role=graphics-document]")
    expect(chart).to_have_attribute("aria-label", re.compile(
        "^Tokens against merges applied, step .*"
        rf"text \(shown below\): {len(ENGLISH.encode()):,} at 0 merges, .*"
        rf"{len(tok.encode(ENGLISH)):,} at {tok.num_merges:,}\."))

    app.go("Compare with GPT", app.main.locator(".bpe-compare").first)
    names = app.main.locator(".bpe-compare [role=list]").evaluate_all(
        "views => views.map(v => v.getAttribute('aria-label'))")
    assert len(names) == len(set(names)) >= 2, names
    assert "GPT-4o's tokens (o200k_base)" in names, names
    assert all(re.match(r"^(Your tokens|\S+'s tokens)( \(.+\))?$", n) for n in names), names


def test_a_screen_reader_hears_the_navigations_sections_and_the_page_it_is_on(app):
    """The sidebar's navigation as a screen reader gives it: each section a heading, under it a
    link to each of its pages (by title), and the page on screen in its place as text marked
    ``aria-current="page"`` (read "current page"), not a link to itself; drawn bold on a grey, as
    Streamlit drew it. Every link takes the keyboard's focus. The mark follows the learner."""
    nav = app.page.locator(NAV)

    def heard(here: str) -> str:
        """The template of the accessibility tree (headings, links, the current page's text)."""
        def q(item: str) -> str:
            return "- '" + item.replace("'", "''") + "'"
        lines = []
        for name, pages in SECTIONS.items():
            lines.append(q(f'heading "{name}" [level=2]'))
            lines += [f"- paragraph: {p.title}" if p.title == here else q(f'link "{p.title}"')
                      for p in pages]
        return "\n".join(lines)

    for here in ["Start here", "Step through merges"]:
        if here != "Start here":
            app.go(here, app.main.get_by_test_id("bpe-steps"))
        expect(nav).to_match_aria_snapshot(heard(here))
        expect(nav.locator("[aria-current]")).to_have_count(1)
        mark = nav_here(app.page, here)
        expect(mark).to_have_attribute("aria-current", "page")
        expect(mark).to_have_css("font-weight", "600")
        expect(mark).not_to_have_css("background-color", "rgba(0, 0, 0, 0)")
        expect(nav_link(app.page, here)).to_have_count(0)
        links = nav.get_by_role("link")
        expect(links).to_have_count(len(PAGE_TITLES) - 1)
        for link in links.all():
            link.focus()
            expect(link).to_be_focused()


# -- the focus mark ------------------------------------------------------------------------------

# The focused element (into open shadow roots), the element that draws its mark (itself, the box
# Streamlit draws around an input, or a radio's, checkbox's or switch's label), the mark's width
# and its contrast against the background it sits on (the nearest opaque background outside the
# marked element, translucent ones laid over it), and whether anything covers the mark's element.
FOCUS_JS = """() => {
  let el = document.activeElement;
  while (el && el.shadowRoot && el.shadowRoot.activeElement) el = el.shadowRoot.activeElement;
  if (!el || el === document.body) return null;
  const up = (e) => e.parentElement || (e.getRootNode() instanceof ShadowRoot ? e.getRootNode().host : null);
  const rgba = (c) => { const m = c.match(/[\\d.]+/g).map(Number); return m.length === 3 ? [...m, 1] : m; };
  const marked = (e) => { const s = getComputedStyle(e); return s.outlineStyle !== "none" && s.outlineStyle !== "auto" && parseFloat(s.outlineWidth) >= 2 && rgba(s.outlineColor)[3] > 0; };
  let mark = el;
  for (let e = el, i = 0; e && i < 4; e = up(e), i++) if (marked(e)) { mark = e; break; }
  const style = getComputedStyle(mark);
  let under = [255, 255, 255], layers = [];
  const mr = mark.getBoundingClientRect();
  const reach = (parseFloat(style.outlineOffset) || 0) + (parseFloat(style.outlineWidth) || 0);
  for (let e = up(mark); e; e = up(e)) {
    const br = e.getBoundingClientRect();  // a background the ring lies on covers the ring's box
    if (br.height < mr.height + 2 * reach || br.width < mr.width + 2 * reach) continue;
    const c = rgba(getComputedStyle(e).backgroundColor);
    if (c[3] > 0) layers.push(c);
    if (c[3] >= 1) break;
  }
  for (const c of layers.reverse()) under = under.map((u, i) => u * (1 - c[3]) + c[i] * c[3]);
  const oc = rgba(style.outlineColor), ring = under.map((u, i) => u * (1 - oc[3]) + oc[i] * oc[3]);
  const lum = (c) => { const l = c.map((v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; });
    return 0.2126 * l[0] + 0.7152 * l[1] + 0.0722 * l[2]; };
  const [a, b] = [lum(ring), lum(under)].sort((x, y) => y - x);
  const r = mark.getBoundingClientRect();
  const x = Math.min(Math.max(r.left + Math.min(r.width / 2, 8), 0), innerWidth - 1);
  const y = Math.min(Math.max(r.top + Math.min(r.height / 2, 8), 0), innerHeight - 1);
  let hit = document.elementFromPoint(x, y);
  while (hit && hit.shadowRoot && hit.shadowRoot.elementFromPoint(x, y) && hit.shadowRoot.elementFromPoint(x, y) !== hit) hit = hit.shadowRoot.elementFromPoint(x, y);
  const inside = (p, c) => { for (let e = c; e; e = up(e)) if (e === p) return true; return false; };
  // what is over the mark hides it only where it is drawn: a transparent box (Streamlit's header
  // bar, 60 px of nothing but its menu at the right) hides nothing
  const opaque = (h) => { for (let e = h; e && !inside(e, mark); e = up(e)) {
    if (rgba(getComputedStyle(e).backgroundColor)[3] > 0 || /^(IMG|CANVAS|svg|INPUT|BUTTON)$/.test(e.tagName)) return true;
  }
    return false; };
  const again = el.dataset.bpeFocusSeen === "1";
  el.dataset.bpeFocusSeen = "1";
  const name = (el.getAttribute("aria-label") || el.innerText || el.value || el.tagName).trim().slice(0, 40);
  return { name, tag: el.tagName, again, width: style.outlineStyle === "none" ? 0 : parseFloat(style.outlineWidth),
           contrast: Math.round((a + 0.05) / (b + 0.05) * 100) / 100,
           covered: !!hit && !(inside(mark, hit) || inside(hit, mark) || inside(el, hit)) && opaque(hit),
           hit: hit ? hit.tagName + "." + (hit.getAttribute("data-testid") || hit.className) : "none",
           at: [Math.round(x), Math.round(y)], mk: mark.tagName + "." + (mark.getAttribute("data-testid") || mark.className),
           main: !!el.closest && !!el.closest('[data-testid=stMain]') };
}"""
TAB_LIMIT = 80  # tabs on one page at most (the sidebar's are checked on the first page only)


def focus_marks(app, from_main: bool) -> list[dict]:
    """Tab through the page (from the main column's start when ``from_main``) until focus comes
    back round; what ``FOCUS_JS`` measures at each stop."""
    page = app.page
    # elements Streamlit kept from the page before are walked again on this one
    page.evaluate("() => document.querySelectorAll('[data-bpe-focus-seen]')"
                  ".forEach(e => delete e.dataset.bpeFocusSeen)")
    if from_main:
        page.locator(MAIN).evaluate("m => { m.tabIndex = -1; m.focus(); }")
    else:
        page.evaluate("() => document.activeElement && document.activeElement.blur()")
    out = []
    for _ in range(TAB_LIMIT):
        page.keyboard.press("Tab")
        mark = page.evaluate(FOCUS_JS)
        if mark is None or (from_main and not mark["main"]):
            break
        if mark["again"]:
            break
        out.append(mark)
    return out


def focus_problems(marks: list[dict]) -> list[str]:
    """The stops whose mark is thinner than 2 px, under 3:1 against its background, or covered."""
    return [f"{m['tag']} {m['name']!r}: {m['width']} px at {m['contrast']}:1"
            + (f", covered by {m['hit']} at {m['at']}, mark {m['mk']}" if m["covered"] else "")
            for m in marks if m["width"] < 2 or m["contrast"] < 3 or m["covered"]]


def current_and_focused_differ(app) -> list[str]:
    """The sidebar's current page and a focused link to another page, by computed style: the
    current one a fill and no ring, the focused one a ring and no fill."""
    look = """e => { const s = getComputedStyle(e);
      return {ring: s.outlineStyle, width: s.outlineWidth, fill: s.backgroundColor}; }"""
    link = app.page.locator(f"{NAV} [data-testid=stPageLink-NavLink]").first
    link.focus()
    app.page.keyboard.press("Shift+Tab")
    app.page.keyboard.press("Tab")  # focus by the keyboard: :focus-visible
    expect(link).to_be_focused()
    focused = link.evaluate(look)
    here = app.page.locator(f"{NAV} [aria-current=page]").evaluate(look)
    problems = []
    if focused["ring"] != "solid":
        problems.append(f"a focused link has no ring: {focused}")
    if here["ring"] != "none":
        problems.append(f"the current page has a ring like focus: {here}")
    if here["fill"] == focused["fill"]:
        problems.append(f"the current page and a focused link have one fill: {here}")
    return problems
