"""The focus mark: one look for "the keyboard is here" on every page and in every component
(WCAG 2.2 2.4.7, 2.4.11, 2.4.13 and 1.4.11).

Streamlit 1.67 draws focus as a translucent red glow on buttons (about 1.5:1 on white), as a
grey fill on a navigation link (1.11:1 against the sidebar, and the same grey as the mark of the
page on screen) and as nothing visible on a radio, a checkbox or a switch (their input is
transparent). Here every focused element gets a solid ring of ``FOCUS_COLOUR`` outside it:
8.4:1 on white, 7.4:1 on the sidebar's grey. The page on screen in the sidebar stays a bold
text on a grey fill with no ring (ui/kit/navigation.py), so "where am I" and "where is the
keyboard" never look alike. The ring grows with projector mode's ``--bpe-scale``.

The custom components' shadow roots (the stepping view) take ``FOCUS_RULE`` in their own CSS;
page CSS does not reach them. ``FOCUS_RULES`` go into the page once, in the navigation's
stylesheet (ui/kit/navigation.py).
"""

from __future__ import annotations

FOCUS_COLOUR = "#0b4f9c"
# the ring itself: a CSS declaration block, for a page's or a component's :focus-visible rule
FOCUS_RULE = (f"outline: calc(3px * var(--bpe-scale, 1)) solid {FOCUS_COLOUR} !important; "
              "outline-offset: 2px !important;")

# Kept in focused rules of their own (projector mode's CSS lives in ui/kit/state.py).
# - Everything that takes focus and draws it itself: links, buttons, summaries, token views;
#   and a box that scrolls, which Chromium makes focusable without a tabindex: Streamlit's
#   dataframe (its scroller) once its columns are wider than its box (the walk met them on
#   Merge forest, Superwords, Language tax and Report card with the window narrowed from 1440
#   to 1024 px: Chromium's own 1 px ring).
# - Text boxes, number boxes and selects: the ring goes on Streamlit's box around the input
#   (the input itself is clipped inside it), not on the input.
# - A slider: Streamlit's range input sits in a wrapper clipped to 1 px inside the thumb (a ring
#   on the wrapper was clipped away: measured 1.55:1, the thumb's red under it), so the ring goes
#   on the thumb, the wrapper's parent. A white gap between the thumb and the ring (in place of
#   Streamlit's translucent red halo) keeps the ring on white where it crosses the track.
# - Radios, checkboxes and switches (a checkbox with role switch): their input is transparent, so
#   the ring goes on the label that holds the input, around the control and its text.
# - A sidebar link: the ring, and none of Streamlit's grey fill (the page on screen's look).
# - Focus is never behind the sticky header: the scrolling boxes leave its height free when they
#   scroll a focused element into view. A chart's toolbar, once it holds focus, is drawn above
#   the chart (it was under the chart's canvas or SVG).
FOCUS_RULES = f"""
.stApp a:focus-visible, .stApp button:focus-visible, .stApp summary:focus-visible,
.stApp select:focus-visible,
.stApp [tabindex]:not(input):not(textarea):focus-visible,
.stApp div:not([tabindex]):focus-visible {{ {FOCUS_RULE} }}
.stApp [data-testid$="RootElement"]:has(:focus-visible),
.stApp [data-testid="stNumberInputContainer"]:has(input:focus-visible),
.stApp [data-testid="stSelectbox"] [role="group"]:has(input:focus-visible),
.stApp [data-testid="stMultiSelect"] [role="group"]:has(input:focus-visible) {{ {FOCUS_RULE} }}
.stApp label:has(input[type="radio"]:focus-visible),
.stApp label:has(input[type="checkbox"]:focus-visible) {{ {FOCUS_RULE} border-radius: 4px; }}
.st-key-nav a[data-testid="stPageLink-NavLink"]:focus-visible {{ background-color: transparent; }}
[data-testid="stMain"], [data-testid="stSidebarContent"] {{ scroll-padding-top: 4.5rem; }}
.stApp [data-testid="stElementToolbar"]:focus-within {{ z-index: 1000; }}
.stApp [data-testid="stSlider"] div:has(> div > input[type="range"]:focus-visible) {{ {FOCUS_RULE}
  box-shadow: 0 0 0 2px #fff !important; }}
"""
