"""Board check and lens calibration against frames rendered here through a known pinhole camera.

The scene is drawn flat (board, grid, the four markers drawn by the printables
code), then warped through a camera with a known pose, tilt and lens
distortion, supersampled 2x. Ground truth is therefore exact: every square
centre's true pixel is the camera's projection of it.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np
import pytest

from calibration.board_check import check_board
from calibration.config import Config
from calibration.geometry import BoardGeometry
from calibration.lens import CharucoFinder, CharucoSpec, ViewCollector, calibrate
from calibration.printables import Sheet, charuco_sheet, draw_marker

IMAGE_SIZE = (1280, 720)


@dataclass
class PinholeCamera:
    K: np.ndarray
    dist: np.ndarray
    R: np.ndarray        # board -> camera
    t: np.ndarray
    size: tuple[int, int] = IMAGE_SIZE

    def plane_homography(self) -> np.ndarray:
        """Board mm (z = 0) to ideal (undistorted) pixels."""
        return self.K @ np.column_stack((self.R[:, 0], self.R[:, 1], self.t))

    def project(self, points_mm: np.ndarray) -> np.ndarray:
        pts = np.column_stack((points_mm, np.zeros(len(points_mm)))).reshape(-1, 1, 3)
        rvec, _ = cv2.Rodrigues(self.R)
        out, _ = cv2.projectPoints(pts, rvec, self.t, self.K, self.dist)
        return out.reshape(-1, 2)


def make_camera(target_mm, distance_mm, tilt_deg, tilt_dir_deg, roll_deg, f_px=620.0,
                dist=(0.0, 0.0, 0.0, 0.0, 0.0)) -> PinholeCamera:
    """A camera ``distance_mm`` from ``target_mm`` on the board, its axis ``tilt_deg`` from vertical."""
    tilt, azimuth = math.radians(tilt_deg), math.radians(tilt_dir_deg)
    target = np.array([target_mm[0], target_mm[1], 0.0])
    centre = target + distance_mm * np.array([math.sin(tilt) * math.cos(azimuth),
                                              math.sin(tilt) * math.sin(azimuth), math.cos(tilt)])
    z = (target - centre) / np.linalg.norm(target - centre)
    helper = np.array([0.0, 1.0, 0.0])            # image up is board +y before the roll
    x = np.cross(z, helper)
    x /= np.linalg.norm(x)
    y = np.cross(z, x)
    c, s = math.cos(math.radians(roll_deg)), math.sin(math.radians(roll_deg))
    xr, yr = c * x + s * y, -s * x + c * y
    R = np.stack([xr, yr, z])
    K = np.array([[f_px, 0, IMAGE_SIZE[0] / 2 + 7.5], [0, f_px, IMAGE_SIZE[1] / 2 - 4.0], [0, 0, 1]])
    return PinholeCamera(K, np.array(dist, float), R, -R @ centre)


_IDEAL: dict[tuple, np.ndarray] = {}


def _ideal_pixels(k: bytes, dist: bytes, size: tuple[int, int], ss: int) -> np.ndarray:
    """Undistorted position of every (supersampled) pixel centre; cached per lens, as it is slow."""
    key = (k, dist, size, ss)
    if key not in _IDEAL:
        w, h = size
        us, vs = np.meshgrid((np.arange(w * ss) + 0.5) / ss - 0.5, (np.arange(h * ss) + 0.5) / ss - 0.5)
        pix: np.ndarray = np.stack([us.ravel(), vs.ravel()], axis=1)
        kk = np.frombuffer(k).reshape(3, 3)
        dd = np.frombuffer(dist)
        if np.any(dd):
            pix = cv2.undistortPoints(pix.reshape(-1, 1, 2), kk, dd, P=kk).reshape(-1, 2)
        _IDEAL.clear()                      # one lens at a time: bounded memory
        _IDEAL[key] = pix
    return _IDEAL[key]


def render(texture: Sheet, cam: PinholeCamera, supersample: int = 2) -> np.ndarray:
    """The flat texture as the camera sees it (grey), with lens distortion, anti-aliased."""
    w, h = cam.size
    ss = supersample
    pix = _ideal_pixels(cam.K.tobytes(), cam.dist.tobytes(), cam.size, ss)
    board = cv2.perspectiveTransform(pix.reshape(-1, 1, 2), np.linalg.inv(cam.plane_homography()))
    board = board.reshape(-1, 2)
    scale = texture.dpi / 25.4
    tx = (board[:, 0] - texture.origin_mm[0]) * scale - 0.5      # pixel-centre coordinates
    ty = (texture.origin_mm[1] - board[:, 1]) * scale - 0.5
    mapx = tx.reshape(h * ss, w * ss).astype(np.float32)
    mapy = ty.reshape(h * ss, w * ss).astype(np.float32)
    big = cv2.remap(texture.image, mapx, mapy, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT,
                    borderValue=90)
    return cv2.resize(big, (w, h), interpolation=cv2.INTER_AREA)


def board_texture(config: Config, px_per_mm: float = 4.0, marker_scale: float = 1.0,
                  shift_mm: dict[int, tuple[float, float]] | None = None,
                  hidden: tuple[int, ...] = ()) -> Sheet:
    """A top-down picture of the board and its frame (grey levels), in a Sheet's mm mapping."""
    geo = BoardGeometry.from_config(config)
    reach = config.markers.offset_mm + config.markers.size_mm / 2 + 25.0
    lo, hi = -reach, geo.width + reach
    dpi = px_per_mm * 25.4
    n = int(round((hi - lo) * px_per_mm))
    sheet = Sheet(np.full((n, n), 235, np.uint8), dpi, (lo, hi))

    def rect(x0, y0, x1, y1, value):
        c0, r1 = sheet.to_px(x0, y0)
        c1, r0 = sheet.to_px(x1, y1)
        sheet.image[int(round(r0)):int(round(r1)), int(round(c0)):int(round(c1))] = value

    w, p = geo.width, geo.pitch
    rect(0, 0, w, w, 185)                                    # wood
    for k in range(geo.size + 1):                            # grid lines 1.5 mm
        rect(k * p - 0.75, 0, k * p + 0.75, w, 70)
        rect(0, k * p - 0.75, w, k * p + 0.75, 70)
    for index, marker_id in enumerate(config.markers.ids):
        if marker_id in hidden:
            cx, cy = geo.marker_center(index)
            rect(cx - 25, cy - 25, cx + 25, cy + 25, 40)     # a hand over it
            continue
        dx, dy = (shift_mm or {}).get(marker_id, (0.0, 0.0))
        cx, cy = geo.marker_center(index)
        hs = config.markers.size_mm / 2 * marker_scale
        corners = [(cx + dx - hs, cy + dy + hs), (cx + dx + hs, cy + dy + hs),
                   (cx + dx + hs, cy + dy - hs), (cx + dx - hs, cy + dy - hs)]
        draw_marker(sheet, config.markers.dictionary, marker_id, corners)
    return sheet


