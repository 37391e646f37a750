"""The game journal: every state change of a game, appended and fsynced before it acts.

WHY: a museum kiosk loses power (a cleaner pulls the plug, a fuse blows). The
only thing that survives is what reached the disk, so the controller writes
what it is ABOUT to do before it does it. After a restart the journal says
which game was running, which moves were played and what the robot was in the
middle of; the camera and the gantry ledger then say how far it got.

Format: JSON lines, one record per line, each with a sequence number `seq`, a
wall-clock time `t` and a `kind`. A line cut short by a power cut is ignored
on reading (it was never acknowledged, so nothing acted on it).

The current game lives in `<state_dir>/journal.jsonl`; when a game is over and
the board cleared it is moved to `<state_dir>/games/<start-time>-<variant>.jsonl`.
"""
from __future__ import annotations

import json
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator

from calibration.durable import fsync_dir

CURRENT_NAME = "journal.jsonl"
ARCHIVE_DIR = "games"


@dataclass(frozen=True)
class Record:
    """One journal line."""

    seq: int
    t: float
    kind: str
    data: dict[str, Any]

    def get(self, key: str, default: Any = None) -> Any:
        return self.data.get(key, default)


class Journal:
    """Append-only JSON-lines file with an fsync after every record."""

    def __init__(self, state_dir: str | os.PathLike[str]) -> None:
        self.state_dir = Path(state_dir)
        self.state_dir.mkdir(parents=True, exist_ok=True)
        self.path = self.state_dir / CURRENT_NAME
        self._records = read_records(self.path)
        self._seq = self._records[-1].seq if self._records else 0
        self._file = None
        self._closed = False

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
        self._seq += 1
        rec = Record(seq=self._seq, t=time.time(), kind=kind, data=data)
        line = json.dumps({"seq": rec.seq, "t": round(rec.t, 3), "kind": kind, **data},
                          separators=(",", ":"), sort_keys=True)
        if self._file is None:
            torn = self.path.exists() and self.path.stat().st_size > 0 and not _ends_with_newline(self.path)
            self._file = open(self.path, "a", encoding="utf-8")
            if torn:
                self._file.write("\n")      # close off a line torn by a power cut
        self._file.write(line + "\n")
        self._file.flush()
        os.fsync(self._file.fileno())
        self._records.append(rec)
        return rec

    def archive(self, name_hint: str = "game") -> Path | None:
        """Move the finished game's journal into games/ and start an empty one."""
        self._close_file()
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


def read_records(path: str | os.PathLike[str]) -> list[Record]:
    """All complete records of a journal file; a torn last line is dropped."""
    p = Path(path)
    if not p.exists():
        return []
    return list(_parse_lines(p.read_text(encoding="utf-8", errors="replace").splitlines()))


def _parse_lines(lines: list[str]) -> Iterator[Record]:
    for line in lines:
        line = line.strip()
        if not line:
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError:
            continue        # torn by a power cut: never acknowledged
        if not isinstance(obj, dict) or "kind" not in obj or "seq" not in obj:
            continue
        seq, t, kind = int(obj.pop("seq")), float(obj.pop("t", 0.0)), str(obj.pop("kind"))
        yield Record(seq=seq, t=t, kind=kind, data=obj)


def _ends_with_newline(path: Path) -> bool:
    with open(path, "rb") as f:
        f.seek(-1, os.SEEK_END)
        return f.read(1) == b"\n"


def _safe(text: str) -> str:
    return "".join(c if c.isalnum() or c in "-_" else "_" for c in text)[:40] or "game"
