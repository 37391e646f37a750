"""The QR matrix the kiosk draws must be read back by an independent decoder (OpenCV)."""
import cv2
import numpy as np
import pytest

from kiosk.ui import qr


def decode(matrix, module_px=4):
    image = np.where(np.array(matrix, dtype=bool), 0, 255).astype(np.uint8)
    image = np.pad(image, 4, constant_values=255)
    image = cv2.resize(image, None, fx=module_px, fy=module_px, interpolation=cv2.INTER_NEAREST)
    text, _, _ = cv2.QRCodeDetector().detectAndDecode(image)
    return text


RECORD = "TAFL-GAME copenhagen 1-0 " + " ".join(f"{c}{r}-{c}{r + 2}" for c in "abcdefghijk" for r in range(1, 5))


@pytest.mark.parametrize("payload", ["TAFL:0123-4567-89AB-CDEF", "a", "Hnefatafl kiosk", RECORD])
def test_opencv_reads_back_what_was_encoded(payload):
    matrix = qr.encode(payload)
    side = len(matrix)
    assert all(len(row) == side for row in matrix) and (side - 17) % 4 == 0
    assert decode(matrix) == payload


def test_the_version_grows_with_the_payload():
    # The reward code fits a small code; a game record needs a larger version than 2.
    assert len(qr.encode("TAFL:0123-4567-89AB-CDEF")) == 25
    assert len(qr.encode(RECORD)) > 25


def test_function_patterns_are_in_place():
    m = qr.encode("abc")
    n = len(m)
    # Finder pattern corners are dark, separators light, timing pattern alternates.
    for top, left in ((0, 0), (0, n - 7), (n - 7, 0)):
        assert m[top][left] and m[top + 6][left + 6] and m[top + 3][left + 3]
        assert not m[top + 1][left + 1]
    assert [m[6][c] for c in range(8, n - 8)] == [c % 2 == 0 for c in range(8, n - 8)]
    assert m[n - 8][8]                      # the dark module


def test_bytes_and_text_both_encode():
    assert decode(qr.encode(b"TAFL bytes")) == "TAFL bytes"


def test_too_long_payload_is_refused_with_a_clear_message():
    assert len(qr.encode("y" * qr.MAX_BYTES)) == 177          # version 40 still holds it
    with pytest.raises(ValueError, match=f"2332 bytes is too long.*at most {qr.MAX_BYTES}"):
        qr.encode("y" * (qr.MAX_BYTES + 1))
