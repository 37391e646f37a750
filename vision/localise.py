"""Where the board is in a frame: the four ArUco markers, a homography, the camera's position.

Every frame is located afresh from the markers (the camera or the table may
be bumped at any time). All 16 marker corners feed one homography from board
millimetres to image pixels. The camera's centre in board millimetres is
recovered too, because pieces have height: the top of a piece seen under
tilt sits off its square's centre in the rectified picture, and the
classifier samples where the top really appears.
"""
from __future__ import annotations

import itertools
import logging
import math
from collections.abc import Container
from dataclasses import dataclass
from typing import Callable

import cv2
import numpy as np

from calibration.config import CameraConfig, MarkerConfig
from calibration import markers as markers_module
from calibration.geometry import BoardGeometry
from vision.lens_fit import GridLensFitter, LensFit
from vision.rectify import lens_distort

log = logging.getLogger("vision.lens")

# The detector itself (threshold windows, how the bits are read) is
# calibration/markers.py, shared with the staff's board check.
BIT_IGNORED_MARGIN = markers_module.BIT_IGNORED_MARGIN
# Checking a marker in place (BoardLocaliser._verify_at): grey levels between
# its black border and white quiet zone, the normalised correlation with its
# own pattern, and the code bits (of 16) allowed off.
MIN_CELL_CONTRAST = 25.0
MIN_MATCH = 0.75
MAX_BIT_ERRORS = 2
# The marker's black square seen where the other three put it, its code
# unreadable (BoardLocaliser._dark_square_at): how far its corners may lie
# from the predicted quad's once it is slid and scaled onto it (in marker
# sides: its shape and turn must agree), how far it may be slid (the
# uncalibrated lens bends the far corner's prediction) and scaled (blur and
# the threshold move a small square's outline).
SQUARE_FIT = 0.12
SQUARE_SLIDE = 1.5
SQUARE_SCALE = 1.25
# ... and its 16 code cells, too blurred to read bit by bit, must still follow
# its own code: their correlation with it at least this, and this much more
# than with the code turned (a plain or skin-coloured cover correlates with nothing).
CODE_CORRELATION = 0.5
CODE_MARGIN = 0.2
# The marker's whole picture fitted where the others put it (BoardLocaliser._fit_at), the last
# look: its code too blurred for bits and its outline too soft for a candidate. How far its
# centre may lie from the prediction (marker sides; two markers, both on one side of the board,
# predict the others by up to four sides off under the uncalibrated lens, three by up to 1.5), the
# scales tried (two markers get a far corner's size wrong by up to a quarter, three by a tenth), the template's
# blur (in cells: the camera's blur and motion), the match with its own picture on its light
# ring, and the light ring over the black border on each of the four sides (grey levels: a dim
# frame leaves 20-40).
FIT_SLIDE_THREE = 2.0
FIT_SLIDE_TWO = 5.0
FIT_SCALES_TWO = (0.8, 0.9, 1.0, 1.12, 1.25)
FIT_SCALES_THREE = (0.9, 1.0, 1.12)
FIT_BLUR_CELLS = 0.6
FIT_MATCH = 0.8
FIT_RING_CONTRAST = 12.0
# An uncalibrated lens is fitted from the grid (vision/lens_fit.py) on the first LENS_FITS frames whose markers
# are found, and the median k1 of those kept: one frame's fit may be off where a hand hides half the lines. The
# fits start again when the markers lie LENS_POSE_PX (median over the 16 corners) from where they were at the
# first: another camera, or this one bumped (its focal length, estimated from the pose, goes with the fit).
# A fit is used only where it moves some grid crossing by LENS_MIN_SHIFT_PX or more from where the markers'
# homography puts it: the reader's samples take up a pixel or two (a line is looked for in three bands 3 px
# across) and its thresholds were set on such frames, while one fit is good to about half a pixel. On the held-out
# renderer's hard frames (12M, 29 located) the grid lay at most 1.55 px off on average, 1.02 with the fit, never
# worse; but used from 2 px, the fit turned tuned readings there (a hand-free frame, 98,043,017, refused as a hand).
# The simulation's cameras that read 5 to 22 squares wrong in 15 hard-light frames (seeds 10-69) move it 2.9-4.9 px.
LENS_FITS = 3
LENS_POSE_PX = 8.0
LENS_MIN_SHIFT_PX = 3.0
# Tracking (`_search_near`): the markers found again may have moved by this many of their widths
# since the last frame (sensor noise moves a refined corner by well under a pixel; a bumped board
# by more) for the last frame's places to stand for the missed ones, and a missed one found round
# its last place must lie within this many widths of it.
TRACK_MOVED = 0.15
TRACK_SLIDE = 0.5
# A still board (`_still`): each marker's picture, with STILL_MARGIN of its width round it, as it
# was when the markers were last found; a frame whose four patches match those (normalised
# correlation at least STILL_MATCH, best at no shift among shifts of up to STILL_SHIFT px)
# keeps those places. A patch flatter than STILL_CONTRAST grey levels (std)
# has nothing to match on.
STILL_MARGIN = 0.25
STILL_MATCH = 0.9
STILL_SHIFT = 2
STILL_CONTRAST = 8.0
# A covered marker (`_covered`): its patch, as it was when the markers were last found, matches the
# frame at its place no better than this (normalised correlation, best of the shifts). A hand or a bag
# over it leaves nothing of its pattern (near 0); dim light, noise and blur leave a marker's pattern
# correlating well above this, and a cover over part of its quiet zone leaves it above it too.
COVERED_MATCH = 0.5
# ... but every COVERED_RECHECK-th frame of a covered run is searched in full all the same (half a second at
# 30 fps): a marker whose patch no longer matches for another reason (light that changed over it) is found
# again by the full search, and its patch is taken afresh.
COVERED_RECHECK = 15
# A held marker (`_hold`): the one marker not found while the other three are where they were is taken at its
# last place if its place is at least HOLD_LIT times as bright as in its kept patch, against the others (a glare
# veil adds light). Museum-day scenes whose glare washed a marker out (hard light, 2,900 scenes of camera
# seeds 26 and 40-47 read in turn by one tracking reader): 1.43, 2.40 and 2.71; a dark cover (the
# renderer's hide_markers) 0.60; visitors' arms over a corner (held-out renderer, hard, seeds 110M, the
# same scene hand-free first): 0.66-1.41, each refused as a hand by the reader, held or not.
HOLD_LIT = 1.1
# One marker read and no other (`_search_unread`): the others are looked for among the marker-like squares the
# soft detector found but could not read. At most UNREAD_CANDIDATES of them, those nearest the read marker's
# size, and only within UNREAD_SIZE times its side (tilt and the far corner shrink a marker; a candidate may be
# its light ring's outline) and at least UNREAD_APART sides from it. Three taken for the missing markers fix,
# with the read one, a homography through the four centres that must put the read marker's corners within
# UNREAD_CORNERS of its side; two, with its four corners, one that must fit all six points within UNREAD_FIT.
# The UNREAD_TRIES best of each are checked marker by marker as a whole picture (`_fit_at`), nearest first.
UNREAD_CANDIDATES = 12
UNREAD_SIZE = (0.4, 2.5)
UNREAD_APART = 3.0
UNREAD_CORNERS = 0.15
UNREAD_FIT = 0.1
UNREAD_TRIES = 3


