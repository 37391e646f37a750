"""Screenshots of every screen in both panel sizes (``tafl-kiosk --simulate --screenshots DIR``).

Each picture is drawn by the real screens from a `ControllerView` that a
real game could produce (positions come from the engine replaying a real
Copenhagen game), held by `StillView`, which shows that one view and takes no
commands. The clock is fixed per picture so animations are caught mid-way and
the files are reproducible.
"""
from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path
from typing import Any, Callable, Iterator

import pygame

from engine import Board, Outcome, Piece, Side, parse_square
from kiosk.activity import ActivityCode, IDLE_ACTIVITY, RobotActivity
from kiosk.rewards import RewardSession, Unlocks
from kiosk.view import ControllerView
from kiosk.states import State

DEMO_SECRET = "screenshot-demo-secret"   # only for pictures: a real kiosk has its own reward_secret


class StillView:
    """The controller side of a picture: the screens read one `ControllerView` from it, no game behind it.

    It has the calls the app makes every frame (``poll``, ``view``,
    ``touched``, ``take_home_url`` once a game is over) and no commands: a picture has no robot to send them to, so
    every command button on it leads nowhere (staff's shows "not available").
    """

    def __init__(self, view: ControllerView) -> None:
        self._view = view

    def set_view(self, view: ControllerView) -> None:
        """The next picture's view."""
        self._view = view

    def poll(self) -> None:
        """Nothing to hand over: no camera, gantry or engine behind the picture."""

    def view(self) -> ControllerView:
        return self._view

    def touched(self) -> None:
        """A touch on the screen (the controller's attendance); nobody to tell."""

    def take_home_url(self, unlocks: Any) -> str | None:
        """A picture has no game record to take home (kiosk/record_signer.py signs real ones)."""
        return None

    def set_attract(self, showing: bool) -> None:
        """The screen says whether attract shows (kiosk/exhibit.py); a picture has no robot to start."""

    def choose_move(self, move_otn: str) -> bool:
        """The move the visitor touched ("which move?", "show me"): offered so that those screens
        draw their move buttons as on the kiosk; a picture has no game to play it in."""
        return False


def idle_view() -> ControllerView:
    """The view of a kiosk with no game on (the attract and start screens)."""
    return ControllerView(state=State.IDLE, variant=None, board=None, visitor_side=None, level=None, last_move=None,
                          last_captures=(), announcements=(), robot_activity=IDLE_ACTIVITY, progress=0.0, fix_squares={},
                          message=None, message_args={}, outcome=None, camera_ok=True, camera_reason=None,
                          captured={"attackers": 0, "defenders": 0})


def game_view(plies: int = 22, **changes: Any) -> ControllerView:
    """A Copenhagen game after ``plies`` moves of the attract-mode record, visitor = defenders."""
    from kiosk.ui.attract import DEMO_GAME

    board = Board("copenhagen")
    captures: tuple[int, ...] = ()
    last = None
    for text in DEMO_GAME[:plies]:
        last = board.parse_move(text)
        captures = tuple(board.push(last))
    captured = {side.value: n for side, n in board.captured_counts().items()}     # the engine's count
    base = ControllerView(state=State.VISITOR_TURN, variant="copenhagen", board=board, visitor_side=Side.DEFENDERS,
                          level="medium", last_move=last, last_captures=captures, announcements=(),
                          robot_activity=IDLE_ACTIVITY, progress=0.0, fix_squares={}, message=None, message_args={},
                          outcome=None, camera_ok=True, camera_reason=None, captured=captured)
    if board.turn != Side.DEFENDERS:
        base = replace(base, visitor_side=Side.ATTACKERS)
    return replace(base, **changes)


