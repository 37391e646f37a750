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

import segno

ERROR_LEVEL = "M"                 # 15 % of the code may be dirty or scratched and still read
MAX_BYTES = 2331                  # version 40 at level M, byte mode (ISO/IEC 18004 table 7)

Matrix = list[list[bool]]         # [row][column], True = dark; no quiet zone


def encode(payload: bytes | str) -> Matrix:
    """The smallest QR code at level M holding ``payload``, as rows of dark/light modules.

    The caller draws the 4-module quiet zone around it. A payload too long for
    any QR version raises ValueError saying how long it was and what fits.
    """
    try:
        code = segno.make_qr(payload, error=ERROR_LEVEL, boost_error=False)
    except segno.DataOverflowError:
        size = len(payload.encode("utf-8") if isinstance(payload, str) else payload)
        raise ValueError(f"QR payload of {size} bytes is too long: a QR code at level "
                         f"{ERROR_LEVEL} holds at most {MAX_BYTES} bytes") from None
    return [[bool(module) for module in row] for row in code.matrix]
