"""The kiosk's Ed25519 key pair, which signs the take-home game records (kiosk/record.py).

WHY a key pair and not the reward secret: a record must be checkable by
anyone, on the museum's web page, with nothing secret; only the public key is
published (`tafl-kiosk record pubkey`). The private key never leaves the
kiosk's state directory.

WHY the `cryptography` package: Ed25519 signing must be constant-time and
correct; the package is maintained, ships wheels for the Raspberry Pi, and
writing a signer ourselves would be the one place where a subtle bug leaks
the key. (The web page has its own small verifier: verifying leaks nothing.)

The key is made once, on first use, as ``<state_dir>/record-key.pem``
(PKCS#8 PEM, mode 0600, written atomically with fsync). A file that cannot be
read as an Ed25519 key is set aside (``record-key.pem.damaged-<time>``), named
in one WARNING and on the staff screen (kiosk/notices.py), and a new key is
made: records signed with the old key then no longer verify against the new
public key, so the museum must publish the new one (the notice says so).
"""
from __future__ import annotations

import base64
import logging
from dataclasses import dataclass
from pathlib import Path

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from calibration.durable import atomic_write_bytes, set_aside
from kiosk import notices

log = logging.getLogger("kiosk.record_key")

KEY_FILE = "record-key.pem"


@dataclass(frozen=True)
class RecordKey:
    """The kiosk's signing key and its public half."""

    private: Ed25519PrivateKey
    path: Path

    def sign(self, message: bytes) -> bytes:
        return self.private.sign(message)

    @property
    def public_bytes(self) -> bytes:
        return self.private.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)

    @property
    def public_text(self) -> str:
        """The public key as the web page's key file and `record verify --key` take it (base64url)."""
        return public_key_text(self.public_bytes)

    def public_pem(self) -> str:
        return self.private.public_key().public_bytes(
            serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo).decode("ascii")


def public_key_text(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).decode("ascii").rstrip("=")


def parse_public_key(text: str) -> bytes:
    """A raw 32-byte Ed25519 public key from its base64url text; ValueError otherwise."""
    clean = text.strip()
    try:
        raw = base64.urlsafe_b64decode(clean + "=" * (-len(clean) % 4))
    except ValueError:
        raw = b""
    if len(raw) != 32:
        raise ValueError(f"{clean[:60]!r} is not an Ed25519 public key (43 characters of base64url)")
    return raw


def _read(path: Path) -> Ed25519PrivateKey:
    """The key in ``path``; ValueError saying why it is not one."""
    try:
        key = serialization.load_pem_private_key(path.read_bytes(), password=None)
    except (ValueError, TypeError) as exc:
        raise ValueError(f"not a PEM private key ({str(exc).splitlines()[0] if str(exc) else type(exc).__name__})") from None
    if isinstance(key, Ed25519PrivateKey):
        return key
    raise ValueError(f"a {type(key).__name__}, not an Ed25519 key")   # damage as any other: set aside


def load_key(state_dir: str | Path) -> RecordKey | None:
    """The kiosk's key if it has one that reads; never makes one (for checking records)."""
    path = Path(state_dir) / KEY_FILE
    try:
        return RecordKey(_read(path), path)
    except (OSError, ValueError):
        return None


def load_or_create(state_dir: str | Path) -> RecordKey:
    """The kiosk's key, made on first use; a damaged key file is set aside and replaced."""
    path = Path(state_dir) / KEY_FILE
    if path.exists():
        try:
            return RecordKey(_read(path), path)
        except ValueError as exc:
            moved = set_aside(path)
            notices.post(str(path), f"damaged: {exc}; moved to {moved.name}",
                         "a new record key was made: publish its public key (tafl-kiosk record pubkey)",
                         logger=log)
    path.parent.mkdir(parents=True, exist_ok=True)
    private = Ed25519PrivateKey.generate()
    pem = private.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                serialization.NoEncryption())
    atomic_write_bytes(path, pem, mode=0o600)
    log.info("made the record key %s (public key %s)", path, public_key_text(
        private.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)))
    return RecordKey(private, path)


def trusted_keys(state_dir: str | Path | None, configured: tuple[str, ...] = (), given: tuple[str, ...] = ()) -> list[bytes]:
    """The public keys a record may be signed with: ``given`` ones, this kiosk's own, the configured ones."""
    keys = [parse_public_key(text) for text in given]
    own = load_key(state_dir) if state_dir is not None else None
    if own is not None:
        keys.append(own.public_bytes)
    keys.extend(parse_public_key(text) for text in configured)
    return list(dict.fromkeys(keys))