def _shots(config: Any) -> list[tuple[str, Callable[[Any], None]]]:
    """(name, prepare(app)) for every picture; prepare navigates and sets the view."""
    def sq(name: str) -> int:
        return parse_square(name, 11)

    def at(app: Any, name: str, view: Any, t: float = 0.0, **kwargs: Any) -> None:
        app.ctx.controller.set_view(view)
        app.navigate(name, **kwargs)
        _clock_of(app).now += t

    def attract(app: Any) -> None:
        at(app, "attract", idle_view())
        app.step([])
        _clock_of(app).now += 12.4          # a few moves into the replay, one piece mid-slide

    def start_page(page: str, variant: str | None = None, lots: bool = False) -> Callable[[Any], None]:
        def prepare(app: Any) -> None:
            at(app, "start", idle_view())
            screen = app.screens["start"]
            if variant:
                screen.choose_variant(variant)
            if page == "level":
                screen.choose_side("lots" if lots else "defenders")
            screen.page = page
        return prepare

    def game(view: Any, selected: str | None = None, confirm: str | None = None, camera_bad_for: float = 0.0):
        def prepare(app: Any) -> None:
            at(app, "game", view)
            screen = app.screens["game"]
            if selected:
                screen.selected = sq(selected)
                screen.cursor = sq(selected)
            screen.confirm = confirm
            if camera_bad_for:
                screen.camera_bad_since = _clock_of(app).now - camera_bad_for
        return prepare

    def won(app: Any) -> None:
        view = game_view(34, state=State.GAME_OVER, outcome=Outcome(Side.DEFENDERS, "king_escaped"))
        view = replace(view, visitor_side=Side.DEFENDERS)
        at(app, "game", view)

    def rewards(new: str, unlocks: Unlocks, scheme: int = 0) -> Callable[[Any], None]:
        def prepare(app: Any) -> None:
            app.ctx.rewards = RewardSession(unlocks=unlocks, colour_scheme=scheme)
            at(app, "rewards", game_view(34, state=State.GAME_OVER), new=new)
            _clock_of(app).now += 1.3
        return prepare

    def rules(variant: str, step: int, t: float) -> Callable[[Any], None]:
        def prepare(app: Any) -> None:
            at(app, "rules", idle_view(), variant=variant, step=step, back="attract")
            _clock_of(app).now += t
        return prepare

    def staff(page: str) -> Callable[[Any], None]:
        def prepare(app: Any) -> None:
            app.ctx.staff_unlocked = True
            at(app, "staff", game_view(10, state=State.VISITOR_TURN), page=page)
        return prepare

    def idle_countdown(app: Any) -> None:
        at(app, "game", game_view(20))
        app.step([])                            # the first frame notes the view as activity
        app.last_activity = _clock_of(app).now - (app.idle_timeout - 12.2)

    def unlocked_game(app: Any) -> None:
        app.ctx.rewards = RewardSession(unlocks=Unlocks(True, True, True), colour_scheme=1)
        game(game_view(21, state=State.VISITOR_TURN), selected="f5")(app)

    def york_match(over: bool) -> Callable[[Any], None]:
        def prepare(app: Any) -> None:
            import random

            from kiosk.match import Match

            match = Match.new("five_point", "york", Side.DEFENDERS, random.Random(7))
            board = Board("york")
            if over:
                board = Board.from_otn("york", "/3t7/11/2t4t3/11/5T5/11/4t6/11/3t4t2/11/1K9/", turn=Side.ATTACKERS)
                match.record(board, Outcome(Side.DEFENDERS, "king_escaped"))     # the controller scores it
            view = replace(game_view(0), variant="york", board=board, last_move=None, last_captures=(),
                           visitor_side=Side.DEFENDERS, level="easy",
                           state=State.GAME_OVER if over else State.THINKING,
                           outcome=Outcome(Side.DEFENDERS, "king_escaped") if over else None, match=match)
            at(app, "game", view)
        return prepare

    def swedish(app: Any) -> None:
        game(game_view(22, state=State.ROBOT_MOVING, robot_activity=RobotActivity(ActivityCode.MOVING, {"from": "b9", "to": "a9"}), progress=0.4,
                       announcements=("raichi",)))(app)
        app.ctx.texts.set_language("sv")

    # f8 to f4 jumps over the defenders on f7 and f5: really blocked.
    from kiosk.ui.rules_content import STEPS
    from kiosk.ui.teach_panel import with_teaching as teach

    illegal = game_view(21, state=State.FIX_BOARD, message="illegal_move.blocked",
                        message_args={"from": "f8", "to": "f4"},
                        fix_squares={sq("f4"): None, sq("f8"): Piece.DEFENDER})
    # a move the camera could not make out (glare): "which move?" with a few, "show me" with more
    doubt = game_view(21, state=State.FIX_BOARD)
    assert doubt.board is not None
    moves = [m for m in doubt.board.legal_moves if m.from_sq == sq("f5")]
    which = replace(doubt, message="fix_board.which", message_args={"count": "2"}, move_choices=tuple(moves[:2]),
                    fix_squares={sq("f5"): Piece.DEFENDER})
    shown = replace(doubt, message="fix_board.show", message_args={"count": "1"}, fix_squares={sq("f5"): Piece.DEFENDER},
                    moves_possible=tuple(m for m in doubt.board.legal_moves if m.from_sq in (sq("f5"), sq("e6"))))
    place = game_view(22, state=State.PLACE_PIECE, message="place_piece.missed_pickup",
                      robot_activity=RobotActivity(ActivityCode.MOVING, {"from": "b9", "to": "a9"}), fix_squares={sq("a9"): Piece.ATTACKER, sq("b9"): None})
    return [
        ("01-attract", attract),
        ("02-start-game", start_page("variant")),
        ("03-start-york-match", start_page("format", "york")),
        ("04-start-side", start_page("side", "copenhagen")),
        ("05-start-level-lots", start_page("level", "tablut", lots=True)),
        ("06-game-your-turn", game(game_view(21, state=State.VISITOR_TURN), selected="f5")),
        ("07-game-robot-moving", game(game_view(22, state=State.ROBOT_MOVING, robot_activity=RobotActivity(ActivityCode.MOVING, {"from": "b9", "to": "a9"}),
                                                progress=0.6, announcements=("king_threatened",)))),
        ("08-game-thinking", game(game_view(20, state=State.THINKING))),
        ("09-game-setup", game(game_view(0, state=State.SETUP, robot_activity=RobotActivity(ActivityCode.PLACING, {"square": "d1"}), progress=0.35,
                                         last_move=None))),
        ("10-error-illegal-move", game(illegal)),
        ("10b-error-which-move", game(which)),
        ("10c-error-show-your-move", game(shown, selected="f5")),
        ("11-error-place-piece", game(place)),
        ("12-error-camera", game(game_view(21, state=State.VISITOR_TURN, camera_ok=False, camera_reason="hand over board"),
                                 camera_bad_for=3.0)),
        ("12b-camera-asks-hands-off", game(game_view(21, state=State.VISITOR_TURN, camera_ok=False,
                                                     camera_reason="hand over board", asks_hands_off=True),
                                           camera_bad_for=6.0)),
        ("13-error-staff", game(game_view(21, state=State.PAUSED_ERROR, message="gantry.error",
                                          message_args={"error": "ALARM:1 hard limit"}))),
        ("14-confirm-resign", game(game_view(21), confirm="resign")),
        ("15-game-over-won", won),
        ("16-rewards-colours", rewards("colours", Unlocks(colours=True), 1)),
        ("17-rewards-crown", rewards("crown", Unlocks(True, True, True), 2)),
        ("18-game-unlocked-look", unlocked_game),
        ("19-rules-copenhagen-capture", rules("copenhagen", 2, 1.0)),
        ("20-rules-copenhagen-shieldwall", rules("copenhagen", 5, 2.6)),
        ("21-rules-tablut-camps", rules("tablut", 1, 0.3)),
        ("22-rules-tawlbwrdd-stop", rules("tawlbwrdd", 3, 2.5)),
        ("23-rules-york-king", rules("york", 3, 1.6)),
        ("24-staff-pin", lambda app: at(app, "pin", idle_view())),
        ("25-staff-robot", staff("robot")),
        ("26-staff-levels", staff("levels")),
        ("27-staff-system", staff("system")),
        ("27b-staff-camera", staff("camera")),
        ("28-idle-countdown", idle_countdown),
        ("29-york-card-match", york_match(False)),
        ("30-york-card-match-over", york_match(True)),
        ("31-game-in-swedish", swedish),
        # teaching (kiosk/ui/teach_panel.py): why the robot moved, the hint, the "Playing here" pages
        ("32-game-robot-reason", game(teach(game_view(24)))),
        ("33-game-hint", game(teach(game_view(21), hint_level="easy", hints_left=0))),
        ("34-game-hint-thinking", game(teach(game_view(17), pending=True, hints_left=None))),
        ("35-game-reason-in-swedish", lambda app: (game(teach(game_view(17)))(app),
                                                   app.ctx.texts.set_language("sv"))),
        ("36-rules-playing-here", rules("copenhagen", len(STEPS["copenhagen"]) - 2, 2.0)),
        ("37-rules-levels-hints", rules("tablut", len(STEPS["tablut"]) - 1, 0.0)),
        ("38-start-side-rules", start_page("side", "york")),
        # the exhibit modes (kiosk/exhibit.py): self-play live in attract, the hand-over, two players
        ("39-attract-selfplay", lambda app: at(app, "attract", _exhibit_view("thinking", ply=22))),
        ("40-handover", lambda app: at(app, "handover", _exhibit_view("handover", handover_ready=True))),
        ("41-start-side-two-players", start_page("side", "copenhagen")),
        ("42-game-referee", lambda app: at(app, "game", replace(game_view(21), exhibit=_exhibit("referee", clocks={
            "attackers": 184.0, "defenders": 95.0})))),
    ]


