"""Search speed: nodes per second and time to each depth on fixed positions.

Usage: python bench/search_bench.py [--max-depth 4] [--variant copenhagen ...]

Positions: every variant's start, and a Copenhagen middle game (the first 30
plies of the first record of tests/data/copenhagen-games.csv with 50 or more). For each, the
search is run with depth caps 1..N (fresh tables each time, so the time is what
a move at that depth costs from cold) and prints depth, nodes, seconds,
nodes/s and the chosen move. A figure, never a pass/fail.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engine.board import Board
from engine.levels import Level
from engine.search import Searcher

GAMES = Path(__file__).resolve().parents[1] / "tests" / "data" / "copenhagen-games.csv"


def middle_game(plies: int = 30) -> Board | None:
    if not GAMES.exists():
        return None
    for line in GAMES.read_text(encoding="utf-8").splitlines():
        moves = line.split(",")[0].split()
        if len(moves) < plies + 20:
            continue
        board = Board("copenhagen")
        for text in moves[:plies]:
            board.push(board.parse_move(text.split("x")[0]))
        return board
    return None


def run(name: str, board: Board, max_depth: int) -> None:
    total_nodes = 0
    total_time = 0.0
    for depth in range(1, max_depth + 1):
        level = Level(f"d{depth}", time_s=600.0, max_depth=depth, blunder_guard=False)
        t0 = time.perf_counter()
        result = Searcher(board, level, seed=0).search()
        dt = time.perf_counter() - t0
        total_nodes += result.nodes
        total_time += dt
        print(f"  {name:<22} depth {depth}: {result.nodes:>8} nodes {dt:7.2f}s "
              f"{result.nodes / max(dt, 1e-9):>8.0f} nodes/s  {result.move_text:<12} score {result.score}",
              flush=True)
    print(f"  {name:<22} overall {total_nodes / max(total_time, 1e-9):.0f} nodes/s")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--max-depth", type=int, default=3)
    p.add_argument("--variant", action="append", default=None)
    args = p.parse_args(argv)
    variants = args.variant or ["copenhagen", "york", "tablut", "tawlbwrdd"]
    print(f"search bench: depth 1..{args.max_depth}, one process, fresh tables per depth")
    for v in variants:
        run(f"{v} start", Board(v), args.max_depth)
    if "copenhagen" in variants:
        mid = middle_game()
        if mid is not None:
            run("copenhagen ply 30", mid, args.max_depth)
    return 0


if __name__ == "__main__":
    sys.exit(main())
