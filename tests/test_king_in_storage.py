"""A king the camera only guesses is a defender while the robot has the king parked (kiosk/reconcile.king_in_storage).

Found on a museum day (`tafl-kiosk --simulate --headless --visitors 12 --seed 4242 --faults all`): the robot
captured the king and parked him in his slot; at the reset the reader, which takes a board to hold its king,
named a defender on j10 the king, and the reset carried that defender to the throne, left the king in his
slot and booked two kings. The next game started with a defender on the throne (a desync), and the next
power cut found the ledger "damaged" and asked staff for storage.
"""
from __future__ import annotations

from dataclasses import replace

from engine import Piece, parse_square

from kiosk.ports import Slot
from kiosk.reconcile import king_in_storage
from tests.helpers.fakes import WorldCamera
from tests.helpers.rig import visitor_turn

J10, F6 = parse_square("j10", 11), parse_square("f6", 11)
KING_SLOT = Slot("defenders", 0)


def test_a_guessed_king_is_a_defender_while_the_king_is_parked():
    observed = {J10: Piece.KING, F6: Piece.ATTACKER}
    board, stale = king_in_storage(observed, {J10: 0.55, F6: 0.0}, {KING_SLOT: Piece.KING}, 0.9)
    assert board == {J10: Piece.DEFENDER, F6: Piece.ATTACKER}
    assert stale == []


def test_a_king_the_camera_is_sure_of_unbooks_his_slot():
    observed = {J10: Piece.KING}
    board, stale = king_in_storage(observed, {J10: 0.97}, {KING_SLOT: Piece.KING}, 0.9)
    assert board == observed
    assert stale == [KING_SLOT]


def test_with_the_king_not_in_storage_the_cameras_board_stands():
    observed = {J10: Piece.KING}
    board, stale = king_in_storage(observed, {J10: 0.55}, {Slot("defenders", 3): Piece.DEFENDER}, 0.9)
    assert board == observed and stale == []


class KingGuessingCamera(WorldCamera):
    """Reads the world as the reader does when the king is off the board: it names a light piece the king
    (here the defender on the lowest square), never surely (0.55)."""

    def read_latest(self):
        reading = super().read_latest()
        if not reading.ok or Piece.KING in reading.squares or Piece.DEFENDER not in reading.squares:
            return reading
        squares, confidence = list(reading.squares), list(reading.confidence)
        guess = squares.index(Piece.DEFENDER)
        squares[guess], confidence[guess] = Piece.KING, 0.55
        return replace(reading, squares=tuple(squares), confidence=tuple(confidence))


def test_the_reset_takes_the_parked_king_from_his_slot_not_a_defender_the_camera_guessed(tmp_path):
    rig = visitor_turn(tmp_path, camera_cls=KingGuessingCamera)
    ledger = rig.gantry.ledger
    # the robot captured the king and parked him in his slot (as its park step books it)
    king = rig.world.take_from_square(F6)
    assert king == Piece.KING
    rig.world.put_on(KING_SLOT, king)
    ledger.apply(F6, KING_SLOT, Piece.KING.value)
    rig.ctrl.end_game()
    for _ in range(3000):
        rig.step()
        if not rig.ctrl.view().resetting:
            break
    assert not rig.ctrl.view().resetting
    start = dict(rig.ctrl.session.start_position())
    assert rig.world.square_pieces() == start, "the board is the start position, the king on his throne"
    assert KING_SLOT not in rig.world.storage_pieces()
    assert sum(p == Piece.KING.value for p in ledger.places.values()) == 1
