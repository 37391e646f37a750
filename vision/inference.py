"""Which legal move did the visitor make? The one whose result best explains the squares.

Each hypothesis is a complete board: "nothing changed yet", or a legal move
of the side to move with its captures, where every captured piece may be
already lifted off or still standing (visitors often forget, or the robot
removes it). Its score is the log-likelihood of the observed per-square
class probabilities; since a move changes only a few squares, scores are
computed as differences from the unchanged board. A move is accepted only
if it beats the best *different* move by a clear margin and no square
contradicts it confidently; otherwise the kiosk is told which squares
differ from the position it expected.
"""
from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field
from enum import Enum

import numpy as np

from engine import Board, Move
from vision.position import SquareClass

# A square's class probability is never taken as lower than this, so one
# bad square costs a bounded amount (log 1e-4 = -9.2 nats) instead of -inf.
PROBABILITY_FLOOR = 1e-4


class Verdict(str, Enum):
    MOVE = "move"                 # one legal move explains the board, clearly
    UNCHANGED = "unchanged"       # the board still shows the position before the move
    AMBIGUOUS = "ambiguous"       # two explanations are too close to call
    MISMATCH = "mismatch"         # nothing legal explains the board


@dataclass(frozen=True)
class Hypothesis:
    move: Move | None
    left_on_board: tuple[int, ...]        # captured squares whose piece still stands
    log_likelihood: float
    label: str


@dataclass
class Inference:
    verdict: Verdict
    move: Move | None
    move_otn: str | None
    captures: tuple[int, ...]             # squares the move captures
    captures_pending: tuple[int, ...]     # of those, still occupied on the board
    log_likelihood: float
    margin: float                         # nats over the best different explanation
    runner_up: str | None
    differing: list[int] = field(default_factory=list)   # observed != position before the move
    unexplained: list[int] = field(default_factory=list) # observed confidently != best explanation

    @property
    def accepted(self) -> bool:
        return self.verdict is Verdict.MOVE


def board_classes(board: Board) -> np.ndarray:
    """Class index per square of an engine position."""
    out = np.zeros(board.size * board.size, np.int64)
    for sq, piece in board.pieces().items():
        out[sq] = int(SquareClass.from_letter(piece.value))
    return out


class MoveInferrer:
    """Scores every legal move of the side to move against an observation."""

    def __init__(self, min_margin: float = 6.0, contradiction: float = 0.9):
        self.min_margin = min_margin            # nats: e^6 = 400 to 1
        self.contradiction = contradiction      # a square this sure of another class breaks a hypothesis

    def infer(self, board: Board, probabilities: np.ndarray) -> Inference:
        size = board.size
        probs = np.asarray(probabilities, np.float64)
        if probs.shape != (size * size, len(SquareClass)):
            raise ValueError(f"expected probabilities of shape {(size * size, len(SquareClass))}, got {probs.shape}")
        logp = np.log(np.maximum(probs, PROBABILITY_FLOOR))
        before = board_classes(board)
        base = float(logp[np.arange(len(before)), before].sum())
        empty = int(SquareClass.EMPTY)

        hyps = [Hypothesis(None, (), base, "no move")]
        for move in board.legal_moves:
            mover = before[move.from_sq]
            move_caps = tuple(board.captures_of(move))
            delta = (logp[move.from_sq, empty] - logp[move.from_sq, mover]
                     + logp[move.to_sq, mover] - logp[move.to_sq, empty])
            label = board.move_to_otn(move)
            for k in range(len(move_caps) + 1):
                for kept in itertools.combinations(move_caps, k):
                    d = delta + sum(logp[sq, empty] - logp[sq, before[sq]] for sq in move_caps if sq not in kept)
                    hyps.append(Hypothesis(move, kept, base + d, label))
        hyps.sort(key=lambda h: -h.log_likelihood)
        best = hyps[0]
        rival = next((h for h in hyps[1:] if h.move != best.move), None)
        margin = best.log_likelihood - rival.log_likelihood if rival else math.inf

        expected = before.copy()
        caps: tuple[int, ...] = ()
        if best.move is not None:
            caps = tuple(board.captures_of(best.move))
            expected[best.move.to_sq] = before[best.move.from_sq]
            expected[best.move.from_sq] = empty
            for sq in caps:
                if sq not in best.left_on_board:
                    expected[sq] = empty
        observed = probs.argmax(1)
        sure = probs.max(1) >= self.contradiction
        unexplained = [int(sq) for sq in np.nonzero((observed != expected) & sure)[0]]
        differing = [int(sq) for sq in np.nonzero(observed != before)[0]]

        if unexplained:
            verdict = Verdict.MISMATCH
        elif margin < self.min_margin:
            verdict = Verdict.AMBIGUOUS
        elif best.move is None:
            verdict = Verdict.UNCHANGED
        else:
            verdict = Verdict.MOVE
        return Inference(
            verdict=verdict,
            move=best.move if verdict is Verdict.MOVE else None,
            move_otn=board.move_to_otn(best.move) if best.move is not None else None,
            captures=caps,
            captures_pending=best.left_on_board,
            log_likelihood=best.log_likelihood,
            margin=margin,
            runner_up=rival.label if rival else None,
            differing=differing,
            unexplained=unexplained,
        )
