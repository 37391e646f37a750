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
configured magnet-off line; callers run it on every error path.
"""
from __future__ import annotations

import logging
import re
import threading
import time
from dataclasses import dataclass, field
from typing import Callable

import serial

try:                                   # a vanished tty fails tcdrain() with termios.error
    from termios import error as _TermiosError
except ImportError:                    # pragma: no cover - not POSIX
    class _TermiosError(Exception):  # type: ignore[no-redef]
        pass

#: what pyserial lets through when the port goes away under it
PORT_ERRORS = (serial.SerialException, OSError, _TermiosError, TypeError, AttributeError)

from calibration.config import GantryConfig
from robot.grbl_codes import (MAX_LINE_CHARS, RT_CYCLE_START, RT_FEED_HOLD, RT_JOG_CANCEL,
                              RT_SOFT_RESET, RT_STATUS, alarm_meaning, error_meaning)

log = logging.getLogger(__name__)

BANNER_RE = re.compile(r"^Grbl (\d+\.\d+[a-z]?) \['\$' for help\]$")
SETTING_RE = re.compile(r"^\$(N?\d+)=(.*)$")


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
        super().__init__(f"GRBL ALARM:{code}{during}: {alarm_meaning(code)}")


class GrblTimeout(GrblError):
    """No answer in time (a busy controller, a wrong port, a lost line)."""


class GrblDisconnected(GrblError):
    """The serial port went away or could not be opened."""


class GrblProtocolError(GrblError):
    """Bytes from the controller that are not GRBL 1.1 (noise, wrong baud rate, another device)."""


class GrblReset(GrblError):
    """The controller reset (banner seen) while a line was waiting for its answer."""


class LineTooLong(GrblError, ValueError):
    """A line GRBL would refuse with error:11; refused before sending."""


@dataclass(frozen=True)
class Status:
    """One `<...>` status report, parsed."""

    state: str                                  # Idle, Run, Hold, Jog, Alarm, Door, Check, Home, Sleep
    substate: int | None
    mpos: tuple[float, ...] | None
    wpos: tuple[float, ...] | None
    wco: tuple[float, ...] | None               # only in some reports; see Driver.wco
    feed: float | None
    spindle: float | None
    planner_free: int | None                    # Bf: free planner blocks
    rx_free: int | None                         # Bf: free bytes in the receive buffer
    accessories: str | None                     # A: S/C spindle, F flood, M mist (None = field absent)
    overrides: tuple[int, ...] | None
    pins: str
    raw: str

    def machine_xy(self, wco: tuple[float, ...] | None) -> tuple[float, float]:
        """Machine X, Y; from WPos + WCO when the controller reports work positions."""
        if self.mpos is not None:
            return (self.mpos[0], self.mpos[1])
        if self.wpos is not None and wco is not None:
            return (self.wpos[0] + wco[0], self.wpos[1] + wco[1])
        raise GrblProtocolError(f"status report without a usable position: {self.raw}")


def _floats(text: str) -> tuple[float, ...]:
    return tuple(float(v) for v in text.split(","))


def parse_status(line: str) -> Status:
    """Parse `<Idle|MPos:1.000,2.000,0.000|FS:0,0|WCO:...>`; raises ValueError if malformed."""
    if not (line.startswith("<") and line.endswith(">")):
        raise ValueError(f"not a status report: {line!r}")
    fields = line[1:-1].split("|")
    state, _, sub = fields[0].partition(":")
    if state not in ("Idle", "Run", "Hold", "Jog", "Alarm", "Door", "Check", "Home", "Sleep"):
        raise ValueError(f"unknown machine state {fields[0]!r}")
    values: dict[str, str] = {}
    for f in fields[1:]:
        key, sep, value = f.partition(":")
        if not sep:
            raise ValueError(f"bad status field {f!r}")
        values[key] = value
    mpos = _floats(values["MPos"]) if "MPos" in values else None
    wpos = _floats(values["WPos"]) if "WPos" in values else None
    if mpos is None and wpos is None:
        raise ValueError("status report without MPos or WPos")
    feed = spindle = None
    if "FS" in values:
        feed, spindle = _floats(values["FS"])[:2]
    elif "F" in values:
        feed = float(values["F"])
    planner_free = rx_free = None
    if "Bf" in values:
        bf = values["Bf"].split(",")
        planner_free, rx_free = int(bf[0]), int(bf[1])
    return Status(
        state=state, substate=int(sub) if sub else None, mpos=mpos, wpos=wpos,
        wco=_floats(values["WCO"]) if "WCO" in values else None,
        feed=feed, spindle=spindle, planner_free=planner_free, rx_free=rx_free,
        accessories=values.get("A"), overrides=tuple(int(v) for v in values["Ov"].split(","))
        if "Ov" in values else None, pins=values.get("Pn", ""), raw=line)


def _printable(data: bytes) -> bool:
    return all(0x20 <= b < 0x7F for b in data)


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
        self.alarm: int | None = None               # last ALARM:N since the last reset
        self.critical = False                        # a limit alarm: only a reset is heard
        self.interruptions = 0                       # banners and alarms seen so far
        self._out_of_step = False                    # a line timed out: its answer is unaccounted
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
        self._pending: _Pending | None = None
        self._banner = threading.Event()
        self._status_event = threading.Event()
        self._last_status: Status | None = None

    # ------------------------------------------------------------------ connection
    def connect(self) -> str:
        """Open the port and wait for the banner; soft-reset if none comes. Returns the version."""
        try:
            self._serial = serial.serial_for_url(self.port, baudrate=self.baudrate, timeout=0.05,
                                                 write_timeout=self.response_timeout)
        except (serial.SerialException, OSError, ValueError) as exc:
            raise GrblDisconnected(f"cannot open gantry port {self.port!r}: {exc}") from None
        self._closing = False
        self._dead = None
        self._banner.clear()
        self._reader = threading.Thread(target=self._read_loop, name=f"grbl-reader {self.port}",
                                        daemon=True)
        self._reader.start()
        # An Arduino resets when the port opens and then prints its banner; a controller
        # that stayed powered (a pty, a socket, a board without auto-reset) says nothing.
        # A status request after a moment tells a live GRBL apart without resetting it;
        # only if neither comes is it soft-reset.
        try:
            self._handshake()
        except GrblError:
            self._abandon()
            raise
        log.info("GRBL %s on %s", self.version, self.port)
        return self.version or ""

    def _handshake(self) -> None:
        if not self._banner.wait(min(0.3, self.banner_timeout)):
            if self._probe(self.banner_timeout):
                if self.version is None:
                    for line in self.send("$I"):
                        m = re.match(r"^\[VER:(\d+\.\d+[a-z]?)", line)
                        if m:
                            self.version = m.group(1)
            elif not self._banner.is_set():
                self.soft_reset()
        self._check_alive()

    def _abandon(self) -> None:
        """Close the port without talking to the device (it is not a usable GRBL)."""
        self._closing = True
        if self._reader is not None:
            self._reader.join(timeout=1.0)
        try:
            if self._serial is not None:
                self._serial.close()
        except PORT_ERRORS:
            pass
        self._serial = None

    def _probe(self, timeout: float) -> bool:
        """True if a status report answers a '?' within `timeout` (or a banner arrives)."""
        self._status_event.clear()
        self.realtime(RT_STATUS)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self._status_event.wait(0.05):
                self._check_alive()
                return self._last_status is not None
            if self._banner.is_set():
                return False
        return False

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
                    # moving or held: a magnet-off line would wait for the motion; reset
                    self.realtime(RT_SOFT_RESET)
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

    def _dispatch(self, raw: bytes) -> None:
        if not _printable(raw):
            self._garbled(raw)
            return
        line = raw.decode("ascii")
        if line == "ok":
            self._answer(None)
        elif line.startswith("error:") and line[6:].isdigit():
            pending = self._pending
            self._answer(GrblCommandError(int(line[6:]), pending.line if pending else "?"))
        elif line.startswith("<") and line.endswith(">"):
            try:
                status = parse_status(line)
            except (ValueError, KeyError, IndexError):
                self._garbled(raw)
                return
            if status.wco is not None:
                self.wco = status.wco
            self._last_status = status
            self._status_event.set()
        elif line.startswith("ALARM:") and line[6:].isdigit():
            code = int(line[6:])
            self.alarm = code
            self.interruptions += 1
            self._push(line)
            pending = self._pending
            self._answer(GrblAlarm(code, pending.line if pending else None))
            self._status_event.set()
        elif BANNER_RE.match(line):
            self.version = BANNER_RE.match(line).group(1)   # type: ignore[union-attr]
            self.wco = None
            self.critical = False
            self._out_of_step = False         # a reset empties GRBL's buffers: in step again
            self.interruptions += 1
            self._push(line)
            self._answer(GrblReset(f"controller reset while waiting for an answer "
                                   f"(banner {line!r})"), only_if_pending=True)
            self._banner.set()
        elif line.startswith("[") and line.endswith("]"):
            if line.startswith("[MSG:"):
                if line == "[MSG:Reset to continue]":
                    self.critical = True      # GRBL now ignores everything but a reset
                self._push(line)
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

    def _push(self, line: str) -> None:
        self.messages.append(line)
        del self.messages[:-50]
        if self.on_push is not None:
            try:
                self.on_push(line)
            except Exception:           # a display callback must not kill the reader
                log.exception("on_push callback failed")

    def _answer(self, error: GrblError | None, only_if_pending: bool = False) -> None:
        with self._state_lock:
            pending = self._pending
            if pending is None:
                if error is None and not only_if_pending:
                    log.warning("unexpected 'ok' with no line in flight")
                return
            pending.error = error
            self._pending = None
        pending.done.set()

    def _garbled(self, raw: bytes) -> None:
        """A line that is not GRBL 1.1. A corrupted push message (inside <...> or [...]) is
        dropped; anything else may have been the answer we wait for, so that line fails."""
        self.garbled.append(raw)
        del self.garbled[:-50]
        log.warning("garbled bytes from the controller: %r", raw)
        enveloped = raw[:1] in (b"<", b"[") and raw[-1:] in (b">", b"]")
        if not enveloped:
            pending = self._pending
            line = pending.line if pending else ""
            self._answer(GrblProtocolError(
                f"garbled bytes from the controller instead of the answer to {line!r}: {raw!r}"),
                only_if_pending=True)

    def _fail_all(self, error: GrblError) -> None:
        self._dead = error
        log.error("%s", error)
        self._answer(error, only_if_pending=True)
        self._status_event.set()
        self._banner.set()

    def _check_alive(self) -> None:
        if self._serial is None:
            raise GrblDisconnected(f"gantry port {self.port!r} is not open")
        if self._dead is not None:
            raise self._dead

    # ------------------------------------------------------------------ writing
    def _write(self, data: bytes) -> None:
        self._check_alive()
        try:
            with self._write_lock:
                self._serial.write(data)      # type: ignore[union-attr]
                self._serial.flush()          # type: ignore[union-attr]
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

    def send(self, line: str, timeout: float | None = None) -> list[str]:
        """Send one line and wait for its `ok`; returns the info lines that came with it.

        Raises GrblCommandError (error:N), GrblAlarm, GrblTimeout, GrblDisconnected,
        GrblProtocolError or GrblReset.
        """
        self.check_line(line)
        timeout = self.response_timeout if timeout is None else timeout
        with self._send_lock:
            self._check_alive()
            if self.critical:
                raise GrblAlarm(self.alarm or 0, line)
            if self._out_of_step:
                raise GrblProtocolError(f"not sending {line!r}: an earlier line timed out, so "
                                        "answers may be out of step; soft_reset() first")
            pending = _Pending(line)
            with self._state_lock:
                self._pending = pending
            try:
                self._write(line.encode("ascii") + b"\n")
            except GrblError:
                with self._state_lock:
                    self._pending = None
                raise
            if not pending.done.wait(timeout):
                with self._state_lock:
                    if self._pending is pending:
                        self._pending = None
                        # its 'ok' may still come and would be taken for the next line's
                        self._out_of_step = True
                raise GrblTimeout(f"no answer from GRBL to {line!r} within {timeout:g} s")
            if pending.error is not None:
                raise pending.error
            return pending.info

    def stream(self, lines: list[str], timeout: float | None = None) -> None:
        """Send lines one after another, each after the previous `ok` (send-response).

        The lines belong together (one piece's pickup, drag and drop): a reset or
        alarm between two of them - another thread's make_safe(), a power blip -
        would leave the rest running on a controller that forgot the magnet, so
        it fails the stream (GrblReset / GrblAlarm) like one during a line does.
        """
        start = self.interruptions
        for line in lines + [None]:    # type: ignore[operator]
            if self.interruptions != start:
                if self.alarm is not None:
                    raise GrblAlarm(self.alarm, line or lines[-1])
                raise GrblReset(f"controller reset during the stream, before {line!r}"
                                if line else "controller reset during the stream")
            if line is not None:
                self.send(line, timeout)

    # ------------------------------------------------------------------ queries
    def status(self, timeout: float | None = None) -> Status:
        """Ask for a status report (`?`) and return it."""
        timeout = self.response_timeout if timeout is None else timeout
        if self.critical:
            raise GrblAlarm(self.alarm or 0, "?")
        self._status_event.clear()
        self.realtime(RT_STATUS)
        if not self._status_event.wait(timeout):
            raise GrblTimeout(f"no status report from GRBL within {timeout:g} s "
                              "(it ignores '?' while homing and after a limit alarm)")
        self._check_alive()
        if self._last_status is None:
            raise GrblTimeout("no status report from GRBL")
        return self._last_status

    def position(self) -> tuple[float, float]:
        """Machine X, Y in millimetres (uses WCO when the controller reports WPos)."""
        st = self.status()
        return st.machine_xy(st.wco or self.wco)

    def settings(self) -> dict[int, float]:
        """The `$$` settings as numbers."""
        out: dict[int, float] = {}
        for line in self.send("$$"):
            m = SETTING_RE.match(line)
            if m and m.group(1).isdigit():
                out[int(m.group(1))] = float(m.group(2))
        return out

    # ------------------------------------------------------------------ commands
    def soft_reset(self, timeout: float | None = None) -> str:
        """Ctrl-X: stops everything at once (GRBL also switches spindle and coolant off) and
        waits for the banner. Returns the version."""
        timeout = self.banner_timeout if timeout is None else timeout
        self._banner.clear()
        self.alarm = None
        self.realtime(RT_SOFT_RESET)
        if not self._banner.wait(timeout):
            raise GrblTimeout(f"no GRBL banner from {self.port!r} within {timeout:g} s of a "
                              "soft reset: is a GRBL 1.1 controller on this port?")
        self._check_alive()
        return self.version or ""

    def home(self) -> None:
        """`$H` homing cycle; the `ok` comes when it has finished."""
        self.send("$H", timeout=self.motion_timeout)
        self.alarm = None

    def unlock(self) -> None:
        """`$X`: leave the alarm state without homing (position may be wrong)."""
        self.send("$X")
        self.alarm = None

    def sync(self, timeout: float | None = None) -> None:
        """Return once every queued motion has finished (`G4 P0.01` is answered only then)."""
        self.send("G4P0.01", timeout=self.motion_timeout if timeout is None else timeout)

    def wait_idle(self, poll_s: float = 0.05, timeout: float | None = None) -> Status:
        """Poll status reports until the machine is Idle with an empty planner."""
        deadline = time.monotonic() + (self.motion_timeout if timeout is None else timeout)
        while True:
            st = self.status()
            if st.state == "Alarm":
                raise GrblAlarm(self.alarm or 0)
            if st.state == "Idle" and (st.planner_free is None or st.planner_free >= 15):
                return st
            if time.monotonic() > deadline:
                raise GrblTimeout(f"machine still {st.state} after {timeout} s")
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

    def make_safe(self) -> list[str]:
        """Stop, and make sure the magnet is off, after anything went wrong.

        A soft reset halts motion and switches spindle and coolant off in GRBL; then
        the configured magnet-off line is sent too. Returns what could not be done
        (empty when the controller is known safe).
        """
        problems: list[str] = []
        if self._serial is None or self._dead is not None:
            return [f"port {self.port!r} is gone: the magnet cannot be switched off from here "
                    "(a controller without USB power is off)"]
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
