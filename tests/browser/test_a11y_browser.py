"""Accessibility in Chromium: axe-core's WCAG 2.0 and 2.1 level A and AA rules on every page, at
the widths of a laptop (1440 px), a projector (1024 px) and a phone (390 px).

axe-core comes bundled in the pinned ``axe-playwright-python`` (requirements-dev.txt); nothing is
fetched. One session per width walks every page through the sidebar, as a learner does, and runs
axe on each once it is idle. Every violation is reported with the rule, the page and the first
elements it names, so a failure says what to fix. Nothing is left out: the sidebar's navigation is
the app's own (ui/kit/navigation.py), not Streamlit's, whose list markup axe flags (see
docs/ACCESSIBILITY.md).
"""

from __future__ import annotations

import re

import pytest
from conftest import DEFAULT_TIMEOUT_MS, NAV, nav_here, nav_link, open_app
from test_app_browser import ENGLISH, PAGE_TITLES, no_exception, visit_every_page

import bpe_core
from ui.kit.navigation import SECTIONS

try:
    from axe_playwright_python.sync_playwright import Axe
    from playwright.sync_api import expect
except ImportError:  # in CI a missing package fails below, like a missing browser
    Axe = expect = None

pytestmark = [pytest.mark.browser, pytest.mark.timeout(300)]

WCAG_AA = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]
AXE_OPTIONS = {"runOnly": {"type": "tag", "values": WCAG_AA}, "resultTypes": ["violations"]}
WIDTHS = [{"width": 1440, "height": 1000}, {"width": 1024, "height": 768},
          {"width": 390, "height": 844}]  # fmt: skip


def violations(page) -> list[str]:
    """What axe finds on the page as it is, nothing left out: "rule (impact, nodes): target;
    target; …" per rule."""
    found = Axe().run(page, options=AXE_OPTIONS).response["violations"]
    return [f"{v['id']} ({v['impact']}, {len(v['nodes'])}): "
            + "; ".join(" ".join(map(str, n["target"])) for n in v["nodes"][:3]) for v in found]


@pytest.mark.parametrize("viewport", WIDTHS, ids=lambda v: f"{v['width']}px")
def test_every_page_passes_axe_wcag_aa(browser, app_url, viewport):
    assert Axe is not None, "pip install -r requirements-dev.txt (axe-playwright-python)"
    context = browser.new_context(viewport=viewport)
    context.set_default_timeout(DEFAULT_TIMEOUT_MS)
    try:
        app = open_app(context, app_url)
        found: dict[str, list[str]] = {}

        def check() -> None:
            no_exception(app)
            title = nav_here(app.page).inner_text().splitlines()[-1]
            if problems := violations(app.page):
                found[title] = problems

        titles = visit_every_page(app, check)
        assert sorted(titles) == sorted(PAGE_TITLES)
        if found:
            pytest.fail("axe (WCAG 2.1 AA) at {} px:\n{}".format(
                viewport["width"], "\n".join(f"{t}: {p}" for t, ps in found.items() for p in ps)
            ), pytrace=False)
    finally:
        context.close()


def test_a_screen_reader_hears_each_tokens_text_and_id(app):
    """Every token view is a list, named, whose items are the tokens, each named by its hover
    text: its id, its text and its bytes. The Tokens page's view, the stepping view (drawn in the
    browser) and the front page's two (in a component)."""
    tok = bpe_core.RegexTokenizer()
    tok.train(ENGLISH, 512)
    first = tok.encode(ENGLISH)[0]
    text = tok.vocab[first].decode()
    heard = re.compile(rf"^id {first} · '{re.escape(text)}' · bytes ")
    front = app.page.get_by_role("list", name="Your tokens")
    expect(front.get_by_role("listitem").first).to_have_accessible_name(heard)
    expect(app.page.get_by_role("list", name="GPT-4o tokens").get_by_role("listitem").first
           ).to_be_attached()
    app.go("Tokens", app.main.locator(".bpe-tokens .t").first)
    items = app.main.get_by_role("list", name="Tokens").get_by_role("listitem")
    expect(items).to_have_count(len(tok.encode(ENGLISH)))
    expect(items.first).to_have_accessible_name(heard)
    app.go("Step through merges", app.main.get_by_test_id("bpe-steps"))
    steps = app.main.get_by_role("list", name="Tokens after k merges").get_by_role("listitem")
    expect(steps.first).to_have_accessible_name(re.compile(r"^id \d+ · .+ bytes: "))


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