def calibrated_config(cam: PinholeCamera) -> Config:
    config = Config()
    config.camera.camera_matrix = [[float(v) for v in row] for row in cam.K]
    config.camera.distortion = [float(v) for v in cam.dist]
    return config


def true_square_errors_mm(result, cam: PinholeCamera, geo: BoardGeometry) -> np.ndarray:
    """Each square centre's true image point mapped back through the measured calibration."""
    centres = np.array([geo.square_center(s) for s in range(geo.size ** 2)])
    back = result.image_to_board(cam.project(centres))
    return np.hypot(*(back - centres).T)


CENTRE = (220.0, 220.0)


# ----------------------------------------------------------------------------- board check

@pytest.mark.parametrize("tilt,direction,roll,k1", [
    (18.0, 30.0, 35.0, -0.06),
    (24.0, 200.0, -110.0, 0.04),
    (5.0, 90.0, 180.0, 0.0),
])
def test_tilted_board_is_located_within_1mm_at_every_square_centre(tilt, direction, roll, k1):
    cam = make_camera(CENTRE, 720.0, tilt, direction, roll, dist=(k1, 0.01, 0.0, 0.0, 0.0))
    config = calibrated_config(cam)
    image = render(board_texture(config), cam)
    result = check_board(image, config)
    assert result.ok, result.problems
    assert result.missing == []
    geo = BoardGeometry.from_config(config)
    errors = true_square_errors_mm(result, cam, geo)
    assert errors.max() < 1.0, errors.max()
    assert result.tilt_deg == pytest.approx(tilt, abs=1.0)
    assert not result.tilt_estimated
    assert result.max_square_error_mm < 1.0
    # the grid-line measurement agrees with the truth it cannot see
    assert np.nanmax(np.abs(result.square_errors_mm - errors)) < 0.4
    for ratio in result.size_ratios.values():
        assert ratio == pytest.approx(1.0, abs=0.03)
    assert result.warnings == []


