"""What did the visitor do? The one move reader: the known position + the fused observation -> a verdict.

`read_move(board, probabilities, leftovers)` is the only place that works
out a move from the camera, for the kiosk (the visitor's move, and the
"checking" move shown the moment it is seen), the resume check and the
benchmarks. Its answer is one of:

- MOVE: one legal move of the side to move explains the board, clearly;
- UNCHANGED: the board still shows the known position;
- AMBIGUOUS: the squares that would decide are read without enough
  confidence (`unsure` names them); the caller looks again, never guesses;
- MISMATCH: a confident change no legal move explains: `fix` says what
  belongs on each differing square, and when one piece slid somewhere it
  may not go, `tried` is that slide and `reason` why it is illegal.

Each hypothesis is a complete board: "nothing changed yet", or a legal move
with its captures, where every captured piece may be lifted off or still
standing (visitors often forget; the robot parks it later). Pieces captured
earlier that the visitor left standing (`leftovers`) may be there or gone.
Its score is the log-likelihood of the observed per-square class
probabilities (where a piece stood, of any piece: a standing piece cannot
change its kind, so its colour as read is no evidence); a move changes only
a few squares, so scores are differences from the unchanged board. A move is accepted only if it beats the best
*different* explanation by a clear margin and no square contradicts it
confidently: a square read with little confidence (glare, a flickering
frame) costs every hypothesis alike unless the move touches it, so it
never makes a move, and it cannot hide one either.

WHY one function: the kiosk used to compare argmax squares first and ask
the probabilities only when that failed, with its own thresholds, so a
doubtful reading that happened to look like a legal move was accepted.
"""
from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field
from enum import Enum
from typing import Sequence

import numpy as np

from engine import Board, Move, Piece
from vision.position import SquareClass

# A square's class probability is never taken as lower than this, so one
# bad square costs a bounded amount (log 1e-4 = -9.2 nats) instead of -inf.
PROBABILITY_FLOOR = 1e-4
# nats the best explanation must beat the best different one by (e^6 = 400 to 1)
MIN_MARGIN = 6.0
# a square this sure of another class contradicts an explanation
SURE = 0.9


class Verdict(str, Enum):
    MOVE = "move"                 # one legal move explains the board, clearly
    UNCHANGED = "unchanged"       # the board still shows the position before the move
    AMBIGUOUS = "ambiguous"       # the deciding squares are unsure: look again
    MISMATCH = "mismatch"         # nothing legal explains the board: an illegal change


class IllegalReason(str, Enum):
    """Why one piece's slide is not allowed (the kiosk's i18n key `illegal_move.<value>`)."""

    NOT_YOUR_PIECE = "not_your_piece"
    NOT_STRAIGHT = "not_straight"
    BLOCKED = "blocked"
    RESTRICTED_SQUARE = "restricted_square"
    RULE = "rule"


@dataclass(frozen=True)
class MoveReading:
    verdict: Verdict
    move: Move | None = None                  # MOVE: the move played
    move_otn: str | None = None               # the best explanation's move in OTN (also when not accepted)
    captures: tuple[int, ...] = ()            # squares the move captures
    left_on_board: tuple[int, ...] = ()       # of those, still occupied on the board
    unsure: tuple[int, ...] = ()              # AMBIGUOUS: squares read too unsurely to decide
    fix: dict[int, Piece | None] = field(default_factory=dict)   # observed != known position -> what belongs there
    tried: Move | None = None                 # MISMATCH: the one slide the board shows, if it is one
    reason: IllegalReason | None = None       # ... and why it is illegal
    margin: float = math.inf                  # nats over the best different explanation
    runner_up: str | None = None
    candidates: tuple["MoveReading", ...] = ()  # AMBIGUOUS: the legal moves it may be, to ask the visitor
    #: AMBIGUOUS: every legal move the sure squares leave that accounts for a change the camera sees,
    #: best first (`candidates` are among them): the visitor may show theirs on the screen (`_possible`)
    possible: tuple["MoveReading", ...] = ()

    @property
    def accepted(self) -> bool:
        return self.verdict is Verdict.MOVE

    @property
    def offered(self) -> tuple["MoveReading", ...]:
        """The moves the visitor is asked about: `candidates` when there are any ("which move did you
        make?"), else `possible` ("show me your move"); () when neither (put the board back)."""
        return self.candidates or self.possible


