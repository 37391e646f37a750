"""Where things are, in millimetres: squares, markers, storage slots, and the gantry's frame.

The board frame has its origin at the outer corner of a1, x along the files and
y along the ranks (docs/hardware.md, "Coordinates"). Vision, the robot and
calibration all measure in this frame, so it is computed in one place.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from calibration.config import BoardSpec, Config, GantryConfig, MarkerConfig, StorageConfig

Point = tuple[float, float]


@dataclass(frozen=True)
class BoardGeometry:
    """Millimetre positions on one board and its frame."""

    spec: BoardSpec
    markers: MarkerConfig
    storage: StorageConfig

    @classmethod
    def from_config(cls, config: Config, board_name: str | None = None) -> "BoardGeometry":
        spec = config.boards[board_name or config.board]
        return cls(spec=spec, markers=config.markers, storage=config.storage)

    @property
    def size(self) -> int:
        return self.spec.squares

    @property
    def pitch(self) -> float:
        return self.spec.pitch_mm

    @property
    def width(self) -> float:
        return self.spec.width_mm

    def square_center(self, square: int) -> Point:
        """Centre of a square given as index rank * size + file."""
        file, rank = square % self.size, square // self.size
        return ((file + 0.5) * self.pitch, (rank + 0.5) * self.pitch)

    def square_at(self, x: float, y: float) -> int | None:
        """The square containing a point, or None off the playing area."""
        file, rank = math.floor(x / self.pitch), math.floor(y / self.pitch)
        if 0 <= file < self.size and 0 <= rank < self.size:
            return rank * self.size + file
        return None

    def marker_center(self, index: int) -> Point:
        """Centre of marker 0..3 (the position, not the id): a1 corner, then counter-clockwise."""
        w, o = self.width, self.markers.offset_mm
        return [(-o, -o), (w + o, -o), (w + o, w + o), (-o, w + o)][index]

    def marker_corners(self, index: int) -> list[Point]:
        """The marker's black square in ArUco corner order (top-left, top-right,
        bottom-right, bottom-left), printed upright: its top edge towards +y."""
        cx, cy = self.marker_center(index)
        h = self.markers.size_mm / 2
        return [(cx - h, cy + h), (cx + h, cy + h), (cx + h, cy - h), (cx - h, cy - h)]

    def storage_slots(self, side: str, count: int) -> list[Point]:
        """`count` parking slots for 'attackers' (left) or 'defenders' (right).

        Slots fill the inner column first, from y = first_slot_y upwards, then
        the outer column. For the defenders, slot 0 is the king's own slot.
        """
        st = self.storage
        if side == "attackers":
            columns = list(st.attacker_columns_x_mm)
        elif side == "defenders":
            columns = [self.width + dx for dx in st.defender_columns_offset_mm]
        else:
            raise ValueError(f"side must be 'attackers' or 'defenders', not {side!r}")
        per_column = math.ceil(count / len(columns))
        slots = []
        for i in range(count):
            x = columns[i // per_column]
            y = st.first_slot_y_mm + (i % per_column) * st.slot_pitch_mm
            slots.append((x, y))
        return slots


@dataclass(frozen=True)
class GantryTransform:
    """Board millimetres to machine millimetres: scale per axis, rotate, then offset."""

    origin: Point = (170.0, 40.0)
    rotation_deg: float = 0.0
    scale: Point = (1.0, 1.0)

    @classmethod
    def from_config(cls, gantry: GantryConfig) -> "GantryTransform":
        (ox, oy), (sx, sy) = gantry.board_origin_mm, gantry.scale
        return cls((ox, oy), gantry.rotation_deg, (sx, sy))

    def to_machine(self, x: float, y: float) -> Point:
        sx, sy = x * self.scale[0], y * self.scale[1]
        c, s = math.cos(math.radians(self.rotation_deg)), math.sin(math.radians(self.rotation_deg))
        return (self.origin[0] + c * sx - s * sy, self.origin[1] + s * sx + c * sy)

    def to_board(self, mx: float, my: float) -> Point:
        dx, dy = mx - self.origin[0], my - self.origin[1]
        c, s = math.cos(math.radians(self.rotation_deg)), math.sin(math.radians(self.rotation_deg))
        return ((c * dx + s * dy) / self.scale[0], (-s * dx + c * dy) / self.scale[1])


def square_label(square: int, size: int) -> str:
    """Chess-style name of a square index for messages ('a1', 'k11'); same scheme as the engine."""
    return f"{chr(ord('a') + square % size)}{square // size + 1}"
