"""The screens, driven by posted pygame events; every check reads pixels of the saved frame.

The controller side is a real `ControllerView` (built from real engine
boards) held by `RecordingController` (tests/helpers/ui.py), which records the commands the screens
send; the visitor's touch moves go to the real simulated world (SimWorld).
"""
from __future__ import annotations

from dataclasses import replace

import cv2
import numpy as np
import pygame
import pytest

from engine import Board, Outcome, Piece, Side, parse_square
from kiosk.activity import ActivityCode, RobotActivity
from kiosk.rewards import verify_code
from kiosk.simworld import SimWorld
from kiosk.states import State
from kiosk.ui import palette
from kiosk.ui.game import split_rects
from kiosk.ui.board_view import ScreenBoard
from kiosk.ui.screenshots import game_view, idle_view
from tests.helpers.ui import PIN, SECRET, clean_queue, click, count_colour, find_button, frame, key, make_app, make_config  # noqa: F401 - clean_queue is an autouse fixture

def button(app, key_name):
    return find_button(app, key_name).rect


def start_view(visitor=Side.ATTACKERS):
    board = Board("copenhagen")
    return replace(game_view(0), board=board, last_move=None, last_captures=(), visitor_side=visitor,
                   captured={"attackers": 0, "defenders": 0})


def test_attract_touch_then_choices_start_a_game(tmp_path):
    app = make_app(idle_view())
    shot = frame(app, tmp_path)
    play = button(app, "play")
    assert count_colour(shot, play, palette.PRIMARY) > play.width * play.height // 3
    click(play.center)
    shot = frame(app, tmp_path)
    assert app.screen_name == "start"
    back = button(app, "back")
    assert count_colour(shot, back, palette.PANEL_EDGE) > back.width * back.height // 2
    click(button(app, "variant.copenhagen").center)
    frame(app, tmp_path)
    click(button(app, "side.defenders").center)
    shot = frame(app, tmp_path)
    easy = button(app, "level.easy")
    assert count_colour(shot, easy, palette.BLUISH_GREEN) > easy.width * easy.height // 3
    click(easy.center)
    frame(app, tmp_path)
    assert app.ctx.controller.calls == [("start_game", ("copenhagen", {}, Side.DEFENDERS, "easy"))]
    assert app.screen_name == "game"


def test_touch_a_piece_shows_dots_and_moves_it_in_the_world(tmp_path):
    config = make_config()
    world = SimWorld(config)
    world.place_position("copenhagen", Board("copenhagen").pieces())
    app = make_app(start_view(), world=world, config=config)
    frame(app, tmp_path)
    geom = app.screens["game"].geom
    d1, d3, d5 = (parse_square(n, 11) for n in ("d1", "d3", "d5"))
    click(geom.centre(d1))
    shot = frame(app, tmp_path)
    for sq in (d3, d5):
        centre = geom.centre(sq)
        assert shot.get_at(centre)[:3] == palette.DOT
    assert count_colour(shot, geom.square_rect(d1), palette.SELECTED, 0) > 20
    assert shot.get_at(geom.centre(parse_square("d6", 11)))[:3] != palette.DOT   # blocked by a defender
    click(geom.centre(d3))
    frame(app, tmp_path)
    pieces = world.square_pieces()
    assert pieces.get(d3) == Piece.ATTACKER and d1 not in pieces


def test_arrow_keys_and_enter_move_a_piece(tmp_path):
    config = make_config()
    world = SimWorld(config)
    world.place_position("copenhagen", Board("copenhagen").pieces())
    app = make_app(start_view(), world=world, config=config)
    frame(app, tmp_path)
    for k in [pygame.K_LEFT] * 2 + [pygame.K_DOWN] * 5 + [pygame.K_RETURN]:     # f6 -> d1, select
        key(k)
    shot = frame(app, tmp_path)
    geom = app.screens["game"].geom
    assert app.screens["game"].selected == parse_square("d1", 11)
    assert shot.get_at(geom.centre(parse_square("d4", 11)))[:3] == palette.DOT
    for k in [pygame.K_UP] * 3 + [pygame.K_RETURN]:                               # d1 -> d4, move
        key(k)
    frame(app, tmp_path)
    assert world.square_pieces().get(parse_square("d4", 11)) == Piece.ATTACKER


