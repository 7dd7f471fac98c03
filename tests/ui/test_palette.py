"""Token colours for colour-blind viewers: CVD simulation, CIEDE2000, WCAG contrast, the palette.

Neighbouring tokens get neighbouring colours of ``ui.kit.tokens_html.PALETTE`` (the index cycles,
last -> first included), so every such pair must stay apart under normal vision and under
protanopia, deuteranopia and tritanopia (Machado et al. 2009, severity 1.0), by at least
``MIN_DELTA_E`` = 10 CIEDE2000 units (see ui/kit/palette.py for why 10), and the dark token
text must keep WCAG contrast >= 4.5 on every background.
"""

from __future__ import annotations

import doctest

import pytest

import ui.kit.palette as pc
from ui.kit.palette import (
    CVD_SAFE_PALETTE,
    MIN_CONTRAST,
    MIN_DELTA_E,
    TEXT_COLOUR,
    VISIONS,
    ciede2000,
    contrast,
    delta_e,
    neighbour_report,
    simulate,
)
from ui.kit.tokens_html import CSS, PALETTE

# The token palette before this check: it failed under deuteranopia (#b3e3d2 -> #f4c4d8: ΔE 3.2;
# #f5c9a9 -> #d5e8b5: ΔE 2.8) and protanopia (#f5c9a9 -> #d5e8b5: ΔE 5.5). CVD_SAFE_PALETTE is
# the same eight colours in an order that passes.
PALETTE_BEFORE_THE_CHECK = [
    "#b9dcf2", "#f8d9a6", "#b3e3d2", "#f4c4d8", "#fff2a6", "#cfd6f5", "#f5c9a9", "#d5e8b5",
]


def test_doctests():
    assert doctest.testmod(pc).failed == 0


# Sharma, Wu & Dalal (2005), "The CIEDE2000 color-difference formula: implementation notes,
# supplementary test data, and mathematical observations", Table 1 (pairs 1, 7, 13, 17, 18,
# 25, 34).
SHARMA = [
    ((50.0, 2.6772, -79.7751), (50.0, 0.0, -82.7485), 2.0425),
    ((50.0, 0.0, 0.0), (50.0, -1.0, 2.0), 2.3669),
    ((50.0, 2.5, 0.0), (50.0, 3.1736, 0.5854), 1.0),
    ((50.0, 2.5, 0.0), (73.0, 25.0, -18.0), 27.1492),
    ((50.0, 2.5, 0.0), (61.0, -5.0, 29.0), 22.8977),
    ((60.2574, -34.0099, 36.2677), (60.4626, -34.1751, 39.4387), 1.2644),
    ((22.7233, 20.0904, -46.694), (23.0331, 14.973, -42.5619), 2.0373),
]


@pytest.mark.parametrize("lab1, lab2, expected", SHARMA)
def test_ciede2000_matches_sharmas_test_data(lab1, lab2, expected):
    assert ciede2000(lab1, lab2) == pytest.approx(expected, abs=1e-4)
    assert ciede2000(lab2, lab1) == pytest.approx(expected, abs=1e-4)  # symmetric


def test_lab_of_white_black_and_srgb_red():
    assert pc.to_lab("#ffffff") == pytest.approx((100.0, 0.0, 0.0), abs=0.01)
    assert pc.to_lab("#000000") == pytest.approx((0.0, 0.0, 0.0), abs=0.01)
    assert pc.to_lab("#ff0000") == pytest.approx((53.24, 80.09, 67.20), abs=0.05)


def test_simulation_keeps_greys_and_collapses_red_green_for_red_green_deficiencies():
    for vision in VISIONS:
        for grey in ("#000000", "#777777", "#ffffff"):
            assert delta_e(simulate(grey, vision), grey) < 1.0  # every matrix row sums to 1
    red, green = "#d62728", "#2ca02c"  # matplotlib's red and green: a classic confusion pair
    normal = delta_e(red, green)  # about 72
    assert delta_e(simulate(red, "deuteranopia"), simulate(green, "deuteranopia")) < normal / 10
    assert delta_e(simulate(red, "protanopia"), simulate(green, "protanopia")) < normal / 2
    assert delta_e(simulate(red, "tritanopia"), simulate(green, "tritanopia")) > normal * 0.8
    # Okabe-Ito's vermillion and bluish green were chosen to survive all three
    for vision in VISIONS:
        assert delta_e(simulate("#d55e00", vision), simulate("#009e73", vision)) > 15


