"""An arm over the board is a hand however it is lit (issue 15: occlusion that means a hand).

The hand check looks for grid crossings whose line is gone (vision/occlusion.py).
An arm is shaded across: lit from one side, in its own shadow on the other.
Against the wood off a crossing's diagonals, the dim side of such an arm passed
for a line, and a wood-coloured sleeve lit from the side reached over the board
unnoticed (2 of these 8 frames were read as a board before); the line is now
also judged against the arm's own surface on both sides of it. The same frames
evenly lit were refused before too, and a soft, blurred frame without a hand is
still read.
"""
from __future__ import annotations

import cv2
import numpy as np
import pytest

from calibration.config import Config
from calibration.geometry import BoardGeometry
from engine import Board
from vision.localise import NotReadable
from vision.reader import BoardReader
from vision.renderer import render_frame

SEEDS = range(10_000_200, 10_000_208)


@pytest.fixture(scope="module")
def reader() -> BoardReader:
    return BoardReader(board="board-11")


def _start() -> dict[int, str]:
    return {sq: p.value for sq, p in Board("copenhagen").pieces().items()}


def _with_arm(seed: int, lit: float, shaded: float) -> np.ndarray:
    """A museum frame with a sleeve 70 mm wide reaching 130 mm in over the left edge, 40 mm up.

    Its brightness goes from `lit` (the side towards the lamp) to `shaded` times
    a wood-coloured sleeve's across its width; sensor noise over it as over the rest.
    """
    rendered = render_frame(_start(), "board-11", seed=seed, condition="museum")
    W = BoardGeometry.from_config(Config(), "board-11").width
    image = rendered.image.astype(np.float32)
    h, w = image.shape[:2]
    xs = np.linspace(-200.0, 0.3 * W, 60)
    y0, half, z = (0.3 + 0.1 * (seed % 5)) * W, 35.0, 40.0
    near = rendered.camera.project(np.stack([xs, np.full_like(xs, y0 + half), np.full_like(xs, z)], 1))
    far = rendered.camera.project(np.stack([xs, np.full_like(xs, y0 - half), np.full_like(xs, z)], 1))
    mask = np.zeros((h, w), np.uint8)
    cv2.fillPoly(mask, [np.vstack([near, far[::-1]]).astype(np.int32)], 255)
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    a, d = near[len(xs) // 2], far[len(xs) // 2] - near[len(xs) // 2]
    across = np.clip(((xx - a[0]) * d[0] + (yy - a[1]) * d[1]) / float(d @ d), 0.0, 1.0)
    sleeve = np.array([128.0, 170.0, 210.0], np.float32) * float(image.mean() / 110.0)
    light = (lit + (shaded - lit) * across)[..., None]
    edge = cv2.GaussianBlur(mask.astype(np.float32) / 255.0, (0, 0), 1.2)[..., None]
    image = image * (1 - edge) + edge * sleeve * light
    image += np.random.default_rng(seed).normal(0.0, 2.0, image.shape)
    return np.clip(image, 0, 255).astype(np.uint8)


@pytest.mark.parametrize("seed", SEEDS)
def test_an_arm_lit_from_one_side_is_a_hand(reader, seed):
    with pytest.raises(NotReadable, match="hand over board"):
        reader.read(_with_arm(seed, lit=1.4, shaded=0.3), track=False)


@pytest.mark.parametrize("seed", SEEDS[:2])
def test_the_same_arm_evenly_lit_is_a_hand(reader, seed):
    with pytest.raises(NotReadable, match="hand over board"):
        reader.read(_with_arm(seed, lit=0.85, shaded=0.85), track=False)


@pytest.mark.parametrize("seed", SEEDS[:4])
def test_a_soft_blurred_frame_without_a_hand_is_read(reader, seed):
    """Blur spreads each grid line towards the wood beside it: faint lines, not a hand."""
    image = render_frame(_start(), "board-11", seed=seed, condition="hard").image
    reader.read(cv2.GaussianBlur(image, (0, 0), 2.2), track=False)
