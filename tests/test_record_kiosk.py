"""The take-home record at the kiosk: the result box's QR code, and codes held up to the camera.

The camera frames are rendered (vision/renderer.py) with the code pasted in
through the camera's own model, as tests/helpers/qr_card.py does for a card.
"""
from __future__ import annotations

import datetime as dt
from dataclasses import replace
from typing import Any

import cv2
import numpy as np
import pygame
import pytest

from calibration.config import Config
from engine import Outcome, Side
from kiosk.qr_restore import QrRestore
from kiosk.record import split_url, unpack, verify_url
from kiosk.record_signer import RecordSigner
from kiosk.rewards import RewardSession, Unlocks, make_code, qr_text
from kiosk.ui import qr
from kiosk.ui.app import KioskApp
from kiosk.ui.screenshots import StillView, game_view, idle_view
from vision.qr_read import read_qr
from tests.helpers import qr_card as card
from tests.helpers.record import game_record, random_board, real_game_texts, record_of_texts
from tests.helpers.ui import RecordingController

SECRET = "test-secret-0123456789"


def _config() -> Config:
    config = Config()
    config.kiosk.reward_secret = SECRET
    config.kiosk.kiosk_id = "hall-2"
    return config


def _signer(tmp_path, moves: list[str] | None = None, **fields) -> RecordSigner:
    signer = RecordSigner(_config(), tmp_path)
    signer.finished(record_of_texts(moves if moves is not None else real_game_texts(200), **fields))
    return signer


class _Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


class _SigningController(RecordingController):
    """The screens' test controller with the real take-home signer and a camera showing ``frame``."""

    def __init__(self, view, signer: RecordSigner, frame=None) -> None:
        super().__init__(view)
        self.signer = signer
        self.frame = frame

    def take_home_url(self, unlocks):
        return self.signer.url(unlocks)

    def restore_code(self, text):
        return self.signer.restore(text)

    def camera_snapshot(self):
        return self.frame


def _app(controller) -> Any:
    pygame.display.init()
    clock = _Clock()
    app: Any = KioskApp(controller, _config(), size=(1280, 800), clock=clock)
    app.clock_ref = clock              # the test moves the app's time
    return app


def test_the_result_box_shows_the_record_with_the_reward_just_won(tmp_path):
    signer = _signer(tmp_path, level="easy")
    view = game_view(34, state="game_over", level="easy", visitor_side=Side.DEFENDERS,
                     outcome=Outcome(Side.DEFENDERS, "king_escaped"))
    app = _app(_SigningController(view, signer))
    app.navigate("game")
    app.step([])
    path = tmp_path / "result.png"
    pygame.image.save(app.surface, str(path))
    found = read_qr(cv2.imread(str(path)))     # the product's reader: plain OpenCV misses ~1 in 30 of these
    text = found.text if found is not None else ""
    assert text.startswith(_config().kiosk.record_url + "#")
    verdict = verify_url(text, [signer.key().public_bytes])
    assert verdict.valid and verdict.record.kiosk_id == "hall-2"
    assert verdict.record.unlocks == Unlocks(colours=True)         # the win the screen just recorded
    assert len(verdict.record.moves) == 200
    # the code is big enough for a phone: at least 4 px (0.68 mm on the 10.1" panel) a module
    box = app.screens["game"].record_qr.matrix
    assert box is not None and len(box) == qr.make(text).symbol_size(border=0)[0]
    assert app.ctx.controller.calls == []


