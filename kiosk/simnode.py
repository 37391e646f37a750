"""The kiosk controller in a process of its own, on a simulated table kept by another process.

WHY: the honest test of "a power cut mid-move" kills the kiosk's process with
SIGKILL, as a pulled plug does, and boots a new one; only the table, the
gantry controller and the state directory survive. The table process (the
caller: tests, tools) keeps the SimWorld and the GRBL simulator on its pty;
the kiosk process runs the real controller, camera thread, gantry thread and
search process. The camera in the kiosk process asks the table process for
what there is to see (a WorldSnapshot over a pipe) and renders and reads it
itself; the gantry talks to the simulator's pty like to a USB port. The kiosk
process reports a small summary of its view on a second pipe, so the caller
can play the visitor.
"""
from __future__ import annotations

import multiprocessing as mp
import threading
import time
from dataclasses import dataclass
from multiprocessing.connection import Connection

from calibration.config import Config

from kiosk.simworld import SimWorld, WorldSnapshot


@dataclass(frozen=True)
class NodeView:
    """What the kiosk process reports after each change (picklable, small)."""

    state: str
    ply: int
    moves: tuple[str, ...]
    position: str | None
    fix: tuple[tuple[int, str | None], ...]
    resumed: bool
    pid: int


class RemoteWorld:
    """The table as the kiosk process's camera sees it: snapshots asked over a pipe."""

    def __init__(self, conn: Connection) -> None:
        self.conn = conn
        self._lock = threading.Lock()

    def snapshot(self) -> WorldSnapshot:
        with self._lock:
            self.conn.send("snapshot")
            return self.conn.recv()


def serve_snapshots(world: SimWorld, conn: Connection) -> threading.Thread:
    """In the table process: answer the kiosk process's camera until its end of the pipe closes."""
    def run() -> None:
        while True:
            try:
                conn.recv()
                conn.send(world.snapshot())
            except (EOFError, OSError):
                return
    thread = threading.Thread(target=run, name="table-camera-feed", daemon=True)
    thread.start()
    return thread


def node_main(config: Config, state_dir: str, port: str, camera_conn: Connection, view_conn: Connection,
              seed: int, stable_s: float, engine_time_scale: float, start: tuple | None,
              log_path: str | None = None) -> None:
    """The kiosk process: the controller and its helpers, until told to stop (or killed).

    With `log_path`, its log (INFO and up) and its stderr, where a traceback
    would go, are appended to that file, for a caller that reads what the
    kiosk said."""
    import os

    if log_path is not None:
        import logging

        os.dup2(os.open(log_path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644), 2)
        logging.basicConfig(filename=log_path, level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")

    from kiosk.camera_thread import CameraThread
    from kiosk.controller import GameController
    from kiosk.engine_worker import EngineWorker
    from kiosk.gantry_thread import GantryThread
    from kiosk.robot_adapter import GantryMover
    from kiosk.vision_adapter import SimFrameSource, VisionFrameReader

    gantry: GantryThread | None = None
    source = SimFrameSource(RemoteWorld(camera_conn), config, seed=seed, still_period_s=3.0,
                            render_hands=False, busy=lambda: gantry is not None and gantry.busy)
    camera = CameraThread(source, VisionFrameReader(config))
    gantry = GantryThread(GantryMover(config, port_provider=lambda: port))
    engine = EngineWorker(config.engine.levels, seed=seed, time_scale=engine_time_scale,
                          pondering=config.engine.ponder, ponder_max_s=config.engine.ponder_max_s)
    ctrl = GameController(config, camera, gantry, engine, state_dir, stable_s=stable_s)
    if start is not None:
        ctrl.start_game(*start)
    last: NodeView | None = None
    while True:
        ctrl.poll()
        v = ctrl.view()
        board = v.board
        summary = NodeView(v.state, v.ply,
                           tuple(m.otn(board.size) for m in board.move_stack) if board else (),
                           board.position_otn() if board else None,
                           tuple((sq, p.value if p else None) for sq, p in sorted(v.fix_squares.items())),
                           v.resumed, os.getpid())
        if summary != last:
            view_conn.send(summary)
            last = summary
        if view_conn.poll():
            if view_conn.recv() == "stop":
                break
        time.sleep(0.01)
    for stop in (gantry.stop, camera.stop, engine.stop, ctrl.stop):
        stop()


class KioskNode:
    """The table process's handle on one kiosk process."""

    def __init__(self, world: SimWorld, config: Config, state_dir: str, port: str, *, seed: int = 0,
                 stable_s: float = 0.25, engine_time_scale: float = 0.1, start: tuple | None = None,
                 log_path: str | None = None) -> None:
        ctx = mp.get_context("spawn")
        cam_here, cam_there = ctx.Pipe()
        self.views, views_there = ctx.Pipe()
        self.process = ctx.Process(target=node_main, name="tafl-kiosk-node",
                                   args=(config, state_dir, port, cam_there, views_there, seed, stable_s,
                                         engine_time_scale, start, log_path))
        self.process.start()
        cam_there.close()
        views_there.close()
        self._feed = serve_snapshots(world, cam_here)
        self._cam = cam_here
        self.view: NodeView | None = None

    def poll(self, timeout: float = 0.0) -> NodeView | None:
        """The newest view the kiosk process reported (None before the first)."""
        try:
            while self.views.poll(timeout):
                self.view = self.views.recv()
                timeout = 0.0
        except (EOFError, OSError):
            pass
        return self.view

    def kill(self) -> None:
        """Pull the plug: SIGKILL, no goodbye."""
        self.process.kill()
        self.process.join(timeout=5)
        for conn in (self._cam, self.views):
            conn.close()

    def stop(self) -> None:
        try:
            self.views.send("stop")
        except (OSError, ValueError):
            pass
        self.process.join(timeout=15)
        if self.process.is_alive():
            self.kill()
