"""A piece's shaded wall on wood a warm lamp clips white is looked for in each colour, not only in grey.

Museum light, held-out renderer (bench/foreign_vision.py), seeds 128,001,017 and 128,021,017: under a lamp's
warm veil the wood and the ivory tops read 250-255 grey levels. Red and green were clipped there, and grey is
mostly those two, so the arc of a defender's shaded side wall was 3-6 grey levels deep in grey, short of what
`piece_wall` counts in full, and the defenders read empty (0.45-0.5). Blue, short of clipping, still showed the arc 8-25 deep.
Now `Outline.wall_colour` (vision/shape.OutlineMeter._colour_wall) counts the deepest channel's wall on
near-white squares, and these defenders are the best guess, still held back. Bare wood under the same veil
has no arc in any channel and stays empty.
"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

BENCH = Path(__file__).resolve().parents[1] / "bench"
if str(BENCH) not in sys.path:
    sys.path.insert(0, str(BENCH))

import foreign_vision  # noqa: E402
from calibration.config import Config  # noqa: E402
from engine import square_name  # noqa: E402
from vision.position import SquareClass  # noqa: E402
from vision.reader import BoardReader  # noqa: E402
from vision.shape import NEAR_CLIPPING, wall_bounds  # noqa: E402

SURE = 0.9
SEED0 = 128_000_000


def _read(k: int):
    sample, image = foreign_vision.frame("museum", SEED0, k)
    reader = BoardReader(Config(), sample.board)
    truth = foreign_vision.truth_classes(sample.position, reader.size)
    names = [square_name(sq, reader.size) for sq in range(reader.size ** 2)]
    return truth, names, reader.read(image)


@pytest.mark.parametrize("k,squares", [(1, ("g6", "g7")), (21, ("f4", "f5"))])
def test_a_defender_whose_wall_shows_only_in_blue_is_read_a_defender(k, squares):
    truth, names, reading = _read(k)
    outline = reading.outline
    for name in squares:
        sq = names.index(name)
        assert truth[sq] == int(SquareClass.DEFENDER)
        assert reading.features.wood_lum[sq] > 246.0, f"{name}: not on wood clipped white"
        _, full = wall_bounds(outline.wood_noise[sq:sq + 1])
        assert outline.wall[sq] < full[0], f"{name}: the wall shows in full in grey ({outline.wall[sq]:.1f})"
        assert outline.wall_colour[sq] >= full[0], f"{name}: the wall not plain in colour either"
        assert reading.classes[sq] == SquareClass.DEFENDER, f"{name} read {reading.probabilities[sq].round(2)}"
        assert reading.confidence[sq] < SURE, f"{name}: read surely on its wall alone"


@pytest.mark.parametrize("k", [1, 21])
def test_bare_wood_under_the_same_veil_stays_empty(k):
    truth, _, reading = _read(k)
    near_white = reading.features.wood_lum > NEAR_CLIPPING[0]
    empty = near_white & (truth == int(SquareClass.EMPTY))
    assert empty.sum() >= 5
    low, _ = wall_bounds(reading.outline.wood_noise)
    assert not (reading.outline.wall_colour[empty] >= low[empty]).any()
    assert all(reading.classes[sq] == SquareClass.EMPTY for sq in np.nonzero(empty)[0])
    # only the near-white squares are measured in colour
    assert not reading.outline.wall_colour[~near_white].any()
