"""The gantry: carries out planned steps with the GRBL driver and keeps the ledger true.

WHY this order of G-code per step: travel with the magnet off (`G0`) to the
pickup point, magnet on, dwell so the field builds up and the piece centres
on the magnet, drag at the drag feed (`G1`) along the path, magnet off, then
`G4 P0.01`, which GRBL answers only once every motion has finished. Only then
is the step written to the ledger as done; the step is written down as
*pending* before it starts, so an interruption at any point leaves a record of
which piece may be lying somewhere along which path.

Any error while a step runs (error:N, an alarm, a feed hold, a timeout, a
vanished port, garbled bytes, even Ctrl-C) goes through `driver.make_safe()`:
a feed hold until the carriage stands (so the position is kept), a soft reset
(GRBL switches coolant and spindle off) and the magnet-off line. Only
`abort()` resets a travelling carriage at once: the magnet must go off now.
The G-code is written in the firmware's own machine coordinates
(`driver.to_firmware`), so stock and HOMING_FORCE_SET_ORIGIN builds both work.
`recover()` re-homes and sweeps the pending step's path again with the magnet
on: a steel-cored piece anywhere on that path is caught as the magnet passes
and brought to its destination.
"""
from __future__ import annotations

import logging
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from calibration.config import GantryConfig
from robot.grbl import GrblDriver, GrblError, GrblHold
from robot.layout import Location, TableLayout, start_position
from robot.ledger import Ledger
from robot.planner import MotionPlanner, PlanError, Step

log = logging.getLogger(__name__)


class RobotError(Exception):
    """A step could not be carried out; the message says what and why, and the machine is safe."""


@dataclass(frozen=True)
class StepReport:
    """Progress for a display: step `index` of `total` is done."""

    index: int
    total: int
    step: Step


