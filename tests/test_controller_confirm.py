"""Confirming moves on fast fake ports: the visitor's from the first still frames after the hand
left, a doubtful reading never taken as a move, the robot's from the first still frames after the
gantry stopped."""
from __future__ import annotations

import random
from dataclasses import replace

from engine import parse_square

from kiosk.autoplay import SimVisitor, VisitorStyle
from kiosk.ports import CameraReading
from tests.helpers.fakes import WorldCamera
from tests.helpers.rig import STEP, visitor_turn


class DoubtfulCamera(WorldCamera):
    """Reads the squares that differ from `known` with 60 % confidence while `doubt` is set."""

    doubt = False
    known: dict = {}

    def read_latest(self) -> CameraReading | None:
        reading = super().read_latest()
        if reading is None or not reading.ok or not self.doubt:
            return reading
        conf = tuple(0.6 if reading.squares[sq] != self.known.get(sq) else c
                     for sq, c in enumerate(reading.confidence))
        return replace(reading, confidence=conf)


def test_the_visitors_move_is_confirmed_one_still_time_after_the_hand_left(tmp_path):
    rig = visitor_turn(tmp_path)
    board = rig.ctrl.view().board
    move = board.legal_moves[0]
    rig.world.visitor_move(move.from_sq, move.to_sq)
    assert rig.world.hand_over_board()
    while rig.world.hand_over_board():
        rig.step()
    left = rig.clock.now
    rig.step()
    assert rig.ctrl.view().checking_move == move          # shown at once, marked "checking"
    while rig.ctrl.view().ply == len(board.move_stack):
        rig.step()
        assert rig.clock.now - left <= 0.3 + 2 * STEP, "not confirmed within the still time"
    assert rig.ctrl.view().board.move_stack[-1] == move


def test_a_doubtful_reading_that_looks_like_a_move_is_not_taken(tmp_path):
    rig = visitor_turn(tmp_path, DoubtfulCamera)
    board = rig.ctrl.view().board
    camera = rig.camera
    camera.known, camera.doubt = board.pieces(), True
    move = board.legal_moves[0]
    rig.world.visitor_move(move.from_sq, move.to_sq)
    rig.run_until({"fix_board"}, limit=100)                 # looked again, still unsure: no guess
    assert rig.ctrl.view().ply == len(board.move_stack)
    assert set(rig.ctrl.view().fix_squares) == {move.from_sq, move.to_sq}
    # not "does not match the game": the visitor is asked which move, the likeliest first
    assert rig.ctrl.view().message == "fix_board.which"
    assert rig.ctrl.view().move_choices[0] == move
    camera.doubt = False                                    # the light changed: read surely now
    rig.run_until({"thinking", "robot_moving", "verify", "visitor_turn"}, limit=100)
    assert rig.ctrl.view().board.move_stack[len(board.move_stack)] == move


def test_the_robots_move_is_checked_from_the_first_still_frames_after_the_gantry_stopped(tmp_path):
    rig = visitor_turn(tmp_path)
    rig.visitor_random_move()
    rig.run_until({"robot_moving"})
    while rig.gantry.queue:
        rig.step()
    stopped = rig.clock.now
    rig.run_until({"visitor_turn", "game_over"}, limit=50)
    assert rig.clock.now - stopped <= 0.3 + 2 * STEP


class GlaredCamera(WorldCamera):
    """Reads the squares in `glared` with 60 % confidence (a veil of light that stays)."""

    glared: set = set()

    def read_latest(self) -> CameraReading | None:
        reading = super().read_latest()
        if reading is None or not reading.ok:
            return reading
        conf = tuple(0.6 if sq in self.glared else c for sq, c in enumerate(reading.confidence))
        return replace(reading, confidence=conf)


def test_a_move_left_in_doubt_between_two_destinations_is_asked_for_and_played_as_chosen(tmp_path):
    """Glare that stays over the two squares the piece may have gone to: after fresh pictures the
    visitor is asked which of the two moves they made; the one they touch is played (and journalled,
    so a restart keeps it)."""
    rig = visitor_turn(tmp_path, GlaredCamera)
    board = rig.ctrl.view().board
    d1, d3, d4 = (parse_square(n, 11) for n in ("d1", "d3", "d4"))
    rig.camera.glared = {d3, d4}
    played, other = board.parse_move("d1-d3"), board.parse_move("d1-d4")
    rig.world.visitor_move(d1, d3)
    rig.run_until({"fix_board"}, limit=100)
    view = rig.ctrl.view()
    assert view.ply == len(board.move_stack) and view.message == "fix_board.which"
    assert view.move_choices == (played, other)
    assert not rig.ctrl.choose_move("d1-d5")                 # not one of the moves offered
    assert rig.ctrl.choose_move("d1-d3")
    assert rig.ctrl.view().board.move_stack[len(board.move_stack)] == played
    assert rig.ctrl.view().move_choices == ()
    chosen = [r for r in rig.ctrl.journal.records if r.kind == "move_chosen"]
    assert [r.get("move") for r in chosen] == ["d1-d3"]
    rig.ctrl.stop()
    again = rig.make()                                      # a power cut now: the move is kept
    assert again.view().board.move_stack[len(board.move_stack)] == played


