"""Measure the board's own grid lines against where the marker homography puts them.

Four markers always admit a homography (it has eight degrees of freedom, four
marker centres give eight equations), so a marker stuck 5 mm off, or a wrong
markers.offset_mm, cannot show in the markers' own residuals; it shows only in
the squares. The grid lines are printed on the board, so they are the ground
truth: sample an intensity profile across each line segment midway between two
intersections (where pieces standing on square centres never reach), find the
dark line's centre, and the offset is the homography's error there, in mm.

The line offsets are noisy (JPEG, glare, a shadow across a line), while the
error of a homography fitted to misplaced markers is smooth: it is itself a
homography of the board plane. So the offsets are fitted, robustly, with a
near-identity homography G of the board (measured line = G(nominal line)),
and the error at a square centre is |G(c) - c|; the scatter of the offsets
about G is reported as the measurement's own noise.
"""
from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Callable

import cv2
import numpy as np

from calibration.geometry import BoardGeometry

HALF_WINDOW_MM = 6.0       # profile half-length: pieces (r <= 10 mm) stand 20 mm from the line
STEP_MM = 0.2
FLANK_MM = 2.5             # beyond this distance the profile is background
ALONG = (0.3, 0.5, 0.7)    # positions along each segment, as fractions of the pitch
MIN_CONTRAST = 12.0        # grey levels between a line and the wood beside it
MAX_SPREAD_MM = 1.0        # the three profiles of one segment must agree this well


