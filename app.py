"""bpe-lab: train a byte-level BPE tokenizer on your own text and watch it work.

Run as a session's script (``__main__``), this file only routes between the pages. Each page
starts with ``sidebar()`` (ui/kit/state.py), the controls every page shares: drawn from the page
script, the sidebar keeps its widgets' identity across reruns (and a classroom room,
ui/classroom/panel.py, comes in there too). Imported by ``streamlit run app.py``, it is the server: the
app plus two HTTP routes, the classroom's (ui/classroom/route.py) and the front page's box's
(ui/front/route.py), as an ``st.App``.
"""

import streamlit as st

if __name__ == "__main__":
    st.set_page_config(page_title="bpe-lab", page_icon="🧩", layout="wide")

    SECTIONS = {
        "Learn": [
            ("pages/overview.py", "Start here", "🏁"),
            ("pages/lesson.py", "Lesson: BPE step by step", "🎓"),
            ("pages/classroom.py", "Classroom", "🧑‍🏫"),
            ("pages/check.py", "Check your BPE", "🩺"),
        ],
        "Train and look": [
            ("pages/tokens.py", "Tokens", "🎨"),
            ("pages/steps.py", "Step through merges", "👣"),
            ("pages/forest.py", "Merge forest", "🌳"),
            ("pages/variants.py", "Variants of BPE", "🔀"),
            ("pages/beyond.py", "Superwords and fair merges", "🚀"),
        ],
        "Compare and exchange": [
            ("pages/compare.py", "Compare with GPT", "⚖️"),
            ("pages/exchange.py", "Export & import", "💾"),
            ("pages/bytes.py", "Bytes & decoding", "🔢"),
            ("pages/chat.py", "Chat tokens", "💬"),
        ],
        "Who pays for tokens": [
            ("pages/languages.py", "Language tax", "🌍"),
            ("pages/numbers.py", "Numbers", "🔟"),
            ("pages/health.py", "Vocabulary health", "🔬"),
            ("pages/report.py", "Report card", "📋"),
        ],
    }
    page = st.navigation(expanded=True, pages={
        name: [st.Page(path, title=title, icon=icon, default=path == "pages/overview.py")
               for path, title, icon in section]
        for name, section in SECTIONS.items()
    })
    page.run()
else:
    from streamlit.starlette import App

    from ui.classroom.route import ROUTES as ROOM_ROUTES
    from ui.front.route import FRONT_ROUTES
    from ui.kit.warm import warm_up

    warm_up()  # the GPT presets and the pages' modules, loaded while the server waits
    app = App(__file__, routes=ROOM_ROUTES + FRONT_ROUTES)
