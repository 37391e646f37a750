"""Match harness: two OTEP engines play each other, refereed by our rules engine.

    python bench/otep_match.py --a "python -m engine otep --level hard --time {time}" \\
        --b "java -cp OT/out:OT/lib/lanterna.jar attackdriver.Main {time}" \\
        --games 20 --time 5 [--random-plies 2] [--no-repetition-end] [--max-plies 200] \\
        [--rules "<OTN rules record>"] [--clock] [--seed 1] [--record games.jsonl]

Without arguments (as bench/run_all.py calls it) our Hard plays our Medium, two
games at 1 s per move. Each engine is a command line speaking the OpenTafl Engine Protocol
(opentafl-engine-protocol.txt), started once and kept for the whole match
(``finish`` then a new ``rules`` starts the next game). ``{time}`` in a
command is replaced by ``--time`` (the seconds per move); ``--clock`` also
sends a per-move clock (``clock <ms>* <ms>* <s> 1 1``: an overtime period of
``--time`` seconds) before every ``play``, as OpenTafl's host does in timed
games.

The host's message order is OpenTafl's ExternalEngineHost's: ``rules``; then,
for every turn, ``opponent-move <moves since this engine last moved>
<position>`` (several moves joined by ``|`` when the random opening put more
than one there; none before the very first move), [``clock``], ``play
<side>``; the engine answers ``move <a-b>`` (``status`` lines are read and
dropped); the referee answers ``move <position>`` when the move is legal, or
``error 2`` followed again by ``opponent-move`` and ``play`` when it is not (a
third illegal move, a crash, or no answer within ``--forfeit-s`` loses the
game). ``finish <code>`` ends each game and ``goodbye`` the match.

The referee is ``engine.Board`` with the variant and options the rules record
asks for (``engine.otep.match_rules``: Copenhagen with OpenTafl's tfr:w by
default). ``--no-repetition-end`` makes the referee ignore repetition (the
engines still get the same record, so they may still steer for it): the game
goes on until a real end or ``--max-plies``, which measures an attacking plan,
not the repetition rule. A game reaching ``--max-plies`` is a draw.

Openings: each pair of games starts from ``--random-plies`` random legal moves
drawn from the pair's seed, played once with A attacking and once with B
attacking. The summary prints A's score overall, as attackers and as
defenders, the median plies, the end reasons, and each engine's median and
worst reply time.
"""
from __future__ import annotations

import argparse
import json
import queue
import random
import shlex
import statistics
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from engine.board import Board  # noqa: E402
from engine.otep import match_rules, simple_move, variant_record  # noqa: E402

FINISH_CODES = {None: 1, "attackers": 2, "defenders": 3}   # finish 1 draw, 2 attackers, 3 defenders
ILLEGAL_TRIES = 3


class EngineGone(Exception):
    """The engine died, said nothing in time, or sent a critical error."""


