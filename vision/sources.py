"""Where frames come from: a UVC camera, a video file, a folder of images.

All sources give (frame, timestamp) pairs; `read()` returns None when a
frame is not available right now (camera unplugged, end of a file), so the
caller's loop never blocks on a dead device. The simulation's camera, which
renders the simulated world, is the kiosk's (kiosk/vision_adapter.py,
SimFrameSource): one simulated camera, beside the world it draws.
"""
from __future__ import annotations

import time
from pathlib import Path
from typing import Callable, Iterator, Protocol

import cv2
import numpy as np

from calibration.config import CameraConfig

IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".bmp", ".tif", ".tiff")
# Frames the camera driver may hold for us (V4L2 queues four by default). A frame waiting in that
# queue was taken before it is read and stamped: after the gantry stops, four queued frames would be
# up to 130 ms older than their stamps and could show the board before the stop. One buffer keeps
# every frame read within a frame interval of its stamp; a driver that needs more takes its minimum.
CAPTURE_BUFFERS = 1


class FrameSource(Protocol):
    def read(self) -> tuple[np.ndarray, float] | None: ...
    def close(self) -> None: ...


def frames(source: FrameSource) -> Iterator[tuple[np.ndarray, float]]:
    """Iterate until a finite source is exhausted."""
    while True:
        item = source.read()
        if item is None:
            if getattr(source, "finite", False):
                return
            time.sleep(0.05)
            continue
        yield item


class CameraSource:
    """A UVC camera by index ("0") or device path ("/dev/tafl-camera"), reopened when it drops out."""

    finite = False

    def __init__(self, device: str | int, width: int = CameraConfig.width, height: int = CameraConfig.height,
                 fps: int = CameraConfig.fps,
                 retry_s: float = 1.0, opener: Callable[[str | int], cv2.VideoCapture] | None = None):
        self.device = int(device) if isinstance(device, str) and device.isdigit() else device
        self.width, self.height, self.fps = width, height, fps
        self.retry_s = retry_s
        self._opener = opener or (lambda dev: cv2.VideoCapture(dev))
        self._cap: cv2.VideoCapture | None = None
        self._next_try = 0.0
        self.reconnects = 0
        self.last_error = ""

    def _open(self) -> bool:
        cap = self._opener(self.device)
        if cap is None or not cap.isOpened():
            self.last_error = f"camera {self.device} cannot be opened"
            return False
        cap.set(cv2.CAP_PROP_FRAME_WIDTH, self.width)
        cap.set(cv2.CAP_PROP_FRAME_HEIGHT, self.height)
        cap.set(cv2.CAP_PROP_FPS, self.fps)
        cap.set(cv2.CAP_PROP_BUFFERSIZE, CAPTURE_BUFFERS)
        self._cap = cap
        return True

    def read(self) -> tuple[np.ndarray, float] | None:
        """The next frame and its stamp, taken before the driver hands it over: a frame the driver
        had to wait for is stamped a little before it was taken, never after (see CAPTURE_BUFFERS)."""
        now = time.monotonic()
        if self._cap is None:
            if now < self._next_try:
                return None
            self._next_try = now + self.retry_s
            if not self._open():
                return None
            self.reconnects += 1
        cap = self._cap
        assert cap is not None      # _open() set it
        ok, frame = cap.read()
        if not ok or frame is None:
            self.last_error = f"camera {self.device} stopped delivering frames"
            cap.release()
            self._cap = None
            self._next_try = now + self.retry_s
            return None
        return frame, now

    def close(self) -> None:
        if self._cap is not None:
            self._cap.release()
            self._cap = None


class VideoFileSource:
    """Frames of a video file, timestamped by their position in the file."""

    finite = True

    def __init__(self, path: str | Path):
        self.path = str(path)
        self._cap = cv2.VideoCapture(self.path)
        if not self._cap.isOpened():
            raise ValueError(f"cannot open video file {self.path}")
        self._fps = self._cap.get(cv2.CAP_PROP_FPS) or 30.0
        self._index = 0

    def read(self) -> tuple[np.ndarray, float] | None:
        ok, frame = self._cap.read()
        if not ok:
            return None
        t = self._index / self._fps
        self._index += 1
        return frame, t

    def close(self) -> None:
        self._cap.release()


class ImageFolderSource:
    """The images of a folder in name order, `interval_s` apart."""

    finite = True

    def __init__(self, folder: str | Path, interval_s: float = 1 / 30):
        folder = Path(folder)
        if not folder.is_dir():
            raise ValueError(f"not a folder: {folder}")
        self.paths = sorted(p for p in folder.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES)
        self.interval_s = interval_s
        self._index = 0

    def read(self) -> tuple[np.ndarray, float] | None:
        while self._index < len(self.paths):
            path = self.paths[self._index]
            t = self._index * self.interval_s
            self._index += 1
            frame = cv2.imread(str(path), cv2.IMREAD_COLOR)
            if frame is not None:
                return frame, t
        return None

    def close(self) -> None:
        pass


def open_source(spec: str, **kw) -> FrameSource:
    """A source from a command-line word: a camera index/device, a video file or an image folder."""
    path = Path(spec)
    if spec.isdigit() or spec.startswith("/dev/"):
        return CameraSource(spec, **kw)
    if path.is_dir():
        return ImageFolderSource(path)
    if path.is_file():
        return VideoFileSource(path)
    raise ValueError(f"no camera, video file or image folder called {spec!r}")
