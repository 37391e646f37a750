"""The game journal: every state change of a game, appended and fsynced before it acts.

WHY: a museum kiosk loses power (a cleaner pulls the plug, a fuse blows). The
only thing that survives is what reached the disk, so the controller writes
what it is ABOUT to do before it does it. After a restart the journal says
which game was running, which moves were played and what the robot was in the
middle of; the camera and the gantry ledger then say how far it got.

Format: JSON lines, one record per line, each with a sequence number `seq`
(1, 2, 3, ... with no gap), a wall-clock time `t`, a `kind` and, last, a
checksum `crc` (CRC-32 of the line's text before it, 8 hex digits). Lines
written before the checksum existed are still read; once a line has a
checksum, every later one must have one too.

Reading validates every line (UTF-8, JSON, the record's shape, its checksum,
the next `seq`) and then the game itself (the last `game_started` names a
real variant and side, and every move in it is legal in turn). The records up
to the first bad line are the good prefix; nothing after a bad line is
trusted. A torn last line (a power cut during a write) was never
acknowledged, so nothing acted on it, but it is reported like any damage. A
damaged journal is moved aside (`journal.jsonl.damaged-<time>`, kept for
staff), its good prefix is written back as the current journal, and one
WARNING names the file and the problem (kiosk/notices.py, which the staff
screen shows). `Journal.damage` then tells the controller what happened:
the game is rebuilt from the good prefix and checked against the camera, or,
when the prefix holds no game (`game_lost`), the board is cleared.

A journal that is a valid prefix with its tail missing (a file cut exactly at
a line end, a restored backup, a deleted file) reads as good line by line, so
a second, durable record says how far it got: `journal.mark` holds the `seq`
of the last record `replay` rebuilds the game from (moves, set-up, game over,
hints, pauses), rewritten atomically after each such record is on disk and
reset before a game is archived. A journal that ends before its mark, or is
missing while its mark names a record, is damaged like any other: named in a
WARNING, the game rebuilt from what is left and checked against the camera, or
declared lost (a deleted journal while the board is full is therefore not
mistaken for a fresh start). Records that `replay` does not read (state
changes, plans) do not move the mark: losing them loses nothing the rebuild
needs, and the camera decides the rest.

The current game lives in `<state_dir>/journal.jsonl`; when a game is over and
the board cleared it is moved to `<state_dir>/games/<start-time>-<variant>.jsonl`.
"""
from __future__ import annotations

import json
import logging
import math
import os
import re
import time
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from calibration.durable import atomic_write_text, fsync_dir, set_aside

from kiosk import notices

CURRENT_NAME = "journal.jsonl"
MARK_NAME = "journal.mark"
ARCHIVE_DIR = "games"
#: the records kiosk/session.py `replay` rebuilds a game from: each moves the mark on
REPLAYED_KINDS = frozenset({"game_started", "setup_done", "visitor_move", "robot_move", "robot_move_done",
                            "game_over", "clearing", "cleared", "hint", "paused", "continued", "staff_setup",
                            "goal_reached", "game_lost"})

log = logging.getLogger("kiosk.journal")

_CRC_TAIL = re.compile(r',"crc":"([0-9a-f]{8})"\}$')
_KIND = re.compile(r"[a-z][a-z0-9_]{0,39}")
_SIDES = ("attackers", "defenders")


@dataclass(frozen=True)
class Record:
    """One journal line."""

    seq: int
    t: float
    kind: str
    data: dict[str, Any]

    def get(self, key: str, default: Any = None) -> Any:
        return self.data.get(key, default)


@dataclass(frozen=True)
class JournalDamage:
    """What was wrong with a journal and what was kept of it."""

    line: int                      # 1-based line of the first problem
    problem: str                   # e.g. "bad checksum", "seq 12 follows seq 10 (a line is missing)"
    kept: int                      # records in the good prefix
    kept_as: Path | None = None    # where the damaged file was moved
    game_lost: bool = False        # the good prefix holds no game: nothing to resume

    def describe(self) -> str:
        where = f"line {self.line}: " if self.line else ""
        return f"{where}{self.problem}"


