"""A lamp-lit fingertip in over the edge, its sleeve across the frame band behind it, is a hand.

Hard light, fresh seeds 140,039,029 of the held-out renderer (bench/foreign_renderer.py): a hand
under a lamp, its blue sleeve across the frame band at Tablut's top edge, hid the line in from the
edge at two border crossings and the crossing inside next to one of them, lit 1.4-1.5 times the
board's wood. The fingertip rule (GridChecker.occluded) leaves out a crossing lit over TIP_LIGHT
times the board's wood, as a lamp's streak along the top rows is lit (113,010,017, read: see
tests/test_vision_fingertip_over_edge.py), and the board was read with the hand on it. In museum
light the same hand's tip was nearly white, which that rule leaves out too (a veil's core at the
edge). Neither streak nor core crosses the band as a sleeve does: GridChecker.tip_past_band takes
such a tip, lit up to a glare core's brightness, where the band beside its border crossing is crossed.
"""
from __future__ import annotations

import sys
from pathlib import Path

import cv2
import numpy as np
import pytest

BENCH = Path(__file__).resolve().parents[1] / "bench"
if str(BENCH) not in sys.path:
    sys.path.insert(0, str(BENCH))

import foreign_vision  # noqa: E402
from calibration.config import Config  # noqa: E402
from vision.localise import NotReadable  # noqa: E402
from vision.reader import BoardReader  # noqa: E402
from tests.test_vision_fingertip_over_edge import WOOD, _board, _patch  # noqa: E402


@pytest.mark.parametrize("condition", ["hard", "museum"])
def test_the_lamp_lit_hand_with_its_sleeve_across_the_band_is_a_hand(condition):
    """Hard light: the tip lit 1.45 times the board's wood; museum light: nearly white (235-237)."""
    sample, image = foreign_vision.frame(condition, 140_000_000, 39, arm=True)
    with pytest.raises(NotReadable, match="hand over board"):
        BoardReader(Config(), sample.board).read(image, track=False)


@pytest.fixture(scope="module")
def reader() -> BoardReader:
    return BoardReader(Config(), "board-11")


def _tip_past_band(reader: BoardReader, img: np.ndarray) -> tuple[bool, bool]:
    """(the fingertip rule, the rule with the band) on a drawn rectified picture, with a little noise."""
    noisy = np.clip(img + np.random.default_rng(3).normal(0, 2.0, img.shape), 0, 255).astype(np.uint8)
    vis = reader.grid.check(noisy)
    band = reader.band.deviating(cv2.cvtColor(noisy, cv2.COLOR_GRAY2BGR))
    return reader.grid.occluded(vis), reader.grid.tip_past_band(vis, band)


@pytest.mark.parametrize("light, sleeve, hand", [
    (1.5, True, True),         # lit like the hand under the lamp, its sleeve across the band: a hand
    (1.5, False, False),       # the same light, the band untouched: a streak's end at the edge
    (2.0, True, False),        # lit like a glare core, across the band or not: light
])
def test_a_lit_tip_at_the_edge_is_a_hand_only_with_the_band_crossed_behind_it(reader, light, sleeve, hand):
    p = reader.geometry.pitch
    level = int(round(90 * light))
    dim = (_board(reader).astype(np.float64) * 90.0 / WOOD).astype(np.uint8)      # wood 90, lines 58, frame 32
    if sleeve:                  # outside the playing area, two squares wide, across the band
        dim = _patch(reader, dim, -12.0, -0.5, 4.0 * p, 6.0 * p, level)
    patch = _patch(reader, dim, -0.5, 1.3 * p, 4.6 * p, 5.4 * p, level)
    fingertip, past_band = _tip_past_band(reader, patch)
    assert not fingertip                     # lit over TIP_LIGHT: the fingertip rule alone leaves it out
    assert past_band is hand


def test_a_lamp_lit_finger_three_band_segments_wide_is_a_hand():
    """Hard light, seeds 145,030,029: the finger across the bottom band set the median of five segments it was
    judged by, and the hand was read as a board (a square under it sure and wrong); over seven it deviates."""
    sample, image = foreign_vision.frame("hard", 145_000_000, 30, arm=True)
    with pytest.raises(NotReadable, match="hand over board"):
        BoardReader(Config(), sample.board).read(image, track=False)


def test_a_band_segment_is_judged_against_the_band_beyond_a_three_segment_object():
    """A bright object three segments wide on one side of the band: its middle segment deviates."""
    reader = BoardReader(Config(), "board-11")
    band = reader.band
    rect = np.full((reader.frame.pixels, reader.frame.pixels, 3), 50, np.uint8)
    n = reader.size
    bottom = band.px.reshape(4, n, -1, 2)[0]                   # side 0's segments, their sample pixels
    for seg in (4, 5, 6):
        level = 140 if seg == 5 else 100
        rect[bottom[seg, :, 1], bottom[seg, :, 0]] = level
    flags = band.deviating(rect)
    assert flags[5]
    assert not flags[:4].any() and not flags[8:n].any()
