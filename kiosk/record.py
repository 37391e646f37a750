"""The game to take home: one finished game as a short signed record that a QR code carries.

WHY its own binary format: the QR code on the end-of-game screen is read by a
phone at arm's length, so every byte counts (the record is ~3 times smaller
than its OTN text). The body is a bit string, most significant bit first:

    format 4 | variant 3 | options (mixed radix of the variant's option values) |
    mode 2 | visitor side 1 | level 2 | result 2 | winner 2 | reason 4 (15: 6-bit
    length + UTF-8 text) | ended (seconds since 2020-01-01 UTC) 32 |
    kiosk id (5-bit length + UTF-8) | unlocks 3 | plies 12 | every move

and each move is its from-square (7 bits, `rank * size + file`), the line it
moves along (1 bit: 0 same rank, 1 same file) and the file or rank it stops on
(4 bits), then 1 bit "captures"; with captures, 4 bits of neighbours of the
destination taken (north, east, south, west), 1 bit "more", and with more a
4-bit count and 7 bits per further square (a shieldwall, a piece that stopped
between two enemies). The record carries its captures, so the web page
(kiosk/web/) replays every variant without a rules engine of its own.

The body is padded to whole bytes and signed with the kiosk's Ed25519 key
(kiosk/record_key.py) over ``DOMAIN + body``; the URL is
``<kiosk.record_url>#<base32 of body + signature>``. Base32 (RFC 4648, upper
case, no padding) uses only characters of the QR code's alphanumeric mode,
which packs 5.5 bits per character instead of the byte mode's 8
(kiosk/ui/qr.py puts the URL's base in byte mode and the fragment in
alphanumeric mode). Anyone can check a record with the museum's published
public key; no secret is needed.
"""
from __future__ import annotations

import base64
import datetime as _dt
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

from engine import VARIANTS, Board
from engine.otn import format_move
from kiosk.gamelog import RESULTS, SIDES, GameRecord
from kiosk.rewards import LEVEL_UNLOCKS, Unlocks

FORMAT = 1
DOMAIN = b"tafl-record-v1\x00"            # signed before the body: a record signature is never anything else
SIGNATURE_BYTES = 64
VARIANT_CODES = ("copenhagen", "york", "tablut", "tawlbwrdd")
#: who plays: a visitor against the robot, two visitors (the robot referees), the robot against itself
MODES = ("visitor", "referee", "selfplay")
LEVEL_CODES = ("easy", "medium", "hard", "")          # "": no robot level (two visitors)
WINNERS = (None, "attackers", "defenders")
#: the end reasons the kiosk gives (the engine's and kiosk/states.py's); others are written as text
REASONS = ("king_captured", "king_escaped", "edge_fort", "encirclement", "repetition", "no_moves",
           "resigned", "ended", "abandoned", "idle timeout", "journal damaged")
_FREE_REASON = 15
EPOCH = _dt.datetime(2020, 1, 1, tzinfo=_dt.UTC)
MAX_PLIES = 4095
MAX_KIOSK_ID_BYTES = 31
MAX_REASON_BYTES = 63
NEIGHBOURS = ((1, 0), (0, 1), (-1, 0), (0, -1))       # (rank, file) steps: north, east, south, west


@dataclass(frozen=True)
class PlayedMove:
    """One move of the record: where from, where to, and the squares it emptied by capture."""

    from_sq: int
    to_sq: int
    captures: tuple[int, ...] = ()

    def otn(self, size: int) -> str:
        return format_move(self.from_sq, self.to_sq, self.captures, size)


@dataclass(frozen=True)
class TakeHome:
    """What the visitor takes home: the game, who played it where, and the rewards it earned."""

    variant: str
    options: dict[str, str]
    mode: str
    visitor_side: str
    level: str
    result: str
    winner: str | None
    reason: str
    ended_at: str                     # ISO 8601 UTC, whole seconds ("2026-12-01T14:02:11Z")
    kiosk_id: str
    unlocks: Unlocks
    moves: tuple[PlayedMove, ...] = field(default_factory=tuple)

    @property
    def size(self) -> int:
        return VARIANTS[self.variant].size

    def otn_moves(self) -> list[str]:
        return [m.otn(self.size) for m in self.moves]

    def sides(self) -> dict[str, str]:
        """Who played each side: "visitor" or "robot"."""
        if self.mode == "referee":
            return {side: "visitor" for side in SIDES}
        if self.mode == "selfplay":
            return {side: "robot" for side in SIDES}
        return {side: "visitor" if side == self.visitor_side else "robot" for side in SIDES}


