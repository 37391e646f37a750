"""A camera that clips below white: glare's flat core is put back at white, not taken for a hand.

Held-out renderer (bench/foreign_renderer.py), hard light, development seeds 130,000,000 (frame 8): two
lamps' cores clip the board white. The same picture darkened to 0.7 after clipping (a camera's digital gain,
or a video signal that tops out below 255) leaves the cores flat at 178, lineless and far from white, and
was "hand over board" (vision/white_point.py).
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
from vision.reader import BoardReader  # noqa: E402
from vision.rectify import rectify  # noqa: E402
from vision.white_point import ceilings, full_scale  # noqa: E402


@pytest.fixture(scope="module")
def lamps():
    return foreign_vision.frame("hard", 130_000_000, 8)


def _gained(image: np.ndarray, gains) -> np.ndarray:
    return np.clip(image.astype(np.float32) * np.asarray(gains, np.float32), 0, 255).astype(np.uint8)


def test_a_picture_clipped_at_white_is_left_as_it_is(lamps):
    _, image = lamps
    _, rect = BoardReader(Config(), "board-11").locate(image, track=False)
    assert ceilings(rect) is None
    assert full_scale(rect) is rect


def test_the_clipped_cores_darkened_after_clipping_are_found_and_put_back_at_white(lamps):
    sample, image = lamps
    dark = _gained(image, (0.7, 0.7, 0.7))
    reader = BoardReader(Config(), sample.board)
    _, rect = reader.locate(image, track=False)
    before = cv2.cvtColor(rect, cv2.COLOR_BGR2GRAY) > 246                       # the cores as the camera clipped them
    view = reader.localiser.locate(cv2.cvtColor(dark, cv2.COLOR_BGR2GRAY), track=False)
    raw = rectify(dark, view.H, reader.frame, view.K, view.dist)
    assert np.all(np.abs(ceilings(raw) - 178) <= 1)
    restored = cv2.cvtColor(full_scale(raw), cv2.COLOR_BGR2GRAY) > 246      # as the reader takes clipped
    assert (restored & before).sum() >= 0.9 * before.sum()                      # white again where they were
    assert (restored & ~before).sum() <= 0.1 * before.sum()


def test_a_darkened_frame_with_no_hand_is_read_and_read_alike(lamps):
    sample, image = lamps
    bright = BoardReader(Config(), sample.board).read(image, track=False)
    dark = BoardReader(Config(), sample.board).read(_gained(image, (0.7, 0.7, 0.7)), track=False)   # not a hand
    truth = foreign_vision.truth_classes(sample.position, dark.size)
    assert (dark.probabilities.argmax(1) == truth).mean() >= (bright.probabilities.argmax(1) == truth).mean() - 0.01


def test_one_channel_dimmed_after_clipping_gets_its_own_ceiling(lamps):
    _, image = lamps
    _, rect = BoardReader(Config(), "board-11").locate(image, track=False)
    levels = ceilings(_gained(rect, (1.0, 1.0, 0.8)))                          # red's gain below one, after clipping
    assert levels is not None and abs(levels[2] - 204) <= 1 and levels[0] == levels[1] == 255


def test_a_veils_smooth_summit_below_white_is_no_ceiling():
    rng = np.random.default_rng(3)
    y, x = np.mgrid[0:576, 0:576].astype(np.float32)
    veil = 120 + 90 * np.exp(-((x - 300) ** 2 + (y - 260) ** 2) / (2 * 120.0 ** 2))      # summit at 210
    picture = np.clip(veil[..., None] * np.array([0.6, 0.8, 1.0], np.float32)
                      + rng.normal(0, 2.5, (576, 576, 3)), 0, 255).astype(np.uint8)
    assert ceilings(picture) is None


def test_a_core_whose_jpeg_ringing_reaches_far_is_a_ceiling_and_no_hand():
    """The "clipped" stress, seeds 145,051,017: the core at 186, JPEG's ringing beside dark pieces up to 204."""
    sample, image = foreign_vision.frame("clipped", 145_000_000, 51)
    reader = BoardReader(Config(), sample.board)
    reading = reader.read(image, track=False)              # not "hand over board"
    assert reading.probabilities.shape[0] == reading.size ** 2


def test_a_flat_sleeve_with_light_above_it_is_no_ceiling():
    """A pile at 180 with 0.05 % of the picture lying 20-60 levels brighter (wood and glare round a sleeve)."""
    rng = np.random.default_rng(1)
    channel = rng.integers(60, 170, 400_000).astype(np.uint8)
    channel[:20_000] = 180
    channel[20_000:20_200] = rng.integers(200, 240, 200).astype(np.uint8)
    picture = np.repeat(channel.reshape(400, 1000, 1), 3, 2)
    assert ceilings(picture) is None
    channel[20_000:20_200] = rng.integers(181, 196, 200).astype(np.uint8)         # JPEG's spread, close above
    picture = np.repeat(channel.reshape(400, 1000, 1), 3, 2)
    found = ceilings(picture)
    assert found is not None and np.all(found == 180)
