"""The QR code the visitor takes home: a module matrix made by `segno`.

WHY a library: the reward code fitted one fixed small version, but the
take-home game record needs whatever version its length asks for (up to 40),
with the mask choice, alignment patterns and version information that come
with the larger versions. segno is pure Python, maintained, and implements
ISO/IEC 18004 completely; owning that here would be several hundred lines of
tables to get wrong. This module keeps the kiosk's one call, `encode`, so the
screens do not know which encoder draws the matrix; OpenCV's QR detector
reads every matrix back in the tests.
"""
from __future__ import annotations

from typing import Any

import segno

ERROR_LEVEL = "M"                 # 15 % of the code may be dirty or scratched and still read
MAX_BYTES = 2331                  # version 40 at level M, byte mode (ISO/IEC 18004 table 7)
#: the QR alphanumeric mode's characters: 5.5 bits each instead of the byte mode's 8
ALPHANUMERIC = frozenset("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ $%*+-./:")
#: a shorter alphanumeric tail does not repay the second segment's header
MIN_ALPHANUMERIC_TAIL = 16

Matrix = list[list[bool]]         # [row][column], True = dark; no quiet zone


def segments(payload: bytes | str) -> Any:
    """``payload`` as segno takes it: a text ending in a long alphanumeric run (the base32
    game record after a URL's '#', kiosk/record.py) becomes a byte segment and an
    alphanumeric one; anything else stays one segment of segno's choice."""
    if isinstance(payload, bytes):
        return payload
    start = len(payload)
    while start > 0 and payload[start - 1] in ALPHANUMERIC:
        start -= 1
    if len(payload) - start < MIN_ALPHANUMERIC_TAIL or start == 0:
        return payload
    return [(payload[:start], segno.consts.MODE_BYTE), (payload[start:], segno.consts.MODE_ALPHANUMERIC)]


def make(payload: bytes | str) -> segno.QRCode:
    """The smallest QR code at level M holding ``payload``; ValueError when none can."""
    try:
        return segno.make_qr(segments(payload), error=ERROR_LEVEL, boost_error=False)
    except segno.DataOverflowError:
        size = len(payload.encode("utf-8") if isinstance(payload, str) else payload)
        raise ValueError(f"QR payload of {size} bytes is too long: a QR code at level "
                         f"{ERROR_LEVEL} holds at most {MAX_BYTES} bytes") from None


def encode(payload: bytes | str) -> Matrix:
    """The smallest QR code at level M holding ``payload``, as rows of dark/light modules.

    The caller draws the 4-module quiet zone around it. A payload too long for
    any QR version raises ValueError saying how long it was and what fits.
    """
    return [[bool(module) for module in row] for row in make(payload).matrix]
