"""A simulated GRBL 1.1 controller behind a real pseudo-terminal, driving a physical table.

WHY a pty: the driver under test (and the kiosk in simulation) opens a real
serial device path with pyserial, exactly as with the USB controller, so the
byte stream, the reader thread, timeouts and a vanished port are all real.

What it models, after GRBL 1.1's documentation:
- the line protocol: banner after power-up and every reset, one `ok`/`error:N`
  per line, `ALARM:N` and `[MSG:...]` pushes, `$` commands ($$, $#, $G, $I, $N,
  $x=val, $H, $X, $J=, $C, $SLP, $RST=), real-time bytes (? ! ~ ctrl-x, jog
  cancel 0x85; override bytes are accepted and ignored);
- a 127-byte receive buffer and a 15-block planner: a motion line is answered once it is planned;
- motion timed like GRBL: per-axis max rates ($110/$111) and accelerations
  ($120/$121), junction deviation ($11), look-ahead re-planning, feed hold;
  G4 and spindle/coolant changes wait for the planner to empty;
- soft limits ($20, travel $130/$131) in the firmware's own coordinate space:
  -$130..0 on a stock build (the default), 0..$130 for an axis homing towards
  minus on a HOMING_FORCE_SET_ORIGIN build (`build="origin"`); homing ($H),
  which fails with ALARM:9 when the build homes Z first (`z_first_homing`,
  stock GRBL's cycle: an XY gantry has no Z switch); alarm lock at power-up
  ($22, and `$22=0` switches soft limits off as the firmware does);
- alarms as GRBL 1.1h gives them: `ALARM:N`, then 500 ms of silence in which a
  reset is discarded; a limit alarm then says `[MSG:Reset to continue]` and
  waits for a reset, any other alarm resets by itself; the line in flight is
  still answered `ok` before the banner; ALARM:3 for a reset in motion, none
  for a reset after a completed feed hold (`Hold:0`), which keeps the position;
- the wire in front of the 127-byte receive buffer holds what the host wrote
  (a long write is not lost while GRBL works through its lines);
- the magnet on the coolant (M8/M9) or spindle (M3 S../M5) output, following
  the configured magnet-on command, moving pieces on a `MagnetWorld`.

Fault injection (`Fault(kind, after)`, or `inject()` at run time):
`miss` (the next magnet energising catches nothing), `alarm` (hard-limit
ALARM:1 half way through a motion block), `disconnect` (the USB link drops;
`reconnect()` brings up a fresh pty as a power-cycled controller), `garble`
(an answer line arrives corrupted).
"""
from __future__ import annotations

import errno
import logging
import math
import os
import select
import threading
import time
import tty
from collections import deque
from dataclasses import dataclass
from typing import Callable

from calibration.config import Config
from robot.grbl_codes import MAX_LINE_CHARS, PLANNER_BLOCKS, RX_BUFFER_SIZE
from robot.kinematics import (AxisLimits, Block, advance, junction_speed, make_block, replan,
                               trapezoid_time)
from robot.layout import TableLayout
from robot.sim_gcode import GcodeError, clean_line, parse_block, parse_jog
from robot.table import MagnetWorld, Table

log = logging.getLogger(__name__)

VERSION = "1.1h"
BUILD_DATE = "20190830"
BANNER = f"Grbl {VERSION} ['$' for help]"
#: firmware builds: where machine coordinates live (see robot.grbl.MachineSpace)
BUILDS = ("stock", "origin")
#: report_alarm_message() in GRBL 1.1h: delay_ms(500) after every ALARM:N
ALARM_SILENCE_S = 0.5
UNLOCK_MSG = "[MSG:'$H'|'$X' to unlock]"

#: The controller's own EEPROM settings ($$) for a belt-driven XY gantry. Travel
#: ($130/$131) is taken from the kiosk configuration; the rest are firmware
#: settings of the simulated controller (a real one reports its own).
FIRMWARE_DEFAULTS: dict[int, float] = {
    0: 10, 1: 25, 2: 0, 3: 0, 4: 0, 5: 0, 6: 0, 10: 1, 11: 0.010, 12: 0.002, 13: 0,
    20: 1, 21: 0, 22: 1, 23: 3, 24: 100.0, 25: 2000.0, 26: 250, 27: 2.0, 30: 1000, 31: 0,
    32: 0, 100: 80.0, 101: 80.0, 102: 250.0, 110: 9000.0, 111: 9000.0, 112: 500.0,
    120: 600.0, 121: 600.0, 122: 10.0, 130: 800.0, 131: 560.0, 132: 0.0,
}
_INT_SETTINGS = {0, 1, 2, 3, 4, 5, 6, 10, 13, 20, 21, 22, 23, 26, 30, 31, 32}

FAULT_KINDS = ("miss", "alarm", "disconnect", "garble")
#: real-time bytes GRBL picks out of the serial stream as they arrive
_REALTIME = {0x18, ord("?"), ord("!"), ord("~")}


@dataclass
class _AlarmPhase:
    """An alarm in progress: silent until `until`, then waiting for a reset (critical) or
    resetting by itself; `in_flight`: a line was unanswered when it came."""

    code: int
    critical: bool
    until: float
    in_flight: bool
    announced: bool = False


