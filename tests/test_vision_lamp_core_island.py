"""A lamp's clipped core in the middle of the board is no hand; light that reaches the edge may be one.

Hard light on the held-out renderer (bench/foreign_renderer.py), fresh seeds 116,039,017: a lamp's core
over Tablut's middle, clipped white, and two crossings at its rim (223 and 236 grey levels as taken)
hidden, more with the veil taken off. The patch lies all where the picture is nearly white, so it made
a hand only with the veil-free look's support (vision/occlusion.SQUEEZED_PATCH), which it had: the
board, with no hand over it, was "hand over board" (for glare alone: the kiosk asked after 4 s). A hand
comes in over the board's edge; this light is ringed by wood that is not nearly white.
"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

BENCH = Path(__file__).resolve().parents[1] / "bench"
if str(BENCH) not in sys.path:
    sys.path.insert(0, str(BENCH))

import foreign_renderer  # noqa: E402
import foreign_vision  # noqa: E402
from calibration.config import Config  # noqa: E402
from vision.occlusion import reaches_border  # noqa: E402
from vision.reader import BoardReader  # noqa: E402

SEED0, K = 116_000_000, 39


def test_a_lamps_core_in_the_middle_of_a_hand_free_board_is_read():
    sample = foreign_vision.frame_samples("hard", K + 1, SEED0)[K]
    seed = foreign_vision.frame_seed(SEED0, K)
    image = foreign_renderer.expose(foreign_renderer.prepare(sample.board, sample.position, "hard", Config(), seed),
                                    seed)
    reader = BoardReader(Config(), sample.board)
    reading = reader.read(image)                 # before: NotReadable("hand over board")
    truth = foreign_vision.truth_classes(sample.position, reader.size)
    sure = reading.confidence >= foreign_vision.CONFIDENT
    assert (reading.probabilities.argmax(1)[sure] == truth[sure]).all()


def test_a_patch_reaches_the_border_through_the_light_round_it():
    patch = np.zeros((10, 10), bool)
    patch[5, 3:5] = True
    around = np.zeros((10, 10), bool)
    around[4:8, 1:7] = True                      # a core ringed by wood that is not nearly white
    assert not reaches_border(patch, around)
    around[6, 0] = True                          # ... and the light runs out over the edge (an arm under the lamp)
    assert reaches_border(patch, around)
    edge = np.zeros((10, 10), bool)
    edge[0, 4:6] = True                          # a patch on the border itself
    assert reaches_border(edge, np.zeros((10, 10), bool))
