"""A visitor holds their take-home QR code up to the overhead camera: their unlocks come back.

WHY here and at a low rate: the camera looks at the board all day; only
while the start screens show (nobody is playing) is its newest frame checked
for a QR code, once every `period_s`, in a worker thread, because OpenCV's QR
detector takes tens of milliseconds that the pygame loop must not spend.
The code itself is checked by kiosk/record_signer.py (a signed game record
or a reward code); this module only looks and hands the text over.
"""
from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from kiosk.rewards import Unlocks


class QrRestore:
    """`poll` once a frame: starts a look now and then, returns the unlocks a code gave back."""

    def __init__(self, snapshot: Callable[[], Any], check: Callable[[str], Unlocks | None],
                 period_s: float = 1.0) -> None:
        self.snapshot = snapshot
        self.check = check
        self.period_s = period_s
        self._last_look = float("-inf")
        self._last_text: str | None = None
        self._worker: threading.Thread | None = None
        self._found: Unlocks | None = None
        self._lock = threading.Lock()

    def poll(self, now: float, watching: bool) -> Unlocks | None:
        """What a code shown since the last call gave back (once per code), else None."""
        with self._lock:
            found, self._found = self._found, None
        if not watching:
            self._last_text = None                # the same code may be shown again next time
            return found
        busy = self._worker is not None and self._worker.is_alive()
        if not busy and now - self._last_look >= self.period_s:
            frame = self.snapshot()
            if frame is not None:
                self._last_look = now
                self._worker = threading.Thread(target=self._look, args=(frame,), name="tafl-qr", daemon=True)
                self._worker.start()
        return found

    def wait(self, timeout_s: float = 5.0) -> None:
        """Let a look in progress finish (tests; the kiosk never waits)."""
        if self._worker is not None:
            self._worker.join(timeout_s)

    def _look(self, frame: Any) -> None:
        from vision.qr_read import read_qr

        reading = read_qr(frame)
        if reading is None or reading.text == self._last_text:
            return
        self._last_text = reading.text            # a code held still is checked once, not every second
        unlocks = self.check(reading.text)
        if unlocks is not None and unlocks.flags():
            with self._lock:
                self._found = unlocks
