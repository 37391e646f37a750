"""Rewards a visitor earns by beating the robot, and the signed code they take home.

A win on Easy unlocks piece colours, on Medium shaded 3D pieces, on Hard a
crown for the visitor's avatar (seed 002). Unlocks live for one visitor
session: the kiosk forgets them when it goes back to attract mode, so the
next visitor starts fresh. What the visitor keeps is a short code (and the
same code as a QR image): 10 bytes, Crockford base32, 16 characters:

    flags (1 byte) | day number since 2020-01-01 (2) | nonce (2) | HMAC-SHA256 truncated (5)

The MAC uses ``config.kiosk.reward_secret``, so a code cannot be made up
without the secret (a 40-bit tag: one chance in about 10^12 per guess). A
code is honoured for ``config.kiosk.reward_valid_days`` after the day of the
win (the day is inside the signed part, so it cannot be moved). Staff check a
code with

    python -m kiosk.rewards verify CODE [--config FILE]      # the secret from the config
    printf '%s\n' "$SECRET" | python -m kiosk.rewards verify CODE --secret-stdin

never with the secret on the command line, where `ps` and the shell history
would show it. Exit status: 0 genuine and valid, 1 not genuine or expired,
2 a usage or configuration error.
"""
from __future__ import annotations

import argparse
import datetime as _dt
import hashlib
import hmac
import os
import sys
from dataclasses import dataclass, replace

LEVEL_UNLOCKS: dict[str, str] = {"easy": "colours", "medium": "shaded", "hard": "crown"}
UNLOCK_ORDER = ("colours", "shaded", "crown")
_FLAG_BITS = {"colours": 1, "shaded": 2, "crown": 4}
_EPOCH = _dt.date(2020, 1, 1)
_ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"      # Crockford base32: no I, L, O, U
_TAG_BYTES = 5
QR_PREFIX = "TAFL:"


@dataclass(frozen=True)
class Unlocks:
    """What this visitor has unlocked; the screens draw pieces and avatar from it."""

    colours: bool = False
    shaded: bool = False
    crown: bool = False

    def has(self, name: str) -> bool:
        return bool(getattr(self, name))

    def names(self) -> tuple[str, ...]:
        return tuple(name for name in UNLOCK_ORDER if self.has(name))

    def flags(self) -> int:
        return sum(bit for name, bit in _FLAG_BITS.items() if self.has(name))

    @classmethod
    def from_flags(cls, flags: int) -> "Unlocks":
        return cls(**{name: bool(flags & bit) for name, bit in _FLAG_BITS.items()})


@dataclass
class RewardSession:
    """Unlocks of the visitor at the kiosk now, and the piece colour scheme they chose."""

    unlocks: Unlocks = Unlocks()
    colour_scheme: int = 0          # index into the palette's piece schemes; 0 = the real pieces
    use_shaded: bool = True

    def record_win(self, level: str) -> str | None:
        """Note a win at ``level``; return the unlock it newly gives, or None if it gives nothing new."""
        name = LEVEL_UNLOCKS.get(level)
        if name is None:
            raise ValueError(f"unknown level {level!r}; expected one of {', '.join(LEVEL_UNLOCKS)}")
        if self.unlocks.has(name):
            return None
        self.unlocks = replace(self.unlocks, **{name: True})
        return name

    def reset(self) -> None:
        """A new visitor: forget everything."""
        self.unlocks = Unlocks()
        self.colour_scheme = 0
        self.use_shaded = True


@dataclass(frozen=True)
class RewardCode:
    """What a genuine code says."""

    unlocks: Unlocks
    day: _dt.date
    nonce: int

    def expires(self, valid_days: int) -> _dt.date:
        """The last day the code is honoured."""
        return self.day + _dt.timedelta(days=valid_days)

    def expired(self, valid_days: int, today: _dt.date | None = None) -> bool:
        return (today or _dt.date.today()) > self.expires(valid_days)


def _b32encode(data: bytes) -> str:
    number = int.from_bytes(data, "big")
    bits = len(data) * 8
    chars = bits // 5
    return "".join(_ALPHABET[(number >> (5 * (chars - 1 - k))) & 31] for k in range(chars))


def _b32decode(text: str, nbytes: int) -> bytes:
    number = 0
    for char in text:
        number = number * 32 + _ALPHABET.index(char)
    return number.to_bytes(nbytes, "big")


def _tag(secret: str, body: bytes) -> bytes:
    return hmac.new(secret.encode("utf-8"), b"tafl-reward-v1" + body, hashlib.sha256).digest()[:_TAG_BYTES]


