"""`tafl-vision watch`: the staff's live view, drawn by pygame and inspected pixel by pixel."""
from __future__ import annotations

import os

import cv2
import pygame
import pytest

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

from engine import Board, parse_square as square_index, pieces_from_position
from vision import cli
from vision.renderer import render_frame
from vision.watch_view import (ATTACKER, BAR_H, DEFENDER, KING_RING, STATE_COLOURS,
                               UNSURE_FRAME, WOOD)

WINDOW = (1280, 720)


def _board_rect() -> tuple[int, int, int]:
    """Left, top and side of the board diagram in the default window (as compose lays it out)."""
    cam_w = int(WINDOW[0] * 0.62)
    side = min(WINDOW[0] - cam_w - 12, WINDOW[1] - BAR_H - 8)
    return cam_w + 4, 4, side


def _cell_centre(sq: int, size: int) -> tuple[int, int]:
    left, top, side = _board_rect()
    cell = side / size
    file, rank = sq % size, sq // size
    return left + int((file + 0.5) * cell), top + int((size - 1 - rank + 0.5) * cell)


def _near(a, b, tol=12) -> bool:
    return all(abs(int(x) - int(y)) <= tol for x, y in zip(a[:3], b[:3]))


@pytest.fixture(scope="module")
def watched(tmp_path_factory):
    """Four frames of the Copenhagen start position, watched to the end, the last view saved."""
    folder = tmp_path_factory.mktemp("frames")
    pieces = pieces_from_position(Board("copenhagen").position_otn(), 11)
    for i in range(4):
        cv2.imwrite(str(folder / f"{i:03d}.png"), render_frame(pieces, "board-11", seed=3, condition="museum").image)
    snap = folder.parent / "watch.png"
    rc = cli.main(["watch", "--camera", str(folder), "--snapshot", str(snap)])
    return rc, pygame.image.load(str(snap))


def test_watch_draws_the_board_as_read(watched):
    rc, view = watched
    assert rc == 0
    assert view.get_size() == WINDOW
    size = 11
    king = square_index("f6", size)
    attacker = square_index("a4", size)
    defender = square_index("f4", size)
    empty = square_index("b2", size)
    kx, ky = _cell_centre(king, size)
    left, top, side = _board_rect()
    radius = int(side / size * 0.36)
    assert _near(view.get_at((kx + radius - 2, ky)), KING_RING)       # the king's ring
    assert _near(view.get_at(_cell_centre(defender, size)), DEFENDER)
    assert _near(view.get_at(_cell_centre(attacker, size)), ATTACKER)
    assert _near(view.get_at(_cell_centre(empty, size)), WOOD)
    # no square is framed red: the reading was sure everywhere
    reds = sum(_near(view.get_at((x, y)), UNSURE_FRAME, 30)
               for x in range(left, left + side, 3) for y in range(top, top + side, 3))
    assert reds == 0


def test_watch_bar_shows_the_state(watched):
    _, view = watched
    colour = view.get_at((WINDOW[0] - 5, WINDOW[1] - 5))
    # four still frames 1/30 s apart (the folder's clock) are 0.1 s of stillness, short of
    # camera.stable_s (0.7 s): the bar says "settling", not "stable" nor any other state
    assert _near(colour, STATE_COLOURS["settling"], 2)
    assert not _near(colour, STATE_COLOURS["stable"], 30)


def test_watch_marks_an_unreadable_frame(tmp_path):
    pieces = pieces_from_position(Board("copenhagen").position_otn(), 11)
    cv2.imwrite(str(tmp_path / "000.png"),
                render_frame(pieces, "board-11", seed=4, condition="museum", hide_markers=(2,)).image)
    snap = tmp_path / "watch.png"
    assert cli.main(["watch", "--camera", str(tmp_path), "--snapshot", str(snap)]) == 0
    view = pygame.image.load(str(snap))
    assert _near(view.get_at((WINDOW[0] - 5, WINDOW[1] - 5)), STATE_COLOURS["unreadable"], 2)
    # nothing is drawn on the board diagram when nothing could be read
    assert _near(view.get_at(_cell_centre(square_index("f6", 11), 11)), WOOD)
