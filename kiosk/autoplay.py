"""The simulated visitor (and the helpful staff member) for the simulation and `--autoplay`.

WHY: a kiosk is only tested when someone plays it. This visitor looks at the
screen (the controller's view, as a person reads the touchscreen) and acts
on the simulated table with a hand: it plays random legal moves or the
engine's moves at a level, sometimes makes an illegal move, sometimes
forgets to take a captured piece off, and follows the screen's "put the
board back like this" and "place this piece" instructions after a moment.
It tells the controller nothing directly but what a touch on the screen tells:
asked which move it made (glare kept the camera in doubt), it touches that
move, or shows it on the screen's board (`answer_which`).
"""
from __future__ import annotations

import random
from dataclasses import dataclass, field, replace
from typing import Callable

from engine import Board, Move, Piece, Side

from kiosk.view import ControllerView
from kiosk.simworld import SimWorld
from kiosk.states import State


VISITOR_MODES = ("random", "engine", "yielding", "racing")

#: a touch on one of the moves the screen offers ("which move did you make?"): the controller's choose_move
Touch = Callable[[str], object]


def answer_which(view: ControllerView, played: Move | None, touch: Touch | None) -> str | None:
    """Asked which move they made (the view's `move_choices`), a visitor touches the one they made
    when it is offered; asked to show it on the screen (`moves_possible`), the piece and the square
    it went to. Returns it (OTN). None when not asked so, or when it is not among them: then they
    put the board back as the screen also says."""
    if touch is None or played is None or view.state != State.FIX_BOARD or view.board is None \
            or played not in (view.move_choices or view.moves_possible):
        return None
    otn = played.otn(view.board.size)
    touch(otn)
    return otn


def answer_hands_off(view: ControllerView, world: SimWorld, hands_off: Callable[[], None] | None) -> bool:
    """Asked whether a hand is over the board (the view's `asks_hands_off`: the camera has refused a still
    picture as a hand for long), a visitor whose hand is not over it says so, as a person looking at the
    board does; True when they touched "Nothing is over the board"."""
    if hands_off is None or not view.asks_hands_off or world.hand_over_board():
        return False
    hands_off()
    return True


@dataclass
class VisitorStyle:
    """How this visitor plays."""

    mode: str = "random"             # random | engine | yielding (opens the robot king's way: short games)
    #                                  | racing (two visitors, referee: yields as attacker, runs the king home)
    level: str = "easy"              # the engine level in engine mode
    illegal_rate: float = 0.05       # share of turns that start with an illegal move
    forget_capture_rate: float = 0.3  # share of captures whose piece is left standing
    think_s: tuple[float, float] = (0.2, 0.8)   # a person looks at the board first
    read_screen_s: float = 0.8       # time to read an instruction on the screen

    def __post_init__(self) -> None:
        if self.mode not in VISITOR_MODES:
            raise ValueError(f"visitor mode must be one of {', '.join(VISITOR_MODES)}, not {self.mode!r}")


