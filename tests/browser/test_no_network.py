"""Nothing leaves this machine: ``streamlit run app.py``, started exactly as the README says, looks
up no outside address and contacts nobody, at start or while every page is used, and the browser
loads nothing from anywhere but the app's own server. The server still listens on every interface,
so a class on the local network can connect.

The server runs under tests/netguard.py (any contact beyond loopback is refused and printed);
Chromium reports every request it makes.
"""

from __future__ import annotations

from pathlib import Path
from urllib.parse import urlsplit

import pytest
from conftest import nav_here, nav_link

pytestmark = [pytest.mark.browser, pytest.mark.timeout(300)]

PAGES = ["Lesson: BPE step by step", "Start here", "Tokens", "Step through merges",
         "Merge forest", "Compare with GPT", "Export & import", "Bytes & decoding",
         "Variants of BPE", "Check your BPE", "Language tax", "Numbers", "Vocabulary health",
         "Report card", "Chat tokens"]


def listening_addresses(port: int) -> set[str]:
    """The local addresses (hex, as /proc/net/tcp{,6} spells them) that listen on ``port``."""
    found = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        path = Path(table)
        if not path.exists():
            continue
        for line in path.read_text().splitlines()[1:]:
            fields = line.split()
            address, port_hex = fields[1].rsplit(":", 1)
            if int(port_hex, 16) == port and fields[3] == "0A":  # 0A: LISTEN
                found.add(address)
    return found


def test_the_app_as_the_readme_starts_it_reaches_nothing_outside(browser, playwright_kit):
    idle = playwright_kit["idle"]
    with playwright_kit["serve_app"](as_readme=True) as served:
        # every interface (0.0.0.0 or ::), so students on the local network can connect
        assert listening_addresses(served.port) & {"00000000", "00000000000000000000000000000000"}
        context = browser.new_context(viewport={"width": 1400, "height": 2200})
        requests: list[str] = []
        context.on("request", lambda request: requests.append(request.url))
        page = context.new_page()
        page.goto(served.url, wait_until="domcontentloaded")
        page.locator('[data-view="gpt-4o"]').wait_for()  # the front page's token views
        page.locator(idle).wait_for(state="attached")
        with page.expect_response("**/_bpelab/front/tokens"):  # typing asks the app's own route
            page.get_by_label("Type here").press_sequentially(" hi")
        for title in PAGES:
            nav_link(page, title).click()
            nav_here(page, title).wait_for()
            page.wait_for_timeout(300)  # the rerun starts
            page.locator(idle).wait_for(state="attached", timeout=60_000)
            assert page.get_by_test_id("stException").count() == 0, title
        context.close()
        printed = served.output()

    # the startup banner names the local address and no "External URL" (no lookup was made)
    assert f"URL: http://localhost:{served.port}" in printed, printed
    assert "External URL" not in printed and "external IP" not in printed, printed
    # (the serve_app context has already failed the test if the server tried to go outside)
    origins = {urlsplit(u)._replace(path="", query="", fragment="").geturl() for u in requests
               if not u.startswith(("data:", "blob:", "about:"))}
    assert origins == {served.url}, origins
    assert len(requests) > 10  # the check saw the page's own scripts and styles load
