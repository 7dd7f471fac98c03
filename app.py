"""bpe-lab: train a byte-level BPE tokenizer on your own text and watch it work.

This file only routes. Each page starts with ``sidebar()`` (ui/state.py), the controls every page
shares: drawn from the page script, the sidebar keeps its widgets' identity across reruns.
"""

import streamlit as st

st.set_page_config(page_title="bpe-lab", page_icon="🧩", layout="wide")

page = st.navigation(
    {
        "Learn": [
            st.Page("pages/lesson.py", title="Lesson: BPE step by step", icon="🎓"),
        ],
        "Train and look": [
            st.Page("pages/overview.py", title="Train & merges", icon="🏋️", default=True),
            st.Page("pages/tokens.py", title="Tokens", icon="🎨"),
            st.Page("pages/steps.py", title="Step through merges", icon="👣"),
            st.Page("pages/forest.py", title="Merge forest", icon="🌳"),
        ],
        "Compare and exchange": [
            st.Page("pages/compare.py", title="Compare with GPT", icon="⚖️"),
            st.Page("pages/exchange.py", title="Export & import", icon="💾"),
            st.Page("pages/bytes.py", title="Bytes & decoding", icon="🔢"),
        ],
    }
)
page.run()