@dataclass
class SimVisitor:
    """Acts on the world from the controller's view; call `act()` every frame."""

    world: SimWorld
    rng: random.Random
    style: VisitorStyle = field(default_factory=VisitorStyle)
    touch: Touch | None = None       # the screen's move buttons (answer_which); None: never touches them
    say_hands_off: Callable[[], None] | None = None   # "Nothing is over the board" (answer_hands_off)
    illegal_moves: int = 0
    forgotten_captures: int = 0
    fixes: int = 0
    moves: int = 0
    answered: int = 0                # times asked which move they made, and they touched it
    _next_at: float = -1.0
    _waiting_ply: int = -1
    _played: Move | None = None
    _last_state: str = ""

    def act(self, view: ControllerView, now: float) -> str | None:
        """One look at the screen; returns what the visitor did (for the log), if anything."""
        if view.state != self._last_state:
            if view.state in (State.FIX_BOARD, State.PLACE_PIECE):
                self._waiting_ply = -1      # the last move was refused: play again after fixing
            self._last_state = view.state
            delay = self.style.read_screen_s if view.state in (State.FIX_BOARD, State.PLACE_PIECE) \
                else self.rng.uniform(*self.style.think_s)
            self._next_at = now + delay
        if now < self._next_at or self.world.hand_over_board():
            return None
        if answer_hands_off(view, self.world, self.say_hands_off):
            self._next_at = now + self.style.read_screen_s
            return "said no hand is over the board"
        touched = answer_which(view, self._played, self.touch)
        if touched is not None:
            self.answered += 1
            self._next_at = now + self.style.read_screen_s
            return f"touched {touched}"
        if view.state in (State.FIX_BOARD, State.PLACE_PIECE) and view.fix_squares:
            self.world.set_squares(dict(view.fix_squares))
            self.fixes += 1
            self._next_at = now + self.style.read_screen_s * 2
            return f"fixed {len(view.fix_squares)} squares"
        if view.state == State.VISITOR_TURN and view.board is not None:
            if view.ply == self._waiting_ply:
                return None            # the last move is not taken in yet
            board = view.board
            if self.style.illegal_rate and self.rng.random() < self.style.illegal_rate:
                move = self._illegal_move(board)
                if move is not None:
                    self.world.visitor_move(move.from_sq, move.to_sq, remove_captures=False)
                    self._played = move
                    self.illegal_moves += 1
                    self._next_at = now + 10.0       # then waits to be told
                    return f"illegal {move.otn(board.size)}"
            move = self._choose(board)
            forget = bool(board.captures_of(move)) and self.rng.random() < self.style.forget_capture_rate
            self.world.visitor_move(move.from_sq, move.to_sq, remove_captures=not forget)
            self._played = move
            self.forgotten_captures += int(forget)
            self.moves += 1
            self._waiting_ply = view.ply
            self._next_at = now + 1.0
            return f"{board.move_to_otn(move)}{' (left the capture)' if forget else ''}"
        return None

    def _choose(self, board: Board) -> Move:
        if self.style.mode == "yielding":
            return self._yielding_move(board)
        if self.style.mode == "racing":
            return self._racing_move(board)
        if self.style.mode == "engine":
            from engine.search import search_board

            result = search_board(board, self.style.level, seed=self.rng.randrange(1 << 30))
            if result.move is not None:
                return result.move
        return self.rng.choice(board.legal_moves)

    def _yielding_move(self, board: Board) -> Move:
        """A beginner's move that leaves the robot's king the most room (a quick, whole game).

        Playing the defenders it just runs its own king about at random."""
        moves = board.legal_moves
        if board.turn == Side.DEFENDERS:
            return self.rng.choice(moves)
        best, best_score = [], -1.0
        for move in moves:
            after = board.copy()
            after.push(move)
            if after.is_game_over():
                continue
            king = after.king_square
            room = sum(1 for m in after.legal_moves if m.from_sq == king)
            score = 10 * len(after.escape_routes()) + room
            if score > best_score:
                best, best_score = [move], score
            elif score == best_score:
                best.append(move)
        return self.rng.choice(best or moves)

    def _racing_move(self, board: Board) -> Move:
        """Both sides of a short two-visitor game: the attacker yields, the defender wins at once
        when it can, else moves its king to where it has the most ways out."""
        if board.turn == Side.ATTACKERS:
            return self._yielding_move(board)
        best, best_score = [], -1
        for move in board.legal_moves:
            after = board.copy()
            after.push(move)
            outcome = after.outcome()
            if outcome is not None and outcome.winner == Side.DEFENDERS:
                return move
            if move.from_sq != board.king_square:
                continue
            score = len(after.escape_routes())
            if score > best_score:
                best, best_score = [move], score
            elif score == best_score:
                best.append(move)
        return self.rng.choice(best or board.legal_moves)

    def _illegal_move(self, board: Board) -> Move | None:
        """A slide of one's own piece to an empty square that is not a legal destination."""
        own = [sq for sq, p in board.pieces().items() if p.side == board.turn]
        legal = {(m.from_sq, m.to_sq) for m in board.legal_moves}
        for _ in range(50):
            src = self.rng.choice(own)
            dst = self.rng.randrange(board.size * board.size)
            if board.piece_at(dst) is None and (src, dst) not in legal:
                return Move(src, dst)
        return None


def robot_pieces(world: SimWorld, robot_piece_kinds: tuple[Piece, ...]) -> dict[int, Piece]:
    return {sq: p for sq, p in world.square_pieces().items() if p in robot_piece_kinds}


# -- museum visitors (`--visitors N`): people with habits, on a simulated clock --------------

