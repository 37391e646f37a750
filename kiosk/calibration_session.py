"""The staff screen's gantry calibration, run on the gantry thread.

WHY a session object: calibration.gantry.GantryCalibration holds the
procedure's state (homed, the recorded reference squares, the last fit) and
every one of its calls blocks until the motion has finished. The controller
hands each step to the gantry thread (GantryThread.run), which calls
`CalibrationSession.step` there; the step returns an immutable
`CalibrationStatus` that travels back to the controller in the gantry event,
so the screen draws a snapshot and never touches the live procedure.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

from calibration.config import Config
from calibration.gantry import GantryCalibration, GantryFitError
from calibration.geometry import square_label

ACTIONS = ("home", "jog", "next", "record", "fit", "save", "reset")


class CalibrationMover(Protocol):
    """What the session needs from kiosk/robot_adapter.py's GantryMover."""

    def home(self) -> None: ...

    def jog(self, dx_mm: float, dy_mm: float) -> tuple[float, float]: ...

    def position(self) -> tuple[float, float]: ...


class MoverJogDriver:
    """calibration.gantry.JogDriver on the kiosk's Mover (the feed is the mover's own)."""

    def __init__(self, mover: CalibrationMover) -> None:
        self.mover = mover

    def home(self) -> None:
        self.mover.home()

    def jog(self, dx: float, dy: float, feed: float) -> None:
        self.mover.jog(dx, dy)

    def position(self) -> tuple[float, float]:
        return self.mover.position()


@dataclass(frozen=True)
class CalibrationStatus:
    """A snapshot of the procedure for drawing: plain values only."""

    action: str                                  # the step that produced it
    homed: bool
    position_mm: tuple[float, float] | None
    target: str | None                           # the reference square to visit next, e.g. "b2"
    recorded: tuple[str, ...]                    # reference squares recorded so far
    can_fit: bool
    residuals_mm: tuple[float, ...] = ()         # after a fit, per recorded square
    rms_mm: float | None = None
    rotation_deg: float | None = None
    origin_mm: tuple[float, float] | None = None
    scale: tuple[float, float] | None = None
    limit_problems: tuple[str, ...] = ()
    saved_to: str | None = None
    error: str | None = None                     # the step was refused (fit on one line, ...)


class CalibrationSession:
    """One guided calibration of the gantry against the board in use."""

    def __init__(self, mover: CalibrationMover, config: Config, board_name: str | None = None) -> None:
        self.board_name = board_name
        self.calibration = GantryCalibration(MoverJogDriver(mover), config, board_name)
        self.size = self.calibration.geometry.size
        self.target: int | None = self.calibration.next_square()
        self.saved_to: str | None = None

    def step(self, action: str, dx_mm: float = 0.0, dy_mm: float = 0.0, path: str | None = None) -> CalibrationStatus:
        """Carry out one step (blocking); a refusal becomes the status's `error`, never an exception."""
        cal = self.calibration
        try:
            if action == "home":
                cal.home()
            elif action == "jog":
                cal.jog(float(dx_mm), float(dy_mm))
            elif action == "next":
                self.target = cal.next_square()
                if self.target is None:
                    raise ValueError("every reference square is recorded: fit")
                cal.goto_square(self.target)
            elif action == "record":
                if self.target is None:
                    raise ValueError("go to a reference square first")
                cal.record(self.target)
                self.target = cal.next_square()
            elif action == "fit":
                cal.fit()
            elif action == "save":
                if not path:
                    raise ValueError("no config file to save to")
                cal.save(path)
                self.saved_to = path
            elif action == "reset":
                cal.references.clear()
                cal.last_fit = None
                self.target = cal.next_square()
                self.saved_to = None
            else:
                raise ValueError(f"unknown calibration step {action!r}; one of {', '.join(ACTIONS)}")
        except (RuntimeError, ValueError, GantryFitError) as exc:
            return self.status(action, error=str(exc))
        return self.status(action)

    def status(self, action: str, error: str | None = None) -> CalibrationStatus:
        cal = self.calibration
        position = None
        if cal.homed:
            try:
                position = cal.position()
            except Exception:   # noqa: BLE001 - a lost port shows as "no position", the next step says why
                position = None
        fit = cal.last_fit
        extra: dict[str, Any] = {}
        if fit is not None:
            t = fit.transform
            extra = dict(residuals_mm=fit.residuals_mm, rms_mm=fit.rms_mm, rotation_deg=t.rotation_deg,
                         origin_mm=t.origin, scale=t.scale,
                         limit_problems=tuple(str(p) for p in cal.check_limits()))
        return CalibrationStatus(
            action=action, homed=cal.homed, position_mm=position,
            target=square_label(self.target, self.size) if self.target is not None else None,
            recorded=tuple(square_label(r.square, self.size) for r in cal.references),
            can_fit=cal.can_fit, saved_to=self.saved_to, error=error, **extra)
