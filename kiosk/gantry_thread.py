"""The gantry thread: carry out the controller's transfers one by one, report each.

WHY a thread: a transfer takes seconds of motion and the GRBL driver blocks
while it waits for `ok` and for motion to finish; the pygame loop cannot. The
controller submits a job (a list of transfers) and reads events in `poll()`:
'step' after each transfer (so the ledger and the screen follow the plan),
then 'done', or 'error' with a one-line reason (alarm, serial cable pulled,
garbled answers). After an error the remaining transfers are dropped: the
controller re-plans from the camera once the gantry is homed again, because
only the camera knows where the pieces really are.

`busy` means motion: a carry, homing, a jog or a staff call queued or under
way. The bookkeeping commands (the board, the ledger, the drag speed) are
queued in the same order but are not motion: the controller's first
`start()` hands the ledger over, and a staff jog right after it was refused
as "busy" whenever this thread had not yet taken that command (a loaded
machine).
"""
from __future__ import annotations

import logging
import queue
import threading
from typing import Any, Callable, Protocol

from kiosk.ports import GantryEvent, GantryEventKind, GantryPort, Transfer

log = logging.getLogger("kiosk.gantry")

MOTION_KINDS = frozenset({"carry", "home", "jog", "run"})   # the commands that make the gantry busy


class Mover(Protocol):
    """What the gantry thread needs from the robot package (see kiosk/robot_adapter.py)."""

    def home(self) -> None:
        """(Re)connect if needed, clear an alarm, home; raises on failure."""

    def begin(self, places: dict) -> None:
        """The table as the controller believes it, before the next transfers."""

    def carry(self, transfer: Transfer) -> None:
        """Drag one piece; blocks until the motion has finished; raises on failure."""

    def use_board(self, board_name: str, variant: str) -> None: ...

    def use_ledger(self, ledger: Any, path: str) -> None:
        """The one ledger of the board in play (opened by the kiosk, kiosk/inventory.py)."""

    def jog(self, dx_mm: float, dy_mm: float) -> tuple[float, float]:
        """Staff: move the carriage with the magnet off; returns the new position (mm)."""

    def make_safe(self) -> None:
        """Magnet off, motion stopped; never raises."""

    # -- optional: the exhibit's pause (kiosk/exhibit.py) --
    def pause(self) -> None:
        """Feed hold mid-carry, the magnet as it is (called from another thread)."""

    def resume(self) -> None: ...

    def set_feed(self, feed_mm_min: float | None) -> None: ...

    def close(self) -> None: ...


