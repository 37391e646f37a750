"""Medians and percentiles over a few values at a time, numpy's numbers, fast.

WHY: numpy's nanmedian takes a masked-array path for short rows (under 600
values), which costs far more than the sort itself; the reader takes such
medians per grid crossing (vision/occlusion.py) and per square's plain
neighbours (vision/features.py) in every frame (issue 15: 30 ms a frame).
np.median along an axis that is not the last partitions strided rows; the
reader takes such medians per square over its disc, ring and rays.
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


def median(a: np.ndarray, axis: int) -> np.ndarray:
    """np.median(a, axis) for finite numbers, the same numbers: one partition of contiguous rows.

    np.median partitions along `axis` where it lies (strided for the reader's (squares, points,
    channels) samples, 4-8 times slower) and partitions an even row round both middle values; the
    lower middle value is the largest of the lower half once the upper middle one is in place.
    """
    rows = np.ascontiguousarray(np.moveaxis(np.asarray(a), axis, -1))
    n = rows.shape[-1]
    half = n // 2
    part = np.partition(rows, half, -1)
    if n % 2:
        return part[..., half]
    return (part[..., :half].max(-1) + part[..., half]) / 2


def mean_last(a: np.ndarray) -> np.ndarray:
    """a.mean(-1) for a few values a row, the same numbers: the values added in their order, then divided.

    np.mean along a short last axis (a pixel's three channels, a ray's first three samples) runs an
    inner loop of that length per row, ten times the cost of adding whole columns; numpy adds fewer
    than eight values one after the other too, so the sums are the same."""
    a = np.asarray(a)
    total = a[..., 0] + a[..., 1] if a.shape[-1] > 1 else a[..., 0].copy()
    for k in range(2, a.shape[-1]):
        total += a[..., k]
    return total / a.shape[-1]


def row_percentile(a: np.ndarray, q: float) -> np.ndarray:
    """np.percentile(a, q, axis=1) (linear, the default) for a 2-D array of finite numbers, the same
    numbers, fast: one sort of the short rows and numpy's own interpolation between the two values
    round the q-th percentile. np.percentile partitions every row through a general path whose
    overhead is five times the sort's for rows of a few dozen values, and the reader takes such
    percentiles per grid crossing (vision/occlusion.py) and per square (vision/shape.py) each frame.
    """
    s = np.sort(a, axis=1)
    n = s.shape[1]
    v = (n - 1) * np.true_divide(q, 100)
    lo = int(np.floor(v))
    t = float(v - lo)
    below, above = s[:, lo], s[:, min(lo + 1, n - 1)]
    step = above - below
    # numpy's _lerp: from the nearer end, so t = 0 and t = 1 give the values themselves
    return above - step * (1 - t) if t >= 0.5 else below + step * t
