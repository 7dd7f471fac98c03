"""Can colour-blind viewers tell neighbouring token colours apart? Simulate, then measure.

Plain functions over hex colours (no Streamlit, no numpy), used by tests/test_palette.py and the
lesson page's projector note:

* ``simulate(hex, deficiency)``: the colour as seen with protanopia, deuteranopia or tritanopia,
  by the matrices of Machado, Oliveira & Fernandes (2009) at severity 1.0, applied to linear RGB
  (sRGB is decoded first and encoded again after; results are clipped to the gamut).
* ``delta_e(hex1, hex2)``: CIEDE2000 colour difference in CIELAB (D65). About 1 is the smallest
  difference an observer notices side by side; 10 or more reads as "a different colour" at a
  glance, which is what two neighbouring tokens on a projector need.
* ``contrast(hex1, hex2)``: the WCAG 2 contrast ratio (4.5 is the AA level for normal text).
* ``neighbour_report(palette)``: every neighbour pair of a cycling palette (last -> first too)
  under normal vision and each deficiency, with its ΔE.

    >>> simulate("#ffffff", "deuteranopia")
    '#ffffff'
    >>> round(delta_e("#000000", "#ffffff"), 1)
    100.0
    >>> round(contrast("#111111", "#ffffff"), 1)
    18.9
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import NamedTuple

# Machado, Oliveira & Fernandes, "A Physiologically-based Model for Simulation of Color Vision
# Deficiency", IEEE TVCG 15(6), 2009: the severity 1.0 matrices, rows applied to linear RGB.
MACHADO_2009: dict[str, tuple[tuple[float, float, float], ...]] = {
    "protanopia": (
        (0.152286, 1.052583, -0.204868),
        (0.114503, 0.786281, 0.099216),
        (-0.003882, -0.048116, 1.051998),
    ),
    "deuteranopia": (
        (0.367322, 0.860646, -0.227968),
        (0.280085, 0.672501, 0.047413),
        (-0.011820, 0.042940, 0.968881),
    ),
    "tritanopia": (
        (1.255528, -0.076749, -0.178779),
        (-0.078411, 0.930809, 0.147602),
        (0.004733, 0.691367, 0.303900),
    ),
}
VISIONS = ("normal", *MACHADO_2009)  # what neighbour_report checks, in this order

# Neighbouring tokens must differ by at least this CIEDE2000 ΔE under every vision. ΔE 2 is
# "just noticeable" side by side under good light; a projector in a lit room washes colours out
# and a viewer at the back sees small patches, so we ask for five times that: ΔE 10 is where
# colours stop being "a slightly different shade" and read as different colours.
MIN_DELTA_E = 10.0
MIN_CONTRAST = 4.5  # WCAG 2 AA for normal-size text
TEXT_COLOUR = "#111111"  # the token text colour of ui/tokens_html.CSS

# ui/tokens_html.PALETTE's eight colours in a new order: the old order put peach next to pale
# green and mint next to pink, which deuteranopia turns into the same beige / grey (ΔE 2.8 and
# 3.2). In this order the closest neighbours under any vision are ΔE 12.5 apart (protanopia,
# amber -> mint); under normal vision at least 22.5. Every one keeps contrast >= 12 with #111.
CVD_SAFE_PALETTE = (
    "#b9dcf2", "#f5c9a9", "#cfd6f5", "#f8d9a6", "#b3e3d2", "#fff2a6", "#f4c4d8", "#d5e8b5",
)


def parse_colour(colour: str) -> tuple[int, int, int]:
    """``"#1a2b3c"`` or ``"#abc"`` -> (r, g, b) in 0..255; ValueError for anything else."""
    if not isinstance(colour, str) or not colour.startswith("#"):
        raise ValueError(f"a colour must be written #rrggbb, not {colour!r}")
    digits = colour[1:]
    if len(digits) == 3:
        digits = "".join(d * 2 for d in digits)
    if len(digits) != 6:
        raise ValueError(f"a colour must be written #rrggbb, not {colour!r}")
    try:
        value = int(digits, 16)
    except ValueError:
        raise ValueError(f"a colour must be written #rrggbb, not {colour!r}") from None
    return value >> 16, (value >> 8) & 0xFF, value & 0xFF


def _to_linear(c8: float) -> float:
    c = c8 / 255
    return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4


def _to_srgb8(c: float) -> int:
    c = min(max(c, 0.0), 1.0)
    s = 12.92 * c if c <= 0.0031308 else 1.055 * c ** (1 / 2.4) - 0.055
    return round(s * 255)


def linear_rgb(colour: str) -> tuple[float, float, float]:
    r, g, b = parse_colour(colour)
    return _to_linear(r), _to_linear(g), _to_linear(b)


def simulate(colour: str, deficiency: str) -> str:
    """The colour as seen with a deficiency (``"normal"`` gives it back), as ``#rrggbb``."""
    if deficiency == "normal":
        return "#{:02x}{:02x}{:02x}".format(*parse_colour(colour))
    if deficiency not in MACHADO_2009:
        raise ValueError(f"deficiency must be one of {', '.join(VISIONS)}, not {deficiency!r}")
    lin = linear_rgb(colour)
    out = [sum(m * c for m, c in zip(row, lin)) for row in MACHADO_2009[deficiency]]
    return "#{:02x}{:02x}{:02x}".format(*(_to_srgb8(c) for c in out))


