"""A light piece read in doubt with neither a round edge nor a wall is a veil's soft spot, read empty.

Hard light, held-out renderer (bench/foreign_vision.py), seeds 131,023,017 d7, 131,045,017 f2 and
131,072,017 k1: empty squares under a veil or a lamp's light read defenders in doubt (0.39-0.72), their
"discs" 0.54-0.71 round and with no wall round them (0-0.4 grey levels). A piece stands 8-12 mm tall and
shows a circle's edge or its shaded side wall; a soft spot of light shows neither
(vision/shape.blob_without_wall). Defenders on the same kind of frames that are as little round but show
their wall (131,021,017 e9, the shallowest, 2 grey levels; 131,087,017 g5) stay defenders, and a piece half
inside a lamp's clipped core is judged on the rays the camera saw (132,094,017 f6, the king), while a glare
spot whose own middle is clipped is still a spot (museum 133,048,017 i9).
"""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[1] / "bench"
if str(BENCH) not in sys.path:
    sys.path.insert(0, str(BENCH))

import foreign_vision  # noqa: E402
from calibration.config import Config  # noqa: E402
from engine import square_name  # noqa: E402
from vision.inference import SURE  # noqa: E402
from vision.position import SquareClass  # noqa: E402
from vision.reader import BoardReader  # noqa: E402
from vision.shape import ROUND_WHOLE, WALL_NONE, deepest_wall  # noqa: E402

SEED0 = 131_000_000


def _read(k: int, condition: str = "hard", seed0: int = SEED0):
    sample, image = foreign_vision.frame(condition, seed0, k)
    reader = BoardReader(Config(), sample.board)
    truth = foreign_vision.truth_classes(sample.position, reader.size)
    names = [square_name(sq, reader.size) for sq in range(reader.size ** 2)]
    return truth, names, reader.read(image)


@pytest.mark.parametrize("condition,seed0,k,name", [("hard", SEED0, 23, "d7"), ("hard", SEED0, 45, "f2"),
                                                    ("hard", SEED0, 72, "k1"), ("museum", 133_000_000, 48, "i9")])
def test_a_soft_spot_of_light_without_a_wall_is_read_empty_in_doubt(condition, seed0, k, name):
    """(museum 133,048,017 i9: a glare spot the size of a piece, its middle clipped white; its rays' wood is not)"""
    truth, names, reading = _read(k, condition, seed0)
    sq = names.index(name)
    assert truth[sq] == int(SquareClass.EMPTY)
    assert reading.outline.roundness[sq] < ROUND_WHOLE, "the spot's outline is a piece's circle"
    assert deepest_wall(reading.outline)[sq] < WALL_NONE, "the spot has a wall round it"
    assert reading.classes[sq] == SquareClass.EMPTY, f"{name} read {reading.probabilities[sq].round(2)}"
    assert reading.confidence[sq] < SURE, f"{name}: a veil's spot read a sure empty"


@pytest.mark.parametrize("k,name", [(21, "e9"), (87, "g5")])
def test_a_defender_as_little_round_but_walled_stays_a_defender(k, name):
    truth, names, reading = _read(k)
    sq = names.index(name)
    assert truth[sq] == int(SquareClass.DEFENDER)
    assert reading.outline.roundness[sq] < ROUND_WHOLE
    assert deepest_wall(reading.outline)[sq] >= WALL_NONE
    assert reading.classes[sq] == SquareClass.DEFENDER, f"{name} read {reading.probabilities[sq].round(2)}"


def test_a_piece_half_inside_a_clipped_core_is_no_spot():
    """Hard light, fresh seeds 132,094,017 f6: the king on the throne half inside a lamp's clipped core. His edge
    and wall are lost on the rays that reach clipped white, so his disc is round on only 0.67 of them and his
    wall is 1 grey level; judged on the rays the camera saw he is no spot, and he stays the best guess."""
    truth, names, reading = _read(94, "hard", 132_000_000)
    sq = names.index("f6")
    outline = reading.outline
    assert truth[sq] == int(SquareClass.KING)
    assert outline.roundness[sq] < ROUND_WHOLE and deepest_wall(outline)[sq] < WALL_NONE
    assert outline.rays_clipped[sq] >= 1.0 - ROUND_WHOLE, "the king's rays are not in the clipped core"
    assert reading.classes[sq] == SquareClass.KING, f"f6 read {reading.probabilities[sq].round(2)}"