class NotReadable(Exception):
    """The board cannot be read in this frame; the message says why, for the visitor and the log.

    `picture`: where the board was found, its rectified picture (grey), so that the stability tracker
    can tell a refusal in a picture that has not changed from a hand coming in
    (vision/stability.StabilityTracker.unchanged); None where no board was found.
    `glare_only`: a "hand over board" that rests on nothing but crossings hidden where the picture is
    nearly white (vision/occlusion.GridChecker.occluded, `trusted`): glare may be all it is, and the
    visitor may say so (vision/reader.BoardReader.hands_off).
    `scene`: where no board was found (too dark, a corner marker not found), the whole frame in grey,
    so that a refusal that stays (a bag on a corner, the room's light switched off) can be told from a
    hand, which moves (vision/stability.StabilityTracker.refused_still_since); None where `picture` is
    given or the reader had no frame.
    """

    def __init__(self, reason: str, picture: np.ndarray | None = None, glare_only: bool = False,
                 scene: np.ndarray | None = None) -> None:
        super().__init__(reason)
        self.picture = picture
        self.glare_only = glare_only
        self.scene = scene


#: how a NotReadable message starts when the board's pose was lost (a corner marker not found or
#: not where the others say), not because anything was seen over the board
MARKERS_LOST = "markers not found"


def pose_lost(reason: str | None) -> bool:
    """True when a NotReadable reason only says the board's pose was lost (see MARKERS_LOST)."""
    return (reason or "").startswith(MARKERS_LOST)


@dataclass(frozen=True)
class BoardView:
    """One frame's board pose."""

    H: np.ndarray                 # undistorted image pixels from board mm (z = 0)
    camera_center: np.ndarray     # board mm; z is the height above the board
    marker_corners: dict[int, np.ndarray]
    reprojection_px: float        # RMS of the 16 corners through H
    K: np.ndarray | None = None   # the lens H is undistorted for (configured or fitted from the grid), if any
    dist: np.ndarray | None = None
    held: tuple[int, ...] = ()    # a marker not found in this frame, taken where it was (BoardLocaliser._hold)

    def to_image(self, mm: np.ndarray) -> np.ndarray:
        """Board points (mm, z = 0) -> pixels of the frame as the lens shows them."""
        ideal = cv2.perspectiveTransform(np.asarray(mm, np.float64).reshape(-1, 1, 2), self.H).reshape(-1, 2)
        if self.K is None or self.dist is None or not np.any(self.dist):
            return ideal
        return lens_distort(ideal, self.K, self.dist)


