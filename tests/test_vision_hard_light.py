"""Hard light on the independent renderer (bench/foreign_renderer.py): read what is there, refuse what is covered.

Dim exposure, gain noise, blur and strong veils of glare. Two ways the reader
refused frames it should read (issue 15): the hand check took a veil's washed
out grid lines for a hand (vision/occlusion.py), and the far marker, ~20 px
with its code cells blurred together, was lost (vision/localise.py). These
frames are development seeds of the foreign benchmark (bench/foreign_vision.py);
nothing is fitted on them.
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

import foreign_renderer  # noqa: E402
import foreign_vision  # noqa: E402
from calibration.config import Config  # noqa: E402
from engine import Board  # noqa: E402
from vision.localise import NotReadable  # noqa: E402
from vision.reader import BoardReader  # noqa: E402

PLY_SEED0 = 70_000_000      # score_games("hard", 20, 70_000_000): the earlier engineers' measurement plies


def _ply_frame(game: int, ply: int) -> np.ndarray:
    """The hard-light frame of `score_games` for that game (index) after `ply` recorded moves."""
    board = foreign_vision.replay(foreign_vision.load_games()[game], ply)
    assert board is not None
    scene = PLY_SEED0 + 100_003 * (game + 1) + foreign_renderer.CONDITIONS.index("hard")
    return foreign_renderer.render("board-11", board.position_otn(), seed=ply, condition="hard",
                                   scene_seed=scene)


@pytest.mark.parametrize("game, ply", [(2, 2), (4, 2)])
def test_a_dim_frame_without_a_hand_is_read(game, ply):
    """No hand in these frames: a strong veil washes two or three grid crossings out (their lines
    as bright as the wood round them), yet each line still stands out of the frame's noise.
    The reader refused both as "hand over board" before."""
    reading = BoardReader(Config(), "board-11").read(_ply_frame(game, ply))
    assert reading.probabilities.shape == (121, 4)


def _arm_frame(k: int, condition: str, seed0: int = PLY_SEED0) -> tuple[np.ndarray, str]:
    """Frame k of bench/foreign_vision.score_hands: a visitor's arm over the board."""
    config = Config()
    samples = foreign_vision.sample_positions(
        k + 1, seed0 + 7919 * (11 + foreign_renderer.CONDITIONS.index(condition)))
    sample = samples[k]
    seed = seed0 + 1000 * k + 29
    width = foreign_renderer.Layout.from_config(config, sample.board).width
    hand = foreign_renderer.random_hand(np.random.default_rng((seed, 5)), width)
    return foreign_renderer.render(sample.board, sample.position, seed=seed, condition=condition, hand=hand), sample.board


@pytest.mark.parametrize("k", [0, 19])
def test_a_real_arm_in_dim_light_is_still_refused(k):
    """k 0: the dimmest of these frames (wood at ~76 grey levels); k 19: a pale sleeve inside a veil,
    two crossings hidden, one of them hidden only in the look with the veil taken off."""
    image, board = _arm_frame(k, "hard")
    with pytest.raises(NotReadable, match="hand over board"):
        BoardReader(Config(), board).read(image)


FAR_MARKER = [(13_014_017, "board-11", "copenhagen"), (13_014_017, "board-9", "tablut"),
              (12_015_017, "board-9", "tablut")]


def _hard_start(seed: int, board: str, variant: str) -> np.ndarray:
    return foreign_renderer.render(board, Board(variant).position_otn(), seed=seed, condition="hard")


@pytest.mark.parametrize("seed, board, variant", FAR_MARKER)
def test_the_blurred_far_marker_is_found(seed, board, variant):
    """Marker 0, ~20 px, its code too blurred to decode, was lost in these frames: its dark
    square, ringed by its quiet zone where the other three put it, with code cells that
    still follow its code, is the marker."""
    reader = BoardReader(Config(), board)
    view = reader.localiser.locate(cv2.cvtColor(_hard_start(seed, board, variant), cv2.COLOR_BGR2GRAY), track=False)
    assert sorted(view.marker_corners) == [0, 1, 2, 3]
    assert view.reprojection_px < 3.0


@pytest.mark.parametrize("colour, scale", [((120, 150, 200), 2.2), ((25, 25, 30), 1.4), ((25, 25, 30), 1.0)])
def test_a_covered_far_marker_is_refused_in_hard_light(colour, scale):
    """The far marker that only its dark square gives away, covered: a skin-coloured cover over it
    and its quiet zone, a dark cover a little larger than it, or one just its size (no code in it)."""
    seed, board, variant = FAR_MARKER[0]
    image = _hard_start(seed, board, variant)
    view = BoardReader(Config(), board).localiser.locate(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY), track=False)
    quad = view.marker_corners[0]
    centre = quad.mean(0)
    covered = image.copy()
    cv2.fillConvexPoly(covered, ((quad - centre) * scale + centre).astype(np.int32), colour)
    with pytest.raises(NotReadable, match="markers not found: 0"):
        BoardReader(Config(), board).read(covered)
