"""bpe-lab: train a byte-level BPE tokenizer on your own text and watch it work.

Run as a session's script (``__main__``), this file only routes between the pages, which
ui/kit/navigation.py lists and links from the top of the sidebar. Each page starts with
``sidebar()`` (ui/kit/state.py), the controls every page shares: drawn from the page script, the
sidebar keeps its widgets' identity across reruns (and a classroom room, ui/classroom/panel.py,
comes in there too). Imported by ``streamlit run app.py``, it is the server: the
app plus two HTTP routes, the classroom's (ui/classroom/route.py, with the middleware that gives
each browser its key with the page) and the front page's box's (ui/front/route.py), as an
``st.App``.
"""

import streamlit as st

from ui.kit.choices import install_budget

install_budget()  # every page's untrusted work runs within the app's budget (bpe_core.limits)

if __name__ == "__main__":
    st.set_page_config(page_title="bpe-lab", page_icon="🧩", layout="wide")

    from ui.kit.navigation import route

    page = route()  # the pages (ui/kit/navigation.py), and the sidebar's links to them
    page.run()
else:
    from starlette.middleware import Middleware
    from streamlit.starlette import App

    from ui.classroom.route import ROUTES as ROOM_ROUTES
    from ui.classroom.route import BrowserKey
    from ui.front.route import FRONT_ROUTES
    from ui.kit.warm import warm_up

    warm_up()  # the GPT presets and the pages' modules, loaded while the server waits
    app = App(__file__, routes=ROOM_ROUTES + FRONT_ROUTES, middleware=[Middleware(BrowserKey)])