def test_uncalibrated_lens_still_gives_homography_and_estimated_tilt():
    cam = make_camera(CENTRE, 700.0, 15.0, 120.0, 60.0)
    config = Config()                            # no camera matrix: pinhole without distortion
    result = check_board(render(board_texture(config), cam), config)
    assert result.ok, result.problems
    errors = true_square_errors_mm(result, cam, BoardGeometry.from_config(config))
    assert errors.max() < 1.0
    assert result.tilt_estimated
    assert result.tilt_deg == pytest.approx(15.0, abs=3.0)
    report = "\n".join(result.report(11))
    assert "estimated, lens not calibrated" in report


def test_steep_camera_is_warned_about():
    cam = make_camera(CENTRE, 760.0, 33.0, 0.0, 10.0, f_px=560.0)
    config = calibrated_config(cam)
    result = check_board(render(board_texture(config), cam), config)
    assert result.missing == []
    assert any("tilt 33 deg exceeds 25 deg" in w for w in result.warnings), result.warnings


def test_markers_printed_at_wrong_scale_are_warned_about():
    cam = make_camera(CENTRE, 680.0, 8.0, 45.0, 20.0)
    config = calibrated_config(cam)
    result = check_board(render(board_texture(config, marker_scale=0.9), cam), config)
    assert len(result.size_ratios) == 4
    assert all(r == pytest.approx(0.9, abs=0.03) for r in result.size_ratios.values())
    assert any("printed at the wrong scale" in w for w in result.warnings)


def test_misplaced_marker_is_named():
    cam = make_camera(CENTRE, 700.0, 10.0, 300.0, -40.0)
    config = calibrated_config(cam)
    result = check_board(render(board_texture(config, shift_mm={2: (5.0, -4.0)}), cam), config)
    # four markers always admit a homography, so only the grid lines can show this
    assert not result.ok
    assert any(p.startswith("the grid lines are ") for p in result.problems), result.problems
    truth = true_square_errors_mm(result, cam, BoardGeometry.from_config(config))
    assert truth.max() > 4.0
    assert np.nanmax(np.abs(result.square_errors_mm - truth)) < 0.3
    assert np.isfinite(result.square_errors_mm).all()


def test_covered_marker_is_reported_missing():
    cam = make_camera(CENTRE, 700.0, 10.0, 0.0, 0.0)
    config = calibrated_config(cam)
    result = check_board(render(board_texture(config, hidden=(3,)), cam), config)
    assert result.missing == [3]
    assert not result.ok
    assert any("marker id 3 (position 3) not found" in p for p in result.problems)
    assert result.homography is not None           # three markers still locate the board
    errors = true_square_errors_mm(result, cam, BoardGeometry.from_config(config))
    assert errors.max() < 1.5


def test_blank_frame_finds_nothing():
    result = check_board(np.full((720, 1280), 128, np.uint8), Config())
    assert sorted(result.missing) == [0, 1, 2, 3]
    assert "fewer than 3 markers found" in result.problems[-1]


# ----------------------------------------------------------------------------- lens calibration

