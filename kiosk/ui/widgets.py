"""Drawing helpers shared by the screens: buttons, wrapped text, panels, icons, flags.

Screens are drawn immediately every frame; a screen registers each button it
draws in a `Buttons` list, and the next touch is hit-tested against exactly
what is on the glass. That keeps what is drawn and what is touchable from
ever disagreeing.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Callable

import pygame

from kiosk.ui import palette
from functools import lru_cache

from kiosk.ui.fonts import font, render

RGB = tuple[int, int, int]


@dataclass
class Button:
    """A touchable rectangle with the action it runs."""

    key: str                          # stable id (tests find buttons by it)
    rect: pygame.Rect
    action: Callable[[], None]
    enabled: bool = True


@dataclass
class Buttons:
    """The buttons drawn in the current frame, in drawing order (last drawn is on top)."""

    items: list[Button] = field(default_factory=list)
    modal_start: int = 0              # buttons before this index lie under an open dialog

    def clear(self) -> None:
        self.items.clear()
        self.modal_start = 0

    def begin_modal(self) -> None:
        """A dialog is drawn from here on: only the buttons added after this can be touched or focused."""
        self.modal_start = len(self.items)

    def focusable(self) -> list[Button]:
        """The buttons a finger or the keyboard can reach now (a dialog's own, when one is open)."""
        return self.items[self.modal_start:]

    def add(self, key: str, rect: pygame.Rect, action: Callable[[], None], enabled: bool = True) -> Button:
        button = Button(key, pygame.Rect(rect), action, enabled)
        self.items.append(button)
        return button

    def at(self, pos: tuple[int, int]) -> Button | None:
        for button in reversed(self.focusable()):
            if button.rect.collidepoint(pos):
                return button
        return None

    def find(self, key: str) -> Button | None:
        for button in self.items:
            if button.key == key:
                return button
        return None

    def press(self, pos: tuple[int, int]) -> bool:
        """Run the button under ``pos``; True if one was there (enabled or not: it swallows the touch)."""
        button = self.at(pos)
        if button is None:
            return False
        if button.enabled:
            button.action()
        return True


def fit_font(text: str, max_width: int, size: int, min_size: int = 12) -> pygame.font.Font:
    """The largest font not above ``size`` in which ``text`` fits ``max_width``."""
    return font(_fit_size(text, max_width, size, min_size))


@lru_cache(maxsize=4096)
def _fit_size(text: str, max_width: int, size: int, min_size: int) -> int:
    while size > min_size and font(size).size(text)[0] > max_width:
        size -= 2
    return size


@lru_cache(maxsize=4096)
def _layout_paragraph(text: str, size: int, width: int, height: int, min_size: int) -> tuple[int, tuple[str, ...], int]:
    """(font size, lines, line height) of a paragraph shrunk to fit; cached, it is the same every frame."""
    while True:
        fnt = font(size)
        lines = wrap(text, fnt, width)
        line_h = int(fnt.get_linesize() * 1.05)
        if len(lines) * line_h <= height or size <= min_size:
            return size, tuple(lines), line_h
        size -= 2


def wrap(text: str, fnt: pygame.font.Font, max_width: int) -> list[str]:
    """Greedy word wrap; explicit newlines are kept."""
    lines: list[str] = []
    for paragraph in text.split("\n"):
        words = paragraph.split(" ")
        line = ""
        for word in words:
            candidate = f"{line} {word}" if line else word
            if fnt.size(candidate)[0] <= max_width or not line:
                line = candidate
            else:
                lines.append(line)
                line = word
        lines.append(line)
    return lines


def draw_text(surface: pygame.Surface, text: str, pos: tuple[float, float], size: int,
              colour: RGB = palette.TEXT, anchor: str = "topleft") -> pygame.Rect:
    """One line of text placed by ``anchor`` (any pygame.Rect attribute name)."""
    image = render(text, size, colour)
    rect = image.get_rect(**{anchor: pos})
    surface.blit(image, rect)
    return rect


def draw_paragraph(surface: pygame.Surface, text: str, rect: pygame.Rect, size: int,
                   colour: RGB = palette.TEXT, align: str = "left", min_size: int = 14,
                   valign: str = "top") -> int:
    """Wrapped text inside ``rect``, shrinking the font until it fits; returns the bottom y used."""
    size, lines, line_h = _layout_paragraph(text, int(size), rect.width, rect.height, int(min_size))
    total = len(lines) * line_h
    y = rect.top if valign == "top" else rect.centery - total // 2
    for line in lines:
        image = render(line, size, colour)
        if align == "center":
            x = rect.centerx - image.get_width() // 2
        elif align == "right":
            x = rect.right - image.get_width()
        else:
            x = rect.left
        surface.blit(image, (x, y))
        y += line_h
    return y


def draw_panel(surface: pygame.Surface, rect: pygame.Rect, colour: RGB = palette.PANEL,
               edge: RGB | None = palette.PANEL_EDGE, radius: int = 16, shadow: bool = True) -> None:
    if shadow:
        pygame.draw.rect(surface, palette.SHADOW, rect.move(0, max(3, radius // 4)), border_radius=radius)
    pygame.draw.rect(surface, colour, rect, border_radius=radius)
    if edge is not None:
        pygame.draw.rect(surface, edge, rect, width=2, border_radius=radius)


def draw_button(surface: pygame.Surface, rect: pygame.Rect, label: str, size: int,
                colour: RGB = palette.SECONDARY, enabled: bool = True, selected: bool = False,
                icon: Callable[[pygame.Surface, pygame.Rect, RGB], None] | None = None,
                sublabel: str | None = None) -> None:
    """A large rounded button: optional icon on the left (or above when tall), label, sublabel."""
    radius = max(10, min(rect.height, rect.width) // 6)
    base = colour if enabled else palette.PANEL
    pygame.draw.rect(surface, palette.SHADOW, rect.move(0, 5), border_radius=radius)
    pygame.draw.rect(surface, base, rect, border_radius=radius)
    if selected:
        pygame.draw.rect(surface, palette.SELECTED, rect.inflate(8, 8), width=6, border_radius=radius + 4)
    text_colour = palette.on_colour(base) if enabled else palette.TEXT_DIM
    inner = rect.inflate(-max(12, rect.height // 8), -max(8, rect.height // 10))
    tall = rect.height > rect.width * 0.9 and icon is not None
    if icon is not None and not label:
        side = min(inner.width, inner.height)
        icon(surface, pygame.Rect(inner.centerx - side // 2, inner.centery - side // 2, side, side), text_colour)
        return
    if icon is not None:
        if tall:
            icon_rect = pygame.Rect(inner.left, inner.top, inner.width, int(inner.height * 0.55))
            inner = pygame.Rect(inner.left, icon_rect.bottom, inner.width, inner.bottom - icon_rect.bottom)
        else:
            side = min(int(inner.height * 0.8), inner.width // 4)
            icon_rect = pygame.Rect(inner.left, inner.centery - side // 2, side, side)
            inner = pygame.Rect(icon_rect.right + inner.height // 6, inner.top,
                                inner.right - icon_rect.right - inner.height // 6, inner.height)
        icon(surface, icon_rect, text_colour)
    if sublabel:
        label_font = fit_font(label, inner.width, size)
        sub_size = max(12, int(size * 0.66))
        label_img = label_font.render(label, True, text_colour)
        sub_rect = pygame.Rect(inner.left, 0, inner.width, inner.height)
        sub_font = font(sub_size)
        sub_lines = wrap(sublabel, sub_font, inner.width)[:2]
        block = label_img.get_height() + len(sub_lines) * sub_font.get_linesize()
        y = inner.centery - block // 2
        x = inner.centerx - label_img.get_width() // 2 if tall or icon is None else inner.left
        surface.blit(label_img, (x, y))
        y += label_img.get_height()
        for line in sub_lines:
            img = sub_font.render(line, True, text_colour)
            x = inner.centerx - img.get_width() // 2 if tall or icon is None else inner.left
            surface.blit(img, (x, y))
            y += sub_font.get_linesize()
        del sub_rect
    else:
        label_font = fit_font(label, inner.width, size)
        lines = [label]
        if label_font.size(label)[0] > inner.width:
            lines = wrap(label, label_font, inner.width)
        line_h = label_font.get_linesize()
        y = inner.centery - line_h * len(lines) // 2
        for line in lines:
            img = label_font.render(line, True, text_colour)
            x = inner.centerx - img.get_width() // 2 if tall or icon is None else inner.left
            surface.blit(img, (x, y))
            y += line_h


def draw_progress(surface: pygame.Surface, rect: pygame.Rect, fraction: float,
                  colour: RGB = palette.SKY_BLUE) -> None:
    fraction = min(1.0, max(0.0, fraction))
    radius = rect.height // 2
    pygame.draw.rect(surface, palette.BACKGROUND, rect, border_radius=radius)
    if fraction > 0:
        filled = pygame.Rect(rect.left, rect.top, max(rect.height, int(rect.width * fraction)), rect.height)
        pygame.draw.rect(surface, colour, filled, border_radius=radius)
    pygame.draw.rect(surface, palette.PANEL_EDGE, rect, width=2, border_radius=radius)


def draw_busy(surface: pygame.Surface, rect: pygame.Rect, t: float, colour: RGB = palette.SKY_BLUE) -> None:
    """An indeterminate bar for work without a known length (the engine thinking): a block
    gliding back and forth, so it never pretends to be nearly done."""
    radius = rect.height // 2
    pygame.draw.rect(surface, palette.BACKGROUND, rect, border_radius=radius)
    width = max(rect.height, rect.width // 4)
    phase = (math.sin(t * 2.2) + 1) / 2
    block = pygame.Rect(rect.left + int((rect.width - width) * phase), rect.top, width, rect.height)
    pygame.draw.rect(surface, colour, block, border_radius=radius)
    pygame.draw.rect(surface, palette.PANEL_EDGE, rect, width=2, border_radius=radius)


# ---- icons: each draws inside a rect in a given colour -------------------------------

def icon_tick(surface: pygame.Surface, rect: pygame.Rect, colour: RGB) -> None:
    w = max(3, rect.width // 7)
    points = [(rect.left + rect.width * 0.15, rect.top + rect.height * 0.55),
              (rect.left + rect.width * 0.42, rect.top + rect.height * 0.8),
              (rect.left + rect.width * 0.88, rect.top + rect.height * 0.22)]
    pygame.draw.lines(surface, colour, False, points, w)


def icon_cross(surface: pygame.Surface, rect: pygame.Rect, colour: RGB) -> None:
    w = max(3, rect.width // 7)
    r = rect.inflate(-rect.width // 4, -rect.height // 4)
    pygame.draw.line(surface, colour, r.topleft, r.bottomright, w)
    pygame.draw.line(surface, colour, r.topright, r.bottomleft, w)


def badge(surface: pygame.Surface, centre: tuple[int, int], radius: int, good: bool) -> None:
    """A round verdict badge: tick on bluish green, or cross on vermillion."""
    colour = palette.GOOD if good else palette.BAD
    pygame.draw.circle(surface, palette.WHITE, centre, radius + max(2, radius // 8))
    pygame.draw.circle(surface, colour, centre, radius)
    box = pygame.Rect(0, 0, radius * 2, radius * 2)
    box.center = centre
    (icon_tick if good else icon_cross)(surface, box.inflate(-radius // 2, -radius // 2), palette.WHITE)


def icon_book(surface: pygame.Surface, rect: pygame.Rect, colour: RGB) -> None:
    r = rect.inflate(-rect.width // 6, -rect.height // 4)
    w = max(2, r.width // 14)
    mid = r.centerx
    pygame.draw.polygon(surface, colour, [(r.left, r.top + w), (mid, r.top + 3 * w), (mid, r.bottom),
                                          (r.left, r.bottom - 2 * w)], w)
    pygame.draw.polygon(surface, colour, [(r.right, r.top + w), (mid, r.top + 3 * w), (mid, r.bottom),
                                          (r.right, r.bottom - 2 * w)], w)


def icon_flag_white(surface: pygame.Surface, rect: pygame.Rect, colour: RGB) -> None:
    r = rect.inflate(-rect.width // 4, -rect.height // 6)
    w = max(2, r.width // 10)
    pygame.draw.line(surface, colour, (r.left + w, r.top), (r.left + w, r.bottom), w)
    pygame.draw.polygon(surface, colour, [(r.left + w, r.top), (r.right, r.top + r.height * 0.22),
                                          (r.left + w, r.top + r.height * 0.45)])


def icon_stop(surface: pygame.Surface, rect: pygame.Rect, colour: RGB) -> None:
    side = min(rect.width, rect.height) // 2
    r = pygame.Rect(rect.centerx - side // 2, rect.centery - side // 2, side, side)
    pygame.draw.rect(surface, colour, r, border_radius=max(2, r.width // 6))


def icon_play(surface: pygame.Surface, rect: pygame.Rect, colour: RGB) -> None:
    r = rect.inflate(-rect.width // 3, -rect.height // 3)
    pygame.draw.polygon(surface, colour, [r.topleft, (r.right, r.centery), r.bottomleft])


def icon_arrow(direction: str) -> Callable[[pygame.Surface, pygame.Rect, RGB], None]:
    """An arrow icon pointing 'left', 'right', 'up' or 'down'."""
    angle = {"right": 0, "up": 90, "left": 180, "down": 270}[direction]

    def draw(surface: pygame.Surface, rect: pygame.Rect, colour: RGB) -> None:
        cx, cy = rect.center
        s = min(rect.width, rect.height) * 0.38
        shape = [(-s, -s * 0.25), (0, -s * 0.25), (0, -s * 0.7), (s, 0), (0, s * 0.7), (0, s * 0.25), (-s, s * 0.25)]
        a = math.radians(angle)
        pts = [(cx + x * math.cos(a) + y * math.sin(a), cy - x * math.sin(a) + y * math.cos(a)) for x, y in shape]
        pygame.draw.polygon(surface, colour, pts)
    return draw


def icon_home(surface: pygame.Surface, rect: pygame.Rect, colour: RGB) -> None:
    r = rect.inflate(-rect.width // 4, -rect.height // 4)
    pygame.draw.polygon(surface, colour, [(r.left, r.centery), (r.centerx, r.top), (r.right, r.centery)])
    pygame.draw.rect(surface, colour, pygame.Rect(r.left + r.width // 6, r.centery, r.width * 2 // 3, r.height // 2))


def draw_hand(surface: pygame.Surface, rect: pygame.Rect, colour: RGB = (240, 200, 160),
              outline: RGB = palette.TEXT_DARK) -> None:
    """A flat open hand (palm and five fingers), for 'take your hand off the board'."""
    w, h = rect.width, rect.height
    palm = pygame.Rect(rect.left + w * 0.2, rect.top + h * 0.45, w * 0.6, h * 0.5)
    fingers = []
    for dx, length in ((0.24, 0.42), (0.38, 0.5), (0.52, 0.48), (0.66, 0.4)):
        fw = w * 0.12
        fingers.append(pygame.Rect(rect.left + w * dx, rect.top + h * (0.5 - length), fw, h * length + h * 0.05))
    thumb = [(palm.left, palm.top + palm.height * 0.35), (rect.left + w * 0.02, rect.top + h * 0.42),
             (rect.left + w * 0.08, rect.top + h * 0.36), (palm.left + w * 0.08, palm.top + palm.height * 0.1)]
    for shape_outline in (True, False):
        grow = max(2, w // 40) if shape_outline else 0
        paint = outline if shape_outline else colour
        for finger in fingers:
            pygame.draw.rect(surface, paint, finger.inflate(grow * 2, grow * 2), border_radius=int(finger.width / 2) + grow)
        pygame.draw.rect(surface, paint, palm.inflate(grow * 2, grow * 2), border_radius=int(w * 0.12) + grow)
        pygame.draw.polygon(surface, paint, thumb, 0 if not shape_outline else grow * 2)
        if not shape_outline:
            pygame.draw.polygon(surface, paint, thumb)


# ---- flags ------------------------------------------------------------------------------

def draw_flag(surface: pygame.Surface, rect: pygame.Rect, code: str) -> None:
    """The flag of a language, drawn with primitives: 'sv' Sweden, 'en' United Kingdom, else a label."""
    if code == "sv":
        pygame.draw.rect(surface, (0, 106, 167), rect)
        bar = max(3, rect.height // 5)
        x = rect.left + rect.width * 5 // 16 + bar // 2
        pygame.draw.rect(surface, (254, 204, 0), (rect.left, rect.centery - bar // 2, rect.width, bar))
        pygame.draw.rect(surface, (254, 204, 0), (x - bar // 2, rect.top, bar, rect.height))
    elif code == "en":
        blue, red, white = (1, 33, 105), (200, 16, 46), (255, 255, 255)
        pygame.draw.rect(surface, blue, rect)
        diag = max(3, rect.height // 5)
        clip = surface.get_clip()
        surface.set_clip(rect.clip(clip) if clip else rect)
        pygame.draw.line(surface, white, rect.topleft, rect.bottomright, diag)
        pygame.draw.line(surface, white, rect.topright, rect.bottomleft, diag)
        pygame.draw.line(surface, red, rect.topleft, rect.bottomright, max(1, diag // 3))
        pygame.draw.line(surface, red, rect.topright, rect.bottomleft, max(1, diag // 3))
        cross = max(4, rect.height // 3)
        pygame.draw.rect(surface, white, (rect.left, rect.centery - cross // 2, rect.width, cross))
        pygame.draw.rect(surface, white, (rect.centerx - cross // 2, rect.top, cross, rect.height))
        inner = max(2, cross * 3 // 5)
        pygame.draw.rect(surface, red, (rect.left, rect.centery - inner // 2, rect.width, inner))
        pygame.draw.rect(surface, red, (rect.centerx - inner // 2, rect.top, inner, rect.height))
        surface.set_clip(clip)
    else:
        pygame.draw.rect(surface, palette.PANEL, rect)
        draw_text(surface, code.upper(), rect.center, rect.height // 2, anchor="center")
    pygame.draw.rect(surface, palette.SHADOW, rect, width=2)
