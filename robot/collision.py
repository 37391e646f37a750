"""Geometric proof that a plan never drags a piece into another one.

WHY separate from the planner: the planner *tries* to keep clear; this module
*checks* a finished plan independently, replaying it step by step against the
pieces as they stand at that moment. A dragged disc of radius r passing a disc
of radius R must keep its centre at least r + R (+ a margin) away from the
other's centre along every segment of its path. Travel with the magnet off
moves nothing and is not checked.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Protocol, Sequence

from robot.layout import Location, TableLayout

Point = tuple[float, float]


def _pt(p: Sequence[float]) -> Point:
    return (p[0], p[1])


def nearest_on_segment(p: Point, a: Point, b: Point) -> Point:
    """The point of the segment a-b nearest to p."""
    ax, ay = a
    dx, dy = b[0] - ax, b[1] - ay
    n2 = dx * dx + dy * dy
    if n2 <= 1e-18:
        return a
    t = max(0.0, min(1.0, ((p[0] - ax) * dx + (p[1] - ay) * dy) / n2))
    return (ax + t * dx, ay + t * dy)


def point_segment_distance(p: Point, a: Point, b: Point) -> float:
    q = nearest_on_segment(p, a, b)
    return math.hypot(p[0] - q[0], p[1] - q[1])


def squares_along(layout: TableLayout, src: Location, dst: Location) -> set[int]:
    """The board squares a straight drag from src to dst passes over (the point of the path nearest to a
    square's centre lies on that square), its two ends left out: where a piece the magnet lets go of on
    the way comes to lie."""
    a, b = layout.position(src), layout.position(dst)
    half = layout.pitch / 2
    out = set()
    for sq in range(layout.size * layout.size):
        c = layout.position(sq)
        q = nearest_on_segment(c, a, b)
        if sq not in (src, dst) and max(abs(c[0] - q[0]), abs(c[1] - q[1])) <= half:
            out.add(sq)
    return out


@dataclass(frozen=True)
class Obstacle:
    """A piece standing still while another one is dragged."""

    x: float
    y: float
    radius: float
    where: str = ""


@dataclass(frozen=True)
class Violation:
    """A dragged piece comes closer to another than their radii (and margin) allow."""

    step: int
    piece: str
    other: str
    gap_mm: float
    segment: tuple[Point, Point]

    def __str__(self) -> str:
        (ax, ay), (bx, by) = self.segment
        return (f"step {self.step}: {self.piece} dragged ({ax:.1f},{ay:.1f})->({bx:.1f},{by:.1f}) "
                f"comes {-self.gap_mm:.1f} mm too close to {self.other}")


class PlanStep(Protocol):  # pragma: no cover - typing aid
    """What the checker needs of a step (robot.planner.Step has these)."""

    @property
    def src(self) -> Location: ...
    @property
    def dst(self) -> Location: ...
    @property
    def piece(self) -> str: ...
    @property
    def path(self) -> Sequence[Point]: ...


def check_plan(layout: TableLayout, places: dict[Location, str], steps: Sequence[PlanStep],
               margin_mm: float = 0.0) -> list[Violation]:
    """Replay `steps` from `places` and list every place a dragged piece touches another.

    Also reports steps that pick up from an empty place or drop onto an occupied one.
    """
    board = dict(places)
    out: list[Violation] = []
    for i, step in enumerate(steps):
        if board.get(step.src) != step.piece:
            out.append(Violation(i, step.piece, f"nothing to pick up at {layout.name(step.src)}",
                                 -math.inf, (_pt(step.path[0]), _pt(step.path[0]))))
        if step.dst in board and step.dst != step.src:
            out.append(Violation(i, step.piece, f"{board[step.dst]} already at {layout.name(step.dst)}",
                                 -math.inf, (_pt(step.path[-1]), _pt(step.path[-1]))))
        obstacles = [Obstacle(*layout.position(loc), layout.radius(p), f"{p} at {layout.name(loc)}")
                     for loc, p in board.items() if loc != step.src]
        r = layout.radius(step.piece)
        for a, b in zip(step.path, step.path[1:]):
            for o in obstacles:
                gap = point_segment_distance((o.x, o.y), a, b) - r - o.radius - margin_mm
                if gap < -1e-6:
                    out.append(Violation(i, f"{step.piece} from {layout.name(step.src)}", o.where,
                                         gap, (_pt(a), _pt(b))))
        board.pop(step.src, None)
        board[step.dst] = step.piece
    return out