def test_a_move_whose_source_square_is_in_doubt_too_is_asked_for(tmp_path):
    """Glare over the square the piece left as well: "nothing moved" is still possible, but the
    move is the likelier reading, so the visitor is asked which move they made. Asked to put the
    board back and play again, they would meet the same glare and the same doubt."""
    rig = visitor_turn(tmp_path, GlaredCamera)
    board = rig.ctrl.view().board
    d1, d3, d4 = (parse_square(n, 11) for n in ("d1", "d3", "d4"))
    rig.camera.glared = {d1, d3, d4}
    played, other = board.parse_move("d1-d3"), board.parse_move("d1-d4")
    rig.world.visitor_move(d1, d3)
    rig.run_until({"fix_board"}, limit=100)
    view = rig.ctrl.view()
    assert view.message == "fix_board.which" and view.move_choices == (played, other)
    assert view.ply == len(board.move_stack)                # nothing played on the camera's word alone
    assert rig.ctrl.choose_move("d1-d3")
    assert rig.ctrl.view().board.move_stack[len(board.move_stack)] == played


def test_the_simulated_visitor_touches_the_move_it_made_when_asked(tmp_path):
    """The simulation's visitor (kiosk/autoplay.py) answers "which move did you make?" as a person
    does, by touching the move it made, so a museum day in glare that stays goes on."""
    rig = visitor_turn(tmp_path, GlaredCamera)
    rig.camera.glared = set(range(121))                     # a veil over the whole board
    assert _one_simulated_ply(rig, 3, lambda view: bool(view.move_choices))


def _one_simulated_ply(rig, seed: int, asked) -> bool:
    """The simulation's visitor plays one ply, answering the screen; whether `asked(view)` held on the
    way. The one move is chosen on the screen, and journalled as played."""
    style = VisitorStyle(illegal_rate=0.0, forget_capture_rate=0.0, think_s=(0.0, 0.0), read_screen_s=0.0)
    visitor = SimVisitor(rig.world, random.Random(seed), style, touch=rig.ctrl.choose_move)
    ply = rig.ctrl.view().ply
    seen = False
    for _ in range(600):
        view = rig.ctrl.view()
        seen |= asked(view)
        if view.ply > ply:
            break
        visitor.act(view, rig.clock.now)
        rig.step()
    assert visitor.answered == 1 and visitor.moves == 1
    chosen = [r.get("move") for r in rig.ctrl.journal.records if r.kind == "move_chosen"]
    played = [r.get("move") for r in rig.ctrl.journal.records if r.kind == "visitor_move"]
    assert chosen == played[-1:] and len(chosen) == 1
    return seen


class VeiledCamera(WorldCamera):
    """A lamp's core over `veiled`: the square the piece left still reads as `known` had it, and
    every veiled square is read with 60 % confidence (the change is half seen, however often the
    camera looks)."""

    veiled: set = set()
    known: dict = {}

    def read_latest(self) -> CameraReading | None:
        reading = super().read_latest()
        if reading is None or not reading.ok:
            return reading
        squares = tuple(self.known.get(sq) if sq in self.veiled and self.known.get(sq) is not None else p
                        for sq, p in enumerate(reading.squares))
        conf = tuple(0.6 if sq in self.veiled else c for sq, c in enumerate(reading.confidence))
        return replace(reading, squares=squares, confidence=conf)


def test_a_move_the_camera_leans_to_not_seeing_is_shown_by_the_visitor_on_the_screen(tmp_path):
    """Under a lamp's core the square left still looks occupied and the destination only half
    shows the piece: "nothing moved" is the likelier reading, so no short list can be offered and
    putting the piece back to play again meets the same light. The visitor shows the move on the
    screen instead, among the moves the camera leaves (and only those); it is played and
    journalled, and a restart keeps it."""
    rig = visitor_turn(tmp_path, VeiledCamera)
    board = rig.ctrl.view().board
    d1, d3 = parse_square("d1", 11), parse_square("d3", 11)
    rig.camera.known, rig.camera.veiled = board.pieces(), {d1, d3}
    played = board.parse_move("d1-d3")
    rig.world.visitor_move(d1, d3)
    rig.run_until({"fix_board"}, limit=100)
    view = rig.ctrl.view()
    assert view.ply == len(board.move_stack) and view.message == "fix_board.show"
    assert view.move_choices == () and played in view.moves_possible
    assert all(m.to_sq == d3 or m.from_sq == d1 for m in view.moves_possible)    # each explains a change seen
    assert not rig.ctrl.choose_move("h1-h3")                 # a move the camera sees no part of
    assert rig.ctrl.view().ply == len(board.move_stack)
    assert rig.ctrl.choose_move("d1-d3")
    assert rig.ctrl.view().board.move_stack[len(board.move_stack)] == played
    assert rig.ctrl.view().moves_possible == ()
    chosen = [r for r in rig.ctrl.journal.records if r.kind == "move_chosen"]
    assert [r.get("move") for r in chosen] == ["d1-d3"] and chosen[0].get("shown_of") == len(view.moves_possible)
    rig.ctrl.stop()
    again = rig.make()                                      # a power cut now: the move is kept
    assert again.view().board.move_stack[len(board.move_stack)] == played


def test_the_simulated_visitor_shows_its_move_on_the_screen_when_asked(tmp_path):
    """The simulation's visitor shows the move it made when asked to, so a museum day under a
    lamp that hides the square left goes on instead of "put it back and play again" for ever."""
    rig = visitor_turn(tmp_path, VeiledCamera)
    rig.camera.known = rig.ctrl.view().board.pieces()
    rig.camera.veiled = set(range(121))                     # the whole board under the lamp
    assert _one_simulated_ply(rig, 5, lambda view: bool(view.moves_possible) and not view.move_choices)
