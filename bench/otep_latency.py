"""How fast `tafl-engine otep` answers `play` when no clock comes (an untimed OpenTafl game).

    python bench/otep_latency.py                    # 20 moves, level easy, --time 0.2
    python bench/otep_latency.py --moves 40 --level medium --time 0.5

Drives the real subprocess with OpenTafl's untimed message order (rules, then
per turn `opponent-move <a-b> <position>` and `play`, no `clock`), and times
from writing `play` to reading `move`. Prints the median and the largest reply
time and how far they are over the think time; the contract is think time +
50 ms. The opponent plays seeded random legal moves. Nothing is asserted.
"""
from __future__ import annotations

import argparse
import os
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from engine import Board  # noqa: E402
from engine.otep import match_rules, variant_record  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--moves", type=int, default=20, help="engine moves to time (N)")
    ap.add_argument("--level", default="easy")
    ap.add_argument("--time", type=float, default=0.2, help="the engine's think time (s)")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()

    record = variant_record("copenhagen")
    host = match_rules(record)
    env = dict(os.environ, PYTHONPATH=str(REPO))
    proc = subprocess.Popen([sys.executable, "-m", "engine", "otep", "--level", args.level,
                             "--time", str(args.time)], cwd=REPO, env=env, text=True, bufsize=1,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    assert proc.stdin is not None and proc.stdout is not None
    stdin, stdout = proc.stdin, proc.stdout

    def send(line: str) -> None:
        stdin.write(line + "\n")
        stdin.flush()

    def read_move() -> str:
        while True:
            line = stdout.readline()
            if not line:
                raise SystemExit("the engine exited")
            if line.startswith("move "):
                return line.split()[1]

    def read_until(prefix: str) -> None:
        while not stdout.readline().startswith(prefix):
            pass

    rng = random.Random(args.seed)
    read_until("hello")              # OpenTafl asks for moves only once the engine said hello
    send("rules " + record)
    read_until("status playing")
    times: list[float] = []
    games = 0
    while len(times) < args.moves:
        board = Board(host.variant, host.options_dict)
        games += 1
        if games > 1:
            send("rules " + record)
            read_until("status playing")
        last = None
        while board.outcome() is None and len(times) < args.moves:
            if board.turn.value == "attackers":            # the host's side: random moves
                mv = rng.choice(board.legal_moves)
                last = board.move_to_otn(mv).split("x")[0]
                board.push(mv)
                continue
            if last is not None:
                send(f"opponent-move {last} {board.position_otn()}")
            t0 = time.perf_counter()
            send("play defenders")
            text = read_move()
            times.append(time.perf_counter() - t0)
            board.push(board.parse_move(text))
            send(f"move {board.position_otn()}")
        send("finish 0")
    send("goodbye")
    proc.wait(timeout=30)
    med, worst = statistics.median(times), max(times)
    if os.environ.get("OTEP_LATENCY_ALL"):
        print(" ".join(f"{t * 1000:.0f}" for t in times))
    print(f"otep play->move, no clock, level {args.level}, think {args.time:.3f} s, "
          f"{len(times)} moves in {games} game(s)")
    print(f"  median {med * 1000:.1f} ms (think + {(med - args.time) * 1000:+.1f} ms), "
          f"max {worst * 1000:.1f} ms (think + {(worst - args.time) * 1000:+.1f} ms); "
          f"contract: think + 50 ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