def _exhibit(mode: str, **fields: Any) -> Any:
    from kiosk.exhibit import ExhibitView

    return ExhibitView(mode=mode, **fields)


def _exhibit_view(state: str, ply: int = 22, **fields: Any) -> Any:
    """A self-play view: the demo game after `ply` moves, with the reason for the last one."""
    from engine.reasons import explain
    from kiosk.teaching import TeachingView

    view = game_view(ply, state=state, level="easy", ply=ply)
    assert view.board is not None and view.last_move is not None, "the demo game has moves"
    before = view.board.copy()
    before.pop()
    reasons = explain(before, view.last_move)
    side = view.board.turn if state == State.HANDOVER else None
    return replace(view, exhibit=_exhibit("selfplay", handover_side=side, **fields),
                   teaching=TeachingView(robot_reasons=reasons, robot_ply=ply))


class _Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def _clock_of(app: Any) -> _Clock:
    """The still clock a prepared app runs on (prepared_screens gives every app one)."""
    clock = app.clock
    assert isinstance(clock, _Clock)
    return clock


def prepared_screens(config: Any, size: tuple[int, int]) -> Iterator[tuple[str, Any]]:
    """Every screen the screenshots show, as (name, app) with one frame drawn: for
    saving them and for the tests that measure every button on every screen."""
    from kiosk.ui.app import KioskApp

    for name, prepare in _shots(config):
        clock = _Clock()
        app = KioskApp(StillView(idle_view()), config, world=object(), size=size, clock=clock)
        prepare(app)
        app.step([])
        yield name, app


