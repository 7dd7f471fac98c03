"""The work one session may cause is bounded: at the largest input the app accepts (random text
where nothing repeats, at the text cap, trained at the largest vocabulary), a tour of every page
encodes the text once per tokenizer, never more than the cap, and a second tour not at all. Counts and sizes only: the times are printed by ``benchmarks/limits.py``
(the machine is shared, so no test asserts a time).
"""

from __future__ import annotations

from collections import Counter

import pytest
from streamlit.testing.v1 import AppTest
from support import APP_PATH

from benchmarks.limits import PAGES, worst_text
from bpe_core import PRESETS
from bpe_core.base import Tokenizer
from ui.kit.choices import MAX_TEXT_CHARS, MAX_TRAIN_CHARS, MAX_VOCAB

pytestmark = pytest.mark.timeout(300)


def test_the_caps_are_the_ones_the_readme_states():
    assert (MAX_TEXT_CHARS, MAX_TRAIN_CHARS, MAX_VOCAB) == (200_000, 200_000, 8_192)


@pytest.fixture
def passes(monkeypatch):
    """Every pass of a tokenizer over a long text: ``{(tokenizer, characters): count}``."""
    seen: Counter = Counter()
    original = Tokenizer.chunks

    def counted(self, text, *args, **kwargs):
        if len(text) > 10_000:  # the sidebar's text, not a word or a sentence
            seen[(getattr(self, "name", None) or "yours", len(text))] += 1
        return original(self, text, *args, **kwargs)

    monkeypatch.setattr(Tokenizer, "chunks", counted)
    return seen


def test_a_page_tour_at_the_limits_passes_over_the_text_a_bounded_number_of_times(passes):
    at = AppTest.from_file(APP_PATH, default_timeout=240)
    at.run()
    at.text_area(key="text").set_value(worst_text(MAX_TEXT_CHARS + 5_000))
    at.number_input(key="vocab_size").set_value(MAX_VOCAB)
    at.button(key="train").click().run()
    assert not at.exception
    text = at.session_state["text"]
    assert len(text) == MAX_TEXT_CHARS  # the text area keeps the cap
    assert len(at.session_state["tok_text"]) == MAX_TRAIN_CHARS
    assert at.session_state["tok"].num_merges == MAX_VOCAB - 256  # random text: every merge made
    for _, page in PAGES:
        at.switch_page(page).run()
        assert not at.exception, page
        sent = sum(len(h.value) for h in at.html)
        assert sent < 2_500_000, (page, sent)  # bounded drawing (10,000 spans at most)
    # Each tokenizer passes over the text once in the whole tour (the session's own in the Train
    # run, each GPT tokenizer on Compare), never over more than the cap: every page reads the
    # session's one step-through of the text (ui.kit.state.derived). The Variants page adds its own:
    # one pass of each of its three default variant tokenizers (trained ones, named "yours" here
    # too), and one of the session's tokenizer for the three encoders. Superwords and fair merges
    # adds one: SuperBPE's step-through (its classical BPE is the session's tokenizer).
    variants = 3 + 1 + 1
    assert passes == Counter({(name, MAX_TEXT_CHARS): 1 for name in PRESETS}
                             | {("yours", MAX_TEXT_CHARS): 1 + variants})
    passes.clear()
    for _, page in PAGES:  # a second tour finds everything kept for the session
        at.switch_page(page).run()
    assert passes == Counter()
    assert len(at.session_state["train_memo"]) == 2  # the first sample's and this text's


def test_a_page_tour_on_the_sample_encodes_the_sidebar_text_at_most_twice_per_tokenizer(monkeypatch):
    """The front page reads the session's one cache too (issue 31): its box starts from the
    sidebar's text, so its views are the step-throughs that Tokens, Step through and Compare use.
    Counted here: every pass of each tokenizer (by identity) over the sidebar's text, from the
    first visit to the end of a tour that comes back to the front page."""
    texts: Counter = Counter()
    original = Tokenizer.chunks

    def counted(self, text, *args, **kwargs):
        texts[(id(self), getattr(self, "name", None) or "yours", text)] += 1
        return original(self, text, *args, **kwargs)

    monkeypatch.setattr(Tokenizer, "chunks", counted)
    at = AppTest.from_file(APP_PATH, default_timeout=240)
    at.run()
    assert not at.exception
    for _, page in PAGES + [("Start here again", "pages/overview.py")]:
        at.switch_page(page).run()
        assert not at.exception, page
    sidebar = at.session_state["text"]
    assert 1_000 < len(sidebar) < 10_000  # the built-in sample: the box starts from all of it
    own = id(at.session_state["tok"])
    passes = {(name, who == own): n for (who, name, text), n in texts.items() if text == sidebar}
    assert passes[("yours", True)] >= 1 and passes[("o200k_base", False)] >= 1  # the count sees them
    assert max(passes.values()) <= 2, passes
