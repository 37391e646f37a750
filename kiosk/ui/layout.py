"""Sizes on screen for the two supported panels, in pixels derived from millimetres.

Assumed panels (the usual kiosk touchscreens of those resolutions):

    1280 x 800 on a 10.1" diagonal -> 149.4 px per inch -> 5.88 px/mm -> 20 mm = 118 px
     800 x 480 on a  7.0" diagonal -> 133.3 px per inch -> 5.25 px/mm -> 20 mm = 105 px

Any other resolution is assumed to have the pixel density of the nearer of
the two. Every button is at least ``target`` pixels in both directions, so
at least 20 mm on the assumed panel. The squares of the on-screen board are
smaller than that on 11 x 11 (they are a view of the real board, where the
visitor moves real pieces; touching them is the simulation's stand-in), and
arrow keys + Enter give a precise alternative.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import pygame

MIN_TARGET_MM = 20.0
KNOWN_PANELS: dict[tuple[int, int], float] = {(1280, 800): 10.1, (800, 480): 7.0}


def assumed_diagonal_in(size: tuple[int, int]) -> float:
    """The panel diagonal in inches assumed for ``size``."""
    if size in KNOWN_PANELS:
        return KNOWN_PANELS[size]
    # Same pixel density as the nearest known panel.
    nearest = min(KNOWN_PANELS, key=lambda known: abs(known[0] - size[0]))
    ppi = math.hypot(*nearest) / KNOWN_PANELS[nearest]
    return math.hypot(*size) / ppi


@dataclass(frozen=True)
class Layout:
    """Pixel sizes for one screen size; every screen lays itself out from these."""

    width: int
    height: int
    diagonal_in: float

    @classmethod
    def for_size(cls, size: tuple[int, int]) -> "Layout":
        width, height = size
        if width < 320 or height < 240:
            raise ValueError(f"screen size {width}x{height} is too small; at least 320x240")
        return cls(width, height, assumed_diagonal_in((width, height)))

    @property
    def px_per_mm(self) -> float:
        return math.hypot(self.width, self.height) / self.diagonal_in / 25.4

    def mm(self, millimetres: float) -> int:
        return int(math.ceil(millimetres * self.px_per_mm))

    @property
    def target(self) -> int:
        """The smallest touch target: 20 mm."""
        return self.mm(MIN_TARGET_MM)

    @property
    def compact(self) -> bool:
        return self.height < 600

    @property
    def margin(self) -> int:
        return max(8, self.height // 50)

    @property
    def gap(self) -> int:
        return max(6, self.height // 80)

    # Font sizes (pygame default font; size ~ line height). At a metre a
    # 5 mm line is comfortable; titles are bigger. The 7" panel is read from
    # closer and has far fewer pixels, so its text is 20 % smaller in mm.
    @property
    def text_scale(self) -> float:
        return 0.8 if self.compact else 1.0

    @property
    def font_title(self) -> int:
        return self.mm(11 * self.text_scale)

    @property
    def font_heading(self) -> int:
        return self.mm(8 * self.text_scale)

    @property
    def font_body(self) -> int:
        return self.mm(6.2 * self.text_scale)

    @property
    def font_button(self) -> int:
        return self.mm(6.5 * self.text_scale)

    @property
    def font_small(self) -> int:
        return self.mm(4.8 * self.text_scale)

    @property
    def rect(self) -> pygame.Rect:
        return pygame.Rect(0, 0, self.width, self.height)

    @property
    def flag_rect(self) -> pygame.Rect:
        """The language flag button, top right on every visitor screen."""
        size = self.target
        return pygame.Rect(self.width - self.margin - size, self.margin, size, size)
