"""Robot benchmark: simulated execution time of real game turns and of a full set-up,
against the kinematic lower bound.

Each turn is a move from tests/data/copenhagen-games.csv replayed by the engine,
with its captures parked. It runs through the whole stack (planner, gantry,
driver, a real pty, the GRBL simulator timing motion from its $110/$111 rates
and $120/$121 accelerations); its time is read on the simulator's clock.

The lower bound of a step: travel (rapid) in a straight line from where the
magnet is to the pickup, the configured magnet dwell, and a straight drag at
the drag feed to the drop point, each leg from stop to stop at full
acceleration (the magnet must stop to switch). Host/serial latency counts in
the measured time (scaled by the speed factor), as it would on the machine.

    python bench/robot_bench.py [--turns N] [--speed-factor F]
"""
from __future__ import annotations

import argparse
import csv
import math
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from calibration.config import Config
from engine import Board, Move
from robot.kinematics import AxisLimits, straight_move_time
from robot.layout import KING_SLOT, TableLayout, piece_letter
from robot.planner import Step
from robot.simrig import SimRig

GAMES = Path(__file__).resolve().parents[1] / "tests" / "data" / "copenhagen-games.csv"


def lower_bound(steps: list[Step], start_board: tuple[float, float], layout: TableLayout,
                limits: AxisLimits, config: Config) -> float:
    g = config.gantry
    pos = layout.to_machine(start_board)
    total = 0.0
    for s in steps:
        pick, drop = layout.to_machine(s.path[0]), layout.to_machine(s.path[-1])
        total += straight_move_time(pos, pick, limits, None)
        total += g.magnet_dwell_s
        total += straight_move_time(pick, drop, limits, g.drag_feed_mm_min)
        pos = drop
    return total


def places_for(board: Board, layout: TableLayout) -> dict:
    """The position on the board, every other piece in storage (highest slots emptied first)."""
    on_board = {sq: piece_letter(p) for sq, p in board.pieces().items()}
    places: dict = dict(layout.storage_start())
    for piece in on_board.values():
        if piece == "K":
            del places[KING_SLOT]
            continue
        side = "attackers" if piece == "t" else "defenders"
        slot = next(s for s in reversed(layout.slots(side)) if places.get(s) == piece)
        del places[slot]
    places.update(on_board)
    return places


def sample_turns(n: int) -> list[tuple[Board, Move, tuple[int, ...], int | None]]:
    """n turns from real games, about a third of them with captures; each with the square
    the robot's previous move ended on (where the magnet waits)."""
    plain: list[tuple[Board, Move, tuple[int, ...], int | None]] = []
    capturing: list[tuple[Board, Move, tuple[int, ...], int | None]] = []
    with open(GAMES, newline="") as fh:
        for g, row in enumerate(csv.reader(fh)):
            board = Board("copenhagen")
            last_own: dict[str, int] = {}
            for ply, text in enumerate(row[0].split()):
                try:
                    move = board.parse_move(text.split("x")[0])
                except ValueError:
                    break
                if not board.is_legal(move):
                    break
                side = str(board.turn)
                caps = tuple(board.captures_of(move))
                if ply >= 6 and ply % 5 == g % 5:
                    entry = (board.copy(), move, caps, last_own.get(side))
                    (capturing if caps else plain).append(entry)
                last_own[side] = move.to_sq
                board.push(move)
                if board.is_game_over():
                    break
            if len(capturing) >= n and len(plain) >= n:
                break
    k = max(1, n // 3)
    return capturing[:k] + plain[:n - k]


def run_turns(n: int, speed: float) -> None:
    config = Config()
    layout = TableLayout(config)
    ratios, times = [], []
    print(f"turns from {GAMES.name} (speed factor {speed:g}):")
    print("  move        caps  sim s  bound s  ratio")
    for board, move, caps, magnet_sq in sample_turns(n):
        with SimRig(config, speed_factor=speed, places=places_for(board, layout)) as rig:
            rig.gantry.start()
            limits = AxisLimits.from_settings(rig.driver.settings())
            start = layout.position(magnet_sq if magnet_sq is not None else KING_SLOT)
            mx, my = rig.driver.to_firmware(*layout.to_machine(start))   # stock: -$130..0
            rig.driver.send(f"G53G0X{mx:.3f}Y{my:.3f}")
            rig.driver.sync()
            t0 = rig.sim.clock()
            steps = rig.gantry.move(move.from_sq, move.to_sq, caps)
            elapsed = rig.sim.clock() - t0
            bound = lower_bound(steps, start, layout, limits, config)
            assert rig.table is not None        # SimRig's own table
            collisions = len(rig.table.collisions)
        ratios.append(elapsed / bound)
        times.append(elapsed)
        otn = board.move_to_otn(move)
        print(f"  {otn:<12s} {len(caps):>3d}  {elapsed:6.2f}  {bound:6.2f}  {elapsed / bound:5.3f}"
              + (f"  COLLISIONS {collisions}" if collisions else ""))
    plain = [r for r, (_, _, c, _) in zip(ratios, sample_turns(n)) if not c]
    print(f"single turns: mean ratio {sum(ratios) / len(ratios):.3f}, worst {max(ratios):.3f}, "
          f"without captures mean {sum(plain) / max(1, len(plain)):.3f}; "
          f"mean time {sum(times) / len(times):.2f} s")


def run_setup(speed: float) -> None:
    config = Config()
    layout = TableLayout(config)
    with SimRig(config, speed_factor=speed) as rig:
        rig.gantry.start()
        limits = AxisLimits.from_settings(rig.driver.settings())
        start = layout.to_board(rig.driver.position())
        wall, t0 = time.monotonic(), rig.sim.clock()
        steps = rig.gantry.setup("copenhagen")
        elapsed = rig.sim.clock() - t0
        bound = lower_bound(steps, start, layout, limits, config)
        drag = sum(s.drag_length for s in steps)
        assert rig.table is not None
        straight = sum(math.dist(s.path[0], s.path[-1]) for s in steps)
        print(f"full set-up (copenhagen, {len(steps)} pieces, speed factor {speed:g}): "
              f"{elapsed:.1f} s simulated, bound {bound:.1f} s, ratio {elapsed / bound:.3f}; "
              f"drag {drag / 1000:.2f} m ({straight / 1000:.2f} m straight), "
              f"{len(rig.table.collisions)} collisions, {time.monotonic() - wall:.1f} s wall")


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--turns", type=int, default=15)
    p.add_argument("--speed-factor", type=float, default=10.0)
    p.add_argument("--setup-speed-factor", type=float, default=40.0)
    args = p.parse_args()
    run_turns(args.turns, args.speed_factor)
    run_setup(args.setup_speed_factor)
    return 0


if __name__ == "__main__":
    sys.exit(main())
