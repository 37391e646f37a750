"""Drawing a tafl board and its pieces, and turning touches into squares.

The board is drawn as the physical one looks from the visitor's side: a1
bottom-left, the config's wood, line and marked-square colours, the throne
and corners (11 x 11) or the castle and camps (9 x 9) marked. Pieces come in
the real colours or an unlocked scheme, flat or shaded 3D. Squares are the
engine's ints ``rank * size + file``.
"""
from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

import pygame

from kiosk.ui import palette
from kiosk.ui.fonts import font
from kiosk.ui.palette import PieceScheme

RGB = tuple[int, int, int]
FILES = "abcdefghijklmnopqrstuvwxyz"


def piece_code(piece: object) -> str:
    """'t', 'T' or 'K' for an engine Piece (a str enum) or a plain letter."""
    return str(getattr(piece, "value", piece))


def marked_squares(size: int) -> set[int]:
    """The darker squares of the physical board (docs/hardware.md).

    11 x 11: throne and four corners; 9 x 9 (Tablut): castle and the four
    T-shaped camps of four squares each.
    """
    centre = (size // 2) * size + size // 2
    if size == 9:
        mid = size // 2
        camps = set()
        for k in (mid - 1, mid, mid + 1):
            camps |= {k, (size - 1) * size + k, k * size, k * size + size - 1}
        camps |= {1 * size + mid, (size - 2) * size + mid, mid * size + 1, mid * size + size - 2}
        return camps | {centre}
    return {centre, 0, size - 1, (size - 1) * size, size * size - 1}


def square_name(sq: int, size: int) -> str:
    rank, file = divmod(sq, size)
    return f"{FILES[file]}{rank + 1}"


@dataclass(frozen=True)
class ScreenBoard:
    """Where the squares of a ``size`` board are inside ``rect`` (a square area incl. coordinates)
    on the screen, in pixels; the physical board in millimetres is calibration.geometry.BoardGeometry."""

    rect: pygame.Rect
    size: int
    coordinates: bool = True

    @property
    def inner(self) -> pygame.Rect:
        pad = self.rect.width // (self.size * 2 + 2) if self.coordinates else max(2, self.rect.width // 60)
        return self.rect.inflate(-2 * pad, -2 * pad)

    @property
    def square(self) -> float:
        return self.inner.width / self.size

    def square_rect(self, sq: int) -> pygame.Rect:
        rank, file = divmod(sq, self.size)
        s = self.square
        inner = self.inner
        left = inner.left + file * s
        top = inner.top + (self.size - 1 - rank) * s
        return pygame.Rect(round(left), round(top), round(left + s) - round(left), round(top + s) - round(top))

    def centre(self, sq: int) -> tuple[int, int]:
        return self.square_rect(sq).center

    def point(self, file: float, rank: float) -> tuple[float, float]:
        """Screen point of fractional board coordinates (square centres at .0)."""
        s = self.square
        return (self.inner.left + (file + 0.5) * s, self.inner.top + (self.size - 0.5 - rank) * s)

    def square_at(self, pos: tuple[int, int]) -> int | None:
        inner = self.inner
        if not inner.collidepoint(pos):
            return None
        file = int((pos[0] - inner.left) / self.square)
        rank = self.size - 1 - int((pos[1] - inner.top) / self.square)
        if 0 <= file < self.size and 0 <= rank < self.size:
            return rank * self.size + file
        return None


_BOARD_CACHE: dict[tuple, pygame.Surface] = {}


def _fast(surface: pygame.Surface) -> pygame.Surface:
    """The display's own pixel format blits fastest; without a display window keep it as it is."""
    return surface.convert_alpha() if pygame.display.get_surface() is not None else surface


def draw_board(surface: pygame.Surface, geom: ScreenBoard, wood: RGB, line: RGB, marked_rgb: RGB,
               marked: set[int] | None = None) -> None:
    """The wooden board with grid, marked squares and (optionally) file/rank letters.

    The board never changes during a game, so it is drawn once per look and
    size and blitted afterwards: one blit instead of a few hundred draw calls
    keeps the frame inside its 16 ms while the engine uses the other core.
    """
    marked = marked_squares(geom.size) if marked is None else marked
    key = (geom.rect.size, geom.size, geom.coordinates, tuple(wood), tuple(line), tuple(marked_rgb),
           frozenset(marked))
    cached = _BOARD_CACHE.get(key)
    if cached is None:
        if len(_BOARD_CACHE) > 32:
            _BOARD_CACHE.clear()
        pad = 8
        cached = pygame.Surface((geom.rect.width + 2 * pad, geom.rect.height + 2 * pad), pygame.SRCALPHA)
        local = ScreenBoard(pygame.Rect(pad, pad, geom.rect.width, geom.rect.height), geom.size, geom.coordinates)
        _draw_board_now(cached, local, wood, line, marked_rgb, marked)
        cached = _fast(cached)
        _BOARD_CACHE[key] = cached
    surface.blit(cached, (geom.rect.left - 8, geom.rect.top - 8))


def _draw_board_now(surface: pygame.Surface, geom: ScreenBoard, wood: RGB, line: RGB, marked_rgb: RGB,
                    marked: set[int]) -> None:
    frame = geom.rect
    pygame.draw.rect(surface, palette.SHADOW, frame.move(0, 6), border_radius=max(4, frame.width // 60))
    dr, dg, db = (max(0, int(c * 0.78)) for c in wood)
    darker = (dr, dg, db)
    pygame.draw.rect(surface, darker, frame, border_radius=max(4, frame.width // 60))
    inner = geom.inner
    pygame.draw.rect(surface, wood, inner)
    for sq in marked:
        pygame.draw.rect(surface, marked_rgb, geom.square_rect(sq))
    width = max(1, int(geom.square / 26))
    for k in range(geom.size + 1):
        x = round(inner.left + k * geom.square)
        y = round(inner.top + k * geom.square)
        pygame.draw.line(surface, line, (x, inner.top), (x, inner.bottom), width)
        pygame.draw.line(surface, line, (inner.left, y), (inner.right, y), width)
    if geom.coordinates:
        size_px = max(10, int((inner.left - frame.left) * 0.8))
        label_colour = palette.on_colour(darker)
        for k in range(geom.size):
            cx, _ = geom.point(k, 0)
            _, cy = geom.point(0, k)
            for y in ((frame.top + inner.top) // 2, (frame.bottom + inner.bottom) // 2):
                img = font(size_px).render(FILES[k], True, label_colour)
                surface.blit(img, img.get_rect(center=(cx, y)))
            for x in ((frame.left + inner.left) // 2, (frame.right + inner.right) // 2):
                img = font(size_px).render(str(k + 1), True, label_colour)
                surface.blit(img, img.get_rect(center=(x, cy)))


_SHADED_CACHE: dict[tuple[RGB, int], pygame.Surface] = {}


def _mix(a: RGB, b: RGB, t: float) -> RGB:
    r, g, bl = (int(a[k] + (b[k] - a[k]) * t) for k in range(3))
    return (r, g, bl)


def _outline_for(colour: RGB) -> RGB:
    return _mix(colour, (0, 0, 0), 0.55) if sum(colour) > 200 else _mix(colour, (255, 255, 255), 0.35)


def _shaded_disc(colour: RGB, radius: int) -> pygame.Surface:
    """A short cylinder seen from above at a slant: side band, lit top with a highlight."""
    key = (colour, radius)
    cached = _SHADED_CACHE.get(key)
    if cached is not None:
        return cached
    depth = max(2, radius // 4)
    surf = pygame.Surface((radius * 2 + 4, radius * 2 + depth + 6), pygame.SRCALPHA)
    cx, cy = radius + 2, radius + 2
    pygame.draw.ellipse(surf, (0, 0, 0, 90), (2, depth + 4, radius * 2, radius * 2))
    side = _mix(colour, (0, 0, 0), 0.45)
    for d in range(depth, 0, -1):
        pygame.draw.circle(surf, side, (cx, cy + d), radius)
    steps = max(6, radius)
    for k in range(steps):
        t = k / steps
        r = int(radius * (1 - t))
        if r <= 0:
            break
        shade = _mix(_mix(colour, (0, 0, 0), 0.25), _mix(colour, (255, 255, 255), 0.45), t ** 0.8)
        off = int(radius * 0.35 * t)
        pygame.draw.circle(surf, shade, (cx - off, cy - off), r)
    pygame.draw.circle(surf, _outline_for(colour), (cx, cy), radius, max(1, radius // 12))
    _SHADED_CACHE[key] = surf
    return surf


def draw_crown(surface: pygame.Surface, centre: tuple[float, float], width: float, colour: RGB,
               outline: RGB = palette.TEXT_DARK) -> None:
    """A three-pointed crown, ``width`` pixels wide, centred on ``centre``."""
    cx, cy = centre
    w = width
    h = w * 0.7
    left, right, top, bottom = cx - w / 2, cx + w / 2, cy - h / 2, cy + h / 2
    points = [(left, bottom), (left, top + h * 0.2), (cx - w * 0.25, top + h * 0.55), (cx, top),
              (cx + w * 0.25, top + h * 0.55), (right, top + h * 0.2), (right, bottom)]
    pygame.draw.polygon(surface, colour, points)
    pygame.draw.polygon(surface, outline, points, max(1, int(w / 14)))
    for x in (left, cx, right):
        y = top + h * 0.2 if x != cx else top
        pygame.draw.circle(surface, colour, (x, y), max(2, w / 10))
        pygame.draw.circle(surface, outline, (x, y), max(2, w / 10), 1)


_PIECE_CACHE: dict[tuple, pygame.Surface] = {}


def draw_piece(surface: pygame.Surface, centre: tuple[float, float], square: float, piece: object,
               scheme: PieceScheme, shaded: bool = False, alpha: int = 255) -> None:
    """One piece centred on ``centre`` sized for a square of ``square`` pixels (a cached sprite)."""
    code = piece_code(piece)
    key = (code, int(square), scheme, shaded)
    sprite = _PIECE_CACHE.get(key)
    if sprite is None:
        if len(_PIECE_CACHE) > 256:
            _PIECE_CACHE.clear()
        half = int(square * 0.75) + 4
        sprite = pygame.Surface((half * 2, half * 2), pygame.SRCALPHA)
        _draw_piece_now(sprite, (half, half), int(square), code, scheme, shaded)
        sprite = _fast(sprite)
        _PIECE_CACHE[key] = sprite
    half = sprite.get_width() // 2
    if alpha < 255:
        faded = sprite.copy()
        faded.fill((255, 255, 255, alpha), special_flags=pygame.BLEND_RGBA_MULT)
        surface.blit(faded, (int(centre[0]) - half, int(centre[1]) - half))
    else:
        surface.blit(sprite, (int(centre[0]) - half, int(centre[1]) - half))


def _draw_piece_now(surface: pygame.Surface, centre: tuple[int, int], square: float, code: str,
                    scheme: PieceScheme, shaded: bool) -> None:
    colour = {"t": scheme.attacker, "T": scheme.defender, "K": scheme.king}[code]
    radius = int(square * (0.42 if code == "K" else 0.38))
    cx, cy = int(centre[0]), int(centre[1])
    if shaded:
        disc = _shaded_disc(colour, radius)
        surface.blit(disc, (cx - radius - 2, cy - radius - 2 - max(1, radius // 8)))
        cy -= max(1, radius // 8)
    else:
        pygame.draw.circle(surface, palette.SHADOW, (cx, cy + max(2, radius // 8)), radius)
        pygame.draw.circle(surface, colour, (cx, cy), radius)
        edge = _outline_for(colour)
        pygame.draw.circle(surface, edge, (cx, cy), radius, max(2, radius // 9))
        pygame.draw.circle(surface, edge, (cx, cy), int(radius * 0.62), max(1, radius // 14))
    if code == "K":
        draw_crown(surface, (cx, cy), radius * 1.05, scheme.crown)


def draw_pieces(surface: pygame.Surface, geom: ScreenBoard, pieces: Mapping[int, object], scheme: PieceScheme,
                shaded: bool = False, skip: set[int] | None = None) -> None:
    for sq, piece in sorted(pieces.items(), key=lambda item: -item[0]):
        if skip and sq in skip:
            continue
        draw_piece(surface, geom.centre(sq), geom.square, piece, scheme, shaded)


def outline_square(surface: pygame.Surface, geom: ScreenBoard, sq: int, colour: RGB, width_frac: float = 0.09,
                   fill_alpha: int = 0) -> None:
    rect = geom.square_rect(sq)
    if fill_alpha:
        tint = pygame.Surface(rect.size, pygame.SRCALPHA)
        tint.fill((*colour, fill_alpha))
        surface.blit(tint, rect)
    pygame.draw.rect(surface, colour, rect, max(2, int(geom.square * width_frac)))


def draw_dot(surface: pygame.Surface, geom: ScreenBoard, sq: int, colour: RGB = palette.DOT) -> None:
    """A legal destination: a filled dot with a white ring, visible on wood and on marked squares."""
    cx, cy = geom.centre(sq)
    r = max(4, int(geom.square * 0.17))
    pygame.draw.circle(surface, palette.WHITE, (cx, cy), r + max(2, r // 3))
    pygame.draw.circle(surface, colour, (cx, cy), r)


def draw_cursor(surface: pygame.Surface, geom: ScreenBoard, sq: int, phase: float) -> None:
    """The keyboard cursor: a yellow frame with a black edge, gently pulsing."""
    rect = geom.square_rect(sq).inflate(-2, -2)
    width = max(3, int(geom.square * (0.08 + 0.03 * math.sin(phase * 2 * math.pi))))
    pygame.draw.rect(surface, palette.BLACK, rect.inflate(4, 4), width + 2)
    pygame.draw.rect(surface, palette.SELECTED, rect, width)


def draw_move_arrow(surface: pygame.Surface, geom: ScreenBoard, from_sq: int, to_sq: int, colour: RGB) -> None:
    """A translucent arrow along a move, so the last move can be read at a glance."""
    box = geom.square_rect(from_sq).union(geom.square_rect(to_sq)).inflate(4, 4)
    a = (geom.centre(from_sq)[0] - box.left, geom.centre(from_sq)[1] - box.top)
    b = (geom.centre(to_sq)[0] - box.left, geom.centre(to_sq)[1] - box.top)
    overlay = pygame.Surface(box.size, pygame.SRCALPHA)
    width = max(3, int(geom.square * 0.16))
    pygame.draw.line(overlay, (*colour, 150), a, b, width)
    angle = math.atan2(b[1] - a[1], b[0] - a[0])
    head = geom.square * 0.34
    tip = (b[0] - math.cos(angle) * geom.square * 0.3, b[1] - math.sin(angle) * geom.square * 0.3)
    left = (tip[0] - head * math.cos(angle - 0.5), tip[1] - head * math.sin(angle - 0.5))
    right = (tip[0] - head * math.cos(angle + 0.5), tip[1] - head * math.sin(angle + 0.5))
    pygame.draw.polygon(overlay, (*colour, 190), [tip, left, right])
    surface.blit(overlay, box.topleft)


def draw_capture_mark(surface: pygame.Surface, geom: ScreenBoard, sq: int, colour: RGB = palette.BAD) -> None:
    """Where a piece was just captured: a cross in the empty square."""
    rect = geom.square_rect(sq).inflate(-int(geom.square * 0.4), -int(geom.square * 0.4))
    w = max(2, int(geom.square * 0.08))
    pygame.draw.line(surface, colour, rect.topleft, rect.bottomright, w)
    pygame.draw.line(surface, colour, rect.topright, rect.bottomleft, w)


def mark_squares(surface: pygame.Surface, geom: ScreenBoard, squares: list[int] | tuple[int, ...], colour: RGB,
                 phase: float = 0.0) -> None:
    """Squares a sentence on the screen talks about (a reason, a hint): a ring with a dark edge,
    gently pulsing, that reads on wood, on marked squares and around a piece."""
    pulse = 0.5 + 0.5 * math.sin(phase * 2 * math.pi / 1.4)
    for sq in squares:
        rect = geom.square_rect(sq)
        cx, cy = rect.center
        r = int(geom.square * (0.44 + 0.03 * pulse))
        width = max(3, int(geom.square * 0.09))
        pygame.draw.circle(surface, palette.TEXT_DARK, (cx, cy), r + 2, width + 4)
        pygame.draw.circle(surface, colour, (cx, cy), r, width)
