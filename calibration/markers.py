"""The ArUco detector for the board's frame markers: one construction for everyone.

WHY here: the kiosk reads the board with vision/localise.py and staff check
the board with calibration/board_check.py; both must find the markers with
the same detector, or the check measures something the kiosk does not see.
`calibration` may not import `vision` (docs/architecture.md), so the
detector lives on this side and vision uses it.

The markers' cells are small at the reference camera's distance (3-5 px)
and softened by the lens and JPEG; OpenCV's defaults (4 px per cell, 13 % of
each cell ignored at its border) let the neighbouring cells' ink decide a
bit. Sampling each cell finer and only its middle 40 % keeps small, soft
markers readable. Corners are refined to sub-pixel precision: the
homography rests on them.
"""
from __future__ import annotations

import cv2

# Adaptive-threshold windows (pixels): the full search tries 5, 15 and 25;
# the quick search one window only, suiting the cells at the reference
# camera's distance: a third of the work, and it finds all four markers in
# nearly every frame.
FULL_WINDOWS = (5, 25, 10)              # min, max, step
QUICK_THRESHOLD_WINDOW = 13
BIT_PIXELS_PER_CELL = 8
BIT_IGNORED_MARGIN = 0.3
# The soft search (vision/localise.py, only for a marker the others missed, on
# a 2x magnified, unsharp-masked picture): in dim light with sensor noise,
# blur and JPEG a 30 mm marker's cells are 3-4 px and a bit or two comes out
# wrong, so the code is read with the dictionary's whole error correction
# (errorCorrectionRate 1.0 instead of OpenCV's 0.6), and the magnified cells
# (6-8 px) want threshold windows from 7 to 43 px. The marker must also lie
# where the others put it, which the wider correction alone does not ensure.
SOFT_WINDOWS = (7, 43, 6)
SOFT_ERROR_CORRECTION = 1.0
# The near search (vision/localise.py, a crop round each marker's last place,
# three marker widths across): OpenCV's smallest candidate outline is 3 % of
# the picture's larger side, which on such a crop is 3 px, so wood grain and
# piece edges give dozens of candidates that each get their bits read (up to
# 9 ms a crop in glare). The marker itself spans about 4/3 of the crop's side
# in perimeter; asking for half the side rejects only outlines under 3/8 of
# the marker's last size and leaves the reading unchanged.
NEAR_MIN_PERIMETER_RATE = 0.5


def dictionary(name: str):
    """The ArUco dictionary named in the config (e.g. "DICT_4X4_50"); ValueError for an unknown name."""
    if not name.startswith("DICT_") or not hasattr(cv2.aruco, name):
        raise ValueError(f"unknown ArUco dictionary {name!r}")
    return cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, name))


def detector_parameters(window_min: int, window_max: int, window_step: int = 10):
    params = cv2.aruco.DetectorParameters()
    params.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_SUBPIX
    params.adaptiveThreshWinSizeMin = window_min
    params.adaptiveThreshWinSizeMax = window_max
    params.adaptiveThreshWinSizeStep = window_step
    params.perspectiveRemovePixelPerCell = BIT_PIXELS_PER_CELL
    params.perspectiveRemoveIgnoredMarginPerCell = BIT_IGNORED_MARGIN
    return params


def marker_detector(dictionary_name: str, quick: bool = False, soft: bool = False,
                    near: bool = False) -> "cv2.aruco.ArucoDetector":
    """The board's marker detector: the full three-window search, or with `quick` the one-window one.

    `soft` is the search for a marker the others missed in a dim, soft frame
    (SOFT_WINDOWS, full error correction); its finds need checking in place.
    `near` is the quick search on a crop round a marker's last place, which
    ignores outlines much smaller than that marker (NEAR_MIN_PERIMETER_RATE).
    """
    if soft:
        params = detector_parameters(*SOFT_WINDOWS)
        params.errorCorrectionRate = SOFT_ERROR_CORRECTION
        return cv2.aruco.ArucoDetector(dictionary(dictionary_name), params)
    windows = (QUICK_THRESHOLD_WINDOW, QUICK_THRESHOLD_WINDOW, 10) if quick or near else FULL_WINDOWS
    params = detector_parameters(*windows)
    if near:
        params.minMarkerPerimeterRate = NEAR_MIN_PERIMETER_RATE
    return cv2.aruco.ArucoDetector(dictionary(dictionary_name), params)
