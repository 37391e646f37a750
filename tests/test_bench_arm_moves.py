"""An arm the hand checks miss must give the move reader no move (bench/foreign_vision.moves_from_arm).

Held-out renderer (bench/foreign_renderer.py), hard light, development seeds 119,000,000 (arm frame 8):
a hand under a lamp's clipped core is read as a board. The bench now asks of every such frame what the
kiosk would play from it if the arm held still: the squares under the arm are read in doubt, so no move.
"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

BENCH = Path(__file__).resolve().parents[1] / "bench"
if str(BENCH) not in sys.path:
    sys.path.insert(0, str(BENCH))

import foreign_vision  # noqa: E402
from engine import Board  # noqa: E402
from vision.inference import board_classes  # noqa: E402


def _sure(classes: np.ndarray) -> np.ndarray:
    probs = np.full((len(classes), 4), 0.01)
    probs[np.arange(len(classes)), classes] = 0.97
    return probs


def test_a_picture_showing_a_legal_move_is_counted_as_a_move_accepted():
    sample = foreign_vision.Sample("board-11", Board("copenhagen").position_otn(), "game")
    after = Board("copenhagen")
    after.push(after.parse_move("d1-d4"))
    moved = foreign_vision.moves_from_arm(sample, _sure(board_classes(after)))
    assert moved == ["d1-d4 (attackers)"]


def test_the_position_itself_gives_no_move():
    sample = foreign_vision.Sample("board-9", Board("tablut").position_otn(), "game")
    assert foreign_vision.moves_from_arm(sample, _sure(board_classes(Board("tablut")))) == []


def test_an_arm_under_a_lamp_read_as_a_board_gives_no_move():
    sample, image = foreign_vision.frame("hard", 119_000_000, 8, arm=True)
    reading = foreign_vision.read_like_cli(image, sample.board)      # the hand checks miss this arm
    truth = foreign_vision.truth_classes(sample.position, reading.size)
    wrong = reading.probabilities.argmax(1) != truth
    assert wrong.any()                                                # the arm hides squares ...
    assert (reading.probabilities.max(1)[wrong] < 0.9).all()          # ... read in doubt
    assert foreign_vision.moves_from_arm(sample, reading.probabilities) == []