@dataclass(frozen=True)
class JournalReading:
    """The good prefix of a journal file and, if the file was not all good, why."""

    records: list[Record] = field(default_factory=list)
    damage: JournalDamage | None = None


class Journal:
    """Append-only JSON-lines file with an fsync after every record."""

    def __init__(self, state_dir: str | os.PathLike[str]) -> None:
        self.state_dir = Path(state_dir)
        self.state_dir.mkdir(parents=True, exist_ok=True)
        self.path = self.state_dir / CURRENT_NAME
        self.mark_path = self.state_dir / MARK_NAME
        reading = read_journal(self.path)
        if reading.damage is None:
            reading = self._check_against_mark(reading)
        self._records = reading.records
        self.damage: JournalDamage | None = None
        if reading.damage is not None:
            self.damage = self._set_damaged_aside(reading.damage)
            self._write_mark(self._records[-1].seq if self._records else 0)
        elif self._records:
            log.info("%s: %d records read", self.path, len(self._records))
        else:
            log.info("%s: no journal, no game to resume", self.path)
        self._seq = self._records[-1].seq if self._records else 0
        self._file: TextIO | None = None
        self._closed = False

    def _check_against_mark(self, reading: JournalReading) -> JournalReading:
        """A journal that reads as good but ends before its mark has lost its tail (or is gone)."""
        mark = self._read_mark()
        last = reading.records[-1].seq if reading.records else 0
        if mark is None or last >= mark:
            return reading
        if not self.path.exists():
            problem = f"the journal is missing, but its record {mark} was written (the file was deleted or lost)"
        else:
            problem = (f"the journal ends at record {last}, but record {mark} was written "
                       f"(its last {mark - last} records are missing)")
        return JournalReading(reading.records, JournalDamage(len(reading.records) + 1, problem,
                                                             len(reading.records)))

    def _read_mark(self) -> int | None:
        """The mark's seq; None when there is none (an older install) or it cannot be read."""
        try:
            raw = self.mark_path.read_bytes()
        except FileNotFoundError:
            return None
        except OSError as exc:
            log.warning("%s: cannot be read (%s): the journal is not checked for a missing tail", self.mark_path, exc)
            return None
        try:
            data = json.loads(raw.decode("utf-8"))
            seq = data["seq"]
            if not isinstance(seq, int) or isinstance(seq, bool) or seq < 0:
                raise ValueError(f"bad seq {seq!r:.20}")
        except (ValueError, TypeError, KeyError, RecursionError) as exc:
            kept = set_aside(self.mark_path)
            notices.post(str(self.mark_path), f"damaged journal mark ({str(exc)[:60]})",
                         f"the journal is not checked for a missing tail this time; kept as {kept.name}",
                         logger=log)
            return None
        return seq

    def _write_mark(self, seq: int) -> None:
        try:
            atomic_write_text(self.mark_path, json.dumps({"seq": seq}) + "\n", mode=0o640)
        except OSError as exc:   # a full SD card: the journal itself is what matters
            log.warning("%s: could not be written (%s)", self.mark_path, exc)

    def _set_damaged_aside(self, damage: JournalDamage) -> JournalDamage:
        """Keep the damaged file for staff, write the good prefix back, say so once."""
        kept_as = set_aside(self.path) if self.path.exists() else None
        if self._records:
            atomic_write_text(self.path, "".join(_line(r.seq, r.t, r.kind, r.data) + "\n"
                                                 for r in self._records), mode=0o640)
        damage = JournalDamage(damage.line, damage.problem, damage.kept, kept_as,
                               game_lost=not any(r.kind == "game_started" for r in self._records))
        if damage.game_lost:
            action = "no game can be rebuilt from it: the game is lost and the board will be cleared"
        else:
            action = (f"the game is rebuilt from the first {damage.kept} records and checked "
                      "against the camera")
        kept = f"; the damaged file is kept as {kept_as.name}" if kept_as is not None else ""
        notices.post(str(self.path), f"damaged journal, {damage.describe()}", f"{action}{kept}", logger=log)
        return damage

    # -- reading -------------------------------------------------------
    @property
    def records(self) -> list[Record]:
        """Everything in the current game's journal (including what this process wrote)."""
        return list(self._records)

    def last(self, kind: str | None = None) -> Record | None:
        for rec in reversed(self._records):
            if kind is None or rec.kind == kind:
                return rec
        return None

    # -- writing -------------------------------------------------------
    def append(self, kind: str, **data: Any) -> Record:
        """Write one record and fsync it; returns it once it is on disk."""
        if self._closed:
            raise RuntimeError("journal is closed (the controller was stopped)")
        if "crc" in data:
            raise ValueError("'crc' is the journal's own field")
        self._seq += 1
        rec = Record(seq=self._seq, t=round(time.time(), 3), kind=kind, data=data)
        line = _line(rec.seq, rec.t, kind, data)
        if self._file is None:
            torn = self.path.exists() and self.path.stat().st_size > 0 and not _ends_with_newline(self.path)
            self._file = open(self.path, "a", encoding="utf-8")
            if torn:
                self._file.write("\n")      # close off a line torn by a power cut
        out = self._file
        out.write(line + "\n")
        out.flush()
        os.fsync(out.fileno())
        self._records.append(rec)
        if kind in REPLAYED_KINDS:
            self._write_mark(rec.seq)       # only once the record itself is on disk
        return rec

    def archive(self, name_hint: str = "game") -> Path | None:
        """Move the finished game's journal into games/ and start an empty one."""
        self._close_file()
        self._write_mark(0)          # first: a cut before the move leaves a whole journal, no false alarm
        if not self.path.exists() or self.path.stat().st_size == 0:
            self._records, self._seq = [], 0
            return None
        archive = self.state_dir / ARCHIVE_DIR
        archive.mkdir(exist_ok=True)
        stamp = time.strftime("%Y%m%d-%H%M%S", time.gmtime())
        target = archive / f"{stamp}-{_safe(name_hint)}.jsonl"
        n = 1
        while target.exists():
            n += 1
            target = archive / f"{stamp}-{_safe(name_hint)}-{n}.jsonl"
        os.replace(self.path, target)
        fsync_dir(self.state_dir)
        self._records, self._seq = [], 0
        return target

    def close(self) -> None:
        """Stop writing (further appends raise): used when the controller shuts down."""
        self._close_file()
        self._closed = True

    def _close_file(self) -> None:
        if self._file is not None:
            try:
                self._file.close()
            finally:
                self._file = None


