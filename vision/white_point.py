"""The level at which this camera's picture clips, and the picture put back on a full scale.

WHY: the reader knows glare's clipped core by its level: wood and tops at the
top of the scale in every channel (vision/features.py `saturated`, vision/
occlusion.py CLIPPED and NEAR_WHITE). A camera need not clip at 255. The
sensor clips first; gains applied after it (a digital gain to darken a bright
room, white balance, a limited-range video signal) leave the clipped core flat
at a lower level in one channel or all. There the core is a flat, lineless
patch well below white, exactly what a hand looks like to the grid-line
check, and in a dim frame it would be "hand over board" (the held-out
renderer's hard-light frames darkened to 0.7 after clipping, development seeds
130M: 5 hand-free frames of 30 refused as a hand).

A clipped patch shows in each channel's histogram as a pile-up: many pixels
on its top level or two, far more than on each level just below (a glare
veil's smooth summit spreads its pixels evenly over the levels it passes).
Where a channel piles up so below white, that level is its ceiling, and the
picture is scaled so each ceiling is white again: the clipped core is then
clipped, as the rest of the reader expects, and the rest of the picture keeps
its ratios. A channel with no pile-up of its own (a warm lamp clips red
first, and blue may never reach the top) takes the highest ceiling found, as
one gain over all three is the likeliest cause. A picture that piles up at
white, or nowhere, is left as it is.
"""
from __future__ import annotations

import cv2
import numpy as np

#: a pile-up holds at least this share of the picture's pixels on a level (a glare core of a few
#: hundred pixels across a rectified board of 330,000)
PILE_SHARE = 0.001
#: ... and this many times what two levels just below it hold, on average over PILE_BELOW levels: a veil's
#: smooth summit spreads evenly (held-out renderer, hard light, development seeds 130M-131M as rendered: at
#: most 1.2 below white), a clipped core darkened after clipping stands 2.3-20 times over (the same, darkened)
PILE_SPIKE = 2.0
PILE_BELOW = 10
#: the highest level holding PILE_SHARE lies at most this far above the core's own level: JPEG's overshoot
#: of a flat core (held-out renderer, "clipped": 4-5 levels); its thinner ringing reaches ABOVE_REACH
PILE_REACH = 8
#: ... with next to nothing above it beyond JPEG's spread (this share of the picture, counted from ABOVE_REACH
#: levels up): a camera keeps nothing brighter than where it clips, while a flat-coloured sleeve piles up with
#: the wood and glare above it (museum light, seeds 121,027,029 and 140,039,029: a pink sleeve's blue piled at
#: 175-223 with 0.05-0.5 % of the picture lying brighter, and the hand was read as a board)
PILE_ABOVE = 0.00005
#: JPEG's ringing round a core beside dark pieces reaches past PILE_REACH: the held-out renderer's "clipped"
#: stress, fresh seeds 145,036,017 and 145,051,017, cores at 186 and 206 with 0.01-0.3 % of the picture up to
#: 16 levels above and under 0.004 % beyond (both were "hand over board")
ABOVE_REACH = 2 * PILE_REACH
#: a ceiling at or above this level is white already: the picture is left alone
WHITE_ENOUGH = 250
#: every other pixel is enough to find a pile-up of a few hundred pixels
SUBSAMPLE = 2


def channel_ceiling(counts: np.ndarray) -> int | None:
    """The level one channel's clipped pixels pile up on, or None where they pile up nowhere; `counts`
    (256,) is the channel's histogram (histograms).

    The pile is the fullest level among the PILE_REACH levels below the highest level that holds
    PILE_SHARE of the picture: JPEG spreads a flat core a few levels either way, so the highest levels
    held are its overshoot, not its level."""
    total = counts.sum()
    heavy = np.nonzero(counts >= PILE_SHARE * total)[0]
    if len(heavy) == 0:
        return None
    high = int(heavy.max())
    low = max(high - PILE_REACH, 0)
    top = low + int(np.argmax(counts[low:high + 1]))
    if counts[top + ABOVE_REACH + 1:].sum() > PILE_ABOVE * total:
        return None                     # the picture goes on above it: a flat colour (a sleeve), not a ceiling
    neighbours = [counts[t] for t in (top - 1, top + 1) if 0 <= t <= 255]
    pile = counts[top] + max(neighbours)                # with the fuller of its two neighbours (JPEG's spread)
    below = counts[max(top - 2 - PILE_BELOW, 0):max(top - 2, 0)]
    usual = 2.0 * float(below.mean()) if len(below) else 0.0
    return top if pile >= PILE_SPIKE * max(usual, 1.0) else None


def histograms(picture: np.ndarray) -> np.ndarray:
    """(channels, 256) each channel's histogram over every SUBSAMPLE-th pixel (float64 counts).

    WHY each channel's taken pixels copied out whole and counted by OpenCV: a channel of an interleaved
    picture is strided, and numpy's bincount of it copied the whole channel first (1 ms a 576 px board
    of the 30 a frame may take, issue 15); the counts are the same whole numbers, in a third of the time."""
    pixels = picture.reshape(-1, picture.shape[2])[::SUBSAMPLE]
    return np.stack([cv2.calcHist([np.ascontiguousarray(pixels[:, c])], [0], None, [256], [0, 256]).ravel()
                     for c in range(picture.shape[2])]).astype(np.float64)


def ceilings(picture: np.ndarray) -> np.ndarray | None:
    """(3,) each channel's clipping level where one piles up below white (others take the highest found),
    or None where the picture clips at white or nowhere."""
    found = [channel_ceiling(counts) for counts in histograms(picture)]
    levels = [c for c in found if c is not None]
    if not levels or min(levels) >= WHITE_ENOUGH:
        return None
    top = max(levels)
    return np.array([c if c is not None else top for c in found], np.float32)


def full_scale(picture: np.ndarray) -> np.ndarray:
    """`picture` (BGR, uint8) scaled so each channel's clipping level is white again; as it is where the
    picture clips at white already or nowhere."""
    levels = ceilings(picture)
    if levels is None:
        return picture
    gain = 255.0 / np.maximum(levels, 1.0)
    return cv2.transform(picture, np.diag(gain).astype(np.float32))     # rounded, and saturated at 255
