"""The runner of the robot's jobs: a goal for the squares, planned, carried out, checked.

WHY one idea for the robot's side: a goal is a target position for the
squares. Setting up, the robot's move (with its captures parked), the reset
between two games, clearing, a missed-pickup retry and the resume after a
power cut all plan the same way (kiosk/reconcile.py: camera reading + storage
book, the robot's ledger -> transfers), carry the plan out on the gantry and check the result with
the camera, retrying with small pickup offsets, then asking a person to place
the piece, showing where.
"""
from __future__ import annotations

import logging
from dataclasses import dataclass, field
from enum import Enum
from typing import Callable, Protocol

from calibration.config import Config
from engine import Piece, square_name
from robot.collision import squares_along
from robot.layout import Location, TableLayout
from robot.planner import MotionPlanner, PlanError
from vision.inference import SURE, pieces_of
from vision.position import SquareClass
from vision.stability import StableEvent

from kiosk.activity import IDLE_ACTIVITY, ActivityCode, RobotActivity, activity_for
from kiosk.board_watch import BoardWatch
from kiosk.inventory import StorageBook
from kiosk.ports import GantryEvent, GantryEventKind, GantryPort, Slot, Transfer
from kiosk.reconcile import Reconciliation, diff_squares, king_in_storage, reconcile
from kiosk.states import Phase, Purpose, State

log = logging.getLogger("kiosk.robot_jobs")

#: pickup points (mm from the square's centre) tried one after the other when the
#: camera shows a missed pickup: first the centre again (a slip), then a ring
#: about half a piece's radius out, for a piece knocked off its centre
RETRY_OFFSETS_MM: tuple[tuple[float, float], ...] = (
    (0.0, 0.0),
    (4.0, 0.0), (0.0, 4.0), (-4.0, 0.0), (0.0, -4.0),
    (2.8, 2.8), (-2.8, 2.8), (-2.8, -2.8), (2.8, -2.8),
)
#: more differences than this after a robot move is not a robot slip but a disturbed board
MAX_ROBOT_DIFF = 6
#: a carry the camera can confirm on none of its squares (all in doubt) is tried this many more times
#: before a person is asked to look (RobotJobs._carry_doubt): the centre again, then one offset
DOUBT_RETRIES = 2
#: while storage is a guess (a damaged ledger not yet checked), a draw from storage that brought no piece
#: this many plans running is taken as an empty slot, and a person is asked (RobotJobs._drew_nothing)
GUESSED_SLOT_DRAWS = 2
#: a goal that has waited this long for a still board says so in the log, once (RobotJobs._waiting)
CAMERA_WAIT_LOG_S = 60.0
#: seconds between homing attempts while the gantry is in error
HOME_RETRY_S = 3.0


@dataclass
class Goal:
    """A target for the squares and what to do once the camera confirms it."""

    purpose: Purpose
    target: dict[int, Piece]
    phase: Phase = Phase.READ
    not_before: float = 0.0           # only readings from frames after this count
    attempts: int = 0                 # plans carried out that the camera did not confirm
    interrupted: bool = False         # the last plan stopped on a gantry error: not a failed attempt
    last_plan: list[Transfer] = field(default_factory=list)
    scope: frozenset[int] | None = None   # squares the robot may touch (None: all)
    dropped_on: frozenset[int] = frozenset()   # squares under an interrupted carry's path (RobotJobs.path_squares)
    asked_at: float | None = None     # when a person was asked to put right carries the camera could not see
    answered: bool = False            # ... and staff said the pieces are back (a hand on the board says so too)
    waited_told: bool = False         # the long wait for a still board has been logged (RobotJobs._waiting)
    guessed: frozenset[int] = frozenset()   # the last plan's source squares the camera's piece there was a guess on
    parks_doubted: frozenset[int] = frozenset()   # squares parked from that read empty only in doubt (_parks_in_doubt)
    unbegun: list[Transfer] = field(default_factory=list)   # the interrupted plan's carries after the one it stopped in
                                                            # (a gantry error, or a power cut: kiosk/controller.py)

    @property
    def reach(self) -> frozenset[int] | None:
        """The squares the robot may have changed: its scope, and where a carry it was interrupted in may
        have let its piece go (None: all)."""
        return None if self.scope is None else self.scope | self.dropped_on


