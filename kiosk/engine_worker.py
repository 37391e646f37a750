"""The engine searches in a separate process, so the screen keeps its frame rate.

WHY a process (spawn), not a thread: the search is pure Python and CPU bound;
in a thread it would hold the GIL and the pygame loop would stutter while the
robot thinks. The worker is started once and kept (spawning costs about a
second of imports); requests and replies are small picklable tuples over a
multiprocessing queue, and `poll()` never blocks.

A new request supersedes an older one: the controller only accepts the reply
whose id it asked for last, so a cancelled search's late answer is ignored.

Pondering: the visitor takes tens of seconds over a move, and the search
process would idle meanwhile. `ponder()` asks it to guess the visitor's move
and search the robot's answer to it until the next request arrives; the
transposition table it fills is kept (one per variant and options), so when
the guess was right the robot's own search starts with its root already
searched deep: a deeper search in the same thinking time
(bench/ponder_bench.py measures it). A request interrupts the ponder at once:
every message bumps a shared generation counter, and the ponder's clock reads
"time is up" as soon as the counter has moved.

Hints (kiosk/teaching.py): `request_hint()` asks the same process for the
best move for the visitor at the game's level with its reasons
(engine/reasons.py); the answer comes back on its own queue (`poll_hint()`),
so it never mixes with the robot's moves. A hint interrupts a ponder, and the
ponder starts again after it when nothing else has been asked meanwhile.
"""
from __future__ import annotations

import math
import multiprocessing as mp
import os
import queue
import time
from dataclasses import asdict, dataclass, is_dataclass, replace
from typing import Any, Callable

from calibration.config import EngineConfig


#: a ponder stops after this long even if nobody asks (the visitor walked away);
#: it also bounds the memory its transposition table takes (the config's default)
PONDER_MAX_S = EngineConfig.ponder_max_s
#: levels searching no deeper than this gain nothing from pondering
PONDER_MIN_DEPTH = 3
#: how deep the ponder looks to guess the visitor's move before it searches the answer
PREDICT_DEPTH = 3


def _level(level: dict[str, Any]):
    from engine.levels import level_from_mapping

    return level_from_mapping(str(level.get("name", "custom")), level)


def search_move(variant: str, options: dict[str, str], moves: list[str], level: dict[str, Any],
                seed: int, tt: dict | None = None) -> str:
    """The engine's reply in OTN for the game `moves` (from the start) at `level` (a dict).

    `tt` is the transposition table kept from earlier searches of this game
    (and from pondering); None searches from scratch."""
    from engine.search import build_board, search_board

    board = build_board(variant, options, moves=moves)
    result = search_board(board, _level(level), seed=seed, tt=tt)
    if result.move is None:
        raise ValueError("the game is over: there is no move to make")
    return result.move_text


def search_hint(variant: str, options: dict[str, str], moves: list[str], level: dict[str, Any], seed: int,
                tt: dict | None = None, clock: Callable[[], float] = time.perf_counter):
    """The hint for the side to move after `moves` (engine.reasons.hint): an Explained, move and reasons.

    `clock` lets a newer message cut the search short (it reads "time is up"): a hint nobody
    waits for any more must not hold up the robot's move."""
    from engine.reasons import hint
    from engine.search import build_board

    return hint(build_board(variant, options, moves=moves), _level(level), seed=seed, tt=tt, clock=clock)


@dataclass(frozen=True)
class HintReply:
    """The search process's answer to a hint request (picklable)."""

    hint_id: int
    explained: Any = None          # engine.reasons.Explained, None on error
    error: str | None = None


@dataclass(frozen=True)
class Pondered:
    """What a ponder did (the kiosk ignores it; the tests and bench/ponder_bench.py read it)."""

    expected: str          # the visitor's move the ponder expected, OTN
    reply: str             # the robot's best answer to it so far ("" if the ponder ended first)
    depth: int             # the deepest finished iteration of that answer


