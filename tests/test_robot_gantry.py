"""The gantry through the real stack: driver -> pty -> simulated GRBL -> simulated table."""
from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from pathlib import Path

import pytest

from calibration.config import Config
from robot.gantry import RobotError
from robot.layout import KING_SLOT, Slot, start_position
from robot.ledger import LEDGER_FILE, Ledger, LedgerError
from robot.simrig import SimRig

REPO = Path(__file__).resolve().parents[1]
FAST = 300.0


def with_pieces(layout, squares: dict[str, str]) -> dict:
    """Storage full except for pieces moved onto the named squares."""
    places = dict(layout.storage_start())
    for name, piece in squares.items():
        side = "attackers" if piece == "t" else "defenders"
        slot = next(s for s in reversed(layout.slots(side)) if places.get(s) == piece)
        del places[slot]
        places[layout.parse(name)] = piece
    return places


def rig_with(tmp_path, squares: dict[str, str], **kw) -> SimRig:
    from robot.layout import TableLayout
    layout = TableLayout(Config())
    return SimRig(Config(), speed_factor=kw.pop("speed", FAST), state_dir=tmp_path,
                  places=with_pieces(layout, squares), **kw)


def table_agrees(rig: SimRig) -> bool:
    """What the robot believes (ledger) is what stands on the table."""
    return rig.table.occupancy(tolerance=0.5) == rig.ledger.places


def test_full_setup_and_clearing(tmp_path):
    with SimRig(Config(), speed_factor=FAST, state_dir=tmp_path) as rig:
        rig.gantry.start()
        steps = rig.gantry.setup("copenhagen")
        assert len(steps) == 37
        assert rig.table.square_pieces() == start_position("copenhagen")
        assert table_agrees(rig)
        assert rig.table.collisions == []
        saved = Ledger.load(tmp_path / LEDGER_FILE)
        assert saved.board() == start_position("copenhagen") and saved.pending is None
        rig.gantry.clear()
        assert rig.table.square_pieces() == {}
        assert table_agrees(rig) and rig.table.collisions == []
        assert rig.table.storage_pieces()[KING_SLOT] == "K"


def test_move_with_multi_capture_parking(tmp_path):
    squares = {"d4": "t", "e3": "T", "e5": "T", "f4": "T", "e6": "t", "d3": "t", "f3": "t"}
    with rig_with(tmp_path, squares) as rig:
        lay = rig.layout
        caps = [lay.parse(n) for n in ("e3", "e5", "f4")]
        steps = rig.gantry.move(lay.parse("d4"), lay.parse("e4"), caps)
        assert [s.kind for s in steps] == ["move", "park", "park", "park"]
        board = rig.table.square_pieces()
        assert board == {lay.parse(n): "t" for n in ("e4", "e6", "d3", "f3")}
        assert table_agrees(rig) and rig.table.collisions == []
        assert all(rig.ledger.places[s.dst] == "T" for s in steps[1:])


def test_alarm_mid_drag_then_recovery_sweeps_the_piece_home(tmp_path):
    with rig_with(tmp_path, {"c3": "t", "e5": "T"}) as rig:
        lay = rig.layout
        rig.gantry.start()
        rig.sim.inject("alarm", after=2)           # block 1: travel, block 2: the drag
        with pytest.raises(RobotError) as err:
            rig.gantry.move(lay.parse("c3"), lay.parse("c9"))
        assert "ALARM:1" in str(err.value) and "hard limit" in str(err.value)
        assert rig.table.magnet[2] is False        # magnet off after the alarm
        x, y = next((p.x, p.y) for p in rig.table.snapshot() if p.piece == "t"
                    and lay.location_at((p.x, p.y), 0.5) not in rig.ledger.places)
        assert x == pytest.approx(100.0) and 120 < y < 340   # dropped half way along c-file
        saved = Ledger.load(tmp_path / LEDGER_FILE)
        assert saved.pending is not None            # the interrupted step was on disk first
        assert rig.ledger.places[lay.parse("c3")] == "t"
        step = rig.gantry.recover()
        assert step is not None and lay.name(step.dst) == "c9"
        assert rig.table.square_pieces()[lay.parse("c9")] == "t"
        assert table_agrees(rig) and rig.ledger.pending is None


def test_disconnect_mid_step_then_replug_and_recover(tmp_path):
    with rig_with(tmp_path, {"h2": "T"}) as rig:
        lay = rig.layout
        rig.gantry.start()
        rig.sim.inject("disconnect", after=4)      # during the drag's lines
        with pytest.raises(RobotError) as err:
            rig.gantry.park(lay.parse("h2"))
        assert "vanished" in str(err.value)
        assert rig.table.magnet[2] is False        # unplugged controller: no power, no magnet
        rig.driver.close()
        rig.replug()
        rig.gantry.start()                          # power-cycled: alarm-locked, so it homes
        rig.gantry.recover()
        assert lay.parse("h2") not in rig.table.square_pieces()
        assert table_agrees(rig) and rig.ledger.pending is None