class CarryDoubt(Enum):
    """What the camera's doubt over the squares of the robot's last carries comes to (RobotJobs._carry_doubt)."""

    SEEN_TO = "seen_to"     # confirmed on another of each carry's squares, or a person has seen to it
    UNSEEN = "unseen"       # confirmed nowhere and nobody has looked: retried, then a person is asked


class JobHost(Protocol):
    """What the runner needs from the controller."""

    state: State

    def record(self, kind: str, **data: object) -> object: ...
    def set_state(self, new: State) -> None: ...
    def ask_person(self, diff: dict[int, Piece | None], message: str) -> None: ...
    def board_size(self) -> int: ...
    def default_variant(self) -> str: ...
    def gantry_failed(self, error: str) -> None: ...
    def gantry_homed(self) -> None: ...
    def resume_goal_state(self, purpose: Purpose) -> None: ...


class RobotJobs:
    """Owns the current goal and the gantry jobs; keeps the robot's ledger (kiosk/inventory.py) open."""

    def __init__(self, host: JobHost, config: Config, gantry: GantryPort, watch: BoardWatch, state_dir: str,
                 clock: Callable[[], float], max_pickup_retries: int = len(RETRY_OFFSETS_MM)) -> None:
        self.host, self.config, self.gantry, self.watch, self.clock = host, config, gantry, watch, clock
        self.planner: MotionPlanner | None = None
        self.max_pickup_retries = max_pickup_retries
        self.book = StorageBook(state_dir, config)
        self.board_name = ""
        self.goal: Goal | None = None
        self.after_goal: Callable[[], None] | None = None
        self.activity: RobotActivity = IDLE_ACTIVITY
        self.progress = 0.0
        self.resume_plan: list[Transfer] = []
        self.homing_job: int | None = None
        self.home_retry_at = 0.0
        self._job = 0
        self._job_transfers: list[Transfer] = []
        self._job_done = 0

    # -- goals ---------------------------------------------------------------
    def start_goal(self, purpose: Purpose, target: dict[int, Piece], then: Callable[[], None] | None) -> None:
        self.goal = Goal(purpose, dict(target), phase=Phase.READ, not_before=self.clock())
        self.after_goal = then
        self.activity, self.progress = IDLE_ACTIVITY, 0.0

    def retarget(self, purpose: Purpose, target: dict[int, Piece], then: Callable[[], None] | None) -> None:
        """Another target for the goal under way: a job on the gantry finishes, then the plan
        is made afresh from the camera (nothing the robot did is wasted when the targets agree)."""
        if self.goal is None:
            self.start_goal(purpose, target, then)
            return
        self.goal.purpose, self.goal.target, self.goal.attempts = purpose, dict(target), 0
        self.after_goal = then
        if self.goal.phase == Phase.READ:
            self.goal.not_before = self.clock()

    @property
    def steps_done(self) -> int:
        """Transfers of the current job the gantry has reported carried."""
        return self._job_done

    def drop_goal(self) -> None:
        self.goal, self.after_goal = None, None

    @property
    def waiting_for_camera(self) -> bool:
        return self.goal is not None and self.goal.phase in (Phase.READ, Phase.VERIFY) and self.homing_job is None

    def advance(self) -> None:
        """A goal waiting for the camera: confirm it, or plan (again), or ask a person."""
        goal = self.goal
        assert goal is not None
        if self.gantry.busy:
            goal.not_before = self.clock()     # e.g. a resign mid-move: look once the gantry stops
            return
        # the first still frames taken after the gantry stopped (or the goal began)
        still = self.watch.still(goal.not_before)
        if still is None:
            self._waiting(goal)
            return
        observed = pieces_of(still.probabilities)
        if self.planner is None:
            self.use_board(self.board_name or self.config.board)
        if self.resume_plan:
            self.settle_resumed_plan(observed)
        self.book.first_look(observed, self.host.default_variant())
        observed = self._king_checked(observed, still)
        observed = self._parks_in_doubt(goal, still, observed)
        if goal.phase == Phase.VERIFY:
            self.unbook_failures(observed, goal.last_plan)
        diff = diff_squares(observed, goal.target)
        if diff and self.watch.unsure(still, observed, goal.target):
            return
        if diff:
            observed, diff = self._taken_in_doubt(goal, still, observed, diff)
        if diff and self._carry_doubt(goal, still, diff) is CarryDoubt.UNSEEN:
            if goal.asked_at is not None:
                return          # the person asked has not touched the board yet (a hand ends the still run)
            if goal.attempts >= DOUBT_RETRIES:
                # retried, and the camera still cannot tell whether the piece came: a person looks
                goal.asked_at = self.clock()
                self.host.ask_person(diff, "place_piece.missed_pickup")
                return
        if not diff:
            self._reached(goal, observed)
            return
        self._plan(goal, observed, diff, still)

    def _waiting(self, goal: Goal) -> None:
        """Log once when a goal has waited CAMERA_WAIT_LOG_S for a still board, and why: the gantry
        stands idle then and nothing else says so (a board refused as "hand over board" in light that
        stays, a camera unplugged; the screen shows the camera's panel)."""
        waited = self.clock() - goal.not_before
        if goal.waited_told or waited < CAMERA_WAIT_LOG_S:
            return
        goal.waited_told = True
        why = self.watch.camera_reason if not self.watch.camera_ok else "the board is read but not still"
        log.warning("the robot's %s has waited %.0f s for a still board: %s%s", goal.purpose.value, waited, why,
                    " (the visitor is asked whether a hand is over it)" if self.watch.asks_hands_off else "")

    def _parks_in_doubt(self, goal: Goal, still: StableEvent, observed: dict[int, Piece]) -> dict[int, Piece]:
        """`observed` with the pieces the first plan took off the board to storage put back where the
        camera reads their squares empty only in doubt: such a park is booked as failed and carried once
        more (from the retry's offset), then its square is taken as the camera reads it.

        WHY: storage is off the picture, so nothing but the square a piece was taken from can show that
        a park happened, and under a lamp's veil that square reads "empty" in doubt whether the piece is
        there or not (the doubt's best guess is the prior's, vision/reader.py), which is just what the
        plan wanted. Hard-light museum day, seed 27: the magnet missed the defender a visitor had left
        captured on f7, f7 read empty in doubt, the robot's move was taken as done, and the game went on
        with a piece on f7 that the game did not have. A second carry costs a few seconds; a piece that
        had gone is not there to catch, and the slot it went to is the one booked for it again.

        After a plan the gantry stopped in (a gantry error), the same holds for every carry from a square it
        never began (`Goal.unbegun`, the carries after the one it stopped in; the recovery sweeps that one
        again), a park or a move: its piece stands where it stood, and there is not even a missed pickup to
        doubt. Hard-light museum day, seed 48: garbled serial stopped the robot's move e5-c5, the recovery
        finished it, the park of the defender it captured on b5 was never begun, b5 read empty in doubt, and
        the game went on with a defender on b5 that the game did not have. A move's piece read so would be
        planned from storage onto its square while it still stood on its own.
        """
        if goal.phase != Phase.VERIFY:
            return observed
        stopped = goal.interrupted or bool(goal.unbegun)      # a gantry error or a power cut stopped the plan
        if stopped:
            # (not from a square an earlier carry never begun was to bring its piece to: none stands there)
            carries = [t for i, t in enumerate(goal.unbegun)
                       if isinstance(t.src, int) and t.src not in {u.dst for u in goal.unbegun[:i]}]
        elif goal.attempts == 0:
            carries = [t for t in goal.last_plan if isinstance(t.src, int) and isinstance(t.dst, Slot)]
        else:
            return observed
        doubtful = {t.src: t.piece for t in carries
                    if isinstance(t.src, int) and observed.get(t.src) is None and goal.target.get(t.src) is None
                    and still.confidence[t.src] < SURE}
        if not doubtful:
            return observed
        if set(doubtful) != goal.parks_doubted:         # (once, not at each of the fresh pictures' looks)
            goal.parks_doubted = frozenset(doubtful)
            self._record_kept("unsure_parked", set(doubtful),
                              "where the robot had yet to take pieces off: carried now" if stopped
                              else "where the robot took pieces off: carried again")
        return {**observed, **doubtful}

    @staticmethod
    def _drew_nothing(goal: Goal, still: StableEvent, observed: dict[int, Piece]) -> bool:
        """The last plan drew a piece from a storage slot to a square the camera is sure does not hold it.

        WHY: a damaged ledger is rebuilt on the guess that storage holds every piece the camera does not
        see; a piece a visitor put in the tray is not there. A draw from its slot brings nothing, and the
        retries draw from the same slot (a failed draw books the piece back: the magnet may have missed
        it) with the same pickup point (the retries' offsets are for pieces on the board): a hard-light
        museum day (seed 52, a power cut had damaged the ledger) drew from one empty slot nine times
        before asking for a hand. While storage is a guess, a slot that gave nothing twice is taken as
        empty and a person is asked for the piece (their "pieces are back" counts storage again).
        """
        return any(isinstance(t.src, Slot) and isinstance(t.dst, int) and observed.get(t.dst) != t.piece
                   and still.confidence[t.dst] >= SURE for t in goal.last_plan)

    def _king_checked(self, observed: dict[int, Piece], still: StableEvent) -> dict[int, Piece]:
        """`observed` with a king the camera only guessed read as a defender while the king is parked
        (kiosk/reconcile.king_in_storage); a king it is sure of unbooks his slot instead."""
        if self.book.storage_check_needed:
            return observed          # storage is a guess until checked: the camera's board stands
        share = {sq: float(still.probabilities[sq][int(SquareClass.KING)]) for sq in observed}
        observed, stale = king_in_storage(observed, share, self.book.storage(), SURE)
        for slot in stale:
            log.warning("the camera is sure of the king on the board: his storage slot %s is unbooked", slot)
            self.book.put(slot, None)
        if stale:
            self.book.save()
        return observed

    def _taken_in_doubt(self, goal: Goal, still: StableEvent, observed: dict[int, Piece],
                        diff: dict[int, Piece | None]) -> tuple[dict[int, Piece], dict[int, Piece | None]]:
        """`observed` and `diff` with the differences the camera has no evidence for (squares read
        below SURE, after BoardWatch.unsure's fresh pictures) taken as `goal.target` has them;
        only the rest is acted on.

        Two kinds:
        - squares outside the goal's scope (BoardWatch.untouched_in_doubt): the robot did not
          touch them, so they hold what they held (`unsure_untouched`);
        - after a plan the gantry carried out to the end, when every difference left is in doubt
          and on a square that plan carried a piece to or from, and the camera confirms each such
          carry on another of its squares, or a person was asked to put it right (`_carry_doubt`):
          the gantry's (or the person's) word stands (`unsure_carried`).

        WHY the second: a piece the camera cannot make out where the robot just put it (a white
        defender washed out in dim light under a lamp's veil) was retried as a missed pickup:
        re-planned from the camera's guess, it drew a second piece from storage onto it, or a
        piece from a slot already emptied, nine times, then called staff, who found the board
        right and could not make the camera see it. A hard-light museum day lost a game that way
        (32 staff calls for one defender on f7). Taking a carry the camera confirms nowhere on trust,
        though, took a missed pickup under a veil for a move made, and a piece drawn from a slot the
        ledger wrongly had full for one put down (a desync on each of two hard-light days): such a
        carry is retried DOUBT_RETRIES times, then a person is asked once (advance). A sure
        difference anywhere is acted on as before, and the squares in doubt with it (the retry needs
        the camera's best guess).
        """
        kept: set[int] = set()
        if goal.reach is not None:
            kept = self.watch.untouched_in_doubt(still, diff, goal.reach)
            self._record_kept("unsure_untouched", kept, "which the robot did not touch: taken as planned")
        rest = {sq for sq in diff if sq not in kept}
        if rest and self._carry_doubt(goal, still, {sq: diff[sq] for sq in rest}) is CarryDoubt.SEEN_TO:
            self._record_kept("unsure_carried", rest, "where the robot carried pieces: taken as planned")
            kept |= rest
        if not kept:
            return observed, diff
        observed = {sq: p for sq, p in observed.items() if sq not in kept}
        observed.update({sq: goal.target[sq] for sq in kept if sq in goal.target})
        return observed, {sq: p for sq, p in diff.items() if sq not in kept}

    @staticmethod
    def _carry_doubt(goal: Goal, still: StableEvent, diff: dict[int, Piece | None]) -> CarryDoubt | None:
        """After a plan the gantry carried out to the end, when every difference is in doubt and on a
        square a carry of that plan touched: SEEN_TO when the camera confirms each such carry (another
        of its squares read surely as planned: the piece surely left, or surely arrived) or a person
        asked to put them right has seen to it (`Goal.asked_at`: a hand on the board since, which ends
        the still run, or staff's "pieces are back", `Goal.answered`); else UNSEEN (from a storage
        slot, or with both squares in doubt). None otherwise (a sure difference, one where the plan
        carried nothing, no plan carried).

        A carry's source read surely empty confirms it only where the camera was sure of the piece there
        when the plan was made (`Goal.guessed`): an empty square can be left by no piece. Hard-light museum
        day, seed 26: the first look at an empty Throw Board guessed a king on a1 (its gold-green corner
        fill, 0.43); the set-up carried him from a1 to f6, the camera was unsure at f6 and sure a1 was
        empty, and the game began with the kiosk's king on f6 and none on the table."""
        if goal.phase != Phase.VERIFY or goal.interrupted or not goal.last_plan:
            return None
        if any(still.confidence[sq] >= SURE for sq in diff):
            return None
        touching = [[sq for sq in (t.src, t.dst) if isinstance(sq, int)] for t in goal.last_plan]
        touching = [squares for squares in touching if set(diff) & set(squares)]
        if not set(diff) <= {sq for squares in touching for sq in squares}:
            return None
        if goal.asked_at is not None and (goal.answered or still.since > goal.asked_at):
            return CarryDoubt.SEEN_TO
        confirmed = all(any(sq not in diff and sq not in goal.guessed and still.confidence[sq] >= SURE
                            for sq in squares) for squares in touching)
        return CarryDoubt.SEEN_TO if confirmed else CarryDoubt.UNSEEN

    def _record_kept(self, kind: str, squares: set[int], where: str) -> None:
        if not squares:
            return
        names = [square_name(sq, self.host.board_size()) for sq in sorted(squares)]
        log.info("camera unsure at %s, %s", ", ".join(names), where)
        self.host.record(kind, squares=names)

    def _reached(self, goal: Goal, observed: dict[int, Piece]) -> None:
        self.watch.confirm(observed)
        self.watch.settle()
        # the camera saw the last plan's pieces arrive and leave: its slots are known (storage check)
        self.book.confirm_by_use({loc for t in goal.last_plan for loc in (t.src, t.dst) if isinstance(loc, Slot)})
        then = self.after_goal
        self.goal, self.after_goal = None, None
        self.activity, self.progress = IDLE_ACTIVITY, 1.0
        self.host.record("goal_reached", purpose=goal.purpose.value)
        if then is not None:
            then()

    def _reconcile(self, observed: dict[int, Piece], target: dict[int, Piece],
                   offset_mm: tuple[float, float] = (0.0, 0.0)) -> Reconciliation:
        assert self.planner is not None   # set by use_board()
        return reconcile(observed, target, self.book.storage(), self.planner, offset_mm=offset_mm)

    def _plan(self, goal: Goal, observed: dict[int, Piece], diff: dict[int, Piece | None], still: StableEvent) -> None:
        host = self.host
        plan = None
        if host.state == State.PLACE_PIECE:
            # waiting for a person: go on by itself as soon as the pieces it needs are findable
            plan = self._reconcile(observed, goal.target)
            if not plan.complete or goal.scope is not None:
                host.ask_person(diff, "")
                return
        elif goal.reach is not None and any(sq not in goal.reach for sq in diff):
            # not where the robot worked: a person touched the board (or the camera is
            # wrong there); the robot does not move pieces on a guess
            host.ask_person(diff, "fix_board.robot_result")
            return
        elif goal.purpose in (Purpose.MOVE, Purpose.RESTORE) and len(diff) > MAX_ROBOT_DIFF:
            host.ask_person(diff, "fix_board.robot_result")
            return
        if goal.phase == Phase.VERIFY and not goal.interrupted:
            goal.attempts += 1
        goal.interrupted = False
        if goal.attempts > self.max_pickup_retries:
            host.ask_person(diff, "place_piece.missed_pickup")
            return
        if goal.attempts >= GUESSED_SLOT_DRAWS and self.book.storage_check_needed \
                and self._drew_nothing(goal, still, observed):
            host.ask_person(diff, "place_piece.missing_pieces")
            return
        offset = (0.0, 0.0) if goal.attempts == 0 else RETRY_OFFSETS_MM[(goal.attempts - 1) % len(RETRY_OFFSETS_MM)]
        if plan is None or offset != (0.0, 0.0):
            plan = self._reconcile(observed, goal.target, offset)
        if not plan.transfers:
            host.ask_person(diff, "place_piece.storage_full" if plan.no_slot else "place_piece.missing_pieces")
            return
        host.record("plan", purpose=goal.purpose.value, attempt=goal.attempts,
                     plan=[t.to_json() for t in plan.transfers])
        # a piece the camera only guessed at where a carry starts may never have been there (_carry_doubt)
        goal.guessed = frozenset(t.src for t in plan.transfers
                                 if isinstance(t.src, int) and still.confidence[t.src] < SURE)
        host.resume_goal_state(goal.purpose)
        self.submit(plan.transfers, observed)

    # -- the gantry ------------------------------------------------------------
    def places(self, board: dict[int, Piece]) -> dict:
        """The table as believed now (board + storage), for the planner's obstacles."""
        places: dict = {sq: p.value for sq, p in board.items()}
        places.update({slot: p.value for slot, p in self.book.storage().items()})
        return places

    def submit(self, transfers: list[Transfer], board: dict[int, Piece]) -> None:
        """Hand a plan to the gantry with the table as believed now."""
        self._job += 1
        self._job_transfers = list(transfers)
        self._job_done = 0
        if self.goal is not None:
            self.goal.phase = Phase.MOVING
            self.goal.last_plan = list(transfers)
            self.goal.unbegun = []
        self.progress = 0.0
        self.activity = activity_for(transfers[0], self.host.board_size()) if transfers else IDLE_ACTIVITY
        self.gantry.submit(self._job, list(transfers), self.places(board))

    def next_job(self) -> int:
        self._job += 1
        return self._job

    def home(self) -> None:
        self.homing_job = self.next_job()
        self.host.record("homing", job=self.homing_job)
        self.gantry.home(self.homing_job)

    def on_event(self, event: GantryEvent) -> None:
        kind = event.kind
        if event.job == self.homing_job and kind in (GantryEventKind.HOMED, GantryEventKind.ERROR):
            self.homing_job = None
            if kind == GantryEventKind.HOMED:
                self.host.record("homed")
                self.host.gantry_homed()
            else:
                self.host.record("gantry_error", error=event.error or "", during="homing")
                self.home_retry_at = self.clock() + HOME_RETRY_S
            return
        if event.job != self._job:
            return
        if kind == GantryEventKind.JOGGED:
            x, _, y = event.activity.partition(",")
            self.activity = RobotActivity(ActivityCode.CARRIAGE_AT, {"x": x, "y": y})
        elif kind == GantryEventKind.RAN:
            self.activity = IDLE_ACTIVITY
        elif kind == GantryEventKind.STEP and event.transfer is not None:
            # the gantry booked the step in the ledger before it said so
            self.host.record("transfer_done", job=event.job, step=event.step)
            self._job_done = event.step + 1
            self.progress = self._job_done / max(1, event.total)
            if self._job_done < len(self._job_transfers):
                self.activity = activity_for(self._job_transfers[self._job_done], self.host.board_size())
        elif kind == GantryEventKind.DONE:
            self.progress = 1.0
            if self.goal is None:
                self.activity = IDLE_ACTIVITY          # a staff test move: nothing to verify
            else:
                self.goal.phase = Phase.VERIFY
                self.goal.not_before = self.clock()
                if self.goal.purpose == Purpose.MOVE:
                    self.host.set_state(State.VERIFY)
        elif kind == GantryEventKind.ERROR:
            self.host.record("gantry_error", error=event.error or "")
            if self.goal is not None:
                # what was done is booked; the camera decides what is left once the gantry is back
                self.goal.phase = Phase.VERIFY
                self.goal.not_before = self.clock()
                self.goal.interrupted = True
                self.goal.dropped_on |= self.path_squares(self._job_transfers[self._job_done:self._job_done + 1])
                self.goal.unbegun = self._job_transfers[self._job_done + 1:]
            self.host.gantry_failed(event.error or "")
            self.home()

    def retry_homing(self) -> None:
        if self.homing_job is None and self.clock() >= self.home_retry_at:
            self.home()

    def path_squares(self, transfers: list[Transfer]) -> frozenset[int]:
        """The board squares each carry's straight path crosses, its own two squares left out.

        WHY: a carry interrupted mid-way (a power cut, an alarm, the controller unplugged) lets its
        piece go under the magnet, wherever it then is; the gantry sweeps the path again only while
        its ledger knows the step. The planner drags straight wherever the way is clear, as it is along
        a legal move. Those squares are within the robot's reach for the verify that follows: a
        piece read there in doubt is no untouched square's doubt. A hard-light museum day (seed 16, a
        power cut that also damaged the ledger) took a defender dropped on c8 on the way b8-k8 for an
        empty square in doubt, asked a person to put one on k8, and the board then held one more
        defender than the game.
        """
        if self.planner is None:
            self.use_board(self.board_name or self.config.board)
        assert self.planner is not None
        out: set[int] = set()
        for t in transfers:
            try:
                out |= squares_along(self.planner.layout, t.src, t.dst)
            except ValueError:
                pass                        # a slot this board's storage has not (a stale plan)
        return frozenset(out)

    # -- the robot's ledger ---------------------------------------------------------
    def use_board(self, board_name: str) -> None:
        if board_name != self.board_name or self.planner is None:
            self.planner = MotionPlanner(TableLayout(self.config, board_name))
        self.board_name = board_name
        ledger = self.book.open(board_name)
        assert self.book.path is not None
        self.gantry.use_ledger(ledger, str(self.book.path))

    def recount_storage(self, on_board: dict[int, Piece], variant: str) -> None:
        """Staff: storage holds every piece of `variant` that is not on the board."""
        self.book.recount(on_board, variant)

    def missing(self, on_board: dict[int, Piece] | None, variant: str) -> dict[str, int]:
        """Pieces of `variant` neither seen on the board nor booked in storage (the tray, lost)."""
        return self.book.missing(on_board, variant)

    def park(self, storage: dict[Slot, Piece], sq: int, piece: Piece) -> list[Transfer]:
        """Park `piece` from `sq` in the robot's choice of free slot (robot/planner.py) in
        `storage` (the plan's own copy, booked as planned)."""
        if self.planner is None:
            self.use_board(self.board_name or self.config.board)
        assert self.planner is not None
        try:
            taken: dict[Location, str] = {s: p.value for s, p in storage.items()}
            slot = self.planner.park_slot(taken, piece.value, self.planner.layout.position(sq))
        except PlanError:
            return []        # storage full: the verify step will ask a person
        storage[slot] = piece
        return [Transfer(sq, slot, piece, "park")]

    def carry_begun(self, carry: Transfer) -> bool:
        """After a restart: whether the gantry had begun `carry` when the power went. Its ledger has the
        step in progress pending (the recovery sweeps it again) or books it once made; neither, it never
        began. True where the ledger cannot say (none, or rebuilt from a damaged file)."""
        ledger = self.book.ledger
        if ledger is None or ledger.fresh or ledger.storage_check_needed or ledger.pending is not None:
            return True
        return ledger.piece_at(carry.dst) == carry.piece.value and ledger.piece_at(carry.src) is None

    def unbook_failures(self, observed: dict[int, Piece], plan: list[Transfer]) -> None:
        """The ledger says a transfer happened; the camera says its piece never left or never came."""
        storage = self.book.storage()
        changed = False
        for t in plan:
            if isinstance(t.dst, Slot) and isinstance(t.src, int) and observed.get(t.src) == t.piece \
                    and storage.get(t.dst) == t.piece:
                self.book.put(t.dst, None)       # the piece is still on its square
                changed = True
            if isinstance(t.src, Slot) and isinstance(t.dst, int) and observed.get(t.dst) != t.piece \
                    and storage.get(t.src) is None:
                self.book.put(t.src, t.piece)    # the piece never left its slot
                changed = True
        if changed:
            self.book.save()

    def settle_resumed_plan(self, observed: dict[int, Piece]) -> None:
        """After a power cut: book the interrupted plan's steps the camera shows were done (the
        ledger has every step the gantry finished; this catches the one it was in the middle of)."""
        plan, self.resume_plan = self.resume_plan, []
        storage = self.book.storage()
        for t in plan:
            if isinstance(t.dst, Slot) and isinstance(t.src, int) and observed.get(t.src) != t.piece \
                    and storage.get(t.dst) is None:
                self.book.put(t.dst, t.piece)
            if isinstance(t.src, Slot) and isinstance(t.dst, int) and observed.get(t.dst) == t.piece \
                    and storage.get(t.src) == t.piece:
                self.book.put(t.src, None)
        self.book.save()


def squares_json(diff: dict[int, Piece | None], size: int) -> dict[str, str | None]:
    return {square_name(s, size): (p.value if p else None) for s, p in diff.items()}
