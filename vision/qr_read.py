"""Read a QR code the visitor holds up to the overhead camera (a reward code, a game record).

WHY OpenCV's own detector: OpenCV is already the vision layer's one image
library, and `cv2.QRCodeDetector` finds the finder patterns, undoes the
perspective of a tilted card and corrects errors (Reed-Solomon) itself, so
there is nothing of ours to get wrong and no second dependency.

WHY a second try: a take-home game record is a large code (version 17, 85
modules, for 200 plies), which in the camera's 1280 x 720 frame gets only 3
to 5 pixels a module, slightly blurred. The detector then often finds the
code but cannot sample it. Rectifying the quadrilateral it found to an
upright square of 8 pixels a module, sharpened, and decoding that reads
nearly all of them (tests/test_record_kiosk.py); OpenCV's ArUco-based
detector is asked as well, since it finds finder patterns the classic one
misses. The rest (about 1 in 30 single frames, measured over random record
keys) were codes whose fourth corner, which has no finder pattern, the
detector guessed two or three modules off: the quadrilateral completed as a
parallelogram from the other three is tried too (`_completed`).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np

RECTIFIED_PX = 800                 # the found code's side after rectification (about 8 px a module at v17)
MARGIN_PX = 64                     # light border around it: the quiet zone the decoder looks for


@dataclass(frozen=True)
class QrReading:
    """What a QR code in a frame says, and where it is (4 x 2 pixel corners, clockwise from top-left)."""

    text: str
    corners: np.ndarray


def _detectors() -> tuple[Any, ...]:
    return (cv2.QRCodeDetector(), cv2.QRCodeDetectorAruco())


def read_qr(frame: np.ndarray) -> QrReading | None:
    """The QR code in a camera frame (BGR or grey), or None when none is found or it cannot be decoded."""
    grey = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY) if frame.ndim == 3 else frame
    detectors = _detectors()
    for detector in detectors:
        text, points, _ = detector.detectAndDecode(grey)
        if text and points is not None:
            return QrReading(text=text, corners=np.asarray(points, np.float64).reshape(4, 2))
    for detector in detectors:                 # found but not read: rectify, sharpen, read again
        found, points = detector.detect(grey)
        if not found or points is None:
            continue
        corners = np.asarray(points, np.float32).reshape(-1, 2)[:4]
        for quad in (corners, *_completed(corners)):
            for image in _rectified(grey, quad):
                for reader in detectors:
                    text, _, _ = reader.detectAndDecode(image)
                    if text:
                        return QrReading(text=text, corners=corners.astype(np.float64))
    return None


def _completed(corners: np.ndarray) -> list[np.ndarray]:
    """The quadrilateral with each corner in turn replaced by the parallelogram of the other three.

    A QR code has finder patterns at three corners only; the detector guesses
    the fourth, and on a large, blurred code (version 17 at 5 px a module) the
    guess can be off by two or three modules, enough to shear the rectified
    code out of the decoder's reach. Three finder corners and a parallelogram
    are close to the truth for a card seen nearly square-on.
    """
    out = []
    for k in range(4):
        quad = corners.copy()
        quad[k] = corners[(k + 1) % 4] + corners[(k + 3) % 4] - corners[(k + 2) % 4]
        out.append(quad)
    return out


def _rectified(grey: np.ndarray, corners: np.ndarray) -> tuple[np.ndarray, ...]:
    """The code inside ``corners`` as an upright square with a light border: plain, sharpened, and
    black and white."""
    m, side = MARGIN_PX, RECTIFIED_PX
    target = np.array([[m, m], [m + side, m], [m + side, m + side], [m, m + side]], np.float32)
    homography = cv2.getPerspectiveTransform(corners, target)
    upright = cv2.warpPerspective(grey, homography, (side + 2 * m, side + 2 * m), flags=cv2.INTER_CUBIC,
                                  borderValue=255)
    sharp = cv2.addWeighted(upright, 1.8, cv2.GaussianBlur(upright, (0, 0), 3), -0.8, 0)
    # black and white by the code's own local light (a module is ~9 px here): the
    # decoder's own threshold can split a blurred module that this keeps whole
    binary = cv2.adaptiveThreshold(cv2.GaussianBlur(upright, (0, 0), 2), 255, cv2.ADAPTIVE_THRESH_MEAN_C,
                                   cv2.THRESH_BINARY, 51, 0)
    return upright, sharp, binary
