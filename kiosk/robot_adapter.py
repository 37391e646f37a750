"""The gantry for the controller: robot.gantry.Gantry (planner, GRBL driver, ledger) behind `Mover`.

WHY here: this is the one module that knows the robot package's API. Each
transfer becomes `Gantry.carry(src, dst, kind, offset)`: planned by
robot.planner around the standing pieces, sent as G-code through
robot.grbl.GrblDriver, and recorded in the robot's ledger (pending before,
done after, saved atomically).

Who knows what: the ledger is the one book of where the pieces stand; the
kiosk opens it (kiosk/inventory.py) and hands the same object here
(`use_ledger`), so the mover does no I/O of its own before that. The board
squares are known from the camera (the visitor moves pieces the robot never
touched), so before every job the controller's picture of the squares
(`begin(places)`) is written into the ledger; the ledger's `pending` step
survives a power cut, and `home()` then lets the robot sweep that step's path
again (`Gantry.recover()`), catching a piece the magnet dropped half-way.

A lost connection (USB cable pulled, controller power-cycled) or an alarm
makes `carry()` raise; the next `home()` reconnects (asking `port_provider`
for the port, which may have changed), clears the alarm and homes.
"""
from __future__ import annotations

import logging
from dataclasses import replace
from pathlib import Path
from typing import Callable

from calibration.config import Config, GantryConfig
from robot.gantry import Gantry, RobotError
from robot.grbl import GrblDriver, GrblError
from robot.layout import Location, TableLayout
from robot.ledger import Ledger, LedgerError

from kiosk.ports import Transfer

log = logging.getLogger("kiosk.robot")


class GantryMover:
    """Mover (kiosk/gantry_thread.py) on robot.gantry.Gantry."""

    def __init__(self, config: Config, port_provider: Callable[[], str] | None = None,
                 board_name: str | None = None) -> None:
        self.config = config
        self.port_provider = port_provider or (lambda: config.gantry.port)
        self.gantry: Gantry | None = None
        self.feed_mm_min: float | None = None     # the exhibit's demo speed (set_feed)
        self.ledger_path: Path | None = None
        self._board(board_name or config.board, None)

    def _board(self, board_name: str, ledger: Ledger | None) -> None:
        """The layout of `board_name`; until the kiosk hands its ledger over, an unsaved one."""
        self.layout = TableLayout(self.config, board_name)
        self.ledger = ledger if ledger is not None else Ledger.in_storage(self.layout)
        if ledger is None:
            self.ledger_path = None
        if self.gantry is not None:
            self.gantry = Gantry(self.gantry.driver, self.layout, self.ledger, self._gantry_config(),
                                 self.ledger_path)

    # -- Mover ------------------------------------------------------------
    def use_board(self, board_name: str, variant: str) -> None:
        if board_name != self.layout.board_name:
            self._board(board_name, None)

    def use_ledger(self, ledger: Ledger, path: str) -> None:
        """The kiosk's open ledger of the board in play (kiosk/inventory.py): booked and saved here."""
        if ledger is self.ledger and self.ledger_path == Path(path):
            return
        self.ledger_path = Path(path)
        self._board(ledger.board_name, ledger)

    def begin(self, places: dict[Location, str]) -> None:
        if self.ledger.pending is None:
            self.ledger.replace_board({loc: p for loc, p in places.items() if isinstance(loc, int)})

    def home(self) -> None:
        g = self._gantry()
        g.rehome()
        if self.ledger.pending is not None:
            try:
                g.recover()
            except (RobotError, LedgerError, GrblError) as exc:
                # the camera will show where the piece is; the controller re-plans
                log.warning("could not sweep the interrupted step again: %s", exc)
                self.ledger.pending = None
                if self.ledger_path:
                    self.ledger.save(self.ledger_path)

    def carry(self, transfer: Transfer) -> None:
        g = self._gantry()
        try:
            dx, dy = transfer.offset_mm
            g.carry(transfer.src, transfer.dst, transfer.kind, (dx, dy))
        except RobotError:
            if not g.driver.connected:
                self._drop()
            raise

    def jog(self, dx_mm: float, dy_mm: float) -> tuple[float, float]:
        """Staff: move the carriage (magnet off) by dx, dy mm; returns the machine position."""
        g = self._gantry()
        try:
            return g.jog(dx_mm, dy_mm)
        except RobotError:
            if not g.driver.connected:
                self._drop()
            raise

    def position(self) -> tuple[float, float]:
        """Staff (calibration): the carriage's machine position in mm, as the controller reports it."""
        x, y = self._gantry().driver.position()
        return (float(x), float(y))

    # -- the exhibit's pause (kiosk/exhibit.py): called from the controller's thread mid-carry --
    def pause(self) -> None:
        """Feed hold with the magnet as it is: a piece being carried stays on the magnet."""
        g = self.gantry
        if g is not None and g.driver.connected:
            g.driver.pause_stream()

    def resume(self) -> None:
        g = self.gantry
        if g is not None and g.driver.connected:
            g.driver.resume_stream()

    def set_feed(self, feed_mm_min: float | None) -> None:
        """The drag speed of the next carries (None: the configured one)."""
        self.feed_mm_min = feed_mm_min
        if self.gantry is not None:
            self.gantry.cfg = self._gantry_config()

    def _gantry_config(self) -> GantryConfig:
        g = self.config.gantry
        feed = self.feed_mm_min
        return g if feed is None else replace(g, drag_feed_mm_min=float(feed))

    def make_safe(self) -> None:
        if self.gantry is None:
            return
        try:
            self.gantry.driver.make_safe()
        except Exception:   # best effort on an error path
            log.exception("make_safe failed")
        if not self.gantry.driver.connected:
            self._drop()

    def close(self) -> None:
        if self.gantry is not None:
            try:
                self.gantry.close()
            except Exception:   # noqa: BLE001
                pass
            self.gantry = None

    def abandon(self) -> None:
        """A power cut: the port just goes away, nothing more is sent."""
        g, self.gantry = self.gantry, None
        drv = g.driver if g is not None else None
        if drv is not None:
            try:
                drv.drop_connection()                    # no goodbye lines on a cut
            except Exception:   # noqa: BLE001
                pass

    # -- helpers -------------------------------------------------------------
    def _gantry(self) -> Gantry:
        if self.gantry is not None and not self.gantry.driver.connected:
            self._drop()
        if self.gantry is None:
            g = self.config.gantry
            drv = GrblDriver(self.port_provider(), baudrate=g.baudrate, response_timeout=g.response_timeout_s,
                             motion_timeout=g.motion_timeout_s, magnet_off=g.magnet_off)
            try:
                drv.connect()
            except GrblError:
                drv.close()
                raise
            self.gantry = Gantry(drv, self.layout, self.ledger, self._gantry_config(), self.ledger_path)
        return self.gantry

    def _drop(self) -> None:
        g, self.gantry = self.gantry, None
        if g is not None:
            try:
                g.driver.close()
            except Exception:   # noqa: BLE001
                pass
