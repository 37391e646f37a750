"""Stillness before reporting, and the frame sources (camera reconnect, files, folders, renderer)."""
import cv2
import numpy as np
import pytest

from engine import Board
from vision.localise import NotReadable
from vision.reader import BoardReader
from vision.renderer import render_frame
from vision.sources import CameraSource, ImageFolderSource, RendererSource, VideoFileSource, frames, open_source
from vision.stability import StabilityTracker


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


def test_renderer_source_follows_the_position():
    board = Board("copenhagen")
    state = {"pieces": {sq: p.value for sq, p in board.pieces().items()}}
    src = RendererSource(lambda: state["pieces"], "board-11", seed=5, clock=lambda: 1.0)
    reader = BoardReader(board="board-11")
    frame, t = src.read()
    assert t == 1.0 and reader.read(frame).position == board.position_otn()
    assert src.read()[0] is frame                     # nothing changed: no re-render
    board.push(board.parse_move("h1-h3"))
    state["pieces"] = {sq: p.value for sq, p in board.pieces().items()}
    assert reader.read(src.read()[0]).position == board.position_otn()


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
