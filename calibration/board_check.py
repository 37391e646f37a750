"""Board check: are the four frame markers where the configured geometry says?

The four markers' sixteen corners give a homography from board millimetres to
the (undistorted) image. If the markers were printed at the wrong scale,
stuck on crooked, or the camera is tilted too far, the homography still
exists but the squares it predicts are off; this module measures how far:

- the error at every square centre, measured on the board's own grid lines
  (calibration/board_grid.py): four markers always admit *some* homography,
  so a misplaced marker shows only here;
- corner residuals: each detected corner mapped back to the board, against
  its nominal position, and the fit's own uncertainty at the square centres
  (corner noise propagated through the homography);
- each marker's printed size measured through the homography (a sheet
  printed with "fit to page" shows as a ratio of 0.9-something);
- the camera's tilt from vertical (from the calibrated intrinsics, or
  estimated from the homography when the lens is not calibrated yet).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import cv2
import numpy as np

from calibration.board_grid import GridMeasurement, measure_grid
from calibration.config import Config
from calibration.geometry import BoardGeometry, square_label
from calibration.markers import marker_detector

MAX_TILT_DEG = 25.0          # docs/hardware.md: up to 25 degrees from vertical
SIZE_RATIO_TOLERANCE = 0.04  # a marker more than 4 % off its configured size is misprinted
MAX_SQUARE_ERROR_MM = 1.0    # beyond this the reader's square centres drift off the pieces
MAX_CORNER_RESIDUAL_MM = 2.0


def detect_frame_markers(image: np.ndarray, config: Config) -> tuple[dict[int, np.ndarray], list[int]]:
    """The configured markers found in an image: id -> 4x2 corners (px), plus ids seen twice.

    The detector is the kiosk's own (calibration/markers.py, used by vision/localise.py)."""
    grey = image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    corners, ids, _rejected = marker_detector(config.markers.dictionary).detectMarkers(grey)
    found: dict[int, np.ndarray] = {}
    twice: list[int] = []
    if ids is None:
        return found, twice
    wanted = set(config.markers.ids)
    for c, raw_id in zip(corners, ids.reshape(-1)):
        i = int(raw_id)
        if i not in wanted:
            continue
        if i in found:
            twice.append(i)
        found[i] = c.reshape(4, 2).astype(np.float64)
    return found, twice


class LensModel:
    """The configured intrinsics, or none: maps between raw and undistorted pixels."""

    def __init__(self, config: Config):
        cam = config.camera
        self.calibrated = bool(cam.camera_matrix)
        self.matrix: np.ndarray | None = np.array(cam.camera_matrix, np.float64) if self.calibrated else None
        self.distortion = np.array(cam.distortion or [0.0] * 5, np.float64)

    def undistort(self, points: np.ndarray) -> np.ndarray:
        pts = np.asarray(points, np.float64).reshape(-1, 1, 2)
        if self.matrix is None:           # not calibrated
            return pts.reshape(-1, 2)
        return cv2.undistortPoints(pts, self.matrix, self.distortion, P=self.matrix).reshape(-1, 2)

    def distort(self, points: np.ndarray) -> np.ndarray:
        pts = np.asarray(points, np.float64).reshape(-1, 2)
        if self.matrix is None:           # not calibrated
            return pts
        k = self.matrix
        normal = np.column_stack(((pts[:, 0] - k[0, 2]) / k[0, 0], (pts[:, 1] - k[1, 2]) / k[1, 1],
                                  np.ones(len(pts))))
        out, _ = cv2.projectPoints(normal.reshape(-1, 1, 3), np.zeros(3), np.zeros(3), k, self.distortion)
        return out.reshape(-1, 2)


def _apply(h: np.ndarray, pts: np.ndarray) -> np.ndarray:
    p = np.column_stack((pts, np.ones(len(pts)))) @ h.T
    return p[:, :2] / p[:, 2:3]


def _local_jacobian(h: np.ndarray, x: float, y: float) -> np.ndarray:
    """d(image)/d(board) of the homography at a board point."""
    u, v, w = h @ np.array([x, y, 1.0])
    return np.array([[(h[0, 0] * w - u * h[2, 0]) / w ** 2, (h[0, 1] * w - u * h[2, 1]) / w ** 2],
                     [(h[1, 0] * w - v * h[2, 0]) / w ** 2, (h[1, 1] * w - v * h[2, 1]) / w ** 2]])


