"""The museum's record of every finished game, kept in the kiosk's state directory.

One game is one JSON line appended to `<state_dir>/gamelog/YYYY-MM.jsonl` (the
month the game ended, UTC), written with a single write and fsync, so a power
cut can at worst tear the line being written, never an earlier game. The
moves are OpenTafl notation with their captures ("e5-e8xe9"), as the engine
writes them, plus the whole game as numbered OTN text ("1. d1-d3 f4-e4 2. ...")
that OpenTafl-style tools read.

This is the museum's statistics record, separate from the controller's
crash-recovery journal: it holds finished games only, one self-contained line
each, in a format a spreadsheet can take (`python -m kiosk.gamelog csv`) and
that `summary()` counts (`python -m kiosk.gamelog summary`).
"""
from __future__ import annotations

import argparse
import csv
import json
import logging
import os
import sys
from collections import Counter
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any

from calibration.durable import append_durably, fsync_dir

if TYPE_CHECKING:
    from engine import Board

log = logging.getLogger(__name__)

SCHEMA = 1
GAMES_DIR = "gamelog"          # not games/: that holds the controller's archived journals
SIDES = ("attackers", "defenders")
LEVELS = ("easy", "medium", "hard")
# From the visitor's point of view. "abandoned": the visitor walked away (idle
# timeout) or staff ended the game; no one won.
RESULTS = ("visitor", "robot", "draw", "abandoned")