def save_screenshots(out_dir: str | os.PathLike[str], config: Any,
                     sizes: tuple[tuple[int, int], ...] = ((1280, 800), (800, 480))) -> list[Path]:
    """Render every screen at every size into ``out_dir`` as ``<W>x<H>/<NN-name>.png``; returns the files."""
    from copy import deepcopy

    os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
    pygame.display.init()
    pygame.font.init()
    config = deepcopy(config)
    if not config.kiosk.reward_secret:
        config.kiosk.reward_secret = DEMO_SECRET
    if not config.kiosk.staff_pin_hash:
        from kiosk.staffpin import hash_pin

        config.kiosk.staff_pin_hash = hash_pin("0000", iterations=10_000)
    written: list[Path] = []
    for size in sizes:
        folder = Path(out_dir) / f"{size[0]}x{size[1]}"
        folder.mkdir(parents=True, exist_ok=True)
        for name, app in prepared_screens(config, size):
            path = folder / f"{name}.png"
            pygame.image.save(app.surface, str(path))
            written.append(path)
    return written


def main(argv: list[str] | None = None) -> int:
    import argparse

    from calibration.config import Config

    parser = argparse.ArgumentParser(prog="python -m kiosk.ui.screenshots")
    parser.add_argument("out_dir")
    args = parser.parse_args(argv)
    files = save_screenshots(args.out_dir, Config())
    print(f"screenshots: {len(files)} files in {args.out_dir}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
