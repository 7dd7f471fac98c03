"""The app's pages, in one list, and the sidebar's navigation drawn from it.

``SECTIONS`` is the one list of pages: their scripts, titles, icons and the section each sits in.
``route()`` (called by app.py) gives it to ``st.navigation`` with ``position="hidden"`` and draws
the sidebar's navigation itself, at the top of the sidebar:

- each section's name is a heading (``<h2>``), so a screen reader lists and jumps to it;
- under it, a ``st.page_link`` to each page, with the same title and icon as before;
- the page on screen is not a link but its title, marked ``aria-current="page"`` (a screen
  reader says "current page") and drawn as Streamlit marks its current link (bold, on grey).

Why not Streamlit's own sidebar navigation: with sections, it draws each section's header and
links as a ``<div>`` inside its ``<ul>`` (Streamlit 1.67), which axe-core reports (``list``,
``listitem``: WCAG 1.3.1); its section headers are not headings either. docs/ACCESSIBILITY.md
keeps the minimal reproduction for a report upstream.

What a ``st.page_link`` does not do that Streamlit's navigation did: on a phone (a mobile browser,
by its user agent), a tap on a link leaves the sidebar open over the new page, where Streamlit's
own navigation closed it. A small component (``_CLOSE_JS``, no element of its own) closes it
again, as Streamlit did: on a mobile browser only, when the page changed. A section cannot be
folded away. And the first page's link is ``href=""``
(Streamlit gives the default page no path), so a middle click opens the page on screen in a new
tab; a plain click goes to the first page.
"""

from __future__ import annotations

from html import escape
from typing import NamedTuple

import streamlit as st

from ui.kit.focus import FOCUS_RULES

NAV_KEY = "nav"  # the container the navigation is drawn in: its CSS class is st-key-nav


class PageEntry(NamedTuple):
    path: str  # the page's script, as st.Page, st.page_link and st.switch_page name it
    title: str
    icon: str


SECTIONS: dict[str, tuple[PageEntry, ...]] = {
    "Learn": (
        PageEntry("pages/overview.py", "Start here", "🏁"),
        PageEntry("pages/lesson.py", "Lesson: BPE step by step", "🎓"),
        PageEntry("pages/classroom.py", "Classroom", "🧑‍🏫"),
        PageEntry("pages/check.py", "Check your BPE", "🩺"),
    ),
    "Train and look": (
        PageEntry("pages/tokens.py", "Tokens", "🎨"),
        PageEntry("pages/steps.py", "Step through merges", "👣"),
        PageEntry("pages/forest.py", "Merge forest", "🌳"),
        PageEntry("pages/variants.py", "Variants of BPE", "🔀"),
        PageEntry("pages/beyond.py", "Superwords and fair merges", "🚀"),
    ),
    "Compare and exchange": (
        PageEntry("pages/compare.py", "Compare with GPT", "⚖️"),
        PageEntry("pages/exchange.py", "Export & import", "💾"),
        PageEntry("pages/bytes.py", "Bytes & decoding", "🔢"),
        PageEntry("pages/chat.py", "Chat tokens", "💬"),
    ),
    "Who pays for tokens": (
        PageEntry("pages/languages.py", "Language tax", "🌍"),
        PageEntry("pages/numbers.py", "Numbers", "🔟"),
        PageEntry("pages/health.py", "Vocabulary health", "🔬"),
        PageEntry("pages/report.py", "Report card", "📋"),
    ),
}
DEFAULT_PAGE = "pages/overview.py"  # the page at the app's address

