"""A board the camera refuses for glare alone in every picture does not stop the kiosk for good.

The refusals of an unchanged picture are no sign of life (a hand moves; light the reader takes for a
hand stays all day), after HANDS_OFF_ASK_S the visitor is asked whether a hand is over the board,
and their "nothing is over it" has the still picture read (vision/reader.BoardReader.hands_off).
First through the real parts (the camera thread, the vision reader, BoardWatch) on the held-out
renderer's refused picture (tests/test_vision_hands_off.py); then the whole controller.
"""
from __future__ import annotations

import random

import numpy as np

from calibration.config import Config
from kiosk.autoplay import SimVisitor, VisitorStyle
from kiosk.board_watch import HANDS_OFF_ASK_S, SURE_HAND_ASK_S, BoardWatch
from kiosk.camera_thread import CameraThread, Frame
from kiosk.ports import CameraReading
from kiosk.vision_adapter import VisionFrameReader
from tests.helpers.fakes import ManualClock, OnePictureFeed
from tests.helpers.rig import visitor_turn
from tests.test_controller_glint_refusals import GlintCamera
from tests.test_vision_refusal_in_a_still_picture import _exposure, _scene
from vision.localise import NotReadable


class StillPicture(OnePictureFeed):
    """A FrameFeed whose camera sees one picture all day (a new frame of it when asked for one)."""

    def __init__(self, image: np.ndarray, clock: ManualClock) -> None:
        super().__init__(image)
        self.clock = clock
        self.fresh = True

    def grab(self) -> Frame:
        fresh, self.fresh = self.fresh, False
        return Frame(self.clock(), self.image, repeat=not fresh)

    def refresh(self) -> None:
        self.fresh = True


def test_the_real_reader_refusing_a_still_picture_asks_and_reads_it_on_the_visitor_s_word():
    clock = ManualClock()
    reader = VisionFrameReader(Config(), _scene()[0].board, learn=False)
    camera = CameraThread(StillPicture(_exposure(0), clock), reader, clock=clock, threaded=False)
    watch = BoardWatch(camera, 0.3, clock)

    def tick(seconds: float) -> None:
        clock.now += seconds
        camera.step()
        watch.update()

    tick(0.1)
    assert not watch.camera_ok and watch.camera_reason == "hand over board"
    first = watch.last_sign_of_life
    asked_at = None
    for _ in range(60):                                # 6 s of the same refused picture
        tick(0.1)
        camera.refresh()                               # a genuinely new frame each time (new sensor read)
        if asked_at is None and watch.asks_hands_off:
            asked_at = clock.now
    assert watch.last_sign_of_life == first            # no visitor there: the attendance timer runs
    assert asked_at is not None and asked_at - first >= HANDS_OFF_ASK_S - 0.15
    assert watch.still() is None
    watch.hands_off()
    assert not watch.asks_hands_off
    for _ in range(5):
        tick(0.1)
        assert watch.camera_ok
        watch.still()                                  # (asks the camera for another picture when one is missing)
    event = watch.still()
    assert event is not None and event.frames >= 2


def test_a_picture_the_reader_is_sure_is_a_hand_is_asked_about_only_once_it_has_stood_still_for_long():
    """A refusal the reader is sure of (here an arm held perfectly still, standing for whatever the reader
    wrongly takes for a hand all day: a hard-light museum day, seed 15, waited in the robot's verify until
    three games were lost) is asked about after SURE_HAND_ASK_S, not HANDS_OFF_ASK_S; the visitor's word
    reads that very picture."""
    clock = ManualClock()
    reader = VisionFrameReader(Config(), _scene()[0].board, learn=False)
    camera = CameraThread(StillPicture(_exposure(0, arm=True), clock), reader, clock=clock, threaded=False)
    watch = BoardWatch(camera, 0.3, clock)
    asked_at = None
    start = clock.now
    for _ in range(int(SURE_HAND_ASK_S / 0.5) + 4):
        clock.now += 0.5
        camera.refresh()
        camera.step()
        watch.update()
        if asked_at is None and watch.asks_hands_off:
            asked_at = clock.now
    assert watch.camera_reason == "hand over board"
    assert asked_at is not None and asked_at - start >= SURE_HAND_ASK_S > HANDS_OFF_ASK_S
    watch.hands_off()
    for _ in range(8):
        clock.now += 0.1
        camera.step()
        watch.update()
        watch.still()                                  # (asks the camera for another picture when one is missing)
    assert watch.camera_ok and watch.still() is not None


