"""The controller's states, the transitions allowed between them, and the other discriminators.

WHY an explicit table: the controller is fed by events from three threads and
a process; a transition that is not in this table is a bug, and it is cheaper
to fail loudly in a test than to move a real piece at the wrong moment. Every
state change, the resume after a power cut included, goes through
`check_transition` (the resume starts from BOOT, which may lead anywhere).
"""
from __future__ import annotations

from enum import Enum


class State(str, Enum):
    BOOT = "boot"                      # constructed; the journal is not replayed yet
    IDLE = "idle"                      # no game; the board may hold anything
    SETUP = "setup"                    # the robot sets the start position from storage
    VISITOR_TURN = "visitor_turn"      # waiting for a stable board with the visitor's move
    FIX_BOARD = "fix_board"            # an illegal move or a mismatch: put these squares back
    THINKING = "thinking"              # the engine searches the robot's reply
    ROBOT_MOVING = "robot_moving"      # the gantry carries out a plan
    VERIFY = "verify"                  # the camera checks the robot's result
    PLACE_PIECE = "place_piece"        # the robot could not do it: a person places a piece
    PAUSED = "paused"                  # nobody at the board: the game waits, position kept
    GAME_OVER = "game_over"            # the result shows; the robot resets the board meanwhile
    CLEARING = "clearing"              # everything back to storage (staff)
    PAUSED_ERROR = "paused_error"      # the gantry or the camera failed; waiting to recover
    HANDOVER = "handover"              # self-play stopped for a visitor: take over or start fresh (kiosk/exhibit.py)

    def __str__(self) -> str:
        return self.value


class Purpose(str, Enum):
    """What a robot goal (a target for the squares) is for."""

    SETUP = "setup"          # the start position of the game about to be played
    MOVE = "move"            # the robot's own move, with its captures parked
    RESET = "reset"          # straight from the final position to the next start position
    CLEAR = "clear"          # everything into storage
    RESTORE = "restore"      # after a power cut


class Phase(str, Enum):
    READ = "read"            # plan from a fresh reading
    MOVING = "moving"        # the gantry carries the plan out
    VERIFY = "verify"        # the camera checks the result


class EndReason(str, Enum):
    """Why a game ended without the rules deciding it (the engine's own reasons are its strings)."""

    RESIGNED = "resigned"
    ENDED = "ended"                  # End game: stopped without a winner
    ABANDONED = "abandoned"          # a paused game that a new visitor replaced


S = State
_ALWAYS = {S.PAUSED_ERROR, S.GAME_OVER}

TRANSITIONS: dict[State, set[State]] = {
    S.BOOT: set(State) - {S.BOOT},
    S.IDLE: {S.SETUP, S.CLEARING},
    S.SETUP: {S.VISITOR_TURN, S.THINKING, S.PLACE_PIECE, S.IDLE},
    S.VISITOR_TURN: {S.FIX_BOARD, S.THINKING, S.PAUSED},
    S.FIX_BOARD: {S.VISITOR_TURN, S.THINKING, S.PAUSED},
    S.THINKING: {S.ROBOT_MOVING},
    # a carry that failed and cannot be re-planned from the board alone asks a person
    S.ROBOT_MOVING: {S.VERIFY, S.PLACE_PIECE},
    S.VERIFY: {S.ROBOT_MOVING, S.PLACE_PIECE, S.VISITOR_TURN},
    S.PLACE_PIECE: {S.VISITOR_TURN, S.THINKING, S.ROBOT_MOVING, S.VERIFY, S.IDLE, S.SETUP, S.CLEARING},
    S.PAUSED: {S.VISITOR_TURN, S.FIX_BOARD},
    S.GAME_OVER: {S.CLEARING, S.SETUP, S.IDLE, S.PLACE_PIECE},
    S.CLEARING: {S.IDLE, S.PLACE_PIECE},
    # back to wherever the failed step was, once the gantry is homed again
    S.PAUSED_ERROR: {S.SETUP, S.VERIFY, S.CLEARING, S.PLACE_PIECE, S.VISITOR_TURN, S.IDLE, S.HANDOVER},
    # self-play stopped by a visitor (kiosk/exhibit.py); the robot may finish its carry first
    S.HANDOVER: {S.VISITOR_TURN, S.ROBOT_MOVING, S.PLACE_PIECE},
}
# exhibit modes (kiosk/exhibit.py): self-play hands over; the referee parks captures between turns
for _state in (S.THINKING, S.ROBOT_MOVING, S.VERIFY, S.PLACE_PIECE):
    TRANSITIONS[_state].add(S.HANDOVER)
TRANSITIONS[S.VISITOR_TURN].add(S.ROBOT_MOVING)     # the referee parks a capture
TRANSITIONS[S.VERIFY].add(S.THINKING)               # self-play: the robot's next move follows its last
for _state in TRANSITIONS:
    if _state != S.BOOT:
        TRANSITIONS[_state] |= _ALWAYS - {_state}
TRANSITIONS[S.IDLE].discard(S.GAME_OVER)


def check_transition(old: State, new: State) -> None:
    """Raise RuntimeError for a transition the table does not allow."""
    if new != old and new not in TRANSITIONS[old]:
        raise RuntimeError(f"controller: no transition from {old.value} to {new.value}")
