"""Is there a disc with a rim, or only light? The shape of a light piece, square by square.

WHY: colour alone cannot tell an ivory piece from a bright, pale veil of
glare over bare wood: both are a lighter, greyer patch than the wood round
them. What a veil cannot have is a piece's outline: a disc of the piece's
known diameter whose edge drops from the top to the wood (or to the side
wall) within a couple of pixels, wherever the piece stands on its square.
A veil fades over many pixels.

Along rays from each square's top (the centre raised by the piece height,
as the features sample it) the brightness is read from well inside the
disc to well outside it. Per ray, the sharpest drop over EDGE_PX pixels is
compared with the whole drop from inside to outside; the median over the
rays is the square's `sharpness` (about 1 for a piece, blurred by the lens;
well under a half for a veil). Each ray finds its own edge, so a piece left
off centre by a visitor keeps its sharpness. An ivory piece also stands
*brighter* than the wood right round it by a real margin (`lift`).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

RAYS = 24
INNER = 0.55           # radii (piece radii) the profile starts at (outside the king's crown) ...
OUTER = 1.75           # ... and ends at
EDGE_PX = 3            # pixels over which a piece's rim drops (lens blur included)


@dataclass(frozen=True)
class Outline:
    sharpness: np.ndarray     # (squares,) median over rays of sharpest drop / whole drop
    lift: np.ndarray          # (squares,) inside minus outside brightness, grey levels


class OutlineMeter:
    """Measures the rim of a possible light piece on every square at once."""

    def __init__(self, radius_px: float):
        ang = np.linspace(0, 2 * np.pi, RAYS, endpoint=False)
        radii = np.arange(INNER * radius_px, OUTER * radius_px, 1.0)
        self.offsets = (np.stack([np.cos(ang), np.sin(ang)], 1)[:, None, :] * radii[None, :, None])  # (R, K, 2)
        self.k = len(radii)

    def measure(self, gray: np.ndarray, tops: np.ndarray) -> Outline:
        n = gray.shape[0]
        pts = np.round(tops[:, None, None, :] + self.offsets[None]).astype(np.int32)     # (S, R, K, 2)
        cols = np.clip(pts[..., 0], 0, n - 1)
        rows = np.clip(pts[..., 1], 0, n - 1)
        prof = gray[rows, cols].astype(np.float32)                                      # (S, R, K)
        inside = prof[..., :3].mean(-1)
        outside = prof[..., -3:].mean(-1)
        whole = inside - outside                                                        # (S, R)
        steps = prof[..., :-EDGE_PX] - prof[..., EDGE_PX:]                              # drops outward
        sharp = steps.max(-1) / np.maximum(whole, 1.0)
        sharp = np.where(whole > 2.0, sharp, 0.0)
        return Outline(sharpness=np.median(sharp, 1), lift=np.median(whole, 1))
