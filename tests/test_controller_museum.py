"""A museum day on fast fake ports: game after game, captures in the tray, nobody helping,
a slow thinker, a walk-away, End game (issue 13 points 1-3)."""
from __future__ import annotations

import logging

from engine import Piece, Side

from kiosk.session import result_of
from tests.helpers.rig import Rig, play_game as play, one_move_in


STEP = 0.1


def skip(rig: Rig, seconds: float, step: float = 1.0) -> None:
    """Let simulated time pass with nobody doing anything."""
    for _ in range(int(seconds / step)):
        rig.clock.now += step
        rig.ctrl.poll()


def play_game(rig: Rig, visitor_side: Side) -> None:
    """A visitor who captures whenever they can and takes the captured pieces off into the tray."""
    play(rig, visitor_side, prefer_captures=True)



def put_tray_pieces_on_free_squares(rig: Rig) -> int:
    """A visitor empties the tray onto free squares of their choice (not the marked ones)."""
    taken = set(rig.world.square_pieces())
    free = [sq for sq in range(rig.world.size ** 2) if sq not in taken and sq not in rig.ctrl.view().fix_squares]
    n = 0
    for piece in list(rig.world.tray):
        rig.world.put_on(free[n * 3], piece)       # spread out, away from the marks
        n += 1
    return n


def test_a_game_after_a_game_where_the_visitor_took_captures_off_by_hand(tmp_path):
    rig = Rig(tmp_path, seed=3)
    play_game(rig, Side.ATTACKERS)            # the visitor takes every capture off into the tray
    assert rig.ctrl.view().state == "game_over"
    assert rig.world.tray, "the game needs captures taken off by hand"
    # the robot resets straight away; the pieces in the tray are missing, so it asks for them
    state = rig.run_until({"place_piece"}, limit=5000)
    view = rig.ctrl.view()
    assert state == "place_piece" and view.message == "place_piece.missing_pieces"
    assert view.fix_squares and all(p is not None for p in view.fix_squares.values())
    assert sum(view.missing.values()) == len(rig.world.tray)
    assert put_tray_pieces_on_free_squares(rig) > 0
    # it sees them arrive and uses them: the board reaches the start position by itself
    rig.run_until({"game_over"}, limit=5000)
    for _ in range(3000):
        rig.step()
        if not rig.ctrl.view().resetting:
            break
    view = rig.ctrl.view()
    assert not view.resetting and view.state == "game_over" and not view.missing
    rig.ctrl.start_game("copenhagen", {}, Side.DEFENDERS, "easy")
    assert rig.run_until({"visitor_turn", "thinking", "robot_moving"}) in ("visitor_turn", "thinking", "robot_moving")
    play_game_continued(rig)


def play_game_continued(rig: Rig) -> None:
    for _ in range(400):
        state = rig.run_until({"visitor_turn", "game_over"})
        if state == "game_over":
            return
        rig.visitor_random_move()
    raise AssertionError("the second game did not end")


def test_nobody_helping_calls_staff_and_loses_nothing(tmp_path, caplog):
    rig = Rig(tmp_path, seed=3)
    play_game(rig, Side.ATTACKERS)
    moves = list(rig.ctrl.view().board.move_stack)
    rig.run_until({"place_piece"}, limit=5000)
    with caplog.at_level(logging.WARNING, logger="kiosk.staff"):
        skip(rig, 20 * 60)                         # twenty minutes, nobody comes
    view = rig.ctrl.view()
    assert view.state == "place_piece" and view.staff_notice      # still waiting, staff called
    assert any("staff needed" in r.getMessage() for r in caplog.records if r.levelno == logging.WARNING)
    assert view.outcome is not None and list(view.board.move_stack) == moves     # the game is kept
    assert rig.ctrl.journal.last("staff_called") is not None
    # staff bring the pieces back into storage and say so: the robot goes on
    assert rig.world.refill_storage() > 0
    rig.ctrl.pieces_back()
    rig.run_until({"game_over"}, limit=5000)
    for _ in range(3000):
        rig.step()
        if not rig.ctrl.view().resetting:
            break
    assert not rig.ctrl.view().resetting and rig.ctrl.view().staff_notice is None


def test_a_thinking_visitor_who_never_touches_the_screen_for_4_minutes_keeps_the_game(tmp_path):
    rig = Rig(tmp_path, seed=1)
    rig.ctrl.start_game("copenhagen", {}, Side.ATTACKERS, "easy")
    rig.run_until({"visitor_turn"})
    skip(rig, 4 * 60)
    view = rig.ctrl.view()
    assert view.state == "visitor_turn" and view.attendance is None
    rig.visitor_random_move()                     # and then plays
    assert rig.ctrl.view().ply == 1


def test_a_walk_away_is_paused_with_the_position_kept_and_resumed(tmp_path):
    rig = one_move_in(tmp_path, 2)
    before = list(rig.ctrl.view().board.move_stack)
    cfg = rig.config.kiosk
    skip(rig, cfg.attendance_warn_s + 5)
    assert rig.ctrl.view().attendance == "warn" and rig.ctrl.view().state == "visitor_turn"
    skip(rig, cfg.attendance_pause_s - cfg.attendance_warn_s)
    view = rig.ctrl.view()
    assert view.state == "paused" and view.outcome is None and list(view.board.move_stack) == before
    skip(rig, 30 * 60)                            # paused, not ended, however long
    assert rig.ctrl.view().state == "paused"
    # a power cut while paused keeps it paused
    rig.ctrl = rig.make()
    assert rig.ctrl.view().state == "paused" and list(rig.ctrl.view().board.move_stack) == before
    # the visitor comes back and simply plays on the board
    rig.visitor_random_move()
    assert rig.ctrl.view().ply == len(before) + 1