@dataclass
class GridMeasurement:
    """Offsets (mm) of each grid line segment from its nominal place; NaN where unreadable.

    vertical[k, r]: the line x = k * pitch beside rank r (positive: it lies at larger x);
    horizontal[k, f]: the line y = k * pitch beside file f.
    """

    vertical: np.ndarray
    horizontal: np.ndarray

    @property
    def size(self) -> int:
        return self.vertical.shape[1]

    def raw_square_errors(self) -> np.ndarray:
        """Unsmoothed: each square from its own four side lines (NaN where one axis is unread)."""
        n = self.size
        out = np.full(n * n, np.nan)
        for r in range(n):
            for f in range(n):
                ex = _mean2(self.vertical[f, r], self.vertical[f + 1, r])
                ey = _mean2(self.horizontal[r, f], self.horizontal[r + 1, f])
                if np.isfinite(ex) and np.isfinite(ey):
                    out[r * n + f] = float(np.hypot(ex, ey))
        return out

    def correction(self, pitch: float) -> tuple[np.ndarray, float, int] | None:
        """Robust fit of the board homography G with measured = G(nominal).

        Returns (G, rms of the offsets about it in mm, offsets used), or None
        when too few lines in either direction were read.
        """
        n = self.size
        rows, rhs = [], []
        for k in range(n + 1):
            for j in range(n):
                off = self.vertical[k, j]
                if np.isfinite(off):
                    x, y, xm = k * pitch, (j + 0.5) * pitch, k * pitch + off
                    rows.append([x, y, 1.0, 0.0, 0.0, 0.0, -xm * x, -xm * y])
                    rhs.append(xm)
        n_vertical = len(rows)
        for k in range(n + 1):
            for j in range(n):
                off = self.horizontal[k, j]
                if np.isfinite(off):
                    x, y, ym = (j + 0.5) * pitch, k * pitch, k * pitch + off
                    rows.append([0.0, 0.0, 0.0, x, y, 1.0, -ym * x, -ym * y])
                    rhs.append(ym)
        if n_vertical < 6 or len(rows) - n_vertical < 6:
            return None
        a, b = np.array(rows), np.array(rhs)
        scale = np.array([1 / pitch, 1 / pitch, 1.0] * 2 + [1 / pitch ** 2] * 2)  # conditioning
        keep = np.ones(len(b), bool)
        for _ in range(4):
            sol, *_ = np.linalg.lstsq(a[keep] * scale, b[keep], rcond=None)
            resid = a @ (sol * scale) - b
            rms = float(np.sqrt(np.mean(resid[keep] ** 2)))
            new_keep = np.abs(resid) <= max(3.0 * rms, 0.3)
            if (new_keep == keep).all():
                break
            keep = new_keep
        g = np.append(sol * scale, 1.0).reshape(3, 3)
        return g, rms, int(keep.sum())

    def square_errors(self, pitch: float) -> np.ndarray:
        """Error length at each square centre from the smooth fit (raw values if it cannot be fitted)."""
        fitted = self.correction(pitch)
        if fitted is None:
            return self.raw_square_errors()
        g = fitted[0]
        n = self.size
        c = np.array([((i % n + 0.5) * pitch, (i // n + 0.5) * pitch, 1.0) for i in range(n * n)])
        moved = c @ g.T
        moved = moved[:, :2] / moved[:, 2:3]
        return np.hypot(*(moved - c[:, :2]).T)

    @property
    def measured_fraction(self) -> float:
        both = np.concatenate((self.vertical.ravel(), self.horizontal.ravel()))
        return float(np.isfinite(both).mean())


def _mean2(a: float, b: float) -> float:
    values = [v for v in (a, b) if np.isfinite(v)]
    return float(np.mean(values)) if values else float("nan")


def _line_centre(profile: np.ndarray, s: np.ndarray, line_width_mm: float) -> float:
    """Centre (mm) of the dark line in one profile, or NaN when there is none."""
    left = np.median(profile[s < -FLANK_MM])
    right = np.median(profile[s > FLANK_MM])
    background = left + (right - left) * (s - s[0]) / (s[-1] - s[0])
    darkness = background - profile
    inner = np.abs(s) <= HALF_WINDOW_MM - 1.0
    k = int(np.argmax(np.where(inner, darkness, -np.inf)))
    if darkness[k] < MIN_CONTRAST:
        return float("nan")
    window = np.abs(s - s[k]) <= line_width_mm / 2 + 1.2
    weights = np.clip(darkness[window], 0.0, None)
    if weights.sum() <= 0:
        return float("nan")
    return float((weights * s[window]).sum() / weights.sum())


def measure_grid(image: np.ndarray, geo: BoardGeometry,
                 board_to_image: Callable[[np.ndarray], np.ndarray]) -> GridMeasurement:
    """Offsets of every grid line segment; ``board_to_image`` maps board mm to raw image pixels."""
    grey = image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    grey = grey.astype(np.float32)
    n, p = geo.size, geo.pitch
    s = np.arange(-HALF_WINDOW_MM, HALF_WINDOW_MM + STEP_MM / 2, STEP_MM)
    # every profile: (orientation, line k, segment j, position along)
    starts, directions = [], []
    for k in range(n + 1):
        for j in range(n):
            for a in ALONG:
                starts.append((k * p, (j + a) * p))   # vertical line: profile along x
                directions.append((1.0, 0.0))
    for k in range(n + 1):
        for j in range(n):
            for a in ALONG:
                starts.append(((j + a) * p, k * p))   # horizontal line: profile along y
                directions.append((0.0, 1.0))
    starts_a = np.array(starts)[:, None, :]
    dirs_a = np.array(directions)[:, None, :]
    pts = starts_a + dirs_a * s[None, :, None]                     # profiles x samples x 2 (mm)
    px = board_to_image(pts.reshape(-1, 2)).reshape(pts.shape).astype(np.float32)
    profiles = cv2.remap(grey, px[..., 0], px[..., 1], cv2.INTER_LINEAR,
                         borderMode=cv2.BORDER_CONSTANT, borderValue=-1.0)
    inside = (profiles >= 0).all(axis=1)
    width = geo.spec.line_width_mm
    centres = np.array([_line_centre(pr, s, width) if ok else np.nan
                        for pr, ok in zip(profiles, inside)])
    centres = centres.reshape(2, n + 1, n, len(ALONG))
    with np.errstate(invalid="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)      # all-NaN segments stay NaN
        spread = np.nanmax(centres, axis=3) - np.nanmin(centres, axis=3)
        offsets = np.where(np.isfinite(centres).sum(axis=3) >= 2, np.nanmedian(centres, axis=3), np.nan)
    offsets = np.where(spread <= MAX_SPREAD_MM, offsets, np.nan)
    return GridMeasurement(vertical=offsets[0], horizontal=offsets[1])