def test_garbled_answer_mid_step_is_safe_and_recoverable(tmp_path):
    with rig_with(tmp_path, {"b2": "t"}) as rig:
        lay = rig.layout
        rig.gantry.start()
        rig.sim.inject("garble", after=4)
        with pytest.raises(RobotError) as err:
            rig.gantry.move(lay.parse("b2"), lay.parse("b8"))
        assert "garbled" in str(err.value)
        assert rig.table.magnet[2] is False
        rig.gantry.recover()
        assert rig.table.square_pieces() == {lay.parse("b8"): "t"}
        assert table_agrees(rig)


def test_missed_pickup_is_retried_when_verified(tmp_path):
    with rig_with(tmp_path, {"g7": "T"}) as rig:
        lay = rig.layout

        def arrived(step):
            return rig.table.occupancy(tolerance=0.5).get(step.dst) == step.piece

        rig.gantry.verify = arrived
        rig.sim.inject("miss")
        rig.gantry.move(lay.parse("g7"), lay.parse("g10"))
        assert rig.table.square_pieces() == {lay.parse("g10"): "T"}
        assert table_agrees(rig)


def test_missed_pickup_without_verifier_shows_as_disagreement(tmp_path):
    with rig_with(tmp_path, {"g7": "T"}) as rig:
        lay = rig.layout
        rig.sim.inject("miss")
        rig.gantry.move(lay.parse("g7"), lay.parse("g10"))
        assert rig.table.square_pieces() == {lay.parse("g7"): "T"}   # the piece stayed
        assert not table_agrees(rig)                                 # the camera must catch it


def test_magnet_on_the_spindle_output(tmp_path):
    cfg = Config()
    cfg.gantry.magnet_on, cfg.gantry.magnet_off = "M3 S1000", "M5"
    from robot.layout import TableLayout
    places = with_pieces(TableLayout(cfg), {"a5": "t"})
    with SimRig(cfg, speed_factor=FAST, places=places) as rig:
        lay = rig.layout
        rig.gantry.move(lay.parse("a5"), lay.parse("a8"))
        assert rig.table.square_pieces() == {lay.parse("a8"): "t"}


def test_ledger_is_atomic_and_checked(tmp_path):
    from robot.layout import TableLayout
    lay = TableLayout(Config())
    ledger = Ledger.in_storage(lay)
    path = tmp_path / "state" / LEDGER_FILE
    ledger.save(path)
    ledger.apply(Slot("attackers", 0), lay.parse("d1"), "t")
    ledger.save(path)
    assert [p.name for p in path.parent.iterdir()] == [LEDGER_FILE]   # no temp file left
    again = Ledger.load_or_new(path, lay)
    assert again.places == ledger.places and again.steps_done == 1
    with pytest.raises(LedgerError):
        ledger.apply(lay.parse("e5"), lay.parse("e6"), "t")          # nothing on e5
    path.write_text("{not json")
    with pytest.raises(LedgerError) as err:
        Ledger.load(path)
    assert "bad JSON" in str(err.value)
    other = Config()
    other.board = "board-9"
    ledger.save(path)
    with pytest.raises(LedgerError) as err2:
        Ledger.load_or_new(path, TableLayout(other))
    assert "configured board is board-9" in str(err2.value)


def _run(args, **kw):
    env = dict(os.environ, PYTHONPATH=str(REPO))
    return subprocess.run([sys.executable, *args], cwd=REPO, env=env, capture_output=True,
                          text=True, timeout=120, **kw)


def test_command_line_against_the_simulator_process(tmp_path):
    env = dict(os.environ, PYTHONPATH=str(REPO))
    sim = subprocess.Popen([sys.executable, "-m", "robot.sim_cli", "--speed-factor", "300"],
                           cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           text=True)
    try:
        port = sim.stdout.readline().strip()
        assert port.startswith("/dev/")
        base = ["-m", "robot.cli", "--port", port, "--state", str(tmp_path)]
        r = _run(base + ["status"])
        assert r.returncode == 0 and "Alarm" in r.stdout
        assert _run(base + ["home"]).stdout.strip() == "homed"
        r = _run(base + ["park", "f6"])
        assert r.returncode == 1 and "no piece on f6" in r.stderr
        r = _run(base + ["setup", "copenhagen"])
        assert r.returncode == 0 and r.stdout.count("setup") == 37
        r = _run(base + ["move", "d1", "d3"])      # the ledger carried the set-up over
        assert r.returncode == 0 and "d1 -> d3" in r.stdout
        r = _run(base + ["jog", "5", "0"])
        assert r.returncode == 0 and "machine" in r.stdout
        r = _run(base + ["move", "z1", "d3"])
        assert r.returncode == 2 and "bad place 'z1'" in r.stderr
        r = _run(base + ["setup", "tablut"])
        assert r.returncode == 1 and "9x9" in r.stderr
        r = _run(base + ["clear"])
        assert r.returncode == 0
        r = _run(["-m", "robot.cli", "--state", str(tmp_path), "ledger"])
        assert "attackers in storage: 24/24" in r.stdout
        data = json.loads((tmp_path / LEDGER_FILE).read_text())
        assert data["pending"] is None and data["steps_done"] == 37 + 1 + 37
    finally:
        sim.terminate()
        sim.wait(timeout=10)
    assert "collision" not in sim.stderr.read()