class OtepEngine:
    """One engine process: lines in through a pipe, lines out read by a thread into a queue."""

    def __init__(self, name: str, command: str, log: bool = False) -> None:
        self.name = name
        self.command = command
        self.log = log
        self.proc: subprocess.Popen[str] | None = None
        self.lines: queue.Queue[str | None] = queue.Queue()
        self.reply_s: list[float] = []

    def start(self, hello_timeout_s: float = 30.0) -> None:
        self.proc = subprocess.Popen(shlex.split(self.command), cwd=REPO, text=True, bufsize=1,
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL, start_new_session=True)
        self.lines = queue.Queue()
        threading.Thread(target=self._read, args=(self.proc, self.lines), daemon=True).start()
        deadline = time.monotonic() + hello_timeout_s
        while True:
            line = self._next(deadline)
            if line.strip() == "hello":
                return

    @staticmethod
    def _read(proc: subprocess.Popen[str], out: "queue.Queue[str | None]") -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            out.put(line.rstrip("\n"))
        out.put(None)

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def send(self, line: str) -> None:
        if self.log:
            print(f"    > {self.name}: {line}", flush=True)
        if not self.alive():
            raise EngineGone(f"{self.name} is not running")
        assert self.proc is not None and self.proc.stdin is not None
        try:
            self.proc.stdin.write(line + "\n")
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError) as exc:
            raise EngineGone(f"{self.name}: {exc}") from exc

    def _next(self, deadline: float) -> str:
        try:
            line = self.lines.get(timeout=max(0.0, deadline - time.monotonic()))
        except queue.Empty:
            raise EngineGone(f"{self.name} said nothing in time") from None
        if line is None:
            raise EngineGone(f"{self.name} exited")
        if self.log:
            print(f"    < {self.name}: {line}", flush=True)
        return line

    def drain(self) -> None:
        """Drops what the engine said after its move (OpenTafl's AI prints its statistics then)."""
        while True:
            try:
                line = self.lines.get_nowait()
            except queue.Empty:
                return
            if line is None:
                self.lines.put(None)
                return

    def await_move(self, timeout_s: float) -> str:
        """The text after ``move`` of the engine's next move line (status lines dropped)."""
        t0 = time.monotonic()
        deadline = t0 + timeout_s
        while True:
            line = self._next(deadline).strip()
            word, _, rest = line.partition(" ")
            if word == "move":
                self.reply_s.append(time.monotonic() - t0)
                return rest.strip()
            if word == "error" and rest.startswith("-1"):
                raise EngineGone(f"{self.name} critical error: {rest[:200]}")

    def stop(self) -> None:
        if self.proc is None:
            return
        try:
            if self.alive():
                self.send("goodbye")
            self.proc.wait(timeout=5)
        except (EngineGone, subprocess.TimeoutExpired, KeyboardInterrupt):
            self.proc.kill()
            self.proc.wait()
        self.proc = None


@dataclass
class GameRecord:
    index: int
    a_attacks: bool
    winner: str | None          # "attackers" | "defenders" | None
    reason: str
    plies: int
    a_score: float
    moves: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class MatchSettings:
    record: str
    no_repetition_end: bool = False
    max_plies: int = 200
    random_plies: int = 2
    time_s: float = 5.0
    clock: bool = False
    forfeit_s: float = 0.0      # 0: 3 x time + 15 s


def referee_board(settings: MatchSettings) -> Board:
    """The referee: our Board with the rules the record asks for (repetition ignored on request)."""
    host = match_rules(settings.record)
    options = host.options_dict
    if settings.no_repetition_end:
        options["repetition"] = "ignored"
    return Board(host.variant, options=options)


def opening(settings: MatchSettings, seed: int) -> list[str]:
    """``random_plies`` legal moves drawn from ``seed`` (the same for both games of a pair)."""
    board = referee_board(settings)
    rng = random.Random(seed)
    moves: list[str] = []
    for _ in range(settings.random_plies):
        legal = sorted(board.generate_moves(), key=board.move_to_otn)
        if not legal or board.outcome() is not None:
            break
        mv = legal[rng.randrange(len(legal))]
        moves.append(simple_move(board.move_to_otn(mv)))
        board.push(mv)
    return moves


