"""Colours of the touchscreen, chosen so colour-blind visitors can tell them apart.

The accents are the Okabe-Ito palette (orange, sky blue, bluish green,
yellow, blue, vermillion, reddish purple), which stays distinct under
protanopia, deuteranopia and tritanopia. Where two accents carry opposite
meanings (captured / not captured, put here / take away) they also differ in
lightness and are always drawn with different shapes (tick / cross, disc /
ring), so colour is never the only cue.
"""
from __future__ import annotations

from dataclasses import dataclass

RGB = tuple[int, int, int]

# Okabe-Ito
ORANGE: RGB = (230, 159, 0)
SKY_BLUE: RGB = (86, 180, 233)
BLUISH_GREEN: RGB = (0, 158, 115)
YELLOW: RGB = (240, 228, 66)
BLUE: RGB = (0, 114, 178)
VERMILLION: RGB = (213, 94, 0)
REDDISH_PURPLE: RGB = (204, 121, 167)

# Surfaces and text
BACKGROUND: RGB = (24, 32, 44)
BACKGROUND_LIGHT: RGB = (36, 48, 64)
PANEL: RGB = (44, 58, 78)
PANEL_EDGE: RGB = (70, 90, 118)
TEXT: RGB = (246, 241, 231)
TEXT_DIM: RGB = (178, 188, 204)
TEXT_DARK: RGB = (20, 24, 30)
SHADOW: RGB = (10, 14, 20)
GOLD: RGB = (212, 175, 55)
WHITE: RGB = (255, 255, 255)
BLACK: RGB = (0, 0, 0)

# Darkened accents: full-strength vermillion is too close to orange for
# deuteranopes, and bluish green too close to the wood for protanopes; the
# darker shades keep a CIE76 distance of at least 20 under all three
# simulations (tests/test_ui_palette_layout.py checks every pair that carries
# a meaning).
DARK_VERMILLION: RGB = (170, 60, 0)
DARK_BLUISH_GREEN: RGB = (0, 120, 90)

# Roles
PRIMARY: RGB = ORANGE            # the main action on a screen (dark text on it)
SECONDARY: RGB = BLUE            # other actions (light text)
DANGER: RGB = DARK_VERMILLION    # resign (light text)
SELECTED: RGB = WHITE            # the touched piece / chosen option, drawn with a black edge
LAST_MOVE: RGB = SKY_BLUE
DOT: RGB = BLUE
GOOD: RGB = DARK_BLUISH_GREEN    # "captured" tick, "put a piece here"
BAD: RGB = DARK_VERMILLION       # "not captured" cross, "take this away"
FIX: RGB = REDDISH_PURPLE


def on_colour(background: RGB) -> RGB:
    """Dark or light text, whichever reads better on ``background``."""
    r, g, b = background
    luminance = 0.2126 * r + 0.7152 * g + 0.0722 * b
    return TEXT_DARK if luminance > 140 else TEXT


@dataclass(frozen=True)
class PieceScheme:
    """On-screen colours of the three kinds of piece; scheme 0 matches the real pieces."""

    key: str                 # i18n key of its name
    attacker: RGB
    defender: RGB
    king: RGB
    crown: RGB = GOLD


def piece_schemes(config_attacker: RGB, config_defender: RGB, config_crown: RGB) -> tuple[PieceScheme, ...]:
    """Scheme 0 is the physical set (from the config); the others are unlocked on Easy.

    Every pair differs strongly in lightness as well as hue.
    """
    return (
        PieceScheme("colours.real", config_attacker, config_defender, config_defender, config_crown),
        PieceScheme("colours.blue_orange", BLUE, ORANGE, ORANGE, YELLOW),
        PieceScheme("colours.purple_yellow", (90, 40, 110), YELLOW, YELLOW, ORANGE),
        PieceScheme("colours.black_sky", (25, 25, 30), SKY_BLUE, SKY_BLUE, YELLOW),
    )


DOT_CANDIDATES: tuple[RGB, ...] = (BLUE, BLACK, REDDISH_PURPLE)


def dot_colour(scheme: PieceScheme) -> RGB:
    """The legal-move dot colour that stands furthest from the pieces of ``scheme``.

    With the real pieces that is blue; with the blue-and-orange scheme the dots
    must not look like small blue attackers, so another candidate is taken.
    """
    def distance(a: RGB, b: RGB) -> float:
        return sum((x - y) ** 2 for x, y in zip(a, b)) ** 0.5

    pieces = (scheme.attacker, scheme.defender, scheme.king)
    return max(DOT_CANDIDATES, key=lambda c: (min(distance(c, p) for p in pieces), c == DOT))
