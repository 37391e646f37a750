"""Squares of development frames (held-out renderer, hard and museum light) that were read wrong and sure.

Each was sure and wrong before the rule its test names; now each is held
back (confidence < 0.9) or read right. Nothing is fitted on these frames:
they are the physics the rules are about, found on development seeds.
"""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[1] / "bench"
if str(BENCH) not in sys.path:
    sys.path.insert(0, str(BENCH))

import foreign_renderer  # noqa: E402
import foreign_vision  # noqa: E402
from calibration.config import Config  # noqa: E402
from engine import parse_square  # noqa: E402
from vision.reader import BoardReader  # noqa: E402


def _frame(condition: str, seed0: int, k: int):
    """Frame k of foreign_vision.score_frames(condition, seed0): the reading and the truth."""
    offset = 7919 * (1 + foreign_renderer.CONDITIONS.index(condition))
    sample = foreign_vision.sample_positions(k + 1, seed0 + offset)[k]
    image = foreign_renderer.render(sample.board, sample.position, seed=seed0 + 1000 * k + 17, condition=condition)
    size = Config().boards[sample.board].squares
    return BoardReader(Config(), sample.board).read(image), foreign_vision.truth_classes(sample.position, size), size


@pytest.mark.parametrize("condition,seed0,k,squares,why", [
    # defenders sampled on their own shaded side wall under tilt, turned into sure attackers
    ("hard", 12_000_000, 29, ("f3", "g3"), "colour light, disc dark"),
    ("hard", 13_000_000, 2, ("k3",), "colour light, disc dark"),
    # an attacker on a camp square under glare: no lighter than plain wood, yet no disc seen
    ("hard", 13_000_000, 15, ("a5",), "camp under glare"),
    ("museum", 74_000_000, 51, ("h5", "i6"), "camp under glare"),
    # an empty camp square under a soft spot of light, read as the king
    ("museum", 73_000_000, 23, ("e8",), "soft spot on a camp"),
    # an empty square at a veil's edge: its wood, under the veil, no darker than the line beside it
    ("hard", 13_000_000, 7, ("d9",), "line no darker than the wood"),
    # the king on the throne under a veil, his disc plainly lit with a sharp rim, read as a sure empty
    # throne: with the veil's estimate taken off, his top was no lighter than the plain wood round it
    ("museum", 11_000_000, 97, ("f6",), "rimmed light disc on a marked square"),
])
def test_a_square_once_read_wrong_and_sure_is_now_held_back_or_right(condition, seed0, k, squares, why):
    reading, truth, size = _frame(condition, seed0, k)
    for name in squares:
        sq = parse_square(name, size)
        right = int(reading.probabilities[sq].argmax()) == int(truth[sq])
        assert right or reading.confidence[sq] < 0.9, (why, name, reading.probabilities[sq])
