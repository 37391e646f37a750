"""The museum-day runner's parts (the whole run is measured by `tafl-kiosk --visitors N`)."""
from __future__ import annotations

import random
import re
import time

import pytest

from engine import Side

from kiosk.autoplay import Persona
from kiosk.museum_day import SimClock, Totals

CONTRACT = re.compile(r"^visitors: \d+, games: \d+, completed: \d+, paused: \d+, stuck: \d+, lost: \d+, "
                      r"desyncs: \d+, turnaround median: \d+ s$")


def test_the_last_line_is_exactly_the_contract():
    t = Totals(visitors=3, games=4, completed=2, paused=1, turnarounds=[50.2, 61.0, 40.0])
    assert t.line() == ("visitors: 3, games: 4, completed: 2, paused: 1, stuck: 0, lost: 0, desyncs: 0, "
                        "turnaround median: 50 s")
    assert CONTRACT.match(t.line())


def test_the_sim_clock_runs_at_the_gantry_speed_and_skips_waits():
    clock = SimClock(start=100.0)
    clock.skip(180.0)                    # a visitor thinks for three minutes
    assert clock() == 280.0
    clock.skip(-5.0)                     # never backwards
    assert clock() == 280.0
    clock.tick(25.0)
    assert clock() >= 280.0


def test_visitors_differ_as_real_visitors_do():
    rng = random.Random(1)
    people = [Persona.draw(rng, ("copenhagen", "york", "tablut"), None) for _ in range(200)]
    assert {p.captures for p in people} == {"leave", "tray"}
    assert any(p.walk_away_at for p in people) and any(p.comes_back_after_s for p in people)
    assert any(not p.helps for p in people) and {p.side for p in people} == {Side.ATTACKERS, Side.DEFENDERS}
    thinks = [p.think_s(rng) for p in people for _ in range(20)]
    assert min(thinks) < 5.0 and max(thinks) > 120.0 and max(thinks) < 300.0   # never past the warning
    assert all(p.level == "hard" for p in (Persona.draw(rng, ("copenhagen",), "hard") for _ in range(5)))


def test_a_game_for_a_board_that_is_not_installed_is_refused_clearly(tmp_path):
    from tests.helpers.rig import Rig

    rig = Rig(tmp_path)                       # the 11x11 board is installed
    with pytest.raises(ValueError, match=r"tablut is played on the 9x9 board \(board-9\).*installed board is board-11"):
        rig.ctrl.start_game("tablut", {}, Side.DEFENDERS, "easy")
    assert rig.ctrl.view().state == "idle"    # nothing started, nothing waits for pieces it cannot see
    with pytest.raises(ValueError, match="swap the board"):
        rig.ctrl.setup_board("tablut")
    rig.ctrl.start_game("copenhagen", {}, Side.DEFENDERS, "easy")     # the installed board's games still start
    assert rig.ctrl.view().state == "setup"


def test_no_progress_is_stuck_only_when_staff_were_never_called_meanwhile():
    from kiosk.museum_day import STUCK_S, StuckWatch

    quiet = StuckWatch(0.0)
    assert not quiet.see("place_piece e4", 0.0, True, False)
    assert not quiet.see("place_piece e4", STUCK_S, True, False)
    assert quiet.see("place_piece e4", STUCK_S + 1, True, False)          # 10 minutes, nobody called
    assert not quiet.see("place_piece e4", STUCK_S + 900, True, False)    # the same moment, counted once
    # called (the notice shown), staff came, could not help (the notice gone), asked again later
    called = StuckWatch(0.0)
    called.see("place_piece e4", 0.0, True, False)
    called.see("place_piece e4", 120.0, True, True)
    assert not called.see("place_piece e4", STUCK_S + 500, True, False)
    # progress starts the clock again; waiting for a visitor to move is never stuck
    assert not called.see("verify", STUCK_S + 501, True, False)
    visitor = StuckWatch(0.0)
    visitor.see("visitor_turn", 0.0, False, False)
    assert not visitor.see("visitor_turn", 3 * STUCK_S, False, False)


def test_a_person_asked_to_empty_an_empty_square_reaches_over_it(tmp_path):
    """An attendant asked to take a piece off a square the camera misread looks there: a hand
    comes and goes (the camera takes new pictures), and nothing else on the table changes."""
    from calibration.config import Config
    from engine import Board
    from kiosk.simworld import SimWorld

    now = [100.0]
    world = SimWorld(Config(), clock=lambda: now[0])
    world.place_position("copenhagen", Board("copenhagen").pieces())
    e4 = 3 * 11 + 4
    before, version = world.square_pieces(), world.version
    assert e4 not in before and not world.hand_over_board()
    world.set_squares({e4: None})
    assert world.hand_over_board() and world.version > version
    assert world.square_pieces() == before and not world.tray
    now[0] += 5.0
    assert not world.hand_over_board()


