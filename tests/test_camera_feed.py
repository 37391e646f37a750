"""The kiosk's camera feeds: a camera as vision owns it (vision.sources.FrameSource), and
the one simulated camera that renders the simulated world."""
from __future__ import annotations

import cv2
import numpy as np

from calibration.config import Config
from engine import Board
from kiosk.camera_thread import Frame
from kiosk.simworld import SimWorld
from kiosk.vision_adapter import SimFrameSource, UvcFrameSource
from tests.helpers.fakes import ManualClock
from vision.reader import BoardReader
from vision.sources import ImageFolderSource


def test_the_feed_passes_a_vision_sources_frames_with_their_times(tmp_path):
    for i, value in enumerate((40, 200)):
        cv2.imwrite(str(tmp_path / f"{i}.png"), np.full((8, 8, 3), value, np.uint8))
    feed = UvcFrameSource(Config(), ImageFolderSource(tmp_path, interval_s=0.5))
    first, second = feed.grab(), feed.grab()
    assert first is not None and second is not None
    assert (first.t, int(first.image[0, 0, 0])) == (0.0, 40)
    assert (second.t, int(second.image[0, 0, 0])) == (0.5, 200)
    assert not first.repeat
    assert feed.grab() is None          # the folder is exhausted: no frame, not a crash
    feed.close()


def test_the_simulated_camera_renders_the_world_once_per_scene_and_follows_it():
    """The one simulated camera (kiosk.vision_adapter.SimFrameSource): what the reader sees
    is the world's position; a still scene is rendered once and then repeated (new noise)."""
    config = Config()
    clock = ManualClock()
    world = SimWorld(config, clock=clock)
    board = Board("copenhagen")
    world.place_position("copenhagen", board.pieces())
    feed = SimFrameSource(world, config, seed=5, clock=clock, sleep=lambda s: None, settle_s=0.1,
                          still_period_s=2.0)
    reader = BoardReader(board=world.board_name)

    def grab_settled() -> Frame:
        frame = feed.grab()                          # a new scene: not drawn before it has settled
        clock.now += 0.2
        return frame or feed.grab()

    first = grab_settled()
    assert first is not None and not first.repeat
    assert reader.read(first.image).position == board.position_otn()
    clock.now += 0.1
    again = feed.grab()
    assert again is not None and again.repeat and feed.frames_rendered == 1
    board.push(board.parse_move("h1-h3"))
    world.place_position("copenhagen", board.pieces())
    moved = grab_settled()
    assert moved is not None and not moved.repeat and feed.frames_rendered == 2
    assert reader.read(moved.image).position == board.position_otn()
    feed.close()
