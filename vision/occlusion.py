"""Is something (a hand, an arm) over the board? Judged by the grid lines.

The dark grid lines are the one thing printed on every board that no piece
standing on a square centre covers: the crossings of the lines are the
farthest points from every square's centre. A hand or a sleeve, of any
colour and in any light, hides a connected patch of crossings. Colour tests
for skin would fail on wood, which is skin-coloured.
"""
from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from calibration.geometry import BoardGeometry
from vision.rectify import RectifiedFrame


@dataclass(frozen=True)
class GridVisibility:
    hidden: np.ndarray          # (n+1, n+1) bool: crossing not visible
    contrast: np.ndarray        # (n+1, n+1) line / wood brightness ratio
    largest_patch: int          # crossings in the largest connected hidden patch


class GridChecker:
    """Measures how well each crossing of the grid lines can be seen."""

    def __init__(self, geometry: BoardGeometry, frame: RectifiedFrame, hidden_ratio: float = 0.93,
                 min_patch: int = 3):
        self.n = geometry.size + 1
        self.hidden_ratio = hidden_ratio
        self.min_patch = min_patch
        p = geometry.pitch
        k = np.arange(self.n) * p
        X, Y = np.meshgrid(k, k)                       # row index = line along y (rank), col = along x
        self.crossings = frame.to_px(np.stack([X.ravel(), Y.ravel()], 1))
        s = frame.ppm
        dist = np.arange(0.12 * p, 0.25 * p, 1.0 / s)
        arms = []
        for ux, uy in ((1, 0), (-1, 0), (0, 1), (0, -1)):
            arms += [(ux * d * s, uy * d * s) for d in dist]
        arm = np.array(arms)
        # the line is ~2 px wide and the homography is good to about a pixel:
        # take the darkest of three samples across the line
        across = np.abs(arm[:, ::-1]) > 0
        self.arm_bands = [arm + across * k for k in (-1.5, 0.0, 1.5)]
        dd = 0.15 * p
        diag_mm = np.array([(dd, dd), (dd, -dd), (-dd, dd), (-dd, -dd)])
        self.diag = diag_mm * np.array([s, -s])
        # wood references must lie on the playing area (the frame around it may be another colour)
        pts = np.stack([X.ravel(), Y.ravel()], 1)[:, None, :] + diag_mm[None]
        inside = (pts > 0).all(2) & (pts < geometry.width).all(2)
        self.diag_weight = np.where(inside, 1.0, np.nan)

    def check(self, rect_gray: np.ndarray) -> GridVisibility:
        g = rect_gray.astype(np.float32)
        g = cv2.blur(g, (3, 3))
        n = g.shape[0]

        def sample(offsets):
            pts = np.clip(np.round(self.crossings[:, None, :] + offsets[None]).astype(int), 0, n - 1)
            return g[pts[..., 1], pts[..., 0]]

        line = np.percentile(np.minimum.reduce([sample(a) for a in self.arm_bands]), 30, axis=1)
        wood = np.nanmedian(sample(self.diag) * self.diag_weight, 1)
        ratio = (line + 1) / (wood + 1)
        saturated = wood > 245
        hidden = (ratio > self.hidden_ratio) & ~saturated
        grid = hidden.reshape(self.n, self.n)
        count, labels = cv2.connectedComponents(grid.astype(np.uint8), connectivity=8)
        largest = 0
        for label in range(1, count):
            largest = max(largest, int((labels == label).sum()))
        return GridVisibility(hidden=grid, contrast=ratio.reshape(self.n, self.n), largest_patch=largest)

    def occluded(self, vis: GridVisibility) -> bool:
        return vis.largest_patch >= self.min_patch
