"""The whole kiosk in simulation: a simulated table, camera and gantry around the real controller.

WHY one place that wires it: `tafl-kiosk --simulate` (with the touchscreen),
`--headless --autoplay` and the simulation tests all need the same rig, built
of the real parts only:
- the world: kiosk.simworld.SimWorld on robot.table.Table;
- the camera: frames rendered from the world by vision.renderer, read back by
  vision.reader in the camera thread;
- the gantry: robot.simulator.GrblSimulator behind a real pty, driven through
  robot.grbl.GrblDriver by robot.gantry.Gantry in the gantry thread;
- the engine: engine.search in a spawned process.

A power cut (`power_cut()`) drops everything that runs on the kiosk's mains at
once: the controller and its threads stop without a word, the search process
is killed, the serial port vanishes, the gantry controller loses power (and
its position: it must home again), the magnet lets go. Only the table and the
state directory (journal, ledger) survive; `restart()` then
builds a new controller from them, as a rebooted kiosk would.
"""
from __future__ import annotations

import logging
import time
from dataclasses import dataclass, replace
from typing import Callable

from calibration.config import Config
from robot.simulator import GrblSimulator

from kiosk.camera_thread import CameraThread
from kiosk.controller import GameController
from kiosk.engine_worker import EngineWorker
from kiosk.gantry_thread import GantryThread
from kiosk.robot_adapter import GantryMover
from kiosk.simworld import SimWorld
from kiosk.vision_adapter import SimFrameSource, VisionFrameReader

log = logging.getLogger("kiosk.sim")


@dataclass
class SimSettings:
    """Knobs of the simulation (not of the kiosk: the kiosk's figures stay in the config)."""

    seed: int = 0
    speed_factor: float = 4.0          # the GRBL simulator's clock against the wall clock
    engine_time_scale: float = 1.0     # shrink the levels' thinking time (tests, autoplay)
    stable_s: float | None = None      # None: the config's camera.stable_s
    condition: str = "museum"          # the renderer's lighting and camera condition
    camera_fps: float = 10.0
    still_period_s: float = 2.0        # a still scene is rendered afresh this often
    hand_seconds: float = 0.6
    square_model: str | None = None    # None: vision's built-in square model
    render_hands: bool = True          # False (tests): no picture while a hand is over the board
    stepped_camera: bool = False       # True (museum day): no camera thread, the caller steps it on its
                                       # clock; the board's look is drawn once (one board all day)


class SimKiosk:
    """Builds and owns the simulated hardware and the controller on top of it.

    Not `robot.simrig.SimRig` (one robot process: its own driver, gantry and ledger):
    here the kiosk's own gantry thread drives the simulator, as on the real kiosk."""

    def __init__(self, config: Config, state_dir: str, variant: str = "copenhagen",
                 settings: SimSettings | None = None, *, fresh: bool = True,
                 controller_kwargs: dict | None = None, clock: Callable[[], float] = time.monotonic) -> None:
        self.config = config
        self.state_dir = state_dir
        self.settings = settings or SimSettings()
        self.controller_kwargs = controller_kwargs or {}
        self.clock = clock          # the kiosk's clock: wall time, or kiosk.museum_day.SimClock
        self.world = SimWorld(config, hand_seconds=self.settings.hand_seconds, clock=clock)
        if fresh:
            self.world.fill_storage(variant)
        else:
            self.world.use_variant(variant)
        self.sim = GrblSimulator(config, speed_factor=self.settings.speed_factor, world=self.world,
                                 layout=self.world.layout)
        self.sim.start()
        self.source = SimFrameSource(self.world, config, seed=self.settings.seed,
                                     condition=self.settings.condition,
                                     still_period_s=self.settings.still_period_s,
                                     render_hands=self.settings.render_hands, clock=clock,
                                     sleep=(lambda _s: None) if self.settings.stepped_camera else time.sleep,
                                     fixed_look=self.settings.stepped_camera,
                                     busy=lambda: getattr(self, "gantry", None) is not None and self.gantry.busy)
        self.power_cuts = 0
        self.controller: GameController
        self._start_controller()

    # -- life cycle ----------------------------------------------------------
    def _start_controller(self) -> None:
        cfg = self.config
        self.reader = VisionFrameReader(cfg, self.world.board_name, model_path=self.settings.square_model)
        self.camera = CameraThread(self.source, self.reader, max_fps=self.settings.camera_fps, clock=self.clock,
                                   threaded=not self.settings.stepped_camera)
        self.mover = GantryMover(cfg, port_provider=lambda: self.sim.port or "",
                                 board_name=self.world.board_name)
        self.gantry = GantryThread(self.mover)
        self.engine = EngineWorker(cfg.engine.levels, seed=self.settings.seed,
                                   time_scale=self.settings.engine_time_scale, pondering=cfg.engine.ponder,
                                   ponder_max_s=cfg.engine.ponder_max_s)
        self.controller = GameController(cfg, self.camera, self.gantry, self.engine, self.state_dir,
                                         stable_s=self.settings.stable_s, clock=self.clock,
                                         **self.controller_kwargs)
        self.controller.start()

    def power_cut(self) -> None:
        """Everything on the kiosk's mains loses power at once (see the module docstring)."""
        self.power_cuts += 1
        log.warning("simulated power cut")
        self.gantry.abandon()
        self.mover.abandon()
        self.engine.kill()
        self.camera.stop()
        self.controller.journal.close()
        self.world.drop_everything()
        self.sim.disconnect()          # the gantry controller is on the same mains

    def restart(self) -> GameController:
        """Power is back: the gantry controller boots, the kiosk boots and resumes."""
        self.sim.reconnect()
        self._start_controller()
        return self.controller

    def close(self) -> None:
        for stop in (self.gantry.stop, self.camera.stop, self.engine.stop, self.sim.stop):
            try:
                stop()
            except Exception:   # shutting down; report, go on
                log.exception("while closing the simulation")
        try:
            self.controller.stop()
        except Exception:   # noqa: BLE001
            pass

    def poll(self) -> None:
        self.controller.poll()


def fast_settings(seed: int = 0) -> SimSettings:
    """Settings for tests and autoplay: a fast gantry, short thinking, a clean camera."""
    return replace(SimSettings(), seed=seed, speed_factor=25.0, engine_time_scale=0.2, stable_s=0.3,
                   still_period_s=3.0, hand_seconds=0.4)