def test_robot_pieces_cannot_be_picked_and_no_moves_on_robot_turn(tmp_path):
    world = SimWorld(make_config())
    world.place_position("copenhagen", Board("copenhagen").pieces())
    app = make_app(start_view(visitor=Side.DEFENDERS), world=world)   # attackers (robot) to move
    frame(app, tmp_path)
    geom = app.screens["game"].geom
    click(geom.centre(parse_square("f4", 11)))
    shot = frame(app, tmp_path)
    assert app.screens["game"].selected is None
    assert count_colour(shot, geom.inner, palette.DOT, 0) == 0


def test_resign_asks_first(tmp_path):
    app = make_app(game_view(21))
    frame(app, tmp_path)
    click(button(app, "resign").center)
    shot = frame(app, tmp_path)
    yes = button(app, "confirm_yes")
    assert count_colour(shot, yes, palette.DANGER) > yes.width * yes.height // 3
    click(button(app, "confirm_no").center)
    frame(app, tmp_path)
    assert app.ctx.controller.calls == []
    click(button(app, "resign").center)
    frame(app, tmp_path)
    click(button(app, "confirm_yes").center)
    frame(app, tmp_path)
    assert app.ctx.controller.calls == [("resign", ())]


def test_end_game_asks_then_ends(tmp_path):
    app = make_app(game_view(21))
    frame(app, tmp_path)
    click(button(app, "end").center)
    frame(app, tmp_path)
    click(button(app, "confirm_yes").center)
    frame(app, tmp_path)
    assert app.ctx.controller.calls == [("end_game", ())]


@pytest.mark.parametrize("size", [(1280, 800), (800, 480)])
def test_illegal_move_marks_where_to_put_and_what_to_take(tmp_path, size):
    d9, d6 = parse_square("d9", 11), parse_square("d6", 11)
    view = game_view(21, state="fix_board", message="illegal_move.blocked", message_args={"from": "d6", "to": "d9"},
                     fix_squares={d9: None, d6: Piece.DEFENDER})
    app = make_app(view, size=size)
    shot = frame(app, tmp_path)
    geom = app.screens["game"].geom
    assert count_colour(shot, geom.square_rect(d9), palette.BAD, 8) > 30
    assert count_colour(shot, geom.square_rect(d6).inflate(8, 8), palette.GOOD, 8) > 30
    _, panel = split_rects(app.ctx.layout)
    assert count_colour(shot, panel, palette.FIX, 4) > 100         # the framed explanation


def test_hand_over_board_shown_only_after_a_grace_period(tmp_path):
    view = game_view(21, camera_ok=False, camera_reason="hand over board")
    app = make_app(view)
    _, panel = split_rects(app.ctx.layout)
    skin = (240, 200, 160)
    assert count_colour(frame(app, tmp_path), panel, skin, 4) == 0
    app.clock_ref.now += 3.0
    assert count_colour(frame(app, tmp_path), panel, skin, 4) > 500


@pytest.mark.parametrize("size", [(1280, 800), (800, 480)])
def test_a_camera_refusing_a_still_picture_for_glare_asks_and_a_touch_says_no_hand_is_there(tmp_path, size):
    """kiosk/board_watch.py asks_hands_off: the panel asks instead of telling the visitor to take a hand away,
    and its button tells the controller; without the question there is no such button."""
    plain = make_app(game_view(21, camera_ok=False, camera_reason="hand over board"), size=size)
    frame(plain, tmp_path)
    plain.clock_ref.now += 3.0
    frame(plain, tmp_path)
    assert not [b for b in plain.current.buttons.items if b.key == "hands_off"]
    app = make_app(game_view(21, camera_ok=False, camera_reason="hand over board", asks_hands_off=True), size=size)
    frame(app, tmp_path)
    app.clock_ref.now += 3.0
    shot = frame(app, tmp_path)
    _, panel = split_rects(app.ctx.layout)
    yes = button(app, "hands_off")
    assert panel.contains(yes) and min(yes.width, yes.height) >= app.ctx.layout.target
    assert count_colour(shot, yes, palette.PRIMARY, 6) > yes.width * yes.height // 3
    click(yes.center)
    frame(app, tmp_path)
    assert app.ctx.controller.calls[-1] == ("hands_off", ())


