"""The staff's live view of what the camera reads (`tafl-vision watch`).

WHY pygame and not cv2.imshow: the product installs opencv-python-headless,
which has no windows at all, while pygame-ce is already how the kiosk draws.
The view shows what staff need when the robot "does not see" a move: the
camera picture with the markers and the board outline the reader found, the
board as the reader classified it (a red frame around every square it is
unsure of), and the stability state with its reason (hand over board,
markers not found, moving, settling, stable).

`compose()` is a pure function from one frame's outcome to a pygame Surface,
so it is tested pixel by pixel without a screen; `WatchWindow` puts that
surface on the display and handles the keys (q/Esc quit, s saves a picture).
"""
from __future__ import annotations

import functools
import time
from dataclasses import dataclass

import cv2
import numpy as np
import pygame

from vision.position import SquareClass
from vision.reader import Reading

#: a square read with less confidence than this gets a red frame
UNSURE = 0.9
BAR_H = 64

WOOD = (196, 160, 112)
GRID = (120, 90, 55)
ATTACKER = (35, 32, 30)
DEFENDER = (238, 228, 204)
KING_RING = (200, 150, 30)
UNSURE_FRAME = (220, 30, 30)
MARKER_OUTLINE = (40, 220, 60)
BOARD_OUTLINE = (60, 160, 255)
STATE_COLOURS = {
    "stable": (40, 150, 60),
    "settling": (200, 170, 30),
    "moving": (220, 120, 30),
    "unreadable": (190, 40, 40),
}


@dataclass
class WatchFrame:
    """One frame's outcome, as the view shows it."""

    image: np.ndarray               # BGR camera frame
    reading: Reading | None         # None when the board could not be read
    state: str                      # StabilityStatus.state
    reason: str = ""                # why unreadable / moving
    position: str = ""              # the last stable position record
    fps: float = 0.0


def _camera_surface(image: np.ndarray, box: tuple[int, int]) -> tuple[pygame.Surface, float]:
    """The frame scaled to fit `box` (w, h), and the scale used."""
    h, w = image.shape[:2]
    scale = min(box[0] / w, box[1] / h)
    small = cv2.resize(image, (max(1, int(w * scale)), max(1, int(h * scale))), interpolation=cv2.INTER_AREA)
    rgb = cv2.cvtColor(small, cv2.COLOR_BGR2RGB)
    return pygame.image.frombuffer(rgb.tobytes(), (rgb.shape[1], rgb.shape[0]), "RGB").copy(), scale


def _board_outline(reading: Reading, board_mm: float) -> np.ndarray:
    """The playing area's four corners in image pixels (through the frame's homography and lens)."""
    w = board_mm
    return reading.view.to_image(np.array([[0.0, 0.0], [w, 0.0], [w, w], [0.0, w]]))


