"""The staff PIN: stored only as a salted PBKDF2 hash in the config file.

The kiosk stands in a public room, so the config file may be read by someone
who should not get into staff mode; a slow salted hash keeps a short PIN from
being read back, and the comparison is constant-time so a touch screen cannot
be used as a timing oracle. Format: ``pbkdf2_sha256$<iterations>$<salt hex>$<hash hex>``.

``python -m kiosk.staffpin`` asks for a PIN and prints the line for the config.
"""
from __future__ import annotations

import hashlib
import hmac
import os
import sys

ALGORITHM = "pbkdf2_sha256"
DEFAULT_ITERATIONS = 200_000
MIN_PIN_LENGTH = 4


def hash_pin(pin: str, iterations: int = DEFAULT_ITERATIONS, salt: bytes | None = None) -> str:
    """Return the storable hash of ``pin`` (digits only, at least 4 of them)."""
    if not pin.isdigit() or len(pin) < MIN_PIN_LENGTH:
        raise ValueError(f"staff PIN must be at least {MIN_PIN_LENGTH} digits, got {len(pin)} characters")
    if iterations < 1:
        raise ValueError(f"PBKDF2 iterations must be positive, got {iterations}")
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
    if iterations < 1 or not salt or len(digest) != 32:
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
