"""A pink hand whose red is clipped is still off-colour, and three squares of it make a hand where the band
shows its sleeve.

Held-out renderer (bench/foreign_renderer.py), museum light, fresh seeds 121,000,000, arm frame 27: a pink
hand over the Tablut board's top edge (f9-g7), its sleeve across the frame band there. Its red was clipped
on four squares, so their colour counted as unseen (a glare core's is lost so), one square was off-colour
and the board was read with the hand on it. Clipping the red changes neither blue nor green, and a white
veil over wood never lifts its blue above its green (vision/occlusion.foreign_squares `hue_seen`,
HUE_LIMIT; vision/reader.py BANDED_HAND_SQUARES).
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


def test_a_pink_hand_with_its_red_clipped_is_a_hand():
    sample, image = foreign_vision.frame("museum", 121_000_000, 27, arm=True)
    with pytest.raises(NotReadable, match="hand over board"):
        BoardReader(Config(), sample.board).read(image)


def _wood(size: int) -> np.ndarray:
    """log(B/R), log(G/R) of plain wood lit evenly: B 100, G 140, R 180."""
    return np.tile(np.log([100 / 180, 140 / 180]), (size * size, 1))


def test_a_clipped_red_square_is_judged_by_blue_against_green():
    size = 9
    marked = np.zeros(size * size, bool)
    chroma = _wood(size)
    unseen = np.zeros(size * size, bool)
    sq = 8 * size + 5                            # f9, on the top edge
    chroma[sq] = np.log([215 / 255, 205 / 255])  # pink: red clipped at 255, blue above green
    unseen[sq] = True
    hue_seen = np.ones(size * size, bool)
    assert foreign_squares(chroma, marked, size, unseen=unseen, hue_seen=hue_seen).ravel()[sq]
    # without the blue-green judgement the clipped square is left out, as before
    assert not foreign_squares(chroma, marked, size, unseen=unseen).any()
    # blue and green clipped too (a glare core): its colour is lost altogether
    hue_seen[sq] = False
    assert not foreign_squares(chroma, marked, size, unseen=unseen, hue_seen=hue_seen).any()


def test_wood_under_a_white_veil_with_its_red_clipped_is_not_off_colour():
    size = 9
    marked = np.zeros(size * size, bool)
    chroma = _wood(size)
    unseen = np.zeros(size * size, bool)
    sq = 4 * size + 4
    veil = 75.0                                  # B 175, G 215, R 255 (clipped)
    chroma[sq] = np.log([(100 + veil) / 255, (140 + veil) / 255])
    unseen[sq] = True
    found = foreign_squares(chroma, marked, size, unseen=unseen, hue_seen=np.ones(size * size, bool))
    assert not found.any()
