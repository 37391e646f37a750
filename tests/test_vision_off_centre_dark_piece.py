"""A dark piece set down off its square's centre is read as the attacker it plainly is, not held back.

Its top then lies beside the one the reader expects: the rays' inner ends land on wood on one side and
their outer ends on the piece's own shaded wall on the other, so the top's lift against its ring comes
out near zero although the rim is plainly a dark piece's (vision/shape.moved_dark_top). In the
simulation's museum demo the Throw Board set-up then asked the visitor to put on an attacker that
stood on k5. The renderer sets every piece down a little off centre, as a visitor or the gantry does.
"""
from __future__ import annotations

from dataclasses import replace

import numpy as np

from calibration.config import Config
from engine import Board, parse_square
from vision.reader import BoardReader
from vision.renderer import render_frame
from vision.shape import OutlineMeter, moved_dark_top


def _start(variant: str) -> dict[int, str]:
    return {sq: p.value for sq, p in Board(variant).pieces().items()}


def test_attackers_set_off_centre_in_museum_light_are_read_sure():
    # museum light, renderer seed 140: the attackers on k5 and e10 stand off centre (0.86 and 0.62 sure before)
    image = render_frame(_start("tawlbwrdd"), "board-11", seed=140, condition="museum").image
    reading = BoardReader(Config(), "board-11").read(image)
    assert reading.position == Board("tawlbwrdd").position_otn()
    for name in ("k5", "e10"):
        assert reading.probabilities[parse_square(name, 11)].max() >= 0.9, name


def test_a_moved_top_is_taken_only_with_a_plainly_dark_rim_round_it_on_plain_wood():
    """On a drawn picture (a dark disc, a light one, bare wood), moved tops' measures given by hand."""
    radius = 10.0
    gray = np.full((200, 200), 150, np.uint8)
    yy, xx = np.mgrid[0:200, 0:200]
    gray[(xx - 50) ** 2 + (yy - 50) ** 2 <= radius ** 2] = 40
    gray[(xx - 150) ** 2 + (yy - 50) ** 2 <= radius ** 2] = 230
    outline = OutlineMeter(radius).measure(gray, np.array([[50.0, 50.0], [150.0, 50.0], [100.0, 150.0]]))
    # a centred disc's own top is its darkest: nothing moved is kept
    assert outline.lift_moved is not None and not np.isfinite(outline.lift_moved).any()
    assert outline.sharpness_dark_moved is not None and not outline.sharpness_dark_moved.any()
    darker = outline.lift - 30.0
    moved = replace(outline, lift_moved=np.array([darker[0], np.inf, darker[2]], np.float32),
                    sharpness_dark_moved=np.array([0.8, 0.0, 0.3], np.float32))
    taken = moved_dark_top(moved, np.array([True, True, True]))
    assert taken.lift[0] == np.float32(darker[0]) and taken.sharpness_dark[0] >= 0.8
    assert taken.lift[1] == outline.lift[1]
    assert taken.lift[2] == outline.lift[2]                             # no plain dark rim round the moved top
    kept = moved_dark_top(moved, np.array([False, True, True]))         # near-white wood or a veil there
    assert kept.lift[0] == outline.lift[0] and kept.sharpness_dark[0] == outline.sharpness_dark[0]
