"""A whole simulated robot in one process: table, GRBL simulator on a pty, driver, gantry.

WHY: the kiosk's simulation mode, the tests and the benchmark all need the
real stack (the driver talks to the simulator through a real pseudo-terminal)
without starting a separate `tafl-gantry-sim` process. The rig wires the parts
together so that the table (what the camera renderer draws) and the ledger
(what the robot believes) start out agreeing.
"""
from __future__ import annotations

import os
from typing import Any
from pathlib import Path

from calibration.config import Config
from robot.gantry import Gantry
from robot.grbl import GrblDriver
from robot.layout import Location, TableLayout
from robot.ledger import LEDGER_FILE, Ledger
from robot.simulator import Fault, GrblSimulator
from robot.table import MagnetWorld, Table


class SimRig:
    """Start with `SimRig(config, speed_factor=50)`; stop with `close()` (or use `with`).

    `places` (location -> piece letter) sets the scene on both the table and the
    ledger; by default every piece starts in storage. `world` replaces the
    rig's own Table by any MagnetWorld (e.g. the kiosk's simulated world).
    """

    def __init__(self, config: Config | None = None, *, speed_factor: float = 1.0,
                 faults: list[Fault] | tuple[Fault, ...] = (), state_dir: str | os.PathLike | None = None,
                 places: dict[Location, str] | None = None, world: MagnetWorld | None = None,
                 connect: bool = True, **sim_options: Any):
        self.config = config or Config()
        self.layout = TableLayout(self.config)
        if world is None:
            table = Table(self.layout)
            for loc, piece in (places if places is not None else self.layout.storage_start()).items():
                table.put(loc, piece)
            world = table
        self.world = world
        self.table: Table | None = world if isinstance(world, Table) else None
        self.ledger = Ledger.in_storage(self.layout)
        if places is not None:
            self.ledger.places = dict(places)
        self.ledger_path = Path(state_dir) / LEDGER_FILE if state_dir is not None else None
        self.sim = GrblSimulator(self.config, speed_factor=speed_factor, faults=faults,
                                 world=world, layout=self.layout, **sim_options)
        self.port = self.sim.start()
        self.driver = self.new_driver()
        self.gantry = Gantry(self.driver, self.layout, self.ledger, self.config.gantry,
                             ledger_path=self.ledger_path)
        if connect:
            self.driver.connect()

    def new_driver(self) -> GrblDriver:
        g = self.config.gantry
        return GrblDriver(self.port, baudrate=g.baudrate, response_timeout=g.response_timeout_s,
                          motion_timeout=g.motion_timeout_s, banner_timeout=1.0,
                          magnet_off=g.magnet_off)

    def replug(self) -> None:
        """After a disconnect: the controller is back on a new pty; a fresh driver connects."""
        self.port = self.sim.reconnect()
        self.driver = self.new_driver()
        self.gantry.driver = self.driver
        self.driver.connect()

    def close(self) -> None:
        try:
            self.driver.close()
        finally:
            self.sim.stop()

    def __enter__(self) -> "SimRig":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
