"""A GRBL 1.1 driver over pyserial: send-response streaming with a reader thread.

WHY a reader thread: GRBL pushes messages at any time (status reports, alarms,
`[MSG:...]`, the banner after a reset) between the `ok`/`error:N` answers to
our lines. One thread reads every byte and sorts each line into "the answer to
the line in flight" or "a push message", so a command waiting for its `ok`
sees an alarm at once instead of timing out.

Send-response streaming (one line in flight) keeps the protocol exact: every
`ok` belongs to the one line we sent. Our plans are a handful of lines per
piece, and the lines that matter (magnet switching, dwells) make GRBL empty
its planner anyway, so character counting would not shorten a move.

`ok` only means a motion was *planned*. `sync()` sends `G4 P0.01`, which GRBL
answers only once every queued motion has finished; `wait_idle()` does the
same by polling status reports.

The driver never leaves the magnet on by itself: `make_safe()` soft-resets the
controller (GRBL switches spindle and coolant off on reset) and then sends the
configured magnet-off line; callers run it on every error path. A reset of a
travelling carriage loses the position (ALARM:3), so `make_safe()` first holds
(`!`) and resets only once GRBL reports the hold complete (`Hold:0`): real
GRBL 1.1h then stays Idle and keeps its position.

Facts of the real firmware (gnea/grbl 1.1h) this driver is built on:
- the port is opened exclusively: a second program on it would read our
  answers (and we its), so it is refused with a clear message;
- after `ALARM:N` GRBL waits 500 ms before anything else (`[MSG:Reset to
  continue]` for a limit alarm) and discards a reset received in that window,
  so the driver waits for the message (or 0.6 s) and retries the reset; the
  line in flight is still answered with `ok` after the alarm, so one answer is
  expected and swallowed until the next banner;
- while a stream runs, status is polled at most 5 Hz (the interface notes'
  advice), so a feed hold, an alarm or a stopped controller is seen within a
  second and the magnet is switched off;
- stock firmware keeps machine coordinates in -$130..0, a build with
  HOMING_FORCE_SET_ORIGIN ('Z' in `$I`'s OPT) in 0..$130 (or -$130..0 for an
  axis homing towards plus); the driver reads which from `$I` and `$$` and
  speaks the project's machine frame (0..travel) to its callers;
- a status report that is not finite, lies outside the travel or predates an
  alarm is never believed, and an alarm makes the position unknown until the
  machine is homed or unlocked.
"""
from __future__ import annotations

import logging
import re
import threading
import time
from dataclasses import dataclass, field
from typing import Callable

import serial

from calibration.config import GantryConfig
from robot.grbl_codes import (MAX_LINE_CHARS, RT_CYCLE_START, RT_FEED_HOLD, RT_JOG_CANCEL,
                              RT_SOFT_RESET, RT_STATUS, alarm_meaning, error_meaning)
from robot.grbl_reports import MachineSpace, Status, floats, parse_status

try:                                   # a vanished tty fails tcdrain() with termios.error
    from termios import error as _TermiosError
except ImportError:                    # pragma: no cover - not POSIX
    class _TermiosError(Exception):  # type: ignore[no-redef]
        pass

#: what pyserial lets through when the port goes away under it (a programming error,
#: TypeError or AttributeError, is not one of them: it must not look like a pulled cable)
PORT_ERRORS = (serial.SerialException, OSError, _TermiosError)

__all__ = ["GrblDriver", "GrblError", "GrblCommandError", "GrblAlarm", "GrblHold", "GrblTimeout",
           "GrblDisconnected", "GrblPortBusy", "GrblProtocolError", "GrblPositionUnknown",
           "GrblReset", "LineTooLong", "MachineSpace", "Status", "parse_status", "PORT_ERRORS"]

log = logging.getLogger(__name__)

BANNER_RE = re.compile(r"^Grbl (\d+\.\d+[a-z]?) \['\$' for help\]$")
SETTING_RE = re.compile(r"^\$(N?\d+)=(.*)$")
#: GRBL's interface notes advise status requests at no more than 5 Hz
STATUS_POLL_S = 0.2
#: after ALARM:N the firmware is silent for 500 ms and discards a reset sent meanwhile
ALARM_SILENCE_S = 0.6
#: alarms that lock GRBL until a reset ("[MSG:Reset to continue]"); the others reset by themselves
CRITICAL_ALARMS = (1, 2)


class GrblError(Exception):
    """Anything that went wrong talking to the controller."""


class GrblCommandError(GrblError):
    """The controller refused a line with `error:N`."""

    def __init__(self, code: int, line: str):
        self.code, self.line = code, line
        super().__init__(f"GRBL error:{code} for {line!r}: {error_meaning(code)}")


