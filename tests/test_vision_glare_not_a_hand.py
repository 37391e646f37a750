"""Glare at the board's edge is not an arm, and an arm's tip lost in a clipped core leaves nothing read surely.

Hard light on the held-out renderer (bench/foreign_renderer.py), development
seeds. A veil's core reads white, and white is no wood's colour: joined to the
frame band round the board, which the same veil lifts, the core's squares made
an "arm coming in over the edge", and a hand-free board was "hand over board"
(10,006,017, 13,057,017 and 14,014,017). The arm check now judges the wood's
own colour with the veil taken off, and leaves out wood so near clipping that
its colour is lost (vision/occlusion.foreign_squares). Nothing of a pale
hand's tip that lies only inside a clipped core can be seen; such a frame is
read, and nothing there is read surely. A veil's clipped streak diagonally beside one crossing hidden at
its rim (103,053,017) is no hand either: the clipped rest of a hand lies next to a hidden crossing along a
line (vision/occlusion.GridChecker.check).
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
from vision.reader import BoardReader, Reading  # noqa: E402

CONFIDENT = foreign_vision.CONFIDENT


def _frame(seed0: int, k: int, arm: bool = False) -> tuple[np.ndarray, foreign_vision.Sample]:
    """Frame k of bench/foreign_vision.score_frames (or, `arm`, of score_hands) in hard light."""
    config = Config()
    offset = (11 if arm else 1) + foreign_renderer.CONDITIONS.index("hard")
    sample = foreign_vision.sample_positions(k + 1, seed0 + 7919 * offset)[k]
    seed = seed0 + 1000 * k + (29 if arm else 17)
    hand = None
    if arm:
        width = foreign_renderer.Layout.from_config(config, sample.board).width
        hand = foreign_renderer.random_hand(np.random.default_rng((seed, 5)), width)
    image = foreign_renderer.render(sample.board, sample.position, seed=seed, condition="hard", hand=hand)
    return image, sample


def _wrong_and_sure(reading: Reading, sample: foreign_vision.Sample) -> list[int]:
    truth = foreign_vision.truth_classes(sample.position, reading.size)
    probs = reading.probabilities
    return [int(sq) for sq in np.nonzero((probs.argmax(1) != truth) & (probs.max(1) >= CONFIDENT))[0]]


# 147,087,017: a bluish lamp over a Tablut board's bottom camps left them off-colour beside the band, and one
# crossing washed out in another lamp's core four squares away counted for the "arm" (GridChecker.arm_crossing)
@pytest.mark.parametrize("seed0, k", [(10_000_000, 6), (13_000_000, 57), (14_000_000, 14), (103_000_000, 53),
                                      (147_000_000, 87)])
def test_a_hand_free_board_under_glare_is_read(seed0, k):
    image, sample = _frame(seed0, k)
    reading = BoardReader(Config(), sample.board).read(image)        # not NotReadable("hand over board")
    assert _wrong_and_sure(reading, sample) == []


@pytest.mark.parametrize("seed0, k", [(14_000_000, 7)])
def test_a_hand_tip_inside_a_clipped_core_leaves_nothing_read_surely(seed0, k):
    """A pale hand (14,007,029) reaches in with its tip under a veil's clipped core; outside it
    no crossing is gone and no square off-colour. What the camera saw is read, and every square
    wrongly read is held back, so no move is taken from it."""
    image, sample = _frame(seed0, k, arm=True)
    reading = BoardReader(Config(), sample.board).read(image)
    assert _wrong_and_sure(reading, sample) == []
    assert (reading.confidence < CONFIDENT).sum() >= 10          # the core's squares are held back


def test_two_crossings_squeezed_white_by_a_veil_are_no_hand():
    """Hard light, seeds 91,031,017: a streak of a veil at 219-222 grey levels squeezed two grid lines'
    depth into the noise, in the picture as taken and with the veil taken off alike, and the reader
    refused the hand-free board as "hand over board" (vision/occlusion.SQUEEZED_PATCH)."""
    sample, image = foreign_vision.frame("hard", 91_000_000, 31)
    reading = BoardReader(Config(), sample.board).read(image, track=False)
    assert reading.probabilities.shape == (81, 4)


def test_three_crossings_in_a_veil_s_core_near_white_are_no_hand():
    """Hard light, seeds 97,000,017: an elongated veil's core at 243-245 grey levels squeezed three grid lines'
    depth into the noise in the picture as taken (not with the veil taken off), and the reader refused the
    hand-free board as "hand over board": a patch all near white needs the veil-free look's support, whatever
    its size (vision/occlusion.SQUEEZED_PATCH)."""
    sample, image = foreign_vision.frame("hard", 97_000_000, 0)
    reading = BoardReader(Config(), sample.board).read(image, track=False)
    assert reading.probabilities.shape == (121, 4)
