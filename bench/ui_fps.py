"""Frames per second of the touchscreen loop while the engine searches in its own process.

The UI process is pinned to one CPU core; the engine worker (the real
kiosk.engine_worker, Hard level, searching continuously) runs beside it.
Every frame the controller view changes (the robot's progress, whose turn,
announcements, a fresh board copy as the real controller hands out), and
the game screen is drawn into a real pygame display (SDL dummy driver).

Prints the uncapped frame time (what one frame costs) and the frame rate
actually reached with the kiosk's 60 fps frame limiter (kiosk.ui.app.FrameLimiter).

    python bench/ui_fps.py [--frames N] [--size 1280x800] [--no-engine]
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

import pygame

from calibration.config import Config
from kiosk.activity import ActivityCode, RobotActivity
from kiosk.ui.app import FPS, FrameLimiter, KioskApp
from kiosk.ui.screenshots import StillController, game_view


class ChangingController(StillController):
    """Hands out a different view every frame, like a controller during the robot's turn."""

    def __init__(self, frames: int) -> None:
        self.views = [game_view(plies) for plies in range(10, 30)]
        super().__init__(self.views[0])
        self.frames = frames
        self.k = 0

    def poll(self) -> None:
        self.k += 1

    def view(self):
        base = self.views[(self.k // 30) % len(self.views)]
        phase = (self.k % 90) / 90
        state = ("thinking", "robot_moving", "visitor_turn")[(self.k // 90) % 3]
        return replace(base, board=base.board.copy(), state=state, progress=phase,
                       robot_activity=RobotActivity(ActivityCode.MOVING, {"from": "b9", "to": "a9"}), announcements=("king_threatened",) if phase > 0.5 else ())


def run(frames: int, size: tuple[int, int], capped: bool, engine) -> tuple[list[float], float, int]:
    display = pygame.display.set_mode(size)
    controller = ChangingController(frames)
    config = Config()
    config.kiosk.idle_timeout_s = 1e9
    app = KioskApp(controller, config, size=size, surface=display)
    app.navigate("game")
    limiter = FrameLimiter()
    times = []
    replies = 0
    request_id = 0
    if engine is not None:
        request_id += 1
        engine.request(request_id, "copenhagen", {}, [], "hard")
    start = time.perf_counter()
    for _ in range(frames):
        t0 = time.perf_counter()
        if engine is not None and engine.poll() is not None:
            replies += 1
            request_id += 1
            engine.request(request_id, "copenhagen", {}, [], "hard")
        app.step([])
        pygame.display.flip()
        times.append(time.perf_counter() - t0)
        if capped:
            limiter.wait()
    elapsed = time.perf_counter() - start
    return times, frames / elapsed, replies


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=600)
    parser.add_argument("--size", default="1280x800")
    parser.add_argument("--no-engine", action="store_true", help="measure without the engine searching")
    args = parser.parse_args()
    width, height = (int(v) for v in args.size.split("x"))
    size = (width, height)
    engine = None
    if not args.no_engine:
        from kiosk.engine_worker import EngineWorker

        engine = EngineWorker(Config().engine.levels)
    cores = sorted(os.sched_getaffinity(0))
    if len(cores) > 1:
        os.sched_setaffinity(0, {cores[0]})               # the UI on one core
        if engine is not None and engine.pid:
            os.sched_setaffinity(engine.pid, set(cores[1:]))
    pygame.display.init()
    pygame.font.init()
    try:
        times, uncapped_fps, replies_a = run(args.frames, size, capped=False, engine=engine)
        ms = sorted(t * 1000 for t in times)

        def p(q: float) -> float:
            return ms[min(len(ms) - 1, int(q * len(ms)))]

        load = os.getloadavg()[0]
        print(f"ui_fps: size {size[0]}x{size[1]}, {args.frames} frames, UI pinned to core {cores[0]}, "
              f"engine searching: {'yes' if engine else 'no'}; machine load average {load:.1f} on "
              f"{os.cpu_count()} cores (others' work shares the UI core)")
        print(f"ui_fps: uncapped {uncapped_fps:.0f} fps; frame time mean {statistics.mean(ms):.2f} ms, "
              f"p50 {p(0.5):.2f} ms, p99 {p(0.99):.2f} ms, max {ms[-1]:.2f} ms (budget {1000 / FPS:.1f} ms)")
        times, capped_fps, replies_b = run(args.frames, size, capped=True, engine=engine)
        late = sum(1 for t in times if t * 1000 > 1000 / FPS)
        print(f"ui_fps: with the 60 fps limiter {capped_fps:.1f} fps; frames over budget: {late}/{len(times)}; "
              f"engine replies meanwhile: {replies_a + replies_b}")
    finally:
        if engine is not None:
            engine.stop()
        pygame.display.quit()
    return 0


if __name__ == "__main__":
    sys.exit(main())