def ponder(variant: str, options: dict[str, str], moves: list[str], level: dict[str, Any], seed: int,
           tt: dict, interrupted: Callable[[], bool], max_s: float = PONDER_MAX_S) -> Pondered | None:
    """Think on the visitor's time, into `tt`, until `interrupted()` (None: not worth it here).

    First a short search guesses the visitor's move (PREDICT_DEPTH plies);
    then the robot's answer to that move is searched for as long as the
    visitor thinks. When the visitor plays the expected move, the robot's own
    search starts with its root already searched deep in the table; when not,
    the table still holds the shallow search of every visitor move."""
    from engine.search import build_board, search_board

    lvl = _level(level)
    board = build_board(variant, options, moves=moves)
    if board.is_game_over() or lvl.max_depth < PONDER_MIN_DEPTH:
        return None

    def clock() -> float:
        return math.inf if interrupted() else time.perf_counter()

    guess = search_board(board, replace(lvl, max_depth=min(lvl.max_depth, PREDICT_DEPTH), noise=0.0),
                         seed=seed, time_s=max_s, tt=tt, clock=clock)
    if guess.move is None or interrupted():
        return None
    board.push(guess.move)
    if board.is_game_over():
        return Pondered(guess.move_text, "", 0)
    answer = search_board(board, lvl, seed=seed, time_s=max_s, tt=tt, clock=clock)
    return Pondered(guess.move_text, answer.move_text, answer.depth)


@dataclass(frozen=True)
class Job:
    """One message to the search process (picklable)."""

    kind: str                       # "move" (answer it), "hint" (answer on the hint queue) or "ponder"
    generation: int                 # the counter's value when it was sent: a newer message stops a ponder
    variant: str
    options: dict[str, str]
    moves: list[str]                # the game so far, OTN, from the variant's start
    level: dict[str, Any]
    seed: int
    request_id: int = 0             # move, hint: the id its reply carries
    max_s: float = PONDER_MAX_S     # ponder: give up after this long

    @property
    def game(self) -> tuple:
        return self.variant, tuple(sorted(self.options.items()))


def _worker(requests: "mp.Queue[Any]", replies: "mp.Queue[Any]", generation: Any,
            hints: "mp.Queue[Any] | None", parent: int) -> None:
    """The search process: jobs until told to stop, or until `parent` (the kiosk's pid) is gone.

    WHY the kiosk's pid is handed over rather than read here with getppid(): a
    spawned process takes a moment to start, and a kiosk killed within it (a
    crash at boot, a test's pulled plug) has already left this process to init,
    whose pid getppid() would then take for the kiosk's: it never ended."""
    tables: dict[tuple, dict] = {}        # Job.game -> transposition table
    plies: dict[tuple, int] = {}          # Job.game -> length of the game last asked about
    last_ponder: Job | None = None        # resumed after a hint that interrupted it
    resume: Job | None = None
    while True:
        if resume is not None:
            job, resume = resume, None
        else:
            try:
                job = requests.get(timeout=1.0)
            except queue.Empty:
                if os.getppid() != parent:
                    return      # the kiosk died (a power cut, a kill): do not linger as an orphan
                continue
        if job is None:
            return
        if len(job.moves) < plies.get(job.game, 0):
            tables.pop(job.game, None)    # a new game: the old one's table is only memory now
        plies[job.game] = len(job.moves)
        tt = tables.setdefault(job.game, {})
        if job.kind == "ponder":
            last_ponder = job
            try:
                ponder(job.variant, job.options, job.moves, job.level, job.seed, tt,
                       interrupted=lambda: generation.value != job.generation,  # noqa: B023 - used here
                       max_s=job.max_s)
            except Exception:   # noqa: BLE001 - a failed ponder costs nothing but its time
                tt.clear()
            continue
        if job.kind == "hint":
            try:
                def clock(job: Job = job) -> float:
                    return math.inf if generation.value != job.generation else time.perf_counter()

                reply = HintReply(job.request_id, search_hint(job.variant, job.options, job.moves, job.level,
                                                              job.seed, tt=tt, clock=clock))
            except Exception as exc:  # noqa: BLE001 - reported to the controller, which shows no hint
                reply = HintReply(job.request_id, None, f"{type(exc).__name__}: {exc}")
            if hints is not None:
                hints.put(reply)
            if last_ponder is not None and last_ponder.moves == job.moves and generation.value == job.generation:
                resume = replace(last_ponder, generation=job.generation)   # nothing newer: think on
            continue
        last_ponder = None
        try:
            move = search_move(job.variant, job.options, job.moves, job.level, job.seed, tt=tt)
            replies.put((job.request_id, move, None))
        except Exception as exc:  # noqa: BLE001 - reported to the controller, which decides
            replies.put((job.request_id, None, f"{type(exc).__name__}: {exc}"))