@dataclass(frozen=True)
class Persona:
    """One museum visitor's habits, drawn when they walk up (kiosk/museum_day.py)."""

    variant: str
    side: Side
    level: str
    mode: str                      # how they choose moves (VISITOR_MODES)
    captures: str                  # "leave" (the robot takes them) | "tray" (off by hand into the tray)
    helps: bool                    # puts pieces where the screen asks
    walk_away_at: int | None       # the ply at which they leave in the middle of the game
    comes_back_after_s: float | None   # and come back after this long (None: never)
    think_scale_s: float           # their typical thinking time per move

    @classmethod
    def draw(cls, rng: random.Random, variants: tuple[str, ...], level: str | None) -> "Persona":
        variant = rng.choices(variants, weights=[6 if v == "copenhagen" else 1 for v in variants])[0]
        walk = rng.random() < 0.2
        # back after a short break (the game goes on), after a long one (it had paused), or never
        back = rng.choices(("short", "long", None), weights=(1, 2, 2))[0] if walk else None
        return cls(variant=variant, side=rng.choice((Side.ATTACKERS, Side.DEFENDERS)),
                   level=level or rng.choices(("easy", "medium", "hard"), weights=(5, 3, 1))[0],
                   mode=rng.choices(("yielding", "random"), weights=(3, 2))[0],
                   captures=rng.choice(("leave", "tray")), helps=rng.random() < 0.75,
                   walk_away_at=rng.randint(2, 24) if walk else None,
                   comes_back_after_s=(rng.uniform(60.0, 250.0) if back == "short" else
                                       rng.uniform(540.0, 1200.0) if back == "long" else None),
                   think_scale_s=rng.choice((4.0, 10.0, 25.0)))

    def think_s(self, rng: random.Random) -> float:
        """Seconds to several minutes: mostly short, now and then a long think (never past the pause)."""
        t = rng.expovariate(1.0 / self.think_scale_s)
        if rng.random() < 0.04:
            t += rng.uniform(60.0, 270.0)          # a long look at the board
        return min(t, 290.0)


@dataclass
class MuseumVisitor:
    """A person at the kiosk with a `Persona`; acts from the screen only. `act()` returns the
    simulated time of their next intended action (the runner lets time pass until then)."""

    world: SimWorld
    rng: random.Random
    persona: Persona
    present: bool = True
    left_for_good: bool = False
    back_at: float | None = None
    next_at: float = 0.0
    moves: int = 0
    walked_away: bool = False
    came_back: bool = False
    asked: int = 0                 # times the screen asked them to put pieces on squares
    helped: int = 0                # times they did
    touch: Touch | None = None     # the screen's move buttons (answer_which)
    say_hands_off: Callable[[], None] | None = None   # "Nothing is over the board" (answer_hands_off)
    _waiting_ply: int = -1
    _last_state: str = ""
    _played: Move | None = None

    def __post_init__(self) -> None:
        self.hands = SimVisitor(self.world, self.rng, VisitorStyle(mode=self.persona.mode, illegal_rate=0.03,
                                                                    forget_capture_rate=0.0))

    def act(self, view: ControllerView, now: float) -> float:
        p = self.persona
        if not self.present:
            if self.back_at is not None and now >= self.back_at:
                self.present, self.back_at, self.came_back = True, None, True
                self.next_at = now + self.rng.uniform(3.0, 15.0)
            return self.back_at if self.back_at is not None else float("inf")
        if view.state != self._last_state:
            self._last_state = view.state
            if view.state in (State.FIX_BOARD, State.PLACE_PIECE):
                self._waiting_ply = -1
                self.asked += view.state == State.PLACE_PIECE
                self.next_at = now + self.rng.uniform(3.0, 20.0)      # reads the screen
            elif view.state == State.VISITOR_TURN:
                self.next_at = now + p.think_s(self.rng)
        if now < self.next_at or self.world.hand_over_board():
            return self.next_at
        if answer_hands_off(view, self.world, self.say_hands_off) \
                or answer_which(view, self._played, self.touch) is not None:
            self.next_at = now + self.rng.uniform(2.0, 5.0)
            return self.next_at
        if view.state in (State.FIX_BOARD, State.PLACE_PIECE) and view.fix_squares:
            if view.state == State.PLACE_PIECE and not p.helps:
                self.next_at = float("inf")          # does not know what to do, waits
                return self.next_at
            self.world.set_squares(dict(view.fix_squares))
            self.helped += view.state == State.PLACE_PIECE
            self.next_at = now + self.rng.uniform(5.0, 15.0)
            return self.next_at
        if view.state == State.VISITOR_TURN and view.board is not None and view.ply != self._waiting_ply:
            if p.walk_away_at is not None and view.ply >= p.walk_away_at:
                self.walk_away(now)
                return self.back_at if self.back_at is not None else float("inf")
            board = view.board
            move = self.hands._choose(board)
            tray = p.captures == "tray"
            self.world.visitor_move(move.from_sq, move.to_sq, remove_captures=tray)
            self._played = move
            self.moves += 1
            self._waiting_ply = view.ply
            self.next_at = now + 2.0
        return self.next_at

    def walk_away(self, now: float) -> None:
        self.present, self.walked_away = False, True
        self.persona = replace(self.persona, walk_away_at=None)
        if self.persona.comes_back_after_s is not None:
            self.back_at = now + self.persona.comes_back_after_s
        else:
            self.left_for_good = True
