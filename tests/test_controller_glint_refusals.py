"""A camera that refuses the still board now and then as "hand over board" (a veil's glint in one noisy
picture, tests/test_vision_refusal_in_a_still_picture.py) does not stop the game: the refused picture is
the still board's, so the still run goes on and the visitor's moves are taken; nor is it a sign of life.
A real hand changes the picture and is still a hand."""
from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from engine import Piece
from kiosk.board_watch import BoardWatch
from kiosk.ports import CameraReading
from tests.helpers.fakes import ManualClock, WorldCamera
from tests.helpers.rig import Rig, visitor_turn
from vision.localise import NotReadable

PX = 16                                           # a square's side in the drawn rectified picture
GREY = {None: 190.0, Piece.ATTACKER: 60.0, Piece.DEFENDER: 235.0, Piece.KING: 245.0}
CLASS = {None: 0, Piece.ATTACKER: 1, Piece.DEFENDER: 2, Piece.KING: 3}     # vision.position.SquareClass


class GlintCamera(WorldCamera):
    """Reads the world exactly, with a drawn rectified picture of it (sensor noise included); every
    `every`-th picture is refused as "hand over board" with that same picture. A hand over the board
    is refused with the hand drawn in."""

    every = 2

    def __init__(self, world, clock) -> None:
        super().__init__(world, clock)
        self.rng = np.random.default_rng(5)

    def _picture(self, hand: bool) -> np.ndarray:
        n = self.world.size
        squares = self.world.square_pieces()
        grey = np.array([GREY[squares.get(i)] for i in range(n * n)])
        picture = np.kron(grey.reshape(n, n), np.ones((PX, PX))) + self.rng.normal(0.0, 2.0, (n * PX, n * PX))
        if hand:
            picture[n * PX // 2:, n * PX // 3: n * PX // 2] = 250.0      # a pale arm in from the near edge
        return np.clip(picture, 0, 255).astype(np.uint8)

    def _refused(self) -> bool:
        return self.seq % self.every == 0

    def read_latest(self) -> CameraReading | None:
        reading = super().read_latest()
        if reading is None or reading.reason == "camera.no_frames":
            return reading
        hand = not reading.ok
        picture = self._picture(hand)
        if hand or self._refused():
            return CameraReading(reading.seq, reading.t, False, "hand over board",
                                 raw=NotReadable("hand over board", picture))
        probs = np.full((len(reading.squares), 4), 0.01)
        for sq, piece in enumerate(reading.squares):
            probs[sq, CLASS[piece]] = 0.97
        return CameraReading(reading.seq, reading.t, True, None, reading.squares, reading.confidence,
                             raw=SimpleNamespace(probabilities=probs, rectified=picture))


def test_moves_are_taken_while_the_still_board_is_refused_every_other_picture(tmp_path):
    rig = visitor_turn(tmp_path, GlintCamera, seed=4)
    for ply in (1, 3):
        rig.visitor_random_move()
        rig.run_until({"visitor_turn"})
        assert rig.ctrl.view().ply == ply + 1


def test_a_glint_is_no_sign_of_life_and_a_hand_still_is(tmp_path):
    clock = ManualClock()
    rig = Rig(tmp_path)
    camera = GlintCamera(rig.world, clock)
    watch = BoardWatch(camera, 0.3, clock)
    start = clock.now
    for _ in range(3):                                 # the board comes into view and is still
        clock.now += 0.1
        watch.update()
    quiet = watch.last_sign_of_life
    for _ in range(20):                                # refused every other picture: the board stays seen
        clock.now += 0.1
        watch.update()
        assert watch.camera_ok and watch.reading is not None
    assert watch.last_sign_of_life == quiet
    assert watch.still() is not None and watch.still().since < start + 0.5
    rig.world.show_hand(100.0, 100.0, seconds=5.0)     # a visitor's arm over the board
    clock.now += 0.1
    watch.update()
    assert not watch.camera_ok and watch.camera_reason == "hand over board"
    assert watch.last_sign_of_life > quiet
    assert watch.still() is None


class MostlyRefusedCamera(GlintCamera):
    """Refuses two pictures of three, each the same still picture (a hand held still, read now and then)."""

    def _refused(self) -> bool:
        return self.seq % 3 != 0


def test_a_still_picture_refused_more_often_than_read_is_no_still_board(tmp_path):
    clock = ManualClock()
    rig = Rig(tmp_path)
    watch = BoardWatch(MostlyRefusedCamera(rig.world, clock), 0.3, clock)
    for _ in range(30):
        clock.now += 0.1
        watch.update()
    assert watch.still() is None