class EngineWorker:
    """EnginePort on a spawned process. Start it once; `request()` and `poll()` never block."""

    def __init__(self, levels: dict[str, Any], *, seed: int = 0, start_method: str = "spawn",
                 time_scale: float = 1.0, pondering: bool = True, ponder_max_s: float = PONDER_MAX_S) -> None:
        self.levels = {name: (asdict(cfg) if is_dataclass(cfg) and not isinstance(cfg, type) else dict(cfg)) for name, cfg in levels.items()}
        for name, cfg in self.levels.items():
            cfg["name"] = name
            cfg["time_s"] = float(cfg["time_s"]) * time_scale
        self.seed = seed
        ctx = mp.get_context(start_method)
        self._requests: "mp.Queue[Any]" = ctx.Queue()
        self._replies: "mp.Queue[Any]" = ctx.Queue()
        self._hints: "mp.Queue[Any]" = ctx.Queue()
        self._latest_hint = 0
        self.pondering, self.ponder_max_s = pondering, ponder_max_s
        self._generation = ctx.Value("Q", 0)      # bumped by every message: stops a ponder
        # (every concrete context has Process; typeshed's BaseContext does not list it)
        self._process = ctx.Process(  # type: ignore[attr-defined]
            target=_worker, args=(self._requests, self._replies, self._generation, self._hints, os.getpid()),
            name="tafl-engine", daemon=True)
        self._process.start()
        self._latest = 0
        self.last_error: str | None = None
        self._count = 0

    @property
    def pid(self) -> int | None:
        return self._process.pid

    def request(self, request_id: int, variant: str, options: dict[str, str],
                moves_otn: list[str], level: str) -> None:
        if level not in self.levels:
            raise ValueError(f"unknown level {level!r}; known: {', '.join(self.levels)}")
        self._latest = request_id
        self._send("move", variant, options, moves_otn, level, request_id=request_id)

    def ponder(self, variant: str, options: dict[str, str], moves_otn: list[str], level: str) -> None:
        """Think on the visitor's time about the position after `moves_otn` (the visitor to move).

        Nothing comes back: the next `request()` stops it and profits from it."""
        if not self.pondering or level not in self.levels:
            return
        self._send("ponder", variant, options, moves_otn, level, max_s=self.ponder_max_s)

    def offers_hints(self) -> bool:
        return True

    def request_hint(self, hint_id: int, variant: str, options: dict[str, str], moves_otn: list[str],
                     level: str) -> None:
        """Ask for the best move for the side to move after `moves_otn` at `level`, with its reasons;
        the answer comes from `poll_hint()`. It interrupts a ponder, which resumes afterwards."""
        if level not in self.levels:
            raise ValueError(f"unknown level {level!r}; known: {', '.join(self.levels)}")
        self._latest_hint = hint_id
        self._send("hint", variant, options, moves_otn, level, request_id=hint_id)

    def poll_hint(self) -> HintReply | None:
        """The answer to the latest hint request once it is there (older ones are dropped); never blocks."""
        while True:
            try:
                reply = self._hints.get_nowait()
            except queue.Empty:
                return None
            if reply.hint_id == self._latest_hint:
                return reply

    def _send(self, kind: str, variant: str, options: dict[str, str], moves_otn: list[str], level: str,
              **extra: Any) -> None:
        self._count += 1
        with self._generation.get_lock():
            self._generation.value += 1
            gen = self._generation.value
        self._requests.put(Job(kind, gen, variant, dict(options), list(moves_otn), self.levels[level],
                               self.seed * 100003 + self._count, **extra))

    def poll(self) -> tuple[int, str] | None:
        while True:
            try:
                request_id, move, error = self._replies.get_nowait()
            except queue.Empty:
                return None
            if request_id != self._latest:
                continue
            if error is not None:
                self.last_error = error
                raise RuntimeError(f"engine search failed: {error}")
            return request_id, move

    def cancel(self) -> None:
        self._latest = -1
        with self._generation.get_lock():      # and stop a ponder: the game it served has ended
            self._generation.value += 1

    def stop(self) -> None:
        if self._process.is_alive():
            try:
                with self._generation.get_lock():
                    self._generation.value += 1
                self._requests.put(None)
            except (OSError, ValueError):
                pass
            self._process.join(timeout=2)
            if self._process.is_alive():
                self._process.kill()
                self._process.join(timeout=2)

    def kill(self) -> None:
        """Hard stop (a simulated power cut): no goodbye."""
        if self._process.is_alive():
            self._process.kill()
            self._process.join(timeout=2)
