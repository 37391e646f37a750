"""`tafl-kiosk --simulate --headless --visitors N`: a museum day of N simulated visitors, one after another.

WHY: the kiosk's promise is a whole day without a person. Each visitor
(kiosk/autoplay.py `Persona`) walks up, chooses a game, side and level, plays
with their own habits (thinking from seconds to minutes, leaving captures for
the robot or taking them off into the tray, helping when asked or not,
walking away, sometimes coming back), and leaves; a simulated staff member
answers the kiosk's staff call after a few minutes. Everything runs on the
full simulation rig (kiosk/sim_kiosk.py) with the fault injection of `--autoplay`.

Time: thinking minutes cannot pass on the wall clock (30 visitors would take
a day), so the kiosk, the table, the visitors and the camera all run on
`SimClock`, which only this loop moves on:
- while the gantry moves, it follows the GRBL simulator's motion time
  (`GrblSimulator.motion_s`: the firmware's planned moves, dwells and homing,
  the reference gantry's kinematics; the simulator itself runs at its speed
  factor), and the wall clock in between; while the search process thinks,
  the wall clock;
- otherwise nothing in the kiosk runs by itself, so the clock jumps: to the
  next camera frame while the scene has just changed (a hand, a move, the
  gantry stopping), else to the next person's action (at most MAX_SKIP_S at
  a time, so the kiosk's own timers still fire on time);
- the camera has no thread: the loop takes and reads one frame per step
  (kiosk/camera_thread.py `CameraThread.step`), rendered by the vision
  renderer exactly as with the threaded camera; a still scene is rendered
  afresh when the controller asks (`refresh`), otherwise the camera repeats
  its last picture, as `SimFrameSource` does between renders.
Figures in seconds are on this clock, i.e. the reference kiosk's.

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
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Callable

from calibration.config import Config
from engine import Piece, square_name

from kiosk.autoplay import MuseumVisitor, Persona
from kiosk.board_names import board_name_for
from kiosk.headless import Autoplay, AutoplayOptions
from kiosk.sim_kiosk import SimSettings
from kiosk.states import State

log = logging.getLogger("kiosk.museum_day")


def _piece(piece: Piece | None) -> str:
    return piece.value if piece is not None else "-"


STUCK_S = 600.0                 # no progress for this long, staff not called: stuck
#: states in which the kiosk has work of its own to do (elsewhere it waits for visitors)
WORKING = {"setup", "thinking", "robot_moving", "verify", "clearing", "place_piece", "paused_error"}
#: states in which simulated time may be skipped to the next person's action
WAITING = {"visitor_turn", "fix_board", "place_piece", "paused", "game_over", "idle"}
MAX_SKIP_S = 5.0
MAX_PLIES = 300
#: after a change in the scene the camera looks at its frame rate for this long
#: (a move is confirmed in ~0.6 s: settle, a picture, stable_s, a second picture)
LOOK_S = 1.5
#: a game that takes longer than this (simulated) is counted as lost
GAME_LIMIT_S = 6 * 3600.0
#: and one that takes longer than this on the wall clock too (a hung simulation)
GAME_WALL_LIMIT_S = 3600.0


class SimClock:
    """The kiosk's clock in the museum-day simulation (see the module docstring)."""

    def __init__(self, start: float = 10_000.0) -> None:
        self._now = start
        self._wall = time.monotonic()

    def __call__(self) -> float:
        return self._now

    def tick(self, factor: float) -> None:
        """Wall time since the last tick or skip, times `factor`, passes."""
        wall = time.monotonic()
        self._now += (wall - self._wall) * factor
        self._wall = wall

    def skip(self, seconds: float) -> None:
        """`seconds` pass at once (the wall time spent since the last call does not count)."""
        self._now += max(0.0, seconds)
        self._wall = time.monotonic()


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
class StuckWatch:
    """`stuck`: the kiosk had work to do and made no progress for more than STUCK_S, and at no
    moment of that time had it called staff. A request nobody can satisfy, with staff called
    (and called again after staff came and could not help), is waiting, not stuck."""

    since: float
    key: object = None
    called: bool = False
    counted: bool = False

    def see(self, key: object, now: float, working: bool, staff_called: bool) -> bool:
        """One look at the kiosk; True when this look begins a stuck moment (counted once)."""
        if key != self.key:
            self.key, self.since, self.called, self.counted = key, now, staff_called, False
            return False
        self.called |= staff_called
        if working and not self.called and not self.counted and now - self.since > STUCK_S:
            self.counted = True
            return True
        return False


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
    resumed: bool = False          # paused, and the visitor came back and played on
    plies: int = 0
    person: MuseumVisitor | None = None


