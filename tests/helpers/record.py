"""Games for the take-home record tests: a real 200-ply Copenhagen game and random games of each variant."""
from __future__ import annotations

import csv
import random
from typing import Any

from engine import Board
from kiosk.gamelog import GameRecord, record_from_board
from tests.helpers.paths import REPO

DATA = REPO / "tests" / "data" / "copenhagen-games.csv"     # the real games (in the repo)


def real_game_texts(plies: int = 200) -> list[str]:
    """The moves of the recorded real game closest to ``plies`` long, as the engine writes them."""
    with DATA.open(newline="") as handle:
        rows = list(csv.reader(handle))
    row = min(rows, key=lambda r: abs(len(r[0].split()) - plies))
    board = Board("copenhagen")
    for text in row[0].split():
        if board.is_game_over():
            board.resume()
        board.push(board.parse_move(text.split("x")[0]))
    return _texts(board)


def _texts(board: Board) -> list[str]:
    from kiosk.gamelog import moves_with_captures

    return moves_with_captures(board)


def random_board(variant: str, seed: int, plies: int = 200, options: dict | None = None) -> Board:
    """A game of random legal moves that prefers captures, so every capture kind comes up."""
    rng = random.Random(seed)
    board = Board(variant, options=options or {})
    for _ in range(plies):
        moves = board.legal_moves
        if not moves or board.is_game_over():
            break
        capturing = [m for m in moves if board.captures_of(m)]
        board.push(rng.choice(capturing if capturing and rng.random() < 0.7 else moves))
    return board


def game_record(board: Board, **fields) -> GameRecord:
    """The game log's record of the game on ``board`` (a visitor's win on Hard unless told otherwise)."""
    outcome = board.outcome()
    values: dict[str, Any] = {"visitor_side": "defenders", "level": "hard", "result": "visitor", "reason": "king_escaped",
              "winner": "defenders", "started_at": "2026-12-01T12:00:00Z", "ended_at": "2026-12-01T12:40:07Z"}
    if outcome is not None and "reason" not in fields:
        values["reason"] = outcome.reason
    values.update(fields)
    return record_from_board(board, **values)


def record_of_texts(moves: list[str], **fields) -> GameRecord:
    values: dict[str, Any] = {"variant": "copenhagen", "visitor_side": "defenders", "level": "hard", "result": "visitor",
              "reason": "king_escaped", "winner": "defenders", "moves": moves,
              "started_at": "2026-12-01T12:00:00Z", "ended_at": "2026-12-01T12:40:07Z"}
    values.update(fields)
    return GameRecord(**values)
