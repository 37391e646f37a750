"""np.nanmedian over a few values at a time, the same numbers, fast.

WHY: numpy's nanmedian takes a masked-array path for short rows (under 600
values), which costs far more than the sort itself; the reader takes such
medians per grid crossing (vision/occlusion.py) and per square's plain
neighbours (vision/features.py) in every frame (issue 15: 30 ms a frame).
"""
from __future__ import annotations

import numpy as np


def nanmedian(a: np.ndarray, axis: int) -> np.ndarray:
    """np.nanmedian(a, axis) for short rows: NaN sorts last, so a row's median is its middle value,
    or the mean of its two middle values, among the numbers it holds (NaN for a row of NaN only)."""
    s = np.sort(np.moveaxis(np.asarray(a), axis, -1), -1)
    k = np.isfinite(s).sum(-1, keepdims=True)
    low = np.take_along_axis(s, np.maximum((k - 1) // 2, 0), -1)[..., 0]
    high = np.take_along_axis(s, np.maximum(k // 2 - (k == 0), 0), -1)[..., 0]
    k = k[..., 0]
    return np.where(k > 0, np.where(k % 2 == 1, low, (low + high) / 2), np.nan).astype(s.dtype, copy=False)