# The navigation looks as Streamlit's did: small section names, links of 14 px, the current page
# bold on a grey. Colours stay the theme's (inherited); the grey is Streamlit's own, translucent.
# A long title wraps instead of ending in "…".
NAV_CSS = """<style>
.st-key-nav { gap: 0.875rem; }
.st-key-nav_close { display: none; }
.st-key-nav h2.bpe-nav-section { font-size: 0.875rem; font-weight: 600; line-height: 1.5;
  padding: 0; margin: 0.5rem 0 -0.25rem 0; color: inherit; }
.st-key-nav .stElementContainer:first-child h2.bpe-nav-section { margin-top: 0; }
.st-key-nav [data-testid="stPageLink-NavLink"] p,
.st-key-nav .bpe-nav-here { font-size: 0.875rem; }
.st-key-nav [data-testid="stPageLink-NavLink"] span {
  white-space: normal; overflow: visible; text-overflow: clip; overflow-wrap: break-word; }
.st-key-nav .stElementContainer:has(.bpe-nav-here) { margin: -0.375rem 0; }
.st-key-nav .bpe-nav-here { display: flex; align-items: center; gap: 0.5rem; margin: 0.125rem 0;
  padding: 0.25rem 0.5rem; border-radius: 0.5rem; font-weight: 600; line-height: 1.25rem;
  background-color: rgba(169, 169, 162, 0.25); overflow-wrap: break-word; }
.st-key-nav .bpe-nav-here .bpe-nav-icon { flex: none; width: 1rem; text-align: center; }
""" + FOCUS_RULES + "</style>"  # the focus mark of every page (one stylesheet: a second is an entry)


# On a mobile browser (by its user agent, as Streamlit's navigation decides), a page change closes
# the sidebar, which a st.page_link leaves open over the new page. Nothing else: a desktop browser,
# however narrow, keeps the sidebar as the user left it (so did Streamlit's navigation).
_CLOSE_JS = """
export default function ({ data }) {
  if (!data) return;
  const last = window.bpeNavPage;
  window.bpeNavPage = data.page;
  if (last === undefined || last === data.page) return;  // the first page, or a rerun of it
  const hints = navigator.userAgentData;
  const mobile = hints ? hints.mobile : /Android|iPhone|iPad|iPod|Mobile/i.test(navigator.userAgent);
  if (!mobile) return;
  const sidebar = document.querySelector('[data-testid="stSidebar"]');
  const close = document.querySelector('[data-testid="stSidebarCollapseButton"] button');
  if (sidebar && close && sidebar.getAttribute("data-collapsed") === "false") close.click();
}
"""


@st.cache_resource
def nav_closer():
    """The phone sidebar closer below, registered once per server."""
    return register_closer()


def register_closer():
    """The component that closes the sidebar after a page change on a phone (``nav_closer``
    registers it once per server)."""
    return st.components.v2.component("bpe_lab.nav_close", js=_CLOSE_JS)


def all_pages() -> list[PageEntry]:
    """Every page, in the sidebar's order."""
    return [entry for section in SECTIONS.values() for entry in section]


def section_heading(name: str) -> str:
    """A section's name as the heading a screen reader lists (escaped)."""
    return f'<h2 class="bpe-nav-section">{escape(name)}</h2>'


def current_item(entry: PageEntry) -> str:
    """The page on screen, in its place among the links: its icon and title, marked current."""
    return (f'<p class="bpe-nav-here" aria-current="page"><span class="bpe-nav-icon" '
            f'aria-hidden="true">{escape(entry.icon)}</span><span>{escape(entry.title)}</span></p>')


def route() -> st.Page:
    """The page this run shows, with the sidebar's navigation drawn (app.py runs it)."""
    pages = {name: [st.Page(e.path, title=e.title, icon=e.icon, default=e.path == DEFAULT_PAGE)
                    for e in section]
             for name, section in SECTIONS.items()}
    page = st.navigation(pages, position="hidden")
    here = next(e for name, section in SECTIONS.items()
                for e, p in zip(section, pages[name]) if p.url_path == page.url_path)
    draw_navigation(here)
    return page


def draw_navigation(here: PageEntry) -> None:
    """Each section's heading and its pages' links, ``here`` marked as the page on screen."""
    with st.sidebar:
        with st.container(key=NAV_KEY):
            st.html(NAV_CSS)
            for name, section in SECTIONS.items():
                st.html(section_heading(name))
                for entry in section:
                    if entry == here:
                        st.html(current_item(entry))
                    else:
                        st.page_link(entry.path, label=entry.title, icon=entry.icon)
        nav_closer()(data={"page": here.path}, key="nav_close")  # outside the list, never seen
        st.divider()
