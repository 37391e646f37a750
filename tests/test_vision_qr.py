"""Reading a QR code from a rendered camera frame: a segno-made code on a card a visitor holds up."""
import cv2
import pytest

from tests.helpers.qr_card import frame_with_card
from vision.qr_read import read_qr
from vision.renderer import render_frame

@pytest.mark.parametrize("payload,centre,turn,seed", [
    ("TAFL:0123-4567-89AB-CDEF", (150.0, 150.0), 0.0, 1),
    ("TAFL:FEDC-BA98-7654-3210", (300.0, 200.0), 35.0, 2),
    ("copenhagen 1-0 d1-d3 e4-e6 k5-h5", (200.0, 330.0), -70.0, 3),
])
def test_a_code_on_the_board_is_read_from_a_rendered_frame(payload, centre, turn, seed):
    frame, card_corners = frame_with_card(payload, centre, turn, seed)
    reading = read_qr(frame)
    assert reading is not None and reading.text == payload
    # the corners found lie on the card (within its quiet zone, a few modules)
    inside = [cv2.pointPolygonTest(card_corners.reshape(-1, 1, 2), tuple(map(float, p)), True) for p in reading.corners]
    assert min(inside) > -3.0


def test_a_frame_without_a_code_reads_nothing():
    assert read_qr(render_frame({}, seed=4, condition="museum").image) is None


def test_grey_frames_are_read_too():
    frame, _ = frame_with_card("TAFL:0000-1111-2222-3333", (200.0, 200.0), 20.0, 6)
    reading = read_qr(cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY))
    assert reading is not None and reading.text == "TAFL:0000-1111-2222-3333"


def test_a_fourth_corner_guessed_off_is_completed_from_the_three_finder_corners():
    """The detector guesses the corner without a finder pattern; a parallelogram of the other three
    puts it back where a card seen nearly square-on has it."""
    import numpy as np

    from vision.qr_read import _completed

    true = np.array([[589.0, 367.0], [672.0, 85.0], [961.0, 160.0], [878.0, 442.0]], np.float32)
    guessed = true.copy()
    guessed[3] += (-12.0, 17.0)               # as measured on a frame the decoder could not read
    quads = _completed(guessed)
    assert len(quads) == 4
    assert np.abs(quads[3] - true).max() < 1e-3
    for i, quad in enumerate(quads):          # each replaces one corner and keeps the other three
        others = [k for k in range(4) if k != i]
        assert (quad[others] == guessed[others]).all()
