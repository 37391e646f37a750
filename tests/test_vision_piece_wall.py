"""What is left of a piece on wood clipped white: its shaded side wall and shadow round the top.

Frames of the held-out renderer (bench/foreign_renderer.py) at development
seeds, where a veil of glare clips the wood and the ivory tops to pure white.
Before vision/shape.py's `piece_wall` these defenders read empty (the best
guess of a square the camera saw as white); the grey arc of each one's side
wall still shows, and now they read as defenders, still held back. Empty
squares on the same white wood stay empty, and on our own renderer the grid
lines beside the squares at the board's edge (the tops seen far off centre)
make no wall.
"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

BENCH = Path(__file__).resolve().parents[1] / "bench"
if str(BENCH) not in sys.path:
    sys.path.insert(0, str(BENCH))

import foreign_renderer  # noqa: E402
import foreign_vision  # noqa: E402
from calibration.config import Config  # noqa: E402
from engine import square_name  # noqa: E402
from vision.labelled import labelled_frames  # noqa: E402
from vision.position import SquareClass  # noqa: E402
from vision.reader import BoardReader  # noqa: E402

SURE = 0.9
NEAR_WHITE = 246.0     # wood this bright: the veil has clipped it


def _foreign(condition: str, seed0: int, seed: int):
    """Frame `seed` of bench/foreign_vision.py's hand-free frames, its truth and its reading."""
    samples = foreign_vision.sample_positions((seed - seed0 - 17) // 1000 + 1,
                                              seed0 + 7919 * (1 + foreign_renderer.CONDITIONS.index(condition)))
    sample = samples[-1]
    image = foreign_renderer.render(sample.board, sample.position, seed=seed, condition=condition)
    reader = BoardReader(Config(), sample.board)
    truth = foreign_vision.truth_classes(sample.position, reader.size)
    return reader, truth, reader.read(image)


@pytest.mark.parametrize("condition,seed0,seed,squares", [
    ("hard", 10_000_000, 10_009_017, ("f4", "f5", "g5", "g6")),
    ("museum", 10_000_000, 10_052_017, ("e7", "f7")),
])
def test_a_defender_on_wood_clipped_white_is_read_by_its_wall(condition, seed0, seed, squares):
    reader, truth, reading = _foreign(condition, seed0, seed)
    names = [square_name(sq, reader.size) for sq in range(reader.size ** 2)]
    for name in squares:
        sq = names.index(name)
        assert truth[sq] == int(SquareClass.DEFENDER)
        assert reading.features.wood_lum[sq] > NEAR_WHITE, f"{name}: not on clipped wood"
        assert reading.classes[sq] == SquareClass.DEFENDER, f"{name} read {reading.probabilities[sq].round(2)}"
        # the wall is what is left of the piece, not a plain sighting: the square stays unsure
        assert reading.confidence[sq] < SURE, f"{name} read surely"
    # empty squares on the same clipped wood have no wall: still empty
    blank = (truth == int(SquareClass.EMPTY)) & (reading.features.wood_lum > NEAR_WHITE)
    assert blank.any()
    read = reading.probabilities.argmax(1)
    assert (read[blank] == int(SquareClass.EMPTY)).all(), [names[sq] for sq in np.nonzero(blank & (read != 0))[0]]


def test_grid_lines_beside_squares_at_the_board_edge_make_no_wall():
    """Our renderer's bench frame 200,044 (museum): on the two outer files the tops are looked for
    well off the squares' centres and their rays reach the grid lines; before the wall was kept
    inside the lines, ten empty squares there read as defenders."""
    lf = next(labelled_frames(range(200_044, 200_045), ("museum",), config=Config()))
    reader = BoardReader(Config(), lf.board)
    reading = reader.read(lf.rendered.image, track=False)
    truth = np.array([int(SquareClass.from_letter(lf.rendered.pieces.get(sq))) for sq in range(reader.size ** 2)])
    wrong = [square_name(sq, reader.size) for sq in np.nonzero(reading.probabilities.argmax(1) != truth)[0]]
    assert wrong == []
