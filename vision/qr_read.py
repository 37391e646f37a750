"""Read a QR code the visitor holds up to the overhead camera (a reward code, a game record).

WHY OpenCV's own detector: OpenCV is already the vision layer's one image
library, and `cv2.QRCodeDetector` finds the finder patterns, undoes the
perspective of a tilted card and corrects errors (Reed-Solomon) itself, so
there is nothing of ours to get wrong and no second dependency.
"""
from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np


@dataclass(frozen=True)
class QrReading:
    """What a QR code in a frame says, and where it is (4 x 2 pixel corners, clockwise from top-left)."""

    text: str
    corners: np.ndarray


def read_qr(frame: np.ndarray) -> QrReading | None:
    """The QR code in a camera frame (BGR or grey), or None when none is found or it cannot be decoded."""
    text, points, _ = cv2.QRCodeDetector().detectAndDecode(frame)
    if not text or points is None:
        return None
    return QrReading(text=text, corners=np.asarray(points, np.float64).reshape(4, 2))
