"""The renderer's frames and the localiser's pose agree with the camera that made them."""
import numpy as np
import pytest

from calibration.config import Config
from calibration.geometry import BoardGeometry
from engine import Board
from vision.localise import BoardLocaliser, NotReadable
from vision.renderer import render_frame

import cv2


@pytest.fixture(scope="module")
def start11():
    return {sq: p.value for sq, p in Board("copenhagen").pieces().items()}


def _localiser(board="board-11"):
    cfg = Config()
    return BoardLocaliser(BoardGeometry.from_config(cfg, board), cfg.markers, cfg.camera)


def test_frame_format_and_determinism(start11):
    a = render_frame(start11, "board-11", seed=11, condition="museum")
    b = render_frame(start11, "board-11", seed=11, condition="museum")
    assert a.image.shape == (720, 1280, 3) and a.image.dtype == np.uint8
    assert np.array_equal(a.image, b.image)
    c = render_frame(start11, "board-11", seed=12, condition="museum")
    assert not np.array_equal(a.image, c.image)


@pytest.mark.parametrize("board,condition,seed", [("board-11", "clean", 1), ("board-11", "museum", 2),
                                                   ("board-9", "museum", 3), ("board-9", "hard", 4)])
def test_homography_matches_the_true_camera(board, condition, seed):
    frame = render_frame({}, board, seed=seed, condition=condition)
    loc = _localiser(board)
    view = loc.locate(cv2.cvtColor(frame.image, cv2.COLOR_BGR2GRAY))
    geo = loc.geometry
    pts = np.array([geo.square_center(sq) for sq in range(geo.size ** 2)])
    truth = frame.camera.project(np.column_stack([pts, np.zeros(len(pts))]))
    seen = view.to_image(pts)
    # without calibration the lens is fitted from the grid (vision/lens_fit.py): within a pixel or two
    assert np.abs(seen - truth).max() < 2.5
    assert np.linalg.norm(view.camera_center - frame.camera.center) < 200


def test_pieces_stand_where_the_camera_sees_them(start11):
    frame = render_frame(start11, "board-11", seed=5, condition="clean")
    geo = BoardGeometry.from_config(Config(), "board-11")
    gray = cv2.cvtColor(frame.image, cv2.COLOR_BGR2GRAY).astype(float)
    for sq, letter in start11.items():
        x, y = geo.square_center(sq)
        u, v = frame.camera.project(np.array([[x, y, 10.0]]))[0]
        bright = gray[int(v) - 1:int(v) + 2, int(u) - 1:int(u) + 2].mean()
        assert (bright < 90) if letter == "t" else (bright > 120), (sq, letter, bright)


def test_missing_markers_are_named():
    frame = render_frame({}, "board-11", seed=7, condition="clean", hide_markers=(2, 3))
    with pytest.raises(NotReadable, match="markers not found: 2, 3"):
        _localiser().locate(cv2.cvtColor(frame.image, cv2.COLOR_BGR2GRAY))


def test_tracking_finds_the_same_pose():
    frame = render_frame({}, "board-11", seed=8, condition="museum")
    loc = _localiser()
    gray = cv2.cvtColor(frame.image, cv2.COLOR_BGR2GRAY)
    cold = loc.locate(gray, track=False)
    warm = loc.locate(gray, track=True)
    assert np.allclose(cold.H / cold.H[2, 2], warm.H / warm.H[2, 2], atol=1e-3)


@pytest.mark.parametrize("condition,seed", [("museum", 8), ("hard", 9)])
def test_the_near_search_finds_all_four_where_the_whole_frame_does(condition, seed):
    """The tracked path's crops find every marker, at the corners the whole-frame search gives.

    Otherwise each tracked frame would quietly pay for the whole-frame search.
    """
    frame = render_frame({}, "board-11", seed=seed, condition=condition)
    loc = _localiser()
    gray = cv2.cvtColor(frame.image, cv2.COLOR_BGR2GRAY)
    loc.locate(gray, track=False)
    whole = loc._previous["quads"]
    near = loc._detect_near(gray, whole)
    assert sorted(near) == sorted(whole)
    for mid in whole:
        assert np.abs(near[mid] - whole[mid]).max() < 0.5


