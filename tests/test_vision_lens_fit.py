"""An uncalibrated lens is fitted from the board's own grid (vision/lens_fit.py, BoardLocaliser._fit_lens).

The frames are the simulation's own hard light through cameras whose lenses bend the most the renderer
allows (|k1| over 0.11): before the fit, seed 65's hand-free frames were refused as "hand over board"
(the grid's crossings looked for beside the lines) and seed 15's read one to three squares wrong a frame.
"""
import logging
import random

import cv2
import numpy as np
import pytest

from calibration.config import Config
from calibration.geometry import BoardGeometry
from engine import Board
from vision.lens_fit import GridLensFitter, homography
from vision.localise import LENS_FITS, BoardLocaliser
from vision.reader import BoardReader
from vision.rectify import MAP_STEP, _lens_maps, rectified_frame
from vision.renderer import render_frame


def _scenes(seed: int, count: int, condition: str = "hard"):
    """`count` hand-free frames of a game's positions under one mounted camera, as SimFrameSource renders them."""
    config = Config()
    camera = render_frame({}, "board-11", seed=seed, condition=condition, config=config).camera
    rnd, board = random.Random(seed), Board("copenhagen")
    for k in range(1, count + 1):
        pieces = {sq: p.value for sq, p in board.pieces().items()}
        image = render_frame(pieces, "board-11", seed=seed * 1_000_003 + k, condition=condition, config=config,
                             camera=camera).image
        noise = np.random.default_rng((seed, k)).normal(0, 2.0, image.shape[:2])[..., None]
        yield camera, pieces, np.clip(image + noise, 0, 255).astype(np.uint8)
        board.push(rnd.choice(list(board.legal_moves)))


def _located(image: np.ndarray):
    """The board found in `image` by a fresh localiser: geometry, view, grey picture, marker corners, their mm."""
    config = Config()
    geo = BoardGeometry.from_config(config, "board-11")
    loc = BoardLocaliser(geo, config.markers, config.camera)
    gray = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    view = loc.locate(gray, track=False)
    marker_px = np.vstack([view.marker_corners[i] for i in loc.markers.ids])
    board_mm = np.vstack([loc.board_points[i] for i in loc.markers.ids])
    return geo, view, gray, marker_px, board_mm


@pytest.mark.parametrize("seed", [65, 15])
def test_a_bending_lens_is_fitted_and_the_board_read(seed, caplog):
    reader = BoardReader(Config(), "board-11")
    frames = list(_scenes(seed, 4))
    with caplog.at_level(logging.INFO, logger="vision.lens"):
        for _, pieces, image in frames:
            reading = reader.read(image)            # (not refused as a hand)
            assert reading.pieces == pieces
    camera = frames[0][0]
    fitted = reader.localiser.dist
    assert fitted is not None and np.sign(fitted[0]) == np.sign(camera.dist[0]) and abs(fitted[0]) > 0.05
    assert not reader.localiser.calibrated          # fitted, not configured
    assert "lens fitted from the board's grid" in caplog.text


def test_without_the_fit_those_frames_were_misread():
    """The same frames through the markers' homography alone (what the reader did before the fit)."""
    camera, _, image = next(_scenes(65, 1))
    geo, view, gray, marker_px, board_mm = _located(image)
    plain = homography(marker_px, board_mm, np.eye(3), 0.0)
    crossings = np.array([(i * geo.pitch, j * geo.pitch) for i in range(12) for j in range(12)], np.float64)
    truth = camera.project(np.column_stack([crossings, np.zeros(len(crossings))]))
    off_plain = np.linalg.norm(cv2.perspectiveTransform(crossings.reshape(-1, 1, 2), plain).reshape(-1, 2) - truth, axis=1)
    off_fitted = np.linalg.norm(view.to_image(crossings) - truth, axis=1)
    assert off_plain.max() > 3.0                    # the lines looked for beside themselves
    assert off_fitted.max() < 1.5


def test_a_straight_lens_is_left_alone():
    """No k1 makes a straight lens's lines darker: no lens model, the plain perspective warp."""
    reader = BoardReader(Config(), "board-11")
    for seed in range(30, 60):
        camera = render_frame({}, "board-11", seed=seed, condition="museum").camera
        if abs(camera.dist[0]) < 0.005:
            break
    for _, pieces, image in _scenes(seed, LENS_FITS, "museum"):
        assert reader.read(image).pieces == pieces
    assert reader.localiser.K is None and reader.localiser.dist is None


def test_the_fit_starts_again_for_another_camera():
    """The markers elsewhere (a reader on unrelated frames, a bumped camera): the first camera's lens is not kept."""
    reader = BoardReader(Config(), "board-11")
    for _, _, image in _scenes(65, LENS_FITS):
        reader.read(image)
    first = reader.localiser.dist.copy()
    camera, pieces, image = next(_scenes(15, 1))
    assert reader.read(image, track=False).pieces == pieces
    assert np.sign(reader.localiser.dist[0]) == np.sign(camera.dist[0]) != np.sign(first[0])


def test_one_frames_fit_finds_the_lens_the_grid_shows():
    camera, _, image = next(_scenes(15, 1))
    geo, _, gray, marker_px, board_mm = _located(image)
    fit = GridLensFitter(geo).fit(gray, marker_px, board_mm, camera.K)
    # at the true focal length, the radial term the renderer used (its k2, -0.3 k1, is not fitted)
    assert fit is not None and fit.gain > 1.5
    assert abs(fit.k1 - camera.dist[0]) < 0.03


def test_the_lens_map_is_interpolated_exactly():
    """The remap's coarse grid (MAP_STEP) against every pixel worked out, edges included."""
    frame = rectified_frame(BoardGeometry.from_config(Config(), "board-11"))
    n = frame.pixels
    H = np.array([[1.2, 0.1, 300.0], [0.05, -1.2, 600.0], [1e-4, 5e-5, 1.0]])
    K = np.array([[600.0, 0, 640], [0, 600, 360], [0, 0, 1]])
    dist = np.array([0.12, -0.03, 0.0, 0.0, 0.0])
    A = H @ np.linalg.inv(frame.matrix())
    mx, my = _lens_maps(n, A, K, dist)
    u, v = np.meshgrid(np.arange(n, dtype=float), np.arange(n, dtype=float))
    ideal = A @ np.stack([u.ravel(), v.ravel(), np.ones(n * n)])
    ideal = (ideal[:2] / ideal[2]).T
    exact, _ = cv2.projectPoints(np.column_stack([cv2.undistortPoints(ideal.reshape(-1, 1, 2), K, None).reshape(-1, 2),
                                                  np.ones(n * n)]), np.zeros(3), np.zeros(3), K, dist)
    exact = exact.reshape(n, n, 2)
    assert MAP_STEP > 1 and mx.shape == (n, n)
    assert np.abs(mx - exact[..., 0]).max() < 0.02 and np.abs(my - exact[..., 1]).max() < 0.02
