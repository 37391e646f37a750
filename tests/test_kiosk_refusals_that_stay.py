"""Refusals with no board found that stay all day: a bag left on a corner marker, the room's light off.

No board was found, so there is no picture of it; the refusal carries the whole frame instead
(vision NotReadable.scene). While that frame does not change, the refusals are no sign of life, so
an abandoned game pauses (kiosk/attendance.py) instead of waiting for good; a hand, which moves,
still is one. Through the real parts: the renderer's frame, a sensor's fresh noise on every
picture, the camera thread, vision's reader and BoardWatch.
"""
from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

from calibration.config import Config
from engine import Board
from kiosk.board_watch import MARKER_COVERED_S, BoardWatch
from kiosk.camera_thread import CameraThread, Frame
from kiosk.vision_adapter import VisionFrameReader
from tests.helpers.fakes import ManualClock, OnePictureFeed
from vision.localise import NotReadable, pose_lost
from vision.reader import BoardReader
from vision.renderer import render_frame

BOARD = "board-11"
SENSOR_NOISE = 2.5          # grey levels, each picture afresh


def _pieces() -> dict[int, str]:
    return {sq: p.value for sq, p in Board("copenhagen").pieces().items()}


def _bagged() -> np.ndarray:
    """The opening position in museum light, corner marker 3 covered (a bag left lying on it)."""
    return render_frame(_pieces(), BOARD, seed=8, condition="museum", hide_markers=(3,)).image


def _dark() -> np.ndarray:
    """The same board with the room's light switched off."""
    return render_frame(_pieces(), BOARD, seed=8, condition="museum", dark=0.08).image


class StillCamera(OnePictureFeed):
    """A FrameFeed: a mounted camera on a scene where nothing moves, each picture with fresh sensor
    noise; `hand_at(x)` puts a visitor's hand into the scene at column x."""

    def __init__(self, image: np.ndarray, clock: ManualClock) -> None:
        super().__init__(image)
        self.clock = clock
        self.rng = np.random.default_rng(3)
        self.hand: int | None = None

    def grab(self) -> Frame:
        picture = self.image.astype(np.float32) + self.rng.normal(0.0, SENSOR_NOISE, self.image.shape)
        if self.hand is not None:
            picture[420:720, self.hand:self.hand + 140] = (120.0, 150.0, 205.0)      # a sleeve from the near side
        return Frame(self.clock(), np.clip(picture, 0, 255).astype(np.uint8))

    def hand_at(self, column: int | None) -> None:
        self.hand = column


def _refusal(image: np.ndarray) -> NotReadable:
    with pytest.raises(NotReadable) as caught:
        BoardReader(Config(), BOARD).read(image, track=False)
    return caught.value


def test_a_refusal_with_no_board_found_carries_the_whole_frame():
    bagged = _refusal(_bagged())
    assert pose_lost(str(bagged)) and "3" in str(bagged)
    assert bagged.picture is None and bagged.scene is not None and bagged.scene.shape == (720, 1280)
    dark = _refusal(_dark())
    assert str(dark) == "too dark" and dark.picture is None and dark.scene is not None


def _watch(image: np.ndarray) -> tuple[ManualClock, StillCamera, BoardWatch, Callable[..., None]]:
    clock = ManualClock()
    feed = StillCamera(image, clock)
    camera = CameraThread(feed, VisionFrameReader(Config(), BOARD, learn=False), clock=clock, threaded=False)
    watch = BoardWatch(camera, 0.3, clock)

    def tick(seconds: float = 0.1) -> None:
        clock.now += seconds
        camera.step()
        watch.update()

    return clock, feed, watch, tick


@pytest.mark.parametrize("scene", ["bagged", "dark"])
def test_a_refusal_that_stays_is_nobody_there_and_a_hand_coming_is_somebody(scene):
    clock, feed, watch, tick = _watch(_bagged() if scene == "bagged" else _dark())
    for _ in range(int(MARKER_COVERED_S / 0.1) + 3):   # the corner is covered for good by now
        tick()
    assert not watch.camera_ok
    quiet = watch.last_sign_of_life
    for _ in range(60):                                # 6 s of the same scene, a fresh picture each time
        tick()
    assert watch.last_sign_of_life == quiet            # the attendance timer runs: an abandoned game pauses
    assert watch.tracker.refused_still_since is not None
    assert clock.now - watch.tracker.refused_still_since >= 6.0
    for column in range(200, 600, 40):                 # a visitor's hand moves in, for a second
        feed.hand_at(column)
        tick()
    assert watch.last_sign_of_life > quiet