def square_centre_errors(h: np.ndarray, board_pts: np.ndarray, image_pts: np.ndarray,
                         centres: np.ndarray) -> np.ndarray:
    """1-sigma error (mm) of the fitted homography at each centre, from the fit's own residuals."""
    n = len(board_pts)
    if n <= 4:
        return np.full(len(centres), np.nan)
    hn = h / h[2, 2]
    params = hn.reshape(-1)[:8]

    def project(p: np.ndarray, pts: np.ndarray) -> np.ndarray:
        return _apply(np.append(p, 1.0).reshape(3, 3), pts).reshape(-1)

    residual = project(params, board_pts) - image_pts.reshape(-1)
    dof = 2 * n - 8
    sigma2 = float(residual @ residual) / dof
    eps = 1e-7 * np.maximum(np.abs(params), 1e-3)
    jac = np.empty((2 * n, 8))
    jac_c = np.empty((2 * len(centres), 8))
    for k in range(8):
        d = np.zeros(8)
        d[k] = eps[k]
        jac[:, k] = (project(params + d, board_pts) - project(params - d, board_pts)) / (2 * eps[k])
        jac_c[:, k] = (project(params + d, centres) - project(params - d, centres)) / (2 * eps[k])
    cov_p = sigma2 * np.linalg.pinv(jac.T @ jac)
    errors = np.empty(len(centres))
    for i, (x, y) in enumerate(centres):
        jc = jac_c[2 * i:2 * i + 2]
        cov_px = jc @ cov_p @ jc.T
        inv_local = np.linalg.inv(_local_jacobian(hn, x, y))
        cov_mm = inv_local @ cov_px @ inv_local.T
        errors[i] = math.sqrt(max(float(np.trace(cov_mm)), 0.0))
    return errors


def estimate_tilt(h: np.ndarray, image_size: tuple[int, int], matrix: np.ndarray | None) -> tuple[float, bool]:
    """Tilt from the homography: exact with a calibrated matrix, else the focal length is estimated.

    Without calibration the principal point is taken at the image centre and
    the focal length from the orthogonality of the board's axes (Zhang); if
    that is ill-conditioned (a nearly frontal view) the tilt is small anyway
    and a focal length of one image width is used.
    """
    estimated = matrix is None
    if matrix is None:
        w, hgt = image_size
        cx, cy = w / 2, hgt / 2
        centred = np.array([[1, 0, -cx], [0, 1, -cy], [0, 0, 1]], np.float64) @ h
        h1, h2 = centred[:, 0], centred[:, 1]
        f = float(w)
        denom = h1[2] * h2[2]
        if abs(denom) > 1e-12:
            f2 = -(h1[0] * h2[0] + h1[1] * h2[1]) / denom
            if (0.3 * w) ** 2 < f2 < (5 * w) ** 2:
                f = math.sqrt(f2)
        matrix = np.array([[f, 0, cx], [0, f, cy], [0, 0, 1]], np.float64)
    m = np.linalg.inv(matrix) @ h
    r1 = m[:, 0] / np.linalg.norm(m[:, 0])
    r2 = m[:, 1] / np.linalg.norm(m[:, 1])
    r3 = np.cross(r1, r2)
    r3 /= np.linalg.norm(r3)
    return math.degrees(math.acos(min(1.0, abs(float(r3[2]))))), estimated


