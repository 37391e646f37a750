"""The turns of a game: the visitor's move read from the board, the robot's reply planned.

WHY apart from the controller: this is the game itself (whose turn, what was
played, what the robot answers and how its captures go to storage); the
controller around it only owns the states, the commands and the hardware.
"""
from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from engine import Move, square_name

from kiosk.move_reading import VisitorReading, read_visitor_move
from kiosk.ports import Transfer
from kiosk.robot_jobs import Goal
from kiosk.states import Phase, Purpose, State

if TYPE_CHECKING:
    from kiosk.controller import GameController
    from vision.inference import MoveInferrer

log = logging.getLogger("kiosk.turns")


class Turns:
    def __init__(self, controller: "GameController") -> None:
        self.c = controller
        self._request = 0
        self._inferrer: MoveInferrer | None = None
        self._checking_key: tuple | None = None
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
        elif s.board.turn == s.visitor_side:
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
    def _vision_move(self) -> VisitorReading | None:
        """The vision package's verdict from the class probabilities, when it is sure."""
        s = self.c.session
        probs = self.c.watch.probabilities()
        if probs is None or s is None or s.leftovers:
            return None
        try:
            from vision.inference import MoveInferrer, Verdict
        except ImportError:
            return None
        if self._inferrer is None:
            self._inferrer = MoveInferrer()
        inf = self._inferrer.infer(s.board, probs)
        if inf.verdict is Verdict.MOVE and inf.move is not None and inf.move.to_sq not in inf.captures:
            return VisitorReading("move", inf.move, tuple(inf.captures), tuple(inf.captures_pending))
        if inf.verdict in (Verdict.UNCHANGED, Verdict.AMBIGUOUS):
            return VisitorReading("none")
        return None

    def update_checking(self) -> None:
        """The move the camera sees right now, before the board is still: the screen shows it
        at once, marked "checking" (issue 13 point 4)."""
        c, s = self.c, self.c.session
        squares = c.watch.still.squares
        key = (squares, len(s.board.move_stack)) if s is not None else None
        if key == self._checking_key:
            return
        self._checking_key = key
        self.checking_move = None
        latest = c.watch.still.latest()
        if s is None or latest is None or c.state != State.VISITOR_TURN:
            return
        result = read_visitor_move(s.board, latest, s.leftovers)
        if result.kind == "move":
            self.checking_move = result.move

    def watch_visitor(self) -> None:
        c, s = self.c, self.c.session
        squares = c.watch.stable()
        if squares is None or s is None:
            self.update_checking()
            return
        result = read_visitor_move(s.board, squares, s.leftovers)
        if result.kind != "move":
            sure = self._vision_move()
            if sure is not None and sure.kind == "move":
                result = sure
            elif result.kind != "none" and c.watch.unsure(squares, s.board.pieces()):
                return
        if result.kind != "none" and not c.watch.seen_twice():
            self.update_checking()
            return
        if result.kind == "none":
            self.checking_move = None
            if c.state == State.FIX_BOARD:
                c.record("board_fixed")
                c.set_state(State.VISITOR_TURN)
            return
        if result.kind in ("illegal", "mismatch"):
            self.checking_move = None
            if c.state == State.FIX_BOARD and result.fix == c.fix_squares:
                return
            c.record("fix_board", fix={square_name(q, s.board.size): (p.value if p else None)
                                        for q, p in result.fix.items()},
                      message=result.message, **({"tried": result.move.otn(s.board.size)} if result.move else {}))
            if c.state != State.FIX_BOARD:
                c.set_state(State.FIX_BOARD)
            c.fix_squares = dict(result.fix)
            c.message, c.message_args = result.message, dict(result.message_args)
            return
        self._take_visitor_move(result, squares)

    def _take_visitor_move(self, result: VisitorReading, squares: dict) -> None:
        c, s = self.c, self.c.session
        assert s is not None and result.move is not None
        self.checking_move = None
        c.watch.confirm(squares)
        c.record("visitor_move", move=s.board.move_to_otn(result.move), captures=list(result.captures),
                  left=list(result.left_on_board))
        s.play(result.move)
        for sq in result.left_on_board:
            s.leftovers[sq] = s.captured_piece(sq)
        self.next_turn()
        if s.leftovers and c.state == State.THINKING:
            # the robot will park them; the screen says so
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

    def ponder(self) -> None:
        """Let the engine think on the visitor's time (an engine port without pondering waits)."""
        s = self.c.session
        assert s is not None
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
        latest = c.watch.still.squares
        for sq, piece in sorted(s.leftovers.items()):
            if latest is not None and latest[sq] is None:
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

