"""PNG and PDF files that print at true size.

A marker printed at 97 % of its size silently biases every millimetre the
camera measures, so the printables carry their physical size in the file:
the PNG's pHYs chunk states the resolution (OpenCV's PNG writer does not), and
the PDF's page is exactly the image's size in points.

WHY no PDF library (img2pdf was weighed, issue 20): the writer below does
what img2pdf would do for these pages -- one 8-bit grey image per page as a
Flate-compressed XObject on a page of exactly its physical size -- in fifty
lines of the PDF 1.4 basics, with no dependency. img2pdf 0.6 needs pikepdf
(qpdf in C++), lxml and Pillow: three compiled packages on the kiosk for no
change in the output. qpdf (through pikepdf) opens our files and reports the
exact page sizes, so the writer stays.
"""
from __future__ import annotations

import struct
import zlib
from collections.abc import Sequence

import cv2
import numpy as np

MM_PER_INCH = 25.4
POINTS_PER_INCH = 72.0


def mm_to_px(mm: float, dpi: float) -> float:
    return mm * dpi / MM_PER_INCH


def _png_chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def png_with_dpi(image: np.ndarray, dpi: float) -> bytes:
    """PNG bytes of a grey or BGR image with a pHYs chunk saying ``dpi``."""
    ok, encoded = cv2.imencode(".png", image)
    if not ok:
        raise ValueError("OpenCV could not encode the image as PNG")
    data = encoded.tobytes()
    # Signature (8 bytes), then IHDR (4 length + 4 type + 13 data + 4 crc = 25 bytes).
    head, rest = data[:33], data[33:]
    if head[12:16] != b"IHDR":
        raise ValueError("unexpected PNG layout from OpenCV")
    rest = _strip_chunks(rest, {b"pHYs"})
    per_metre = round(dpi / 0.0254)
    phys = _png_chunk(b"pHYs", struct.pack(">IIB", per_metre, per_metre, 1))
    return head + phys + rest


def _strip_chunks(data: bytes, kinds: set[bytes]) -> bytes:
    out, i = [], 0
    while i < len(data):
        length = struct.unpack(">I", data[i:i + 4])[0]
        end = i + 12 + length
        if data[i + 4:i + 8] not in kinds:
            out.append(data[i:end])
        i = end
    return b"".join(out)


def png_dpi(data: bytes) -> float | None:
    """The resolution a PNG states in its pHYs chunk, or None."""
    i = 8
    while i < len(data):
        length = struct.unpack(">I", data[i:i + 4])[0]
        kind = data[i + 4:i + 8]
        if kind == b"pHYs":
            x, _y, unit = struct.unpack(">IIB", data[i + 8:i + 17])
            return x * 0.0254 if unit == 1 else None
        if kind == b"IDAT":
            return None
        i += 12 + length
    return None


def pdf_of_pages(pages: Sequence[tuple[np.ndarray, float]]) -> bytes:
    """A PDF with one page per (grey image, dpi), each page exactly the image's physical size."""
    objects: list[bytes] = []

    def add(body: bytes) -> int:
        objects.append(body)
        return len(objects)            # PDF object numbers start at 1

    catalog = add(b"")                 # filled once the page tree's number is known
    tree = add(b"")
    page_ids = []
    for image, dpi in pages:
        if image.ndim != 2 or image.dtype != np.uint8:
            raise ValueError("PDF pages must be 8-bit grey images")
        h, w = image.shape
        width_pt = w / dpi * POINTS_PER_INCH
        height_pt = h / dpi * POINTS_PER_INCH
        pixels = zlib.compress(np.ascontiguousarray(image).tobytes(), 9)
        img = add(b"<< /Type /XObject /Subtype /Image /Width %d /Height %d /ColorSpace /DeviceGray "
                  b"/BitsPerComponent 8 /Filter /FlateDecode /Length %d >>\nstream\n"
                  % (w, h, len(pixels)) + pixels + b"\nendstream")
        content = b"q %.4f 0 0 %.4f 0 0 cm /Im0 Do Q" % (width_pt, height_pt)
        stream = add(b"<< /Length %d >>\nstream\n" % len(content) + content + b"\nendstream")
        page_ids.append(add(
            b"<< /Type /Page /Parent %d 0 R /MediaBox [0 0 %.4f %.4f] /Resources << /XObject "
            b"<< /Im0 %d 0 R >> >> /Contents %d 0 R >>" % (tree, width_pt, height_pt, img, stream)))
    objects[catalog - 1] = b"<< /Type /Catalog /Pages %d 0 R >>" % tree
    kids = b" ".join(b"%d 0 R" % p for p in page_ids)
    objects[tree - 1] = b"<< /Type /Pages /Kids [%s] /Count %d >>" % (kids, len(page_ids))

    out = bytearray(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    for offset in offsets:
        out += b"%010d 00000 n \n" % offset
    out += b"trailer\n<< /Size %d /Root %d 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (
        len(objects) + 1, catalog, xref)
    return bytes(out)