def play_game(index: int, attacker: OtepEngine, defender: OtepEngine, a_attacks: bool,
              settings: MatchSettings, opening_moves: list[str]) -> GameRecord:
    """One game between two started engines; the referee decides every move and the end."""
    board = referee_board(settings)
    engines = {"attackers": attacker, "defenders": defender}
    seen = {"attackers": 0, "defenders": 0}     # moves of the game each engine knows
    played: list[str] = []
    for eng in engines.values():
        eng.send(f"rules {settings.record}")
    for mv in opening_moves:
        board.push(board.parse_move(mv))
        played.append(mv)
    forfeit_s = settings.forfeit_s or settings.time_s * 3 + 15
    winner: str | None
    reason = ""
    try:
        while True:
            end = board.outcome()
            if end is not None:
                winner = end.winner.value if end.winner else None
                reason = end.reason
                break
            if board.ply >= settings.max_plies:
                winner, reason = None, "max_plies"
                break
            side = board.turn.value
            eng = engines[side]
            move = _ask_move(eng, side, board, played, seen, settings, forfeit_s)
            if move is None:
                winner = "defenders" if side == "attackers" else "attackers"
                reason = f"illegal_moves_by_{eng.name}"
                break
            played.append(simple_move(board.move_to_otn(move)))   # before push: it reads captures
            board.push(move)
            seen[side] = len(played)
            eng.send(f"move {board.position_otn()}")
    except EngineGone as exc:
        side = board.turn.value
        winner = "defenders" if side == "attackers" else "attackers"
        reason = f"forfeit ({exc})"
    for eng in engines.values():
        if eng.alive():
            try:
                eng.send(f"finish {FINISH_CODES[winner]}")
            except EngineGone:
                pass
    if winner is None:
        a_score = 0.5
    else:
        a_score = 1.0 if (winner == "attackers") == a_attacks else 0.0
    return GameRecord(index, a_attacks, winner, reason, board.ply, a_score, played)


def _ask_move(eng: OtepEngine, side: str, board: Board, played: list[str], seen: dict[str, int],
              settings: MatchSettings, forfeit_s: float):
    """The engine's legal move, or None after ILLEGAL_TRIES illegal ones."""
    for _ in range(ILLEGAL_TRIES):
        eng.drain()
        unseen = played[seen[side]:]
        if unseen:
            eng.send(f"opponent-move {'|'.join(unseen)} {board.position_otn()}")
        if settings.clock:
            ms = int(settings.time_s * 1000)
            eng.send(f"clock {ms}* {ms}* {settings.time_s:g} 1 1")
        eng.send(f"play {side}")
        text = eng.await_move(forfeit_s)
        try:
            return board.parse_move(simple_move(text))
        except ValueError:
            eng.send("error 2")
            seen[side] = max(0, len(played) - 1)   # OpenTafl re-sends the last move with the position
    return None


