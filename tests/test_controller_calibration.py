"""The staff's gantry calibration through the controller, on the real chain below it.

Controller -> gantry thread -> GantryMover -> GrblDriver -> GRBL simulator on a
pty: the technician's correction at every reference square is a known jog, so
the fit must recover exactly that offset of the board. Refusals use the fast
fake ports (tests/kiosk_fakes.py).
"""
from __future__ import annotations

import time

import pytest

from calibration.config import Config, load_config
from engine import Side

from kiosk.calibration_session import CalibrationStatus
from kiosk.controller import GameController
from kiosk.simworld import SimWorld
from tests.kiosk_fakes import InstantEngine, ManualClock, WorldCamera, WorldGantry, real_gantry_chain

MAX_WAIT_S = 60.0        # a bound so a broken chain fails instead of hanging; not a speed check
OFFSET_MM = (2.0, -1.5)  # where the board "really" is, relative to the configured origin


def wait_step(ctrl: GameController, action: str, **kwargs) -> CalibrationStatus:
    before = ctrl.calibration_status()
    ctrl.calibration_step(action, **kwargs)
    deadline = time.monotonic() + MAX_WAIT_S
    while time.monotonic() < deadline:
        ctrl.poll()
        status = ctrl.calibration_status()
        if status is not None and status is not before:
            assert status.action == action
            return status
        assert ctrl.view().state == "idle", ctrl.view().message_args
        time.sleep(0.01)
    raise AssertionError(f"calibration step {action} did not finish")


def test_guided_gantry_calibration_recovers_a_known_offset(tmp_path):
    config = Config()
    with real_gantry_chain(tmp_path, speed_factor=40.0) as (ctrl, sim):
        refused = wait_step(ctrl, "record")
        assert refused.error and not refused.recorded
        status = wait_step(ctrl, "home")
        assert status.homed and status.error is None and status.target == "b2"
        for n in range(4):
            target = status.target
            status = wait_step(ctrl, "next")
            assert status.error is None and status.target == target
            status = wait_step(ctrl, "jog", dx_mm=OFFSET_MM[0], dy_mm=OFFSET_MM[1])
            status = wait_step(ctrl, "record")
            assert status.error is None and len(status.recorded) == n + 1
            if n == 1:
                early = wait_step(ctrl, "fit")
                assert early.error and "at least 3" in early.error
        assert status.can_fit and status.target is None
        assert status.recorded == ("b2", "j2", "j10", "b10")
        fitted = wait_step(ctrl, "fit")
        assert fitted.error is None and len(fitted.residuals_mm) == 4
        origin = config.gantry.board_origin_mm
        assert fitted.origin_mm[0] == pytest.approx(origin[0] + OFFSET_MM[0], abs=0.05)
        assert fitted.origin_mm[1] == pytest.approx(origin[1] + OFFSET_MM[1], abs=0.05)
        assert abs(fitted.rotation_deg) < 0.02 and fitted.rms_mm < 0.05
        path = tmp_path / "config.toml"
        saved = wait_step(ctrl, "save", path=str(path))
        assert saved.error is None and saved.saved_to == str(path)
        reloaded = load_config(str(path))
        assert reloaded.gantry.board_origin_mm[0] == pytest.approx(origin[0] + OFFSET_MM[0], abs=0.05)
        assert ctrl.journal.last("staff_calibration") is not None


def test_calibration_is_refused_during_a_game_and_without_a_capable_gantry(tmp_path):
    config = Config()
    clock = ManualClock()
    world = SimWorld(config, clock=clock)
    world.fill_storage("copenhagen")
    ctrl = GameController(config, WorldCamera(world, clock), WorldGantry(world), InstantEngine(0),
                          str(tmp_path / "state"), clock=clock, stable_s=0.3)
    with pytest.raises(RuntimeError, match="cannot calibrate"):
        ctrl.calibration_step("home")
    with pytest.raises(ValueError, match="unknown calibration step"):
        ctrl.calibration_step("dance")
    ctrl.start_game("copenhagen", {}, Side.ATTACKERS, "easy")
    with pytest.raises(RuntimeError, match="no calibration while setup"):
        ctrl.calibration_step("home")
