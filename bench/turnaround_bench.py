"""Turnaround benchmark: the reset from the final position of a real game to the next
start, on the reference gantry, against its kinematic lower bound and against today's
clear-then-set-up.

Games: copenhagen-games.csv (../shared/data/, or the copy in tests/data/), replayed by
the engine (engine.replay) up to their first end; every capture is parked as the robot
parks it (the nearest free slot of its side, the king in his own), and the carriage
waits where the last move ended. Each game's table is reset with
`MotionPlanner.plan_reset` to the Copenhagen start.

Times are the reference gantry's, from the G-code the gantry sends for each step
(`robot.gantry.Gantry.gcode`) timed as GRBL plans it (`robot.planner.MotionTimes`:
the simulator's $110/$111 rates, $120/$121 accelerations and $11 junction deviation,
trapezoids from stop to stop around each magnet switch, look-ahead through the corners
of a drag, the magnet dwell). `--sim N` also runs the first N resets through the whole
stack (planner, gantry, driver, a real pty, the GRBL simulator) and prints the
simulator's clock beside the model's (host and serial latency count there, scaled by
the speed factor).

The lower bound (`MotionPlanner.reset_lower_bound`): the carries of the assignment with
the least carry time (dwell + straight drag stop to stop, nothing in the way), plus the
least empty travel that links them (each pickup reached from the start or from the drop
of another carry: the assignment relaxation of the tour, no order, no collision rules).

Today's clear-then-set-up (what the kiosk does between two games): every piece to
storage (`plan_reset(board, storage, {})`), then the start set up from storage, planned
by the same planner and timed the same way. (Before plan_reset, the old nearest-first
`plan_arrangement` gave a median of 598.8 s on the default sample of 120 games.)

    python bench/turnaround_bench.py [--games N | --all] [--sim N] [--speed-factor F]
                                     [--drag-feed MM_MIN] [--no-baseline]
"""
from __future__ import annotations

import argparse
import csv
import statistics
import sys
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from calibration.config import Config  # noqa: E402
from engine.replay import ReplayError, replay, tokenize  # noqa: E402
from robot.collision import check_plan  # noqa: E402
from robot.layout import Location, Slot, TableLayout, start_position  # noqa: E402
from robot.planner import MotionPlanner, MotionTimes, Step, apply_step  # noqa: E402

GAME_FILES = (ROOT.parent / "shared" / "data" / "copenhagen-games.csv",
              Path("/work/shared/data/copenhagen-games.csv"),
              ROOT / "tests" / "data" / "copenhagen-games.csv")


@dataclass
class Game:
    number: int              # 1-based line in the file
    plies: int
    places: dict[Location, str]
    start: tuple[float, float]