def summarize(results: list[GameRecord], name_a: str, name_b: str,
              engines: tuple[OtepEngine, OtepEngine], wall_s: float) -> str:
    lines = []
    scores = [r.a_score for r in results]
    wins = sum(1 for s in scores if s == 1.0)
    draws = sum(1 for s in scores if s == 0.5)
    lines.append(f"A {name_a} vs B {name_b}: +{wins} ={draws} -{len(scores) - wins - draws}  "
                 f"score {sum(scores):.1f}/{len(scores)} = {sum(scores) / max(1, len(scores)):.2f}")
    for label, flag in (("as attackers", True), ("as defenders", False)):
        sub = [r for r in results if r.a_attacks == flag]
        if sub:
            s = sum(r.a_score for r in sub)
            lines.append(f"  A {label}: {s:.1f}/{len(sub)} = {s / len(sub):.2f}  "
                         f"(+{sum(1 for r in sub if r.a_score == 1)} ={sum(1 for r in sub if r.a_score == .5)} "
                         f"-{sum(1 for r in sub if r.a_score == 0)})  "
                         f"median plies {statistics.median(r.plies for r in sub):g}")
    if results:
        lines.append(f"  median plies {statistics.median(r.plies for r in results):g}")
        reasons: dict[str, int] = {}
        for r in results:
            key = f"{r.winner or 'draw'}:{r.reason.split(' ')[0]}"
            reasons[key] = reasons.get(key, 0) + 1
        lines.append("  ends: " + ", ".join(f"{k} {v}" for k, v in sorted(reasons.items())))
    for label, eng in zip(("A", "B"), engines):
        if eng.reply_s:
            lines.append(f"  {label} {eng.name} reply time: median {statistics.median(eng.reply_s):.2f}s "
                         f"worst {max(eng.reply_s):.2f}s over {len(eng.reply_s)} moves")
    lines.append(f"  wall {wall_s:.0f}s")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--a", default=f"{sys.executable} -m engine otep --level hard --time {{time}}",
                   help="engine A's command line ({time} = --time; default: our Hard)")
    p.add_argument("--b", default=f"{sys.executable} -m engine otep --level medium --time {{time}}",
                   help="engine B's command line (default: our Medium)")
    p.add_argument("--name-a", default=None)
    p.add_argument("--name-b", default=None)
    p.add_argument("--games", type=int, default=2, help="games, rounded up to an even number")
    p.add_argument("--time", type=float, default=1.0, help="seconds per move (fills {time})")
    p.add_argument("--clock", action="store_true", help="send a per-move clock before each play")
    p.add_argument("--forfeit-s", type=float, default=0.0,
                   help="a reply slower than this loses (default 3 x time + 15 s)")
    p.add_argument("--random-plies", type=int, default=2)
    p.add_argument("--max-plies", type=int, default=200)
    p.add_argument("--no-repetition-end", action="store_true",
                   help="the referee ignores repetition (the game goes on to a real end or the cap)")
    p.add_argument("--rules", default=variant_record("copenhagen"), help="OTN rules record sent")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--record", default=None, help="append each game (moves, result) as a JSON line")
    p.add_argument("--log", action="store_true", help="print every protocol line")
    p.add_argument("--max-wall", type=float, default=0.0,
                   help="start no new game after this many seconds (0: play all games)")
    args = p.parse_args(argv)
    if args.time <= 0 or args.max_plies < 1 or args.random_plies < 0:
        p.error("--time must be > 0, --max-plies >= 1, --random-plies >= 0")
    try:
        match_rules(args.rules)
    except ValueError as exc:
        p.error(f"--rules: {exc}")
    settings = MatchSettings(args.rules, args.no_repetition_end, args.max_plies, args.random_plies,
                             args.time, args.clock, args.forfeit_s)
    t = f"{args.time:g}"
    name_a = args.name_a or "A"
    name_b = args.name_b or "B"
    eng_a = OtepEngine(name_a, args.a.replace("{time}", t), args.log)
    eng_b = OtepEngine(name_b, args.b.replace("{time}", t), args.log)
    print(f"{name_a} vs {name_b}: {(args.games + 1) // 2 * 2} games, {args.time:g}s per move, "
          f"{args.random_plies} random plies, max {args.max_plies} plies, referee "
          f"{'ignores repetition' if args.no_repetition_end else 'ends on repetition'}", flush=True)
    results: list[GameRecord] = []
    t0 = time.perf_counter()
    try:
        for pair in range((args.games + 1) // 2):
            moves = opening(settings, args.seed * 7919 + pair * 104729)
            for a_attacks in (True, False):
                if args.max_wall and time.perf_counter() - t0 > args.max_wall:
                    break
                for eng in (eng_a, eng_b):
                    if not eng.alive():
                        eng.start()
                att, dfd = (eng_a, eng_b) if a_attacks else (eng_b, eng_a)
                r = play_game(len(results), att, dfd, a_attacks, settings, moves)
                results.append(r)
                print(f"  game {r.index:3d}: A {'attacks' if a_attacks else 'defends'}  "
                      f"winner {r.winner or 'none'} ({r.reason}) in {r.plies} plies  A score {r.a_score}",
                      flush=True)
                if args.record:
                    with open(args.record, "a", encoding="utf-8") as fh:
                        fh.write(json.dumps({"a": name_a, "b": name_b, "a_attacks": a_attacks,
                                             "winner": r.winner, "reason": r.reason,
                                             "moves": r.moves}) + "\n")
    except KeyboardInterrupt:
        print("interrupted", flush=True)
    finally:
        eng_a.stop()
        eng_b.stop()
    print(summarize(results, name_a, name_b, (eng_a, eng_b), time.perf_counter() - t0))
    return 0


if __name__ == "__main__":
    sys.exit(main())
