"""Gold-tinted wood with nothing of a piece on it is no king (vision/shape.crown_alone).

Held-out renderer (bench/foreign_renderer.py), hard light: bare squares in a
dim corner that the light tinted gold were read kings by their colour, with no
disc standing out of the noise and no outline round the top, while the real
king, his crown unseen, was read a defender. A crown with nothing of a piece
round it now gets the shape conflict's doubt, and the likeliest light piece
is the king's best guess again.
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
from engine.types import parse_square  # noqa: E402
from vision.position import SquareClass  # noqa: E402
from vision.reader import BoardReader  # noqa: E402


def _read(condition: str, seed0: int, k: int):
    sample, image = foreign_vision.frame(condition, seed0, k)
    reader = BoardReader(Config(), sample.board)
    return reader.read(image, track=False), reader.size


@pytest.mark.parametrize("seed0, k, bare, king", [(90_000_000, 22, "b1", "f6"), (89_000_000, 20, "b11", "f6")])
def test_gold_tinted_bare_wood_is_not_the_king(seed0, k, bare, king):
    reading, size = _read("hard", seed0, k)
    probs = reading.probabilities
    assert probs[parse_square(bare, size)].argmax() == int(SquareClass.EMPTY)
    assert probs[parse_square(king, size)].argmax() == int(SquareClass.KING)


def test_a_bare_square_read_king_by_its_colour_alone_is_not_sure():
    reading, size = _read("hard", 13_000_000, 32)
    p = reading.probabilities[parse_square("j5", size)]
    assert p.argmax() == int(SquareClass.EMPTY)
    assert p.max() < 0.6
