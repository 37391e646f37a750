"""A sleeve over the marked squares at the board's edge, the hand under a lamp, is a hand.

Held-out renderer (bench/foreign_renderer.py), hard light, seeds 90,000,000
(arm frame 19): a pink sleeve comes in over Tablut's left camps (a4, a5, a6,
b5) and the hand lies under the lamp's core. It was read as a board: marked
squares were left out of the off-colour check (their fill is another colour),
so the sleeve made no off-colour square, and all seven crossings the hand hid
were lit like glare, which alone never makes a hand (vision/occlusion.py).
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
from vision.localise import NotReadable  # noqa: E402
from vision.occlusion import foreign_squares  # noqa: E402
from vision.reader import BoardReader  # noqa: E402


def test_a_sleeve_over_the_camps_with_the_hand_under_a_lamp_is_a_hand():
    sample, image = foreign_vision.frame("hard", 90_000_000, 19, arm=True)
    assert sample.board == "board-9"
    with pytest.raises(NotReadable, match="hand over board"):
        BoardReader(Config(), sample.board).read(image, track=False)


def _tablut_marked() -> np.ndarray:
    marked = np.zeros((9, 9), bool)
    for r, f in [(0, 3), (0, 4), (0, 5), (1, 4), (3, 0), (4, 0), (5, 0), (4, 1), (4, 4),
                 (3, 8), (4, 8), (5, 8), (4, 7), (8, 3), (8, 4), (8, 5), (7, 4)]:
        marked[r, f] = True
    return marked.ravel()


def _board_chroma(marked: np.ndarray) -> np.ndarray:
    """Wood at log(B/R), log(G/R) = (-0.9, -0.4), the fill darker and redder, a spotlight tinting one side."""
    chroma = np.tile(np.array([-0.9, -0.4], np.float32), (81, 1))
    chroma[marked] += np.array([-0.25, -0.12], np.float32)
    files = np.arange(81) % 9
    chroma[:, 0] += 0.04 * files          # a smooth tint across the board: the light, not a sleeve
    return chroma


def test_the_camps_own_fill_is_no_sleeve():
    marked = _tablut_marked()
    assert not foreign_squares(_board_chroma(marked), marked, 9).any()


def test_a_sleeve_over_the_camps_is_off_colour():
    marked = _tablut_marked()
    chroma = _board_chroma(marked)
    sleeve = [3 * 9 + 0, 4 * 9 + 0, 5 * 9 + 0, 4 * 9 + 1]      # a4, a5, a6, b5: camps only
    chroma[sleeve] = np.array([-0.6, -0.55], np.float32)       # pink: bluer, less green than the fill
    foreign = foreign_squares(chroma, marked, 9).ravel()
    assert foreign[sleeve].all()
    assert foreign.sum() == len(sleeve)


def test_too_few_marked_squares_seen_are_left_out():
    """With fewer than FILL_REFERENCE marked squares seen the fill's colour is not known: they are not judged."""
    marked = np.zeros(81, bool)
    marked[[0, 80]] = True
    chroma = np.tile(np.array([-0.9, -0.4], np.float32), (81, 1))
    chroma[0] = np.array([-0.2, -0.9], np.float32)
    assert not foreign_squares(chroma, marked, 9).ravel()[0]
