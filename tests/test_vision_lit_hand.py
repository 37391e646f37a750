"""A hand under a lamp is a hand even where the frame band round the board does not show its sleeve.

Held-out renderer (bench/foreign_renderer.py), hard light, seeds 117,000,000, arm frames 1 and 18: a
lilac hand lit by the lamp, 4 and 8 crossings hidden at 174-243 grey levels where the board's wood had
85-92, so lit like glare's core, which the grid alone never takes for a hand. The sleeve made no arm
either: in frame 18 the lamp washed the band out where the hand comes in, in frame 1 the sleeve covered
four band segments and so made its own reference. Both were read as a board. The hand keeps its own
colour on squares joined to the board's edge, which a veil's white does not (vision/reader.py
ARM_SQUARES).
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
from vision.occlusion import GridVisibility, arm_region  # noqa: E402
from vision.reader import BoardReader  # noqa: E402


@pytest.mark.parametrize("k", [1, 18])
def test_a_hand_lit_like_glare_is_a_hand(k):
    sample, image = foreign_vision.frame("hard", 117_000_000, k, arm=True)
    with pytest.raises(NotReadable, match="hand over board"):
        BoardReader(Config(), sample.board).read(image)


def test_a_region_from_any_edge_square_needs_no_band():
    foreign = np.zeros((11, 11), bool)
    foreign[4:6, 8:11] = True                   # in from the right edge (file k)
    band = np.zeros(44, bool)                   # the band shows nothing
    assert not arm_region(foreign, band, 11).any()
    assert arm_region(foreign, None, 11).sum() == 6
    middle = np.zeros((11, 11), bool)
    middle[4:7, 4:7] = True                     # stage light in the middle reaches no edge
    assert not arm_region(middle, None, 11).any()


def _vis(hidden: np.ndarray) -> GridVisibility:
    z = np.zeros(hidden.shape, bool)
    return GridVisibility(hidden=hidden, contrast=np.ones(hidden.shape), largest_patch=0,
                          wood=np.full(hidden.shape, 100.0), covered=hidden, faint=hidden, washed=z,
                          edge_hidden=z, largest_unsqueezed=0)


def test_a_patch_at_the_regions_corners_counts_however_lit():
    config = Config()
    reader = BoardReader(config, "board-11")
    region = np.zeros((11, 11), bool)
    region[4:6, 8:11] = True
    hidden = np.zeros((12, 12), bool)
    hidden[5, 9:11] = True                      # two crossings at the region's squares' corners
    assert reader.grid.patch_at(_vis(hidden), region)
    lone = np.zeros((12, 12), bool)
    lone[5, 9] = True                           # one is not a patch
    assert not reader.grid.patch_at(_vis(lone), region)
    away = np.zeros((12, 12), bool)
    away[1, 1:3] = True                         # a patch elsewhere on the board
    assert not reader.grid.patch_at(_vis(away), region)
