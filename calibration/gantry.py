"""Gantry calibration: where the board sits in machine coordinates.

The board is screwed onto the gantry frame by hand, so its origin, a small
rotation and (belt stretch, pulley tolerance) a slightly different scale per
axis must be measured. The technician jogs the magnet under the centres of a
few reference squares; each gives a pair (board mm, machine mm) and a least
squares fit of

    machine = origin + R(rotation) . diag(scale_x, scale_y) . board

recovers the five figures that calibration.geometry.GantryTransform applies.
Three squares that do not lie on one line determine them; more squares average
out the jogging error and the residuals show how good the fit is.

GantryCalibration is the guided procedure (home, jog, record, fit, save) used
by both `tafl-calibrate gantry` (keyboard) and the kiosk's staff screen
(on-screen jog buttons): it holds the state, the front end only draws it.
"""
from __future__ import annotations

import copy
import math
from dataclasses import dataclass, field
from typing import Iterable, Protocol, Sequence

import numpy as np

from calibration.config import Config
from calibration.config_file import save_config
from calibration.geometry import BoardGeometry, GantryTransform, Point, square_label
from calibration.travel import LimitProblem, check_soft_limits, storage_slot_counts


class GantryFitError(ValueError):
    """The reference points cannot determine the transform (too few, or on one line)."""


class JogDriver(Protocol):
    """What calibration needs from a gantry driver (robot.grbl's driver, or its simulator).

    Positions are machine millimetres after homing.
    """

    def home(self) -> None: ...

    def jog(self, dx: float, dy: float, feed: float) -> None: ...

    def position(self) -> tuple[float, float]: ...


@dataclass(frozen=True)
class ReferencePoint:
    """One reference square and where the magnet sat under its centre."""

    square: int
    board_mm: Point
    machine_mm: Point


@dataclass(frozen=True)
class GantryFit:
    """The fitted transform and how well it explains the reference points."""

    transform: GantryTransform
    residuals_mm: tuple[float, ...]        # per reference point, in order
    shear_deg: float                       # angle by which the axes are not square (diagnostic)

    @property
    def rms_mm(self) -> float:
        r = np.asarray(self.residuals_mm)
        return float(math.sqrt(float(np.mean(r * r)))) if len(r) else 0.0

    @property
    def max_mm(self) -> float:
        return max(self.residuals_mm, default=0.0)


def _model(params: np.ndarray, board: np.ndarray) -> np.ndarray:
    ox, oy, theta, sx, sy = params
    c, s = math.cos(theta), math.sin(theta)
    bx, by = board[:, 0] * sx, board[:, 1] * sy
    return np.column_stack((ox + c * bx - s * by, oy + s * bx + c * by))


