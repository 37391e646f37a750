"""Perft speed of the rules engine: leaves per second at depth 3 for every variant.

    python bench/perft_bench.py            # depth 3, every variant
    python bench/perft_bench.py --depth 4 --variant copenhagen   # 50,456,804 leaves (slow)

Also times the search's hot path (push + pop, move generation) on a middle-game
position, since alpha-beta lives on those. Figures go to stdout; nothing is
asserted (timings belong here, not in the tests).
"""
from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engine import VARIANTS, Board, perft

KNOWN = {("copenhagen", 1): 116, ("copenhagen", 2): 6_788, ("copenhagen", 3): 806_344,
         ("copenhagen", 4): 50_456_804}


def perft_no_bulk(board: Board, depth: int) -> int:
    """Perft that plays every leaf move too (push + pop), as a search without bulk counting would."""
    total = 0
    for move in board.generate_moves():
        board.push_unchecked(move)
        if depth == 1 or board.game_end is not None:
            total += 1
        else:
            total += perft_no_bulk(board, depth - 1)
        board.pop()
    return total


def bench_perft(variant: str, depth: int, bulk: bool = True) -> None:
    board = Board(variant)
    start = time.perf_counter()
    leaves = perft(board, depth) if bulk else perft_no_bulk(board, depth)
    seconds = time.perf_counter() - start
    check = ""
    if (variant, depth) in KNOWN:
        check = "  ok" if KNOWN[(variant, depth)] == leaves else f"  WRONG (want {KNOWN[(variant, depth)]})"
    mode = "" if bulk else " (every leaf pushed)"
    print(f"{variant:<11} depth {depth}{mode}: {leaves:>11,} leaves in {seconds:7.3f} s "
          f"= {leaves / seconds:>12,.0f} leaves/s{check}")


def bench_hot_path(variant: str) -> None:
    rng = random.Random(7)
    board = Board(variant)
    for _ in range(24):
        moves = board.generate_moves()
        if not moves or board.game_end is not None:
            break
        board.push_unchecked(rng.choice(moves))
    moves = board.generate_moves()
    rounds = max(1, 20_000 // max(1, len(moves)))
    start = time.perf_counter()
    for _ in range(rounds):
        for m in moves:
            board.push_unchecked(m)
            board.pop()
    per_push = (time.perf_counter() - start) / (rounds * len(moves))
    start = time.perf_counter()
    for _ in range(2_000):
        board.generate_moves()
    per_gen = (time.perf_counter() - start) / 2_000
    print(f"{variant:<11} push+pop {per_push * 1e6:6.2f} us   generate_moves "
          f"{per_gen * 1e6:6.1f} us ({len(moves)} moves)")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--depth", type=int, default=3)
    parser.add_argument("--variant", choices=list(VARIANTS), action="append")
    parser.add_argument("--no-bulk", action="store_true",
                        help="also play every leaf move (slow; the no-legal-move rule is not applied)")
    args = parser.parse_args()
    variants = args.variant or list(VARIANTS)
    for v in variants:
        bench_perft(v, args.depth)
        if args.no_bulk:
            bench_perft(v, args.depth, bulk=False)
    for v in variants:
        bench_hot_path(v)
    return 0


if __name__ == "__main__":
    sys.exit(main())