def earned_unlocks(record: GameRecord) -> Unlocks:
    """The unlock a game earns on its own: a visitor's win against the robot at its level."""
    name = LEVEL_UNLOCKS.get(record.level)
    if record.result != "visitor" or name is None or record.extra.get("mode", "visitor") != "visitor":
        return Unlocks()
    return Unlocks(**{name: True})


def from_game_record(record: GameRecord, kiosk_id: str, unlocks: Unlocks | None = None) -> TakeHome:
    """The take-home record of a game of the game log, its moves replayed to find the captures.

    ``unlocks``: what the visitor holds after the game (the screen knows the
    whole visit); None gives what this game earned (`earned_unlocks`).
    ValueError with one line when the game cannot be replayed or packed.
    """
    if record.variant not in VARIANT_CODES:
        raise ValueError(f"variant {record.variant!r} has no record code")
    board = Board(record.variant, options=dict(record.options))
    moves: list[PlayedMove] = []
    for ply, text in enumerate(record.moves, start=1):
        if board.is_game_over():
            board.resume()
        try:
            move = board.parse_move(text)
        except ValueError as exc:
            raise ValueError(f"game {record.game_id}: ply {ply}: {exc}") from None
        captured = board.push(move)
        moves.append(PlayedMove(move.from_sq, move.to_sq, tuple(sorted(captured))))
    mode = str(record.extra.get("mode", "visitor"))
    return TakeHome(
        variant=record.variant, options=dict(board.options), mode=mode, visitor_side=record.visitor_side,
        level=record.level, result=record.result, winner=record.winner, reason=record.reason,
        ended_at=record.ended_at, kiosk_id=kiosk_id,
        unlocks=earned_unlocks(record) if unlocks is None else unlocks, moves=tuple(moves))