@dataclass
class Fault:
    """Trigger `kind` on its `after`-th occasion from now (1 = the next one).

    Occasions: `miss` magnet energisings, `alarm` motion blocks started,
    `disconnect` lines received, `garble` answer lines sent.
    """

    kind: str
    after: int = 1

    def __post_init__(self) -> None:
        if self.kind not in FAULT_KINDS:
            raise ValueError(f"unknown fault {self.kind!r} (known: {', '.join(FAULT_KINDS)})")
        if self.after < 1:
            raise ValueError(f"fault {self.kind}@{self.after}: the count starts at 1")


def parse_faults(text: str) -> list[Fault]:
    """'miss@2,alarm,garble@5' -> faults; one-line ValueError for bad text."""
    faults = []
    for part in filter(None, (p.strip() for p in text.split(","))):
        kind, _, count = part.partition("@")
        try:
            after = int(count) if count else 1
        except ValueError:
            raise ValueError(f"bad fault {part!r}: expected KIND or KIND@N") from None
        faults.append(Fault(kind, after))
    return faults


class GrblSimulator:
    """GRBL 1.1 on a pty; `start()` runs it on a background thread and returns the port path."""

    def __init__(self, config: Config | None = None, *, speed_factor: float = 1.0,
                 faults: list[Fault] | tuple[Fault, ...] = (), world: MagnetWorld | None = None,
                 layout: TableLayout | None = None, settings: dict[int, float] | None = None,
                 build: str = "stock", z_first_homing: bool = False):
        if speed_factor <= 0:
            raise ValueError("speed factor must be positive")
        if build not in BUILDS:
            raise ValueError(f"unknown firmware build {build!r} (known: {', '.join(BUILDS)})")
        self.build = build
        self.z_first_homing = z_first_homing
        self.config = config or Config()
        self.layout = layout or TableLayout(self.config)
        self.world: MagnetWorld = world if world is not None else Table.in_storage(self.layout)
        self.speed_factor = speed_factor
        self.settings = dict(FIRMWARE_DEFAULTS)
        self.settings[130], self.settings[131] = self.config.gantry.travel_mm
        self.settings.update(settings or {})
        if not self.settings[22]:
            self.settings[20] = 0               # the firmware keeps no soft limits without homing
        self.magnet_output = _magnet_output(self.config.gantry.magnet_on)
        self.port = ""              # the pty's device path, once started
        self.on_disconnect: Callable[[], None] | None = None
        self.lines_received: list[str] = []          # every line, for tests and logs
        self.status_requests: list[float] = []       # wall time of every '?' (rate checks)
        self._faults: list[Fault] = list(faults)
        self._lock = threading.RLock()
        self._thread: threading.Thread | None = None
        self._running = False
        self._master: int | None = None
        self._slave: int | None = None
        self._wall0 = time.monotonic()
        self._t = 0.0
        #: firmware seconds spent moving, dwelling or homing: the reference machine's busy
        #: time, free of this process's scheduling (a simulated clock follows it)
        self.motion_s = 0.0
        self._energised = False
        self._missed = False
        self._spindle, self._spindle_s, self._flood = 0, 0.0, False
        self._pos = self._offset = (0.0, 0.0)
        self._current_block: Block | None = None
        self._wire = bytearray()                     # written by the host, not yet received
        self._in_flight = False                      # a line taken in and not yet answered
        self._alarm_phase: _AlarmPhase | None = None
        self._homing_fails = False
        self._power_up(initial=True)

    # ================================================================== life cycle
    def clock(self) -> float:
        """Simulated seconds since start (wall time times the speed factor)."""
        return (time.monotonic() - self._wall0) * self.speed_factor

    def set_speed_factor(self, speed_factor: float) -> None:
        """Run at `speed_factor` from now on; the simulated clock goes on from where it is.

        WHY: a test may need one slow stretch (a power cut landing mid-move) and
        nothing slow after it; the controller and the table stay as they are."""
        if speed_factor <= 0:
            raise ValueError("speed factor must be positive")
        with self._lock:
            now = self.clock()
            self.speed_factor = speed_factor
            self._wall0 = time.monotonic() - now / speed_factor

    def start(self) -> str:
        """Open the pty and run in a background thread; returns the device path."""
        with self._lock:
            self._open_pty()
            self._running = True
            self._thread = threading.Thread(target=self._loop, name="grbl-sim", daemon=True)
            self._thread.start()
            return self.port

    def stop(self) -> None:
        self._running = False
        if self._thread is not None:
            self._thread.join(timeout=2.0)
            self._thread = None
        self._close_pty()

    def __enter__(self) -> "GrblSimulator":
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def inject(self, kind: str, after: int = 1) -> None:
        """Arm a fault at run time (see Fault)."""
        with self._lock:
            self._faults.append(Fault(kind, after))

    def press_feed_hold(self) -> None:
        """The feed-hold button on the controller's hold pin (as `!` on the wire)."""
        with self._lock:
            self._feed_hold()

    def disconnect(self) -> None:
        """The USB link drops now: the pty disappears and the controller loses power."""
        with self._lock:
            self._drop_link()

    def reconnect(self) -> str:
        """The cable is back: a power-cycled controller on a fresh pty; returns its path."""
        with self._lock:
            if self._master is None:
                self._open_pty()
            return self.port

    @property
    def connected(self) -> bool:
        return self._master is not None

    @property
    def output_pending(self) -> bool:
        """True while GRBL has bytes it has not yet written to the port (its banner just after start)."""
        with self._lock:
            return bool(self._out)

    @property
    def machine_position(self) -> tuple[float, float]:
        """Where the carriage physically is (machine mm)."""
        with self._lock:
            return self._physical()

    @property
    def state(self) -> str:
        return self._state_text()

    # ================================================================== pty
    def _open_pty(self) -> None:
        master, slave = os.openpty()
        tty.setraw(slave)
        os.set_blocking(master, False)
        self._master, self._slave = master, slave
        self.port = os.ttyname(slave)

    def _close_pty(self) -> None:
        for fd in (self._master, self._slave):
            if fd is not None:
                try:
                    os.close(fd)
                except OSError:
                    pass
        self._master = self._slave = None

    def _drop_link(self) -> None:
        self._power_up(initial=False)         # no USB power: outputs (the magnet) drop first
        self._close_pty()
        log.warning("simulated disconnect: controller unplugged")
        if self.on_disconnect is not None:
            self.on_disconnect()

    # ================================================================== state
    def _power_up(self, initial: bool) -> None:
        """Power-on: positions read zero wherever the carriage stands; alarm-locked if homing is on."""
        phys = self._home_physical() if initial else self._physical()
        self._set_magnet_outputs(spindle=0, spindle_s=0.0, flood=False)
        self._pos = (0.0, 0.0)
        self._offset = phys                    # physical - reported
        self._state = "Alarm" if self.settings[22] else "Idle"
        self._alarm_phase = None
        self._in_flight = False
        self._wire = bytearray()
        self._reset_runtime()
        self._out = bytearray()
        self._emit("")                         # report_init_message() starts with CR LF
        self._emit(BANNER)
        if self._state == "Alarm":
            self._emit(UNLOCK_MSG)

    def _reset_runtime(self) -> None:
        self._rx = bytearray()
        self._raw_line = bytearray()
        self._planner: list[Block] = []
        self._speed = 0.0
        self._hold = False
        self._hold_done = False
        self._jog_cancel = False
        self._job: deque | None = None
        self._dwell_end: float | None = None
        self._pending_soft_alarm = False
        self._critical = False
        self._homing: tuple[tuple[float, ...], tuple[float, ...], float, float] | None = None
        self._alarm_block: Block | None = None
        self._check_mode = False
        # g-code parser modal state
        self._motion = 0.0
        self._absolute = True
        self._inches = False
        self._coord = 54.0
        self._feed = 0.0
        self._s = 0.0
        self._tool = 0
        self._g92 = (0.0, 0.0)
        self._plan_pos = self._pos
        self._wco_counter = 0
        self._ovr_counter = 1

    def _physical(self) -> tuple[float, float]:
        return (self._pos[0] + self._offset[0], self._pos[1] + self._offset[1])

    # ------------------------------------------------------------ coordinate space
    def _homes_to_minus(self, axis: int) -> bool:
        return bool((int(self.settings[23]) >> axis) & 1)

    def _axis_range(self, axis: int) -> tuple[float, float]:
        """The soft-limit range of machine coordinates (system_check_travel_limits)."""
        travel = self.settings[130 + axis]
        if self.build == "origin" and self._homes_to_minus(axis):
            return (0.0, travel)
        return (-travel, 0.0)

    def _homed_position(self, axis: int) -> float:
        """Machine coordinate set at the end of homing (limits_go_home)."""
        if self.build == "origin":
            return 0.0
        if self._homes_to_minus(axis):
            return -self.settings[130 + axis] + self.settings[27]
        return -self.settings[27]

    def _home_physical(self) -> tuple[float, float]:
        """Where homing leaves the carriage in the table's frame (0..travel): the project's
        machine frame is the soft-limit range shifted to start at 0."""
        x, y = (self._homed_position(i) - self._axis_range(i)[0] for i in (0, 1))
        return (x, y)

    def _limits(self) -> AxisLimits:
        return AxisLimits.from_settings(self.settings)

    def _state_text(self) -> str:
        if self._critical or self._state == "Alarm" or self._alarm_phase is not None:
            return "Alarm"
        if self._homing is not None:
            return "Home"
        if self._hold:
            return "Hold:0" if self._hold_done else "Hold:1"
        if self._check_mode:
            return "Check"
        if self._state == "Sleep":
            return "Sleep"
        if self._planner:
            return "Jog" if self._planner[0].jog else "Run"
        return "Idle"

    # ================================================================== main loop
    def _loop(self) -> None:
        self._t = self.clock()
        while self._running:
            with self._lock:
                master = self._master
                wait = self._next_event_wall()
            if master is None:
                time.sleep(0.01)
                with self._lock:
                    self._t = self.clock()
                continue
            try:
                ready, _, _ = select.select([master], [], [], wait)
            except (OSError, ValueError):
                continue
            data = b""
            if ready:
                try:
                    data = os.read(master, 4096)
                except BlockingIOError:
                    data = b""
                except OSError as exc:
                    if exc.errno == errno.EIO:      # nobody has the port open right now
                        time.sleep(0.005)
                    data = b""
            with self._lock:
                if self._master is None:
                    continue
                self._wire += data
                self._advance(self.clock())
                self._tick_alarm(self.clock())
                self._take_wire()
                self._run_lines()
                self._take_wire()
                self._flush()

    def _take_wire(self) -> None:
        """Move bytes from the wire into GRBL: real-time bytes at once, line bytes while the
        receive buffer has room (the rest waits on the wire, as in the USB chip and tty)."""
        while self._wire and self._master is not None:
            b = self._wire[0]
            if b not in _REALTIME and b < 0x80 and len(self._rx) >= RX_BUFFER_SIZE - 1 \
                    and self._alarm_phase is None and not self._critical:
                return
            del self._wire[0]
            self._receive(b)

    def _next_event_wall(self) -> float:
        """Wall seconds to sleep: until the motion or dwell ends (so a waiting `ok` goes out
        on time even at a high speed factor), at most 20 ms, at least 0.2 ms."""
        if self._homing is not None:
            return 0.002
        if self._wire:
            return 0.0002
        sim_wait = math.inf
        if self._alarm_phase is not None and not self._alarm_phase.announced:
            sim_wait = self._alarm_phase.until - self.clock()
        if self._dwell_end is not None:
            sim_wait = self._dwell_end - self.clock()
        elif self._planner and sim_wait == math.inf:
            sim_wait = self._time_to_empty() if not self._hold else 0.02 * self.speed_factor
        if sim_wait == math.inf:
            return 0.02
        return min(0.02, max(0.0002, sim_wait / self.speed_factor))

    def _time_to_empty(self) -> float:
        """Simulated seconds until the planner has run dry, from the planned profiles."""
        total, v = 0.0, self._speed
        for b in self._planner:
            rem = b.length - b.done
            total += trapezoid_time(rem, b.nominal, b.accel, min(v, b.nominal),
                                    min(b.exit, b.nominal))
            v = b.exit
        return total

    def _emit(self, line: str) -> None:
        self._out += line.encode("ascii") + b"\r\n"

    def _respond(self, line: str) -> None:
        """An `ok` / `error:N` answer (the garble fault corrupts one of these)."""
        self._in_flight = False
        if self._fault_due("garble"):
            self._out += b"\xfe" + line[:1].encode() + b"\x07" + line[1:].encode() + b"\r\n"
            return
        self._emit(line)

    def _flush(self) -> None:
        if not self._out or self._master is None:
            return
        try:
            n = os.write(self._master, bytes(self._out))
            del self._out[:n]
        except BlockingIOError:
            pass
        except OSError:
            self._out.clear()

    def _fault_due(self, kind: str) -> bool:
        for f in self._faults:
            if f.kind == kind:
                f.after -= 1
                if f.after <= 0:
                    self._faults.remove(f)
                    log.warning("fault injected: %s", kind)
                    return True
                return False
        return False

    # ================================================================== bytes in
    def _receive(self, b: int) -> None:
        if b == 0x18:
            self._soft_reset()
            return
        if self._critical or self._alarm_phase is not None:
            return                          # everything but reset is ignored (and forgotten)
        if b == ord("?"):
            self.status_requests.append(time.monotonic())
            del self.status_requests[:-2000]
            if self._homing is None:        # answered before anything else queued after it
                self._advance(self.clock())
                if self._alarm_phase is None:   # an alarm just now: silent for 500 ms
                    self._emit(self._status_report())
        elif b == ord("!"):
            self._feed_hold()
        elif b == ord("~"):
            self._cycle_start()
        elif b >= 0x80:
            if b == 0x85:
                self._cancel_jog()
            # 0x84 safety door (no door switch fitted), 0x90-0xA1 overrides: accepted, ignored
        elif len(self._rx) < RX_BUFFER_SIZE - 1:
            self._rx.append(b)
        else:
            log.warning("receive buffer overflow: byte %r lost", bytes([b]))

    def _feed_hold(self) -> None:
        if self._planner and not self._hold:
            if self._planner[0].jog:
                self._cancel_jog()
            else:
                self._hold, self._hold_done = True, False

    def _cycle_start(self) -> None:
        if self._hold and self._hold_done and not self._pending_soft_alarm:
            self._hold = self._hold_done = False
            replan(self._planner, 0.0)

    def _cancel_jog(self) -> None:
        if self._planner and self._planner[0].jog:
            self._hold, self._hold_done, self._jog_cancel = True, False, True

    def _soft_reset(self) -> None:
        """Ctrl-X (mc_reset): a reset in motion is ALARM:3 (ALARM:6 while homing); after a
        completed hold the carriage stands still, so no alarm and the position stays."""
        phase = self._alarm_phase
        if phase is not None:
            if phase.critical and phase.announced:
                self._finish_reset()
            return                          # in the alarm's silence a reset is discarded
        if self._critical:
            self._finish_reset()
            return
        held = self._hold and self._hold_done
        moving = (bool(self._planner) and not held) or (self._hold and not held)
        self._set_magnet_outputs(spindle=0, spindle_s=0.0, flood=False)
        if self._homing is not None:
            self._alarm(6, critical=False)
        elif moving:
            self._alarm(3, critical=False)
        else:
            self._finish_reset()

    def _tick_alarm(self, now: float) -> None:
        """End an alarm's silence: announce a critical one, reset after any other."""
        phase = self._alarm_phase
        if phase is None or phase.announced or now < phase.until:
            return
        if phase.critical:
            phase.announced = True
            self._critical = True
            self._emit("[MSG:Reset to continue]")
        else:
            self._finish_reset()

    def _finish_reset(self) -> None:
        """The firmware's re-initialisation: the line in flight is answered, then the banner."""
        phase = self._alarm_phase
        if self._in_flight or (phase is not None and phase.in_flight):
            self._respond("ok")
        if phase is not None or self._critical or self._state == "Sleep":
            self._state = "Alarm"
        self._alarm_phase = None
        self._in_flight = False
        self._set_magnet_outputs(spindle=0, spindle_s=0.0, flood=False)
        self._reset_runtime()
        self._emit("")
        self._emit(BANNER)
        if self._state == "Alarm":
            self._emit(UNLOCK_MSG)

    # ================================================================== lines
    def _blocked(self) -> bool:
        return (self._job is not None or self._critical or self._homing is not None
                or self._pending_soft_alarm or self._alarm_phase is not None)

    def _run_lines(self) -> None:
        now = self.clock()
        while True:
            if self._job is not None:
                self._step_job(now)
            if self._blocked() or not self._rx:
                return
            while self._rx and not self._blocked():
                c = self._rx.pop(0)
                if c in (0x0A, 0x0D):
                    raw = self._raw_line.decode("ascii", "replace")
                    self._raw_line = bytearray()
                    self._line(raw)
                    if self._master is None:
                        return
                    break
                self._raw_line.append(c)

    def _line(self, raw: str) -> None:
        self._in_flight = True
        line, overflow = clean_line(raw)
        self.lines_received.append(raw)
        del self.lines_received[:-500]
        if self._fault_due("disconnect"):
            self._drop_link()
            return
        if overflow or len(line) > MAX_LINE_CHARS:
            self._respond("error:11")
            return
        if not line:
            self._respond("ok")
            return
        try:
            if line.startswith("$"):
                self._system(line)
            else:
                if self._state in ("Alarm", "Sleep") or (self._planner and self._planner[0].jog):
                    raise GcodeError(9)
                self._gcode(line)
        except GcodeError as exc:
            self._respond(f"error:{exc.code}")

    # ---------------------------------------------------------------- $ commands
    def _system(self, line: str) -> None:
        idle_or_alarm = self._state_text() in ("Idle", "Alarm", "Check")
        if line == "$":
            self._emit("[HLP:$$ $# $G $I $N $x=val $Nx=line $J=line $SLP $C $X $H ~ ! ? ctrl-x]")
        elif line == "$$":
            if self._state_text().startswith(("Run", "Hold")):
                raise GcodeError(8)
            for key in sorted(self.settings):
                v = self.settings[key]
                self._emit(f"${key}={int(v)}" if key in _INT_SETTINGS else f"${key}={v:.3f}")
        elif line == "$#":
            for name in ("G54", "G55", "G56", "G57", "G58", "G59", "G28", "G30"):
                self._emit(f"[{name}:0.000,0.000,0.000]")
            self._emit(f"[G92:{self._g92[0]:.3f},{self._g92[1]:.3f},0.000]")
            self._emit("[TLO:0.000]")
            self._emit("[PRB:0.000,0.000,0.000:0]")
        elif line == "$G":
            self._emit(self._gc_state())
        elif line == "$I":
            self._emit(f"[VER:{VERSION}.{BUILD_DATE}:]")
            opts = "VZ" if self.build == "origin" else "V"      # Z: HOMING_FORCE_SET_ORIGIN
            self._emit(f"[OPT:{opts},{PLANNER_BLOCKS},{RX_BUFFER_SIZE}]")
        elif line == "$N":
            self._emit("$N0=")
            self._emit("$N1=")
        elif line == "$C":
            if self._state_text() not in ("Idle", "Check"):
                raise GcodeError(8)
            if self._check_mode:
                self._emit("[MSG:Disabled]")
                self._respond("ok")
                self._soft_reset()
                return
            self._check_mode = True
            self._emit("[MSG:Enabled]")
        elif line == "$X":
            if self._state == "Alarm":
                self._state = "Idle"
                self._emit("[MSG:Caution: Unlocked]")
        elif line == "$H":
            if not self.settings[22]:
                raise GcodeError(5)
            if not idle_or_alarm or self._check_mode:
                raise GcodeError(8)
            self._start_homing()
            return                          # answered when homing ends
        elif line == "$SLP":
            self._respond("ok")
            self._emit("[MSG:Sleeping]")
            self._set_magnet_outputs(spindle=0, spindle_s=0.0, flood=False)
            self._state = "Sleep"
            return
        elif line.startswith("$J="):
            if self._state_text() not in ("Idle", "Jog"):
                raise GcodeError(8)
            self._jog(line[3:])
            return
        elif line.startswith("$RST="):
            if line[5:] not in ("$", "#", "*"):
                raise GcodeError(3)
            if not idle_or_alarm:
                raise GcodeError(8)
            if line[5:] in ("$", "*"):
                self.settings = dict(FIRMWARE_DEFAULTS)
                self.settings[130], self.settings[131] = self.config.gantry.travel_mm
            self._emit("[MSG:Restoring defaults]")
        elif line.startswith("$N") and "=" in line:
            if not idle_or_alarm:
                raise GcodeError(8)
        elif "=" in line and line[1:line.index("=")].isdigit():
            self._set_setting(int(line[1:line.index("=")]), line[line.index("=") + 1:], idle_or_alarm)
        elif line[1:2] in ("$", "G", "C", "X", "#", "I", "N", "H", "S", "J", "R"):
            raise GcodeError(3)                 # a known command with a bad tail
        else:
            if not idle_or_alarm:
                raise GcodeError(8)
            raise GcodeError(2)                 # read as a setting number: not a number
        self._respond("ok")

    def _set_setting(self, key: int, text: str, idle_or_alarm: bool) -> None:
        if key not in self.settings:
            raise GcodeError(3)
        if not idle_or_alarm:
            raise GcodeError(8)
        try:
            value = float(text)
        except ValueError:
            raise GcodeError(2) from None
        if value < 0:
            raise GcodeError(4)
        if key == 0 and value < 3:
            raise GcodeError(6)
        if key == 20 and value and not self.settings[22]:
            raise GcodeError(10)
        self.settings[key] = value
        if key == 22 and not value:
            self.settings[20] = 0               # soft limits need homing: the firmware drops them

    def _gc_state(self) -> str:
        motion = f"G{self._motion:g}"
        dist = "G90" if self._absolute else "G91"
        units = "G20" if self._inches else "G21"
        spindle = {0: "M5", 3: "M3", 4: "M4"}[self._spindle]
        coolant = "M8" if self._flood else "M9"
        return (f"[GC:{motion} G{self._coord:g} G17 {units} {dist} G94 {spindle} {coolant} "
                f"T{self._tool} F{self._feed:g} S{self._s:g}]")

    # ---------------------------------------------------------------- g-code
    def _gcode(self, line: str) -> None:
        blk = parse_block(line)
        values = blk.values
        motion = blk.g.get("motion", self._motion)
        nonmodal = blk.g.get("nonmodal")
        axes = blk.axes
        unit = 25.4 if blk.g.get("units", 20.0 if self._inches else 21.0) == 20 else 1.0
        if "P" in values and nonmodal != 4:
            raise GcodeError(36)
        if any(k in values for k in "LIJKR"):
            raise GcodeError(36)
        if nonmodal == 4 and "P" not in values:
            raise GcodeError(28)
        if nonmodal == 53 and motion not in (0, 1):
            raise GcodeError(30)
        if motion in (2, 3, 38.2, 38.3, 38.4, 38.5) and "motion" in blk.g:
            raise GcodeError(20)                # arcs and probing: not simulated
        if "T" in values and values["T"] > 255:
            raise GcodeError(38)
        if nonmodal == 92 and not axes:
            raise GcodeError(26)
        if axes and motion == 80 and nonmodal not in (92,):
            raise GcodeError(31)
        feed = values["F"] * unit if "F" in values else self._feed
        moving = bool(axes) and nonmodal not in (92, 4)
        if moving and motion == 1 and feed <= 0:
            raise GcodeError(22)
        # modal state changes take effect at parse time, as in GRBL
        if "units" in blk.g:
            self._inches = blk.g["units"] == 20
        if "distance" in blk.g:
            self._absolute = blk.g["distance"] == 90
        if "coord" in blk.g:
            self._coord = blk.g["coord"]
        self._feed = feed
        if "S" in values:
            self._s = values["S"]
        if "T" in values:
            self._tool = int(values["T"])
        if "motion" in blk.g:
            self._motion = motion
        target = None
        if moving or nonmodal == 92:
            target = list(self._plan_pos)
            for i, axis in enumerate("XY"):
                if axis in axes:
                    v = axes[axis] * unit
                    if nonmodal == 53:
                        target[i] = v
                    elif self._absolute or nonmodal == 92:
                        target[i] = v if nonmodal == 92 else v + self._g92[i]
                    else:
                        target[i] = self._plan_pos[i] + v
            if "Z" in axes and nonmodal != 92 and abs(axes["Z"] * unit) > self.settings[132] \
                    and self.settings[20]:
                target = None
                self._soft_limit()
                return
        if nonmodal == 92 and target is not None:
            self._g92 = (self._plan_pos[0] - target[0], self._plan_pos[1] - target[1])
            self._wco_counter = 0
        if nonmodal == 92.1:
            self._g92 = (0.0, 0.0)
            self._wco_counter = 0
        if self._check_mode:
            self._respond("ok")
            return
        steps: deque = deque()
        spindle = blk.m.get("spindle")
        if spindle is not None:
            steps.append(("spindle", spindle))
        elif "S" in values and self._spindle:
            steps.append(("spindle", self._spindle))
        if "coolant" in blk.m:
            steps.append(("coolant", blk.m["coolant"] == 8))
        if nonmodal == 4:
            steps.append(("dwell", values["P"]))
        if moving and target is not None:
            if self.settings[20] and not self._within_travel(target):
                self._soft_limit()
                return
            b = make_block(self._plan_pos, (target[0], target[1]), self._limits(),
                           None if motion == 0 else feed)
            self._plan_pos = (target[0], target[1])
            if b.length > 1e-6:
                steps.append(("block", b))
        if blk.m.get("stop") in (2, 30):
            steps.append(("pgm_end", None))
        self._job = steps
        self._step_job(self.clock())

    def _within_travel(self, target: list[float] | tuple[float, float]) -> bool:
        return all(self._axis_range(i)[0] - 1e-6 <= target[i] <= self._axis_range(i)[1] + 1e-6
                   for i in (0, 1))

    def _step_job(self, now: float) -> None:
        job = self._job
        while job:
            kind, arg = job[0]
            if kind == "block":
                if len(self._planner) >= PLANNER_BLOCKS:
                    return
                self._queue_block(arg)
            else:
                if self._planner:                  # wait for the planner to empty (sync)
                    return
                if kind == "spindle":
                    self._set_magnet_outputs(spindle=arg if arg in (3, 4) else 0,
                                             spindle_s=self._s, flood=self._flood)
                elif kind == "coolant":
                    self._set_magnet_outputs(spindle=self._spindle, spindle_s=self._spindle_s,
                                             flood=arg)
                elif kind == "dwell":
                    if self._dwell_end is None:
                        self._dwell_end = now + arg
                        self.motion_s += arg
                    if now < self._dwell_end:
                        return
                    self._dwell_end = None
                elif kind == "pgm_end":
                    self._set_magnet_outputs(spindle=0, spindle_s=0.0, flood=False)
                    self._motion, self._absolute, self._coord = 1.0, True, 54.0
                    self._g92 = (0.0, 0.0)
                    self._emit("[MSG:Pgm End]")
            job.popleft()
        self._job = None
        self._respond("ok")

    def _queue_block(self, b: Block) -> None:
        limits = self._limits()
        if self._planner:
            b.max_entry = junction_speed(self._planner[-1], b, limits, self.settings[11])
        else:
            b.max_entry = 0.0 if self._speed <= 1e-9 else b.nominal
        self._planner.append(b)
        if not self._hold:
            replan(self._planner, self._speed)

    def _jog(self, text: str) -> None:
        blk = parse_jog(text)
        unit = 25.4 if blk.g.get("units", 20.0 if self._inches else 21.0) == 20 else 1.0
        absolute = blk.g.get("distance", 90.0 if self._absolute else 91.0) == 90
        start = self._planner[-1].end if self._planner else self._pos
        target = list(start)
        for i, axis in enumerate("XY"):
            if axis in blk.axes:
                v = blk.axes[axis] * unit
                if blk.g.get("nonmodal") == 53:
                    target[i] = v
                elif absolute:
                    target[i] = v + self._g92[i]
                else:
                    target[i] = start[i] + v
        if self.settings[20] and not self._within_travel(target):
            raise GcodeError(15)
        if len(self._planner) >= PLANNER_BLOCKS:
            raise GcodeError(8)
        b = make_block(start, (target[0], target[1]), self._limits(), blk.values["F"] * unit,
                       jog=True)
        if b.length > 1e-6:
            self._queue_block(b)
        self._respond("ok")

    # ---------------------------------------------------------------- alarms
    def _soft_limit(self) -> None:
        """Target beyond travel: controlled stop if moving, then ALARM:2 (critical)."""
        self._job = None
        if self._planner:
            self._hold, self._hold_done = True, False
            self._pending_soft_alarm = True
        else:
            self._alarm(2, critical=True)

    def _alarm(self, code: int, critical: bool) -> None:
        self._planner.clear()
        self._speed = 0.0
        self._hold = self._hold_done = False
        self._pending_soft_alarm = False
        self._job = None
        self._dwell_end = None
        self._homing = None
        self._plan_pos = self._pos
        self._set_magnet_outputs(spindle=0, spindle_s=0.0, flood=False)   # mc_reset
        self._state = "Alarm"
        self._emit(f"ALARM:{code}")
        self._alarm_phase = _AlarmPhase(code, critical, self.clock() + ALARM_SILENCE_S,
                                        self._in_flight)

    # ---------------------------------------------------------------- homing
    def _start_homing(self) -> None:
        seek = self.settings[25] / 60.0
        locate = self.settings[24] / 60.0
        phys = self._physical()
        if self.z_first_homing:
            # stock HOMING_CYCLE_0 is Z: no Z switch is found within 1.5 x $132 -> ALARM:9
            self._homing_fails = True
            self._homing = (phys, phys, self.clock(), 1.5 * self.settings[132] / seek + 0.001)
            return
        self._homing_fails = False
        home = self._home_physical()
        distance = max(abs(a - b) for a, b in zip(phys, home))
        duration = (distance / seek + 2 * self.settings[27] / locate
                    + 2 * self.settings[26] / 1000.0)
        self._homing = (phys, home, self.clock(), duration)

    def _advance_homing(self, now: float) -> None:
        start, home, t0, duration = self._homing   # type: ignore[misc]
        f = min(1.0, (now - t0) / duration) if duration > 0 else 1.0
        phys = tuple(a + (b - a) * f for a, b in zip(start, home))
        self._offset = (phys[0] - self._pos[0], phys[1] - self._pos[1])
        self._move_magnet()
        if f >= 1.0:
            self._homing = None
            if self._homing_fails:
                self._alarm(9, critical=False)
                return
            self._pos = (self._homed_position(0), self._homed_position(1))
            self._offset = (home[0] - self._pos[0], home[1] - self._pos[1])
            self._plan_pos = self._pos
            self._state = "Idle"
            self._respond("ok")

    # ================================================================== motion
    def _advance(self, now: float) -> None:
        dt = now - self._t
        self._t = now
        if self._homing is not None:
            self.motion_s += dt
            self._advance_homing(now)
            return
        energised = self._energised
        for _ in range(100000):
            if dt <= 1e-12 or not self._planner:
                break
            blk = self._planner[0]
            if blk is not self._current_block:
                self._current_block = blk
                if self._fault_due("alarm"):
                    self._alarm_block = blk
            # with the magnet on, move at most ~1 mm per slice so contacts are seen in time
            slice_ = min(dt, max(0.001, 1.0 / max(blk.nominal, 1e-3))) if energised else dt
            self._speed, used = advance(blk, self._speed, slice_, hold=self._hold)
            self.motion_s += used
            self._pos = blk.point(blk.done)
            if energised:
                self._move_magnet()
            if blk is self._alarm_block and blk.done >= blk.length / 2:
                self._alarm_block = None
                self._alarm(1, critical=True)
                return
            if blk.done >= blk.length - 1e-7:
                self._pos = blk.end
                self._planner.pop(0)
                if not self._hold:
                    replan(self._planner, self._speed)
                if not self._planner:
                    self._speed = 0.0
            if self._hold and self._speed <= 1e-9:
                self._speed = 0.0
                self._hold_done = True
                if self._jog_cancel or self._pending_soft_alarm or not self._planner:
                    self._planner.clear()
                    self._plan_pos = self._pos
                    self._hold = self._hold_done = self._jog_cancel = False
                    if self._pending_soft_alarm:
                        self._alarm(2, critical=True)
                break
            if used <= 0.0 and blk.done < blk.length - 1e-7:
                break
            dt -= used
        if not energised:
            self._move_magnet_quiet()

    # ================================================================== magnet
    def _set_magnet_outputs(self, spindle: int, spindle_s: float, flood: bool) -> None:
        before = self._energised
        self._spindle, self._spindle_s, self._flood = spindle, spindle_s, flood
        if self.magnet_output == "flood":
            self._energised = flood
        else:
            self._energised = spindle in (3, 4) and spindle_s > 0
        if self._energised != before:
            self._ovr_counter = 0
            x, y = self.layout.to_board(self._physical())
            if self._energised:
                if self._fault_due("miss"):
                    self._missed = True
                else:
                    self._missed = False
                    self.world.magnet_on(x, y)
            else:
                if not self._missed:
                    self.world.magnet_off()
                self._missed = False

    def _move_magnet(self) -> None:
        if self._energised and not self._missed:
            x, y = self.layout.to_board(self._physical())
            self.world.magnet_move(x, y)

    def _move_magnet_quiet(self) -> None:
        """Magnet off: nothing to drag, but a world with a `carriage_at(x, y)` method is told
        where the carriage is (board mm)."""
        mover = getattr(self.world, "carriage_at", None)
        if mover is not None:
            mover(*self.layout.to_board(self._physical()))

    # ================================================================== reports
    def _status_report(self) -> str:
        mask = int(self.settings[10])
        wco = (self._g92[0], self._g92[1], 0.0)
        if mask & 1:
            pos = f"MPos:{self._pos[0]:.3f},{self._pos[1]:.3f},0.000"
        else:
            pos = f"WPos:{self._pos[0] - wco[0]:.3f},{self._pos[1] - wco[1]:.3f},0.000"
        fields = [self._state_text(), pos]
        if mask & 2:
            fields.append(f"Bf:{PLANNER_BLOCKS - len(self._planner)},"
                          f"{RX_BUFFER_SIZE - len(self._rx)}")
        # FS: is st_get_realtime_rate(): the step generator's current vector speed, which
        # ramps with the acceleration (measured on 1.1h: FS:1830, 5123, 9148 on one G0)
        fields.append(f"FS:{self._speed * 60:.0f},{self._spindle_s if self._spindle else 0:.0f}")
        busy = self._state_text() not in ("Idle", "Alarm", "Sleep")
        wco_shown = False
        if self._wco_counter <= 0:
            fields.append(f"WCO:{wco[0]:.3f},{wco[1]:.3f},{wco[2]:.3f}")
            self._wco_counter = 29 if busy else 9
            wco_shown = True
        else:
            self._wco_counter -= 1
        if self._ovr_counter <= 0 and not wco_shown:
            fields.append("Ov:100,100,100")
            acc = ("S" if self._spindle == 3 else "C" if self._spindle == 4 else "") + \
                  ("F" if self._flood else "")
            if acc:
                fields.append(f"A:{acc}")
            self._ovr_counter = 19 if busy else 9
        elif self._ovr_counter > 0:
            self._ovr_counter -= 1
        return "<" + "|".join(fields) + ">"


def _magnet_output(magnet_on: str) -> str:
    """Which GRBL output the configured magnet-on command drives: 'flood' or 'spindle'."""
    text = magnet_on.replace(" ", "").upper()
    if "M8" in text:
        return "flood"
    if "M3" in text or "M4" in text:
        return "spindle"
    raise ValueError(f"magnet-on command {magnet_on!r} drives neither M8 nor M3/M4")


# The physical table lives in robot.table; it is re-exported here because a
# simulation's camera renderer reads it together with the simulator.
from robot.table import Collision, TablePiece  # noqa: E402

__all__ = ["GrblSimulator", "Fault", "parse_faults", "FAULT_KINDS", "FIRMWARE_DEFAULTS",
           "Table", "TablePiece", "Collision", "MagnetWorld"]
