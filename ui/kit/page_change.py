"""A page change asked for in the browser, as the custom components inside a fragment must see it
before they rerun that fragment.

A component that tells the server something later than the user's action (the front page's box
when the user pauses or leaves it, the stepping view's throttled step) calls ``setStateValue``,
which reruns the fragment that holds it. Streamlit (1.67) sends that rerun a moment later (on a
zero timer) and names in it the page on screen in the browser, which is still the old page
until the server's first answer to a page change. So a rerun set just before, or after, a click
on another page's link reaches the server after the page change: the server takes it for a
change back to the old page, finds the fragment gone (only the new page has run) and runs
nothing, and the browser clears the new page it had drawn: a blank page, nothing running,
until the user does something (seen in 6 of 8 runs of the Tokens page reached from Start here
just after typing, tests/browser/test_a11y_browser.py).

``PAGE_CHANGE_JS`` goes at the top of such a component's JS. It defines ``pageChange``, one per
tab (``window.bpePageChange``), which watches the user's clicks on Streamlit's page links
(``st.page_link``: the sidebar's navigation, a page's own links) and the browser's back and
forward:

- ``pageChange.count()``: how many page changes the user has asked for in this tab. A component
  keeps the count it saw when it came on the page, and sends nothing once the count has changed
  (its page is going; it does not come back: a page that comes again mounts a new component).
- ``pageChange.sent()``: said right after ``setStateValue``. A click on a page link that comes
  before Streamlit has sent that value waits for it (one timer's turn, after Streamlit's own),
  so the fragment's rerun reaches the server first, and the page change then replaces it.

A click with a modifier key or another button (a new tab or window) changes nothing here.
"""

from __future__ import annotations

PAGE_LINK = '[data-testid="stPageLink-NavLink"]'  # what st.page_link draws (Streamlit 1.67)

PAGE_CHANGE_JS = """
const pageChange = window.bpePageChange || (window.bpePageChange = (() => {
  let count = 0, unsent = false, replaying = false, path = location.pathname;
  document.addEventListener("click", (event) => {
    const link = event.target instanceof Element ? event.target.closest('@PAGE_LINK@') : null;
    if (!link || event.button !== 0 || event.ctrlKey || event.metaKey || event.shiftKey
        || event.altKey) return;
    if (unsent && !replaying) {  // a value set a moment ago is not sent yet: it goes first
      event.preventDefault();
      event.stopImmediatePropagation();
      setTimeout(() => { replaying = true; try { link.click(); } finally { replaying = false; } });
      return;
    }
    count += 1;
  }, true);  // before Streamlit's own handler, which sends the page change
  // back or forward to another page (a link to a heading moves in the page: no change)
  window.addEventListener("popstate", () => {
    if (location.pathname !== path) count += 1;
    path = location.pathname;
  }, true);
  return {
    count: () => { path = location.pathname; return count; },  // the page's path as it is now
    // Streamlit sends a value set now on a zero timer, which was set first: this one follows it
    sent: () => { unsent = true; setTimeout(() => { unsent = false; }); },
  };
})());
""".replace("@PAGE_LINK@", PAGE_LINK)