class GlareCamera(GlintCamera):
    """Reads the world exactly until `glare` is switched on; then every picture of the board is refused
    as "hand over board" for glare alone (as vision's reader says of a veil's clipped streak) until the
    visitor says no hand is over it, for as long as the picture stays as it was then."""

    glare = False

    def __init__(self, world, clock) -> None:
        super().__init__(world, clock)
        self.vouched_for: dict | None = None
        self.calls = 0

    def hands_off(self) -> None:
        self.calls += 1
        self.vouched_for = dict(self.world.square_pieces())

    def _refused(self) -> bool:
        if self.vouched_for is not None and self.vouched_for != self.world.square_pieces():
            self.vouched_for = None
        return self.glare and self.vouched_for is None

    def read_latest(self) -> CameraReading | None:
        reading = super().read_latest()
        if reading is not None and not reading.ok and isinstance(reading.raw, NotReadable) \
                and not self.world.hand_over_board():
            reading.raw.glare_only = True
        return reading


def test_the_kiosk_asks_and_takes_the_visitor_s_move_once_told_no_hand_is_over_the_board(tmp_path):
    rig = visitor_turn(tmp_path, GlareCamera, seed=4)
    rig.camera.glare = True
    board = rig.ctrl.view().board
    move = board.legal_moves[0]
    rig.world.visitor_move(move.from_sq, move.to_sq)
    rig.step(40)                                       # the hand goes; the light stays
    view = rig.ctrl.view()
    assert view.state == "visitor_turn" and view.ply == 0 and not view.camera_ok
    assert not view.asks_hands_off
    quiet = rig.ctrl.watch.last_sign_of_life
    while rig.clock.now - quiet < HANDS_OFF_ASK_S + 0.5:
        rig.step()
    view = rig.ctrl.view()
    assert view.asks_hands_off and view.ply == 0
    assert rig.ctrl.watch.last_sign_of_life == quiet   # a picture that stands still is nobody there
    rig.ctrl.hands_off()
    assert rig.camera.calls == 1
    for _ in range(200):
        rig.step()
        if rig.ctrl.view().ply >= 1:
            break
    assert rig.ctrl.view().board.move_stack[0] == move
    # the robot's reply changes the picture: the light that stays is asked about again, and the
    # visitor's word has the robot's move checked as the camera sees it
    for _ in range(400):
        rig.step()
        if rig.ctrl.view().asks_hands_off:
            rig.ctrl.hands_off()
        if rig.ctrl.view().state == "visitor_turn":
            break
    assert rig.ctrl.view().state == "visitor_turn" and rig.ctrl.view().ply == 2
    assert rig.camera.calls == 2


def test_the_simulated_visitor_says_no_hand_is_over_the_board_when_asked_as_a_person_does(tmp_path):
    """The simulation's visitors (kiosk/autoplay.answer_hands_off) answer the question a person at the
    kiosk would: before, a museum day in a light the reader refuses for glare alone waited for good."""
    rig = visitor_turn(tmp_path, GlareCamera, seed=4)
    assert isinstance(rig.camera, GlareCamera)
    rig.camera.glare = True
    visitor = SimVisitor(rig.world, random.Random(1), VisitorStyle(illegal_rate=0.0, forget_capture_rate=0.0),
                         say_hands_off=rig.ctrl.hands_off)
    said = []
    for _ in range(600):
        rig.step()
        done = visitor.act(rig.ctrl.view(), rig.clock.now)
        if done == "said no hand is over the board":
            assert not rig.world.hand_over_board()
            said.append(rig.clock.now)
        if rig.ctrl.view().ply >= 2:
            break
    assert rig.ctrl.view().ply >= 2, rig.ctrl.view()        # the visitor's move taken, the robot's checked
    assert said and rig.camera.calls == len(said)