class GrblAlarm(GrblError):
    """The controller entered an alarm (`ALARM:N`); motion stopped."""

    def __init__(self, code: int, line: str | None = None):
        self.code, self.line = code, line
        during = f" while running {line!r}" if line else ""
        hint = ""
        if code == 9:
            hint = (" (on an XY gantry this is stock GRBL's homing cycle, which homes Z first: "
                    "build the firmware with HOMING_CYCLE_0 = X and Y, see docs/install.md)")
        super().__init__(f"GRBL ALARM:{code}{during}: {alarm_meaning(code)}{hint}")


class GrblHold(GrblError):
    """A feed hold (`Hold`) was reported while a stream ran: somebody pressed hold."""


class GrblTimeout(GrblError):
    """No answer in time (a busy controller, a wrong port, a lost line)."""


class GrblDisconnected(GrblError):
    """The serial port went away or could not be opened."""


class GrblPortBusy(GrblDisconnected):
    """Another program holds the port: two drivers on one controller read each other's answers."""


class GrblProtocolError(GrblError):
    """Bytes from the controller that are not GRBL 1.1 (noise, wrong baud rate, another device)."""


class GrblPositionUnknown(GrblError):
    """The controller's position is not to be believed (alarm, power cycle): home or unlock."""


class GrblReset(GrblError):
    """The controller reset (banner seen) while a line was waiting for its answer."""


class LineTooLong(GrblError, ValueError):
    """A line GRBL would refuse with error:11; refused before sending."""


def _printable(data: bytes) -> bool:
    return all(0x20 <= b < 0x7F for b in data)


def _dwell_seconds(line: str) -> float:
    """P of a `G4 P..` line (0 for any other line): how long GRBL may stay Idle on it."""
    m = re.fullmatch(r"G0*4P(\d+\.?\d*|\.\d+)", line.upper().replace(" ", ""))
    return float(m.group(1)) if m else 0.0


@dataclass
class _Pending:
    """The one line in flight and what came back for it."""

    line: str
    done: threading.Event = field(default_factory=threading.Event)
    info: list[str] = field(default_factory=list)
    error: GrblError | None = None


