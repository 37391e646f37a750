"""The staff PIN: stored only as a salted PBKDF2 hash in the config file.

The kiosk stands in a public room, so the config file may be read by someone
who should not get into staff mode; a slow salted hash keeps a short PIN from
being read back, and the comparison is constant-time so a touch screen cannot
be used as a timing oracle. Format: ``pbkdf2_sha256$<iterations>$<salt hex>$<hash hex>``.

A four-digit PIN has only 10,000 values, so the keypad is guarded too
(`PinGuard`): after three wrong PINs in a row it locks, for 30 s and then
twice as long after every further wrong PIN (up to an hour), which puts all
10,000 PINs months away. The count and the lock are kept in the state
directory (written atomically), so a restart does not reset them, and every
wrong PIN is logged. A check costs about 100 ms of PBKDF2, so it runs on a
thread of its own: the touchscreen keeps drawing.

``python -m kiosk.staffpin`` asks for a PIN and prints the line for the config.
"""
from __future__ import annotations

import hashlib
import hmac
import json
import logging
import math
import os
import sys
import threading
import time
from pathlib import Path
from typing import Callable

from calibration.config_file import PIN_ITERATIONS
from calibration.durable import atomic_write_text, set_aside

log = logging.getLogger("kiosk.staffpin")

ALGORITHM = "pbkdf2_sha256"
DEFAULT_ITERATIONS = 200_000
MIN_PIN_LENGTH = 4


def hash_pin(pin: str, iterations: int = DEFAULT_ITERATIONS, salt: bytes | None = None) -> str:
    """Return the storable hash of ``pin`` (digits only, at least 4 of them)."""
    if not pin.isdigit() or len(pin) < MIN_PIN_LENGTH:
        raise ValueError(f"staff PIN must be at least {MIN_PIN_LENGTH} digits, got {len(pin)} characters")
    if not PIN_ITERATIONS[0] <= iterations <= PIN_ITERATIONS[1]:
        raise ValueError(f"PBKDF2 iterations must be from {PIN_ITERATIONS[0]:,} to {PIN_ITERATIONS[1]:,}, "
                         f"got {iterations:,}")
    salt = os.urandom(16) if salt is None else salt
    digest = hashlib.pbkdf2_hmac("sha256", pin.encode("ascii"), salt, iterations)
    return f"{ALGORITHM}${iterations}${salt.hex()}${digest.hex()}"


def parse_pin_hash(stored: str) -> tuple[int, bytes, bytes]:
    """Split a stored hash into (iterations, salt, digest); ValueError if malformed."""
    parts = stored.split("$")
    if len(parts) != 4 or parts[0] != ALGORITHM:
        raise ValueError(f"staff_pin_hash must look like '{ALGORITHM}$iterations$salt$hash'")
    try:
        iterations = int(parts[1])
        salt = bytes.fromhex(parts[2])
        digest = bytes.fromhex(parts[3])
    except ValueError as exc:
        raise ValueError(f"staff_pin_hash is malformed: {exc}") from None
    if not PIN_ITERATIONS[0] <= iterations <= PIN_ITERATIONS[1] or not salt or len(digest) != 32:
        raise ValueError("staff_pin_hash is malformed: bad iterations, salt or digest length")
    return iterations, salt, digest


def verify_pin(pin: str, stored: str) -> bool:
    """True when ``pin`` matches ``stored``; False for a wrong PIN or an empty/malformed hash.

    An empty stored hash means staff mode is switched off, so nothing matches.
    """
    if not stored:
        return False
    try:
        iterations, salt, digest = parse_pin_hash(stored)
    except ValueError:
        return False
    candidate = hashlib.pbkdf2_hmac("sha256", pin.encode("utf-8"), salt, iterations)
    return hmac.compare_digest(candidate, digest)


GUARD_FILE = "staff-pin.json"
LOCK_AFTER = 3              # wrong PINs in a row before the keypad locks
LOCK_FIRST_S = 30.0         # the first lock; every further wrong PIN doubles it
LOCK_MAX_S = 3600.0


def lock_seconds(failures: int) -> float:
    """How long the keypad stays locked after `failures` wrong PINs in a row."""
    if failures < LOCK_AFTER:
        return 0.0
    return min(LOCK_MAX_S, LOCK_FIRST_S * 2.0 ** (failures - LOCK_AFTER))