def board_classes(board: Board) -> np.ndarray:
    """Class index per square of an engine position."""
    return classes_of(board.pieces(), board.size)


def classes_of(pieces: dict[int, Piece], size: int) -> np.ndarray:
    out = np.zeros(size * size, np.int64)
    for sq, piece in pieces.items():
        out[sq] = int(SquareClass.from_letter(piece.value))
    return out


def observation_of(pieces: dict[int, Piece], size: int,
                   confidence: "np.ndarray | Sequence[float] | None" = None) -> np.ndarray:
    """Per-square class probabilities for squares known only as their likeliest class (and its
    probability): that class gets the confidence, the other classes share the rest."""
    classes = classes_of(pieces, size)
    conf = np.ones(size * size) if confidence is None or len(confidence) != size * size \
        else np.clip(np.asarray(confidence, np.float64), 0.0, 1.0)
    probs = np.repeat(((1.0 - conf) / (len(SquareClass) - 1))[:, None], len(SquareClass), axis=1)
    probs[np.arange(size * size), classes] = conf
    return probs


_PIECE_OF_CLASS: tuple[Piece | None, ...] = (None, Piece.ATTACKER, Piece.DEFENDER, Piece.KING)


def pieces_of(probabilities: np.ndarray) -> dict[int, Piece]:
    """The likeliest piece on every square that holds one."""
    out: dict[int, Piece] = {}
    for sq, c in enumerate(np.asarray(probabilities).argmax(1)):
        piece = _PIECE_OF_CLASS[int(c)]
        if piece is not None:
            out[sq] = piece
    return out


def read_move(board: Board, probabilities: np.ndarray, leftovers: dict[int, Piece] | None = None, *,
              min_margin: float = MIN_MARGIN, sure: float = SURE) -> MoveReading:
    """The verdict on `probabilities` (squares x 4: empty, attacker, defender, king) against `board`,
    whose side to move is the one that moved (see the module docstring)."""
    size = board.size
    probs = np.asarray(probabilities, np.float64)
    if probs.shape != (size * size, len(SquareClass)):
        raise ValueError(f"expected probabilities of shape {(size * size, len(SquareClass))}, got {probs.shape}")
    leftovers = dict(leftovers or {})
    before = board_classes(board)
    empty = int(SquareClass.EMPTY)
    lp = _log_likelihoods(probs, before)
    # each square's term in the unchanged board; a leftover may stand or be gone
    left_class = {sq: int(SquareClass.from_letter(p.value)) for sq, p in leftovers.items() if before[sq] == empty}
    base_term = [lp[sq][int(c)] for sq, c in enumerate(before)]
    for sq, c in left_class.items():
        base_term[sq] = max(lp[sq][empty], lp[sq][c])
    base = float(sum(base_term))

    # (score, move, kept captures, the squares the hypothesis sets -> class, the position it makes)
    hyps: list[tuple[float, Move | None, tuple[int, ...], dict[int, int], frozenset]] = [
        (base, None, (), {}, frozenset())]
    for move in board.legal_moves:
        mover = int(before[move.from_sq])
        caps = tuple(board.captures_of(move))
        # the position after the move, as changes to the one before: two moves that make the
        # same position (a mover that dies on either of two squares) are one explanation
        made = {move.from_sq: empty, move.to_sq: empty if move.to_sq in caps else mover}
        made.update({sq: empty for sq in caps})
        position = frozenset((sq, c) for sq, c in made.items() if c != before[sq])
        for k in range(len(caps) + 1):
            for kept in itertools.combinations(caps, k):
                want = {move.from_sq: empty, move.to_sq: mover}
                for sq in caps:
                    # kept: still standing (the mover itself, if stopping there killed it)
                    want[sq] = (mover if sq == move.to_sq else int(before[sq])) if sq in kept else empty
                score = base + sum(lp[sq][c] - base_term[sq] for sq, c in want.items())
                hyps.append((score, move, kept, want, position))
    hyps.sort(key=lambda h: -h[0])
    best_score, best_move, best_kept, best_want, best_position = hyps[0]
    rival = next((h for h in hyps[1:] if h[4] != best_position), None)
    margin = best_score - rival[0] if rival is not None else math.inf
    runner_up = (board.move_to_otn(rival[1]) if rival[1] is not None else "no move") if rival is not None else None

    observed = probs.argmax(1)
    confident = probs.max(1) >= sure
    expected = before.copy()
    for sq, c in best_want.items():
        expected[sq] = c
    either = {sq for sq in left_class if sq not in best_want}      # a leftover the move did not touch
    unexplained = [sq for sq in range(size * size) if confident[sq]
                   and not _agrees(int(observed[sq]), int(expected[sq]), int(before[sq]))
                   and not (sq in either and observed[sq] != empty)]      # a leftover standing, of any kind
    caps = tuple(board.captures_of(best_move)) if best_move is not None else ()
    move_otn = board.move_to_otn(best_move) if best_move is not None else None
    fix = _fix(board, observed, left_class)

    if unexplained:
        tried, reason = _slide(board, fix, observed)
        return MoveReading(Verdict.MISMATCH, None, move_otn, caps, tuple(sorted(best_kept)), fix=fix,
                           tried=tried, reason=reason, margin=margin, runner_up=runner_up)
    if margin < min_margin:
        occupied = probs[:, empty] <= 1.0 - sure
        fits = _consistent(hyps, before, observed, confident, left_class, occupied)
        sole = _sole_fit(fits, observed, confident, occupied, min_margin)
        if sole is not None:
            _, move, kept, _, _ = sole
            return MoveReading(Verdict.MOVE, move, board.move_to_otn(move), tuple(board.captures_of(move)),
                               tuple(sorted(kept)), margin=margin, runner_up=runner_up)
        deciding = set(best_want) | (set(rival[3]) if rival is not None else set())
        unsure = tuple(sorted(sq for sq in deciding if not confident[sq]))
        return MoveReading(Verdict.AMBIGUOUS, None, move_otn, caps, tuple(sorted(best_kept)), unsure=unsure,
                           fix=fix, margin=margin, runner_up=runner_up,
                           candidates=_candidates(board, fits, observed, min_margin),
                           possible=_possible(board, fits, observed, before))
    if best_move is None:
        return MoveReading(Verdict.UNCHANGED, margin=margin, runner_up=runner_up)
    return MoveReading(Verdict.MOVE, best_move, move_otn, caps, tuple(sorted(best_kept)),
                       margin=margin, runner_up=runner_up)


