"""Printable sheets: the frame's four markers at true size, and the ChArUco lens sheet.

The marker layout sheet is the whole frame at 1:1 (for a large-format
printer, or as a placement template); the PDF adds one A4 page per marker
with crosshairs through its centre, for a museum that prints on A4 and
places each marker by measuring from the board's corner.
"""
from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from calibration.config import Config
from calibration.geometry import BoardGeometry
from calibration.lens import CharucoSpec
from calibration.print_files import mm_to_px

A4_MM = (210.0, 297.0)
WHITE, BLACK, GREY, LIGHT = 255, 0, 120, 190


@dataclass
class Sheet:
    """A grey image meant to be printed at ``dpi``; ``origin_mm`` is the board point at pixel (0, 0)."""

    image: np.ndarray
    dpi: float
    origin_mm: tuple[float, float]     # board frame (x, y) of the image's top-left corner

    @property
    def size_mm(self) -> tuple[float, float]:
        h, w = self.image.shape
        return (w / self.dpi * 25.4, h / self.dpi * 25.4)

    def to_px(self, x: float, y: float) -> tuple[float, float]:
        """Board mm to pixel coordinates (image y grows down, board y grows up)."""
        s = self.dpi / 25.4
        return ((x - self.origin_mm[0]) * s, (self.origin_mm[1] - y) * s)


def marker_bits(dictionary: str, marker_id: int) -> np.ndarray:
    """The marker's cells, including its one-cell black border: 255 white, 0 black."""
    d = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, dictionary))
    cells = d.markerSize + 2
    return cv2.aruco.generateImageMarker(d, marker_id, cells, borderBits=1)


def _fill_rect_mm(sheet: Sheet, x0: float, y0: float, x1: float, y1: float, value: int) -> None:
    """Fill a board-mm rectangle, rounding each edge to the nearest pixel edge (<= half a pixel off)."""
    px0, py1 = sheet.to_px(x0, y0)
    px1, py0 = sheet.to_px(x1, y1)
    c0, c1 = int(round(px0)), int(round(px1))
    r0, r1 = int(round(py0)), int(round(py1))
    sheet.image[max(r0, 0):max(r1, 0), max(c0, 0):max(c1, 0)] = value


def draw_marker(sheet: Sheet, dictionary: str, marker_id: int, corners: list[tuple[float, float]]) -> None:
    """Draw one marker so its black square lands exactly on ``corners`` (upright, ArUco order)."""
    bits = marker_bits(dictionary, marker_id)
    n = bits.shape[0]
    left, top = corners[0]
    right, bottom = corners[2]
    cell = (right - left) / n
    for r in range(n):
        for c in range(n):
            x0 = left + c * cell
            y1 = top - r * cell
            _fill_rect_mm(sheet, x0, y1 - cell, x0 + cell, y1, int(bits[r, c]))


def _text(sheet: Sheet, text: str, x_mm: float, y_mm: float, height_mm: float = 3.0,
          centred: bool = False) -> None:
    """Write text with its baseline at a board-mm point."""
    font = cv2.FONT_HERSHEY_SIMPLEX
    px_height = mm_to_px(height_mm, sheet.dpi)
    scale = px_height / 22.0
    thickness = max(1, int(round(scale * 1.6)))
    (w, _h), _ = cv2.getTextSize(text, font, scale, thickness)
    x, y = sheet.to_px(x_mm, y_mm)
    if centred:
        x -= w / 2
    cv2.putText(sheet.image, text, (int(round(x)), int(round(y))), font, scale, BLACK, thickness,
                cv2.LINE_AA)


def _line(sheet: Sheet, p0, p1, width_mm: float, value: int) -> None:
    a = tuple(int(round(v)) for v in sheet.to_px(*p0))
    b = tuple(int(round(v)) for v in sheet.to_px(*p1))
    cv2.line(sheet.image, a, b, value, max(1, int(round(mm_to_px(width_mm, sheet.dpi)))), cv2.LINE_AA)


def _scale_bar(sheet: Sheet, x_mm: float, y_mm: float, length_mm: float = 100.0) -> None:
    _fill_rect_mm(sheet, x_mm, y_mm, x_mm + length_mm, y_mm + 2.0, BLACK)
    for tick in range(0, int(length_mm) + 1, 10):
        _fill_rect_mm(sheet, x_mm + tick - 0.2, y_mm, x_mm + tick + 0.2, y_mm + 4.0, BLACK)
    _text(sheet, f"{length_mm:g} mm: measure this bar to check the print scale", x_mm,
          y_mm - 5.0, 3.0)


def _blank(width_mm: float, height_mm: float, dpi: float, origin_mm: tuple[float, float]) -> Sheet:
    w = int(round(mm_to_px(width_mm, dpi)))
    h = int(round(mm_to_px(height_mm, dpi)))
    return Sheet(np.full((h, w), WHITE, np.uint8), dpi, origin_mm)


