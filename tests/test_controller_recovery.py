"""The controller recovers: missed pickups, a power cut mid-move, the camera unplugged, gantry errors."""
from __future__ import annotations

import math

from engine import Piece, Side

from kiosk.journal import read_records
from tests.kiosk_fakes import WorldGantry
from tests.test_controller_game import Rig


def robot_pieces(rig: Rig) -> dict[int, Piece]:
    robot = rig.ctrl.view().robot_side
    return {sq: p for sq, p in rig.world.square_pieces().items() if p.side == robot}


def nudge_all_robot_pieces(rig: Rig, distance: float) -> None:
    for i, sq in enumerate(sorted(robot_pieces(rig))):
        angle = i * 2.399      # spread the directions
        rig.world.nudge(sq, distance * math.cos(angle), distance * math.sin(angle))


def start(rig: Rig) -> None:
    rig.ctrl.start_game("copenhagen", {}, Side.ATTACKERS, "easy")
    rig.run_until({"visitor_turn"})


def test_missed_pickup_is_retried_with_offsets(tmp_path):
    rig = Rig(tmp_path, seed=5)
    start(rig)
    rig.visitor_random_move()
    nudge_all_robot_pieces(rig, 6.0)      # the magnet at a square's centre misses all of them
    rig.run_until({"visitor_turn", "game_over", "place_piece"}, limit=5000)
    assert rig.ctrl.view().state == "visitor_turn"
    plans = [r for r in rig.ctrl.journal.records if r.kind == "plan" and r.get("purpose") == "move"]
    assert plans and plans[-1].get("attempt") >= 2          # the centre again, then offsets
    assert any(t.offset_mm != (0.0, 0.0) for t in rig.gantry.carried)
    assert rig.world.square_pieces() == rig.ctrl.view().board.pieces()


def test_piece_out_of_reach_asks_a_person_then_continues(tmp_path):
    rig = Rig(tmp_path, seed=6)
    start(rig)
    rig.visitor_random_move()
    nudge_all_robot_pieces(rig, 9.5)       # beyond every retry offset, still on its square
    rig.run_until({"place_piece"}, limit=5000)
    view = rig.ctrl.view()
    assert view.message == "place_piece.missed_pickup"
    target = view.board.pieces()
    assert view.fix_squares and all(target.get(sq) == p for sq, p in view.fix_squares.items())
    rig.world.set_squares(view.fix_squares)
    rig.run_until({"visitor_turn"})
    assert rig.world.square_pieces() == rig.ctrl.view().board.pieces()


def test_power_cut_mid_move_resumes_same_position(tmp_path):
    rig = Rig(tmp_path, seed=7)
    start(rig)
    # a visitor move, then cut the power after the robot's first transfer
    rig.visitor_random_move()
    rig.run_until({"robot_moving"})
    plan = list(rig.gantry.queue[0][2])
    rig.ctrl.poll()          # one transfer carried
    moves_before = rig.ctrl.view().board.move_stack
    # power cut: the controller and the gantry's queue vanish; the table stays as it is
    rig.gantry = WorldGantry(rig.world)
    rig.ctrl = rig.make()
    view = rig.ctrl.view()
    assert view.resumed and view.state == "verify"
    assert view.board.move_stack == moves_before
    rig.run_until({"visitor_turn"})
    assert rig.ctrl.view().board.move_stack == moves_before
    assert rig.world.square_pieces() == rig.ctrl.view().board.pieces()
    kinds = [r.kind for r in read_records(rig.state_dir / "journal.jsonl")]
    # the robot's move was journalled once, before the cut; the resume finished it without a new one
    assert "resumed" in kinds and kinds.count("robot_move") == len(moves_before) // 2 == 1
    assert kinds.count("robot_move_done") == 1 and kinds.index("resumed") < kinds.index("robot_move_done")
    assert len(plan) >= 1


def test_power_cut_during_visitor_turn_sees_the_move_made_meanwhile(tmp_path):
    rig = Rig(tmp_path, seed=8)
    start(rig)
    ply = rig.ctrl.view().ply
    rig.ctrl = None          # power off
    move = rig.rng.choice(__import__("engine").Board("copenhagen").legal_moves)
    rig.world.visitor_move(move.from_sq, move.to_sq)
    rig.ctrl = rig.make()
    assert rig.ctrl.view().state == "visitor_turn"
    rig.run_until({"thinking", "robot_moving", "verify"})
    assert rig.ctrl.view().ply == ply + 1


def test_camera_unplugged_then_back(tmp_path):
    rig = Rig(tmp_path, seed=9)
    start(rig)
    rig.camera.unplugged = True
    board = rig.ctrl.view().board
    move = board.legal_moves[0]
    rig.world.visitor_move(move.from_sq, move.to_sq)
    rig.step(50)
    view = rig.ctrl.view()
    assert view.state == "visitor_turn" and not view.camera_ok
    assert view.camera_reason == "camera.no_frames"
    rig.camera.unplugged = False
    rig.run_until({"robot_moving", "verify", "visitor_turn"} - {"visitor_turn"} | {"thinking"})
    assert rig.ctrl.view().camera_ok
    assert rig.ctrl.view().board.move_stack[-1] == move or rig.ctrl.view().board.move_stack[-2] == move


def test_gantry_error_pauses_homes_and_finishes_the_move(tmp_path):
    rig = Rig(tmp_path, seed=10)
    start(rig)
    rig.gantry.fail_next = "GrblAlarm: ALARM:1 hard limit"
    rig.visitor_random_move()
    rig.run_until({"paused_error"})
    assert rig.ctrl.view().message == "gantry.error"
    rig.run_until({"visitor_turn"})
    assert rig.world.square_pieces() == rig.ctrl.view().board.pieces()
    kinds = [r.kind for r in rig.ctrl.journal.records]
    assert "gantry_error" in kinds and "homed" in kinds
