"""The exhibit modes (kiosk/exhibit.py): self-play stopped by a visitor, and the robot as referee.

The self-play tests run the real gantry chain (gantry thread, GantryMover, GRBL driver, the GRBL
simulator on a pty) under a controller on a manual clock, so the feed hold is the real one: the
carriage stops with the piece on the magnet. Times are the controller's clock, never wall time.
"""
from __future__ import annotations

import time
from contextlib import contextmanager
from dataclasses import replace

import pytest

from calibration.config import Config
from calibration.config_file import ConfigError, config_from_dict
from calibration.quiet_hours import is_quiet
from engine import Board, Move, Piece, Side, parse_square
from kiosk.controller import GameController
from kiosk.simworld import SimWorld
from kiosk.states import State
from tests.helpers.fakes import InstantEngine, ManualClock, WorldCamera
from tests.helpers.rig import Rig


def exhibit_config(**changes) -> Config:
    cfg = Config()
    return replace(cfg, exhibit=replace(cfg.exhibit, selfplay_move_pause_s=0.0, **changes))


@contextmanager
def selfplay_rig(tmp_path, speed_factor: float = 4.0):
    """The real gantry chain, the board already at the start position (no set-up to wait for)."""
    from kiosk.gantry_thread import GantryThread
    from kiosk.robot_adapter import GantryMover
    from robot.simulator import GrblSimulator

    config = exhibit_config()
    clock = ManualClock()
    world = SimWorld(config, clock=clock, hand_seconds=0.5)
    world.place_position("copenhagen", Board("copenhagen").pieces())
    sim = GrblSimulator(config, speed_factor=speed_factor, world=world, layout=world.layout)
    sim.start()
    mover = GantryMover(config, port_provider=lambda: sim.port or "", board_name=world.board_name)
    gantry = GantryThread(mover)
    ctrl = GameController(config, WorldCamera(world, clock), gantry, InstantEngine(0),
                          str(tmp_path / "state"), clock=clock, stable_s=0.3)
    try:
        yield ctrl, world, sim
    finally:
        gantry.stop()
        sim.stop()


def poll(ctrl, clock_step: float = 0.05, wall: float = 0.005) -> None:
    ctrl.clock.now += clock_step
    ctrl.poll()
    time.sleep(wall)


def until(ctrl, predicate, what: str, limit: int = 6000) -> None:
    for _ in range(limit):
        if predicate():
            return
        poll(ctrl)
    raise AssertionError(f"{what}: still {ctrl.view().state}")


def carrying(ctrl, world) -> bool:
    return ctrl.state == State.ROBOT_MOVING and world.table.holding is not None


@pytest.mark.parametrize("how", ["touch", "hand"])
def test_a_visitor_stops_selfplay_within_a_second_and_takes_the_position_over(tmp_path, how):
    with selfplay_rig(tmp_path, speed_factor=25.0) as (ctrl, world, sim):
        ctrl.start()
        ctrl.exhibit.start_selfplay()
        # quick up to the second ply's carry, which runs at 4x so the stop lands mid-carry
        until(ctrl, lambda: ctrl.view().ply >= 2 and ctrl.state == State.ROBOT_MOVING, "a second self-play ply")
        sim.set_speed_factor(4.0)
        until(ctrl, lambda: carrying(ctrl, world), "a self-play carry")
        assert ctrl.session.mode == "selfplay"
        t0 = ctrl.clock()
        if how == "touch":
            ctrl.touched()
        else:
            world.show_hand(*world.layout.position(parse_square("f6", 11)), seconds=1.5)
        for _ in range(50):
            if ctrl.state == State.HANDOVER:
                break
            poll(ctrl)
        assert ctrl.state == State.HANDOVER
        assert ctrl.clock() - t0 < 1.0, "the hand-over took longer than a second (controller clock)"
        # stopped at once: the carriage stands, the piece still on the magnet (never dropped on the way)
        time.sleep(0.3)
        held = world.table.holding
        assert held is not None, "the piece was dropped mid-carry"
        pos = sim.machine_position
        time.sleep(0.4)
        assert sim.machine_position == pos and world.table.holding == held and world.table.magnet[2]
        view = ctrl.view()
        assert view.state == "handover" and not view.exhibit.handover_ready
        sim.set_speed_factor(25.0)           # the stop mid-carry is checked: the rest may be quick
        side = view.board.turn
        ctrl.handover("take_over")
        until(ctrl, lambda: ctrl.state == State.VISITOR_TURN, "the take-over", limit=4000)
        view = ctrl.view()
        assert ctrl.session.mode == "visitor" and view.visitor_side == side
        assert world.table.holding is None
        assert world.square_pieces() == {**view.board.pieces(), **view.exhibit.leftovers}
        kinds = [r.kind for r in ctrl.journal.records]
        assert "selfplay_stopped" in kinds and "take_over" in kinds


