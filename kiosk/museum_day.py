"""`tafl-kiosk --simulate --headless --visitors N`: a museum day of N simulated visitors, one after another.

WHY: the kiosk's promise is a whole day without a person. Each visitor
(kiosk/autoplay.py `Persona`) walks up, chooses a game, side and level, plays
with their own habits (thinking from seconds to minutes, leaving captures for
the robot or taking them off into the tray, helping when asked or not,
walking away, sometimes coming back), and leaves; a simulated staff member
answers the kiosk's staff call after a few minutes. Everything runs on the
full simulation rig (kiosk/simrig.py) with the fault injection of `--autoplay`.

Time: thinking minutes cannot pass on the wall clock (30 visitors would take
a day), so the kiosk runs on `SimClock`: while the gantry moves, it runs at
the simulator's speed factor (so gantry time reads as the reference gantry's
time); while the kiosk only waits for a person, the time until that person's
next action is skipped; otherwise it runs with the wall clock. Figures in
seconds are on this clock, i.e. the reference kiosk's.

The last line is exactly
`visitors: N, games: G, completed: C, paused: P, stuck: S, lost: L, desyncs: D, turnaround median: T s`
- completed: games that ended by the rules or by resignation, with their record written;
- paused: games paused because nobody was at the board;
- stuck: moments when the kiosk made no progress for more than 10 simulated
  minutes while it had work to do, without having called staff;
- lost: games whose record or position was lost (a crash, no game-log line);
- desyncs: games in which, at a moment the kiosk trusted the board, its
  position differed from the table's;
- turnaround median: from a game's end to the next game's first move being
  possible (the board at the start position, or the next game's set-up done).
"""
from __future__ import annotations

import logging
import math
import random
import statistics
import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from calibration.config import Config

from kiosk.autoplay import MuseumVisitor, Persona
from kiosk.board_names import board_name_for
from kiosk.headless import Autoplay, AutoplayOptions
from kiosk.simrig import SimSettings

log = logging.getLogger("kiosk.museum_day")

STUCK_S = 600.0                 # no progress for this long, staff not called: stuck
#: states in which the kiosk has work of its own to do (elsewhere it waits for visitors)
WORKING = {"setup", "thinking", "robot_moving", "verify", "clearing", "place_piece", "paused_error"}
#: states in which simulated time may be skipped to the next person's action
WAITING = {"visitor_turn", "fix_board", "place_piece", "paused", "game_over", "idle"}
MAX_SKIP_S = 5.0
MAX_PLIES = 300


class SimClock:
    """The kiosk's clock in the museum-day simulation (see the module docstring)."""

    def __init__(self, start: float = 10_000.0) -> None:
        self._now = start
        self._wall = time.monotonic()

    def __call__(self) -> float:
        return self._now

    def tick(self, factor: float) -> None:
        wall = time.monotonic()
        self._now += (wall - self._wall) * factor
        self._wall = wall

    def skip(self, seconds: float) -> None:
        self._now += max(0.0, seconds)


@dataclass
class Totals:
    visitors: int = 0
    games: int = 0
    completed: int = 0
    paused: int = 0
    stuck: int = 0
    lost: int = 0
    desyncs: int = 0
    turnarounds: list[float] = field(default_factory=list)

    def line(self) -> str:
        median = statistics.median(self.turnarounds) if self.turnarounds else float("nan")
        return (f"visitors: {self.visitors}, games: {self.games}, completed: {self.completed}, "
                f"paused: {self.paused}, stuck: {self.stuck}, lost: {self.lost}, desyncs: {self.desyncs}, "
                f"turnaround median: {median:.0f} s")


@dataclass
class Game:
    """What happened to one game (for its line and the totals)."""

    number: int
    persona: Persona
    ended: str = "unfinished"
    completed: bool = False
    paused: bool = False
    desync: bool = False
    lost: bool = False
    plies: int = 0