def test_the_near_search_ignores_outlines_far_smaller_than_the_marker():
    """Round a marker's last place, a marker a quarter its size is grain, not the marker.

    The near detector's smallest outline (NEAR_MIN_PERIMETER_RATE) is what
    keeps wood grain and piece edges from each being decoded; the quick
    detector on the same crop still finds the small one.
    """
    cfg = Config()
    loc = _localiser()
    side = 36
    crop = np.full((3 * side, 3 * side), 200, np.uint8)
    small = cv2.aruco.generateImageMarker(loc._dictionary, cfg.markers.ids[0], side // 4)
    crop[side:side + small.shape[0], side:side + small.shape[1]] = small
    assert cfg.markers.ids[0] in loc.detect(crop, quick=True)
    assert loc.detect(crop, near=True) == {}
    big = cv2.aruco.generateImageMarker(loc._dictionary, cfg.markers.ids[0], side)
    crop[side:2 * side, side:2 * side] = big
    assert cfg.markers.ids[0] in loc.detect(crop, near=True)


def _whole_frame_searches(loc, shape):
    """Count the localiser's detector runs over the whole picture (not a crop)."""
    calls = []
    detect = loc.detect

    def spy(gray, **kw):
        calls.append(gray.shape == shape)
        return detect(gray, **kw)
    loc.detect = spy
    return calls


@pytest.mark.parametrize("seed", [15, 27, 39])
def test_a_marker_the_near_search_misses_is_found_at_its_last_place(seed):
    """Dim, soft frames where the quick crop search misses one or two markers every time.

    Tracked, they are found round their last places: the same pose as the
    whole-frame search, without running it.
    """
    frame = render_frame({}, "board-11", seed=seed, condition="hard")
    loc = _localiser()
    gray = cv2.cvtColor(frame.image, cv2.COLOR_BGR2GRAY)
    cold = loc.locate(gray, track=False)
    assert len(loc._detect_near(gray, loc._previous["quads"])) < 4       # the case this is about
    loc._previous["patches"] = {}             # as if the board had moved: the search, not the still check
    calls = _whole_frame_searches(loc, gray.shape)
    warm = loc.locate(gray, track=True)
    assert not any(calls)
    seen = cv2.perspectiveTransform(np.array([[[0.0, 0.0]], [[400.0, 400.0]]]), warm.H)
    truth = cv2.perspectiveTransform(np.array([[[0.0, 0.0]], [[400.0, 400.0]]]), cold.H)
    assert np.abs(seen - truth).max() < 1.0


def test_a_marker_covered_since_the_last_frame_is_still_missing():
    """Tracking never stands a marker's last place in for the marker: a covered one refuses the frame."""
    loc = _localiser()
    seen = render_frame({}, "board-11", seed=15, condition="hard")
    loc.locate(cv2.cvtColor(seen.image, cv2.COLOR_BGR2GRAY), track=False)
    covered = render_frame({}, "board-11", seed=15, condition="hard", hide_markers=(2,))
    with pytest.raises(NotReadable, match="markers not found: 2"):
        loc.locate(cv2.cvtColor(covered.image, cv2.COLOR_BGR2GRAY), track=True)


def test_last_places_are_not_used_once_the_board_has_moved():
    """A marker found again but moved (a bumped board) sends the missed ones to the whole-frame search."""
    frame = render_frame({}, "board-11", seed=15, condition="hard")
    loc = _localiser()
    gray = cv2.cvtColor(frame.image, cv2.COLOR_BGR2GRAY)
    loc.locate(gray, track=False)
    now = dict(loc._previous["quads"])
    last = {mid: quad + 12.0 for mid, quad in now.items()}       # where they were before the bump
    found = {mid: now[mid] for mid in list(now)[:3]}
    loc._search_near(gray, found, last)
    assert sorted(found) == sorted(list(now)[:3])
    found = {mid: now[mid] for mid in list(now)[:3]}
    loc._search_near(gray, found, now)
    assert sorted(found) == sorted(now)


def _all_searches(loc):
    """Count every detector run of the localiser, on the whole picture or a crop."""
    calls = []
    detect = loc.detect

    def spy(gray, **kw):
        calls.append(gray.shape)
        return detect(gray, **kw)
    loc.detect = spy
    return calls


def _noisy(image, seed, gain=1.0):
    """Another picture of the same still scene: new sensor noise (and, with gain, dimmer light)."""
    noise = np.random.default_rng(seed).normal(0.0, 3.0, image.shape)
    return np.clip(image.astype(np.float64) * gain + noise, 0, 255).astype(np.uint8)


@pytest.mark.parametrize("condition,seed,gain", [("museum", 8, 1.0), ("hard", 15, 1.0), ("hard", 27, 0.7)])
def test_a_still_board_keeps_its_marker_places(condition, seed, gain):
    """The next pictures of a still board keep the markers' places without searching for them.

    The search is a third of a dim frame's reading time, and on a still
    board it only moves the corners by the sensor's noise. New noise, and
    light dimmed evenly (a visitor's shadow), are still the same board.
    """
    frame = render_frame({}, "board-11", seed=seed, condition=condition)
    loc = _localiser()
    cold = loc.locate(cv2.cvtColor(frame.image, cv2.COLOR_BGR2GRAY), track=False)
    calls = _all_searches(loc)
    for k in range(3):
        warm = loc.locate(cv2.cvtColor(_noisy(frame.image, 100 + k, gain), cv2.COLOR_BGR2GRAY), track=True)
        assert np.array_equal(warm.H, cold.H)
    assert calls == []


@pytest.mark.parametrize("dx,dy", [(1, 0), (0, -2), (3, 3)])
def test_a_board_moved_by_a_pixel_is_located_afresh(dx, dy):
    """A board (or camera) moved by even a pixel since the markers were found is searched again, and located where it now is."""
    frame = render_frame({}, "board-11", seed=8, condition="museum")
    loc = _localiser()
    gray = cv2.cvtColor(frame.image, cv2.COLOR_BGR2GRAY)
    cold = loc.locate(gray, track=False)
    moved = np.roll(gray, (dy, dx), axis=(0, 1))
    warm = loc.locate(moved, track=True)
    points = np.array([[[0.0, 0.0]], [[400.0, 400.0]], [[0.0, 400.0]]])
    seen = cv2.perspectiveTransform(points, warm.H).reshape(-1, 2)
    truth = cv2.perspectiveTransform(points, cold.H).reshape(-1, 2) + [dx, dy]
    assert np.abs(seen - truth).max() < 0.3


def test_a_hand_over_a_marker_of_a_still_board_refuses_the_frame():
    """The still check is no way round a covered marker: the frame is refused, naming it."""
    loc = _localiser()
    seen = render_frame({}, "board-11", seed=8, condition="museum")
    loc.locate(cv2.cvtColor(seen.image, cv2.COLOR_BGR2GRAY), track=False)
    loc.locate(cv2.cvtColor(_noisy(seen.image, 1), cv2.COLOR_BGR2GRAY), track=True)
    covered = render_frame({}, "board-11", seed=8, condition="museum", hide_markers=(3,))
    with pytest.raises(NotReadable, match="markers not found: 3"):
        loc.locate(cv2.cvtColor(covered.image, cv2.COLOR_BGR2GRAY), track=True)


def test_calibrated_lens_is_undistorted():
    """With the camera's intrinsics and distortion in the config, the pose is exact and the board still reads."""
    from vision.reader import BoardReader

    pieces = {sq: p.value for sq, p in Board("copenhagen").pieces().items()}
    frame = None
    for seed in range(90, 120):               # a frame with clearly visible barrel/pincushion distortion
        frame = render_frame(pieces, "board-11", seed=seed, condition="museum")
        if abs(frame.camera.dist[0]) > 0.06:
            break
    cam = frame.camera
    cfg = Config()
    cfg.camera.camera_matrix = cam.K.tolist()
    cfg.camera.distortion = cam.dist.tolist()
    geo = BoardGeometry.from_config(cfg, "board-11")
    calibrated = BoardLocaliser(geo, cfg.markers, cfg.camera)
    plain = _localiser()
    gray = cv2.cvtColor(frame.image, cv2.COLOR_BGR2GRAY)
    pts = np.array([geo.square_center(sq) for sq in range(121)])
    ideal = (cam.K @ (cam.R @ np.column_stack([pts, np.zeros(121)]).T + cam.t[:, None])).T
    ideal = ideal[:, :2] / ideal[:, 2:]
    err_cal = np.abs(cv2.perspectiveTransform(pts.reshape(-1, 1, 2), calibrated.locate(gray).H).reshape(-1, 2) - ideal)
    # the markers' homography alone (no lens at all) is off mid-board ...
    view = plain.locate(gray)
    marker_px = np.vstack([view.marker_corners[i] for i in plain.markers.ids])
    raw, _ = cv2.findHomography(np.vstack([plain.board_points[i] for i in plain.markers.ids]), marker_px, 0)
    err_raw = np.abs(cv2.perspectiveTransform(pts.reshape(-1, 1, 2), raw).reshape(-1, 2) - ideal)
    assert err_cal.max() < 1.5 < err_raw.max()
    # ... and with no calibration configured, the lens fitted from the grid puts the squares where the camera sees them
    seen = frame.camera.project(np.column_stack([pts, np.zeros(121)]))
    assert not plain.calibrated and np.abs(view.to_image(pts) - seen).max() < 1.5
    # and through the lens model the whole board reads
    reading = BoardReader(cfg, "board-11").read(frame.image, track=False)
    assert reading.position == Board("copenhagen").position_otn()
