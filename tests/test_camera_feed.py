"""The kiosk's camera feed reads a camera as vision owns it (vision.sources.FrameSource)."""
from __future__ import annotations

import cv2
import numpy as np

from calibration.config import Config
from kiosk.vision_adapter import UvcFrameSource
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