def make_code(unlocks: Unlocks, secret: str, day: _dt.date | None = None, nonce: int | None = None) -> str:
    """The signed code for ``unlocks`` as ``XXXX-XXXX-XXXX-XXXX``; ValueError without a secret."""
    if not secret:
        raise ValueError("kiosk.reward_secret is empty: reward codes cannot be signed")
    if not unlocks.flags():
        raise ValueError("nothing unlocked: there is no reward code to give")
    day = day or _dt.date.today()
    days = (day - _EPOCH).days
    if not 0 <= days < 65536:
        raise ValueError(f"date {day} is outside the code's range")
    nonce = int.from_bytes(os.urandom(2), "big") if nonce is None else nonce
    body = bytes([unlocks.flags()]) + days.to_bytes(2, "big") + (nonce & 0xFFFF).to_bytes(2, "big")
    text = _b32encode(body + _tag(secret, body))
    return "-".join(text[k:k + 4] for k in range(0, len(text), 4))


def normalise_code(code: str) -> str:
    """Upper case, no separators, the look-alike letters Crockford allows mapped to digits."""
    text = code.strip().upper()
    if text.startswith(QR_PREFIX):
        text = text[len(QR_PREFIX):]
    text = "".join(ch for ch in text if ch not in "- ")
    return text.translate(str.maketrans("ILO", "110"))


def verify_code(code: str, secret: str) -> RewardCode | None:
    """The contents of a genuine code, or None for a forged, mistyped or foreign one."""
    text = normalise_code(code)
    if not secret or len(text) != 16 or any(ch not in _ALPHABET for ch in text):
        return None
    raw = _b32decode(text, 10)
    body, tag = raw[:5], raw[5:]
    if not hmac.compare_digest(tag, _tag(secret, body)):
        return None
    unlocks = Unlocks.from_flags(body[0])
    if body[0] & ~7 or not unlocks.flags():
        return None
    day = _EPOCH + _dt.timedelta(days=int.from_bytes(body[1:3], "big"))
    return RewardCode(unlocks=unlocks, day=day, nonce=int.from_bytes(body[3:5], "big"))


def qr_text(code: str) -> str:
    """What the QR image carries: the code with a prefix that says what it is."""
    return QR_PREFIX + code


def main(argv: list[str] | None = None) -> int:
    args_in = sys.argv[1:] if argv is None else list(argv)
    if any(a == "--secret" or a.startswith("--secret=") for a in args_in):
        print("python -m kiosk.rewards: --secret is gone: a secret on the command line shows in ps and "
              "the shell history; the secret comes from --config FILE or --secret-stdin", file=sys.stderr)
        return 2
    parser = argparse.ArgumentParser(prog="python -m kiosk.rewards", description="check a visitor's reward code")
    sub = parser.add_subparsers(dest="command", required=True)
    check = sub.add_parser("verify", help="say whether a code is genuine, what it unlocks and whether it expired")
    check.add_argument("code")
    check.add_argument("--config", metavar="FILE", help="the kiosk's configuration, holding reward_secret "
                       "and reward_valid_days (default $TAFL_KIOSK_CONFIG or /etc/tafl-kiosk/config.toml)")
    check.add_argument("--secret-stdin", action="store_true",
                       help="read the secret from the first line of standard input instead of the config")
    args = parser.parse_args(args_in)
    try:
        secret, valid_days = _secret_and_validity(args)
    except ValueError as exc:
        print(f"python -m kiosk.rewards: {str(exc).splitlines()[0]}", file=sys.stderr)
        return 2
    result = verify_code(args.code, secret)
    if result is None:
        print("not a genuine code")
        return 1
    issued = result.day.isoformat()
    if result.expired(valid_days):
        print(f"expired: {', '.join(result.unlocks.names())} (issued {issued}, valid until "
              f"{result.expires(valid_days).isoformat()})")
        return 1
    print(f"genuine: {', '.join(result.unlocks.names())} (issued {issued}, valid until "
          f"{result.expires(valid_days).isoformat()})")
    return 0


def _secret_and_validity(args: argparse.Namespace) -> tuple[str, int]:
    """The reward secret and validity from the config (or the secret from stdin); ValueError if missing."""
    from calibration.config import DEFAULT_CONFIG_PATH, Config
    from calibration.config_file import load_config

    path = args.config or os.environ.get("TAFL_KIOSK_CONFIG") or DEFAULT_CONFIG_PATH
    if args.secret_stdin:
        config = load_config(path) if args.config or os.path.exists(path) else Config()
        secret = sys.stdin.readline().rstrip("\r\n")
        if not secret:
            raise ValueError("no secret on standard input")
    else:
        config = load_config(path)
        secret = config.kiosk.reward_secret
        if not secret:
            raise ValueError(f"{path}: kiosk.reward_secret is empty: this kiosk gives no reward codes")
    return secret, config.kiosk.reward_valid_days


if __name__ == "__main__":
    sys.exit(main())