class PinGuard:
    """Wrong-PIN count and lock-out, kept in `<state_dir>/staff-pin.json`; checks off the caller's thread.

    `submit(pin, stored)` starts a check (refused while locked or while one
    runs), `poll()` returns True/False once it is done. The clock is wall time,
    because the lock must outlast a restart.
    """

    def __init__(self, state_dir: str | os.PathLike[str] | None,
                 clock: Callable[[], float] = time.time) -> None:
        self.path = Path(state_dir) / GUARD_FILE if state_dir is not None else None
        self.clock = clock
        self.failures = 0
        self.locked_until = 0.0
        self._thread: threading.Thread | None = None
        self._result: bool | None = None
        self._load()

    # -- state -----------------------------------------------------------
    def locked_for(self) -> float:
        """Seconds until the keypad unlocks (0 when it is open)."""
        left = self.locked_until - self.clock()
        # a clock set back must not lock the keypad for longer than the longest lock
        return max(0.0, min(left, LOCK_MAX_S))

    @property
    def checking(self) -> bool:
        return self._thread is not None

    def submit(self, pin: str, stored: str) -> bool:
        """Start checking `pin`; False (nothing started) while locked or already checking."""
        if self.checking or self.locked_for() > 0:
            return False
        self._result = None

        def run() -> None:
            self._result = verify_pin(pin, stored)

        self._thread = threading.Thread(target=run, name="staff-pin-check", daemon=True)
        self._thread.start()
        return True

    def poll(self) -> bool | None:
        """True (right PIN) or False (wrong) once the check is done; None before, or with no check."""
        if self._thread is None or self._thread.is_alive():
            return None
        self._thread = None
        ok = bool(self._result)
        self._record(ok)
        return ok

    def wait(self, timeout: float | None = None) -> None:
        """Block until the running check is done; `poll()` then takes its answer (tests only:
        the UI thread never waits)."""
        if self._thread is not None:
            self._thread.join(timeout)

    # -- book-keeping ------------------------------------------------------
    def _record(self, ok: bool) -> None:
        if ok:
            if self.failures:
                log.info("staff PIN accepted after %d wrong", self.failures)
            self.failures, self.locked_until = 0, 0.0
        else:
            self.failures += 1
            lock = lock_seconds(self.failures)
            self.locked_until = self.clock() + lock if lock else 0.0
            log.warning("wrong staff PIN (%d in a row)%s", self.failures,
                        f": keypad locked for {lock:.0f} s" if lock else "")
        self._save()

    def _load(self) -> None:
        if self.path is None or not self.path.exists():
            return
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
            failures, until = data["failures"], data["locked_until"]
            if not (isinstance(failures, int) and not isinstance(failures, bool) and 0 <= failures < 10**9
                    and isinstance(until, (int, float)) and math.isfinite(until)):
                raise ValueError("bad values")
        except (OSError, ValueError, KeyError, TypeError, RecursionError) as exc:
            # never an open keypad on a damaged file: lock as after the third wrong PIN
            from kiosk import notices

            kept = set_aside(self.path)
            self.failures = LOCK_AFTER
            self.locked_until = self.clock() + lock_seconds(LOCK_AFTER)
            notices.post(str(self.path), f"damaged staff PIN lock-out record ({exc})",
                         f"the keypad is locked for {LOCK_FIRST_S:.0f} s; the file is kept as {kept.name}",
                         logger=log)
            self._save()
            return
        self.failures, self.locked_until = failures, float(until)

    def _save(self) -> None:
        if self.path is None or not self.path.parent.is_dir():
            return              # no state directory (a test, a screenshot run): kept in memory
        try:
            atomic_write_text(self.path, json.dumps({"failures": self.failures,
                                                     "locked_until": round(self.locked_until, 3)}) + "\n",
                              mode=0o600)
        except OSError as exc:
            log.error("cannot keep the staff PIN lock-out in %s: %s", self.path, exc)


def main(argv: list[str] | None = None) -> int:
    """Read a PIN (argument or prompt) and print the config line for it."""
    import getpass

    args = sys.argv[1:] if argv is None else argv
    pin = args[0] if args else getpass.getpass("staff PIN: ")
    try:
        line = hash_pin(pin)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(f'staff_pin_hash = "{line}"')
    return 0


if __name__ == "__main__":
    sys.exit(main())
