"""Board check and lens calibration against frames rendered through a known pinhole camera
(tests/helpers/pinhole.py): ground truth is exact, every square centre's true pixel is the
camera's projection of it.
"""
from __future__ import annotations

import cv2
import numpy as np
import pytest

from calibration.board_check import check_board
from calibration.config import Config
from calibration.geometry import BoardGeometry
from calibration.lens import CharucoFinder, CharucoSpec, ViewCollector, calibrate
from calibration.printables import charuco_sheet
from tests.helpers.pinhole import CENTRE, IMAGE_SIZE, PinholeCamera, board_texture, calibrated_config, make_camera, render


def true_square_errors_mm(result, cam: PinholeCamera, geo: BoardGeometry) -> np.ndarray:
    """Each square centre's true image point mapped back through the measured calibration."""
    centres = np.array([geo.square_center(s) for s in range(geo.size ** 2)])
    back = result.image_to_board(cam.project(centres))
    return np.hypot(*(back - centres).T)


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
