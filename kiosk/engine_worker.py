"""The engine searches in a separate process, so the screen keeps its frame rate.

WHY a process (spawn), not a thread: the search is pure Python and CPU bound;
in a thread it would hold the GIL and the pygame loop would stutter while the
robot thinks. The worker is started once and kept (spawning costs about a
second of imports); requests and replies are small picklable tuples over a
multiprocessing queue, and `poll()` never blocks.

A new request supersedes an older one: the controller only accepts the reply
whose id it asked for last, so a cancelled search's late answer is ignored.
"""
from __future__ import annotations

import multiprocessing as mp
import os
import queue
from dataclasses import asdict, is_dataclass
from typing import Any


def search_move(variant: str, options: dict[str, str], moves: list[str], level: dict[str, Any],
                seed: int) -> str:
    """The engine's reply in OTN for the game `moves` (from the start) at `level` (a dict)."""
    from engine.search import best_move_text      # the search engineer's entry point for other processes

    return best_move_text(variant, options, moves=moves, level=level, seed=seed)


def _worker(requests: "mp.Queue[Any]", replies: "mp.Queue[Any]") -> None:
    parent = os.getppid()
    while True:
        try:
            item = requests.get(timeout=1.0)
        except queue.Empty:
            if os.getppid() != parent:
                return          # the kiosk died (a power cut, a kill): do not linger as an orphan
            continue
        if item is None:
            return
        request_id, variant, options, moves, level, seed = item
        try:
            replies.put((request_id, search_move(variant, options, moves, level, seed), None))
        except Exception as exc:  # noqa: BLE001 - reported to the controller, which decides
            replies.put((request_id, None, f"{type(exc).__name__}: {exc}"))


class EngineWorker:
    """EnginePort on a spawned process. Start it once; `request()` and `poll()` never block."""

    def __init__(self, levels: dict[str, Any], *, seed: int = 0, start_method: str = "spawn",
                 time_scale: float = 1.0) -> None:
        self.levels = {name: (asdict(cfg) if is_dataclass(cfg) else dict(cfg)) for name, cfg in levels.items()}
        for name, cfg in self.levels.items():
            cfg["name"] = name
            cfg["time_s"] = float(cfg["time_s"]) * time_scale
        self.seed = seed
        ctx = mp.get_context(start_method)
        self._requests: "mp.Queue[Any]" = ctx.Queue()
        self._replies: "mp.Queue[Any]" = ctx.Queue()
        self._process = ctx.Process(target=_worker, args=(self._requests, self._replies),
                                    name="tafl-engine", daemon=True)
        self._process.start()
        self._latest = 0
        self.last_error: str | None = None
        self._count = 0

    @property
    def pid(self) -> int | None:
        return self._process.pid

    def request(self, request_id: int, variant: str, options: dict[str, str],
                moves_otn: list[str], level: str) -> None:
        if level not in self.levels:
            raise ValueError(f"unknown level {level!r}; known: {', '.join(self.levels)}")
        self._latest = request_id
        self._count += 1
        self._requests.put((request_id, variant, dict(options), list(moves_otn), self.levels[level],
                            self.seed * 100003 + self._count))

    def poll(self) -> tuple[int, str] | None:
        while True:
            try:
                request_id, move, error = self._replies.get_nowait()
            except queue.Empty:
                return None
            if request_id != self._latest:
                continue
            if error is not None:
                self.last_error = error
                raise RuntimeError(f"engine search failed: {error}")
            return request_id, move

    def cancel(self) -> None:
        self._latest = -1

    def stop(self) -> None:
        if self._process.is_alive():
            try:
                self._requests.put(None)
            except (OSError, ValueError):
                pass
            self._process.join(timeout=2)
            if self._process.is_alive():
                self._process.kill()
                self._process.join(timeout=2)

    def kill(self) -> None:
        """Hard stop (a simulated power cut): no goodbye."""
        if self._process.is_alive():
            self._process.kill()
            self._process.join(timeout=2)