def _log_likelihoods(probs: np.ndarray, before: np.ndarray) -> list[list[float]]:
    """Per square and class, the log-probability an explanation is scored by.

    Where a piece stood before, its own class is scored by the square's
    probability of holding *any* piece: no legal move turns a standing piece
    into another kind, so what the camera makes of its colour says nothing
    about which move was made, only whether the piece is still there.
    """
    occupied = np.maximum(1.0 - probs[:, int(SquareClass.EMPTY)], PROBABILITY_FLOOR)
    logp = np.log(np.maximum(probs, PROBABILITY_FLOOR))
    stood = np.nonzero(before != int(SquareClass.EMPTY))[0]
    logp[stood, before[stood]] = np.log(occupied[stood])
    return logp.tolist()


def _agrees(observed: int, want: int, before: int) -> bool:
    """Does a square read `observed` agree with an explanation that puts `want` there?

    WHY a standing piece agrees whatever kind it is read as: the one piece
    kind a square can keep is the one that stood there (a move lands only on
    an empty square; a capture empties one), so a piece read as another kind
    where it stood is a misread, never a change. Under a lamp's veil a
    defender's ivory top can read as a sure attacker (independent renderer,
    hard light, 134,000,078: f5 at 0.97 after fusing): taken as a change, the
    kiosk told a visitor whose move was right to fix a board that was right.
    What this gives up: two pieces swapped by hand in place go unseen until
    one of them moves (its destination shows its real kind, a mismatch then).
    A piece taken chess-style (the mover set down on the captured piece) is
    still a mismatch, by the square it left.
    """
    empty = int(SquareClass.EMPTY)
    return observed == want or (want == before != empty and observed != empty)