def draw_board(surface: pygame.Surface, rect: pygame.Rect, reading: Reading | None, size: int) -> None:
    """The board as read: rank 1 at the bottom, file a on the left, unsure squares framed red."""
    pygame.draw.rect(surface, WOOD, rect)
    cell = rect.width / size
    for i in range(size + 1):
        x = rect.left + round(i * cell)
        y = rect.top + round(i * cell)
        pygame.draw.line(surface, GRID, (x, rect.top), (x, rect.bottom - 1))
        pygame.draw.line(surface, GRID, (rect.left, y), (rect.right - 1, y))
    if reading is None:
        return
    classes, conf = reading.classes, reading.confidence
    radius = max(2, int(cell * 0.36))
    for sq in range(size * size):
        file, rank = sq % size, sq // size
        cx = rect.left + int((file + 0.5) * cell)
        cy = rect.top + int((size - 1 - rank + 0.5) * cell)
        kind = classes[sq]
        if kind == SquareClass.ATTACKER:
            pygame.draw.circle(surface, ATTACKER, (cx, cy), radius)
        elif kind in (SquareClass.DEFENDER, SquareClass.KING):
            pygame.draw.circle(surface, DEFENDER, (cx, cy), radius)
            if kind == SquareClass.KING:
                pygame.draw.circle(surface, KING_RING, (cx, cy), radius, max(2, radius // 3))
        if conf[sq] < UNSURE:
            cell_rect = pygame.Rect(rect.left + int(file * cell), rect.top + int((size - 1 - rank) * cell),
                                    int(cell), int(cell))
            pygame.draw.rect(surface, UNSURE_FRAME, cell_rect, max(2, int(cell) // 12))


@functools.lru_cache(maxsize=4)
def _font(px: int) -> pygame.font.Font:
    """pygame's default font at `px`, loaded once (the view is drawn at the camera's frame rate)."""
    pygame.font.init()
    return pygame.font.Font(None, px)


def compose(frame: WatchFrame, size: int, board_mm: float, window: tuple[int, int] = (1280, 720)) -> pygame.Surface:
    """The whole view for one frame: camera with overlays | board as read, status bar below.

    `board_mm` is the playing area's width (squares x pitch), for its outline."""
    width, height = window
    out = pygame.Surface(window)
    out.fill((24, 24, 28))
    area_h = height - BAR_H
    cam_w = int(width * 0.62)
    cam, scale = _camera_surface(frame.image, (cam_w - 8, area_h - 8))
    out.blit(cam, (4, 4))
    if frame.reading is not None:
        for corners in frame.reading.view.marker_corners.values():
            pts = [(4 + float(x) * scale, 4 + float(y) * scale) for x, y in np.asarray(corners).reshape(-1, 2)]
            pygame.draw.polygon(out, MARKER_OUTLINE, pts, 2)
        outline = [(4 + x * scale, 4 + y * scale) for x, y in _board_outline(frame.reading, board_mm)]
        pygame.draw.polygon(out, BOARD_OUTLINE, outline, 2)
    side = min(width - cam_w - 12, area_h - 8)
    draw_board(out, pygame.Rect(cam_w + 4, 4, side, side), frame.reading, size)
    bar = pygame.Rect(0, area_h, width, BAR_H)
    pygame.draw.rect(out, STATE_COLOURS.get(frame.state, (90, 90, 90)), bar)
    words = frame.state.upper() + (f": {frame.reason}" if frame.reason else "")
    if frame.reading is not None:
        unsure = int((frame.reading.confidence < UNSURE).sum())
        words += f"   unsure squares: {unsure}"
    words += f"   {frame.fps:.1f} fps"
    out.blit(_font(30).render(words, True, (255, 255, 255)), (12, area_h + 8))
    if frame.position:
        out.blit(_font(20).render(frame.position[:150], True, (255, 255, 255)), (12, area_h + 38))
    return out


class WatchWindow:
    """The display side: opens a window if there is a screen, else says why."""

    def __init__(self, size: int, board_mm: float, window: tuple[int, int] = (1280, 720)) -> None:
        self.size, self.board_mm, self.window = size, board_mm, window
        self.screen: pygame.Surface | None = None
        self.error = ""
        self.last: pygame.Surface | None = None
        try:
            pygame.display.init()
            self.screen = pygame.display.set_mode(window)
            pygame.display.set_caption("tafl-vision watch")
        except pygame.error as exc:
            self.error = str(exc)
            self.screen = None

    @property
    def open(self) -> bool:
        return self.screen is not None

    def show(self, frame: WatchFrame) -> bool:
        """Draw one frame; False when staff asked to quit."""
        self.last = compose(frame, self.size, self.board_mm, self.window)
        if self.screen is None:
            return True
        self.screen.blit(self.last, (0, 0))
        pygame.display.flip()
        for event in pygame.event.get():
            if event.type == pygame.QUIT:
                return False
            if event.type == pygame.KEYDOWN:
                if event.key in (pygame.K_ESCAPE, pygame.K_q):
                    return False
                if event.key == pygame.K_s:
                    self.save(time.strftime("watch-%Y%m%d-%H%M%S.png"))
        return True

    def save(self, path: str) -> bool:
        """Save the last view as a picture (PNG by the file name)."""
        if self.last is None:
            return False
        pygame.image.save(self.last, path)
        return True

    def close(self) -> None:
        pygame.display.quit()