class Gantry:
    """Moves pieces on one table with one GRBL controller."""

    def __init__(self, driver: GrblDriver, layout: TableLayout, ledger: Ledger,
                 gantry_config: GantryConfig, ledger_path: str | os.PathLike | None = None,
                 planner: MotionPlanner | None = None,
                 on_step: Callable[[StepReport], None] | None = None,
                 verify: Callable[[Step], bool] | None = None):
        self.driver = driver
        self.layout = layout
        self.ledger = ledger
        self.cfg = gantry_config
        self.ledger_path = Path(ledger_path) if ledger_path is not None else None
        self.planner = planner or MotionPlanner(layout)
        self.on_step = on_step
        self.verify = verify            # e.g. the camera: did the piece arrive? one retry if not
        self._ready = False

    # ------------------------------------------------------------------ set-up
    def start(self) -> None:
        """Make the controller usable: home if it is alarm-locked (power-up) and allowed."""
        if self.driver.critical:            # a limit alarm waits for a reset before anything
            self.driver.soft_reset()
        st = self.driver.status()
        if st.state in ("Hold", "Door", "Sleep", "Check"):
            # left over from an earlier session: a reset clears it (and the magnet)
            self.driver.soft_reset()
            st = self.driver.status()
        if st.state in ("Run", "Jog", "Home"):
            raise RobotError(f"the controller is busy ({st.state}): is another program "
                             "driving it?")
        if st.state == "Alarm" or not self.driver.position_known:
            self._need_home(st.state)
            self.home()
        self.driver.send("G21G90G94")
        self._ready = True

    def _need_home(self, state: str) -> None:
        """Refuse clearly where homing is impossible or not allowed."""
        if not self.driver.firmware_settings.get(22, 1):
            raise RobotError(
                "homing is disabled on the controller ($22=0): after a power cycle GRBL reports "
                "MPos:0,0 wherever the carriage stands, so its position is not believed; enable "
                "homing ($22=1, docs/install.md), or put the carriage at the home corner by hand "
                "and run `tafl-robot unlock`")
        if not self.cfg.home_on_start:
            what = "alarm-locked" if state == "Alarm" else "not sure of its position"
            raise RobotError(f"the controller is {what} and homing on start is off in "
                             "the configuration: run `tafl-robot home`")

    def home(self) -> None:
        """`$H`: the homing cycle; the position is known afterwards."""
        self._leave_alarm(self.driver.home, "homing")

    def unlock(self) -> None:
        """`$X`: staff vouch that the carriage is where the controller says (no homing)."""
        self._leave_alarm(self.driver.unlock, "unlock")

    def _leave_alarm(self, action: Callable[[], None], what: str) -> None:
        try:
            if self.driver.critical:        # a limit alarm waits for a reset before anything
                self.driver.soft_reset()
            self.driver.magnet_off()        # refused (and not needed) in the alarm state
            action()
        except GrblError as exc:
            self._make_safe()
            raise RobotError(f"{what} failed: {exc}") from exc

    def rehome(self) -> None:
        """Home unconditionally and make the controller ready for steps (mm, absolute).

        WHY: `start()` homes only when the controller is alarm-locked; after a
        lost connection or an alarm the kiosk homes every time (the position is
        not trusted any more) and then goes straight on with its steps.
        """
        self.home()
        try:
            self.driver.send("G21G90G94")
        except GrblError as exc:
            self._make_safe()
            raise RobotError(f"homing failed: {exc}") from exc
        self._ready = True

    def _save(self) -> None:
        if self.ledger_path is not None:
            self.ledger.save(self.ledger_path)

    def _make_safe(self, urgent: bool = False) -> list[str]:
        problems = self.driver.make_safe(urgent=urgent)
        for p in problems:
            log.error("after an error: %s", p)
        self._ready = False
        return problems

    # ------------------------------------------------------------------ steps
    def gcode(self, step: Step) -> list[str]:
        """The lines that carry out one step."""
        lay = self.layout
        m = [self.driver.to_firmware(*lay.to_machine(p)) for p in step.path]
        # G53: machine coordinates, whatever work offset (G92, G54..) someone left behind
        lines = [f"G53G0X{m[0][0]:.3f}Y{m[0][1]:.3f}", self.cfg.magnet_on,
                 f"G4P{self.cfg.magnet_dwell_s:.3f}"]
        feed = f"F{self.cfg.drag_feed_mm_min:.0f}"
        for x, y in m[1:]:
            lines.append(f"G53G1X{x:.3f}Y{y:.3f}{feed}")
        lines += [self.cfg.magnet_off, "G4P0.01"]
        return lines

    def run_step(self, step: Step) -> None:
        """Carry out one step and record it; RobotError (machine made safe) on failure."""
        if not self._ready:
            self.start()
        if self.ledger.pending is not None and self.ledger.pending != step.to_json():
            raise RobotError("an interrupted step is still pending: recover first")
        self.ledger.pending = step.to_json()
        self._save()
        try:
            self.driver.stream(self.gcode(step), timeout=self.cfg.motion_timeout_s)
        except GrblError as exc:
            problems = self._make_safe()
            extra = ("; " + "; ".join(problems)) if problems else ""
            if isinstance(exc, GrblHold) and not problems:
                extra = "; magnet switched off, position kept"
            raise RobotError(f"{step.kind} {self.layout.name(step.src)} -> "
                             f"{self.layout.name(step.dst)} interrupted: {exc}{extra}") from exc
        except BaseException:
            self._make_safe()
            raise
        self.ledger.apply(step.src, step.dst, step.piece)
        self.ledger.pending = None
        self._save()

    def execute(self, steps: list[Step]) -> None:
        """Run steps in order, verifying each when a verifier is set (one retry)."""
        for i, step in enumerate(steps):
            self.run_step(step)
            if self.verify is not None and not self.verify(step):
                log.warning("step %d not verified (missed pickup?): retrying", i + 1)
                # the ledger believes the piece moved; put the belief back and try again
                self.ledger.apply(step.dst, step.src, step.piece)
                self._save()
                self.run_step(step)
                if not self.verify(step):
                    raise RobotError(f"{self.layout.name(step.src)} -> {self.layout.name(step.dst)}"
                                     ": the piece did not arrive after a retry")
            if self.on_step is not None:
                self.on_step(StepReport(i + 1, len(steps), step))

    def recover(self) -> Step | None:
        """After an interruption: home, then sweep the pending step's path again."""
        if self.ledger.pending is None:
            return None
        step = Step.from_json(self.ledger.pending)
        log.warning("recovering interrupted %s %s -> %s", step.kind, self.layout.name(step.src),
                    self.layout.name(step.dst))
        self._ready = False
        st = self.driver.status()
        if st.state == "Alarm" or self.driver.alarm is not None or not self.driver.position_known:
            # never trust a position after an alarm or a power cycle (MPos:0,0 with $22=0)
            self._need_home(st.state)
            self.home()
        self.driver.send("G21G90G94")
        self._ready = True
        self.run_step(step)
        return step

    # ------------------------------------------------------------------ commands
    def _places(self) -> dict[Location, str]:
        return dict(self.ledger.places)

    def _carriage(self) -> tuple[float, float]:
        try:
            return self.layout.to_board(self.driver.position())
        except GrblError:
            return self.layout.position(self.layout.slots("defenders")[0])

    def move(self, src: int, dst: int, captures: tuple[int, ...] | list[int] = ()) -> list[Step]:
        """The robot's move, then parking of every piece it captured."""
        steps = self.planner.plan_move(self._places(), src, dst, captures)
        self.execute(steps)
        return steps

    def park(self, square: int) -> list[Step]:
        steps = self.planner.plan_park(self._places(), square)
        self.execute(steps)
        return steps

    def carry(self, src: Location, dst: Location, kind: str = "transfer",
              offset_mm: tuple[float, float] = (0.0, 0.0)) -> Step:
        """One piece from anywhere to anywhere (the kiosk's Transfer)."""
        step = self.planner.transfer(self._places(), src, dst, kind, offset_mm)
        self.execute([step])
        return step

    def arrange(self, target: dict[int, str], kind: str = "setup") -> list[Step]:
        steps = self.planner.plan_arrangement(self._places(), target, self._carriage(), kind)
        self.execute(steps)
        return steps

    def setup(self, variant: str, options: dict[str, str] | None = None) -> list[Step]:
        """The variant's start position, from storage (pieces already right stay)."""
        check_variant_fits(self.layout, variant)
        try:
            target = start_position(variant, options)
        except ValueError as exc:
            raise PlanError(str(exc)) from None
        return self.arrange(target, "setup")

    def clear(self) -> list[Step]:
        """Every piece on the board back into storage."""
        return self.arrange({}, "clear")

    def jog(self, dx: float, dy: float, feed: float | None = None) -> tuple[float, float]:
        """Jog the magnet (off) by dx, dy machine mm; returns the new machine position."""
        if not self._ready:
            self.start()
        try:
            self.driver.magnet_off()
            self.driver.jog(dx, dy, feed or self.cfg.drag_feed_mm_min)
            return self.driver.position()
        except GrblError as exc:
            self._make_safe()
            raise RobotError(f"jog failed: {exc}") from exc

    def abort(self) -> list[str]:
        """Stop now, from any thread: soft reset at once (motion stops, magnet off; a moving
        carriage loses its position). The step that was running fails with RobotError and
        stays pending in the ledger for recover()."""
        return self._make_safe(urgent=True)

    def close(self) -> None:
        self.driver.close()


def check_variant_fits(layout: TableLayout, variant: str) -> None:
    """One-line error when a variant is not played on the installed board."""
    from engine import Board

    try:
        size = Board(variant).size
    except ValueError as exc:
        raise PlanError(str(exc)) from None
    if size != layout.size:
        raise PlanError(f"{variant} is played on {size}x{size}; the installed board "
                        f"{layout.board_name} is {layout.size}x{layout.size}")


__all__ = ["Gantry", "RobotError", "StepReport", "PlanError", "check_variant_fits"]