def marker_layout(config: Config, board_name: str | None, dpi: float, margin_mm: float = 15.0) -> Sheet:
    """The whole frame at 1:1: four markers, the playing-area outline, labels and a scale bar."""
    geo = BoardGeometry.from_config(config, board_name)
    m = config.markers
    reach = m.offset_mm + m.size_mm / 2 + m.quiet_zone_mm + margin_mm
    lo, hi = -reach, geo.width + reach
    sheet = _blank(hi - lo, hi - lo, dpi, (lo, hi))
    w, p = geo.width, geo.pitch
    for a, b in (((0, 0), (w, 0)), ((w, 0), (w, w)), ((w, w), (0, w)), ((0, w), (0, 0))):
        _line(sheet, a, b, 0.3, GREY)
    for k in range(1, geo.size):                         # square ticks along the outline
        for a, b in (((k * p, 0), (k * p, 4)), ((k * p, w), (k * p, w - 4)),
                     ((0, k * p), (4, k * p)), ((w, k * p), (w - 4, k * p))):
            _line(sheet, a, b, 0.3, GREY)
    for index, marker_id in enumerate(m.ids):
        corners = geo.marker_corners(index)
        draw_marker(sheet, m.dictionary, marker_id, corners)
        cx, cy = geo.marker_center(index)
        below = cy < w / 2
        ty = cy - m.size_mm / 2 - m.quiet_zone_mm - 4.0 if below else cy + m.size_mm / 2 + m.quiet_zone_mm + 1.5
        _text(sheet, f"id {marker_id}  centre ({cx:g}, {cy:g}) mm", cx, ty, 2.8, centred=True)
    spec = config.boards[board_name or config.board]
    _text(sheet, f"{board_name or config.board}: {spec.squares} x {spec.squares} squares of "
                 f"{spec.pitch_mm:g} mm, markers {m.dictionary} {m.size_mm:g} mm", w / 2, w / 2 + 30, 5.0,
          centred=True)
    _text(sheet, "grey outline = playing area; print at 100 %, no 'fit to page'", w / 2, w / 2 + 18,
          4.0, centred=True)
    _text(sheet, "a1 corner", 2.0, 6.0, 3.0)
    _scale_bar(sheet, w / 2 - 50, w / 2 - 20)
    return sheet


def marker_tile(config: Config, board_name: str | None, index: int, dpi: float) -> Sheet:
    """One marker centred on an A4 page, with crosshairs through its centre to place it by measuring."""
    geo = BoardGeometry.from_config(config, board_name)
    m = config.markers
    cx, cy = geo.marker_center(index)
    wmm, hmm = A4_MM
    sheet = _blank(wmm, hmm, dpi, (cx - wmm / 2, cy + hmm / 2))
    h = m.size_mm / 2
    gap = h + m.quiet_zone_mm
    # crosshairs through the centre, interrupted where the text and the scale bar are
    for a, b in (((cx - wmm, cy), (cx - gap, cy)), ((cx + gap, cy), (cx + wmm, cy)),
                 ((cx, cy - hmm), (cx, cy - 90)), ((cx, cy - 70), (cx, cy - gap)),
                 ((cx, cy + gap), (cx, cy + 55)), ((cx, cy + 88), (cx, cy + hmm))):
        _line(sheet, a, b, 0.25, GREY)
    draw_marker(sheet, m.dictionary, m.ids[index], geo.marker_corners(index))
    _text(sheet, f"marker id {m.ids[index]} ({m.dictionary}, {m.size_mm:g} mm)", cx, cy + 80, 5.0, centred=True)
    _text(sheet, f"centre at board ({cx:g}, {cy:g}) mm from the a1 corner", cx, cy + 70, 4.0, centred=True)
    _text(sheet, "top edge of this page towards the last rank", cx, cy + 62, 4.0, centred=True)
    _scale_bar(sheet, cx - 50, cy - 80)
    return sheet


def charuco_sheet(spec: CharucoSpec, dpi: float) -> Sheet:
    """The lens-calibration sheet on A4 landscape, at true size."""
    wmm, hmm = A4_MM[1], A4_MM[0]
    sheet = _blank(wmm, hmm, dpi, (0.0, hmm))
    bw, bh = spec.squares_x * spec.square_mm, spec.squares_y * spec.square_mm
    if bw > wmm - 20 or bh > hmm - 25:
        raise ValueError(f"{spec.describe()} does not fit on A4 landscape")
    square_px = int(round(mm_to_px(spec.square_mm, dpi)))
    drawn = spec.board().generateImage((spec.squares_x * square_px, spec.squares_y * square_px),
                                       marginSize=0, borderBits=1)
    tw, th = int(round(mm_to_px(bw, dpi))), int(round(mm_to_px(bh, dpi)))
    drawn = cv2.resize(drawn, (tw, th), interpolation=cv2.INTER_LINEAR)
    x0, y0 = sheet.to_px((wmm - bw) / 2, hmm - (hmm - bh) / 2 + 5)
    r, c = int(round(y0)), int(round(x0))
    sheet.image[r:r + th, c:c + tw] = drawn
    _text(sheet, spec.describe() + "  (tafl-calibrate camera defaults)", wmm / 2, 12.0, 3.5, centred=True)
    return sheet