@dataclass
class BoardCheck:
    """What tafl-calibrate board measured in one frame."""

    image_size: tuple[int, int]
    found: dict[int, np.ndarray]
    missing: list[int]
    homography: np.ndarray | None = None       # board mm -> undistorted image px
    corner_residuals_mm: dict[int, np.ndarray] = field(default_factory=dict)   # id -> 4 residuals
    square_errors_mm: np.ndarray | None = None   # per square index, measured on the grid lines
    fit_uncertainty_mm: np.ndarray | None = None  # per square index, from the corner residuals
    grid: GridMeasurement | None = None
    grid_noise_mm: float | None = None             # scatter of the line offsets about their smooth fit
    size_ratios: dict[int, float] = field(default_factory=dict)
    tilt_deg: float | None = None
    tilt_estimated: bool = True
    problems: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    lens: LensModel | None = None

    @property
    def ok(self) -> bool:
        return not self.problems

    @property
    def max_corner_residual_mm(self) -> float:
        values = [float(v.max()) for v in self.corner_residuals_mm.values()]
        return max(values, default=float("nan"))

    @property
    def max_square_error_mm(self) -> float:
        if self.square_errors_mm is None or not np.isfinite(self.square_errors_mm).any():
            return float("nan")
        return float(np.nanmax(self.square_errors_mm))

    def image_to_board(self, points_px: np.ndarray) -> np.ndarray:
        """Raw image pixels to board mm (undistorting first when the lens is calibrated)."""
        if self.homography is None:
            raise ValueError("no homography: the markers were not found")
        pts = self.lens.undistort(points_px) if self.lens else np.asarray(points_px, np.float64)
        return _apply(np.linalg.inv(self.homography), pts.reshape(-1, 2))

    def board_to_image(self, points_mm: np.ndarray) -> np.ndarray:
        if self.homography is None:
            raise ValueError("no homography: the markers were not found")
        pts = _apply(self.homography, np.asarray(points_mm, np.float64).reshape(-1, 2))
        return self.lens.distort(pts) if self.lens else pts

    def report(self, size: int) -> list[str]:
        lines = [f"markers found: {sorted(self.found)}" + (f", missing: {self.missing}" if self.missing else "")]
        if self.homography is not None:
            lines.append(f"marker corner residuals: max {self.max_corner_residual_mm:.2f} mm")
            for i, r in sorted(self.corner_residuals_mm.items()):
                lines.append(f"  id {i}: corners off by {', '.join(f'{v:.2f}' for v in r)} mm; "
                             f"printed size {100 * self.size_ratios[i]:.1f} % of configured")
            if self.square_errors_mm is not None and np.isfinite(self.square_errors_mm).any():
                worst = int(np.nanargmax(self.square_errors_mm))
                measured = int(np.isfinite(self.square_errors_mm).sum())
                lines.append(f"error at square centres (measured on the grid lines, {measured} of "
                             f"{size * size} squares): max {self.max_square_error_mm:.2f} mm at "
                             f"{square_label(worst, size)}, mean "
                             f"{float(np.nanmean(self.square_errors_mm)):.2f} mm")
                if self.grid_noise_mm is not None and self.grid is not None:
                    lines.append(f"grid line measurement noise: {self.grid_noise_mm:.2f} mm rms "
                                 f"({100 * self.grid.measured_fraction:.0f} % of the line segments read)")
            if self.fit_uncertainty_mm is not None and np.isfinite(self.fit_uncertainty_mm).any():
                lines.append(f"homography uncertainty from marker corners: max "
                             f"{float(np.nanmax(self.fit_uncertainty_mm)):.2f} mm")
            if self.tilt_deg is not None:
                how = "estimated, lens not calibrated" if self.tilt_estimated else "from calibrated lens"
                lines.append(f"camera tilt from vertical: {self.tilt_deg:.1f} deg ({how})")
        lines += [f"WARNING: {w}" for w in self.warnings]
        lines += [f"PROBLEM: {p}" for p in self.problems]
        return lines