def _utc_text(moment: datetime | str) -> str:
    if isinstance(moment, str):
        moment = datetime.fromisoformat(moment.replace("Z", "+00:00"))
    if moment.tzinfo is None:
        raise ValueError(f"timestamp {moment.isoformat()} has no time zone; pass an aware datetime")
    return moment.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def _parse_utc(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def otn_text(moves: Sequence[str]) -> str:
    """Numbered move text: "1. d1-d3 f4-e4 2. k7-i7" (attackers move first)."""
    parts: list[str] = []
    for index, move in enumerate(moves):
        if index % 2 == 0:
            parts.append(f"{index // 2 + 1}.")
        parts.append(move)
    return " ".join(parts)


@dataclass
class GameRecord:
    """One finished game, as the museum keeps it."""

    variant: str
    visitor_side: str                 # "attackers" or "defenders"
    level: str                        # "easy", "medium", "hard"
    result: str                       # see RESULTS
    reason: str                       # the engine's outcome reason, "resigned", "idle timeout", ...
    moves: list[str]                  # OTN with captures, first move first
    started_at: str                   # ISO 8601, UTC ("2026-11-29T18:40:12Z")
    ended_at: str
    options: dict[str, str] = field(default_factory=dict)
    winner: str | None = None         # side that won, None for a draw or abandoned game
    move_times_s: list[float] = field(default_factory=list)   # seconds from the start to each move
    language: str = ""
    game_id: str = ""
    extra: dict[str, Any] = field(default_factory=dict)
    # the hints the visitor asked for (kiosk/teaching.py): {"ply": plies before it, "move": OTN}
    hints: list[dict[str, Any]] = field(default_factory=list)

    def __post_init__(self) -> None:
        if self.visitor_side not in SIDES:
            raise ValueError(f"visitor_side {self.visitor_side!r}: expected one of {', '.join(SIDES)}")
        if self.result not in RESULTS:
            raise ValueError(f"result {self.result!r}: expected one of {', '.join(RESULTS)}")
        if self.winner is not None and self.winner not in SIDES:
            raise ValueError(f"winner {self.winner!r}: expected one of {', '.join(SIDES)} or None")
        if self.move_times_s and len(self.move_times_s) != len(self.moves):
            raise ValueError(
                f"move_times_s has {len(self.move_times_s)} entries for {len(self.moves)} moves")
        if not isinstance(self.hints, list) or not all(isinstance(h, dict) and {"ply", "move"} <= set(h)
                                                          for h in self.hints):
            raise ValueError("hints: expected a list of {ply, move} objects")
        self.started_at = _utc_text(self.started_at)
        self.ended_at = _utc_text(self.ended_at)
        if not self.game_id:
            self.game_id = f"{self.ended_at}-{self.variant}"

    @property
    def robot_side(self) -> str:
        return SIDES[1] if self.visitor_side == SIDES[0] else SIDES[0]

    @property
    def plies(self) -> int:
        return len(self.moves)

    @property
    def duration_s(self) -> float:
        return (_parse_utc(self.ended_at) - _parse_utc(self.started_at)).total_seconds()

    def to_json(self) -> str:
        data = {"schema": SCHEMA, **asdict(self)}
        data["robot_side"] = self.robot_side
        data["plies"] = self.plies
        data["otn"] = otn_text(self.moves)
        return json.dumps(data, ensure_ascii=False, separators=(",", ":"))

    @classmethod
    def from_json(cls, line: str) -> "GameRecord":
        data = json.loads(line)
        if not isinstance(data, dict) or data.get("schema") != SCHEMA:
            raise ValueError("not a game record of schema %d" % SCHEMA)
        known = {name for name in cls.__dataclass_fields__}
        return cls(**{key: value for key, value in data.items() if key in known})


def moves_with_captures(board: Board) -> list[str]:
    """The OTN of every move on `board`'s stack, with the captures each made.

    engine.Board.move_to_otn writes the captures a move makes in the position
    before it, so the game is replayed from its first position.
    """
    replay = board.copy()
    stack = list(replay.move_stack)
    for _ in stack:
        replay.pop()
    texts: list[str] = []
    for move in stack:
        texts.append(replay.move_to_otn(move))
        replay.push(move)
    return texts


def _side_text(side: Any) -> str:
    """engine.Side (a str enum) or a plain string -> "attackers" / "defenders"."""
    return str(getattr(side, "value", side))


def record_from_board(
    board: Board,
    *,
    visitor_side: Any,
    level: str,
    result: str,
    reason: str,
    started_at: datetime | str,
    ended_at: datetime | str | None = None,
    winner: Any = None,
    move_times_s: Sequence[float] = (),
    language: str = "",
    extra: dict[str, Any] | None = None,
    hints: Sequence[dict[str, Any]] = (),
) -> GameRecord:
    """A GameRecord for the game played on an engine.Board."""
    return GameRecord(
        variant=board.variant,
        options={str(k): str(v) for k, v in dict(board.options).items()},
        visitor_side=_side_text(visitor_side),
        level=level,
        result=result,
        reason=reason,
        winner=None if winner is None else _side_text(winner),
        moves=moves_with_captures(board),
        move_times_s=[round(float(t), 3) for t in move_times_s],
        started_at=_utc_text(started_at),
        ended_at=_utc_text(ended_at if ended_at is not None else datetime.now(timezone.utc)),
        language=language,
        extra=dict(extra or {}),
        hints=[{"ply": int(h["ply"]), "move": str(h["move"])} for h in hints],
    )


def _games_dir(state_dir: str | Path) -> Path:
    return Path(state_dir) / GAMES_DIR


def append_game(state_dir: str | Path, record: GameRecord) -> Path:
    """Append `record` to its month's file and fsync it; returns the file."""
    directory = _games_dir(state_dir)
    created_dir = not directory.exists()
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"{record.ended_at[:7]}.jsonl"
    append_durably(path, (record.to_json() + "\n").encode("utf-8"), mode=0o640)
    if created_dir:   # make the new directory's own entry survive a power cut
        fsync_dir(directory.parent)
    return path


@dataclass
class ReadResult:
    games: list[GameRecord]
    bad_lines: list[str]              # "file:line: why", e.g. a line torn by a power cut


def read_games(state_dir: str | Path) -> ReadResult:
    """Every game in the state directory, oldest file first; bad lines are reported, not fatal."""
    games: list[GameRecord] = []
    bad: list[str] = []
    directory = _games_dir(state_dir)
    if not directory.is_dir():
        return ReadResult(games, bad)
    for path in sorted(directory.glob("*.jsonl")):
        with path.open(encoding="utf-8", errors="replace") as handle:
            for number, line in enumerate(handle, start=1):
                if not line.strip():
                    continue
                try:
                    games.append(GameRecord.from_json(line))
                except (ValueError, TypeError) as exc:
                    bad.append(f"{path.name}:{number}: {exc}")
    return ReadResult(games, bad)


@dataclass
class Summary:
    """Counts over the game log, for the museum and staff mode."""

    games: int = 0
    by_variant: Counter[str] = field(default_factory=Counter)
    by_level: Counter[str] = field(default_factory=Counter)
    by_result: Counter[str] = field(default_factory=Counter)
    by_reason: Counter[str] = field(default_factory=Counter)
    by_visitor_side: Counter[str] = field(default_factory=Counter)
    visitor_wins_by_level: Counter[str] = field(default_factory=Counter)
    hints: int = 0                    # hints given, over all games
    games_with_hints: int = 0
    total_plies: int = 0
    total_duration_s: float = 0.0
    first_game: str = ""
    last_game: str = ""
    bad_lines: int = 0

    @property
    def mean_plies(self) -> float:
        return self.total_plies / self.games if self.games else 0.0

    @property
    def mean_duration_s(self) -> float:
        return self.total_duration_s / self.games if self.games else 0.0

    def as_text(self) -> str:
        def counts(counter: Counter[str]) -> str:
            return ", ".join(f"{key} {value}" for key, value in sorted(counter.items())) or "-"

        lines = [
            f"games: {self.games}" + (f" ({self.first_game} to {self.last_game})" if self.games else ""),
            f"results: {counts(self.by_result)}",
            f"variants: {counts(self.by_variant)}",
            f"levels: {counts(self.by_level)}",
            "visitor wins by level: " + (", ".join(
                f"{level} {self.visitor_wins_by_level[level]}/{self.by_level[level]}"
                for level in sorted(self.by_level)) or "-"),
            f"visitor played: {counts(self.by_visitor_side)}",
            f"reasons: {counts(self.by_reason)}",
            f"mean plies: {self.mean_plies:.1f}, mean duration: {self.mean_duration_s / 60:.1f} min",
            f"hints: {self.hints} in {self.games_with_hints} games",
        ]
        if self.bad_lines:
            lines.append(f"unreadable lines skipped: {self.bad_lines}")
        return "\n".join(lines)


def summary(state_dir: str | Path, *, since: datetime | None = None) -> Summary:
    """Count the games in the state directory (those ended at or after `since`, if given)."""
    result = read_games(state_dir)
    out = Summary(bad_lines=len(result.bad_lines))
    cutoff = _utc_text(since) if since is not None else ""
    for game in result.games:
        if cutoff and game.ended_at < cutoff:
            continue
        out.games += 1
        out.by_variant[game.variant] += 1
        out.by_level[game.level] += 1
        out.by_result[game.result] += 1
        out.by_reason[game.reason] += 1
        out.by_visitor_side[game.visitor_side] += 1
        if game.result == "visitor":
            out.visitor_wins_by_level[game.level] += 1
        out.total_plies += game.plies
        out.hints += len(game.hints)
        out.games_with_hints += 1 if game.hints else 0
        out.total_duration_s += game.duration_s
        if not out.first_game or game.ended_at < out.first_game:
            out.first_game = game.ended_at
        if game.ended_at > out.last_game:
            out.last_game = game.ended_at
    return out


CSV_COLUMNS = ("game_id", "started_at", "ended_at", "variant", "options", "visitor_side",
               "level", "result", "winner", "reason", "plies", "duration_s", "language", "hints", "otn")


def write_csv(state_dir: str | Path, out: Any) -> int:
    """Write one CSV row per game to the text stream `out`; returns the number of games."""
    writer = csv.writer(out)
    writer.writerow(CSV_COLUMNS)
    games = read_games(state_dir).games
    for game in games:
        writer.writerow([
            game.game_id, game.started_at, game.ended_at, game.variant,
            " ".join(f"{k}={v}" for k, v in sorted(game.options.items())),
            game.visitor_side, game.level, game.result, game.winner or "", game.reason,
            game.plies, f"{game.duration_s:.0f}", game.language, len(game.hints), otn_text(game.moves),
        ])
    return len(games)


def main(argv: Sequence[str] | None = None) -> int:
    """`python -m kiosk.gamelog summary|csv [STATE_DIR]` for the museum's statistics."""
    parser = argparse.ArgumentParser(prog="python -m kiosk.gamelog",
                                     description="Statistics from the kiosk's game log.")
    parser.add_argument("command", choices=("summary", "csv"))
    parser.add_argument("state_dir", nargs="?",
                        default=os.environ.get("TAFL_KIOSK_STATE_DIR", "/var/lib/tafl-kiosk"))
    parser.add_argument("--since", help="only games ended on or after this date (YYYY-MM-DD)")
    args = parser.parse_args(argv)
    if not Path(args.state_dir).is_dir():
        print(f"error: state directory {args.state_dir} does not exist", file=sys.stderr)
        return 2
    if args.command == "csv":
        write_csv(args.state_dir, sys.stdout)
        return 0
    since = None
    if args.since:
        try:
            since = datetime.fromisoformat(args.since).replace(tzinfo=timezone.utc)
        except ValueError:
            print(f"error: --since {args.since!r}: expected a date YYYY-MM-DD", file=sys.stderr)
            return 2
    print(summary(args.state_dir, since=since).as_text())
    return 0


if __name__ == "__main__":
    sys.exit(main())
