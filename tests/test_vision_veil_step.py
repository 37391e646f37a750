"""A veil's core lifts an empty square like a faint ivory top: too little a step for a light piece.

Frames of the held-out renderer (bench/foreign_renderer.py), hard light, development
seeds 10,000,000 and 11,000,000. In each, a veil of glare lifted the middle of
empty squares by a few grey levels, and the colour model read them as
defenders (best guess, held back at 0.5-0.6). A light piece's top stands above
its wood by the lamps' light on ivory minus on wood, which a veil leaves as it
is; the frame's own light pieces say how big that step is
(vision/shape.light_step_short). The empty squares now read empty, still held
back, and every defender of the frame is still read as a defender.
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
from engine import parse_square  # noqa: E402
from vision.position import SquareClass  # noqa: E402
from vision.reader import BoardReader  # noqa: E402

SURE = 0.9


def _frame(seed0: int, seed: int):
    """The hard frame `seed` of the run from `seed0`, as bench/foreign_vision.py renders it, and its truth."""
    samples = foreign_vision.sample_positions((seed - seed0 - 17) // 1000 + 1,
                                              seed0 + 7919 * (1 + foreign_renderer.CONDITIONS.index("hard")))
    sample = samples[-1]
    image = foreign_renderer.render(sample.board, sample.position, seed=seed, condition="hard")
    size = Config().boards[sample.board].squares
    return sample.board, image, foreign_vision.truth_classes(sample.position, size), size


@pytest.mark.parametrize("seed0,seed,squares", [
    (10_000_000, 10_048_017, ["h8", "g10", "h10", "i10", "h11"]),
    (11_000_000, 11_058_017, ["j2", "k2", "e4", "g4", "k5"]),
])
def test_a_veils_core_on_an_empty_square_is_no_defender(seed0, seed, squares):
    board, image, truth, size = _frame(seed0, seed)
    probs = BoardReader(Config(), board).read(image).probabilities
    for name in squares:
        sq = parse_square(name, size)
        assert truth[sq] == int(SquareClass.EMPTY)
        assert int(probs[sq].argmax()) == int(SquareClass.EMPTY), f"{name} read {np.round(probs[sq], 2)}"
        assert probs[sq].max() < SURE, f"{name} read surely empty under the veil: {np.round(probs[sq], 2)}"
    defenders = np.nonzero(truth == int(SquareClass.DEFENDER))[0]
    read = probs[defenders].argmax(1)
    assert (read == int(SquareClass.DEFENDER)).all(), "a defender lost: " + ", ".join(
        f"{sq} read {c}" for sq, c in zip(defenders, read) if c != int(SquareClass.DEFENDER))
