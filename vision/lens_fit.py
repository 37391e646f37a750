"""The lens's radial distortion, fitted from the board's own grid lines when no lens calibration is configured.

WHY: the four markers sit at the board's corners, so a homography through them
is right there and wrong in between when the lens bends straight lines. The
camera may distort a little (docs/hardware.md), and a kiosk whose lens was
never calibrated (calibration/lens.py is an install step a technician may
skip) saw its grid crossings several pixels off the lines mid-board: in the
simulation's hard light, cameras with |k1| over 0.1 read 1 to 1.5 squares
wrong a frame, and one (seed 65) refused 13 of 15 hand-free frames as "hand
over board", its crossings "hidden" only because the lines were looked for
beside them. The same frames read with the true lens had no square wrong and
no refusal.

The board carries its own calibration target: its size + 1 straight lines each way
at a known pitch. For one radial term k1 (about the image centre, with the
focal length the homography gives, vision/localise.BoardLocaliser._estimate_K)
the marker corners are undistorted, the homography fitted again, and the lines
looked for where it puts them: the darker they are against the wood beside
them, the better k1 fits. One global parameter cannot be bent to fit pieces or
glare, and a line is dark wherever the light is; a hand over part of the board
only hides some of the samples.
"""
from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from calibration.geometry import BoardGeometry
from vision.rectify import lens_distort

#: k1 (normalised image coordinates) is looked for in this range; real webcams lie well within it
K1_RANGE = 0.3
K1_STEP = 0.02
K1_FINE_STEP = 0.004
#: the fit must make the lines stand at least this much darker than with no distortion at all, or it is not used
MIN_GAIN = 1.03
#: across a line, the wood is sampled this far either side (share of a square's pitch)
SIDE_SHARE = 0.22
#: samples along each line segment between two crossings
ALONG = (0.25, 0.5, 0.75)


@dataclass(frozen=True)
class LensFit:
    """A radial term fitted from the grid, in OpenCV's conventions (K, dist: k1 k2 p1 p2 k3)."""

    K: np.ndarray
    dist: np.ndarray
    gain: float         # line depth with this k1 over line depth with none
    shift_px: float     # the most it moves a grid crossing in the frame from where the markers' homography puts it

    @property
    def k1(self) -> float:
        return float(self.dist[0])


class GridLensFitter:
    """Fits k1 to one frame's grid (see the module docstring)."""

    def __init__(self, geometry: BoardGeometry):
        n = geometry.size
        p = geometry.pitch
        seg = np.array([(j + t) * p for j in range(n) for t in ALONG])
        lines = np.arange(n + 1) * p
        # points on the lines, with the unit normal across each line: vertical lines (x const), then horizontal
        vx = np.stack(np.meshgrid(lines, seg, indexing="ij"), -1).reshape(-1, 2)
        hy = np.stack(np.meshgrid(seg, lines, indexing="xy"), -1).reshape(-1, 2)
        side = SIDE_SHARE * p
        normal = np.vstack([np.tile([1.0, 0.0], (len(vx), 1)), np.tile([0.0, 1.0], (len(hy), 1))])
        on_line = np.vstack([vx, hy])
        self.count = len(on_line)
        # the line samples, then the wood either side of them, in one array: one projection per k1 tried
        self.points = np.vstack([on_line, on_line + side * normal, on_line - side * normal]).reshape(-1, 1, 2)
        self.crossings = np.stack(np.meshgrid(lines, lines), -1).reshape(-1, 1, 2)

    def depth(self, gray: np.ndarray, H: np.ndarray, K: np.ndarray, k1: float) -> float:
        """Mean depth of the grid lines below the wood beside them, in grey levels, where H (board mm to
        undistorted pixels) and k1 put them."""
        ideal = cv2.perspectiveTransform(self.points, H).reshape(-1, 2)
        px = lens_distort(ideal, K, radial(k1)).astype(np.float32)
        seen = cv2.remap(gray, px[:, None, 0].copy(), px[:, None, 1].copy(), cv2.INTER_LINEAR,
                         borderMode=cv2.BORDER_REPLICATE).ravel().astype(np.float32)
        n = self.count
        return float(np.mean(0.5 * (seen[n:2 * n] + seen[2 * n:]) - seen[:n]))

    def fit(self, gray: np.ndarray, marker_px: np.ndarray, board_mm: np.ndarray, K: np.ndarray) -> LensFit | None:
        """k1 for this frame (`marker_px`: the marker corners as found, `board_mm` where they are on the board),
        or None when no k1 makes the lines plainly darker than none does."""
        g = cv2.blur(gray, (3, 3))          # (a line is a pixel or two wide: sampled between pixels, not missed)
        plain = homography(marker_px, board_mm, K, 0.0)
        if plain is None:
            return None

        def score(k1: float) -> float:
            H = homography(marker_px, board_mm, K, k1)
            return -np.inf if H is None else self.depth(g, H, K, k1)

        coarse = np.arange(-K1_RANGE, K1_RANGE + 1e-9, K1_STEP)
        best = float(coarse[int(np.argmax([score(float(k)) for k in coarse]))])
        fine = np.arange(best - K1_STEP, best + K1_STEP + 1e-9, K1_FINE_STEP)
        fine_scores = np.array([score(float(k)) for k in fine])
        best = float(fine[int(np.argmax(fine_scores))])
        none = self.depth(g, plain, K, 0.0)
        top = float(fine_scores.max())
        H = homography(marker_px, board_mm, K, best)
        if H is None or none <= 0.0 or top < MIN_GAIN * none:
            return None
        fitted = lens_distort(cv2.perspectiveTransform(self.crossings, H).reshape(-1, 2), K, radial(best))
        shift = np.linalg.norm(fitted - cv2.perspectiveTransform(self.crossings, plain).reshape(-1, 2), axis=1)
        return LensFit(K=K.copy(), dist=radial(best), gain=top / none, shift_px=float(shift.max()))


def radial(k1: float) -> np.ndarray:
    """OpenCV's distortion coefficients (k1 k2 p1 p2 k3) for one radial term."""
    return np.array([k1, 0.0, 0.0, 0.0, 0.0])


def homography(marker_px: np.ndarray, board_mm: np.ndarray, K: np.ndarray, k1: float) -> np.ndarray | None:
    """Board mm -> undistorted pixels through the marker corners, undistorted for k1."""
    pts: np.ndarray = marker_px.reshape(-1, 1, 2).astype(np.float64)
    if k1:
        pts = np.asarray(cv2.undistortPoints(pts, K, radial(k1), P=K))
    H, _ = cv2.findHomography(board_mm.astype(np.float64), pts.reshape(-1, 2), 0)
    return H if H is not None and np.isfinite(H).all() else None