def fit_transform(board_mm: Sequence[Point], machine_mm: Sequence[Point],
                  fix_scale: bool = False) -> GantryFit:
    """Least squares board-to-machine transform from >= 3 point pairs.

    Starts from the general affine fit (linear, so it needs no initial guess),
    reads rotation and scales off its columns, then refines the five
    parameters of the no-shear model by Gauss-Newton. ``fix_scale`` keeps the
    scale at 1 (a rigid fit), for a gantry whose steps/mm are trusted.
    """
    b = np.asarray(board_mm, dtype=float).reshape(-1, 2)
    m = np.asarray(machine_mm, dtype=float).reshape(-1, 2)
    if len(b) != len(m):
        raise GantryFitError(f"{len(b)} board points but {len(m)} machine points")
    if len(b) < 3:
        raise GantryFitError(f"need at least 3 reference squares, have {len(b)}")
    centred = b - b.mean(axis=0)
    spread = np.linalg.svd(centred, compute_uv=False)
    if spread[1] < 1e-6 * max(spread[0], 1.0) or spread[1] < 1.0:
        raise GantryFitError("the reference squares lie on one line: pick squares that span the board")

    design = np.column_stack((b, np.ones(len(b))))
    coef, *_ = np.linalg.lstsq(design, m, rcond=None)       # m = [bx by 1] @ coef
    a = coef[:2].T                                           # 2x2 linear part
    col_x, col_y = a[:, 0], a[:, 1]
    theta = math.atan2(col_x[1], col_x[0])
    sx, sy = float(np.hypot(*col_x)), float(np.hypot(*col_y))
    # Shear diagnostic: the image of the board's y axis should be 90 deg from its x axis.
    shear = math.degrees(math.atan2(col_y[1], col_y[0]) - theta) - 90.0
    shear = (shear + 180.0) % 360.0 - 180.0
    params = np.array([coef[2, 0], coef[2, 1], theta, 1.0 if fix_scale else sx,
                       1.0 if fix_scale else sy])
    free = [0, 1, 2] if fix_scale else [0, 1, 2, 3, 4]

    for _ in range(50):
        pred = _model(params, b)
        r = (pred - m).reshape(-1)
        ox, oy, th, px, py = params
        c, s = math.cos(th), math.sin(th)
        jac = np.zeros((len(b), 2, 5))
        jac[:, 0, 0] = 1.0
        jac[:, 1, 1] = 1.0
        bx, by = b[:, 0] * px, b[:, 1] * py
        jac[:, 0, 2] = -s * bx - c * by
        jac[:, 1, 2] = c * bx - s * by
        jac[:, 0, 3] = c * b[:, 0]
        jac[:, 1, 3] = s * b[:, 0]
        jac[:, 0, 4] = -s * b[:, 1]
        jac[:, 1, 4] = c * b[:, 1]
        j = jac.reshape(-1, 5)[:, free]
        step, *_ = np.linalg.lstsq(j, -r, rcond=None)
        params[free] += step
        if float(np.max(np.abs(step))) < 1e-12:
            break

    residuals = np.hypot(*(_model(params, b) - m).T)
    rotation = (math.degrees(params[2]) + 180.0) % 360.0 - 180.0
    transform = GantryTransform(origin=(float(params[0]), float(params[1])),
                                rotation_deg=rotation, scale=(float(params[3]), float(params[4])))
    return GantryFit(transform, tuple(float(x) for x in residuals), shear)


# --------------------------------------------------------------------------- the procedure

def default_reference_squares(size: int) -> list[int]:
    """Four squares one in from the corners: far apart (a good fit) and never a marked corner."""
    lo, hi = 1, size - 2
    return [lo * size + lo, lo * size + hi, hi * size + hi, hi * size + lo]


