"""Colour-blind safety of the palette, and 20 mm touch targets on both panels."""
import math

import pytest

from kiosk.ui import palette
from kiosk.ui.layout import Layout

# Machado, Oliveira & Fernandes (2009) simulation matrices, severity 1.0, linear RGB.
SIMULATIONS = {
    "protanopia": ((0.152286, 1.052583, -0.204868), (0.114503, 0.786281, 0.099216), (-0.003882, -0.048116, 1.051998)),
    "deuteranopia": ((0.367322, 0.860646, -0.227968), (0.280085, 0.672501, 0.047413), (-0.011820, 0.042940, 0.968881)),
    "tritanopia": ((1.255528, -0.076749, -0.178779), (-0.078411, 0.930809, 0.147602), (0.004733, 0.691367, 0.303900)),
}


def _lin(c):
    c = c / 255
    return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4


def _lab(rgb_linear):
    r, g, b = (min(1.0, max(0.0, v)) for v in rgb_linear)
    x = (0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047
    y = 0.2126 * r + 0.7152 * g + 0.0722 * b
    z = (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883

    def f(t: float) -> float:
        return t ** (1 / 3) if t > 0.008856 else 7.787 * t + 16 / 116

    return 116 * f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z))


def seen(rgb, kind):
    lin = [_lin(c) for c in rgb]
    if kind is None:
        return _lab(lin)
    m = SIMULATIONS[kind]
    return _lab([sum(m[i][j] * lin[j] for j in range(3)) for i in range(3)])


def delta_e(a, b, kind):
    return math.dist(seen(a, kind), seen(b, kind))


WOOD = (214, 178, 128)
PAIRS = {
    "captured tick vs not-captured cross": (palette.GOOD, palette.BAD),
    "primary vs danger button": (palette.PRIMARY, palette.DANGER),
    "primary vs secondary button": (palette.PRIMARY, palette.SECONDARY),
    "legal-move dot on wood": (palette.DOT, WOOD),
    "legal-move dot (black) on wood": (palette.BLACK, WOOD),
    "legal-move dot (purple) on wood": (palette.REDDISH_PURPLE, WOOD),
    "last move on wood": (palette.LAST_MOVE, WOOD),
    "selection on wood": (palette.SELECTED, WOOD),
    "put-here ring on wood": (palette.GOOD, WOOD),
    "take-away cross on wood": (palette.BAD, WOOD),
}


@pytest.mark.parametrize("kind", [None, *SIMULATIONS])
@pytest.mark.parametrize("name", list(PAIRS))
def test_meaningful_colours_stay_apart_for_colour_blind_eyes(name, kind):
    a, b = PAIRS[name]
    assert delta_e(a, b, kind) >= 20, f"{name} under {kind}: dE {delta_e(a, b, kind):.1f}"


@pytest.mark.parametrize("kind", [None, *SIMULATIONS])
def test_every_piece_scheme_separates_the_sides(kind):
    for scheme in palette.piece_schemes((45, 30, 22), (235, 225, 200), (212, 175, 55)):
        assert delta_e(scheme.attacker, scheme.defender, kind) >= 30, (scheme.key, kind)
        assert delta_e(scheme.attacker, WOOD, kind) >= 15, (scheme.key, kind)


def test_assumed_panels_and_targets():
    big, small = Layout.for_size((1280, 800)), Layout.for_size((800, 480))
    assert big.diagonal_in == 10.1 and small.diagonal_in == 7.0
    assert big.target == 118 and small.target == 105
    assert big.mm(20) / big.px_per_mm >= 20
    other = Layout.for_size((1024, 600))
    assert 4 < other.px_per_mm < 7
    with pytest.raises(ValueError, match="too small"):
        Layout.for_size((100, 100))


def test_dots_never_look_like_the_pieces_of_the_chosen_scheme():
    for scheme in palette.piece_schemes((45, 30, 22), (235, 225, 200), (212, 175, 55)):
        dot = palette.dot_colour(scheme)
        assert dot in palette.DOT_CANDIDATES
        for piece in (scheme.attacker, scheme.defender):
            assert delta_e(dot, piece, None) >= 25, (scheme.key, dot, piece)
    assert palette.dot_colour(palette.piece_schemes((45, 30, 22), (235, 225, 200), (212, 175, 55))[0]) == palette.DOT