def _line(seq: int, t: float, kind: str, data: dict[str, Any]) -> str:
    """One record as its journal line, with its checksum last."""
    text = json.dumps({"seq": seq, "t": t, "kind": kind, **data}, separators=(",", ":"), sort_keys=True)
    return f'{text[:-1]},"crc":"{zlib.crc32(text.encode("utf-8")):08x}"}}'


def read_records(path: str | os.PathLike[str]) -> list[Record]:
    """The good prefix of a journal file (see `read_journal`)."""
    return read_journal(path).records


def read_journal(path: str | os.PathLike[str]) -> JournalReading:
    """Validate a journal file line by line, then its game; the good prefix and the first damage.

    A missing file is an empty journal (no game). Only reads: moving a
    damaged file aside is `Journal`'s job.
    """
    p = Path(path)
    try:
        raw = p.read_bytes()
    except FileNotFoundError:
        return JournalReading()
    if not raw:
        return JournalReading([], JournalDamage(0, "empty file (0 bytes)", 0))
    lines = raw.split(b"\n")
    torn_tail = lines.pop()              # b"" when the file ends with a newline
    records: list[Record] = []
    checksummed = False
    skipped: tuple[int, str] | None = None   # an unreadable line: damage unless the next seq follows
    for number, raw_line in enumerate(lines, start=1):
        rec, problem = _parse_line(raw_line, checksummed)
        if rec is None:
            if skipped is not None:
                return _damaged(records, *skipped)
            skipped = (number, problem)
            continue
        checksummed = checksummed or problem == "crc"
        expected = records[-1].seq + 1 if records else 1
        if rec.seq != expected:
            if skipped is not None:
                return _damaged(records, *skipped)
            what = "missing" if rec.seq > expected else "repeated or out of order"
            return _damaged(records, number, f"seq {rec.seq} where {expected} was due (a line is {what})")
        if skipped is not None:
            # written before checksums: a line torn by a power cut and closed off by the
            # next boot; the next record follows on, so nothing acknowledged was lost
            log.info("%s: line %d: %s, a line torn by an earlier power cut (nothing lost)",
                     p, skipped[0], skipped[1])
            skipped = None
        records.append(rec)
    if skipped is not None:
        return _damaged(records, *skipped)
    if torn_tail.strip():
        rec, problem = _parse_line(torn_tail, checksummed)
        expected = records[-1].seq + 1 if records else 1
        if rec is None or rec.seq != expected:
            return _damaged(records, len(lines) + 1, f"last line torn, cut off in the middle of a write "
                                                     f"({problem if rec is None else 'out of sequence'})")
        records.append(rec)
    bad = check_game(records)
    if bad is not None:
        index, problem = bad
        return _damaged(records[:index], _line_of(lines, records[index].seq), problem)
    return JournalReading(records)