@dataclass
class GantryCalibration:
    """The guided gantry calibration, independent of keyboard or touchscreen.

    Typical use: home(); while (sq := next_square()) is not None: goto_square(sq)
    (the current transform brings the magnet close), jog() until the magnet is
    under the square's centre, record(sq); then fit(); check_limits(); save().

    ``driver`` is robot.grbl.GrblDriver (or anything with home/jog/position,
    such as a test double). Every call blocks until the motion has finished,
    so a touchscreen runs them off its drawing thread.
    """

    driver: JogDriver
    config: Config
    board_name: str | None = None
    jog_feed_mm_min: float = 1000.0
    references: list[ReferencePoint] = field(default_factory=list)
    homed: bool = False
    last_fit: GantryFit | None = None

    def __post_init__(self) -> None:
        self.geometry = BoardGeometry.from_config(self.config, self.board_name)

    @property
    def transform(self) -> GantryTransform:
        """The latest fit, or the configured transform before any fit."""
        if self.last_fit is not None:
            return self.last_fit.transform
        return GantryTransform.from_config(self.config.gantry)

    def suggested_squares(self) -> list[int]:
        return default_reference_squares(self.geometry.size)

    def next_square(self, squares: list[int] | None = None) -> int | None:
        """The first of ``squares`` (default: the suggested ones) not recorded yet, for a staff screen."""
        done = {r.square for r in self.references}
        return next((sq for sq in (squares or self.suggested_squares()) if sq not in done), None)

    @property
    def can_fit(self) -> bool:
        return len(self.references) >= 3

    def home(self) -> Point:
        self.driver.home()
        self.homed = True
        return self.position()

    def position(self) -> Point:
        x, y = self.driver.position()
        return (float(x), float(y))

    def jog(self, dx: float, dy: float) -> Point:
        """Move by (dx, dy) machine mm, refusing to leave the travel; returns the new position."""
        if not self.homed:
            raise RuntimeError("home the gantry first: positions mean nothing before homing")
        x, y = self.position()
        tx, ty = self.config.gantry.travel_mm
        nx, ny = min(max(x + dx, 0.0), tx), min(max(y + dy, 0.0), ty)
        if (nx, ny) != (x, y):
            self.driver.jog(nx - x, ny - y, self.jog_feed_mm_min)
        return self.position()

    def goto_square(self, square: int) -> Point:
        """Move to where the current transform predicts the square's centre (then fine-jog)."""
        target = self.transform.to_machine(*self.geometry.square_center(square))
        x, y = self.position()
        return self.jog(target[0] - x, target[1] - y)

    def record(self, square: int) -> ReferencePoint:
        """The magnet is under ``square``'s centre now: remember the pair (replacing an earlier one)."""
        if not 0 <= square < self.geometry.size ** 2:
            raise ValueError(f"square {square} is not on a {self.geometry.size}x{self.geometry.size} board")
        if not self.homed:
            raise RuntimeError("home the gantry first: positions mean nothing before homing")
        point = ReferencePoint(square, self.geometry.square_center(square), self.position())
        self.references = [r for r in self.references if r.square != square] + [point]
        return point

    def forget(self, square: int) -> None:
        self.references = [r for r in self.references if r.square != square]

    def fit(self, fix_scale: bool = False) -> GantryFit:
        self.last_fit = fit_transform([r.board_mm for r in self.references],
                                      [r.machine_mm for r in self.references], fix_scale)
        return self.last_fit

    def check_limits(self, slot_counts: dict[str, int] | None = None) -> list[LimitProblem]:
        counts = slot_counts if slot_counts is not None else storage_slot_counts(
            self.config, self.board_name)
        return check_soft_limits(self.geometry, self.transform, self.config.gantry.travel_mm, counts)

    def apply(self) -> Config:
        """A copy of the config carrying the fitted transform (the original is left alone)."""
        if self.last_fit is None:
            raise RuntimeError("nothing to save: fit() first")
        t = self.last_fit.transform
        updated = copy.deepcopy(self.config)
        updated.gantry.board_origin_mm = (round(t.origin[0], 4), round(t.origin[1], 4))
        updated.gantry.rotation_deg = round(t.rotation_deg, 5)
        updated.gantry.scale = (round(t.scale[0], 6), round(t.scale[1], 6))
        return updated

    def save(self, path: str) -> Config:
        """Write the fitted transform into the config file atomically; returns the saved config."""
        updated = self.apply()
        save_config(updated, path)
        self.config = updated
        return updated


def residual_report(fit: GantryFit, references: Iterable[ReferencePoint], size: int) -> list[str]:
    """Human-readable lines: one per reference square, then the summary."""
    lines = []
    for ref, res in zip(references, fit.residuals_mm):
        lines.append(f"  {square_label(ref.square, size):>4}: board ({ref.board_mm[0]:6.1f}, "
                     f"{ref.board_mm[1]:6.1f})  machine ({ref.machine_mm[0]:7.2f}, "
                     f"{ref.machine_mm[1]:7.2f})  residual {res:.2f} mm")
    t = fit.transform
    lines.append(f"origin ({t.origin[0]:.2f}, {t.origin[1]:.2f}) mm, rotation {t.rotation_deg:+.3f} deg, "
                 f"scale ({t.scale[0]:.4f}, {t.scale[1]:.4f}), shear {fit.shear_deg:+.3f} deg")
    lines.append(f"residuals: rms {fit.rms_mm:.2f} mm, max {fit.max_mm:.2f} mm")
    return lines