def museum_day(tmp_path, personas, before=None):
    """A museum day on the whole simulation rig (rendered camera, GRBL simulator on a pty)."""
    from calibration.config import Config
    from kiosk.museum_day import MuseumDay
    from tests.helpers.simulation import fast_gantry_settings

    # the day's clock follows the gantry's motion time (GrblSimulator.motion_s, see the test
    # below), not the wall clock, so the quick gantry changes only the run's wall time
    # (the walk-away day: 47.5 -> 33.4 s; the same 39 plies and totals)
    settings = fast_gantry_settings(5)
    lines: list[str] = []
    day = MuseumDay(Config(), str(tmp_path / "state"), len(personas), 5, None, (), settings,
                    out=lines.append, personas=list(personas))
    if before is not None:
        before(day)
    totals = day.run_day()
    return day, totals, lines


def visitor(**habits) -> Persona:
    base = dict(variant="copenhagen", side=Side.DEFENDERS, level="easy", mode="yielding", captures="leave",
                helps=True, walk_away_at=None, comes_back_after_s=None, think_scale_s=4.0)
    return Persona(**{**base, **habits})


def test_a_walk_away_in_a_museum_day_is_paused_and_resumed(tmp_path):
    # leaves at their second move for 15 minutes (the game pauses after 8), then plays on to the end
    day, totals, lines = museum_day(tmp_path, [visitor(walk_away_at=2, comes_back_after_s=900.0)])
    game = day.games[0]
    assert game.paused and game.resumed, lines
    assert game.completed and game.plies > 2 and not game.lost and not game.desync, lines
    assert (totals.paused, totals.stuck, totals.lost, totals.desyncs) == (1, 0, 0, 0)
    assert "walked away mid-game 1 (came back 1, never came back 0); games paused 1, resumed after a pause 1" \
        in lines[-1]


def test_nobody_helping_in_a_museum_day_calls_staff_and_loses_nothing(tmp_path):
    # three of the robot's pieces lie in the tray (a visitor before took them off) and the
    # visitor never puts a piece where the screen asks: the set-up cannot find them, the kiosk
    # calls staff instead of giving up, the simulated staff bring them back, the game starts;
    # the visitor leaves after two moves, the game is kept
    from engine import Piece

    def empty_three_slots(day) -> None:
        world = day.rig.world
        for slot in [s for s, p in sorted(world.storage_pieces().items()) if p == Piece.ATTACKER][:3]:
            world.take_from_square(slot)
        assert len(world.tray) == 3

    shy = visitor(helps=False, walk_away_at=2)
    day, totals, lines = museum_day(tmp_path, [shy], before=empty_three_slots)
    game, person, world = day.games[0], day.games[0].person, day.rig.world
    assert day.staff_calls == 1 and person.asked >= 1 and person.helped == 0, lines
    assert game.ended == "walked away" and game.plies >= 2 and not game.lost and not game.desync, lines
    assert (totals.games, totals.stuck, totals.lost, totals.desyncs) == (1, 0, 0, 0), lines
    assert not world.tray and len(world.square_pieces()) + len(world.storage_pieces()) == 37
    assert "never helped 1; staff calls 1" in lines[-1]


def test_the_gantry_time_is_the_firmware_motion_time_not_the_wall_clock():
    """The museum day's clock follows GrblSimulator.motion_s: the kinematics of the moves,
    however late this loaded machine schedules the simulator's thread."""
    from calibration.config import Config
    from robot.grbl import GrblDriver
    from robot.kinematics import AxisLimits, straight_move_time
    from robot.simulator import GrblSimulator

    sim = GrblSimulator(Config(), speed_factor=100.0, build="origin")
    sim.start()
    grbl = GrblDriver(sim.port, banner_timeout=1.0, response_timeout=3.0, motion_timeout=30.0)
    try:
        grbl.connect()
        grbl.home()
        grbl.send("G21G90")
        limits = AxisLimits.from_settings(grbl.settings())
        before = sim.motion_s
        time.sleep(0.3)                        # idle: no firmware time passes
        assert sim.motion_s == before
        grbl.send("G0X400Y0")
        grbl.sync()
        moved = sim.motion_s - before
        bound = straight_move_time((0, 0), (400, 0), limits, None)
        assert bound * 0.999 <= moved <= bound * 1.01
    finally:
        grbl.close()
        sim.stop()


