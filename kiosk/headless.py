"""`tafl-kiosk --simulate --headless --autoplay N`: play N whole games in simulation, count what went wrong.

WHY: the kiosk's promise is that a game on the physical board always ends,
with the robot's belief and the table agreeing. This runner plays games on the
full simulation rig (kiosk/sim_kiosk.py) with the simulated visitor
(kiosk/autoplay.py), injects the chosen faults (kiosk/faults.py) at moments
that hurt, and prints one line per game and the totals:

- completed: the game reached its end and the robot reset the board to the
  start position (`robot.planner.plan_reset`, as between two museum games);
- desyncs: games in which, at a moment the controller trusted the board (each
  visitor turn and the game's end), its position differed from the table's;
- lost: games that never finished (a stuck controller, an exception).
"""
from __future__ import annotations

import logging
import random
import statistics
import time
import traceback
from dataclasses import dataclass, field
from typing import Callable

from calibration.config import Config
from engine import Side

from kiosk.autoplay import SimVisitor, VisitorStyle
from kiosk.faults import FaultPlan
from kiosk.sim_kiosk import SimKiosk, SimSettings
from kiosk.states import State

log = logging.getLogger("kiosk.headless")


@dataclass
class GameResult:
    number: int
    variant: str
    visitor_side: Side
    completed: bool
    desync: bool
    outcome: str
    plies: int
    seconds: float
    ply_times: list[float] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    mode: str = "visitor"

    def line(self) -> str:
        status = "completed" if self.completed else "LOST"
        desync = ", DESYNC" if self.desync else ""
        notes = f"; {'; '.join(self.notes)}" if self.notes else ""
        who = {"selfplay": "the robot against itself", "referee": "two visitors, the robot referee"}.get(
            self.mode, f"visitor {self.visitor_side.value}")
        return (f"game {self.number}: {self.variant}, {who}, {self.outcome}, "
                f"{self.plies} plies, {self.seconds:.0f} s, {status}{desync}{notes}")


@dataclass
class AutoplayOptions:
    games: int
    seed: int = 0
    faults: tuple[str, ...] = ()
    variants: tuple[str, ...] = ("copenhagen",)
    level: str = "easy"
    visitor: VisitorStyle = field(default_factory=VisitorStyle)
    game_timeout_s: float = 900.0
    max_plies: int = 400
    mode: str = "visitor"       # kiosk/exhibit.py: visitor (against the robot), selfplay, referee


