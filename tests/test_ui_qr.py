"""The QR encoder: what it draws must be read back by an independent decoder (OpenCV)."""
import cv2
import numpy as np
import pytest

from kiosk.ui import qr


def decode(matrix, module_px=8):
    image = np.where(np.array(matrix, dtype=bool), 0, 255).astype(np.uint8)
    image = np.pad(image, 4, constant_values=255)
    image = cv2.resize(image, None, fx=module_px, fy=module_px, interpolation=cv2.INTER_NEAREST)
    text, _, _ = cv2.QRCodeDetector().detectAndDecode(image)
    return text


@pytest.mark.parametrize("payload", ["TAFL:0123-4567-89AB-CDEF", "a", "Hnefatafl kiosk", "x" * qr.MAX_BYTES])
def test_opencv_reads_back_what_was_encoded(payload):
    matrix = qr.encode(payload)
    assert len(matrix) == qr.SIZE == 25
    assert decode(matrix) == payload


def test_function_patterns_are_in_place():
    m = qr.encode("abc")
    # Finder pattern corners are dark, separators light, timing pattern alternates.
    for top, left in ((0, 0), (0, 18), (18, 0)):
        assert m[top][left] and m[top + 6][left + 6] and m[top + 3][left + 3]
        assert not m[top + 1][left + 1]
    assert [m[6][c] for c in range(8, 17)] == [c % 2 == 0 for c in range(8, 17)]
    assert m[qr.SIZE - 8][8]                      # the dark module


def test_reed_solomon_remainder_makes_a_codeword():
    # A codeword (data + remainder) is divisible by the generator: its own remainder is zero.
    data = list(range(1, 29))
    ec = qr.reed_solomon(data)
    assert len(ec) == 16
    assert qr.reed_solomon(data + ec) == [0] * 16
    assert qr.reed_solomon(data[:-1] + [data[-1] ^ 1] + ec) != [0] * 16


def test_too_long_payload_is_refused_with_a_clear_message():
    with pytest.raises(ValueError, match="at most 26"):
        qr.encode("y" * 27)