def test_start_fresh_ends_selfplay_and_resets_to_the_start_position(tmp_path):
    # 25x: the touch comes while the robot thinks (nothing moving), and the reset is a wait
    with selfplay_rig(tmp_path, speed_factor=25.0) as (ctrl, world, _sim):
        ctrl.start()
        ctrl.exhibit.start_selfplay()
        until(ctrl, lambda: ctrl.view().ply >= 1 and ctrl.state == State.THINKING, "self-play thinking")
        t0 = ctrl.clock()
        ctrl.touched()
        assert ctrl.state == State.HANDOVER and ctrl.clock() - t0 < 1.0
        assert ctrl.view().exhibit.handover_ready           # nothing was moving: ready at once
        ctrl.handover("start_fresh")
        assert ctrl.state == State.GAME_OVER
        until(ctrl, lambda: ctrl.jobs.goal is None and not ctrl.gantry.busy, "the reset")
        assert world.square_pieces() == Board("copenhagen").pieces()
        assert not (tmp_path / "state" / "gamelog").exists() or not any((tmp_path / "state" / "gamelog").iterdir())


class FakeRig(Rig):
    """The controller on the fast fake ports (tests/helpers/fakes.py) on a manual clock, with the
    exhibit's settings (no pause between self-play moves)."""

    def __init__(self, tmp_path, config: Config | None = None) -> None:
        super().__init__(tmp_path, seed=1)
        self.config = config or exhibit_config()
        self.ctrl = self.make()

    def play(self, move: Move, remove_captures: bool = True) -> None:
        play_move(self, move, remove_captures)


def play_move(rig: Rig, move: Move, remove_captures: bool = True) -> None:
    """A visitor's move on the world, stepped until the controller has taken it in."""
    ply = rig.ctrl.view().ply
    rig.world.visitor_move(move.from_sq, move.to_sq, remove_captures=remove_captures)
    for _ in range(300):
        rig.step()
        if rig.ctrl.view().ply > ply:
            return
    raise AssertionError(f"move not taken in: {rig.ctrl.view().state}")


def referee_to_capture(rig: FakeRig) -> Move:
    """Both sides are visitors: play until the side to move has a capture; returns that move."""
    rig.ctrl.start_game("copenhagen", {}, Side.ATTACKERS, "easy", mode="referee")
    rig.run_until({"visitor_turn"})
    for _ in range(60):
        board = rig.ctrl.view().board
        assert board is not None, "a game is on"
        captures = [m for m in board.legal_moves if board.captures_of(m) and m.to_sq not in board.captures_of(m)]
        if captures:
            return captures[0]
        quiet = [m for m in board.legal_moves if not board.captures_of(m)]
        after_ok = []
        for m in quiet:
            b = board.copy()
            b.push(m)
            if not b.is_game_over():
                after_ok.append(m)
        rig.play(min(after_ok, key=lambda m: (m.from_sq * 7 + m.to_sq * 13) % 101))
        assert rig.ctrl.view().state == "visitor_turn"
    raise AssertionError("no capture came up")