def _sole_fit(fits: dict[frozenset, tuple], observed: np.ndarray, confident: np.ndarray,
              occupied: np.ndarray, min_margin: float) -> tuple | None:
    """The one legal move that the *sure* squares leave, when the likelihoods alone do not decide.

    Glare over a deciding square keeps the margin low however many frames
    are fused. Then: every sure square must agree with the hypothesis (a sure
    change it does not make, or a square it sets that is sure of something
    else, rules it out; so does a piece surely there, whatever its kind, where
    it wants none); if the likeliest position left is a move that beats every
    other position left by `min_margin`, the square it leaves reads empty and
    its destination the mover, and either the square left is surely empty or
    the destination surely holds a piece (`occupied`), it is the move.
    Otherwise None (the caller holds back). `fits`: `_consistent`'s positions.

    WHY either square may be the sure one: glare lies over the square left as
    often as over the destination. Hard light, bench/confirm_latency.py seeds
    135,000,000, trial 9 (g7-g9): the defender sure on g9 (0.9), g7 blown
    white (empty 0.5), nothing else fits, and the kiosk asked the visitor
    which move; trials 5 and 10 alike, the destination a piece at 0.96-0.97
    but its kind under 0.9. And the rival explanations a sure square rules
    out are no rivals: trial 25 (the king d8-b8), d8 sure empty, b8 the king
    0.6, the best rival a defender b5-b8, which the sure empty d8 rules out.
    """
    empty = int(SquareClass.EMPTY)
    ranked = sorted(fits.values(), key=lambda h: -h[0])
    if not ranked or ranked[0][1] is None:
        return None
    if len(ranked) > 1 and ranked[1][0] > ranked[0][0] - min_margin:
        return None
    best = ranked[0]
    move = best[1]
    left = observed[move.from_sq] == empty
    arrived = observed[move.to_sq] == best[3][move.to_sq]
    if left and arrived and (confident[move.from_sq] or occupied[move.to_sq]):
        return best
    return None


#: at most this many moves (of the one piece that left its square) are offered to the visitor: the
#: squares it may stand on, to touch on the screen's board; more would be a guessing game
MAX_CANDIDATES = 6


def _consistent(hyps: list, before: np.ndarray, observed: np.ndarray, confident: np.ndarray,
                left_class: dict[int, int], occupied: np.ndarray) -> dict[frozenset, tuple]:
    """The best hypothesis of every position that no sure square rules out: a sure change it does
    not make, or a square it sets that is sure of something else.

    `occupied`: squares surely holding a piece, whatever its kind (the empty class's share under
    1 - SURE). Such a square where none stood is a sure change, and one a hypothesis empties rules it
    out. WHY: the king and a defender are often told apart by the crown alone; hard light,
    bench/confirm_latency.py seeds 135,000,000, trial 21 (the king k9-j9): j9 a piece at 0.98 (the
    king 0.58, a defender 0.4), and the king's slides on past it to i9, h9, g9 were kept as rivals,
    so the kiosk asked the visitor which move.
    """
    empty = int(SquareClass.EMPTY)
    changed = {sq for sq in np.nonzero(confident & (observed != before))[0].tolist()
               if not _agrees(int(observed[sq]), int(before[sq]), int(before[sq]))
               and not (sq in left_class and observed[sq] != empty)}      # a leftover standing, of any kind
    changed |= {sq for sq in np.nonzero(occupied & (before == empty))[0].tolist() if sq not in left_class}
    fits: dict[frozenset, tuple] = {}
    for h in hyps:
        want = h[3]
        if not changed <= set(want):
            continue
        if any((confident[sq] and not _agrees(int(observed[sq]), c, int(before[sq])))
               or (c == empty and occupied[sq]) for sq, c in want.items()):
            continue
        if h[4] not in fits or h[0] > fits[h[4]][0]:
            fits[h[4]] = h
    return fits


def _candidates(board: Board, fits: dict[frozenset, tuple], observed: np.ndarray,
                min_margin: float) -> tuple[MoveReading, ...]:
    """The legal moves a doubtful reading may be, best first, for the visitor to say which.

    WHY: glare that stays over a deciding square keeps a legal move in doubt
    however many pictures are taken; the visitor knows what they played.
    Offered when the likeliest explanation the sure squares leave is a move
    (not "nothing moved"), and the moves within `min_margin` of it are
    1..MAX_CANDIDATES positions (a move whose capture may be lifted or still
    standing makes one position): those from a square read likelier empty
    than not, and with more than that, those whose destination the camera
    reads the mover on. "Nothing moved" may be among the close explanations:
    the square left may itself lie under the glare. Then asking the visitor
    to put the board back and play again (the old rule) was a loop, as the
    same glare gives the same doubt: the independent renderer's glare light,
    seeds 110,000,000, 4 of 20 plies were held back so, each time with the
    played move the best explanation and "nothing moved" 1.9-3.8 nats behind.
    Otherwise () and the visitor is asked to put the board back.
    """
    ranked = sorted(fits.values(), key=lambda h: -h[0])
    if not ranked or ranked[0][1] is None:
        return ()
    empty = int(SquareClass.EMPTY)
    close = [h for h in ranked if h[0] >= ranked[0][0] - min_margin and h[1] is not None
             and observed[h[1].from_sq] == empty]
    if len(close) > MAX_CANDIDATES:
        # glare along the piece's whole line: the squares the camera reads the mover on
        close = [h for h in close if observed[h[1].to_sq] == h[3][h[1].to_sq]]
    if not close or len(close) > MAX_CANDIDATES:
        return ()
    return tuple(MoveReading(Verdict.MOVE, h[1], board.move_to_otn(h[1]), tuple(board.captures_of(h[1])),
                             tuple(sorted(h[2])), margin=h[0] - ranked[0][0]) for h in close)