def check_board(image: np.ndarray, config: Config, board_name: str | None = None) -> BoardCheck:
    """Find the markers in a frame and measure how well they agree with the configured geometry."""
    geo = BoardGeometry.from_config(config, board_name)
    h_img, w_img = image.shape[:2]
    found, twice = detect_frame_markers(image, config)
    ids = list(config.markers.ids)
    missing = [i for i in ids if i not in found]
    lens = LensModel(config)
    result = BoardCheck((w_img, h_img), found, missing, lens=lens)
    size = tuple(config.camera.calibration_size)
    if lens.calibrated and size != (0, 0) and size != (w_img, h_img):
        result.problems.append(f"the frame is {w_img}x{h_img} but the lens was calibrated at "
                               f"{size[0]}x{size[1]}: its calibration does not apply (set "
                               "camera.width/height back, or run tafl-calibrate camera again)")
    for i in twice:
        result.problems.append(f"marker id {i} is seen twice: another copy is in view")
    for i in missing:
        result.problems.append(f"marker id {i} (position {ids.index(i)}) not found: covered, out of "
                               "view, or printed from another dictionary")
    if len(found) < 3:
        result.problems.append("fewer than 3 markers found: cannot locate the board")
        return result

    board_list: list[tuple[float, float]] = []
    image_list: list[np.ndarray] = []
    owners: list[int] = []
    for i, corners in found.items():
        board_list.extend(geo.marker_corners(ids.index(i)))
        image_list.extend(lens.undistort(corners))
        owners.extend([i] * 4)
    board_pts = np.array(board_list, np.float64)
    image_pts = np.array(image_list, np.float64)
    h, _ = cv2.findHomography(board_pts, image_pts, 0)
    if h is None:
        result.problems.append("the markers' corners do not define a homography (degenerate view)")
        return result
    result.homography = h
    back = _apply(np.linalg.inv(h), image_pts)
    residuals = np.hypot(*(back - board_pts).T)
    for k, i in enumerate(owners[::4]):
        result.corner_residuals_mm[i] = residuals[4 * k:4 * k + 4]
        sides = np.hypot(*(np.roll(back[4 * k:4 * k + 4], -1, axis=0) - back[4 * k:4 * k + 4]).T)
        result.size_ratios[i] = float(sides.mean() / config.markers.size_mm)

    centres = np.array([geo.square_center(s) for s in range(geo.size ** 2)], np.float64)
    result.fit_uncertainty_mm = square_centre_errors(h, board_pts, image_pts, centres)
    result.grid = grid = measure_grid(image, geo, result.board_to_image)
    result.square_errors_mm = grid.square_errors(geo.pitch)
    fitted = grid.smooth_fit(geo.pitch)
    result.grid_noise_mm = fitted[2] if fitted is not None else None
    result.tilt_deg, result.tilt_estimated = estimate_tilt(h, (w_img, h_img), lens.matrix)

    if result.max_corner_residual_mm > MAX_CORNER_RESIDUAL_MM:
        worst = max(result.corner_residuals_mm, key=lambda i: result.corner_residuals_mm[i].max())
        result.problems.append(f"marker id {worst} is {result.corner_residuals_mm[worst].max():.1f} mm "
                               "from where the geometry puts it: re-stick it or fix markers.offset_mm")
    if result.max_square_error_mm > MAX_SQUARE_ERROR_MM:
        worst = int(np.nanargmax(result.square_errors_mm))
        cause = ("the lens is not calibrated yet (run tafl-calibrate camera first), or a marker is "
                 "misplaced" if not lens.calibrated else
                 "a marker is misplaced, or markers.offset_mm / the board's pitch_mm is wrong")
        result.problems.append(
            f"the grid lines are {result.max_square_error_mm:.1f} mm from where the markers put them "
            f"(worst at {square_label(worst, geo.size)}, max allowed {MAX_SQUARE_ERROR_MM:g} mm): {cause}")
    if result.grid.measured_fraction < 0.5:
        result.warnings.append(f"only {100 * result.grid.measured_fraction:.0f} % of the grid lines could be "
                               "measured (pieces, hands or glare over the board?)")
    for i, ratio in sorted(result.size_ratios.items()):
        # A blurred marker's detected corners sit up to a pixel inside its edge, so a small
        # marker in the image is allowed that much more (1.5 px of its side) before a warning.
        side_px = float(np.mean(np.hypot(*(np.roll(found[i], -1, axis=0) - found[i]).T)))
        if abs(ratio - 1.0) > max(SIZE_RATIO_TOLERANCE, 1.5 / max(side_px, 1.0)):
            result.warnings.append(f"marker id {i} measures {ratio * config.markers.size_mm:.1f} mm, "
                                   f"configured {config.markers.size_mm:g} mm: printed at the wrong scale?")
    if result.tilt_deg > MAX_TILT_DEG:
        result.warnings.append(f"camera tilt {result.tilt_deg:.0f} deg exceeds {MAX_TILT_DEG:g} deg: "
                               "the far squares will be read poorly; mount the camera more vertically")
    if len(found) == 3:
        result.warnings.append("board located from 3 markers only")
    return result