def test_simulate_uses_machados_matrices_in_linear_rgb():
    # pure sRGB green (linear (0, 1, 0)) under deuteranopia: the matrix's second column,
    # clipped and encoded to sRGB again
    r, g, b = (pc._to_srgb8(c) for c in (0.860646, 0.672501, 0.042940))
    assert simulate("#00ff00", "deuteranopia") == f"#{r:02x}{g:02x}{b:02x}"


def test_wcag_contrast_known_values():
    assert contrast("#000000", "#ffffff") == pytest.approx(21.0)
    assert contrast("#767676", "#ffffff") == pytest.approx(4.54, abs=0.01)  # the AA grey
    assert contrast("#ffffff", "#767676") == contrast("#767676", "#ffffff")


@pytest.mark.parametrize("bad", ["red", "#12345", "#gggggg", "", None])
def test_bad_colours_are_value_errors(bad):
    with pytest.raises(ValueError, match="#rrggbb"):
        pc.parse_colour(bad)
    with pytest.raises(ValueError):
        simulate("#ffffff", "achromatopsia")


def failures(palette) -> list[str]:
    return [
        f"{r.vision}: {palette[r.first]} -> {palette[r.second]} ΔE {r.delta_e:.1f}"
        for r in neighbour_report(palette)
        if not r.ok
    ]


def test_token_palette_neighbours_stay_distinguishable_under_every_vision():
    assert failures(PALETTE) == []


def test_the_old_palette_fails_where_we_said():
    assert failures(PALETTE_BEFORE_THE_CHECK) == [
        "protanopia: #f5c9a9 -> #d5e8b5 ΔE 5.5",
        "deuteranopia: #b3e3d2 -> #f4c4d8 ΔE 3.2",
        "deuteranopia: #f5c9a9 -> #d5e8b5 ΔE 2.8",
    ]


@pytest.mark.parametrize("vision", VISIONS)
def test_the_proposed_palette_passes_under_each_vision(vision):
    rows = [r for r in neighbour_report(CVD_SAFE_PALETTE) if r.vision == vision]
    assert len(rows) == len(CVD_SAFE_PALETTE)  # every neighbour pair, last -> first included
    assert rows[-1].first == len(CVD_SAFE_PALETTE) - 1 and rows[-1].second == 0
    worst = min(r.delta_e for r in rows)
    assert worst >= MIN_DELTA_E, f"{vision}: closest neighbours ΔE {worst:.1f}"


def test_the_proposed_palette_is_the_same_colours_in_a_new_order():
    assert sorted(CVD_SAFE_PALETTE) == sorted(PALETTE_BEFORE_THE_CHECK)
    assert min(r.delta_e for r in neighbour_report(CVD_SAFE_PALETTE)) == pytest.approx(12.5, abs=0.1)


@pytest.mark.parametrize("palette", [PALETTE, CVD_SAFE_PALETTE], ids=["PALETTE", "proposed"])
def test_dark_token_text_keeps_wcag_aa_contrast_on_every_background(palette):
    assert "color: #111;" in CSS  # the token text colour the check assumes
    assert pc.parse_colour("#111") == pc.parse_colour(TEXT_COLOUR)
    for colour in palette:
        assert contrast(TEXT_COLOUR, colour) >= MIN_CONTRAST, colour
        # and under every simulated vision (the text is simulated too)
        for vision in VISIONS:
            seen = contrast(simulate(TEXT_COLOUR, vision), simulate(colour, vision))
            assert seen >= MIN_CONTRAST, (colour, vision)


def test_neighbour_report_needs_two_colours():
    with pytest.raises(ValueError, match="two colours"):
        neighbour_report(["#ffffff"])