def _damaged(records: list[Record], line: int, problem: str) -> JournalReading:
    return JournalReading(records, JournalDamage(line, problem, len(records)))


def _line_of(lines: list[bytes], seq: int) -> int:
    """The line number of the record with `seq` (for the message only)."""
    needle = re.compile(rb'"seq":\s*%d\b' % seq)
    return next((n for n, line in enumerate(lines, start=1) if needle.search(line)), 0)


def _parse_line(raw: bytes, checksummed: bool) -> tuple[Record | None, str]:
    """(record, "crc" | "legacy") for a good line, (None, what is wrong) for a bad one."""
    try:
        text = raw.decode("utf-8").strip()
    except UnicodeDecodeError as exc:
        return None, f"not UTF-8 text (byte {exc.start})"
    if not text:
        return None, "an empty line"
    m = _CRC_TAIL.search(text)
    if m is not None:
        body = text[:m.start()] + "}"
        if zlib.crc32(body.encode("utf-8")) != int(m.group(1), 16):
            return None, "bad checksum"
    else:
        body = text
    try:
        obj = json.loads(body)
    except (ValueError, RecursionError):
        return None, "not JSON"
    problem = _record_problem(obj)
    if problem is not None:
        return None, problem
    if m is None and checksummed:
        return None, "no checksum after lines that have one"
    seq, t, kind = obj.pop("seq"), float(obj.pop("t")), obj.pop("kind")
    if "crc" in obj:
        return None, "a checksum that is not the last field"
    return Record(seq=seq, t=t, kind=kind, data=obj), ("crc" if m is not None else "legacy")


def _record_problem(obj: object) -> str | None:
    """What is wrong with the shape of a parsed line, or None."""
    if not isinstance(obj, dict):
        return f"not a record ({type(obj).__name__})"
    seq, t, kind = obj.get("seq"), obj.get("t"), obj.get("kind")
    if not isinstance(seq, int) or isinstance(seq, bool) or seq < 1:
        return f"bad seq {seq!r}"
    if not isinstance(t, (int, float)) or isinstance(t, bool) or not math.isfinite(t) or t < 0:
        return f"bad time {t!r}"
    if not isinstance(kind, str) or not _KIND.fullmatch(kind):
        return f"bad kind {kind!r}"
    return _KIND_CHECKS.get(kind, lambda _obj: None)(obj)


