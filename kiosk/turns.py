"""The turns of a game: the visitor's move read from the board, the robot's reply planned.

WHY apart from the controller: this is the game itself (whose turn, what was
played, what the robot answers and how its captures go to storage); the
controller around it only owns the states, the commands and the hardware.
"""
from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from engine import Move, square_name
from vision.inference import MoveReading, Verdict, read_move

from kiosk.ports import Transfer
from kiosk.robot_jobs import Goal
from kiosk.states import Phase, Purpose, State

if TYPE_CHECKING:
    from kiosk.controller import GameController

log = logging.getLogger("kiosk.turns")


class Turns:
    def __init__(self, controller: "GameController") -> None:
        self.c = controller
        self._request = 0
        self._checking_key: tuple | None = None
        self._read_key: tuple | None = None
        self._reading: MoveReading | None = None
        self.checking_move: Move | None = None
        self.thinking_since: float | None = None

    # -- whose turn ------------------------------------------------------------
    def setup_done(self) -> None:
        self.c.record("setup_done")
        self.next_turn()

    def next_turn(self) -> None:
        c, s = self.c, self.c.session
        assert s is not None
        if s.board.is_game_over():
            c.finish(s.board.outcome())
        elif s.visitor_to_move():          # the game's mode says who plays (kiosk/exhibit.py)
            c.set_state(State.VISITOR_TURN)
            self.ponder()
        else:
            self.think()

    def start_reset(self) -> None:
        """Straight from the final position to the next start position, while the result shows
        and the next visitor chooses (issue 13 point 2); the next set-up is then already done."""
        s = self.c.session
        self.c.jobs.retarget(Purpose.RESET, s.start_position() if s is not None else {}, self.reset_done)

    def reset_done(self) -> None:
        self.c.record("reset_done")
        if self.c.state == State.PLACE_PIECE:
            self.c.set_state(State.GAME_OVER)

    # -- the visitor's move ------------------------------------------------------
    def _read(self, probabilities) -> MoveReading:
        """The one move reader (vision.inference.read_move) on the known position."""
        s = self.c.session
        assert s is not None
        return read_move(s.board, probabilities, s.leftovers)

    def update_checking(self) -> None:
        """The move the camera sees right now, before the board is still: the screen shows it
        at once, marked "checking" (issue 13 point 4)."""
        c, s = self.c, self.c.session
        key = (c.watch.reading.seq if c.watch.reading is not None else None,
               len(s.board.move_stack) if s is not None else None, c.state)
        if key == self._checking_key:
            return
        self._checking_key = key
        self.checking_move = None
        latest = c.watch.latest_probabilities()
        if s is None or latest is None or c.state != State.VISITOR_TURN:
            return
        result = self._read(latest)
        if result.verdict is Verdict.MOVE:
            self.checking_move = result.move

    def watch_visitor(self) -> None:
        """Confirm the visitor's move from the first still frames after the hand left, or say
        what to put right; a reading in doubt gets fresh pictures first, never a guess."""
        c, s = self.c, self.c.session
        still = c.watch.still()
        if still is None or s is None:
            self.update_checking()
            return
        key = (still.since, still.frames, len(s.board.move_stack), tuple(sorted(s.leftovers)))
        if key != self._read_key:
            self._read_key, self._reading = key, self._read(still.probabilities)
        result = self._reading
        assert result is not None
        if c.watch.as_settled and result.verdict is not Verdict.UNCHANGED and c.state == State.VISITOR_TURN:
            self.checking_move = None
            return          # the picture the last move was taken in, read again: nobody has moved since
        if result.verdict is Verdict.AMBIGUOUS and c.watch.ask_again(still):
            self.update_checking()
            return
        if result.verdict is Verdict.MOVE:
            self._take_visitor_move(result)
            return
        if result.verdict is Verdict.UNCHANGED or not result.fix:
            self.checking_move = None
            if c.state == State.FIX_BOARD:
                c.record("board_fixed")
                c.set_state(State.VISITOR_TURN)
            return
        # a change no legal move explains (or, after looking again, still in doubt): put it right
        self.checking_move = None
        if c.state == State.FIX_BOARD and result.fix == c.fix_squares:
            return
        size = s.board.size
        choices = result.candidates if result.verdict is Verdict.AMBIGUOUS else ()
        possible = () if choices else result.possible      # (only an AMBIGUOUS reading names any)
        if result.tried is not None and result.reason is not None:
            message = f"illegal_move.{result.reason.value}"
            args = {"from": square_name(result.tried.from_sq, size), "to": square_name(result.tried.to_sq, size)}
        elif result.verdict is Verdict.AMBIGUOUS:
            # a legal move may well have been made, but the camera could not tell which (glare
            # over a deciding square, after fresh pictures): not "does not match", but "again",
            # or, when it is one of a few legal moves, "which one?" (the visitor knows)
            # when too many moves are left for rings, or "nothing moved" is likeliest, the visitor may
            # show their move on the screen's board (the moves the camera leaves; vision/inference._possible)
            message = "fix_board.which" if choices else "fix_board.show" if possible else "fix_board.unclear"
            args = {"count": str(len(result.fix))}
        else:
            message, args = "fix_board.mismatch", {"count": str(len(result.fix))}
        c.record("fix_board", fix={square_name(q, size): (p.value if p else None) for q, p in result.fix.items()},
                 message=message, **({"tried": result.tried.otn(size)} if result.tried else {}),
                 **({"choices": [r.move_otn for r in choices]} if choices else {}),
                 **({"possible": len(possible)} if possible else {}))
        if c.state != State.FIX_BOARD:
            c.set_state(State.FIX_BOARD)
        c.fix_squares = dict(result.fix)
        c.move_choices = choices
        c.moves_possible = possible
        c.message, c.message_args = message, args

    def choose(self, move_otn: str) -> bool:
        """The visitor says which of the moves left in doubt they made (`c.move_choices`, or shown
        on the screen's board: `c.moves_possible`): it is played as if the camera had seen it, but
        the reader does not learn from this picture (it did not show the move clearly)."""
        c = self.c
        if c.state != State.FIX_BOARD or c.session is None:
            return False
        size = c.session.board.size
        offered = c.move_choices or c.moves_possible
        chosen = next((r for r in offered if r.move is not None
                       and r.move.otn(size) == move_otn.split("x")[0]), None)
        if chosen is None:
            return False
        c.record("move_chosen", move=move_otn, choices=[r.move_otn for r in c.move_choices],
                 **({"shown_of": len(c.moves_possible)} if not c.move_choices else {}))
        self._take_visitor_move(chosen, learn=False)
        return True

    def _take_visitor_move(self, result: MoveReading, learn: bool = True) -> None:
        c, s = self.c, self.c.session
        assert s is not None and result.move is not None
        self.checking_move = None
        c.record("visitor_move", move=s.board.move_to_otn(result.move), captures=list(result.captures),
                  left=list(result.left_on_board))
        s.play(result.move)
        for sq in result.left_on_board:
            s.leftovers[sq] = s.captured_piece(sq)
        # the reader learns the position it was right about: the board after the move, and
        # the captured pieces left standing
        if learn:
            c.watch.confirm({**s.board.pieces(), **s.leftovers})
        c.watch.settle()
        self.next_turn()
        if s.leftovers and c.state in (State.THINKING, State.VISITOR_TURN):
            # the robot will park them (the referee between two turns); the screen says so
            c.message = "capture.left_on_board"
            c.message_args = {"squares": ", ".join(square_name(sq, s.board.size) for sq in s.leftovers)}

    # -- the robot's move ---------------------------------------------------------
    def think(self) -> None:
        c, s = self.c, self.c.session
        assert s is not None
        c.set_state(State.THINKING)
        self.request()

    def request(self) -> None:
        c, s = self.c, self.c.session
        assert s is not None
        self._request += 1
        self.thinking_since = c.clock()
        c.engine.request(self._request, s.variant, s.options, s.moves_otn(), s.level)

    def forget_request(self) -> None:
        """A search was cancelled (self-play stopped): a late answer to it is ignored."""
        self._request += 1

    def ponder(self) -> None:
        """Let the engine think on the visitor's time (an engine port without pondering waits)."""
        s = self.c.session
        assert s is not None
        if s.mode != "visitor":
            return                          # no robot move follows a visitor's move in these modes
        self.c.engine.ponder(s.variant, s.options, s.moves_otn(), s.level)

    def poll_engine(self) -> None:
        reply = self.c.engine.poll()
        if reply is not None and reply[0] == self._request:
            self.on_engine_reply(reply[1])

    def on_engine_reply(self, move_otn: str) -> None:
        c, s = self.c, self.c.session
        assert s is not None
        board = s.board
        move = board.parse_move(move_otn)
        if not board.is_legal(move):
            raise RuntimeError(f"engine replied with an illegal move {move_otn}")
        captures = tuple(board.captures_of(move))
        robot_piece = board.piece_at(move.from_sq)
        assert robot_piece is not None          # a legal move moves a piece
        jobs = c.jobs
        inv: dict = dict(jobs.book.storage())      # the plan's own copy of storage, booked as planned
        plan: list[Transfer] = []
        latest = c.watch.latest()
        for sq, piece in sorted(s.leftovers.items()):
            if latest is not None and sq not in latest:
                continue          # the visitor took it away meanwhile
            plan += jobs.park(inv, sq, piece)
        plan.append(Transfer(move.from_sq, move.to_sq, robot_piece, "move"))
        for sq in captures:
            taken = robot_piece if sq == move.to_sq else board.piece_at(sq)
            assert taken is not None            # a capture takes a piece
            plan += jobs.park(inv, sq, taken)
        c.record("robot_move", move=board.move_to_otn(move), captures=list(captures),
                  plan=[t.to_json() for t in plan])
        c.teacher.robot_moved(board, move)          # why (before it is played): kiosk/teaching.py
        s.play(move)
        before = dict(s.before_last())
        before.update(s.leftovers)
        s.leftovers = {}
        c.set_state(State.ROBOT_MOVING)
        jobs.goal = Goal(Purpose.MOVE, board.pieces(), phase=Phase.MOVING,
                         scope=frozenset(sq for t in plan for sq in (t.src, t.dst) if isinstance(sq, int)))
        jobs.after_goal = self.robot_move_done
        jobs.submit(plan, before)

    def robot_move_done(self) -> None:
        self.c.record("robot_move_done")
        self.next_turn()