def to_lab(colour: str) -> tuple[float, float, float]:
    """CIELAB (D65 white) of an sRGB colour."""
    r, g, b = linear_rgb(colour)
    x = 0.4124564 * r + 0.3575761 * g + 0.1804375 * b
    y = 0.2126729 * r + 0.7151522 * g + 0.0721750 * b
    z = 0.0193339 * r + 0.1191920 * g + 0.9503041 * b
    white = (0.95047, 1.0, 1.08883)

    def f(t: float) -> float:
        return t ** (1 / 3) if t > (6 / 29) ** 3 else t / (3 * (6 / 29) ** 2) + 4 / 29

    fx, fy, fz = (f(v / w) for v, w in zip((x, y, z), white))
    return 116 * fy - 16, 500 * (fx - fy), 200 * (fy - fz)


def ciede2000(lab1: Sequence[float], lab2: Sequence[float]) -> float:
    """CIEDE2000 difference of two CIELAB colours (Sharma, Wu & Dalal 2005; kL = kC = kH = 1)."""
    L1, a1, b1 = lab1
    L2, a2, b2 = lab2
    c_mean = (math.hypot(a1, b1) + math.hypot(a2, b2)) / 2
    g = 0.5 * (1 - math.sqrt(c_mean**7 / (c_mean**7 + 25**7)))
    a1p, a2p = (1 + g) * a1, (1 + g) * a2
    c1p, c2p = math.hypot(a1p, b1), math.hypot(a2p, b2)
    h1p = math.degrees(math.atan2(b1, a1p)) % 360 if c1p else 0.0
    h2p = math.degrees(math.atan2(b2, a2p)) % 360 if c2p else 0.0

    dL = L2 - L1
    dC = c2p - c1p
    if c1p * c2p == 0:
        dh = 0.0
    else:
        dh = h2p - h1p
        if dh > 180:
            dh -= 360
        elif dh < -180:
            dh += 360
    dH = 2 * math.sqrt(c1p * c2p) * math.sin(math.radians(dh / 2))

    L_mean = (L1 + L2) / 2
    cp_mean = (c1p + c2p) / 2
    if c1p * c2p == 0:
        h_mean = h1p + h2p
    elif abs(h1p - h2p) <= 180:
        h_mean = (h1p + h2p) / 2
    elif h1p + h2p < 360:
        h_mean = (h1p + h2p + 360) / 2
    else:
        h_mean = (h1p + h2p - 360) / 2
    t = (
        1
        - 0.17 * math.cos(math.radians(h_mean - 30))
        + 0.24 * math.cos(math.radians(2 * h_mean))
        + 0.32 * math.cos(math.radians(3 * h_mean + 6))
        - 0.20 * math.cos(math.radians(4 * h_mean - 63))
    )
    d_theta = 30 * math.exp(-(((h_mean - 275) / 25) ** 2))
    r_c = 2 * math.sqrt(cp_mean**7 / (cp_mean**7 + 25**7))
    s_l = 1 + 0.015 * (L_mean - 50) ** 2 / math.sqrt(20 + (L_mean - 50) ** 2)
    s_c = 1 + 0.045 * cp_mean
    s_h = 1 + 0.015 * cp_mean * t
    r_t = -math.sin(math.radians(2 * d_theta)) * r_c
    return math.sqrt(
        (dL / s_l) ** 2 + (dC / s_c) ** 2 + (dH / s_h) ** 2 + r_t * (dC / s_c) * (dH / s_h)
    )


def delta_e(colour1: str, colour2: str) -> float:
    """CIEDE2000 ΔE between two sRGB colours."""
    return ciede2000(to_lab(colour1), to_lab(colour2))


def relative_luminance(colour: str) -> float:
    r, g, b = linear_rgb(colour)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(colour1: str, colour2: str) -> float:
    """WCAG 2 contrast ratio, from 1 (same luminance) to 21 (black on white)."""
    l1, l2 = sorted((relative_luminance(colour1), relative_luminance(colour2)), reverse=True)
    return (l1 + 0.05) / (l2 + 0.05)


class PairCheck(NamedTuple):
    """Two neighbouring palette colours under one vision: their simulated look and ΔE."""

    vision: str
    first: int  # palette index; the neighbour is (first + 1) % len(palette)
    second: int
    seen: tuple[str, str]
    delta_e: float
    ok: bool


def neighbour_report(
    palette: Sequence[str], min_delta_e: float = MIN_DELTA_E
) -> list[PairCheck]:
    """Every neighbour pair of a cycling palette (including last -> first) under each vision."""
    if len(palette) < 2:
        raise ValueError("a cycling palette needs at least two colours")
    rows = []
    for vision in VISIONS:
        seen = [simulate(c, vision) for c in palette]
        for i in range(len(palette)):
            j = (i + 1) % len(palette)
            d = delta_e(seen[i], seen[j])
            rows.append(PairCheck(vision, i, j, (seen[i], seen[j]), d, d >= min_delta_e))
    return rows


def worst_neighbours(palette: Sequence[str]) -> dict[str, PairCheck]:
    """The closest neighbour pair under each vision."""
    worst: dict[str, PairCheck] = {}
    for row in neighbour_report(palette):
        if row.vision not in worst or row.delta_e < worst[row.vision].delta_e:
            worst[row.vision] = row
    return worst
