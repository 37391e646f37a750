"""Tell systemd how the kiosk is doing: READY=1, WATCHDOG=1 and STATUS= lines.

systemd starts tafl-kiosk.service with Type=notify and WatchdogSec=: it
counts the service as started only once the screen is up (READY=1), and kills
and restarts it when the main loop stops pinging (WATCHDOG=1). The protocol is
one datagram of "KEY=value" lines sent to the AF_UNIX socket named in
$NOTIFY_SOCKET (a path, or an abstract name written with a leading '@'), so a
few lines of socket code do it and the kiosk needs no extra dependency.

Outside systemd (a laptop, the tests, `--simulate`) there is no NOTIFY_SOCKET
and every call is a cheap no-op, so callers never have to check.

Usage in the main loop::

    notifier = Notifier.from_environ()
    ...                                  # open the screen
    notifier.ready("waiting for visitor")
    while running:
        ...                              # one frame
        notifier.tick()                  # pings the watchdog when due
        notifier.status(controller_state_text)   # sent only when it changes
"""
from __future__ import annotations

import logging
import os
import socket
import time
from collections.abc import Callable, MutableMapping
from dataclasses import dataclass, field

log = logging.getLogger(__name__)

Clock = Callable[[], float]


def socket_address(name: str) -> str | bytes:
    """The address to sendto() for a $NOTIFY_SOCKET value.

    '@name' is Linux's abstract namespace: a leading NUL byte instead of '@'.
    Anything else must be an absolute path. Raises ValueError otherwise
    (systemd also speaks vsock, which the kiosk never runs under).
    """
    if not name:
        raise ValueError("NOTIFY_SOCKET is empty")
    if name.startswith("@"):
        return b"\0" + name[1:].encode()
    if name.startswith("/"):
        return name
    raise ValueError(f"NOTIFY_SOCKET {name!r}: expected an absolute path or an '@' abstract name")


def watchdog_interval(environ: MutableMapping[str, str], pid: int) -> float | None:
    """Seconds between watchdog pings (half of $WATCHDOG_USEC), or None when off.

    Half the timeout is what sd_watchdog_enabled(3) recommends: one late frame
    never trips the watchdog, a hung loop always does. $WATCHDOG_PID, when set,
    names the process the watchdog is meant for; any other process (say a child
    that inherited the environment) must not ping.
    """
    usec = environ.get("WATCHDOG_USEC", "")
    if not usec:
        return None
    owner = environ.get("WATCHDOG_PID", "")
    if owner and owner != str(pid):
        return None
    try:
        value = int(usec)
    except ValueError:
        log.warning("ignoring WATCHDOG_USEC=%r: not an integer", usec)
        return None
    if value <= 0:
        return None
    return value / 2_000_000


@dataclass
class Notifier:
    """Sends sd_notify messages; does nothing when `address` is None.

    `clock` is injectable so the watchdog cadence can be tested without sleeping.
    A failed send is logged once and never raised: the kiosk must keep the
    visitor's game going even if systemd's socket has gone away.
    """

    address: str | bytes | None = None
    watchdog_s: float | None = None
    clock: Clock = time.monotonic
    _sock: socket.socket | None = field(default=None, init=False, repr=False)
    _last_ping: float | None = field(default=None, init=False, repr=False)
    _last_status: str | None = field(default=None, init=False, repr=False)
    _send_failed: bool = field(default=False, init=False, repr=False)

    @classmethod
    def from_environ(
        cls,
        environ: MutableMapping[str, str] | None = None,
        *,
        clock: Clock = time.monotonic,
        unset: bool = True,
    ) -> "Notifier":
        """A notifier for the socket systemd passed in the environment.

        With `unset` (the default) NOTIFY_SOCKET, WATCHDOG_USEC and WATCHDOG_PID
        are removed from the environment afterwards, so that the engine's search
        process and other children do not inherit them and talk to systemd in
        the kiosk's name.
        """
        env = os.environ if environ is None else environ
        name = env.get("NOTIFY_SOCKET", "")
        address: str | bytes | None = None
        if name:
            try:
                address = socket_address(name)
            except ValueError as exc:
                log.warning("not notifying systemd: %s", exc)
        interval = watchdog_interval(env, os.getpid()) if address is not None else None
        if unset:
            for key in ("NOTIFY_SOCKET", "WATCHDOG_USEC", "WATCHDOG_PID"):
                env.pop(key, None)
        return cls(address=address, watchdog_s=interval, clock=clock)

    @property
    def enabled(self) -> bool:
        return self.address is not None

    def send(self, *fields: str) -> bool:
        """Send one datagram of KEY=value lines; True if it went out."""
        if self.address is None or not fields:
            return False
        for item in fields:
            if "=" not in item or "\n" in item:
                raise ValueError(f"sd_notify field {item!r}: expected one KEY=value line")
        payload = "\n".join(fields).encode()
        try:
            if self._sock is None:
                self._sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM | socket.SOCK_CLOEXEC)
            self._sock.sendto(payload, self.address)
        except OSError as exc:
            if not self._send_failed:
                log.warning("sd_notify to %r failed: %s", self.address, exc)
                self._send_failed = True
            return False
        self._send_failed = False
        return True

    def ready(self, status: str | None = None) -> bool:
        """The screen is up: systemd counts the service as started."""
        fields = ["READY=1"]
        if status is not None:
            fields.append(_status_field(status))
            self._last_status = status
        sent = self.send(*fields)
        if sent:
            self._last_ping = self.clock()   # READY also starts the watchdog clock
        return sent

    def status(self, text: str) -> bool:
        """Show `text` in `systemctl status`; sent only when it changes."""
        if text == self._last_status:
            return False
        self._last_status = text
        return self.send(_status_field(text))

    def ping(self) -> bool:
        """Send WATCHDOG=1 now."""
        sent = self.send("WATCHDOG=1")
        if sent:
            self._last_ping = self.clock()
        return sent

    def tick(self) -> bool:
        """Call once per main-loop iteration: pings when half the timeout has passed."""
        if self.address is None or self.watchdog_s is None:
            return False
        now = self.clock()
        if self._last_ping is not None and now - self._last_ping < self.watchdog_s:
            return False
        return self.ping()

    def extend_timeout(self, seconds: float) -> bool:
        """Ask for more start-up (or shut-down) time, e.g. while the gantry homes."""
        return self.send(f"EXTEND_TIMEOUT_USEC={int(seconds * 1_000_000)}")

    def stopping(self, status: str | None = None) -> bool:
        """The kiosk is shutting down on purpose (the watchdog stops counting)."""
        fields = ["STOPPING=1"]
        if status is not None:
            fields.append(_status_field(status))
        return self.send(*fields)

    def close(self) -> None:
        if self._sock is not None:
            self._sock.close()
            self._sock = None


def _status_field(text: str) -> str:
    # One STATUS line: a newline would start a new KEY=value field.
    return "STATUS=" + " ".join(text.split())