def test_a_stepped_camera_takes_a_frame_only_when_stepped():
    """CameraThread(threaded=False): no thread; each step() grabs and reads one frame."""
    from kiosk.camera_thread import CameraThread
    from tests.helpers.fakes import OnePictureFeed as Source, ReadsAnything as Reader

    source = Source()
    camera = CameraThread(source, Reader(), threaded=False)
    time.sleep(0.1)
    assert source.grabs == 0 and camera.read_latest() is None
    camera.step()
    camera.step()
    latest = camera.read_latest()
    assert source.grabs == 2 and latest is not None and latest.seq == 2 and not latest.fresh   # a repeat
    assert camera.frames_read == 1
    camera.stop()


def test_a_repeated_picture_whose_board_was_lost_is_read_again():
    """A simulated still scene repeats one picture, and its reading is replayed; but not a lost pose:
    the reader searches a covered marker in full only every COVERED_RECHECK-th frame, so the same
    picture read again may find it (replayed, one refusal lost the robot's move for good on museum
    days). Other refusals are replayed as before."""
    from kiosk.camera_thread import CameraThread
    from kiosk.ports import CameraReading
    from tests.helpers.fakes import OnePictureFeed as Source
    from vision.localise import MARKERS_LOST

    class FindsItOnTheThirdLook:
        def __init__(self, refusal: str) -> None:
            self.reads, self.refusal = 0, refusal

        def read(self, frame, seq):
            self.reads += 1
            ok = self.reads >= 3
            return CameraReading(seq, frame.t, ok, None if ok else self.refusal)

        def use_board(self, board_name, variant): pass

        def confirm(self, reading, squares): pass

    lost = FindsItOnTheThirdLook(f"{MARKERS_LOST}: 0")
    camera = CameraThread(Source(), lost, threaded=False)
    for _ in range(4):
        camera.step()
    assert lost.reads == 3 and camera.frames_read == 3
    latest = camera.read_latest()
    assert latest is not None and latest.ok and not latest.fresh and latest.seq == 4
    camera.stop()
    hand = FindsItOnTheThirdLook("hand over board")
    camera = CameraThread(Source(), hand, threaded=False)
    for _ in range(4):
        camera.step()
    assert hand.reads == 1 and not camera.read_latest().ok
    camera.stop()


def test_a_desync_names_the_squares_the_ply_and_the_state_change_once_per_game(caplog):
    """A day's DESYNC is followed up from the log: which squares the table and the kiosk disagree on,
    at which ply, entering which state from which."""
    import logging
    from types import SimpleNamespace

    from engine import Board, Piece, parse_square
    from kiosk.museum_day import Game, MuseumDay

    board = Board("copenhagen")
    table = dict(board.pieces())
    table.pop(parse_square("d1", board.size))
    table[parse_square("d2", board.size)] = Piece.ATTACKER
    day = MuseumDay.__new__(MuseumDay)
    day.rig = SimpleNamespace(world=SimpleNamespace(square_pieces=lambda: table))
    day._last_state = "verify"
    view = SimpleNamespace(state="visitor_turn", board=board, ply=0, resetting=False)
    game = Game(number=1, persona=visitor())
    with caplog.at_level(logging.WARNING, logger="kiosk.museum_day"):
        day._desync(game, view, "entering visitor_turn from verify")
        day._desync(game, view, "at the game's end")
    assert game.desync
    lines = [r.getMessage() for r in caplog.records]
    assert lines == ["desync entering visitor_turn from verify at ply 0: d1 table - kiosk t, d2 table t kiosk -"]


def test_back_from_a_pause_the_board_is_not_yet_trusted_so_a_move_made_meanwhile_is_no_desync():
    """A visitor who thinks longer than the attendance pause moves while the game is paused; the move wakes
    the game and is read as any other. Entering the visitor's turn from anywhere else, the kiosk has just
    taken the board, and a difference is a desync."""
    from types import SimpleNamespace

    from engine import Board, parse_square
    from kiosk.museum_day import Game, MuseumDay
    from kiosk.states import State

    board = Board("copenhagen")
    table = dict(board.pieces())
    table[parse_square("d2", board.size)] = table.pop(parse_square("d1", board.size))
    day = MuseumDay.__new__(MuseumDay)
    day.rig = SimpleNamespace(world=SimpleNamespace(square_pieces=lambda: table))
    view = SimpleNamespace(state=State.VISITOR_TURN, board=board, ply=0, resetting=False)
    for before, desync in ((State.PAUSED, False), (State.VERIFY, True)):
        day._game, day._last_state, day.ended_at = Game(number=1, persona=visitor()), before, None
        day._seen_state(view)
        assert day._game.desync is desync
