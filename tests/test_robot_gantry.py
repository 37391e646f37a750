"""The gantry through the real stack: driver -> pty -> simulated GRBL -> simulated table."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from calibration.config import Config
from robot.gantry import RobotError
from robot.layout import KING_SLOT, Slot, start_position
from robot.ledger import LEDGER_FILE, Ledger, LedgerError, ledger_path
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
    assert rig.table is not None, "a rig on a simulated table"
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
        r = _run(base + ["setup", "copenhagen"])
        assert r.returncode == 0
        assert len([ln for ln in r.stdout.splitlines() if ln.startswith("setup ")]) == 37
        r = _run(base + ["move", "d1", "d3"])      # the ledger carried the set-up over
        assert r.returncode == 0 and "d1 -> d3" in r.stdout
        r = _run(base + ["jog", "5", "0"])
        assert r.returncode == 0 and "machine" in r.stdout
        r = _run(base + ["move", "z1", "d3"])
        assert r.returncode == 2 and "bad place 'z1'" in r.stderr
        r = _run(base + ["setup", "tablut"])           # refused before touching the machine
        assert r.returncode == 2 and "9x9" in r.stderr
        r = _run(base + ["clear"])
        assert r.returncode == 0
        r = _run(["-m", "robot.cli", "--state", str(tmp_path), "ledger"])
        assert "attackers in storage: 24/24" in r.stdout
        data = json.loads(ledger_path(tmp_path, "board-11").read_text())   # the kiosk's file too
        assert data["pending"] is None and data["steps_done"] == 37 + 1 + 37
    finally:
        sim.terminate()
        sim.wait(timeout=10)
    assert "collision" not in sim.stderr.read()


def test_moves_ignore_a_stray_work_offset(tmp_path):
    with rig_with(tmp_path, {"c3": "t"}) as rig:
        lay = rig.layout
        rig.gantry.start()
        x, y = rig.driver.to_firmware(50, 50)      # stock GRBL: machine space -$130..0
        rig.driver.send(f"G0X{x:.3f}Y{y:.3f}")
        rig.driver.send("G92X0Y0")                 # someone left a work offset behind
        rig.gantry.move(lay.parse("c3"), lay.parse("c6"))
        assert rig.table.square_pieces() == {lay.parse("c6"): "t"}


def test_leftover_feed_hold_is_cleared_on_start(tmp_path):
    with rig_with(tmp_path, {"c3": "t"}) as rig:
        rig.gantry.start()
        rig.driver.close()
        import serial                              # another program holds the motion
        raw = serial.serial_for_url(rig.port, timeout=1)
        raw.write(b"G1X-100Y-60F1000\n")          # stock GRBL's machine space is -$130..0
        assert raw.readline().strip() == b"ok"
        raw.write(b"!")
        raw.close()
        again = rig.new_driver()
        again.connect()
        rig.gantry.driver = rig.driver = again
        assert again.status().state == "Hold"
        rig.gantry.start()
        assert again.status().state == "Idle"
        rig.gantry.move(rig.layout.parse("c3"), rig.layout.parse("c4"))
        assert table_agrees(rig)


def _start_sim(*extra):
    env = dict(os.environ, PYTHONPATH=str(REPO))
    proc = subprocess.Popen([sys.executable, "-m", "robot.sim_cli", "--speed-factor", "300", *extra],
                            cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    return proc, proc.stdout.readline().strip()


def test_interrupted_step_is_recovered_by_the_next_command(tmp_path):
    sim, port = _start_sim("--faults", "alarm@2")     # the first drag hits a hard limit
    try:
        base = ["-m", "robot.cli", "--port", port, "--state", str(tmp_path)]
        r = _run(base + ["setup", "copenhagen"])
        assert r.returncode == 1 and "ALARM:1" in r.stderr and "hard limit" in r.stderr
        r = _run(["-m", "robot.cli", "--state", str(tmp_path), "ledger"])
        pending = r.stdout.split("interrupted step pending: ")[1].strip()   # e.g. setup att-12 -> e1
        assert pending.startswith("setup ")
        r = _run(base + ["setup", "copenhagen"])
        assert r.returncode == 0, r.stderr
        assert f"recovered interrupted {pending}" in r.stdout
        done = [ln for ln in r.stdout.splitlines() if ln.startswith("setup ")]
        assert len(done) == 36                               # that piece was already done
        data = json.loads(ledger_path(tmp_path, "board-11").read_text())
        assert data["pending"] is None
    finally:
        sim.terminate()
        sim.wait(timeout=10)
    assert "collision" not in sim.stderr.read()


def test_simulator_replug_keeps_the_linked_port_name(tmp_path):
    link = tmp_path / "tafl-gantry"
    sim, port = _start_sim("--faults", "disconnect@9", "--link", str(link))
    try:
        assert os.path.realpath(link) == port
        base = ["-m", "robot.cli", "--port", str(link), "--state", str(tmp_path)]
        assert _run(base + ["status"]).returncode == 0          # lines 1-2: $I, $$
        # lines 3-8: $I, $$, M9, $H, G21G90G94, M9; line 9, the jog, never arrives
        r = _run(base + ["jog", "5", "5"])
        assert r.returncode == 1 and "vanished" in r.stderr
        assert sim.stdout.readline().strip() == "disconnected"
        assert sim.stdout.readline().startswith("reconnected: /dev/")
        r = _run(base + ["status"])                             # same name, new pty
        assert r.returncode == 0 and ": Alarm" in r.stdout      # a power-cycled controller
    finally:
        sim.terminate()
        sim.wait(timeout=10)
    assert not link.exists()


def test_setup_with_a_variant_option_and_abort(tmp_path):
    import threading
    from robot.layout import start_position as start
    with SimRig(Config(), speed_factor=FAST) as rig:
        lewis = start("tawlbwrdd", {"layout": "lewis"})
        assert lewis != start("tawlbwrdd")
        rig.gantry.setup("tawlbwrdd", {"layout": "lewis"})
        assert rig.table.square_pieces() == lewis and table_agrees(rig)
        # abort from another thread while a piece is being dragged: stops, magnet off,
        # the step stays pending
        def abort_mid_drag():
            while rig.table.holding is None:
                pass
            rig.gantry.abort()

        aborter = threading.Thread(target=abort_mid_drag)
        aborter.start()
        with pytest.raises(RobotError):
            rig.gantry.clear()
        aborter.join()
        assert rig.table.magnet[2] is False
        assert rig.ledger.pending is not None
        rig.gantry.recover()
        rig.gantry.clear()
        assert rig.table.square_pieces() == {} and table_agrees(rig)


def test_table_reports_a_collision_when_a_bad_path_is_driven(tmp_path):
    from robot.planner import Step
    with rig_with(tmp_path, {"a1": "t", "c1": "T"}) as rig:
        lay = rig.layout
        a1, c1, e1 = lay.parse("a1"), lay.parse("c1"), lay.parse("e1")
        bad = Step(a1, e1, "t", "move", (lay.position(a1), lay.position(e1)))  # through c1
        rig.gantry.run_step(bad)
        assert len(rig.table.collisions) == 1
        hit = rig.table.collisions[0]
        assert "touched" in str(hit)
        pushed = next(p for p in rig.table.snapshot() if p.id == hit.other)
        assert pushed.piece == "T" and (pushed.x, pushed.y) != lay.position(c1)   # shoved along