def test_charuco_views_recover_intrinsics_and_distortion():
    spec = CharucoSpec()
    sheet = charuco_sheet(spec, dpi=4 * 25.4)
    true_k = np.array([[880.0, 0, 652.0], [0, 880.0, 351.0], [0, 0, 1]])
    true_d = np.array([-0.12, 0.05, 0.0, 0.0, 0.0])
    # the sheet's board origin (top-left corner of the chessboard) in the sheet's mm frame
    rng = np.random.default_rng(3)
    collector = ViewCollector(CharucoFinder(spec))
    for k in range(16):
        # aim off the sheet so that it lands in every part of the image, corners included
        target = (148.5 + rng.uniform(-150, 150), 105.0 + rng.uniform(-100, 100))
        cam = make_camera(target, rng.uniform(380, 520), rng.uniform(5, 35), rng.uniform(0, 360),
                          rng.uniform(-180, 180), f_px=880.0, dist=true_d)
        cam.K = true_k
        collector.offer(render(sheet, cam), f"view {k}")
    assert len(collector.views) >= 10
    cal = calibrate(collector.views, collector.image_size)
    assert cal.rms_px < 0.5
    assert cal.camera_matrix[0, 0] == pytest.approx(880.0, rel=0.02)
    assert cal.camera_matrix[1, 1] == pytest.approx(880.0, rel=0.02)
    assert cal.camera_matrix[0, 2] == pytest.approx(652.0, abs=10.0)
    # What matters downstream: the calibrated model straightens the image like the true one.
    # Any remaining difference that is a homography (e.g. a principal point off by a pixel)
    # is absorbed by the board homography, so compare after removing the best one.
    grid = np.array([[u, v] for u in range(40, 1280, 60) for v in range(40, 720, 60)], np.float64)
    ours = cv2.undistortPoints(grid.reshape(-1, 1, 2), cal.camera_matrix, cal.distortion, P=true_k)
    truth = cv2.undistortPoints(grid.reshape(-1, 1, 2), true_k, true_d, P=true_k)
    h, _ = cv2.findHomography(ours, truth, 0)
    left = np.abs(cv2.perspectiveTransform(ours, h) - truth).reshape(-1, 2)
    inner = (np.abs(grid[:, 0] - 640) < 520) & (np.abs(grid[:, 1] - 360) < 280)
    assert left[inner].max() < 0.5
    assert left.max() < 2.0                  # the very corners are extrapolated


def test_too_few_views_is_a_clear_error():
    with pytest.raises(ValueError, match="at least 4 different views"):
        calibrate([], IMAGE_SIZE)


# ----------------------------------------------------------------------------- the vision renderer

@pytest.mark.parametrize("seed", [0, 4])
def test_vision_renderer_museum_frame_with_pieces_is_located_within_1mm(seed):
    """The vision package's renderer: lit wood, pieces in the start position, glare, JPEG."""
    from engine import Board
    from vision.renderer import render_frame

    pieces = {sq: str(p.value) for sq, p in Board("copenhagen").pieces().items()}
    frame = render_frame(pieces, seed=seed, condition="museum")
    cam = frame.camera
    config = Config()
    config.camera.camera_matrix = cam.K.tolist()
    config.camera.distortion = [float(v) for v in np.asarray(cam.dist).ravel()]
    result = check_board(frame.image, config)
    assert result.missing == [] and result.ok, result.problems
    geo = BoardGeometry.from_config(config)
    centres = np.array([geo.square_center(s) for s in range(geo.size ** 2)])
    truth_px = cam.project(np.column_stack((centres, np.zeros(len(centres)))))
    errors = np.hypot(*(result.image_to_board(truth_px) - centres).T)
    assert errors.max() < 1.0, errors.max()
    assert result.grid.measured_fraction > 0.9          # pieces stand clear of the measured lines
    # The grid measurement agrees with the truth to within 0.6 mm; 0.35 mm of that is the
    # renderer drawing its grid lines half a texture pixel (0.25 mm in x and y) off the markers.
    assert np.nanmax(np.abs(result.square_errors_mm - errors)) < 0.6


def test_frame_size_other_than_the_lens_calibration_is_a_problem():
    cam = make_camera(CENTRE, 700.0, 10.0, 0.0, 0.0)
    config = calibrated_config(cam)
    config.camera.calibration_size = (1920, 1080)
    result = check_board(render(board_texture(config), cam), config)
    assert any(p.startswith("the frame is 1280x720 but the lens was calibrated at 1920x1080")
               for p in result.problems), result.problems
    config.camera.calibration_size = (1280, 720)
    assert check_board(render(board_texture(config), cam), config).ok