class GantryThread(GantryPort):
    """GantryPort on a daemon thread around a Mover."""

    def __init__(self, mover: Mover) -> None:
        self.mover = mover
        # (kind, job, payload); a carry's payload is [places, *transfers]
        self._commands: "queue.Queue[tuple[str, int, list[Any]] | None]" = queue.Queue()
        self._events: "queue.Queue[GantryEvent]" = queue.Queue()
        self._motion = 0                              # motion commands queued or running
        self._motion_lock = threading.Lock()
        self._cancel = threading.Event()
        self._finish_current = threading.Event()     # hold(): no transfer starts after this one
        self._carrying = threading.Event()           # a piece may be on the magnet right now
        self._thread = threading.Thread(target=self._run, name="tafl-gantry", daemon=True)
        self._thread.start()

    @property
    def busy(self) -> bool:
        """A motion command is queued or under way (see the module docstring)."""
        with self._motion_lock:
            return self._motion > 0

    def _put(self, kind: str, job: int, payload: list[Any]) -> None:
        if kind in MOTION_KINDS:
            with self._motion_lock:
                self._motion += 1
        self._commands.put((kind, job, payload))

    def submit(self, job: int, transfers: list[Transfer], places: dict | None = None) -> None:
        self._finish_current.clear()
        self._put("carry", job, [dict(places or {})] + list(transfers))

    def home(self, job: int) -> None:
        self._put("home", job, [])

    def jog(self, job: int, dx_mm: float, dy_mm: float) -> None:
        """Staff: move the carriage by dx, dy mm (magnet off); a 'jogged' event follows."""
        self._put("jog", job, [float(dx_mm), float(dy_mm)])

    def run(self, job: int, label: str, call: Callable[[Mover], object]) -> None:
        """Staff: call ``call(mover)`` on this thread (it may block on motion); a 'ran' event
        carries its return value, an 'error' event a raised exception (as any motion fault)."""
        self._put("run", job, [label, call])

    def use_board(self, board_name: str, variant: str) -> None:
        self._put("board", 0, [board_name, variant])

    # -- the exhibit's stop (kiosk/exhibit.py) --------------------------------------------
    def hold(self) -> None:
        """Stop at once without dropping anything: a feed hold with the piece on the magnet,
        and no further transfer of the job (it ends with 'done' after the current one, whose
        `step` says how many were carried). `release()` lets the current carry finish."""
        self._finish_current.set()
        if self._carrying.is_set():
            self.mover.pause()

    def release(self) -> None:
        """After `hold()`: the held carry goes on to its destination (then the job ends)."""
        self.mover.resume()

    def set_feed(self, feed_mm_min: float | None) -> None:
        """The drag speed of the carries that follow (None: the configured one)."""
        self._put("feed", 0, [feed_mm_min])

    def use_ledger(self, ledger: Any, path: str) -> None:
        self._put("ledger", 0, [ledger, path])

    def poll(self) -> list[GantryEvent]:
        out = []
        while True:
            try:
                out.append(self._events.get_nowait())
            except queue.Empty:
                return out

    def stop(self) -> None:
        self._cancel.set()
        self._commands.put(None)
        self._thread.join(timeout=10)
        self.mover.close()

    def abandon(self) -> None:
        """A power cut: stop between two G-code lines, no clean-up, no events."""
        self._cancel.set()
        self._commands.put(None)

    def _run(self) -> None:
        while True:
            command = self._commands.get()
            if command is None or self._cancel.is_set():
                return
            kind, job, payload = command
            try:
                if kind == "feed":
                    self.mover.set_feed(payload[0])
                elif kind == "board":
                    self.mover.use_board(str(payload[0]), str(payload[1]))
                elif kind == "ledger":
                    self.mover.use_ledger(payload[0], str(payload[1]))
                elif kind == "home":
                    self._home(job)
                elif kind == "run":
                    self._call(job, str(payload[0]), payload[1])
                elif kind == "jog":
                    self._jog(job, float(payload[0]), float(payload[1]))
                else:
                    self.mover.begin(payload[0])
                    self._carry(job, payload[1:])
            finally:
                if kind in MOTION_KINDS:
                    with self._motion_lock:
                        self._motion -= 1

    def _home(self, job: int) -> None:
        try:
            self.mover.home()
        except Exception as exc:  # noqa: BLE001 - reported to the controller
            log.warning("homing failed: %s", exc)
            self.mover.make_safe()
            self._events.put(GantryEvent(GantryEventKind.ERROR, job, activity="homing", error=_one_line(exc)))
            return
        self._events.put(GantryEvent(GantryEventKind.HOMED, job))

    def _jog(self, job: int, dx_mm: float, dy_mm: float) -> None:
        try:
            x, y = self.mover.jog(dx_mm, dy_mm)
        except Exception as exc:  # noqa: BLE001 - reported to the controller
            log.warning("jog failed: %s", exc)
            self.mover.make_safe()
            self._events.put(GantryEvent(GantryEventKind.ERROR, job, activity="jogging", error=_one_line(exc)))
            return
        self._events.put(GantryEvent(GantryEventKind.JOGGED, job, activity=f"{x:.1f},{y:.1f}"))

    def _call(self, job: int, label: str, call: Callable[[Mover], object]) -> None:
        try:
            result = call(self.mover)
        except Exception as exc:  # noqa: BLE001 - reported to the controller
            log.warning("%s failed: %s", label, exc)
            self.mover.make_safe()
            self._events.put(GantryEvent(GantryEventKind.ERROR, job, activity=label, error=_one_line(exc)))
            return
        self._events.put(GantryEvent(GantryEventKind.RAN, job, activity=label, result=result))

    def _carry(self, job: int, transfers: list[Transfer]) -> None:
        total = len(transfers)
        for i, transfer in enumerate(transfers):
            if self._cancel.is_set():
                return
            if self._finish_current.is_set():
                self._events.put(GantryEvent(GantryEventKind.DONE, job, step=i, total=total))
                return
            try:
                self._carrying.set()
                self.mover.carry(transfer)
            except Exception as exc:  # noqa: BLE001 - reported to the controller
                if self._cancel.is_set():
                    return
                log.warning("transfer %d/%d failed: %s", i + 1, total, exc)
                self.mover.make_safe()
                self._events.put(GantryEvent(GantryEventKind.ERROR, job, step=i, total=total, error=_one_line(exc)))
                return
            finally:
                self._carrying.clear()
            if self._cancel.is_set():
                return
            self._events.put(GantryEvent(GantryEventKind.STEP, job, step=i, total=total, transfer=transfer))
        self._events.put(GantryEvent(GantryEventKind.DONE, job, step=total, total=total))


def _one_line(exc: BaseException) -> str:
    text = f"{type(exc).__name__}: {exc}"
    return text.splitlines()[0][:200] if text else type(exc).__name__