def _possible(board: Board, fits: dict[frozenset, tuple], observed: np.ndarray,
              before: np.ndarray) -> tuple[MoveReading, ...]:
    """Every legal move the sure squares leave (`fits`) that sets at least one square to what the
    camera likeliest sees there where that differs from the known position, best first.

    WHY: under a lamp's core the reading can stay in doubt between more moves
    than a few rings can offer, or lean to "nothing moved", however often the
    visitor puts the piece back and plays again (the independent renderer's
    hard light: seeds 135,000,000 ply h5-h7 and 137,000,000 ply d6-d3 were held
    so every time). The visitor knows their move and can show it on the
    screen. A move the camera sees no part of is not offered: a touch on the
    screen is not a move on the board.
    """
    out = [h for h in sorted(fits.values(), key=lambda h: -h[0]) if h[1] is not None
           and any(observed[sq] == c != before[sq] for sq, c in h[3].items())]
    return tuple(MoveReading(Verdict.MOVE, h[1], board.move_to_otn(h[1]), tuple(board.captures_of(h[1])),
                             tuple(sorted(h[2]))) for h in out)


def _fix(board: Board, observed: np.ndarray, left_class: dict[int, int]) -> dict[int, Piece | None]:
    """Squares whose likeliest class differs from the known position -> what belongs there
    (a leftover square, standing or gone, is not a difference)."""
    known = board.pieces()
    out: dict[int, Piece | None] = {}
    for sq, c in enumerate(observed):
        want = known.get(sq)
        if int(c) == int(SquareClass.from_letter(want.value if want else None)):
            continue
        if sq in left_class and int(c) == left_class[sq]:
            continue
        out[sq] = want
    return out


def _slide(board: Board, fix: dict[int, Piece | None],
           observed: np.ndarray) -> tuple[Move | None, IllegalReason | None]:
    """One piece gone from one square and the same kind on another: the slide tried, and why not."""
    empty = int(SquareClass.EMPTY)
    vanished = [sq for sq, want in fix.items() if want is not None and observed[sq] == empty]
    appeared = [sq for sq, want in fix.items() if want is None]
    if len(fix) != 2 or len(vanished) != 1 or len(appeared) != 1:
        return None, None
    src, dst = vanished[0], appeared[0]
    piece = fix[src]
    assert piece is not None
    if int(observed[dst]) != int(SquareClass.from_letter(piece.value)):
        return None, None
    return Move(src, dst), explain_illegal(board, src, dst)


def explain_illegal(board: Board, src: int, dst: int) -> IllegalReason:
    """Why sliding src -> dst is not allowed here."""
    piece = board.piece_at(src)
    if piece is None:
        return IllegalReason.RULE
    if piece.side != board.turn:
        return IllegalReason.NOT_YOUR_PIECE
    size = board.size
    (r0, f0), (r1, f1) = divmod(src, size), divmod(dst, size)
    if r0 != r1 and f0 != f1:
        return IllegalReason.NOT_STRAIGHT
    step = (1 if f1 > f0 else -1 if f1 < f0 else 0) + size * (1 if r1 > r0 else -1 if r1 < r0 else 0)
    sq = src + step
    while sq != dst:
        if board.piece_at(sq) is not None:
            return IllegalReason.BLOCKED
        sq += step
    if any(m.from_sq == src for m in board.legal_moves):
        return IllegalReason.RESTRICTED_SQUARE
    return IllegalReason.RULE