class MuseumDay(Autoplay):
    """Visitors one after another on one rig; faults as in `--autoplay`."""

    def __init__(self, config: Config, state_dir: str, visitors: int, seed: int, level: str | None,
                 faults: tuple[str, ...], settings: SimSettings, out: Callable[[str], None] = print) -> None:
        self.clock = SimClock()
        # the start screens offer only the variants of the installed board (a board swap is staff's)
        variants = tuple(v for v in config.kiosk.variants if board_name_for(config, v) == config.board)
        super().__init__(config, state_dir, AutoplayOptions(games=visitors, seed=seed, faults=faults,
                                                            variants=("copenhagen",)),
                         settings, out=out, clock=self.clock)
        self.variants, self.level, self.visitors = variants, level, visitors
        self.people = random.Random(seed * 104729 + 3)
        self.totals = Totals()
        self.games: list[Game] = []
        self.state_dir = Path(state_dir)
        self.ended_at: float | None = None          # the last game's end, for the turnaround
        self.staff_at: float | None = None
        self._progress: tuple[tuple | None, float] = (None, self.clock())
        self._stuck_counted = False
        self._game: Game | None = None
        self._last_state = ""

    # -- the loop -----------------------------------------------------------------
    def _tick(self, wake_at: float) -> None:
        """One step of the world: poll the kiosk, strike faults, let time pass."""
        rig = self.rig
        rig.controller.poll()
        view = rig.controller.view()
        for _ in self._run_pending(view.state):
            pass
        view = rig.controller.view()
        if view.state != self._last_state:
            self._on_state(self._last_state, view.state, view)
            self._seen_state(view)
            self._last_state = view.state
        self._strike_armed_cut(view.state)
        self._watch_progress(view)
        self._staff(view)
        busy = rig.gantry.busy
        time.sleep(0.01)
        self.clock.tick(rig.settings.speed_factor if busy else 1.0)
        wait = wake_at - self.clock()
        waiting = view.state in WAITING and (not view.resetting or view.state == "place_piece")
        if waiting and wait > 0 and not busy and not self._pending and not rig.world.hand_over_board():
            self.clock.skip(min(wait, MAX_SKIP_S))

    def _seen_state(self, view) -> None:
        game = self._game
        if game is None:
            return
        if view.state == "paused":
            game.paused = True
        if view.state == "visitor_turn" and view.board is not None \
                and self.rig.world.square_pieces() != view.board.pieces():
            game.desync = True
        if view.state in ("visitor_turn", "thinking") and self.ended_at is not None and view.ply <= 1:
            self.totals.turnarounds.append(self.clock() - self.ended_at)
            self.ended_at = None

    def _watch_progress(self, view) -> None:
        key = (view.state, view.ply, round(view.progress, 3), str(view.robot_activity), view.resetting,
               tuple(sorted(view.fix_squares)))
        now = self.clock()
        if key != self._progress[0]:
            self._progress, self._stuck_counted = (key, now), False
            return
        working = view.state in WORKING or view.resetting
        if working and not view.staff_notice and not self._stuck_counted and now - self._progress[1] > STUCK_S:
            self.totals.stuck += 1
            self._stuck_counted = True
            self.out(f"STUCK in {view.state} for {now - self._progress[1]:.0f} s")
        if self.ended_at is not None and view.state == "game_over" and not view.resetting and not view.missing:
            self.totals.turnarounds.append(now - self.ended_at)     # ready for the next game's first move
            self.ended_at = None

    def _staff(self, view) -> None:
        """Staff come a few minutes after the kiosk calls, put the pieces right and say so."""
        now = self.clock()
        if view.staff_notice and self.staff_at is None:
            self.staff_at = now + self.people.uniform(180.0, 600.0)
        if self.staff_at is not None and now >= self.staff_at:
            self.staff_at = None
            world, ctrl = self.rig.world, self.rig.controller
            world.refill_storage()
            if view.state == "place_piece" and view.fix_squares:
                world.set_squares(dict(view.fix_squares))
            ctrl.pieces_back()

    def _wake_at(self, person: MuseumVisitor | None, view) -> float:
        wake = person.act(view, self.clock()) if person is not None else math.inf
        return min(wake, self.staff_at if self.staff_at is not None else math.inf)

    # -- one visitor --------------------------------------------------------------
    def visit(self, number: int) -> Game:
        persona = Persona.draw(self.people, self.variants, self.level)
        person = MuseumVisitor(self.rig.world, random.Random(self.people.randrange(1 << 30)), persona)
        game = Game(number, persona)
        self.faults.new_game()
        self._cut_armed = False
        # they walk up and choose (the robot resets the board meanwhile)
        chosen_at = self.clock() + self.people.uniform(10.0, 45.0)
        wall_start = time.monotonic()
        started = False
        logs_before = self._gamelog_lines()
        while time.monotonic() - wall_start < self.options.game_timeout_s:
            view = self.rig.controller.view()
            if not started:
                if self.clock() >= chosen_at and view.state in ("idle", "game_over", "paused", "visitor_turn",
                                                                "fix_board"):
                    if view.state in ("visitor_turn", "fix_board"):
                        self.rig.controller.end_game()       # the last visitor's game: End game
                        continue
                    self.rig.controller.start_game(persona.variant, {}, persona.side, persona.level)
                    self.totals.games += 1
                    self._game, started = game, True
                    continue
                wake = chosen_at if view.state != "place_piece" else self._wake_at(person, view)
                self._tick(wake)
                continue
            if view.state == "game_over" and view.outcome is not None:
                self._game_over(game, view, logs_before)
                # they look at the result a moment, then leave
                until = self.clock() + self.people.uniform(10.0, 40.0)
                while self.clock() < until:
                    self._tick(until)
                return game
            if person.left_for_good:
                game.ended = "walked away"
                return game
            if view.ply >= MAX_PLIES and view.state == "visitor_turn":
                self.rig.controller.end_game()
                continue
            if view.state == "paused" and person.present and person.moves:
                self.rig.controller.touched()              # back: a touch on the attract screen
            self._tick(self._wake_at(person, view))
        game.ended, game.lost = f"timed out in {self.rig.controller.view().state}", True
        return game

    def _game_over(self, game: Game, view, logs_before: int) -> None:
        game.plies = view.ply
        o = view.outcome
        game.ended = f"{o.winner.value} won ({o.reason})" if o.winner else f"no winner ({o.reason})"
        game.completed = o.reason not in ("ended", "abandoned")
        if view.board is not None and self.rig.world.square_pieces() != view.board.pieces() and not view.resetting:
            game.desync = True
        if self._gamelog_lines() <= logs_before:
            game.lost = True                           # no record of the game
        self.ended_at = self.clock()

    def _gamelog_lines(self) -> int:
        return sum(len(p.read_text().splitlines()) for p in (self.state_dir / "gamelog").glob("*.jsonl")) \
            if (self.state_dir / "gamelog").exists() else 0

    def run_day(self) -> Totals:
        t = self.totals
        try:
            for n in range(1, self.visitors + 1):
                t.visitors += 1
                try:
                    game = self.visit(n)
                except Exception:   # noqa: BLE001 - a crashed visit is a lost game, counted
                    log.error("visitor %d crashed: %s", n, traceback.format_exc())
                    game = Game(n, Persona.draw(self.people, self.variants, self.level), ended="crashed", lost=True)
                    self._recover_after_crash()
                self.games.append(game)
                p = game.persona
                self.out(f"visitor {n}: {p.variant}, {p.side.value}, {p.level}, {p.mode}, captures {p.captures}"
                         f"{', walks away' if p.walk_away_at else ''}: {game.ended}, {game.plies} plies"
                         f"{', paused' if game.paused else ''}{', DESYNC' if game.desync else ''}"
                         f"{', LOST' if game.lost else ''}")
                # the next visitor comes along in a while (a paused game waits for them)
                gap = self.people.choice((5.0, 30.0, 120.0, 600.0))
                until = self.clock() + gap
                while self.clock() < until:
                    self._tick(until)
        finally:
            self.rig.close()
        for game in self.games:        # summed at the end: a walked-away game may pause later
            t.completed += game.completed
            t.paused += game.paused
            t.lost += game.lost
            t.desyncs += game.desync
        return t