class MuseumDay(Autoplay):
    """Visitors one after another on one rig; faults as in `--autoplay`."""

    def __init__(self, config: Config, state_dir: str, visitors: int, seed: int, level: str | None,
                 faults: tuple[str, ...], settings: SimSettings, out: Callable[[str], None] = print,
                 personas: list[Persona] | None = None) -> None:
        self.clock = SimClock()
        # the camera is stepped by this loop; a still scene is rendered afresh only when asked
        settings = replace(settings, stepped_camera=True, still_period_s=1e9)
        # the start screens offer only the variants of the installed board (a board swap is staff's)
        variants = tuple(v for v in config.kiosk.variants if board_name_for(config, v) == config.board)
        super().__init__(config, state_dir, AutoplayOptions(games=visitors, seed=seed, faults=faults,
                                                            variants=("copenhagen",)),
                         settings, out=out, clock=self.clock)
        self.variants, self.level, self.visitors = variants, level, visitors
        self.people = random.Random(seed * 104729 + 3)
        self.totals = Totals()
        self.personas = list(personas or [])     # (tests) these visitors first, then drawn ones
        self.games: list[Game] = []
        self.state_dir = Path(state_dir)
        self.ended_at: float | None = None          # the last game's end, for the turnaround
        self.staff_at: float | None = None
        self.stuck_watch = StuckWatch(self.clock())
        self._game: Game | None = None
        self._last_state = ""
        self._look_until = 0.0
        self.staff_calls = 0
        self._was_busy = False
        self._motion_seen = 0.0
        self._scene: object = None

    # -- the loop -----------------------------------------------------------------
    def _tick(self, wake_at: float) -> None:
        """One step of the world: poll the kiosk, strike faults, let time pass, take a frame."""
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
            self._look()
        self._strike_armed_cut(view.state)
        self._watch_progress(view)
        self._staff(view)
        busy = rig.gantry.busy
        if busy != self._was_busy or self._scene_changed():
            self._look()
        self._was_busy = busy
        moved = rig.sim.motion_s - self._motion_seen
        self._motion_seen += moved
        if busy or view.state == State.THINKING or (self._pending and min(p[0] for p in self._pending) <= self.clock()):
            # the gantry, the search process or a fault's action runs on the wall clock; the
            # gantry's time is the firmware's motion time (the reference machine's kinematics)
            time.sleep(0.02)
            if moved > 0:
                self.clock.skip(moved)
            else:
                self.clock.tick(1.0)
        else:
            frame = 1.0 / rig.settings.camera_fps
            until = min(wake_at, self.staff_at or math.inf, *(p[0] for p in self._pending))
            ctrl = rig.controller
            camera_wanted = ctrl.jobs.waiting_for_camera and ctrl.jobs.goal is not None \
                and ctrl.watch.stable(ctrl.jobs.goal.not_before) is None
            if self.clock() < self._look_until or camera_wanted or rig.world.hand_over_board():
                until = min(until, self.clock() + frame)
            self.clock.skip(min(max(until - self.clock(), frame), MAX_SKIP_S))
        rig.camera.step()

    def _look(self) -> None:
        self._look_until = self.clock() + LOOK_S

    def _scene_changed(self) -> bool:
        snap = self.rig.world.snapshot()
        key = (snap.board_name, tuple(sorted(snap.squares.items())), snap.hand is not None)
        changed, self._scene = key != self._scene, key
        return changed

    def _desync(self, game: Game, view, when: str) -> None:
        """The kiosk trusts a position the table does not hold: count it once per game, and say where
        in the log (the squares, the ply, the state change), so a day's DESYNC can be followed up."""
        if not game.desync:
            world, kiosk = self.rig.world.square_pieces(), view.board.pieces()
            size = view.board.size
            squares = ", ".join(f"{square_name(sq, size)} table {_piece(world.get(sq))} kiosk {_piece(kiosk.get(sq))}"
                                for sq in sorted(set(world) | set(kiosk)) if world.get(sq) != kiosk.get(sq))
            log.warning("desync %s at ply %d: %s", when, view.ply, squares)
        game.desync = True

    def _seen_state(self, view) -> None:
        game = self._game
        if game is None:
            return
        if view.state == State.PAUSED:
            game.paused = True
        if view.state == State.VISITOR_TURN and self._last_state == State.PAUSED:
            game.resumed = True
        # back from a pause the kiosk trusts nothing yet: the visitor who woke it may have moved while it
        # was paused (a long think), and their move is read as any other (a day flagged that as a desync)
        if view.state == State.VISITOR_TURN and self._last_state != State.PAUSED and view.board is not None \
                and self.rig.world.square_pieces() != view.board.pieces():
            self._desync(game, view, f"entering {view.state} from {self._last_state or 'boot'}")
        if view.state in (State.VISITOR_TURN, State.THINKING) and self.ended_at is not None and view.ply <= 1:
            self.totals.turnarounds.append(self.clock() - self.ended_at)
            self.ended_at = None

    def _watch_progress(self, view) -> None:
        key = (view.state, view.ply, round(view.progress, 3), str(view.robot_activity), view.resetting,
               tuple(sorted(view.fix_squares)))
        now = self.clock()
        if self.stuck_watch.see(key, now, view.state in WORKING or view.resetting, bool(view.staff_notice)):
            self.totals.stuck += 1
            camera = "camera reads the board" if view.camera_ok else \
                f"camera: {view.camera_reason}{', asks whether a hand is over it' if view.asks_hands_off else ''}"
            self.out(f"STUCK in {view.state} for {now - self.stuck_watch.since:.0f} s ({camera})")
        if self.ended_at is not None and view.state == State.GAME_OVER and not view.resetting and not view.missing:
            self.totals.turnarounds.append(now - self.ended_at)     # ready for the next game's first move
            self.ended_at = None

    def _staff(self, view) -> None:
        """Staff come a few minutes after the kiosk calls, put the pieces right and say so."""
        now = self.clock()
        if view.staff_notice and self.staff_at is None:
            self.staff_calls += 1
            self.staff_at = now + self.people.uniform(180.0, 600.0)
        if self.staff_at is not None and now >= self.staff_at:
            self.staff_at = None
            world, ctrl = self.rig.world, self.rig.controller
            # the squares the call names first (a piece taken off goes into the tray), then the
            # tray into storage, then "pieces are back": storage really holds what it is counted to
            if view.state == State.PLACE_PIECE and view.fix_squares:
                world.set_squares(dict(view.fix_squares))
            world.refill_storage()
            ctrl.pieces_back()

    def _wake_at(self, person: MuseumVisitor | None, view) -> float:
        wake = person.act(view, self.clock()) if person is not None else math.inf
        return min(wake, self.staff_at if self.staff_at is not None else math.inf)

    # -- one visitor --------------------------------------------------------------
    def visit(self, number: int) -> Game:
        persona = self.personas.pop(0) if self.personas else Persona.draw(self.people, self.variants, self.level)
        person = MuseumVisitor(self.rig.world, random.Random(self.people.randrange(1 << 30)), persona,
                               touch=lambda otn: self.rig.controller.choose_move(otn),   # (a power cut makes a new one)
                               say_hands_off=lambda: self.rig.controller.hands_off())
        game = Game(number, persona, person=person)
        self.faults.new_game()
        self._cut_armed = False
        # they walk up and choose (the robot resets the board meanwhile)
        chosen_at = self.clock() + self.people.uniform(10.0, 45.0)
        wall_start, sim_start = time.monotonic(), self.clock()
        started = False
        logs_before = self._gamelog_lines()
        while self.clock() - sim_start < GAME_LIMIT_S and time.monotonic() - wall_start < GAME_WALL_LIMIT_S:
            view = self.rig.controller.view()
            if not started:
                if self.clock() >= chosen_at and view.state in (State.IDLE, State.GAME_OVER, State.PAUSED, State.VISITOR_TURN, State.FIX_BOARD):
                    if view.state in (State.VISITOR_TURN, State.FIX_BOARD):
                        self.rig.controller.end_game()       # the last visitor's game: End game
                        continue
                    self.rig.controller.start_game(persona.variant, {}, persona.side, persona.level)
                    self.totals.games += 1
                    self._game, started = game, True
                    continue
                wake = chosen_at if view.state != State.PLACE_PIECE else self._wake_at(person, view)
                self._tick(wake)
                continue
            if view.state == State.GAME_OVER and view.outcome is not None:
                self._game_over(game, view, logs_before)
                # they look at the result a moment, then leave
                until = self.clock() + self.people.uniform(10.0, 40.0)
                while self.clock() < until:
                    self._tick(until)
                return game
            if person.left_for_good:
                game.ended, game.plies = "walked away", view.ply
                return game
            if view.ply >= MAX_PLIES and view.state == State.VISITOR_TURN:
                self.rig.controller.end_game()
                continue
            if view.state == State.PAUSED and person.present and person.moves:
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
            self._desync(game, view, "at the game's end")
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
                         f"{', paused' if game.paused else ''}{', resumed' if game.resumed else ''}"
                         f"{', DESYNC' if game.desync else ''}"
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
        self.out(self.behaviour_line())
        return t

    def behaviour_line(self) -> str:
        """How the visitors behaved (counted from what they did, not from their habits)."""
        people = [g.person for g in self.games if g.person is not None]
        p = [g.persona for g in self.games]
        asked = [v for v in people if v.asked]
        return (f"behaviours: captures left for the robot {sum(x.captures == 'leave' for x in p)}, "
                f"taken off into the tray {sum(x.captures == 'tray' for x in p)}; "
                f"walked away mid-game {sum(v.walked_away for v in people)} "
                f"(came back {sum(v.came_back for v in people)}, "
                f"never came back {sum(v.walked_away and not v.came_back for v in people)}); "
                f"games paused {sum(g.paused for g in self.games)}, "
                f"resumed after a pause {sum(g.resumed for g in self.games)}; "
                f"asked to put pieces on {len(asked)} visitors, put them on when asked "
                f"{sum(bool(v.helped) for v in asked)}, never helped {sum(not v.helped for v in asked)}; "
                f"staff calls {self.staff_calls}")