def _game_started(obj: dict) -> str | None:
    from engine import VARIANTS

    options = obj.get("options", {})
    if obj.get("variant") not in VARIANTS:
        return f"game_started with an unknown variant {obj.get('variant')!r}"
    if not isinstance(options, dict) or not all(isinstance(k, str) and isinstance(v, str)
                                                 for k, v in options.items()):
        return "game_started with options that are not names and values"
    if obj.get("visitor_side") not in _SIDES:
        return f"game_started with a bad visitor side {obj.get('visitor_side')!r}"
    if not isinstance(obj.get("level"), str) or not obj.get("level"):
        return "game_started without a level"
    return _match(obj)


def _match(obj: dict) -> str | None:
    """A journalled York match (kiosk/match.py) must read back."""
    if obj.get("match") is None:
        return None
    from kiosk.match import Match, MatchError

    try:
        Match.from_json(obj["match"])
    except MatchError as exc:
        return f"{obj['kind']} with {exc}"
    return None


def _move(obj: dict) -> str | None:
    if not isinstance(obj.get("move"), str):
        return f"{obj['kind']} without a move"
    for key in ("captures", "left"):
        value = obj.get(key, [])
        if not isinstance(value, list) or not all(isinstance(v, int) and not isinstance(v, bool) and v >= 0
                                                  for v in value):
            return f"{obj['kind']} with bad {key} {value!r}"
    if obj["kind"] == "robot_move":
        from kiosk.ports import Transfer

        plan = obj.get("plan", [])
        try:
            if not isinstance(plan, list):
                raise TypeError
            for t in plan:
                Transfer.from_json(t)
        except (KeyError, TypeError, ValueError, AttributeError):
            return "robot_move with a bad plan"
    return None


def _game_over(obj: dict) -> str | None:
    if obj.get("winner") not in (None, *_SIDES) or not isinstance(obj.get("reason", ""), str):
        return "game_over with a bad winner or reason"
    return _match(obj)


def _staff_setup(obj: dict) -> str | None:
    from engine import VARIANTS

    return None if obj.get("variant") in VARIANTS else f"staff_setup of an unknown variant {obj.get('variant')!r}"


# the kinds whose fields the controller reads back on a resume
_KIND_CHECKS = {"game_started": _game_started, "visitor_move": _move, "robot_move": _move,
                "game_over": _game_over, "staff_setup": _staff_setup}


def check_game(records: list[Record]) -> tuple[int, str] | None:
    """Replay the last game of `records` with the engine: (index of the first bad record, why), or None."""
    from engine import Board

    start = next((i for i in range(len(records) - 1, -1, -1) if records[i].kind == "game_started"), None)
    if start is None:
        return None
    rec = records[start]
    try:
        board = Board(rec.get("variant"), options=dict(rec.get("options") or {}))
    except ValueError as exc:
        return start, f"game_started that the engine refuses: {exc}"
    for i in range(start + 1, len(records)):
        r = records[i]
        if r.kind not in ("visitor_move", "robot_move"):
            continue
        otn = r.get("move").split("x")[0]
        try:
            move = board.parse_move(otn)
        except ValueError as exc:
            return i, f"{r.kind} {otn}: {exc}"
        why = board.why_illegal(move) if not board.is_game_over() else "the game was already over"
        if why:
            return i, f"{r.kind} {otn} is illegal at ply {len(board.move_stack) + 1}: {why}"
        captured = board.push(move)
        if not set(r.get("left") or []) <= set(captured):
            return i, f"{r.kind} {otn} leaves on the board pieces it did not capture"
    return None


def _ends_with_newline(path: Path) -> bool:
    with open(path, "rb") as f:
        f.seek(-1, os.SEEK_END)
        return f.read(1) == b"\n"


def _safe(text: str) -> str:
    return "".join(c if c.isalnum() or c in "-_" else "_" for c in text)[:40] or "game"
