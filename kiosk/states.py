"""The controller's states and the transitions allowed between them.

WHY an explicit table: the controller is fed by events from three threads and
a process; a transition that is not in this table is a bug, and it is cheaper
to fail loudly in a test than to move a real piece at the wrong moment.
"""
from __future__ import annotations

from enum import Enum


class State(str, Enum):
    IDLE = "idle"                      # no game; the board may hold anything
    SETUP = "setup"                    # the robot sets the start position from storage
    VISITOR_TURN = "visitor_turn"      # waiting for a stable board with the visitor's move
    FIX_BOARD = "fix_board"            # an illegal move or a mismatch: put these squares back
    THINKING = "thinking"              # the engine searches the robot's reply
    ROBOT_MOVING = "robot_moving"      # the gantry carries out a plan
    VERIFY = "verify"                  # the camera checks the robot's result
    PLACE_PIECE = "place_piece"        # the robot could not do it: a person places a piece
    GAME_OVER = "game_over"
    CLEARING = "clearing"              # everything back to storage
    PAUSED_ERROR = "paused_error"      # the gantry or the camera failed; waiting to recover

    def __str__(self) -> str:
        return self.value


S = State
_ALWAYS = {S.PAUSED_ERROR, S.GAME_OVER}

TRANSITIONS: dict[State, set[State]] = {
    S.IDLE: {S.SETUP, S.CLEARING},
    S.SETUP: {S.VISITOR_TURN, S.THINKING, S.PLACE_PIECE, S.IDLE},
    S.VISITOR_TURN: {S.FIX_BOARD, S.THINKING},
    S.FIX_BOARD: {S.VISITOR_TURN, S.THINKING},
    S.THINKING: {S.ROBOT_MOVING},
    S.ROBOT_MOVING: {S.VERIFY},
    S.VERIFY: {S.ROBOT_MOVING, S.PLACE_PIECE, S.VISITOR_TURN},
    S.PLACE_PIECE: {S.VISITOR_TURN, S.THINKING, S.ROBOT_MOVING, S.VERIFY, S.IDLE},
    S.GAME_OVER: {S.CLEARING, S.SETUP},
    S.CLEARING: {S.IDLE, S.PLACE_PIECE},
    # back to wherever the failed step was, once the gantry is homed again
    S.PAUSED_ERROR: {S.SETUP, S.VERIFY, S.CLEARING, S.PLACE_PIECE, S.VISITOR_TURN, S.IDLE},
}
for _state in TRANSITIONS:
    TRANSITIONS[_state] |= _ALWAYS - {_state}
TRANSITIONS[S.IDLE].discard(S.GAME_OVER)


def check_transition(old: State, new: State) -> None:
    """Raise RuntimeError for a transition the table does not allow."""
    if new != old and new not in TRANSITIONS[old]:
        raise RuntimeError(f"controller: no transition from {old.value} to {new.value}")