def test_win_unlocks_reward_with_a_code_that_scans_and_verifies(tmp_path):
    view = game_view(34, state="game_over", level="easy", visitor_side=Side.DEFENDERS,
                     outcome=Outcome(Side.DEFENDERS, "king_escaped"))
    app = make_app(view)
    app.navigate("game")                    # the game screen was showing when the game ended
    frame(app, tmp_path)
    assert app.ctx.rewards.unlocks.colours and not app.ctx.rewards.unlocks.crown
    click(button(app, "reward").center)
    shot = frame(app, tmp_path, "reward.png")
    assert app.screen_name == "rewards"
    image = cv2.imread(str(tmp_path / "reward.png"))
    text, _, _ = cv2.QRCodeDetector().detectAndDecode(image)
    assert text.startswith("TAFL:")
    code = verify_code(text, SECRET)
    assert code is not None and code.unlocks.colours and not code.unlocks.shaded
    assert verify_code(text, "other-secret") is None
    scheme = button(app, "scheme.1")
    click(scheme.center)
    shot = frame(app, tmp_path)
    assert app.ctx.rewards.colour_scheme == 1
    assert count_colour(shot, scheme.inflate(10, 10), palette.SELECTED, 0) > 40     # the chosen swatch is framed
    click(button(app, "done").center)
    frame(app, tmp_path)
    assert ("clear_board", ()) not in app.ctx.controller.calls      # the robot resets the board by itself
    assert app.screen_name == "attract" and not app.ctx.rewards.unlocks.colours


def test_unlocked_colours_and_crown_are_used_on_the_game_screen(tmp_path):
    from kiosk.rewards import RewardSession, Unlocks

    view = game_view(21)
    app = make_app(view)
    attacker_sq = next(sq for sq, p in view.board.pieces().items() if p == Piece.ATTACKER)
    shot = frame(app, tmp_path)
    geom = app.screens["game"].geom
    assert shot.get_at(geom.centre(attacker_sq))[:3] == tuple(app.config.pieces.attacker_rgb)
    app.ctx.rewards = RewardSession(Unlocks(colours=True, crown=True), colour_scheme=1, use_shaded=False)
    shot = frame(app, tmp_path)
    assert shot.get_at(geom.centre(attacker_sq))[:3] == palette.BLUE
    _, panel = split_rects(app.ctx.layout)
    assert count_colour(shot, panel, palette.GOLD, 2) > 50                         # the avatar's crown


def test_idle_countdown_then_back_to_attract(tmp_path):
    # after a game (a running game is never timed out here: the controller's attendance pauses it)
    app = make_app(replace(game_view(21), state="game_over", outcome=Outcome(Side.ATTACKERS, "king_captured")))
    app.navigate("game")
    frame(app, tmp_path)
    app.clock_ref.now += app.idle_timeout - 10
    shot = frame(app, tmp_path)
    centre = pygame.Rect(0, 0, 300, 300)
    centre.center = app.ctx.layout.rect.center
    assert count_colour(shot, centre, palette.ORANGE, 8) > 300                      # the big countdown number
    click((5, 5))                                                                    # "still playing": wakes only
    shot = frame(app, tmp_path)
    assert count_colour(shot, centre, palette.ORANGE, 8) < 50
    assert app.ctx.controller.calls == []
    app.clock_ref.now += app.idle_timeout + 1
    frame(app, tmp_path)
    assert app.ctx.controller.calls == []          # the board resets itself: nothing ended, nothing cleared
    assert app.screen_name == "attract"


