"""Reading a QR code from a rendered camera frame: a segno-made code on a card a visitor holds up."""
import cv2
import numpy as np
import pytest
import segno

from vision.qr_read import read_qr
from vision.renderer import render_frame

CARD_MM = 100.0                     # a printed card (or a phone screen), quiet zone included
HELD_MM = 250.0                     # held up this far above the board, towards the camera


def qr_image(payload: str, module_px: int = 8) -> np.ndarray:
    """The code as a grey image with its 4-module quiet zone."""
    image = np.where(np.array(segno.make_qr(payload, error="m").matrix, dtype=bool), 0, 255).astype(np.uint8)
    image = np.pad(image, 4, constant_values=255)
    return cv2.resize(image, None, fx=module_px, fy=module_px, interpolation=cv2.INTER_NEAREST)


def frame_with_card(payload: str, centre_mm: tuple[float, float], turn_deg: float, seed: int):
    """A rendered museum frame with the card pasted in, level, through the camera's own model."""
    rendered = render_frame({}, seed=seed, condition="museum")
    card = qr_image(payload)
    side = card.shape[0]
    cx, cy = centre_mm
    a = np.radians(turn_deg)
    half = CARD_MM / 2
    # card corners (top-left, top-right, bottom-right, bottom-left) above the board, turned by `a`
    offsets = [(-half, half), (half, half), (half, -half), (-half, -half)]
    board = [(cx + dx * np.cos(a) - dy * np.sin(a), cy + dx * np.sin(a) + dy * np.cos(a), HELD_MM) for dx, dy in offsets]
    dst = rendered.camera.project(np.array(board)).astype(np.float32)
    src = np.array([[0, 0], [side, 0], [side, side], [0, side]], np.float32)
    h = cv2.getPerspectiveTransform(src, dst)
    frame = rendered.image.copy()
    size = (frame.shape[1], frame.shape[0])
    warped = cv2.warpPerspective(card, h, size, flags=cv2.INTER_AREA)
    mask = cv2.warpPerspective(np.full_like(card, 255), h, size) > 127
    lit = 0.8 * frame[mask].mean(axis=1, keepdims=True) / 255.0 + 0.4          # the room's light on the card
    frame[mask] = np.clip(warped[mask][:, None] * lit, 0, 255).astype(np.uint8)
    frame = cv2.GaussianBlur(frame, (3, 3), 0.8)                                # camera focus
    return frame, dst


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