def test_a_touch_shows_the_code_large_on_the_7_inch_panel(tmp_path):
    from tests.helpers.ui import find_button

    def touch(pos):                    # handed to the step itself: no shared pygame queue in between
        return [pygame.event.Event(kind, pos=tuple(map(int, pos)), button=1)
                for kind in (pygame.MOUSEBUTTONDOWN, pygame.MOUSEBUTTONUP)]

    signer = _signer(tmp_path)
    view = game_view(34, state="game_over", outcome=Outcome(Side.ATTACKERS, "king_captured"))
    pygame.display.init()
    app = KioskApp(_SigningController(view, signer), _config(), size=(800, 480), clock=_Clock())
    app.navigate("game")
    app.step([])
    small = find_button(app, "take_home").rect
    app.step(touch(small.center))
    assert app.screens["game"].qr_large
    image = pygame.surfarray.array3d(app.surface).swapaxes(0, 1)[:, :, ::-1].copy()
    # read as the kiosk's own camera path reads a code (vision/qr_read.py: OpenCV's two detectors, then the
    # straightened and sharpened code): the key and the record's date differ per run, and so does the pattern
    reading = read_qr(image)
    assert reading is not None, "the large code is not readable"
    assert verify_url(reading.text, [signer.key().public_bytes]).valid
    modules = len(app.screens["game"].record_qr.matrix)              # the corners found: no quiet zone
    # 4 px a module (0.76 mm on 7"); the detectors put a corner on the outermost pixel or on its edge,
    # so the span found is the drawn width or one pixel less (340 or 339 px for 85 modules)
    assert np.ptp(reading.corners[:, 0]) + 1 >= 4 * modules
    app.step(touch((5, 5)))                                              # a touch anywhere closes it
    assert not app.screens["game"].qr_large


def test_no_record_no_qr_on_the_result_box(tmp_path):
    view = game_view(34, state="game_over", outcome=Outcome(Side.ATTACKERS, "king_captured"))
    app = _app(StillView(view))
    app.navigate("game")
    app.step([])
    assert app.screens["game"].record_qr.matrix is None
    assert cv2.QRCodeDetector().detectAndDecode(pygame.surfarray.array3d(app.surface).swapaxes(0, 1))[0] == ""


def test_the_controller_signs_the_game_it_logged(tmp_path):
    from tests.helpers.rig import Rig

    rig = Rig(tmp_path)
    rig.ctrl.start_game("copenhagen", {}, Side.DEFENDERS, "medium")
    rig.run_until({"visitor_turn"})
    assert rig.ctrl.take_home_url(Unlocks()) is None                # no game has ended yet
    rig.visitor_random_move()
    rig.run_until({"visitor_turn"})
    rig.ctrl.resign()
    rig.run_until({"game_over"})
    url = rig.ctrl.take_home_url(Unlocks(shaded=True))
    record = verify_url(url, [rig.ctrl.records.key().public_bytes]).record
    assert record is not None and record.result == "robot" and record.reason == "resigned"
    assert len(record.moves) == len(rig.ctrl.view().board.move_stack) == 3
    assert record.unlocks == Unlocks(shaded=True)
    assert (rig.state_dir / "record-key.pem").exists()


def _frame_with(payload: str, card_mm: float, held_mm: float, seed: int):
    """A rendered camera frame with ``payload`` as the kiosk draws QR codes, on a card held under the camera."""
    old = card.qr_image, card.CARD_MM, card.HELD_MM

    def as_kiosk_draws(text, module_px=8):
        image = np.pad(np.where(np.array(qr.encode(text), bool), 0, 255).astype(np.uint8), 4, constant_values=255)
        return cv2.resize(image, None, fx=module_px, fy=module_px, interpolation=cv2.INTER_NEAREST)

    card.qr_image, card.CARD_MM, card.HELD_MM = as_kiosk_draws, card_mm, held_mm
    try:
        centre = card.render_frame({}, seed=seed, condition="museum").camera.center
        frame, _ = card.frame_with_card(payload, (centre[0], centre[1]), 20.0, seed)
    finally:
        card.qr_image, card.CARD_MM, card.HELD_MM = old
    return frame


def _look(restore: QrRestore, now: float = 0.0):
    assert restore.poll(now, watching=True) is None                # the look starts in its own thread
    restore.wait()
    return restore.poll(now + 0.01, watching=True)