def test_a_running_game_has_no_idle_countdown(tmp_path):
    app = make_app(game_view(21))
    frame(app, tmp_path)
    app.clock_ref.now += 240.0                     # a visitor thinking for 4 minutes, never touching
    frame(app, tmp_path)
    assert app.countdown_left() is None and app.screen_name == "game"
    assert app.ctx.controller.calls == []


def test_staff_mode_needs_the_pin(tmp_path):
    app = make_app(idle_view())
    frame(app, tmp_path)
    key(pygame.K_F12)
    frame(app, tmp_path)
    assert app.screen_name == "pin"
    for digit in "1111":
        click(button(app, f"key.{digit}").center)
    click(button(app, "key.ok").center)
    frame(app, tmp_path)
    pin_screen = app.screens["pin"]
    pin_screen.guard.wait()              # the check runs on its own thread (it may finish within that frame)
    frame(app, tmp_path)
    assert app.screen_name == "pin"
    for digit in PIN:
        key(getattr(pygame, f"K_{digit}"), digit)
    key(pygame.K_RETURN)
    frame(app, tmp_path)
    pin_screen.guard.wait()
    shot = frame(app, tmp_path)
    assert app.screen_name == "staff"
    assert shot.get_at((app.ctx.layout.width // 2, app.ctx.layout.height - 3))[:3] == (30, 30, 36)
    click(button(app, "home").center)
    frame(app, tmp_path)
    assert ("home", ()) in app.ctx.controller.calls


def test_staff_corner_taps_open_the_pin_pad(tmp_path):
    app = make_app(idle_view())
    frame(app, tmp_path)
    for _ in range(5):
        click((10, 10))
        app.clock_ref.now += 0.3
        frame(app, tmp_path)
    assert app.screen_name == "pin"


def test_rules_reachable_from_the_game_and_animated(tmp_path):
    app = make_app(game_view(21))
    frame(app, tmp_path)
    click(button(app, "rules").center)
    frame(app, tmp_path)
    assert app.screen_name == "rules" and app.screens["rules"].variant == "copenhagen"
    click(button(app, "next").center)
    shot_start = frame(app, tmp_path, "a.png")                # step 2 "moving": dots before the slide
    body = pygame.Rect(0, button(app, "close").bottom, app.ctx.layout.width,
                       button(app, "next").top - button(app, "close").bottom)
    assert count_colour(shot_start, body, palette.DOT, 0) > 50
    click(button(app, "tab.tawlbwrdd").center)
    frame(app, tmp_path)
    for _ in range(2):
        click(button(app, "next").center)
        frame(app, tmp_path)
    app.clock_ref.now += 3.0                                  # capture step, verdict showing
    shot = frame(app, tmp_path)
    assert count_colour(shot, body, palette.GOOD, 2) > 100     # the tick badges
    click(button(app, "close").center)
    frame(app, tmp_path)
    assert app.screen_name == "game"


def test_flag_switches_language(tmp_path):
    app = make_app(idle_view())
    shot = frame(app, tmp_path)
    flag = button(app, "language")
    swedish_yellow, british_red = (254, 204, 0), (200, 16, 46)
    assert count_colour(shot, flag, swedish_yellow, 2) > 50 and count_colour(shot, flag, british_red, 2) == 0
    click(flag.center)
    shot = frame(app, tmp_path)
    assert app.ctx.texts.language == "sv"
    assert count_colour(shot, flag, british_red, 2) > 20
    assert app.ctx.t("attract.touch") == "Tryck för att spela"


def test_robot_progress_bar_follows_the_view(tmp_path):
    app = make_app(game_view(22, state="robot_moving", robot_activity=RobotActivity(ActivityCode.MOVING, {"from": "b9", "to": "a9"}), progress=0.25))
    _, panel = split_rects(app.ctx.layout)
    low = count_colour(frame(app, tmp_path), panel, palette.SKY_BLUE, 2)
    app.ctx.controller.set_view(game_view(22, state="robot_moving", robot_activity=RobotActivity(ActivityCode.MOVING, {"from": "b9", "to": "a9"}), progress=0.9))
    high = count_colour(frame(app, tmp_path), panel, palette.SKY_BLUE, 2)
    assert high > low * 2


def test_a_running_game_takes_over_from_attract(tmp_path):
    app = make_app(idle_view())
    frame(app, tmp_path)
    app.ctx.controller.set_view(game_view(10, state="thinking"))
    frame(app, tmp_path)
    assert app.screen_name == "game"


def test_board_geometry_round_trip():
    geom = ScreenBoard(pygame.Rect(10, 10, 440, 440), 11)
    for sq in range(121):
        assert geom.square_at(geom.centre(sq)) == sq
    assert geom.square_at((0, 0)) is None


def york_view(state="visitor_turn", **changes):
    fields = dict(variant="york", board=Board("york"), last_move=None, last_captures=(),
                  visitor_side=Side.DEFENDERS, state=state, level="easy")
    fields.update(changes)
    return replace(game_view(0), **fields)


def test_york_card_match_hides_cards_shows_the_score_and_asks_for_the_next_game(tmp_path):
    import random

    from kiosk.match import Match

    app = make_app(idle_view())
    frame(app, tmp_path)
    click(button(app, "play").center)
    frame(app, tmp_path)
    click(button(app, "variant.york").center)
    frame(app, tmp_path)
    click(button(app, "format.five_point").center)
    frame(app, tmp_path)
    click(button(app, "side.defenders").center)
    frame(app, tmp_path)
    click(button(app, "level.easy").center)
    frame(app, tmp_path)
    # the match is the controller's (kiosk/match.py): the screen asks for one by its format
    assert app.ctx.controller.calls == [("start_game", ("york", {}, Side.DEFENDERS, "easy", "five_point"))]
    match = Match.new("five_point", "york", Side.DEFENDERS, random.Random(3))
    app.ctx.controller.set_view(york_view(match=match))
    shot = frame(app, tmp_path)
    geom = app.screens["game"].geom
    south_card = (geom.inner.centerx, (geom.inner.bottom + geom.rect.bottom) // 2)
    assert shot.get_at(south_card)[:3] == palette.BLUE                       # face down
    # The king escapes by the south edge: the controller scores the card, the screen reveals it.
    end = Board.from_otn("york", "/" + "/".join(["5K5"] + ["11"] * 10) + "/", turn=Side.ATTACKERS)
    outcome = Outcome(Side.DEFENDERS, "king_escaped")
    match.record(end, outcome)
    app.ctx.controller.set_view(york_view("game_over", board=end, outcome=outcome, match=match))
    shot = frame(app, tmp_path)
    assert app.ctx.match is match
    around = pygame.Rect(0, 0, 30, 30)
    around.center = south_card
    assert count_colour(shot, around, palette.YELLOW, 2) > 40                 # revealed, and it scored
    click(button(app, "next").center)
    frame(app, tmp_path)
    app.ctx.controller.set_view(replace(idle_view(), match=match))
    frame(app, tmp_path)
    assert app.ctx.controller.calls[-1:] == [("start_game", ("york", {}, Side.ATTACKERS, "easy", "next"))]
    assert ("clear_board", ()) not in app.ctx.controller.calls     # the reset runs by itself, no clearing


def test_staff_level_tuning_is_applied_and_saved(tmp_path, monkeypatch):
    from calibration.config_file import load_config

    path = tmp_path / "config.toml"
    monkeypatch.setenv("TAFL_KIOSK_CONFIG", str(path))
    app = make_app(idle_view(), size=(800, 480))
    app.ctx.staff_unlocked = True
    app.navigate("staff", page="levels")
    frame(app, tmp_path)
    before = app.config.engine.levels["easy"].time_s
    click(button(app, "level.easy.time+").center)
    frame(app, tmp_path)
    assert app.config.engine.levels["easy"].time_s == before + 0.5
    assert load_config(path).engine.levels["easy"].time_s == before + 0.5
    click(button(app, "level.hard.depth-").center)
    frame(app, tmp_path)
    assert load_config(path).engine.levels["hard"].max_depth == app.config.engine.levels["hard"].max_depth


@pytest.mark.parametrize("size", [(1280, 800), (800, 480)])
def test_announcements_are_shown_in_a_yellow_box(tmp_path, size):
    app = make_app(game_view(22, state="robot_moving", robot_activity=RobotActivity(ActivityCode.MOVING, {"from": "b9", "to": "a9"}), progress=0.5), size=size)
    _, panel = split_rects(app.ctx.layout)
    assert count_colour(frame(app, tmp_path), panel, palette.YELLOW, 2) < 100
    app.ctx.controller.set_view(game_view(22, state="visitor_turn", announcements=("raichi",)))
    assert count_colour(frame(app, tmp_path), panel, palette.YELLOW, 2) > 3000


def test_attract_mode_replays_a_game_move_by_move(tmp_path):
    app = make_app(idle_view())
    frame(app, tmp_path)
    replay = app.screens["attract"].replay
    assert replay is not None and replay.index == 0
    before = pygame.surfarray.array3d(frame(app, tmp_path, "a.png")).copy()
    app.clock_ref.now += 1.2                                   # one move later, mid-slide and then settled
    frame(app, tmp_path)
    app.clock_ref.now += 0.6
    after = pygame.surfarray.array3d(frame(app, tmp_path, "b.png"))
    assert replay.index == 1 and replay.last_move is not None
    board = app.screens["attract"].board_rect
    diff = np.abs(after.astype(int) - before.astype(int)).max(axis=2) > 30
    assert diff[board.left:board.right, board.top:board.bottom].sum() > 500   # the moved piece and its highlight


def test_in_the_simulation_a_touch_on_a_marked_square_puts_it_right(tmp_path):
    """Asked to put the board back (a reading in doubt, a mismatch), the demo's visitor does it on the screen."""
    config = make_config()
    world = SimWorld(config)
    d1, d3 = parse_square("d1", 11), parse_square("d3", 11)
    shown = Board("copenhagen").pieces()
    world.place_position("copenhagen", shown)
    world.visitor_move(d1, d3)
    view = replace(start_view(), state=State.FIX_BOARD, fix_squares={d1: Piece.ATTACKER, d3: None},
                   message="fix_board.mismatch", message_args={"count": "2"})
    app = make_app(view, world=world, config=config)
    frame(app, tmp_path)
    geom = app.screens["game"].geom
    click(geom.centre(d3))
    frame(app, tmp_path)
    assert d3 not in world.square_pieces()
    click(geom.centre(d1))
    frame(app, tmp_path)
    assert world.square_pieces() == shown


@pytest.mark.parametrize("size", [(1280, 800), (800, 480)])
def test_a_move_in_doubt_is_asked_for_with_a_button_per_move_and_arrows_on_the_board(tmp_path, size):
    board = Board("copenhagen")
    d1, d3, d4 = (parse_square(n, 11) for n in ("d1", "d3", "d4"))
    moves = (board.parse_move("d1-d3"), board.parse_move("d1-d4"))
    view = replace(start_view(), state=State.FIX_BOARD, fix_squares={d1: Piece.ATTACKER, d3: None},
                   message="fix_board.which", message_args={"count": "2"}, move_choices=moves)
    app = make_app(view, size=size)
    shot = frame(app, tmp_path)
    geom = app.screens["game"].geom
    for sq in (d3, d4):                                     # an arrow to each square the piece may be on
        assert count_colour(shot, geom.square_rect(sq), palette.SKY_BLUE, 40) > 20, sq
    _, panel = split_rects(app.ctx.layout)
    first, second = button(app, "choose_d1-d3"), button(app, "choose_d1-d4")
    assert panel.contains(first) and panel.contains(second) and not first.colliderect(second)
    lay = app.ctx.layout
    assert min(first.width, first.height, second.width, second.height) >= lay.target   # full touch targets
    assert count_colour(shot, first, palette.PRIMARY, 6) > first.width * first.height // 3
    click(first.center)
    frame(app, tmp_path)
    assert app.ctx.controller.calls[-1] == ("choose_move", ("d1-d3",))


def test_without_choices_the_fix_board_panel_has_no_move_buttons(tmp_path):
    view = replace(start_view(), state=State.FIX_BOARD, fix_squares={parse_square("d1", 11): Piece.ATTACKER},
                   message="fix_board.unclear", message_args={"count": "1"})
    app = make_app(view)
    frame(app, tmp_path)
    assert not [b for b in app.current.buttons.items if b.key.startswith("choose_")]


def test_many_moves_in_doubt_are_rings_on_the_board_and_a_touch_on_one_says_which(tmp_path):
    """Five squares the piece may have gone to: no row of buttons, but a ring on each square; the
    visitor touches the square on the screen where their piece now stands."""
    board = Board("copenhagen")
    names = ("d2", "d3", "d4", "d5", "c1")
    moves = tuple(board.parse_move(f"d1-{n}") for n in names if board.is_legal(board.parse_move(f"d1-{n}")))
    assert len(moves) >= 4
    view = replace(start_view(), state=State.FIX_BOARD, fix_squares={parse_square("d1", 11): Piece.ATTACKER},
                   message="fix_board.which", message_args={"count": "1"}, move_choices=moves)
    app = make_app(view)
    shot = frame(app, tmp_path)
    assert not [b for b in app.current.buttons.items if b.key.startswith("choose_")]
    geom = app.screens["game"].geom
    for move in moves:
        assert count_colour(shot, geom.square_rect(move.to_sq), palette.SKY_BLUE, 40) > 40
    click(geom.centre(moves[2].to_sq))
    frame(app, tmp_path)
    assert app.ctx.controller.calls[-1] == ("choose_move", (moves[2].otn(11),))
    click(geom.centre(parse_square("h11", 11)))              # a square not ringed: nothing is said
    frame(app, tmp_path)
    assert app.ctx.controller.calls[-1] == ("choose_move", (moves[2].otn(11),))


def test_a_move_the_camera_could_not_make_out_is_shown_on_the_screen_piece_then_square(tmp_path):
    """No short list of moves (glare over the deciding squares, or "nothing moved" likeliest): the
    visitor touches the piece they moved, sees dots only where the camera leaves it room to have
    gone, and touches the square it went to; a square with no dot says nothing."""
    board = Board("copenhagen")
    d1, d2, d3, d4, h1 = (parse_square(n, 11) for n in ("d1", "d2", "d3", "d4", "h1"))
    possible = tuple(board.parse_move(m) for m in ("d1-d3", "d1-d4", "h1-h3", "h1-h4", "f2-c2", "f2-i2", "e1-e3"))
    assert all(board.is_legal(m) for m in possible) and board.is_legal(board.parse_move("d1-d2"))
    view = replace(start_view(), state=State.FIX_BOARD, fix_squares={d3: None},
                   message="fix_board.show", message_args={"count": "1"}, moves_possible=possible)
    app = make_app(view)
    before = frame(app, tmp_path, "a.png")
    geom = app.screens["game"].geom
    dot = palette.dot_colour(app.ctx.piece_scheme())
    assert count_colour(before, geom.square_rect(d4), dot, 20) == 0
    click(geom.centre(d1))                                  # the piece the visitor moved
    picked = frame(app, tmp_path, "b.png")
    assert app.screens["game"].selected == d1 and not app.ctx.controller.calls
    assert count_colour(picked, geom.square_rect(d4), dot, 20) > 20          # room to have gone there
    assert count_colour(picked, geom.square_rect(d2), dot, 20) == 0          # legal, but the camera says no
    click(geom.centre(d2))                                  # no dot: the selection is dropped, nothing said
    frame(app, tmp_path)
    assert app.screens["game"].selected is None and not app.ctx.controller.calls
    click(geom.centre(h1))
    frame(app, tmp_path)
    click(geom.centre(parse_square("h4", 11)))
    frame(app, tmp_path)
    assert app.ctx.controller.calls[-1] == ("choose_move", ("h1-h4",))
    assert not [b for b in app.current.buttons.items if b.key.startswith("choose_")]   # the board is the choice
