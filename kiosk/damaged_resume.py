"""A game rebuilt from a damaged journal goes on only when the camera agrees with it.

WHY: kiosk/journal.py keeps the good prefix of a damaged journal (and moves the
file aside for staff). The prefix may end before moves that really happened,
so the rebuilt game is a guess until the camera has read the board: if the
board shows the rebuilt position (or one legal visitor move on, or differs only
on the squares the robot's current task works on) the game goes on; otherwise
it is declared lost on the staff screen and in the log, and the board is
cleared. With no game left in the prefix at all, the game is lost at once.
"""
from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from engine import Outcome
from vision.inference import Verdict, pieces_of, read_move

from kiosk import notices
from kiosk.reconcile import diff_squares
from kiosk.states import State

if TYPE_CHECKING:
    from kiosk.controller import GameController

log = logging.getLogger("kiosk.controller")


def journal_damage_lost(c: "GameController") -> bool:
    """The good prefix holds no game: record that it is lost, home, and clear the board."""
    damage = c.journal.damage
    if damage is None or not damage.game_lost:
        return False
    c.record("game_lost", reason=damage.describe())
    c.set_state(State.IDLE)
    c.home()
    c.clear_board()
    return True


def camera_agrees(c: "GameController") -> bool | None:
    """None until the camera has a still reading; then True to go on with the rebuilt game, or False
    once the game has been declared lost and the board is being cleared."""
    s = c.session
    if s is None:
        return True
    still = c.watch.still()
    if still is None:
        return None
    squares = pieces_of(still.probabilities)
    board = s.board
    diff = diff_squares(squares, board.pieces())
    goal = c.jobs.goal
    if not diff or (c.state == State.VISITOR_TURN and
                    read_move(board, still.probabilities, s.leftovers).verdict is Verdict.MOVE) or (
            goal is not None and (goal.scope is None or set(diff) <= goal.scope)):
        log.info("%s: the camera agrees with the game rebuilt from the damaged journal: resuming at ply %d",
                 c.journal.path, len(board.move_stack))
        return True
    notices.post(str(c.journal.path), f"the camera shows {len(diff)} squares unlike the game "
                 "rebuilt from the damaged journal", "the game is lost and the board will be cleared", logger=log)
    c.record("game_lost", reason=f"{len(diff)} squares differ from the rebuilt game")
    c.engine.cancel()
    c.jobs.drop_goal()
    s.outcome = Outcome(None, "journal damaged")
    c.set_state(State.GAME_OVER)
    c.clear_board()
    return False
