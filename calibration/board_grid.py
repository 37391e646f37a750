"""Measure the board's own grid lines against where the marker homography puts them.

Four markers always admit a homography (it has eight degrees of freedom, four
marker centres give eight equations), so a marker stuck 5 mm off, or a wrong
markers.offset_mm, cannot show in the markers' own residuals; it shows only in
the squares. The grid lines are printed on the board, so they are the ground
truth: sample an intensity profile across each line segment midway between two
intersections (where pieces standing on square centres never reach), find the
dark line's centre, and the offset is the homography's error there, in mm.

The line offsets are noisy (JPEG, glare, a shadow across a line), while the
error field is smooth: a homography fitted to misplaced markers is off by a
projective map of the board plane, an uncorrected lens by a radial one; a
cubic polynomial in x and y follows both to a small fraction of a millimetre
over the board. So the x offsets (vertical lines) and the y offsets
(horizontal lines) are each fitted robustly with one, the error at a square
centre is the length of the fitted (x, y) error there, and the scatter of the
offsets about the fit is reported as the measurement's own noise.
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

    def smooth_fit(self, pitch: float) -> tuple[np.ndarray, np.ndarray, float, int] | None:
        """Robust cubic fit of the error field: x offsets from the vertical lines, y from the horizontal.

        Returns (x coefficients, y coefficients, rms of the offsets about the fit in
        mm, offsets used), or None when too few lines in either direction were read.
        """
        n = self.size
        width = n * pitch
        xs: list[list] = []       # [points, values] of the vertical lines
        ys: list[list] = []       # and of the horizontal ones
        for grid, vertical in ((self.vertical, True), (self.horizontal, False)):
            pts, vals = [], []
            for k in range(n + 1):
                for j in range(n):
                    off = grid[k, j]
                    if np.isfinite(off):
                        pts.append((k * pitch, (j + 0.5) * pitch) if vertical else ((j + 0.5) * pitch, k * pitch))
                        vals.append(off)
            (xs if vertical else ys).extend([pts, vals])
        if len(xs[1]) < 2 * _TERMS or len(ys[1]) < 2 * _TERMS:
            return None
        rms_all, used = [], 0
        coefs = []
        for pts, vals in (xs, ys):
            a = _basis(np.array(pts), width)
            b = np.array(vals)
            keep = np.ones(len(b), bool)
            for _ in range(5):
                coef, *_ = np.linalg.lstsq(a[keep], b[keep], rcond=None)
                resid = a @ coef - b
                rms = float(np.sqrt(np.mean(resid[keep] ** 2)))
                new_keep = np.abs(resid) <= max(3.0 * rms, 0.3)
                if (new_keep == keep).all():
                    break
                keep = new_keep
            coefs.append(coef)
            rms_all.append(resid[keep])
            used += int(keep.sum())
        noise = float(np.sqrt(np.mean(np.concatenate(rms_all) ** 2)))
        return coefs[0], coefs[1], noise, used

    def square_errors(self, pitch: float) -> np.ndarray:
        """Error length at each square centre from the smooth fit (raw values if it cannot be fitted)."""
        fitted = self.smooth_fit(pitch)
        if fitted is None:
            return self.raw_square_errors()
        cx, cy = fitted[0], fitted[1]
        n = self.size
        centres = np.array([((i % n + 0.5) * pitch, (i // n + 0.5) * pitch) for i in range(n * n)])
        a = _basis(centres, n * pitch)
        return np.hypot(a @ cx, a @ cy)

    @property
    def measured_fraction(self) -> float:
        both = np.concatenate((self.vertical.ravel(), self.horizontal.ravel()))
        return float(np.isfinite(both).mean())


_TERMS = 10        # cubic in x and y


def _basis(points: np.ndarray, width: float) -> np.ndarray:
    """Monomials u^i v^j, i + j <= 3, of the board position scaled to [-1, 1]."""
    u = points[:, 0] / width * 2 - 1
    v = points[:, 1] / width * 2 - 1
    return np.column_stack([u ** i * v ** j for i in range(4) for j in range(4 - i)])


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
    inside = np.asarray((profiles >= 0).all(axis=1))
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