def test_referee_both_sides_are_visitors_and_an_illegal_move_is_refused(tmp_path):
    rig = FakeRig(tmp_path)
    rig.ctrl.start_game("copenhagen", {}, Side.ATTACKERS, "easy", mode="referee")
    rig.run_until({"visitor_turn"})
    board = rig.ctrl.view().board
    rig.play(board.legal_moves[0])
    view = rig.ctrl.view()
    assert view.state == "visitor_turn" and view.board.turn == Side.DEFENDERS   # no robot move between
    # the defenders try a diagonal slide: refused with the fix-the-board screen
    board = view.board
    src = next(sq for sq, p in board.pieces().items() if p == Piece.DEFENDER
               and board.piece_at(sq + 12) is None)
    rig.world.visitor_move(src, src + 12, remove_captures=False)
    assert rig.run_until({"fix_board"}) == "fix_board"
    view = rig.ctrl.view()
    assert view.ply == 1 and view.message and view.message.startswith("illegal_move")
    assert view.fix_squares == {src: Piece.DEFENDER, src + 12: None}
    rig.world.set_squares(dict(view.fix_squares))
    assert rig.run_until({"visitor_turn"}) == "visitor_turn"
    rig.play(rig.ctrl.view().board.legal_moves[0])
    assert rig.ctrl.view().ply == 2 and rig.ctrl.view().board.turn == Side.ATTACKERS


def test_referee_parks_a_capture_left_standing_only_without_a_hand(tmp_path):
    rig = FakeRig(tmp_path)
    move = referee_to_capture(rig)
    board = rig.ctrl.view().board
    captured = board.captures_of(move)
    rig.play(move, remove_captures=False)
    view = rig.ctrl.view()
    assert view.state == "visitor_turn" and set(view.exhibit.leftovers) == set(captured)
    assert "capture" in view.announcements or view.last_captures == captured
    carried = len(rig.gantry.carried)
    # a hand stays over the board: nothing is parked, however long
    for _ in range(60):
        rig.world.show_hand(*rig.world.layout.position(captured[0]), seconds=0.5)
        rig.step()
        assert rig.ctrl.state == State.VISITOR_TURN and len(rig.gantry.carried) == carried
    assert not any(r.kind == "referee_park" for r in rig.ctrl.journal.records)
    # the hand goes: after the quiet time the robot parks the capture, and the turn goes on
    rig.run_until({"robot_moving"}, limit=200)
    assert rig.clock() - rig.world.hand.until >= rig.config.exhibit.referee_park_quiet_s - 0.11
    rig.run_until({"visitor_turn"})
    view = rig.ctrl.view()
    assert not view.exhibit.leftovers and all(sq not in rig.world.square_pieces() for sq in captured)
    assert rig.world.square_pieces() == view.board.pieces()
    assert [t.kind for t in rig.gantry.carried[carried:]] == ["park"] * len(captured)


def test_referee_game_is_logged_without_rewards_and_resign_gives_the_other_side_the_win(tmp_path):
    from kiosk.gamelog import read_games

    rig = FakeRig(tmp_path)
    rig.ctrl.start_game("copenhagen", {}, Side.ATTACKERS, "easy", mode="referee")
    rig.run_until({"visitor_turn"})
    rig.play(rig.ctrl.view().board.legal_moves[0])
    rig.clock.now += 5.0
    rig.ctrl.resign()                       # the defenders (to move) give up
    view = rig.ctrl.view()
    assert view.state == "game_over" and view.outcome.winner == Side.ATTACKERS
    games = read_games(str(rig.state_dir)).games
    assert len(games) == 1 and games[0].extra.get("mode") == "referee" and len(games[0].move_times_s) == 1


def test_selfplay_starts_only_when_idle_in_attract_outside_quiet_hours(tmp_path):
    rig = FakeRig(tmp_path, exhibit_config(selfplay_after_s=30.0))
    rig.step(400)                            # 40 s idle, but the attract screen is not showing
    assert rig.ctrl.state == State.IDLE
    rig.ctrl.set_attract(True)
    rig.ctrl.exhibit.wall_clock = lambda: __import__("datetime").datetime(2026, 1, 1, 23, 0)
    rig.ctrl.exhibit.cfg = replace(rig.ctrl.exhibit.cfg, quiet_hours=("22:00-08:00",))
    rig.step(400)
    assert rig.ctrl.state == State.IDLE      # a quiet hour
    rig.ctrl.exhibit.cfg = replace(rig.ctrl.exhibit.cfg, quiet_hours=())
    rig.ctrl.exhibit.set_selfplay(False)     # staff switched it off (kept across a restart)
    rig.step(400)
    assert rig.ctrl.state == State.IDLE
    assert rig.make().exhibit.selfplay_on is False
    rig.ctrl.exhibit.set_selfplay(True)
    rig.run_until({"setup", "thinking"}, limit=50)
    assert rig.ctrl.session.mode == "selfplay"