class Autoplay:
    """Runs the games on one rig; the rig survives power cuts, the controller does not."""

    def __init__(self, config: Config, state_dir: str, options: AutoplayOptions,
                 settings: SimSettings, out: Callable[[str], None] = print,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.config, self.options, self.out = config, options, out
        self.rng = random.Random(options.seed)
        self.faults = FaultPlan(options.faults, random.Random(options.seed * 7919 + 1))
        self.rig = SimKiosk(config, state_dir, options.variants[0], settings, clock=clock)
        self.visitor = SimVisitor(self.rig.world, random.Random(options.seed * 31 + 7), options.visitor,
                                  touch=lambda otn: self.rig.controller.choose_move(otn),
                                  say_hands_off=lambda: self.rig.controller.hands_off())
        self.results: list[GameResult] = []
        self._pending: list[tuple[float, str, Callable[[], object]]] = []
        #: a power cut drawn for this robot move, waiting for a piece on the magnet
        self._cut_armed = False

    # -- faults at the right moments ------------------------------------------
    def _at(self, delay: float, name: str, action: Callable[[], object]) -> None:
        self._pending.append((self.rig.clock() + delay, name, action))

    def _run_pending(self, state: str) -> list[str]:
        done, now = [], self.rig.clock()
        keep = []
        for when, name, action in self._pending:
            if when > now:
                keep.append((when, name, action))
                continue
            if name in ("power-cut", "serial-unplug") and state != State.ROBOT_MOVING:
                self.faults.refund(name)    # the robot already finished: this one did not strike
                continue
            action()
            done.append(name)
        self._pending = keep
        return done

    def _on_state(self, old: str, new: str, view) -> None:
        sim, world, f = self.rig.sim, self.rig.world, self.faults
        if new == "thinking":
            if f.strikes("missed-pickup"):
                sim.inject("miss")
            if f.strikes("alarm"):
                sim.inject("alarm", after=self.rng.randint(1, 4))
            if f.strikes("garbled-serial"):
                sim.inject("garble", after=self.rng.randint(1, 12))
        if new == "robot_moving":
            if f.strikes("serial-unplug"):
                self._at(self.rng.uniform(0.05, 0.6), "serial-unplug", self._unplug_serial)
            # WHY armed, not timed: the cut that hurts most falls while a piece
            # hangs on the magnet, and at the simulation's speed a fixed delay
            # mostly fell after the robot had finished (see _strike_armed_cut).
            self._cut_armed = f.strikes("power-cut")
        if new in ("visitor_turn", "thinking"):
            if f.strikes("hand"):
                x, y = (self.rng.uniform(0, world.layout.width) for _ in range(2))
                self._at(self.rng.uniform(0.0, 1.0), "hand",
                         lambda: world.show_hand(x, y, self.rng.uniform(1.0, 2.5)))
            if f.strikes("camera-dropout"):
                self._at(self.rng.uniform(0.0, 1.0), "camera-dropout",
                         lambda: self.rig.source.unplug(self.rng.uniform(2.0, 4.0)))

    def _strike_armed_cut(self, state: str) -> None:
        """Fire an armed power cut a moment after the magnet picks a piece up; refund
        it when the robot's move ended without one."""
        if not self._cut_armed:
            return
        if state != State.ROBOT_MOVING:
            self._cut_armed = False
            self.faults.refund("power-cut")
        elif self.rig.world.table.holding is not None:
            self._cut_armed = False
            self._at(self.rng.uniform(0.0, 0.05), "power-cut", self._power_cut)

    def _unplug_serial(self) -> None:
        self.rig.sim.disconnect()
        self._at(self.rng.uniform(0.5, 1.5), "serial-replug", self.rig.sim.reconnect)

    def _power_cut(self) -> None:
        self.rig.power_cut()
        time.sleep(0.2)
        self.rig.restart()

    # -- one game --------------------------------------------------------------
    def play(self, number: int) -> GameResult:
        variant = self.options.variants[(number - 1) % len(self.options.variants)]
        side = Side.ATTACKERS if number % 2 == 1 else Side.DEFENDERS
        self.faults.new_game()
        self._cut_armed = False
        start = time.monotonic()
        result = GameResult(number, variant, side, False, False, "unfinished", 0, 0.0, mode=self.options.mode)
        ctrl = self.rig.controller
        mode = self.options.mode
        if mode == "selfplay":
            ctrl.set_attract(True)      # nobody there: the kiosk starts playing itself (kiosk/exhibit.py)
        else:
            ctrl.start_game(variant, {}, side, self.options.level, mode=mode)
        trusted = "thinking" if mode == "selfplay" else "visitor_turn"
        last_state, last_ply, last_ply_t = "", 0, time.monotonic()
        reset_started = False
        injected: dict[str, int] = {}
        while time.monotonic() - start < self.options.game_timeout_s:
            ctrl = self.rig.controller            # a new one after a power cut
            ctrl.poll()
            view = ctrl.view()
            for name in self._run_pending(view.state):
                injected[name] = injected.get(name, 0) + 1
            ctrl = self.rig.controller
            view = ctrl.view()
            if view.state != last_state:
                if view.state == trusted and view.board is not None \
                        and self.rig.world.square_pieces() != {**view.board.pieces(), **view.exhibit.leftovers}:
                    result.desync = True
                    result.notes.append(f"desync at ply {view.ply}")
                self._on_state(last_state, view.state, view)
                last_state = view.state
            self._strike_armed_cut(view.state)
            if view.ply > last_ply:
                now = time.monotonic()
                result.ply_times.append((now - last_ply_t) / (view.ply - last_ply))
                last_ply, last_ply_t = view.ply, now
            if view.state == State.GAME_OVER and not reset_started:
                result.plies = view.ply
                o = view.outcome
                result.outcome = (f"{o.winner.value} won ({o.reason})" if o and o.winner else
                                  f"no winner ({o.reason})" if o else "over")
                if view.board is not None and self.rig.world.square_pieces() != view.board.pieces():
                    result.desync = True
                    result.notes.append("desync at the end")
                reset_started = True       # the robot resets to the start position by itself
            elif view.state == State.GAME_OVER and reset_started and not view.resetting and not view.missing:
                result.completed = True
                ctrl.set_attract(False)
                break
            elif view.ply >= self.options.max_plies and view.state in (State.VISITOR_TURN, State.THINKING):
                ctrl.end_game()
                result.notes.append(f"stopped at {view.ply} plies")
            else:
                self.visitor.act(view, time.monotonic())
            time.sleep(0.01)
        else:
            result.notes.append(f"timed out in {self.rig.controller.view().state}")
            # counted as lost; the next game starts on a fresh table, as staff would restart a stuck kiosk
            self._recover_after_crash()
        result.seconds = time.monotonic() - start
        if injected:
            result.notes.append("faults " + ", ".join(f"{k} {v}" for k, v in sorted(injected.items())))
        return result

    def run(self) -> list[GameResult]:
        try:
            for n in range(1, self.options.games + 1):
                try:
                    res = self.play(n)
                except Exception as exc:   # noqa: BLE001 - a crashed game is a lost game, counted
                    log.error("game %d crashed: %s", n, traceback.format_exc())
                    res = GameResult(n, self.options.variants[0], Side.ATTACKERS, False, False,
                                     f"crashed: {type(exc).__name__}: {exc}", 0, 0.0)
                    self._recover_after_crash()
                self.results.append(res)
                self.out(res.line())
        finally:
            self.rig.close()
        return self.results

    def _recover_after_crash(self) -> None:
        """Start over on a fresh table so the next game is not lost too."""
        self.rig.power_cut()
        self.rig.world.fill_storage(self.options.variants[0])
        self.rig.controller.journal.archive("crashed")
        self.rig.restart()

    def summary_lines(self) -> list[str]:
        res = self.results
        plies = [t for r in res for t in r.ply_times]
        median = statistics.median(plies) if plies else float("nan")
        return [
            f"median wall time per ply: {median:.2f} s over {len(plies)} plies; "
            f"power cuts: {self.rig.power_cuts}; faults struck: {self.faults.summary()}; "
            f"visitor: {self.visitor.moves} moves, {self.visitor.illegal_moves} illegal, "
            f"{self.visitor.forgotten_captures} captures left standing, {self.visitor.fixes} fixes",
            f"games: {len(res)}, completed: {sum(r.completed for r in res)}, "
            f"desyncs: {sum(r.desync for r in res)}, lost: {sum(not r.completed for r in res)}",
        ]