def final_positions(path: Path, planner: MotionPlanner, limit: int | None) -> list[Game]:
    """The tables after the recorded games (every k-th game when limited)."""
    with open(path, newline="") as fh:
        rows = list(csv.reader(fh))
    step = 1 if limit is None else max(1, len(rows) // limit)
    games = []
    for number in range(0, len(rows), step):
        moves = tokenize(rows[number][0])
        try:
            result = replay("copenhagen", moves)
        except ReplayError as exc:
            if exc.ply <= 1:
                continue
            result = replay("copenhagen", moves[:exc.ply - 1])   # stop at the first end
        places, last = planner.table_after(result.board)
        games.append(Game(number + 1, len(result.board.move_stack), places,
                          planner.layout.position(last)))
        if limit is not None and len(games) >= limit:
            break
    return games


def split(places: dict[Location, str]) -> tuple[dict[int, str], dict[Slot, str]]:
    return ({k: v for k, v in places.items() if isinstance(k, int)},
            {k: v for k, v in places.items() if isinstance(k, Slot)})


def after(places: dict[Location, str], steps: list[Step]) -> dict[Location, str]:
    for s in steps:
        places = apply_step(places, s)
    return places


def clear_then_setup(planner: MotionPlanner, game: Game, target: dict[int, str]) -> list[Step]:
    cleared = list(planner.plan_reset(*split(game.places), {}, game.start).steps)
    pos = cleared[-1].path[-1] if cleared else game.start
    setup = planner.plan_reset(*split(after(game.places, cleared)), target, pos)
    return cleared + list(setup.steps)


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    k = (len(ordered) - 1) * q
    lo, hi = int(k), min(int(k) + 1, len(ordered) - 1)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (k - lo)


def run_on_simulator(config: Config, game: Game, steps: list[Step],
                     speed: float) -> tuple[float, int]:
    """The reset through the real stack; returns (simulated seconds, collisions seen)."""
    from robot.simrig import SimRig

    with SimRig(config, speed_factor=speed, places=game.places) as rig:
        rig.gantry.start()
        # the firmware's own coordinates, as the gantry sends them (-$130..0 on a stock build)
        mx, my = rig.driver.to_firmware(*rig.layout.to_machine(game.start))
        rig.driver.send(f"G53G0X{mx:.3f}Y{my:.3f}")
        rig.driver.sync()
        t0 = rig.sim.clock()
        rig.gantry.execute(steps)
        assert rig.table is not None            # SimRig's own table
        return rig.sim.clock() - t0, len(rig.table.collisions)


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--games", type=int, default=120, help="games sampled evenly from the file")
    p.add_argument("--all", action="store_true", help="every game of the file")
    p.add_argument("--file", type=Path, help="the games file (default: the shared data)")
    p.add_argument("--sim", type=int, default=2, help="resets also run on the GRBL simulator")
    p.add_argument("--speed-factor", type=float, default=20.0)
    p.add_argument("--no-baseline", action="store_true", help="skip clear-then-set-up")
    p.add_argument("--drag-feed", type=float,
                   help="another drag feed (mm/min) than the reference 3000, to see what it buys")
    args = p.parse_args()
    path = args.file or next((f for f in GAME_FILES if f.exists()), GAME_FILES[-1])
    config = Config()
    if args.drag_feed:
        config.gantry.drag_feed_mm_min = args.drag_feed
    layout = TableLayout(config)
    planner = MotionPlanner(layout)
    times = MotionTimes.reference(layout)
    target = start_position("copenhagen")
    games = final_positions(path, planner, None if args.all else args.games)
    print(f"{len(games)} final positions from {path.name}; reference gantry times in seconds"
          f" (drag feed {config.gantry.drag_feed_mm_min:g} mm/min)")
    print("  game  plies  moves  reset  bound  ratio  clear+setup  plan ms")
    resets, ratios, bases, walls, bad = [], [], [], [], 0
    for g in games:
        wall = time.perf_counter()
        plan = planner.plan_reset(*split(g.places), target, g.start, times)
        walls.append(time.perf_counter() - wall)
        steps = list(plan.steps)
        ok = (split(after(g.places, steps))[0] == target and plan.complete
              and not check_plan(layout, g.places, steps, margin_mm=planner.margin))
        bad += not ok
        ratio = plan.seconds / plan.lower_bound_s if plan.lower_bound_s > 0 else 1.0
        resets.append(plan.seconds)
        ratios.append(ratio)
        base = float("nan")
        if not args.no_baseline:
            base = times.plan(clear_then_setup(planner, g, target), g.start)
            bases.append(base)
        print(f"  {g.number:4d}  {g.plies:5d}  {len(steps):5d}  {plan.seconds:5.1f}  "
              f"{plan.lower_bound_s:5.1f}  {ratio:5.3f}  {base:11.1f}  {walls[-1] * 1000:7.0f}"
              + ("" if ok else "  WRONG OR COLLIDING"))
    print(f"reset: median {statistics.median(resets):.1f} s, p95 {percentile(resets, 0.95):.1f} s, "
          f"max {max(resets):.1f} s; within 60 s: {sum(r <= 60 for r in resets)}/{len(resets)}")
    print(f"reset / lower bound: median {statistics.median(ratios):.3f}, "
          f"p95 {percentile(ratios, 0.95):.3f}, max {max(ratios):.3f}")
    if bases:
        speedups = [b / r for b, r in zip(bases, resets) if r > 0]
        print(f"clear-then-set-up today: median {statistics.median(bases):.1f} s, "
              f"p95 {percentile(bases, 0.95):.1f} s; reset is {statistics.median(speedups):.1f}x "
              "faster (median)")
    print(f"planning time: median {statistics.median(walls) * 1000:.0f} ms, "
          f"max {max(walls) * 1000:.0f} ms; wrong or colliding plans: {bad}")
    for g in games[:max(0, args.sim)]:
        plan = planner.plan_reset(*split(g.places), target, g.start, times)
        simulated, collisions = run_on_simulator(config, g, list(plan.steps), args.speed_factor)
        print(f"on the GRBL simulator (speed factor {args.speed_factor:g}): game {g.number}: "
              f"{simulated:.1f} s simulated, model {plan.seconds:.1f} s, collisions {collisions}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