class GrblDriver:
    """One GRBL 1.1 controller on a serial port, pty or pyserial URL."""

    # The defaults are the configuration's (docs/hardware.md); callers pass config.gantry's values.
    def __init__(self, port: str, *, baudrate: int = GantryConfig.baudrate,
                 response_timeout: float = GantryConfig.response_timeout_s,
                 motion_timeout: float = GantryConfig.motion_timeout_s, banner_timeout: float = 2.5,
                 magnet_off: str = GantryConfig.magnet_off, on_push: Callable[[str], None] | None = None):
        self.port = port
        self.baudrate = baudrate
        self.response_timeout = response_timeout
        self.motion_timeout = motion_timeout
        self.banner_timeout = banner_timeout
        self.magnet_off_line = magnet_off
        self.on_push = on_push
        self.version: str | None = None
        self.options: str | None = None              # $I's OPT letters (build options)
        self.firmware_settings: dict[int, float] = {}  # the last `$$` read
        self.space: MachineSpace | None = None
        self.alarm: int | None = None               # last ALARM:N, until homed or unlocked
        self.critical = False                        # a limit alarm: only a reset is heard
        self.position_known = False                  # True once homed, unlocked or found live
        self.interruptions = 0                       # banners and alarms seen so far
        self._out_of_step = False                    # a line timed out: its answer is unaccounted
        self._stray_answers = 0                      # answers owed to lines an alarm already failed
        self.wco: tuple[float, ...] | None = None    # last work coordinate offset reported
        self.messages: list[str] = []                # recent push messages, newest last
        self.garbled: list[bytes] = []               # lines that were not GRBL 1.1
        self._serial: serial.SerialBase | None = None
        self._reader: threading.Thread | None = None
        self._closing = False
        self._dead: GrblError | None = None
        self._send_lock = threading.Lock()           # one line in flight
        self._write_lock = threading.Lock()          # lines and real-time bytes interleave safely
        self._state_lock = threading.Lock()
        self._cond = threading.Condition()           # a report, a banner or an alarm arrived
        self._pending: _Pending | None = None
        self._status_seq = 0                         # status reports received
        self._banner_seq = 0                         # banners received
        self._alarm_seq = 0                          # alarms received
        self._last_status: Status | None = None
        self._last_status_at = 0.0
        self._alarm_at: float | None = None          # monotonic time of the last ALARM:N
        self._alarm_banner_seq = 0                   # banners seen when it came
        self._reset_msg = False                      # "[MSG:Reset to continue]" since the alarm
        self._reset_requested = False                # the next banner answers our own Ctrl-X
        self._sent_since_banner = False
        self._polled_at = 0.0                        # when the watch last sent '?'

    # ------------------------------------------------------------------ connection
    def connect(self) -> str:
        """Open the port (exclusively) and make sure a GRBL 1.1 answers; returns the version."""
        try:
            self._serial = serial.serial_for_url(self.port, baudrate=self.baudrate, timeout=0.05,
                                                 write_timeout=self.response_timeout,
                                                 exclusive=True)
        except (serial.SerialException, OSError, ValueError) as exc:
            if "exclusive" in str(exc).lower() or "temporarily unavailable" in str(exc).lower():
                raise GrblPortBusy(
                    f"gantry port {self.port!r} is in use by another program: the kiosk and "
                    "tafl-robot share one gantry, so use the running kiosk's staff screen, or stop "
                    "the kiosk first (systemctl stop tafl-kiosk)") from None
            raise GrblDisconnected(f"cannot open gantry port {self.port!r}: {exc}") from None
        self._closing = False
        self._dead = None
        self._reader = threading.Thread(target=self._read_loop, name=f"grbl-reader {self.port}",
                                        daemon=True)
        self._reader.start()
        try:
            self._handshake()
            self._learn_firmware()
        except GrblError:
            self._abandon()
            raise
        log.info("GRBL %s on %s (%s build)", self.version, self.port,
                 self.space.build if self.space else "unknown")
        return self.version or ""

    def _handshake(self) -> None:
        # An Arduino resets when the port opens and then prints its banner; a controller
        # that stayed powered (a pty, a socket, a board without auto-reset) says nothing.
        # A status request after a moment tells a live GRBL apart without resetting it;
        # only if neither comes is it soft-reset.
        banners = self._banner_seq
        if self._wait_for(lambda: self._banner_seq > banners, min(0.3, self.banner_timeout)):
            return                               # fresh from a reset: position unknown
        st = self._probe(self.banner_timeout)
        if st is not None:
            # a live controller: its position is as good as it says, unless it is alarm-locked
            self.position_known = st.state not in ("Alarm",)
        elif self._banner_seq == banners:
            self.soft_reset()
        self._check_alive()

    def _learn_firmware(self) -> None:
        """Version, build options and settings: which coordinate space the firmware keeps."""
        st = self._last_status
        if st is not None and st.state not in ("Idle", "Alarm", "Check"):
            return                               # busy: `$I`/`$$` would wait or be refused
        try:
            for line in self.send("$I"):
                m = re.match(r"^\[VER:(\d+\.\d+[a-z]?)", line)
                if m:
                    self.version = m.group(1)
                if line.startswith("[OPT:"):
                    self.options = line[5:-1].split(",")[0]
            self.settings()
        except GrblCommandError as exc:
            log.warning("cannot read the firmware's build and settings yet: %s", exc)

    def _abandon(self) -> None:
        """Close the port without talking to the device (it is not a usable GRBL)."""
        self._closing = True
        if self._reader is not None and self._reader is not threading.current_thread():
            self._reader.join(timeout=1.0)
        try:
            if self._serial is not None:
                self._serial.close()
        except PORT_ERRORS:
            pass
        self._serial = None
        with self._cond:
            self._cond.notify_all()

    def _probe(self, timeout: float) -> Status | None:
        """The status report answering a '?' within `timeout` (None if none, or a banner came)."""
        seq, banners = self._status_seq, self._banner_seq
        self.realtime(RT_STATUS)
        self._wait_for(lambda: self._status_seq > seq or self._banner_seq > banners, timeout)
        self._check_alive()
        return self._last_status if self._status_seq > seq else None

    def drop_connection(self) -> None:
        """Simulate or handle a power cut: close the port without the goodbye.

        Unlike `close()` nothing is sent (no magnet-off, no reset): the device
        is gone or must be treated as gone. Safe to call from another thread.
        """
        self._abandon()

    def close(self) -> None:
        """Switch the magnet off (final safety) and close the port."""
        if self._serial is None:
            return
        if self._dead is None:
            try:
                st = self.status(timeout=min(1.0, self.response_timeout))
                if st.state in ("Idle", "Check"):
                    self.magnet_off()
                elif st.state != "Alarm":      # entering the alarm already killed the outputs
                    # moving or held: a magnet-off line would wait for the motion
                    self.make_safe()
            except GrblError as exc:
                log.warning("magnet-off on close failed (%s); resetting the controller", exc)
                try:
                    self.realtime(RT_SOFT_RESET)
                except GrblError:
                    pass
        self._abandon()

    def __enter__(self) -> "GrblDriver":
        self.connect()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def connected(self) -> bool:
        return self._serial is not None and self._dead is None

    # ------------------------------------------------------------------ reading
    def _read_loop(self) -> None:
        buf = b""
        ser = self._serial
        while not self._closing and ser is not None:
            try:
                data = ser.read(ser.in_waiting or 1)
            except PORT_ERRORS as exc:
                if not self._closing:
                    self._fail_all(GrblDisconnected(f"gantry port {self.port!r} vanished: {exc}"))
                return
            except (TypeError, AttributeError):
                if self._closing or not ser.is_open:   # closed under us by drop_connection()
                    return
                raise
            if not data:
                continue
            buf += data
            while b"\n" in buf:
                raw, buf = buf.split(b"\n", 1)
                raw = raw.rstrip(b"\r")
                if raw:
                    self._dispatch(raw)
            if len(buf) > 512:      # no line end in sight: not GRBL at this baud rate
                self._garbled(buf)
                buf = b""

    def _notify(self) -> None:
        with self._cond:
            self._cond.notify_all()

    def _wait_for(self, predicate: Callable[[], bool], timeout: float) -> bool:
        """Wait until `predicate()` (checked on every report, banner and alarm) or timeout."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while not predicate():
                left = deadline - time.monotonic()
                if left <= 0 or self._dead is not None or self._serial is None:
                    return predicate()
                self._cond.wait(min(left, 0.05))
        return True

    def _dispatch(self, raw: bytes) -> None:
        if not _printable(raw):
            self._garbled(raw)
            return
        line = raw.decode("ascii")
        if line == "ok":
            self._answer(None)
        elif line.startswith("error:") and line[6:].isdigit() and len(line) < 10:
            pending = self._pending
            self._answer(GrblCommandError(int(line[6:]), pending.line if pending else "?"),
                         raw=line)
        elif line.startswith("<") and line.endswith(">"):
            try:
                status = parse_status(line)
            except ValueError:
                self._garbled(raw)
                return
            with self._cond:
                if status.wco is not None:
                    self.wco = status.wco
                self._last_status = status
                self._last_status_at = time.monotonic()
                self._status_seq += 1
                self._cond.notify_all()
        elif line.startswith("ALARM:") and line[6:].isdigit() and len(line) < 10:
            self._on_alarm(int(line[6:]), line)
        elif banner := BANNER_RE.match(line):
            self._on_banner(line, banner.group(1))
        elif line.startswith("[") and line.endswith("]"):
            if line.startswith("[MSG:"):
                if line == "[MSG:Reset to continue]":
                    self.critical = True      # GRBL now ignores everything but a reset
                    self._reset_msg = True
                elif line == "[MSG:'$H'|'$X' to unlock]":
                    self.position_known = False
                self._push(line)
                self._notify()
            pending = self._pending
            if pending is not None:
                pending.info.append(line)
        elif SETTING_RE.match(line):
            pending = self._pending
            if pending is not None:
                pending.info.append(line)
        elif line.startswith(">") and (":ok" in line or ":error:" in line):
            self._push(line)          # a start-up line ran; its ':ok' is not a stream answer
        else:
            self._garbled(raw)

    def _on_alarm(self, code: int, line: str) -> None:
        with self._cond:
            self.alarm = code
            self.position_known = False
            self.critical = self.critical or code in CRITICAL_ALARMS
            self._alarm_at = time.monotonic()
            self._alarm_banner_seq = self._banner_seq
            self._reset_msg = False
            self._alarm_seq += 1
            self.interruptions += 1
            self._cond.notify_all()
        self._push(line)
        pending = self._pending
        if pending is not None:
            # GRBL still answers the line in flight (after its reset); that answer is owed
            self._stray_answers += 1
        self._answer(GrblAlarm(code, pending.line if pending else None), only_if_pending=True)

    def _on_banner(self, line: str, version: str) -> None:
        with self._cond:
            self.version = version
            self.wco = None
            self.critical = False
            self._out_of_step = False         # a reset empties GRBL's buffers: in step again
            self._stray_answers = 0
            self._sent_since_banner = False
            if not self._reset_requested:
                # not our Ctrl-X: a power cycle, a hard reset, another program's reset
                self.position_known = False
            self._reset_requested = False
            self._banner_seq += 1
            self.interruptions += 1
            self._cond.notify_all()
        self._push(line)
        self._answer(GrblReset(f"controller reset while waiting for an answer "
                               f"(banner {line!r})"), only_if_pending=True)

    def _push(self, line: str) -> None:
        self.messages.append(line)
        del self.messages[:-50]
        if self.on_push is not None:
            try:
                self.on_push(line)
            except Exception:           # a display callback must not kill the reader
                log.exception("on_push callback failed")

    def _answer(self, error: GrblError | None, only_if_pending: bool = False,
                raw: str = "ok") -> None:
        with self._state_lock:
            pending = self._pending
            if pending is None:
                if only_if_pending:
                    return
                if self._stray_answers > 0:
                    self._stray_answers -= 1
                    log.info("the answer GRBL owed the line an alarm interrupted came: %s", raw)
                else:
                    log.warning("unexpected %r with no line in flight (the answer to a line "
                                "already given up on)", raw)
                return
            pending.error = error
            self._pending = None
        pending.done.set()

    def _garbled(self, raw: bytes) -> None:
        """A line that is not GRBL 1.1. A corrupted push message (inside <...> or [...]) is
        dropped; anything else may have been the answer we wait for, so that line fails."""
        self.garbled.append(raw)
        del self.garbled[:-50]
        log.warning("garbled bytes from the controller: %r", raw[:200])
        enveloped = raw[:1] in (b"<", b"[") and raw[-1:] in (b">", b"]")
        if not enveloped:
            pending = self._pending
            line = pending.line if pending else ""
            self._answer(GrblProtocolError(
                f"garbled bytes from the controller instead of the answer to {line!r}: "
                f"{raw[:80]!r}"), only_if_pending=True)

    def _fail_all(self, error: GrblError) -> None:
        self._dead = error
        log.error("%s", error)
        self._answer(error, only_if_pending=True)
        self._notify()

    def _check_alive(self) -> None:
        if self._serial is None:
            raise GrblDisconnected(f"gantry port {self.port!r} is not open")
        if self._dead is not None:
            raise self._dead

    # ------------------------------------------------------------------ writing
    def _write(self, data: bytes) -> None:
        self._check_alive()
        ser = self._serial
        if ser is None:
            raise GrblDisconnected(f"gantry port {self.port!r} is not open")
        try:
            with self._write_lock:
                ser.write(data)
                ser.flush()
        except PORT_ERRORS as exc:
            error = GrblDisconnected(f"gantry port {self.port!r} vanished while writing: {exc}")
            self._fail_all(error)
            raise error from None

    def realtime(self, byte: bytes) -> None:
        """Send one real-time command byte (GRBL acts on it at once, even mid-stream)."""
        if len(byte) != 1:
            raise ValueError("a real-time command is exactly one byte")
        self._write(byte)

    @staticmethod
    def check_line(line: str) -> str:
        """The line as it will be sent; raises LineTooLong / ValueError for lines GRBL would
        refuse or misread (real-time characters inside a line act at once)."""
        if "\n" in line or "\r" in line:
            raise ValueError(f"one line at a time, not {line!r}")
        if not line.isascii() or not _printable(line.encode("ascii")) \
                or any(c in line for c in "?!~"):
            raise ValueError(f"line {line!r} contains real-time or non-ASCII characters")
        significant = len(line.replace(" ", ""))
        if significant > MAX_LINE_CHARS:
            raise LineTooLong(f"line of {significant} characters exceeds GRBL's limit of "
                              f"{MAX_LINE_CHARS}: {line[:30]!r}...")
        return line

    def send(self, line: str, timeout: float | None = None, watch: bool = False) -> list[str]:
        """Send one line and wait for its `ok`; returns the info lines that came with it.

        With `watch`, status is polled at STATUS_POLL_S while the answer is awaited, so a
        feed hold (GrblHold), an alarm or a controller that stopped (GrblTimeout) ends the
        wait within a second instead of at `timeout`.

        Raises GrblCommandError (error:N), GrblAlarm, GrblHold, GrblTimeout,
        GrblDisconnected, GrblProtocolError or GrblReset.
        """
        self.check_line(line)
        timeout = self.response_timeout if timeout is None else timeout
        with self._send_lock:
            self._check_alive()
            if self.critical:
                raise GrblAlarm(self.alarm or 0, line)
            if self._out_of_step:
                raise GrblProtocolError(f"not sending {line!r}: an earlier line was left "
                                        "unanswered, so answers may be out of step; "
                                        "soft_reset() first")
            pending = _Pending(line)
            with self._state_lock:
                self._pending = pending
            try:
                self._sent_since_banner = True
                self._write(line.encode("ascii") + b"\n")
            except GrblError:
                with self._state_lock:
                    self._pending = None
                raise
            try:
                if watch:
                    self._watch(pending, timeout)
                elif not pending.done.wait(timeout):
                    raise GrblTimeout(f"no answer from GRBL to {line!r} within {timeout:g} s")
            except GrblError:
                with self._state_lock:
                    if self._pending is pending:
                        self._pending = None
                        # its 'ok' may still come and would be taken for the next line's
                        self._out_of_step = True
                raise
            if pending.error is not None:
                raise pending.error
            return pending.info

    def _watch(self, pending: _Pending, timeout: float) -> None:
        """Wait for the pending line's answer, polling status at <= 5 Hz meanwhile."""
        start = time.monotonic()
        deadline = start + timeout
        idle_allowed = _dwell_seconds(pending.line) + 1.0
        idle_since: float | None = None
        heard_at = start                         # the last report (or the start)
        seq = self._status_seq
        self._poll_status()
        while not pending.done.wait(STATUS_POLL_S / 4):
            now = time.monotonic()
            self._check_alive()
            if now > deadline:
                raise GrblTimeout(f"no answer from GRBL to {pending.line!r} within {timeout:g} s")
            if self._status_seq > seq:
                seq, heard_at = self._status_seq, now
                st = self._last_status
                assert st is not None
                if st.state in ("Hold", "Door", "Sleep"):
                    raise GrblHold(f"feed hold ({st.raw.split('|')[0][1:]}) while running "
                                   f"{pending.line!r}: the stream is stopped")
                if st.state == "Idle" and st.planner_free in (None, 15):
                    idle_since = idle_since or now
                    if now - idle_since > idle_allowed:
                        raise GrblTimeout(f"GRBL is idle but never answered {pending.line!r}: "
                                          "the line or its answer was lost")
                else:
                    idle_since = None
            elif now - heard_at > 1.0 and not self.critical:
                raise GrblTimeout(f"GRBL stopped answering status requests while running "
                                  f"{pending.line!r}")
            self._poll_status()

    def _poll_status(self) -> None:
        """A '?' unless one went out less than STATUS_POLL_S ago (GRBL's advised <= 5 Hz)."""
        now = time.monotonic()
        if now - self._polled_at >= STATUS_POLL_S:
            self._polled_at = now
            self.realtime(RT_STATUS)

    def stream(self, lines: list[str], timeout: float | None = None, watch: bool = True) -> None:
        """Send lines one after another, each after the previous `ok` (send-response).

        The lines belong together (one piece's pickup, drag and drop): a reset or
        alarm between two of them - another thread's make_safe(), a power blip -
        would leave the rest running on a controller that forgot the magnet, so
        it fails the stream (GrblReset / GrblAlarm) like one during a line does.
        With `watch` (the default) status is polled while each line waits, so a
        feed hold or a stopped controller ends the stream within a second.
        """
        start = self.interruptions
        for line in [*lines, None]:
            if self.interruptions != start:
                if self.alarm is not None:
                    raise GrblAlarm(self.alarm, line or lines[-1])
                raise GrblReset(f"controller reset during the stream, before {line!r}"
                                if line else "controller reset during the stream")
            if line is not None:
                self.send(line, timeout, watch=watch)

    # ------------------------------------------------------------------ queries
    def status(self, timeout: float | None = None) -> Status:
        """Ask for a status report (`?`) and return the one that answers it (never an older one)."""
        timeout = self.response_timeout if timeout is None else timeout
        deadline = time.monotonic() + timeout
        while True:
            self._check_alive()
            if self.critical:
                raise GrblAlarm(self.alarm or 0, "?")
            seq, banners = self._status_seq, self._banner_seq
            self.realtime(RT_STATUS)
            left = deadline - time.monotonic()
            # a '?' that arrives while GRBL resets is forgotten: ask again after a banner
            self._wait_for(lambda: self._status_seq > seq or self._banner_seq > banners  # noqa: B023 - waited on here
                           or self.critical, max(0.0, left))
            self._check_alive()
            if self._status_seq > seq and self._last_status is not None:
                return self._last_status
            if self.critical:
                raise GrblAlarm(self.alarm or 0, "?")
            if time.monotonic() >= deadline:
                raise GrblTimeout(f"no status report from GRBL within {timeout:g} s "
                                  "(it ignores '?' while homing and after a limit alarm)")

    def machine_space(self) -> MachineSpace:
        """The firmware's coordinate space (read from `$I` and `$$` when first needed)."""
        if self.space is None:
            if self.options is None:
                for line in self.send("$I"):
                    if line.startswith("[OPT:"):
                        self.options = line[5:-1].split(",")[0]
            self.settings()
        if self.space is None:
            raise GrblProtocolError("the controller did not report its travel ($130/$131)")
        return self.space

    def to_firmware(self, x: float, y: float) -> tuple[float, float]:
        """Project machine frame (0..travel) -> the firmware's machine coordinates (for G53)."""
        return self.machine_space().to_firmware(x, y)

    def believe(self, st: Status) -> tuple[float, float]:
        """The project-frame position a report gives, if it is to be believed.

        Raises GrblPositionUnknown after an alarm (until homed or unlocked) and
        GrblProtocolError for a position outside the travel."""
        if not self.position_known or st.state == "Alarm":
            cause = (f"ALARM:{self.alarm}: {alarm_meaning(self.alarm)}"
                     if self.alarm is not None else "the controller reset or powered up")
            raise GrblPositionUnknown(f"position not known ({cause}): home or unlock first")
        try:
            fx, fy = st.machine_xy(st.wco or self._work_offset(st))
        except ValueError as exc:
            raise GrblProtocolError(str(exc)) from None
        space = self.machine_space()
        x, y = space.from_firmware(fx, fy)
        if not space.inside(x, y):
            raise GrblProtocolError(
                f"status report puts the carriage at {fx:g}, {fy:g}, outside the "
                f"{space.build} firmware's travel: not believed ({st.raw[:80]})")
        return (x, y)

    def _work_offset(self, st: Status) -> tuple[float, ...] | None:
        """WCO for a WPos report: the last one reported, else from `$G` and `$#`."""
        if st.mpos is not None or self.wco is not None:
            return self.wco
        coord = "G54"
        for line in self.send("$G"):
            m = re.search(r"\b(G5[4-9](?:\.\d)?)\b", line)
            if m:
                coord = m.group(1)
        offsets: dict[str, tuple[float, ...]] = {}
        for line in self.send("$#"):
            name, _, values = line.strip("[]").partition(":")
            try:
                offsets[name] = floats(values.split(":")[0])
            except ValueError:
                continue
        if coord not in offsets:
            raise GrblProtocolError(f"no {coord} offset in the answer to '$#'")
        g92 = offsets.get("G92", (0.0,) * len(offsets[coord]))
        self.wco = tuple(a + b for a, b in zip(offsets[coord], g92))
        return self.wco

    def position(self) -> tuple[float, float]:
        """Machine X, Y in millimetres, the project's frame (0..travel), from a fresh report."""
        return self.believe(self.status())

    def settings(self) -> dict[int, float]:
        """The `$$` settings as numbers (also learns the firmware's coordinate space)."""
        out: dict[int, float] = {}
        for line in self.send("$$"):
            m = SETTING_RE.match(line)
            if m and m.group(1).isdigit():
                try:
                    out[int(m.group(1))] = float(m.group(2))
                except ValueError:
                    continue
        self.firmware_settings = out
        if 130 in out and 131 in out:
            self.space = MachineSpace.read(self.options or "", out)
        return out

    # ------------------------------------------------------------------ commands
    def _wait_alarm_silence(self) -> None:
        """After ALARM:N GRBL is deaf to a reset for 500 ms: wait for `[MSG:Reset to
        continue]` (limit alarms) or ALARM_SILENCE_S, whichever comes first."""
        at = self._alarm_at
        if at is None or not self.critical and self._banner_seq > self._alarm_banner_seq:
            return
        left = at + ALARM_SILENCE_S - time.monotonic()
        if left > 0:
            self._wait_for(lambda: self._reset_msg or self._banner_seq > self._alarm_banner_seq,
                           left)

    def soft_reset(self, timeout: float | None = None, attempts: int | None = None) -> str:
        """Ctrl-X: stops everything at once (GRBL also switches spindle and coolant off) and
        waits for the banner; after an alarm it is tried up to 3 times, since GRBL drops a
        reset in its alarm silence. Returns the version. A travelling carriage loses its
        position (ALARM:3): see halt()."""
        timeout = self.banner_timeout if timeout is None else timeout
        attempts = attempts or (3 if self.alarm is not None else 1)
        self._wait_alarm_silence()
        if (self._alarm_at is not None and not self.critical and not self._sent_since_banner
                and self._banner_seq > self._alarm_banner_seq):
            return self.version or ""            # GRBL reset itself after the alarm just now
        for attempt in range(attempts):
            banners, alarms = self._banner_seq, self._alarm_seq
            self._reset_requested = True
            self.realtime(RT_SOFT_RESET)
            # (the waits below run within this attempt: binding its counters is safe)
            if self._wait_for(lambda: self._banner_seq > banners, timeout) or (  # noqa: B023
                    # an ALARM:3/6 says the reset was heard: GRBL is in its 500 ms silence, and
                    # a second Ctrl-X would only bring a second banner later; wait for this one
                    self._alarm_seq > alarms
                    and self._wait_for(lambda: self._banner_seq > banners, timeout)):  # noqa: B023
                self._check_alive()
                return self.version or ""
            self._check_alive()
            log.warning("no banner after soft reset %d of %d", attempt + 1, attempts)
        self._reset_requested = False
        if self.alarm is not None:
            raise GrblTimeout(f"GRBL stayed in ALARM:{self.alarm} ({alarm_meaning(self.alarm)}): "
                              f"{attempts} soft resets within {timeout:g} s each were not "
                              "answered")
        raise GrblTimeout(f"no GRBL banner from {self.port!r} within {timeout:g} s of a "
                          "soft reset: is a GRBL 1.1 controller on this port?")

    def halt(self, timeout: float = 5.0) -> Status | None:
        """Feed hold (`!`) and wait until GRBL reports the hold complete (`Hold:0`) or Idle,
        so a reset afterwards keeps the position. Returns the last report (None when the
        controller cannot report: a limit alarm)."""
        if self.critical:
            return None
        st = self.status(timeout=min(1.0, self.response_timeout))
        if st.state in ("Idle", "Alarm", "Check", "Sleep", "Door") or \
                (st.state == "Hold" and st.substate == 0):
            return st
        self.realtime(RT_FEED_HOLD)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            time.sleep(STATUS_POLL_S)
            st = self.status(timeout=min(1.0, self.response_timeout))
            if st.state in ("Idle", "Alarm") or (st.state == "Hold" and st.substate == 0):
                return st
        raise GrblTimeout(f"the carriage did not stop within {timeout:g} s of a feed hold "
                          f"(still {st.state})")

    def home(self) -> None:
        """`$H` homing cycle; the `ok` comes when it has finished."""
        self.send("$H", timeout=self.motion_timeout)
        self.alarm = None
        self.position_known = True

    def unlock(self) -> None:
        """`$X`: leave the alarm state without homing; the caller vouches for the position."""
        self.send("$X")
        self.alarm = None
        self.position_known = True

    def sync(self, timeout: float | None = None) -> None:
        """Return once every queued motion has finished (`G4 P0.01` is answered only then)."""
        self.send("G4P0.01", timeout=self.motion_timeout if timeout is None else timeout,
                  watch=True)

    def wait_idle(self, poll_s: float = STATUS_POLL_S, timeout: float | None = None) -> Status:
        """Poll status reports (at most 5 Hz) until the machine is Idle with an empty planner."""
        limit = self.motion_timeout if timeout is None else timeout
        deadline = time.monotonic() + limit
        poll_s = max(poll_s, STATUS_POLL_S)
        while True:
            st = self.status()
            if st.state == "Alarm":
                raise GrblAlarm(self.alarm or 0)
            if st.state == "Idle" and (st.planner_free is None or st.planner_free >= 15):
                return st
            if time.monotonic() > deadline:
                raise GrblTimeout(f"machine still {st.state} after {limit:g} s")
            time.sleep(poll_s)

    def jog(self, dx: float, dy: float, feed: float) -> None:
        """Relative jog in machine millimetres (`$J=`); returns when it has finished."""
        self.send(f"$J=G91G21X{dx:.3f}Y{dy:.3f}F{feed:.0f}")
        self.wait_idle()

    def jog_cancel(self) -> None:
        self.realtime(RT_JOG_CANCEL)

    def feed_hold(self) -> None:
        self.realtime(RT_FEED_HOLD)

    def resume(self) -> None:
        self.realtime(RT_CYCLE_START)

    def magnet_off(self) -> None:
        """Send the magnet-off line (refused in the alarm state, where GRBL has already
        switched coolant and spindle off)."""
        try:
            self.send(self.magnet_off_line)
        except GrblCommandError as exc:
            if exc.code != 9:
                raise

    def make_safe(self, urgent: bool = False) -> list[str]:
        """Stop, and make sure the magnet is off, after anything went wrong.

        A soft reset halts motion and switches spindle and coolant off in GRBL; then
        the configured magnet-off line is sent too. Unless `urgent` (the magnet must
        go off this instant), a moving carriage is first held to a stop, so the
        reset keeps the position. Returns what could not be done (empty when the
        controller is known safe).
        """
        problems: list[str] = []
        if self._serial is None or self._dead is not None:
            return [f"port {self.port!r} is gone: the magnet cannot be switched off from here "
                    "(a controller without USB power is off)"]
        if not urgent:
            try:
                self.halt()
            except GrblError as exc:
                log.warning("feed hold before the reset failed (%s): resetting at once", exc)
        try:
            self.soft_reset(timeout=max(self.banner_timeout, 2.0))
        except GrblError as exc:
            problems.append(f"soft reset failed: {exc}")
            return problems
        try:
            self.magnet_off()
        except GrblError as exc:
            problems.append(f"magnet-off line failed: {exc}")
        return problems