class BoardLocaliser:
    """Finds the markers and the board's pose in a frame."""

    def __init__(self, geometry: BoardGeometry, markers: MarkerConfig, camera: CameraConfig):
        self.geometry = geometry
        self.markers = markers
        self._dictionary = markers_module.dictionary(markers.dictionary)
        self._templates: dict[int, list[np.ndarray]] = {}
        self._pictures: dict[tuple[int, int], np.ndarray] = {}
        self.detector = markers_module.marker_detector(markers.dictionary)
        # one threshold window instead of three first; the full search only when it misses a marker
        self.quick_detector = markers_module.marker_detector(markers.dictionary, quick=True)
        # the quick search on a crop round a marker's last place (`_detect_near`)
        self.near_detector = markers_module.marker_detector(markers.dictionary, near=True)
        # the last resort for a marker the others missed in dim, soft light (`_search_soft`)
        self.soft_detector = markers_module.marker_detector(markers.dictionary, soft=True)
        self.K = np.array(camera.camera_matrix, np.float64) if camera.camera_matrix else None
        self.dist = np.array(camera.distortion, np.float64) if camera.distortion else None
        # with no lens calibration configured, K and dist are fitted from the grid instead (`_fit_lens`)
        self._fitter = None if self.K is not None else GridLensFitter(geometry)
        self._lens_fits: list[LensFit] = []
        self._lens_pose: np.ndarray | None = None
        # Used only when the camera is not calibrated and the view is too straight
        # for the focal length to follow from the homography; it only scales the
        # small correction for the pieces' height.
        self.distance_mm = float(camera.distance_mm)
        self.board_points = {mid: np.array(geometry.marker_corners(i), np.float64)
                             for i, mid in enumerate(markers.ids)}
        self._previous: dict | None = None
        self._covered_run = 0           # frames refused in a row as covered (`_covered`), without a full search

    @property
    def calibrated(self) -> bool:
        """A lens calibration is configured (calibration/lens.py), not merely fitted from the grid."""
        return self._fitter is None

    def detect(self, gray: np.ndarray, quick: bool = False, soft: bool = False,
               near: bool = False) -> dict[int, np.ndarray]:
        """Marker id -> its 4 corners (pixels, ArUco order) for the board's ids.

        `quick` thresholds the picture at one window size only, `soft` reads
        the bits with the dictionary's whole error correction, `near` is the
        quick search on a crop round one marker (calibration/markers.py).
        """
        detector = (self.soft_detector if soft else self.near_detector if near
                    else self.quick_detector if quick else self.detector)
        return self._detections(gray, detector)[0]

    def _detections(self, gray: np.ndarray, detector: cv2.aruco.ArucoDetector
                    ) -> tuple[dict[int, np.ndarray], list[np.ndarray]]:
        """`detect`'s markers, and the marker-like squares the detector outlined but could not read
        (`_search_unread`), each as 4 corners in pixels."""
        corners, ids, rejected = detector.detectMarkers(gray)
        found: dict[int, np.ndarray] = {}
        for c, raw_id in zip(corners, () if ids is None else ids.ravel()):
            i = int(raw_id)
            if i in self.board_points and i not in found:
                found[i] = c.reshape(4, 2).astype(np.float64)
        return found, [q.reshape(4, 2).astype(np.float64) for q in rejected]

    def _search_missing(self, gray: np.ndarray, found: dict[int, np.ndarray],
                        finder: Callable[[np.ndarray, int, np.ndarray, int], np.ndarray | None] | None = None) -> None:
        """Look again, magnified, where the markers already found say a missing one must be.

        Small, blurred or dim markers (far corner under tilt, heavy JPEG) are
        often lost by the whole-frame pass but found in a 2x crop; failing
        that, a marker is checked in place (`_verify_at`). Each marker found
        sharpens the prediction of the next, so the search repeats while it
        finds more. `finder(gray, id, predicted quad, markers known)` is how
        each is looked for (default `_find_magnified`; `_find_soft`, `_fit_at`).
        """
        finder = finder or self._find_magnified
        tried: set[tuple[int, int]] = set()
        while 2 <= len(found) < len(self.markers.ids):
            src = np.vstack([self.board_points[i] for i in found])
            dst = np.vstack([found[i] for i in found])
            H, _ = cv2.findHomography(src, dst, 0)
            if H is None:
                return
            progress = False
            for mid in self.markers.ids:
                if mid in found or (mid, len(found)) in tried:
                    continue
                tried.add((mid, len(found)))
                quad = _project(H, self.board_points[mid])
                seen = finder(gray, mid, quad, len(found))
                if seen is None:
                    continue
                found[mid] = seen
                progress = True
                break                     # a better homography for the rest
            if not progress:
                return

    @staticmethod
    def _crop_round(gray: np.ndarray, quad: np.ndarray, reach: float = 1.0) -> tuple[np.ndarray, np.ndarray, float] | None:
        """The picture round a predicted marker (`reach` marker widths each side), its offset and the marker's width."""
        h, w = gray.shape[:2]
        side = _side(quad)
        x0, y0 = (quad.min(0) - reach * side).astype(int)
        x1, y1 = (quad.max(0) + reach * side).astype(int)
        x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, w), min(y1, h)
        if x1 - x0 < 8 or y1 - y0 < 8:
            return None
        return gray[y0:y1, x0:x1], np.array([x0, y0], np.float64), side

    def _find_magnified(self, gray: np.ndarray, mid: int, quad: np.ndarray, known: int) -> np.ndarray | None:
        """Marker `mid` in a 2x crop round its prediction, else checked in place (`_verify_at`)."""
        cropped = self._crop_round(gray, quad)
        if cropped is None:
            return None
        crop, offset, _ = cropped
        more = self.detect(cv2.resize(crop, None, fx=2, fy=2, interpolation=cv2.INTER_CUBIC))
        if mid in more:
            return more[mid] / 2 + offset
        return self._verify_at(gray, mid, quad, reach=2.0 if known >= 3 else 3.5)

    def _find_soft(self, gray: np.ndarray, mid: int, quad: np.ndarray, known: int) -> np.ndarray | None:
        """Marker `mid` by the soft detector on the softened crop round its prediction, and only there;
        else checked in place on that crop, else (three markers found) its dark square (`_dark_square_at`).

        Two markers predict the others less well than three (by more than a
        marker's width under the uncalibrated lens): the crop then reaches
        twice as far."""
        cropped = self._crop_round(gray, quad, 1.0 if known >= 3 else 2.0)
        if cropped is None:
            return None
        crop, offset, side = _soften(cropped[0]), cropped[1], cropped[2]
        more = self.detect(crop, soft=True)
        # two markers predict the others less well than three
        if mid in more and np.linalg.norm(more[mid].mean(0) / 2 + offset - quad.mean(0)) <= side * (0.75 if known >= 3 else 1.5):
            return more[mid] / 2 + offset
        checked = self._verify_at(crop, mid, (quad - offset) * 2, reach=2.0 if known >= 3 else 3.5)
        if checked is not None:
            return checked / 2 + offset
        return self._dark_square_at(gray, mid, quad) if known >= 3 else None

    def _dark_square_at(self, gray: np.ndarray, mid: int, quad: np.ndarray) -> np.ndarray | None:
        """The marker's black square where the other three markers put it, when its code cannot be read.

        The far marker in dim, blurred light is ~20 px, its 3 px code cells
        blurred together, but its outline still shows: the detector finds
        the dark square as a candidate and rejects it for its bits. Three
        markers fix where it must be; what is asked is only whether something
        covers it, and a cover cannot make this: a hand, a sleeve or a plain
        cover over the marker hides the dark square or its light ring, or
        joins the square to a dark region outside the ring. A candidate
        counts when, slid onto the prediction (by at most SQUARE_SLIDE sides:
        the uncalibrated lens) and scaled by at most SQUARE_SCALE, its four
        corners lie within SQUARE_FIT sides of the predicted ones (its shape
        and turn), and each of its four edges is dark just inside and light
        just outside by MIN_CELL_CONTRAST grey levels on the picture as taken
        (magnified, not sharpened: sharpening rings every dark edge with light),
        and its blurred code cells still follow the marker's own code
        (`_code_follows`: a plain dark patch has no code).
        """
        cropped = self._crop_round(gray, quad, 0.5 + SQUARE_SLIDE)
        if cropped is None:
            return None
        crop, offset = cropped[0], cropped[1]
        plain = cv2.resize(crop, None, fx=2, fy=2, interpolation=cv2.INTER_CUBIC)
        want = (quad - offset) * 2
        candidates = []
        for image, detector in ((plain, self.detector), (_soften(crop), self.soft_detector)):
            candidates += [c.reshape(4, 2).astype(np.float64) for c in detector.detectMarkers(image)[2]]
        for poly in candidates:
            corners = self._matched_corners(poly, want)
            if corners is not None and self._ringed(plain, corners) and self._code_follows(plain, corners, mid):
                return corners / 2 + offset
        return None

    def _code_follows(self, image: np.ndarray, corners: np.ndarray, mid: int) -> bool:
        """The blurred code cells inside the square still follow marker `mid`'s code, upright.

        The square is warped flat (8 px per cell) and the middle of each of
        its 16 code cells averaged; their correlation with the marker's own
        bits must reach CODE_CORRELATION and beat the code turned by CODE_MARGIN.
        """
        cell = 8
        side = 6 * cell
        flat = np.array([[0, 0], [side, 0], [side, side], [0, side]], np.float32)
        M = cv2.getPerspectiveTransform(corners.astype(np.float32), flat)
        patch = cv2.warpPerspective(image, M, (side, side), flags=cv2.INTER_LINEAR).astype(np.float32)
        m = int(round(cell * BIT_IGNORED_MARGIN))
        code = patch.reshape(6, cell, 6, cell)[1:5, m:cell - m, 1:5, m:cell - m].mean(axis=(1, 3))
        bits = self._code_bits(mid)
        a = code.ravel() - code.mean()
        if float(np.linalg.norm(a)) < 1e-6:
            return False

        def correlation(b: np.ndarray) -> float:
            v = b.ravel().astype(np.float64) - b.mean()
            return float(a @ v / (np.linalg.norm(a) * np.linalg.norm(v)))
        own = correlation(bits)
        turned = max(correlation(np.rot90(bits, r)) for r in (1, 2, 3))
        return own >= CODE_CORRELATION and own >= turned + CODE_MARGIN

    @staticmethod
    def _matched_corners(poly: np.ndarray, want: np.ndarray) -> np.ndarray | None:
        """`poly`'s corners in `want`'s order if, slid and scaled onto `want`, they fit it (shape, turn)."""
        side = float(np.linalg.norm(want - np.roll(want, -1, 0), axis=1).mean())
        size = float(np.linalg.norm(poly - np.roll(poly, -1, 0), axis=1).mean())
        centre, middle = want.mean(0), poly.mean(0)
        if side <= 0 or np.linalg.norm(middle - centre) > SQUARE_SLIDE * side \
                or not 1 / SQUARE_SCALE <= size / side <= SQUARE_SCALE:
            return None
        shape = (poly - middle) * (side / size) + centre
        best = None
        for start in range(4):
            for step in (1, -1):
                order = [(start + step * k) % 4 for k in range(4)]
                err = float(np.linalg.norm(shape[order] - want, axis=1).max())
                if best is None or err < best[0]:
                    best = (err, poly[order])
        assert best is not None
        return best[1] if best[0] <= SQUARE_FIT * side else None

    @staticmethod
    def _ringed(image: np.ndarray, corners: np.ndarray, contrast: float = MIN_CELL_CONTRAST) -> bool:
        """Across each edge of the square: dark on its inner side, light outside (its quiet zone).

        Along the middle of each edge, the darkest of three lines 0-1 cell
        inside against the lightest of three lines 0.5-1.5 cells outside
        (blur and the threshold move a small square's outline by a fraction
        of a cell either way), `contrast` grey levels apart.
        """
        centre = corners.mean(0)
        cell = float(np.linalg.norm(corners - np.roll(corners, -1, 0), axis=1).mean()) / 6
        h, w = image.shape[:2]
        t = np.linspace(0.2, 0.8, 9)[:, None]
        for a, b in zip(corners, np.roll(corners, -1, 0)):
            edge = a + t * (b - a)
            mid = (a + b) / 2
            out = (mid - centre) / max(float(np.linalg.norm(mid - centre)), 1e-6)
            level = []
            for d in (-1.0, -0.5, 0.0, 0.5, 1.0, 1.5):
                p = np.round(edge + d * cell * out).astype(int)
                if (p < 0).any() or (p[:, 0] >= w).any() or (p[:, 1] >= h).any():
                    return False
                level.append(float(np.median(image[p[:, 1], p[:, 0]])))
            if max(level[3:]) - min(level[:3]) < contrast:
                return False
        return True

    def _search_soft(self, gray: np.ndarray, found: dict[int, np.ndarray]) -> None:
        """The last look for missing markers in a dim, noisy, blurred frame.

        There a marker's cells are 3-4 px of a few grey levels under noise
        and JPEG: the picture is magnified 2x and unsharp-masked (the cells'
        edges back) and read by the soft detector, which corrects more bits.
        With two markers or more found, only round where they put a missing
        one (a few small crops), and a find counts only if it lies there
        (failing that, the marker is checked in place on the crop, `_verify_at`);
        with fewer, the whole frame once (slow, but only in such a frame),
        and then the rest as above. A marker a hand covers has no black
        border to find, so it stays missing.
        """
        if len(found) < 2:
            read, unread = self._detections(_soften(gray), self.soft_detector)
            for mid, quad in read.items():
                found.setdefault(mid, quad / 2)
            if len(found) == 1:
                self._search_unread(gray, found, [q / 2 for q in unread])
        self._search_missing(gray, found, self._find_soft)

    def _search_unread(self, gray: np.ndarray, found: dict[int, np.ndarray], unread: list[np.ndarray]) -> None:
        """With one marker read, the other three among the marker-like squares whose codes did not read.

        WHY: in a dim room under blur a marker far from the lamp may be the only one whose code reads; the
        others still show as a dark square on a light ring, which the detector outlines as a candidate and
        then drops, cells too soft to read (hard light, held-out renderer, seeds 123,058,017 and 125,004,017,
        each refused as "markers not found" for three of four). One marker alone cannot say where the others
        are (its corners are a few pixels apart, the board hundreds), and `_search_missing` needs two. But
        the four markers lie on the board as configured: three candidates taken for the missing ones, or two
        (the third then found where the others put it), must fit one homography with the read marker's own
        corners (UNREAD_CORNERS, UNREAD_FIT). A wood square, a piece or a sleeve's fold outlined as a
        candidate rarely does, and every marker so placed must then show its own code as a whole picture
        there (`_fit_at`: correlation, light ring, code cells), as a marker found from two others must. All
        four are taken or none (`found` unchanged); a hand over a marker hides its ring and code.
        """
        (known, quad), = found.items()
        side = _side(quad)
        near = [q for q in unread
                if UNREAD_SIZE[0] <= _side(q) / side <= UNREAD_SIZE[1]
                and np.linalg.norm(q.mean(0) - quad.mean(0)) >= UNREAD_APART * side]
        near.sort(key=lambda q: abs(math.log(_side(q) / side)))
        centres = np.array([q.mean(0) for q in near[:UNREAD_CANDIDATES]])
        missing = [m for m in self.markers.ids if m != known]
        board = {m: self.board_points[m].mean(0) for m in self.markers.ids}
        trios, pairs = [], []
        src = np.array([board[known]] + [board[m] for m in missing], np.float32)
        for pick in itertools.permutations(range(len(centres)), len(missing)):
            H = cv2.getPerspectiveTransform(src, np.vstack([quad.mean(0), centres[list(pick)]]).astype(np.float32))
            err = _fit_error(H, self.board_points[known], quad) / side
            if err <= UNREAD_CORNERS:
                trios.append((err, tuple(zip(missing, pick)), H))
        for a, b in itertools.combinations(missing, 2):
            src2 = np.vstack([self.board_points[known], board[a], board[b]])
            for i, j in itertools.permutations(range(len(centres)), 2):
                dst2 = np.vstack([quad, centres[i], centres[j]])
                H, _ = cv2.findHomography(src2, dst2, 0)
                if H is not None and (err := _fit_error(H, src2, dst2) / side) <= UNREAD_FIT:
                    pairs.append((err, ((a, i), (b, j)), H))
        trios.sort(key=lambda h: h[0])
        pairs.sort(key=lambda h: h[0])
        for _, placed, H in trios[:UNREAD_TRIES] + pairs[:UNREAD_TRIES]:
            trial = {known: quad}
            for mid, _ in placed:
                seen = self._fit_at(gray, mid, _project(H, self.board_points[mid]), 2)
                if seen is None:
                    break
                trial[mid] = seen
            else:
                self._search_missing(gray, trial, self._fit_at)
                if len(trial) == len(self.markers.ids):
                    found.update(trial)
                    return

    def _code_bits(self, mid: int) -> np.ndarray:
        """Marker `mid`'s 4 x 4 code, True for a white cell (what `_verify_at` and `_code_follows` compare with)."""
        return cv2.aruco.generateImageMarker(self._dictionary, int(mid), 6)[1:5, 1:5] > 127

    def _verify_at(self, gray: np.ndarray, mid: int, quad: np.ndarray, reach: float = 2.0) -> np.ndarray | None:
        """Marker `mid`'s corners if it shows, upright, about where the other three put it.

        Three markers fix the board's homography; the fourth is needed only to
        know that nothing (a hand) covers it. A marker too small or soft for
        the detector to find its outline can still be checked in place: the
        neighbourhood of the predicted square is warped flat (8 px per cell)
        and matched against the marker's own pattern on its white quiet zone,
        slid over +-3 (reach - 1) cells (the lens bends the prediction a little;
        two markers predict the others less well than three). It
        counts as seen when the match is strong and better than the marker
        turned, and its 16 code cells, read against its own black border and
        white quiet zone, are its code (at most MAX_BIT_ERRORS off) and
        clearly not its code turned.
        """
        cell = 8
        side = 6 * cell
        centre = quad.mean(0)
        span = int(round(reach * side))
        big = (quad - centre) * (span / side) + centre     # reach x 6 cells round the prediction
        dst = np.array([[0, 0], [span, 0], [span, span], [0, span]], np.float32)
        M = cv2.getPerspectiveTransform(big.astype(np.float32), dst)
        patch = cv2.warpPerspective(gray, M, (span, span), flags=cv2.INTER_LINEAR,
                                    borderMode=cv2.BORDER_REPLICATE)
        if float(patch.max()) - float(patch.min()) < MIN_CELL_CONTRAST:
            return None
        templates = self._templates.get(mid)
        if templates is None:
            bits = cv2.aruco.generateImageMarker(self._dictionary, int(mid), side)
            framed = cv2.copyMakeBorder(bits, cell, cell, cell, cell, cv2.BORDER_CONSTANT, value=255)
            framed = cv2.GaussianBlur(framed, (0, 0), cell * 0.35)
            templates = self._templates[mid] = [np.ascontiguousarray(np.rot90(framed, r)) for r in range(4)]
        scores = []
        for t in templates:
            res = cv2.matchTemplate(patch, t, cv2.TM_CCOEFF_NORMED)
            _, best, _, loc = cv2.minMaxLoc(res)
            scores.append((best, loc))
        own, loc = scores[0]
        if own < MIN_MATCH or own <= max(sc for sc, _ in scores[1:]):
            return None
        x, y = loc[0] + cell, loc[1] + cell
        # the 4 x 4 code itself, cell by cell, against black (its border) and white (the quiet zone)
        m = int(round(cell * BIT_IGNORED_MARGIN))
        grid = patch[y - cell:y + side + cell, x - cell:x + side + cell].astype(np.float32)
        cells = grid.reshape(8, cell, 8, cell)[:, m:cell - m, :, m:cell - m].mean(axis=(1, 3))
        ring = np.ones((8, 8), bool)
        ring[1:7, 1:7] = False
        border = np.ones((6, 6), bool)
        border[1:5, 1:5] = False
        white, black = float(np.median(cells[ring])), float(np.median(cells[1:7, 1:7][border]))
        if white - black < MIN_CELL_CONTRAST:
            return None
        code = cells[2:6, 2:6] > (white + black) / 2
        want = self._code_bits(mid)
        errors = int((code != want).sum())
        turned = min(int((code != np.rot90(want, r)).sum()) for r in (1, 2, 3))
        if errors > MAX_BIT_ERRORS or turned <= errors + 2:
            return None
        return _square_in_picture(M, x, y, side)

    def _fit_at(self, gray: np.ndarray, mid: int, quad: np.ndarray, known: int) -> np.ndarray | None:
        """Marker `mid` fitted as a whole picture about where the others put it, when nothing else finds it.

        A small marker in dim light under blur and motion (15-20 px, cells
        of 2.5-3.5 px) may leave neither an outline the detector takes as a
        candidate nor bits that read: its code cells turn grey between its
        black border and light ring. The whole marker still shows: the
        neighbourhood of the prediction is warped flat and matched against
        the marker's own picture (its code, black border and light ring,
        blurred by FIT_BLUR_CELLS) within FIT_SLIDE_THREE sides of the
        prediction at the scales FIT_SCALES_THREE, or with two markers known
        FIT_SLIDE_TWO sides at FIT_SCALES_TWO (coarse, then finely round the best).
        It counts when that match (a veil's slope of light taken off,
        `_correlation_level`) reaches FIT_MATCH, its light ring stands
        FIT_RING_CONTRAST above its black border across each edge (`_ringed`),
        and its blurred code cells follow its own code upright (`_code_follows`).
        A hand or a cover hides the ring or the code; a marker of another
        code does not follow this one.
        """
        slide, scales = (FIT_SLIDE_THREE, FIT_SCALES_THREE) if known >= 3 else (FIT_SLIDE_TWO, FIT_SCALES_TWO)
        coarse = [self._match_picture(gray, mid, (quad - quad.mean(0)) * s + quad.mean(0), slide, cell=4)
                  for s in scales]
        rough = max((c for c in coarse if c is not None), key=lambda c: c[0], default=None)
        best = None if rough is None else self._match_picture(gray, mid, rough[1], 0.5, cell=8)
        if best is None or best[0] < FIT_MATCH:
            return None
        corners = best[1]
        side = float(np.linalg.norm(corners - np.roll(corners, -1, 0), axis=1).mean())
        if side < 6:
            return None
        cropped = self._crop_round(gray, corners, 1.0)
        if cropped is None:
            return None
        crop, offset = cropped[0], cropped[1]
        plain = cv2.resize(crop, None, fx=2, fy=2, interpolation=cv2.INTER_CUBIC)
        inside = (corners - offset) * 2
        if not self._ringed(plain, inside, FIT_RING_CONTRAST) or not self._code_follows(plain, inside, mid):
            return None
        return corners

    def _match_picture(self, gray: np.ndarray, mid: int, quad: np.ndarray, slide: float,
                       cell: int) -> tuple[float, np.ndarray] | None:
        """The best match of marker `mid`'s blurred picture within `slide` sides of `quad`: (score, its corners).

        The picture is warped so that `quad` is `cell` px per marker cell,
        flat; the template is the marker on one cell of its light ring.
        """
        side = 6 * cell
        centre = quad.mean(0)
        span = int(round(side + 2 * (slide + 1 / 6) * side))
        big = (quad - centre) * (span / side) + centre
        dst = np.array([[0, 0], [span, 0], [span, span], [0, span]], np.float32)
        M = cv2.getPerspectiveTransform(big.astype(np.float32), dst)
        patch = cv2.warpPerspective(gray, M, (span, span), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
        key = (mid, cell)
        template = self._pictures.get(key)
        if template is None:
            bits = cv2.aruco.generateImageMarker(self._dictionary, int(mid), side)
            framed = cv2.copyMakeBorder(bits, cell, cell, cell, cell, cv2.BORDER_CONSTANT, value=255)
            template = self._pictures[key] = cv2.GaussianBlur(framed, (0, 0), cell * FIT_BLUR_CELLS)
        if float(patch.max()) - float(patch.min()) < FIT_RING_CONTRAST:
            return None
        res = cv2.matchTemplate(patch, template, cv2.TM_CCOEFF_NORMED)
        _, _, _, loc = cv2.minMaxLoc(res)
        x, y = loc[0] + cell, loc[1] + cell
        size = template.shape[0]
        score = _correlation_level(patch[loc[1]:loc[1] + size, loc[0]:loc[0] + size], template)
        return float(score), _square_in_picture(M, x, y, side)

    @staticmethod
    def _still(gray: np.ndarray, patches: dict[int, tuple[int, int, np.ndarray]]) -> bool:
        """True when every marker's picture is where it was when the markers were last found.

        The camera is mounted and the board lies still most of a game: then
        the markers' places found in an earlier frame stand, and searching
        for them again (a sixth of a dim frame's reading time) would only
        add the sensor's noise to their corners. Each marker's patch, as it
        was when the markers were last found (not the last frame's: a slow
        drift must not be followed a little each frame), is matched at
        shifts of up to STILL_SHIFT pixels; the best match must be at no
        shift, and at least STILL_MATCH. A hand over a marker, a bumped
        board or camera fails it and the markers are searched afresh.
        Light that changes evenly over a patch (a passing shadow) does not:
        the correlation is normalised.
        """
        if len(patches) == 0:
            return False
        for place in patches.values():
            match = _patch_match(gray, place)
            if match is None or match[0] < STILL_MATCH or match[1] != (STILL_SHIFT, STILL_SHIFT):
                return False
        return True

    def _covered(self, found: dict[int, np.ndarray], gone: Container[int]) -> list[int]:
        """The markers not found that something covers, while the ones found are where they were: each
        missing marker is among those `gone`, whose patch, as it was when the markers were last found,
        matches the frame at its place no better than COVERED_MATCH (`_pattern_gone`). Empty when fewer
        than two were found, when any found marker moved (TRACK_MOVED), when a missing one still shows its
        pattern, or when no patches were kept (a board too flat to match).

        WHY: the board is rigid, so the markers found in their places put the others in theirs too; if
        a marker's pattern is gone from there, something lies over it, and the whole-frame search (magnified,
        unsharp-masked, soft, fitted: 70 ms a frame here, three times a readable frame's time) cannot
        find it anywhere else. A visitor's hand resting on a corner, or a bag left on it, kept the
        camera thread that slow for as long as it stayed. A marker merely dim, soft or noisy keeps its
        pattern and is searched for as before.
        """
        previous = self._previous
        if previous is None or len(found) < 2 or len(found) == len(self.markers.ids):
            return []                   # (two markers in place pin a rigid board; one does not)
        if any(mid not in previous["patches"] for mid in self.markers.ids) or not _unmoved(found, previous["quads"]):
            return []
        missing = [mid for mid in self.markers.ids if mid not in found]
        return missing if all(mid in gone for mid in missing) else []

    def _hold(self, gray: np.ndarray, found: dict[int, np.ndarray]) -> list[int]:
        """The one marker not found, put back at its last place (`found` gains it) where the three found
        lie where they were (TRACK_MOVED) and its place has taken light (HOLD_LIT); else nothing.

        WHY: the board is rigid and the camera mounted, so three markers unmoved put the fourth where it
        was. Hard-light museum days lost visitors' games to one marker that a lamp's glare washed out in
        a still scene: the pose was refused frame after frame and the robot's move waited for staff,
        while the squares could be read. Only light is held, though: a bag or a coat that darkens a
        marker may reach onto the corner square too (a dark lump read as a piece there), and is refused
        as before. A hand held this way is refused by the reader's occlusion rules (vision/reader.py),
        which see the arm over the frame band and the squares. Two markers missing are not held: two
        do not pin a board, and a hand is likelier.
        """
        previous = self._previous
        missing = [mid for mid in self.markers.ids if mid not in found]
        if previous is None or len(missing) != 1 or missing[0] not in previous["quads"]:
            return []
        if not _unmoved(found, previous["quads"]) or _lit(gray, previous["patches"], missing[0]) < HOLD_LIT:
            return []
        found[missing[0]] = previous["quads"][missing[0]]
        return missing

    def _detect_near(self, gray: np.ndarray, previous: dict[int, np.ndarray]) -> dict[int, np.ndarray]:
        """Markers looked for only around where they were in the last frame (the camera is mounted)."""
        h, w = gray.shape[:2]
        found: dict[int, np.ndarray] = {}
        for mid, quad in previous.items():
            side = _side(quad)
            x0, y0 = np.maximum((quad.min(0) - side).astype(int), 0)
            x1, y1 = (quad.max(0) + side).astype(int)
            x1, y1 = min(x1, w), min(y1, h)
            if x1 - x0 < 8 or y1 - y0 < 8:
                continue
            more = self.detect(gray[y0:y1, x0:x1], near=True)
            if mid in more:
                found[mid] = more[mid] + np.array([x0, y0], np.float64)
        return found

    def _search_near(self, gray: np.ndarray, found: dict[int, np.ndarray], previous: dict[int, np.ndarray],
                     gone: Container[int] = ()) -> None:
        """Each marker the near search missed, looked for where it was in the last frame, and only there,
        unless its pattern is `gone` from there (`_pattern_gone`: something lies over it, `_covered`).

        In dim, soft light one or two markers are found only by the magnified
        or the soft search, every frame; without this each tracked frame would
        search the whole frame three ways first (the p95 of the kiosk's time
        per frame in hard light). The camera is mounted, so the last frame's
        place predicts a marker at least as well as three markers found now
        do, provided the markers found now have not moved (TRACK_MOVED sides):
        a bumped board or camera goes to the whole-frame search. A find counts
        only within TRACK_SLIDE sides of the last place. It runs before the
        covered markers are judged (`_covered` needs two found to pin the
        board), and tries every marker, not only those before the first one
        missed: a visitor's arm over one corner sent the dim ones to the
        whole-frame search, 45-180 ms a frame in hard light (confirm_latency
        hard 154M), which found them at their last places.
        """
        if not found or not _unmoved(found, previous):
            return
        known = 3           # the last frame's places predict as well as three markers found now
        for mid in self.markers.ids:
            if mid in found or mid in gone:
                continue
            quad = previous[mid]
            for finder in (self._find_magnified, self._find_soft):
                seen = finder(gray, mid, quad, known)
                if seen is not None and np.linalg.norm(seen.mean(0) - quad.mean(0)) <= TRACK_SLIDE * _side(quad):
                    found[mid] = seen
                    break

    def locate(self, gray: np.ndarray, track: bool = True) -> BoardView:
        """The board's pose in this frame; raises NotReadable.

        With `track`, a still board keeps the places its markers were last
        found at (`_still`: each marker's picture matches where it was);
        else the markers are first looked for near their places in
        the previous frame (a few small crops instead of the whole frame),
        and each one missed there whose pattern still shows at its place
        round that place (`_search_near`); a marker still missing whose
        pattern is gone from its place while the others are in theirs is
        covered: one covered marker is held where it was (`_hold`), more
        refuse the frame at once (`_covered`; every COVERED_RECHECK-th such
        frame goes on to the full search all the same);
        the whole frame is searched when that does not find all four: with
        one threshold window first, with all three when that misses a marker;
        then a missing marker is looked for where the others put it
        (`_search_missing`, on the frame and unsharp-masked, `_search_soft`,
        and last `_fit_at`, its whole picture). A marker still missing is
        held where it was if the three found have not moved (`_hold`: the
        view's `held`); otherwise the frame is refused (MARKERS_LOST),
        whatever hides it. The places the four were last found at are kept
        through refusals (the camera is mounted): the frame after a visitor
        stands back is tracked, not searched afresh, and a frame refused
        while an arm lies over a corner is refused at the cost of the crops.
        """
        found: dict[int, np.ndarray] = {}
        anchor = None
        covered: list[int] = []
        gone: set[int] = set()
        held: list[int] = []
        last = self._previous if track and self._previous and self._previous.get("shape") == gray.shape else None
        if last is not None:
            if self._still(gray, last["patches"]):
                found, anchor = dict(last["quads"]), last["patches"]
            else:
                found = self._detect_near(gray, last["quads"])
                # (each missing marker's kept picture matched once, for the near search and the covered test)
                gone = {mid for mid in self.markers.ids if mid not in found and _pattern_gone(gray, last["patches"], mid)}
                if len(found) < len(self.markers.ids):
                    self._search_near(gray, found, last["quads"], gone)
            covered = self._covered(found, gone)
            if covered and self._covered_run < COVERED_RECHECK:
                # (the last places are kept: the frame after the cover is lifted is tracked again)
                self._covered_run += 1
                held = self._hold(gray, found)
                if not held:
                    raise NotReadable(f"{MARKERS_LOST}: " + ", ".join(str(i) for i in covered))
            else:
                self._covered_run = 0
        if len(found) < len(self.markers.ids):
            found = self.detect(gray, quick=True)
        if len(found) < len(self.markers.ids):
            found = self.detect(gray)
        if len(found) < len(self.markers.ids):
            self._search_missing(gray, found)
        if len(found) < len(self.markers.ids):
            # soft (defocused, dim) frames: an unsharp mask restores the cells' edges
            sharp = cv2.addWeighted(gray, 2.0, cv2.GaussianBlur(gray, (0, 0), 2.0), -1.0, 0)
            for mid, quad in self.detect(sharp).items():
                found.setdefault(mid, quad)
            self._search_missing(sharp, found)
        if len(found) < len(self.markers.ids):
            self._search_soft(gray, found)
        if 2 <= len(found) < len(self.markers.ids):
            self._search_missing(gray, found, self._fit_at)
        if last is not None and not held:
            held = self._hold(gray, found)
        if last is not None and held:
            # (the held marker's picture, as it was when last found, stays the one it is matched against)
            self._previous = {**last, "quads": dict(found)}
        elif len(found) == len(self.markers.ids):
            self._previous = {"shape": gray.shape, "quads": dict(found),
                              "patches": anchor if anchor is not None else _still_patches(gray, found)}
        missing = [i for i in self.markers.ids if i not in found]
        if missing:
            raise NotReadable(f"{MARKERS_LOST}: " + ", ".join(str(i) for i in missing))
        img = np.vstack([found[i] for i in self.markers.ids])
        board = np.vstack([self.board_points[i] for i in self.markers.ids])
        if self._fitter is not None:
            self._fit_lens(gray, img, board)
        if self.K is not None:      # calibrated, or fitted from the grid
            img = cv2.undistortPoints(img.reshape(-1, 1, 2), self.K, self.dist, P=self.K).reshape(-1, 2)
        H, _ = cv2.findHomography(board, img, 0)
        if H is None or not np.isfinite(H).all():
            raise NotReadable(f"{MARKERS_LOST}: board geometry is inconsistent")
        rms = _fit_error(H, board, img)
        if rms > 6.0:
            raise NotReadable(f"{MARKERS_LOST}: the four markers do not lie on one board")
        center = self.camera_center(H, gray.shape[1], gray.shape[0])
        return BoardView(H=H, camera_center=center, marker_corners=found, reprojection_px=rms, K=self.K, dist=self.dist,
                         held=tuple(held))

    def _fit_lens(self, gray: np.ndarray, img: np.ndarray, board: np.ndarray) -> None:
        """One more fit of the lens from this frame's grid while fewer than LENS_FITS are kept for this camera
        pose, and the median one used (no distortion when the grid says none: LensFit.k1 0)."""
        if self._lens_pose is not None and \
                float(np.median(np.linalg.norm(img - self._lens_pose, axis=1))) > LENS_POSE_PX:
            self._lens_fits, self._lens_pose = [], None
            self.K = self.dist = None
        if len(self._lens_fits) >= LENS_FITS:
            return
        H, _ = cv2.findHomography(board, img, 0)
        if H is None or not np.isfinite(H).all():
            return
        K = self._estimate_K(H, gray.shape[1], gray.shape[0])
        assert self._fitter is not None
        fit = self._fitter.fit(gray, img, board, K) or LensFit(K=K, dist=np.zeros(5), gain=1.0, shift_px=0.0)
        if self._lens_pose is None:
            self._lens_pose = img.copy()
        self._lens_fits.append(fit)
        log.debug("lens fit %d of %d: k1 %.3f, gain %.2f, the grid moved %.1f px, focal length %.0f px",
                  len(self._lens_fits), LENS_FITS, fit.k1, fit.gain, fit.shift_px, K[0, 0])
        def used_k1(f: LensFit) -> float:
            """A fit that moves the grid less than LENS_MIN_SHIFT_PX counts as none."""
            return f.k1 if f.shift_px >= LENS_MIN_SHIFT_PX else 0.0

        chosen = sorted(self._lens_fits, key=used_k1)[len(self._lens_fits) // 2]
        bent = used_k1(chosen) != 0.0
        self.K, self.dist = (chosen.K, chosen.dist) if bent else (None, None)
        if len(self._lens_fits) == LENS_FITS:
            fits = ", ".join(f"k1 {f.k1:.3f} moving the grid {f.shift_px:.1f} px" for f in self._lens_fits)
            if bent:
                log.info("lens fitted from the board's grid (no lens calibration configured): k1 %.3f at focal "
                         "length %.0f px, the lines %.1f times as dark as with no bend; fits: %s", chosen.k1,
                         chosen.K[0, 0], chosen.gain, fits)
            else:
                log.info("the board's grid shows no lens bend worth correcting (under %.0f px; no lens calibration "
                         "configured); fits: %s", LENS_MIN_SHIFT_PX, fits)

    def camera_center(self, H: np.ndarray, width: int, height: int) -> np.ndarray:
        """The camera's centre in board mm, from H and the intrinsics (calibrated or estimated)."""
        K = self.K if self.K is not None else self._estimate_K(H, width, height)
        Kinv = np.linalg.inv(K)
        M = Kinv @ H
        scale = 2.0 / (np.linalg.norm(M[:, 0]) + np.linalg.norm(M[:, 1]))
        r1, r2, t = M[:, 0] * scale, M[:, 1] * scale, M[:, 2] * scale
        if t[2] < 0:
            r1, r2, t = -r1, -r2, -t
        r3 = np.cross(r1, r2)
        U, _, Vt = np.linalg.svd(np.column_stack([r1, r2, r3]))
        R = U @ Vt
        center = -R.T @ t
        if center[2] < 0:
            center[2] = -center[2]
        return center

    def _estimate_K(self, H: np.ndarray, width: int, height: int) -> np.ndarray:
        """Focal length from the homography (square pixels, principal point at the centre).

        Two constraints (r1 . r2 = 0, |r1| = |r2|) give 1/f^2 by least squares;
        a nearly straight-down view leaves f undetermined, so then the focal
        length that puts the camera at the configured camera.distance_mm is used instead.
        """
        cx, cy = width / 2, height / 2
        T = np.array([[1, 0, -cx], [0, 1, -cy], [0, 0, 1]], np.float64)
        G = T @ H
        G = G / np.linalg.norm(G[:, :2])
        h1, h2 = G[:, 0], G[:, 1]
        a = np.array([h1[0] * h2[0] + h1[1] * h2[1], h1[0] ** 2 + h1[1] ** 2 - h2[0] ** 2 - h2[1] ** 2])
        b = np.array([-h1[2] * h2[2], h2[2] ** 2 - h1[2] ** 2])
        f = None
        aa, bb = float(a @ a), float(b @ b)
        if aa > 0 and bb > 0:
            w = float(a @ b) / aa                   # a_i * (1/f^2) = b_i, least squares
            if w > 0:
                f_est = 1.0 / math.sqrt(w)
                # b carries the perspective: too little of it and f is noise
                if 0.3 * width < f_est < 5 * width and math.sqrt(bb) * f_est > 0.08:
                    f = f_est
        if f is None:
            # straight down: image scale (px per mm) = f / distance
            px_per_mm = math.sqrt(abs(np.linalg.det(G[:2, :2]))) / abs(G[2, 2]) if G[2, 2] else 1.0
            f = px_per_mm * self.distance_mm
        return np.array([[f, 0, cx], [0, f, cy], [0, 0, 1]], np.float64)


def _still_patches(gray: np.ndarray, found: dict[int, np.ndarray]) -> dict[int, tuple[int, int, np.ndarray]]:
    """Each marker's picture with STILL_MARGIN of its width round it: (x0, y0, patch), for BoardLocaliser._still.

    Empty when any patch is too flat to match on (a dim, blurred marker): such a board is searched each frame.
    """
    h, w = gray.shape[:2]
    out: dict[int, tuple[int, int, np.ndarray]] = {}
    for mid, quad in found.items():
        side = _side(quad)
        x0, y0 = np.maximum(np.floor(quad.min(0) - STILL_MARGIN * side).astype(int), 0)
        x1, y1 = np.ceil(quad.max(0) + STILL_MARGIN * side).astype(int)
        patch = gray[y0:min(y1, h), x0:min(x1, w)].copy()
        if patch.shape[0] < 8 or patch.shape[1] < 8 or float(patch.std()) < STILL_CONTRAST:
            return {}
        out[mid] = (int(x0), int(y0), patch)
    return out


def _pattern_gone(gray: np.ndarray, patches: dict[int, tuple[int, int, np.ndarray]], mid: int) -> bool:
    """Marker `mid`'s kept picture matches its place in this frame no better than COVERED_MATCH: something
    lies over it (`BoardLocaliser._covered`). False where no picture was kept (a flat patch)."""
    if mid not in patches:
        return False
    match = _patch_match(gray, patches[mid])
    return match is not None and match[0] <= COVERED_MATCH


def _patch_match(gray: np.ndarray, place: tuple[int, int, np.ndarray]) -> tuple[float, tuple[int, int]] | None:
    """A marker's kept patch (x0, y0, patch; `_still_patches`) against the frame round its place: the best
    normalised correlation over shifts of up to STILL_SHIFT px and where it is (STILL_SHIFT, STILL_SHIFT at
    no shift); None where the shifted patch would leave the frame."""
    x0, y0, patch = place
    x1, y1 = x0 + patch.shape[1], y0 + patch.shape[0]
    h, w = gray.shape[:2]
    if x0 < STILL_SHIFT or y0 < STILL_SHIFT or x1 + STILL_SHIFT > w or y1 + STILL_SHIFT > h:
        return None
    area = gray[y0 - STILL_SHIFT:y1 + STILL_SHIFT, x0 - STILL_SHIFT:x1 + STILL_SHIFT]
    _, best, _, loc = cv2.minMaxLoc(cv2.matchTemplate(area, patch, cv2.TM_CCOEFF_NORMED))
    return float(best), (int(loc[0]), int(loc[1]))


def _lit(gray: np.ndarray, patches: dict[int, tuple[int, int, np.ndarray]], mid: int) -> float:
    """How much brighter marker `mid`'s place is now than in its kept patch (`_still_patches`), against
    the others' (the median of their ratios: the camera's exposure and the room's light change them
    all alike); 0.0 where no patches were kept."""
    def ratio(place: tuple[int, int, np.ndarray]) -> float:
        x0, y0, patch = place
        now = gray[y0:y0 + patch.shape[0], x0:x0 + patch.shape[1]]
        return float(now.mean()) / max(float(patch.mean()), 1.0) if now.shape == patch.shape else 0.0

    others = [ratio(place) for other, place in patches.items() if other != mid]
    if mid not in patches or not others:
        return 0.0
    return ratio(patches[mid]) / max(float(np.median(others)), 1e-6)


def _project(H: np.ndarray, points: np.ndarray) -> np.ndarray:
    """Board points (mm) through homography H to picture pixels."""
    return cv2.perspectiveTransform(np.asarray(points, np.float64).reshape(-1, 1, 2), H).reshape(-1, 2)


def _fit_error(H: np.ndarray, board: np.ndarray, picture: np.ndarray) -> float:
    """RMS distance (pixels) between the board points through H and where the picture has them."""
    return float(np.sqrt(((_project(H, board) - picture) ** 2).sum(1).mean()))


def _unmoved(found: dict[int, np.ndarray], previous: dict[int, np.ndarray]) -> bool:
    """True when every marker found lies where it was (within TRACK_MOVED of its width): no bumped board or camera."""
    return all(np.abs(quad - previous[mid]).max() <= TRACK_MOVED * _side(previous[mid]) for mid, quad in found.items())


def _side(quad: np.ndarray) -> float:
    """A marker's width in the picture (pixels): the larger extent of its four corners."""
    return float(max(np.ptp(quad[:, 0]), np.ptp(quad[:, 1])))


def _square_in_picture(M: np.ndarray, x: float, y: float, side: float) -> np.ndarray:
    """The corners, in the picture, of the square at (x, y) with `side` in a patch warped by `M`."""
    flat = np.array([[x, y], [x + side, y], [x + side, y + side], [x, y + side]], np.float32)
    return cv2.perspectiveTransform(flat.reshape(-1, 1, 2), np.linalg.inv(M)).reshape(4, 2).astype(np.float64)


def _correlation_level(window: np.ndarray, template: np.ndarray) -> float:
    """The correlation of a window with a template once each has its best plane (a + bx + cy) taken off.

    A veil of glare over a marker adds a slope of light across it (and the
    dark cloth beside it); the slope is no part of the marker's picture.
    """
    n = template.shape[0]
    yy, xx = np.mgrid[0:n, 0:n].astype(np.float64)
    A = np.column_stack([np.ones(n * n), xx.ravel(), yy.ravel()])

    def level(v: np.ndarray) -> np.ndarray:
        v = v.astype(np.float64).ravel()
        return v - A @ np.linalg.lstsq(A, v, rcond=None)[0]
    a, b = level(window), level(template)
    norm = float(np.linalg.norm(a) * np.linalg.norm(b))
    return float(a @ b) / norm if norm > 1e-9 else 0.0


def _soften(gray: np.ndarray) -> np.ndarray:
    """A dim, soft picture 2x magnified and unsharp-masked, for the soft detector (BoardLocaliser._search_soft)."""
    up = cv2.resize(gray, None, fx=2, fy=2, interpolation=cv2.INTER_CUBIC)
    return cv2.addWeighted(up, 3.0, cv2.GaussianBlur(up, (0, 0), 4.0), -2.0, 0)
