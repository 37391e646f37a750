"""Stillness before reporting, and the frame sources (camera reconnect, files, folders)."""
import cv2
import numpy as np
import pytest

from engine import Board
from vision.localise import NotReadable
from vision.reader import BoardReader
from vision.renderer import render_frame
from vision.sources import CAPTURE_BUFFERS, CameraSource, ImageFolderSource, VideoFileSource, frames, open_source
from vision.stability import StabilityTracker, square_means


@pytest.fixture(scope="module")
def start_frames():
    pieces = {sq: p.value for sq, p in Board("copenhagen").pieces().items()}
    a = render_frame(pieces, "board-11", seed=71, condition="museum")
    moved = dict(pieces)
    moved[3 + 11 * 2] = moved.pop(3)       # d1 -> d3
    b = render_frame(moved, "board-11", seed=72, condition="museum", camera=a.camera)
    return a.image, b.image


def test_position_reported_once_after_stillness(start_frames):
    reader = BoardReader(board="board-11")
    still, moved = start_frames
    tracker = StabilityTracker(stable_s=0.7)
    events = []
    for i in range(40):                               # 30 fps
        t = i / 30
        status = tracker.update(t, reader.read(still))
        if status.event:
            events.append(t)
    assert len(events) == 1 and 0.7 <= events[0] < 0.8


def test_sensor_noise_and_a_wobbling_homography_are_not_motion(start_frames):
    """A mounted camera's frames of a still board differ by sensor noise and a fraction of a
    pixel: still. A piece that moved is not (even before its square is read surely)."""
    reader = BoardReader(board="board-11")
    still, moved = start_frames
    rng = np.random.default_rng(3)
    tracker = StabilityTracker(stable_s=0.3)
    states = []
    for i in range(15):
        dx, dy = rng.uniform(-0.5, 0.5, 2)
        frame = cv2.warpAffine(still, np.float32([[1, 0, dx], [0, 1, dy]]), (still.shape[1], still.shape[0]),
                               borderMode=cv2.BORDER_REPLICATE)
        frame = np.clip(frame + rng.normal(0, 3, frame.shape), 0, 255).astype(np.uint8)
        states.append(tracker.update(i / 30, reader.read(frame)).state)
    assert "moving" not in states and states[-1] == "stable"
    # a rectified board with a piece put down on one square: that square's patch changes, and only it
    board = reader.read(still).rectified
    n = board.shape[1]
    rectified = cv2.warpAffine(board, np.float32([[1, 0, 0.3], [0, 1, -0.3]]), (n, n), borderMode=cv2.BORDER_REPLICATE)
    before = square_means(board, 11)
    pitch = n / 11
    cv2.circle(rectified, (int(6.5 * pitch), int(4.5 * pitch)), int(0.4 * pitch), (40, 30, 25), -1)
    change = np.abs(square_means(rectified, 11) - before)
    assert list(zip(*np.nonzero(change > 4.0))) == [(4, 6)]


def test_change_and_unreadable_restart_the_clock(start_frames):
    reader = BoardReader(board="board-11")
    still, moved = start_frames
    tracker = StabilityTracker(stable_s=0.5)
    t = 0.0
    for _ in range(10):
        assert tracker.update(t, reader.read(still)).event is None
        t += 1 / 30
    assert tracker.unreadable(t, "hand over board").state == "unreadable"
    t += 1 / 30
    status = tracker.update(t, reader.read(moved))
    assert status.state == "settling"
    got = None
    while got is None and t < 3:
        t += 1 / 30
        got = tracker.update(t, reader.read(moved)).event
    assert got is not None and got.at - got.since >= 0.5
    assert got.reading.pieces.get(3 + 22) == "t" and 3 not in got.reading.pieces


def test_image_folder_and_video_file(tmp_path, start_frames):
    still, moved = start_frames
    cv2.imwrite(str(tmp_path / "b.png"), moved)
    cv2.imwrite(str(tmp_path / "a.png"), still)
    (tmp_path / "notes.txt").write_text("not an image")
    got = list(frames(ImageFolderSource(tmp_path)))
    assert len(got) == 2 and np.array_equal(got[0][0], still)
    assert isinstance(open_source(str(tmp_path)), ImageFolderSource)
    video = _write_video(tmp_path / "clip.avi", still, 5)
    src = VideoFileSource(video)
    got = list(frames(src))
    assert len(got) == 5 and got[1][1] == pytest.approx(1 / 30)
    assert BoardReader(board="board-11").read(got[0][0]).position == Board("copenhagen").position_otn()


def test_camera_reconnects_after_dropping_out(tmp_path, start_frames):
    """A video file stands in for the UVC device: when it runs dry the source reopens it."""
    still, _ = start_frames
    video = _write_video(tmp_path / "cam.avi", still, 2)
    cam = CameraSource(str(video), retry_s=0.0)
    got = [cam.read() for _ in range(6)]
    assert [g is not None for g in got] == [True, True, False, True, True, False]
    assert cam.reconnects == 2 and "stopped" in cam.last_error
    cam.close()


def test_missing_camera_is_reported_not_raised():
    cam = CameraSource("/dev/tafl-no-such-camera", retry_s=0.0)
    assert cam.read() is None and "cannot be opened" in cam.last_error


def test_not_readable_is_an_exception_with_the_reason():
    assert str(NotReadable("too dark")) == "too dark"


def _write_video(path, frame, count: int):
    """An MJPG file of `count` copies of `frame` at 30 fps (skips the test where OpenCV cannot write one)."""
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter.fourcc(*"MJPG"), 30, (frame.shape[1], frame.shape[0]))
    if not writer.isOpened():
        pytest.skip("this OpenCV build cannot write MJPG video")
    for _ in range(count):
        writer.write(frame)
    writer.release()
    return path


class _RecordingCapture:
    """What CameraSource asks of an opened device (a real UVC camera is not on a CI machine)."""

    def __init__(self) -> None:
        self.props: dict[int, float] = {}

    def isOpened(self) -> bool:
        return True

    def set(self, prop: int, value: float) -> bool:
        self.props[prop] = value
        return True

    def read(self):
        return True, np.zeros((720, 1280, 3), np.uint8)

    def release(self) -> None:
        pass


def test_the_camera_is_asked_for_its_size_rate_and_one_queued_frame():
    """A frame queued in the driver is older than its stamp: the source asks for one buffer
    (vision/sources.py CAPTURE_BUFFERS), with the configured size and rate."""
    cap = _RecordingCapture()
    cam = CameraSource("0", width=1280, height=720, fps=30, opener=lambda dev: cap)
    frame, stamp = cam.read()
    assert frame.shape == (720, 1280, 3) and stamp > 0
    assert cap.props[cv2.CAP_PROP_BUFFERSIZE] == CAPTURE_BUFFERS == 1
    assert (cap.props[cv2.CAP_PROP_FRAME_WIDTH], cap.props[cv2.CAP_PROP_FRAME_HEIGHT],
            cap.props[cv2.CAP_PROP_FPS]) == (1280, 720, 30)