def test_a_power_cut_in_selfplay_resets_to_the_start_position(tmp_path):
    rig = FakeRig(tmp_path)
    rig.ctrl.set_attract(True)
    rig.ctrl.exhibit.start_selfplay()
    for _ in range(3000):
        rig.step()
        if rig.ctrl.view().ply >= 4:
            break
    assert rig.ctrl.view().ply >= 4
    rig.ctrl = rig.make()                   # a new controller on the same journal: a reboot
    view = rig.ctrl.view()
    assert view.state == "game_over" and view.outcome is not None and view.outcome.winner is None
    for _ in range(3000):
        rig.step()
        if rig.ctrl.jobs.goal is None and rig.world.square_pieces() == Board("copenhagen").pieces():
            break
    assert rig.world.square_pieces() == Board("copenhagen").pieces()


def test_quiet_hours_and_their_validation():
    assert is_quiet(("22:00-08:00",), 23 * 60) and is_quiet(("22:00-08:00",), 7 * 60 + 59)
    assert not is_quiet(("22:00-08:00",), 8 * 60) and not is_quiet((), 0)
    assert is_quiet(("12:00-13:30",), 12 * 60 + 45) and not is_quiet(("12:00-13:30",), 13 * 60 + 30)
    with pytest.raises(ConfigError, match="quiet_hours"):
        config_from_dict({"exhibit": {"quiet_hours": ["9-17"]}})
    with pytest.raises(ConfigError, match="selfplay_level"):
        config_from_dict({"exhibit": {"selfplay_level": "grandmaster"}})
    with pytest.raises(ConfigError, match="selfplay_feed_mm_min"):
        config_from_dict({"exhibit": {"selfplay_feed_mm_min": 0}})
    assert config_from_dict({"exhibit": {"quiet_hours": ["22:00-09:30"], "selfplay": False}}).exhibit.selfplay is False


class ChainRig(Rig):
    """The referee on the real gantry chain (selfplay_rig): steps sleep a little, for the gantry thread."""

    def __init__(self, ctrl, world) -> None:          # not Rig.__init__: the chain is built already
        self.ctrl, self.world, self.clock = ctrl, world, ctrl.clock
        self.config = ctrl.config

    def step(self, n: int = 1) -> None:
        for _ in range(n):
            poll(self.ctrl)

    def play(self, move: Move, remove_captures: bool = True) -> None:
        play_move(self, move, remove_captures)


def test_a_hand_over_the_board_holds_the_referees_parking_with_the_piece_on_the_magnet(tmp_path):
    with selfplay_rig(tmp_path, speed_factor=2.0) as (ctrl, world, sim):
        ctrl.start()
        rig = ChainRig(ctrl, world)
        move = referee_to_capture(rig)
        captured = ctrl.view().board.captures_of(move)
        rig.play(move, remove_captures=False)
        until(ctrl, lambda: carrying(ctrl, world), "the referee's park carry")
        world.show_hand(*world.layout.position(captured[0]), seconds=1.0)
        until(ctrl, lambda: ctrl.exhibit.held, "the hold", limit=40)
        time.sleep(0.3)
        pos, held = sim.machine_position, world.table.holding
        time.sleep(0.4)
        assert held is not None and world.table.holding == held and sim.machine_position == pos
        sim.set_speed_factor(25.0)           # the hold mid-carry is checked: the rest may be quick
        until(ctrl, lambda: ctrl.state == State.VISITOR_TURN and not ctrl.gantry.busy, "the park after the hand")
        assert all(sq not in world.square_pieces() for sq in captured)
        assert world.square_pieces() == ctrl.view().board.pieces()
        assert any(r.kind == "park_held" for r in ctrl.journal.records)