# ---- bits ----------------------------------------------------------------------------------
class _BitWriter:
    def __init__(self) -> None:
        self.value = 0
        self.bits = 0

    def put(self, value: int, width: int) -> None:
        if not 0 <= value < (1 << width):
            raise ValueError(f"{value} does not fit in {width} bits")
        self.value = (self.value << width) | value
        self.bits += width

    def put_text(self, text: str, length_bits: int) -> None:
        data = text.encode("utf-8")
        if len(data) >= 1 << length_bits:
            raise ValueError(f"{text!r} is longer than {(1 << length_bits) - 1} bytes")
        self.put(len(data), length_bits)
        for byte in data:
            self.put(byte, 8)

    def to_bytes(self) -> bytes:
        pad = -self.bits % 8
        return (self.value << pad).to_bytes((self.bits + pad) // 8, "big")


class _BitReader:
    def __init__(self, data: bytes) -> None:
        self.value = int.from_bytes(data, "big")
        self.left = len(data) * 8

    def get(self, width: int) -> int:
        if width > self.left:
            raise ValueError("the record ends too early")
        self.left -= width
        return (self.value >> self.left) & ((1 << width) - 1)

    def get_text(self, length_bits: int) -> str:
        data = bytes(self.get(8) for _ in range(self.get(length_bits)))
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError:
            raise ValueError("the record holds text that is not UTF-8") from None


def _option_radix(variant: str) -> tuple[list[tuple[str, tuple[str, ...]]], int]:
    """The variant's options in spec order with their values, and the bits of their mixed-radix number."""
    specs = [(o.key, o.values) for o in VARIANTS[variant].options]
    combos = 1
    for _, values in specs:
        combos *= len(values)
    return specs, max(0, (combos - 1).bit_length())


def _index(table: Sequence[object], value: object, what: str) -> int:
    try:
        return list(table).index(value)
    except ValueError:
        raise ValueError(f"{what} {value!r} has no record code") from None


def pack(th: TakeHome) -> bytes:
    """The record's body (unsigned)."""
    w = _BitWriter()
    w.put(FORMAT, 4)
    w.put(_index(VARIANT_CODES, th.variant, "variant"), 3)
    specs, width = _option_radix(th.variant)
    number = 0
    for key, values in specs:
        number = number * len(values) + _index(values, th.options.get(key, values[0]), f"option {key}")
    w.put(number, width)
    w.put(_index(MODES, th.mode, "mode"), 2)
    w.put(_index(SIDES, th.visitor_side, "side"), 1)
    w.put(LEVEL_CODES.index(th.level) if th.level in LEVEL_CODES else 3, 2)
    w.put(_index(RESULTS, th.result, "result"), 2)
    w.put(_index(WINNERS, th.winner, "winner"), 2)
    if th.reason in REASONS:
        w.put(REASONS.index(th.reason), 4)
    else:
        w.put(_FREE_REASON, 4)
        w.put_text(th.reason.encode("utf-8")[:MAX_REASON_BYTES].decode("utf-8", "ignore"), 6)
    ended = _dt.datetime.fromisoformat(th.ended_at)
    w.put(int((ended - EPOCH).total_seconds()), 32)
    w.put_text(th.kiosk_id, 5)
    w.put(th.unlocks.flags(), 3)
    if len(th.moves) > MAX_PLIES:
        raise ValueError(f"{len(th.moves)} plies: a record holds at most {MAX_PLIES}")
    w.put(len(th.moves), 12)
    size = th.size
    for move in th.moves:
        _put_move(w, move, size)
    return w.to_bytes()


def _put_move(w: _BitWriter, move: PlayedMove, size: int) -> None:
    fr, ff = divmod(move.from_sq, size)
    tr, tf = divmod(move.to_sq, size)
    if fr != tr and ff != tf:
        raise ValueError(f"move {move.otn(size)} is not along a rank or a file")
    w.put(move.from_sq, 7)
    w.put(0 if fr == tr else 1, 1)
    w.put(tf if fr == tr else tr, 4)
    if not move.captures:
        w.put(0, 1)
        return
    w.put(1, 1)
    near = []
    for dr, df in NEIGHBOURS:
        r, f = tr + dr, tf + df
        near.append(r * size + f if 0 <= r < size and 0 <= f < size else -1)
    mask = 0
    for bit, sq in enumerate(near):
        if sq in move.captures:
            mask |= 8 >> bit
    others = [sq for sq in move.captures if sq not in near]
    w.put(mask, 4)
    w.put(1 if others else 0, 1)
    if others:
        if len(others) > 16:
            raise ValueError(f"move {move.otn(size)} captures more pieces than a record holds")
        w.put(len(others) - 1, 4)
        for sq in others:
            w.put(sq, 7)


def unpack(body: bytes) -> TakeHome:
    """The record in ``body``; ValueError with one line if it is not one this format knows."""
    r = _BitReader(body)
    version = r.get(4)
    if version != FORMAT:
        raise ValueError(f"record format {version}: this kiosk reads format {FORMAT}")
    code = r.get(3)
    if code >= len(VARIANT_CODES):
        raise ValueError(f"unknown variant code {code}")
    variant = VARIANT_CODES[code]
    specs, width = _option_radix(variant)
    number = r.get(width)
    options: dict[str, str] = {}
    for key, values in reversed(specs):
        number, index = divmod(number, len(values))
        options[key] = values[index]
    if number:
        raise ValueError("the record's options are out of range")
    options = {key: options[key] for key, _ in specs}
    mode, side, level, result, winner = (_pick(MODES, r.get(2), "mode"), SIDES[r.get(1)],
                                         LEVEL_CODES[r.get(2)], _pick(RESULTS, r.get(2), "result"),
                                         _pick(WINNERS, r.get(2), "winner"))
    reason_code = r.get(4)
    reason = r.get_text(6) if reason_code == _FREE_REASON else _pick(REASONS, reason_code, "reason")
    ended = (EPOCH + _dt.timedelta(seconds=r.get(32))).strftime("%Y-%m-%dT%H:%M:%SZ")
    kiosk_id = r.get_text(5)
    unlocks = Unlocks.from_flags(r.get(3))
    size = VARIANTS[variant].size
    moves = tuple(_get_move(r, size) for _ in range(r.get(12)))
    if r.left >= 8 or r.get(r.left):
        raise ValueError("the record has bytes after its last move")
    return TakeHome(variant, options, mode, side, level, result, winner, reason, ended, kiosk_id, unlocks, moves)


def _pick(table: Sequence[object], index: int, what: str):
    if index >= len(table):
        raise ValueError(f"unknown {what} code {index}")
    return table[index]


def _get_move(r: _BitReader, size: int) -> PlayedMove:
    n2 = size * size
    frm = r.get(7)
    along_file, stop = r.get(1), r.get(4)
    fr, ff = divmod(frm, size)
    to = stop * size + ff if along_file else fr * size + stop
    if frm >= n2 or stop >= size or to == frm:
        raise ValueError("the record holds a move off the board")
    captures: list[int] = []
    if r.get(1):
        tr, tf = divmod(to, size)
        mask = r.get(4)
        for bit, (dr, df) in enumerate(NEIGHBOURS):
            if mask & (8 >> bit):
                if not (0 <= tr + dr < size and 0 <= tf + df < size):
                    raise ValueError("the record holds a capture off the board")
                captures.append((tr + dr) * size + tf + df)
        if r.get(1):
            for _ in range(r.get(4) + 1):
                sq = r.get(7)
                if sq >= n2:
                    raise ValueError("the record holds a capture off the board")
                captures.append(sq)
    return PlayedMove(frm, to, tuple(sorted(captures)))


# ---- signature and URL -----------------------------------------------------------------------
def b32encode(data: bytes) -> str:
    return base64.b32encode(data).decode("ascii").rstrip("=")


def b32decode(text: str) -> bytes:
    text = text.strip().upper()
    try:
        return base64.b32decode(text + "=" * (-len(text) % 8))
    except ValueError:
        raise ValueError("the code is not base32 text") from None


def signed_message(body: bytes) -> bytes:
    return DOMAIN + body


def record_url(base: str, body: bytes, signature: bytes) -> str:
    """The URL the QR code carries: the page's address, '#', the signed record."""
    if len(signature) != SIGNATURE_BYTES:
        raise ValueError(f"an Ed25519 signature has {SIGNATURE_BYTES} bytes, not {len(signature)}")
    return f"{base.split('#', 1)[0]}#{b32encode(body + signature)}"


def split_url(url: str) -> tuple[bytes, bytes]:
    """(body, signature) from a record URL (or its fragment alone); ValueError saying what is wrong."""
    text = url.strip()
    fragment = text.split("#", 1)[1] if "#" in text else "" if "://" in text else text
    if not fragment:
        raise ValueError("the URL has no record after '#'")
    raw = b32decode(fragment)
    if len(raw) <= SIGNATURE_BYTES:
        raise ValueError(f"the record is too short ({len(raw)} bytes)")
    return raw[:-SIGNATURE_BYTES], raw[-SIGNATURE_BYTES:]


@dataclass(frozen=True)
class Verdict:
    """What `verify_url` found: the record when it is genuine, else why not (one line)."""

    record: TakeHome | None
    reason: str
    key: bytes | None = None          # the public key that signed it

    @property
    def valid(self) -> bool:
        return self.record is not None


def verify_url(url: str, public_keys: Iterable[bytes]) -> Verdict:
    """Check a record URL against the trusted public keys (raw 32-byte Ed25519 keys)."""
    from cryptography.exceptions import InvalidSignature
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

    try:
        body, signature = split_url(url)
    except ValueError as exc:
        return Verdict(None, f"not a game record: {exc}")
    keys = list(public_keys)
    if not keys:
        return Verdict(None, "no trusted public key to check the record with")
    message = signed_message(body)
    for key in keys:
        try:
            Ed25519PublicKey.from_public_bytes(key).verify(signature, message)
        except (InvalidSignature, ValueError):
            continue
        try:
            return Verdict(unpack(body), "valid", key)
        except ValueError as exc:
            return Verdict(None, f"signed but unreadable: {exc}", key)
    return Verdict(None, "signature does not match: the record was changed or signed by another key")


def signed_url(th: TakeHome, sign: Callable[[bytes], bytes], base: str) -> str:
    """The URL of ``th`` signed by ``sign`` (kiosk/record_key.py's RecordKey.sign)."""
    body = pack(th)
    return record_url(base, body, sign(signed_message(body)))


def kiosk_name(configured: str) -> str:
    """The kiosk id written into records: the configured one, else the host name (cut to fit)."""
    import socket

    name = configured or socket.gethostname() or "kiosk"
    while len(name.encode("utf-8")) > MAX_KIOSK_ID_BYTES:
        name = name[:-1]
    return name
