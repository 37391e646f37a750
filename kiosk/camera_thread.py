"""The camera thread: grab a frame, read the board, keep the newest reading.

WHY a thread: grabbing and reading a frame takes tens of milliseconds (marker
detection, rectification, classification), which the pygame loop cannot
spend; the controller just takes the newest reading in `poll()`. OpenCV
releases the GIL in its heavy calls, so a thread is enough here.

A camera that delivers nothing (unplugged, a driver hiccup) turns into
readings with ok=False and a reason after `dropout_s`, so the screen can say
so; the thread keeps trying to reopen the source, and the game goes on when
frames come back.
"""
from __future__ import annotations

import logging
import threading
import time
from dataclasses import dataclass, replace
from typing import Callable, Protocol

import numpy as np

from engine import Piece
from kiosk.ports import CameraPort, CameraReading
from vision.localise import pose_lost

log = logging.getLogger("kiosk.camera")


@dataclass(frozen=True)
class Frame:
    t: float                 # monotonic time the frame was taken
    image: np.ndarray
    repeat: bool = False     # the very same picture as the previous frame (a simulated still scene)


class FrameFeed(Protocol):
    """The frames the kiosk reads the board from, each with its time, for the board in use.

    Not a second notion of a camera: a camera is vision.sources.FrameSource (vision owns
    it), which kiosk/vision_adapter.py's UvcFrameSource turns into a feed; SimFrameSource
    renders the simulated world instead. The feed adds what the kiosk needs on top: the
    board in use (`use_board`) and whether a frame repeats the previous picture."""

    def grab(self) -> Frame | None:
        """The next frame, or None if the camera delivered none (may block briefly)."""

    def use_board(self, board_name: str, variant: str) -> None: ...

    def refresh(self) -> None:
        """The next frame must be a genuinely new picture (a simulated still scene repeats one)."""

    def close(self) -> None: ...


class FrameReader(Protocol):
    def read(self, frame: Frame, seq: int) -> CameraReading: ...

    def use_board(self, board_name: str, variant: str) -> None: ...

    def confirm(self, reading: CameraReading, squares: dict[int, Piece]) -> None:
        """The controller confirmed what `reading` showed: the reader may learn from it."""

    def hands_off(self) -> None:
        """The visitor says no hand is over the picture last refused for glare alone."""


class CameraThread(CameraPort):
    """CameraPort: a daemon thread turning frames into readings."""

    def __init__(self, source: FrameFeed, reader: FrameReader, *, max_fps: float = 15.0,
                 dropout_s: float = 1.0, clock: Callable[[], float] = time.monotonic,
                 threaded: bool = True) -> None:
        self.source, self.reader = source, reader
        self.min_period = 1.0 / max_fps if max_fps > 0 else 0.0
        self.dropout_s = dropout_s
        self.clock = clock
        self._latest: CameraReading | None = None
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._pause = threading.Event()
        self._seq = 0
        self._frame_reading: CameraReading | None = None
        self._latest_image: np.ndarray | None = None
        self._confirms: list[tuple[CameraReading, dict]] = []
        self._hands_off = False
        self.frames_read = 0
        self.read_seconds = 0.0
        self._last_frame = clock()
        # threaded=False (the museum day's simulated clock): no thread; the caller calls
        # step() whenever its clock has moved on, so no frame depends on the wall clock
        self._thread: threading.Thread | None = None
        if threaded:
            self._thread = threading.Thread(target=self._run, name="tafl-camera", daemon=True)
            self._thread.start()

    def read_latest(self) -> CameraReading | None:
        with self._lock:
            return self._latest

    def snapshot(self) -> np.ndarray | None:
        """The newest frame (BGR) for the staff camera page, or None before the first; never blocks.

        The frame arrays are not written after they are taken, so sharing the
        reference is safe; the staff page only reads it.
        """
        with self._lock:
            return self._latest_image

    def use_board(self, board_name: str, variant: str) -> None:
        with self._lock:
            self.source.use_board(board_name, variant)
            self.reader.use_board(board_name, variant)
            self._latest = None
            self._frame_reading = None

    def refresh(self) -> None:
        """The controller doubts a reading: take a genuinely new picture next."""
        self.source.refresh()

    def confirm(self, reading: CameraReading, squares: dict) -> None:
        """The controller confirmed what `reading` showed (the reader may learn from it)."""
        with self._lock:
            self._confirms.append((reading, dict(squares)))   # applied between two frames

    def hands_off(self) -> None:
        """The visitor says no hand is over the board (CameraPort.hands_off): the reader is told
        between two frames, and the next frame is a new picture, read afresh."""
        with self._lock:
            self._hands_off = True
        self.source.refresh()

    def _apply_requests(self) -> None:
        """What the controller asked of the reader since the last frame (confirmations, the visitor's word)."""
        with self._lock:
            todo, self._confirms = self._confirms, []
            hands_off, self._hands_off = self._hands_off, False
        for reading, squares in todo:
            self.reader.confirm(reading, squares)
        if hands_off:
            self.reader.hands_off()
            self._frame_reading = None          # a repeated picture is read again, not its refusal replayed

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
        self.source.close()

    def _post(self, reading: CameraReading) -> None:
        with self._lock:
            self._latest = reading

    def _run(self) -> None:
        while not self._stop.is_set():
            rest = self.step()
            if rest > 0:
                self._stop.wait(rest)

    def step(self) -> float:
        """Take and read one frame (or note that none came); returns the seconds to wait
        before the next one (the thread's loop, or a caller stepping a simulated clock)."""
        started = self.clock()
        self._apply_requests()
        try:
            frame = self.source.grab()
        except Exception as exc:  # noqa: BLE001 - a camera error is a reading, not a crash
            log.warning("camera: %s", exc)
            frame = None
        if frame is None:
            if self.clock() - self._last_frame > self.dropout_s:
                self._seq += 1
                self._post(CameraReading(self._seq, self.clock(), False, "camera.no_frames"))
            return 0.05
        self._last_frame = self.clock()
        with self._lock:
            self._latest_image = frame.image
        self._seq += 1
        t0 = time.perf_counter()
        previous = self._frame_reading
        # the same picture: its reading again; but not a lost pose, which the reader may find in the same
        # picture later (it searches a covered marker in full only every vision.localise.COVERED_RECHECK-th
        # frame): replayed, a simulated still scene's lamp over a corner lost the robot's move for good
        replay = frame.repeat and previous is not None and (previous.ok or not pose_lost(previous.reason))
        try:
            if replay and previous is not None:
                reading = replace(previous, seq=self._seq, t=frame.t, fresh=False)
            else:
                reading = self.reader.read(frame, self._seq)
        except Exception as exc:   # a camera error is a reading, not a crash
            log.exception("board reader failed")
            reading = CameraReading(self._seq, frame.t, False, f"reader error: {exc}")
        self._frame_reading = reading
        self.read_seconds += time.perf_counter() - t0
        self.frames_read += 0 if replay else 1
        self._post(reading)
        return self.min_period - (self.clock() - started)