def test_a_touch_continues_a_paused_game(tmp_path):
    rig = Rig(tmp_path, seed=2)
    rig.ctrl.start_game("copenhagen", {}, Side.ATTACKERS, "easy")
    rig.run_until({"visitor_turn"})
    skip(rig, rig.config.kiosk.attendance_pause_s + 1)
    assert rig.ctrl.view().state == "paused"
    rig.ctrl.touched()
    assert rig.ctrl.view().state == "visitor_turn"


def test_end_game_stops_without_a_winner_and_resets(tmp_path):
    rig = one_move_in(tmp_path, 1)
    rig.ctrl.end_game()
    view = rig.ctrl.view()
    assert view.state == "game_over" and view.outcome.winner is None and view.outcome.reason == "ended"
    assert result_of(rig.ctrl.session) == "abandoned"            # not a draw in the game log
    assert view.resetting
    for _ in range(3000):
        rig.step()
        if not rig.ctrl.view().resetting:
            break
    assert rig.world.square_pieces() == {sq: p for sq, p in rig.ctrl.session.start_position().items()}


def test_a_new_visitor_replaces_a_paused_game(tmp_path):
    rig = Rig(tmp_path, seed=2)
    rig.ctrl.start_game("copenhagen", {}, Side.ATTACKERS, "easy")
    rig.run_until({"visitor_turn"})
    skip(rig, rig.config.kiosk.attendance_pause_s + 1)
    rig.ctrl.start_game("copenhagen", {}, Side.DEFENDERS, "easy")
    assert rig.ctrl.view().state == "setup"
    assert rig.run_until({"thinking", "robot_moving", "visitor_turn"})
    games = [r for r in (tmp_path / "state" / "gamelog").glob("*.jsonl")]
    assert games and '"abandoned"' in games[0].read_text()


def test_the_move_shows_as_checking_before_the_board_is_still(tmp_path):
    rig = Rig(tmp_path, seed=4)
    rig.ctrl.start_game("copenhagen", {}, Side.ATTACKERS, "easy")
    rig.run_until({"visitor_turn"})
    skip(rig, 1.0, step=STEP)
    board = rig.ctrl.view().board
    move = next(m for m in board.legal_moves if not board.captures_of(m))
    rig.world.visitor_move(move.from_sq, move.to_sq)
    seen = None
    for _ in range(100):
        rig.step()
        view = rig.ctrl.view()
        if view.ply == 1:
            break
        if view.checking_move is not None:
            seen = view.checking_move
    assert seen == move and rig.ctrl.view().ply == 1


def test_missing_pieces_are_counted(tmp_path):
    rig = Rig(tmp_path, seed=3)
    rig.ctrl.start_game("copenhagen", {}, Side.ATTACKERS, "easy")
    rig.run_until({"visitor_turn"})
    rig.world.take_from_square(next(sq for sq, p in rig.world.square_pieces().items() if p == Piece.ATTACKER))
    rig.step(10)
    assert rig.ctrl.view().missing == {"t": 1}


# -- the screens: End game's title, the move being checked ---------------------------------

def _app(view):
    import pygame

    from calibration.config import Config
    from kiosk.ui.app import KioskApp
    from kiosk.ui.screenshots import StillView

    pygame.display.init()
    app = KioskApp(StillView(view), Config(), size=(1280, 800), clock=lambda: 100.0)
    app.navigate("game")
    return app


def _texts_used(app) -> list[str]:
    used: list[str] = []
    get = app.ctx.texts.get

    def spy(key, default=None, **args):
        used.append(key)
        return get(key, default, **args)
    app.ctx.texts.get = spy
    app.step([])
    return used


def test_end_game_is_announced_as_no_winner_not_a_draw():
    from dataclasses import replace

    from engine import Outcome
    from kiosk.ui.screenshots import game_view

    used = _texts_used(_app(replace(game_view(21), state="game_over", outcome=Outcome(None, "ended"))))
    assert "museum.no_winner" in used and "result.draw" not in used
    used = _texts_used(_app(replace(game_view(21), state="game_over", outcome=Outcome(None, "repetition"))))
    assert "result.draw" in used                   # a real draw still is one


def test_the_move_being_checked_is_drawn_at_once():
    from dataclasses import replace

    from kiosk.ui import palette
    from kiosk.ui.screenshots import game_view

    view = game_view(21)
    board = view.board
    move = next(m for m in board.legal_moves if abs(m.to_sq - m.from_sq) >= 3 * board.size)
    app = _app(replace(view, checking_move=move))
    used = _texts_used(app)
    assert "game.checking_move" in used
    geom = app.screens["game"].geom
    (x0, y0), (x1, y1) = geom.centre(move.from_sq), geom.centre(move.to_sq)
    mid = ((x0 + x1) // 2, (y0 + y1) // 2)
    r, g, b = app.surface.get_at(mid)[:3]
    plain = _app(view)
    plain.step([])
    assert plain.surface.get_at(mid)[:3] != (r, g, b) and b > r + 40     # the sky-blue arrow over the board
    assert palette.SKY_BLUE[2] > palette.SKY_BLUE[0] + 40


def test_a_paused_game_shows_on_the_attract_screen_and_a_touch_is_passed_on():
    from dataclasses import replace

    from kiosk.ui.screenshots import game_view

    app = _app(replace(game_view(21), state="paused", attendance="paused"))
    app.step([])
    assert app.screen_name == "attract"           # nobody there: attract, the game kept
    assert "museum.paused" in _texts_used(app)
    warn = _app(replace(game_view(21), attendance="warn"))
    assert "museum.still_there" in _texts_used(warn) and warn.screen_name == "game"