def test_a_reward_code_shown_to_the_camera_gives_its_unlocks_back(tmp_path):
    signer = RecordSigner(_config(), tmp_path)
    code = qr_text(make_code(Unlocks(colours=True, shaded=True), SECRET))
    frame = _frame_with(code, 100.0, 250.0, seed=1)                 # a phone or card held up, as for any code
    assert _look(QrRestore(lambda: frame, signer.restore)) == Unlocks(colours=True, shaded=True)
    forged = qr_text(make_code(Unlocks(crown=True), "another-kiosk-secret-00"))
    assert _look(QrRestore(lambda: _frame_with(forged, 100.0, 250.0, seed=2), signer.restore)) is None


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_the_game_record_shown_to_the_camera_gives_its_unlocks_back(tmp_path, seed):
    # version 17 (85 modules) gets about 5 px a module in the camera's 1280 x 720 frame from a 15 cm
    # code (a tablet, a print, a phone's photo zoomed in) held about 30 cm under the camera
    signer = _signer(tmp_path)
    url = signer.url(Unlocks(colours=True, crown=True))
    frame = _frame_with(url, 150.0, 450.0, seed=seed)
    assert _look(QrRestore(lambda: frame, signer.restore)) == Unlocks(colours=True, crown=True)


def test_foreign_changed_and_expired_records_give_nothing(tmp_path):
    signer = _signer(tmp_path, moves=real_game_texts(30))
    url = signer.url(Unlocks(crown=True))
    assert signer.restore(url, today=dt.date(2026, 12, 2)) == Unlocks(crown=True)
    assert signer.restore(url, today=dt.date(2026, 12, 1) + dt.timedelta(days=366)) is None   # reward_valid_days
    other = _signer(tmp_path / "other", moves=real_game_texts(30)).url(Unlocks(crown=True))
    assert signer.restore(other, today=dt.date(2026, 12, 2)) is None                      # another kiosk's key
    signer.config.kiosk.record_keys = (RecordSigner(_config(), tmp_path / "other").key().public_text,)
    assert signer.restore(other, today=dt.date(2026, 12, 2)) == Unlocks(crown=True)       # ...unless trusted
    body, _ = split_url(url)
    assert unpack(body).unlocks == Unlocks(crown=True)
    assert signer.restore("https://example.org/some/other/code") is None
    assert signer.url(Unlocks()) != url                                 # the unlocks are signed in


def test_the_start_screens_restore_a_code_held_to_the_camera(tmp_path):
    signer = _signer(tmp_path, moves=real_game_texts(40))
    frame = _frame_with(signer.url(Unlocks(colours=True, crown=True)), 150.0, 450.0, seed=1)
    controller = _SigningController(idle_view(), signer, frame=None)
    app = _app(controller)
    app.step([])
    assert app.screen_name == "attract" and app.ctx.rewards.unlocks == Unlocks()
    controller.frame = frame                                           # the visitor holds up the code
    app.clock_ref.now += 2.0
    app.step([])
    app.qr_restore.wait()
    app.clock_ref.now += 0.05
    app.step([])
    assert app.ctx.rewards.unlocks == Unlocks(colours=True, crown=True)
    assert app.screen_name == "start"                                  # somebody is there
    assert app.restored_until > app.clock_ref.now
    # during a game the camera is not searched for codes
    app.ctx.rewards = RewardSession()
    app.navigate("game")
    app.clock_ref.now += 5.0
    app.step([])
    assert app.qr_restore._worker is None or not app.qr_restore._worker.is_alive()
    assert app.ctx.rewards.unlocks == Unlocks()


def test_a_record_game_of_every_variant_is_signed(tmp_path):
    signer = RecordSigner(_config(), tmp_path)
    for variant in ("york", "tablut", "tawlbwrdd"):
        board = random_board(variant, 4, plies=80)
        signer.finished(game_record(board))
        verdict = verify_url(signer.url(Unlocks()), [signer.key().public_bytes])
        assert verdict.valid and verdict.record.variant == variant
    signer.finished(replace(game_record(random_board("york", 1, plies=4)), moves=["a1-a2"]))
    assert signer.url(Unlocks()) is None                               # unreplayable: no QR, no crash
