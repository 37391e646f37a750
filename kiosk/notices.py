"""Staff notices: damaged state files and harmful configurations, for the log and the staff screen.

WHY one place: damage is found by several readers at different moments (the
config loader before any controller exists, the journal when the controller
starts, the robot's ledger when the gantry adapter picks a board), yet staff
must see every finding on one screen and the log must carry exactly one
WARNING line per finding. Each reader calls `post()`; the staff screen draws
`current()`. Notices are kept for the life of the kiosk process (one
process, one screen); the log and the file set aside keep them for later.
"""
from __future__ import annotations

import logging
import threading
import time
from dataclasses import dataclass

log = logging.getLogger("kiosk.notices")


@dataclass(frozen=True)
class Notice:
    """One finding: which file, what was wrong, and what the kiosk did about it."""

    file: str
    problem: str
    action: str
    t: float

    def line(self) -> str:
        return f"{self.file}: {self.problem}; {self.action}"


_lock = threading.Lock()
_notices: list[Notice] = []


def post(file: str, problem: str, action: str, *, logger: logging.Logger | None = None) -> Notice:
    """Record a finding and log it as one WARNING line naming the file."""
    notice = Notice(str(file), problem, action, time.time())
    (logger or log).warning("%s", notice.line())
    with _lock:
        _notices.append(notice)
    return notice


def current() -> list[Notice]:
    """Every notice of this process, oldest first."""
    with _lock:
        return list(_notices)


def clear() -> None:
    """Forget every notice (tests; a fresh simulated table)."""
    with _lock:
        _notices.clear()
