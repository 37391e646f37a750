"""Reasons for a move (engine/reasons.py) and the `explain` / `hint` commands.

Every code has a position where it must be given and a look-alike where it
must not; every reason given over the moves of real games is checked against
the rules engine; and the hint finds the obvious tactics at every level.
"""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

from engine import Board, Move, Side, parse_square, square_name
from engine.cli import main as cli_main
from engine.levels import LEVEL_NAMES
from engine.reasons import CODES, capture_targets, explain, explain_text, hint

from tests.helpers.rules import position_maker

V = "copenhagen"
pos = position_maker(V, 11, "f6")


def _side_at(b: Board, sq: int) -> Side | None:
    piece = b.piece_at(sq)
    return None if piece is None else piece.side


def codes(b: Board, text: str) -> dict[str, list[str]]:
    """code -> square names of the reasons for the move `text`."""
    return {r.code: [square_name(s, b.size) for s in r.squares] for r in explain_text(b, text).reasons}


# (name, position, move, expected squares) where the code must be given, and a look-alike where it must not.
GIVEN = {
    "king_captured": (dict(t="b3 d3 c4 h2", T="j9", K="c3"), "h2-c2", ["c3"]),
    "escape": (dict(t="j9", T="h8", K="d1", turn="defenders"), "d1-a1", ["a1"]),
    "edge_fort": (dict(t="b9 j9", T="c1 d2 e2 f2 g4", K="e1", turn="defenders"), "g4-g1", ["e1"]),
    "encircles": (dict(t="f5 e6 g6 e7 g7 f10", T="f7"), "f10-f8", ["f8"]),
    "captures": (dict(t="d5 f1", T="e5 j9", K="h8"), "f1-f5", ["e5"]),
    "shieldwall": (dict(t="d2 e2 f1 c5", T="d1 e1 j9", K="h8"), "c5-c1", ["d1", "e1"]),
    "blocks_escape": (dict(t="a8 e3", T="j9", K="a5"), "e3-a3", ["a1"]),
    "threatens_escape": (dict(t="h1 j9", T="h8", K="e2", turn="defenders"), "e2-e1", ["a1"]),
    "double_escape_threat": (dict(t="j9", T="h8", K="e2", turn="defenders"), "e2-e1", ["a1", "k1"]),
    "threatens_king": (dict(t="b3 d3 h4 h2", T="j9", K="c3"), "h4-c4", ["c2"]),
    "defends_king": (dict(t="b3 d3 c4 h2", T="e1 j9", K="c3", turn="defenders"), "e1-e2", ["c2"]),
    "threatens_capture": (dict(t="d5 h1", T="e5 j9", K="h8"), "h1-f1", ["e5"]),
    "saves_piece": (dict(t="d5 f1", T="e5 j9", K="h8", turn="defenders"), "e5-e7", ["e7"]),
    "develops": (dict(t="a4 k4", T="f8", K="f6"), "a4-b4", ["b4"]),
}
NOT_GIVEN = {
    "king_captured": (dict(t="b3 d3 c4 h2", T="j9", K="c3"), "h2-g2"),
    "escape": (dict(t="j9", T="h8", K="d1", turn="defenders"), "d1-b1"),
    "edge_fort": (dict(t="b9 j9", T="c1 d2 e3 f2 g4", K="e1", turn="defenders"), "g4-g1"),
    "encircles": (dict(t="f5 e6 g6 e7 g7 f10", T="f7 c3"), "f10-f8"),
    "captures": (dict(t="d5 f1", T="e5 j9", K="h8"), "f1-f4"),
    "shieldwall": (dict(t="d2 f1 c5", T="d1 e1 j9", K="h8"), "c5-c1"),
    "blocks_escape": (dict(t="a8 e3", T="j9", K="a5"), "e3-e4"),
    "threatens_escape": (dict(t="h1 j9", T="h8", K="e2", turn="defenders"), "e2-e3"),
    "double_escape_threat": (dict(t="h1 j9", T="h8", K="e2", turn="defenders"), "e2-e1"),
    "threatens_king": (dict(t="b3 d3 h4 h2", T="j9", K="c3"), "h4-g4"),
    "defends_king": (dict(t="b3 d3 c4 h2", T="e1 j9", K="c3", turn="defenders"), "j9-j8"),
    "threatens_capture": (dict(t="d5 h1", T="e5 j9", K="h8"), "h1-h2"),
    "saves_piece": (dict(t="d5 f1", T="e5 j9", K="h8", turn="defenders"), "j9-j8"),
    "develops": (dict(t="d5 f1", T="e5 j9", K="h8"), "f1-f5"),
}


def test_every_code_has_both_cases():
    assert set(GIVEN) == set(CODES) == set(NOT_GIVEN)


@pytest.mark.parametrize("code", CODES)
def test_code_is_given_where_it_holds(code):
    setup, move, squares = GIVEN[code]
    found = codes(pos(**setup), move)
    assert found.get(code) == squares, found


@pytest.mark.parametrize("code", CODES)
def test_code_is_not_given_in_the_look_alike(code):
    setup, move = NOT_GIVEN[code]
    found = codes(pos(**setup), move)
    assert code not in found, found


def test_develops_only_when_nothing_else_holds():
    found = codes(pos(**GIVEN["captures"][0]), "f1-f5")
    assert "develops" not in found and "captures" in found


def test_the_most_important_reason_comes_first():
    # Capturing the king also captures nothing else and ends the game: king_captured first.
    reasons = explain_text(pos(**GIVEN["king_captured"][0]), "h2-c2").reasons
    assert reasons[0].code == "king_captured"
    assert [r.code for r in reasons] == sorted((r.code for r in reasons), key=CODES.index)


def test_explain_leaves_the_board_unchanged_and_refuses_illegal_moves():
    b = pos(**GIVEN["captures"][0])
    before = (b.position_otn(), b.turn, b.zobrist_hash(), len(b.move_stack))
    explain_text(b, "f1-f5")
    assert (b.position_otn(), b.turn, b.zobrist_hash(), len(b.move_stack)) == before
    with pytest.raises(ValueError, match="illegal"):
        explain_text(b, "d5-f5")           # e5 is in the way

    with pytest.raises(ValueError):
        explain(b, Move(parse_square("e5", 11), parse_square("e7", 11)))   # a defender, attackers to move


# ---------------------------------------------------------- reasons checked on real games
def _check(before: Board, move: Move, reason) -> None:
    """The reason re-derived from the rules engine in the plainest way."""
    after = before.copy()
    caps = set(after.push(move))
    out = after.outcome()
    me = before.turn
    n = before.size
    sq = set(reason.squares)
    if reason.code in ("king_captured", "escape", "edge_fort", "encircles"):
        want = {"king_captured": "king_captured", "escape": "king_escaped", "edge_fort": "edge_fort",
                "encircles": "encirclement"}[reason.code]
        assert out is not None and out.winner == me and out.reason == want
    elif reason.code == "captures":
        assert sq and sq <= caps and before.king_square not in sq
        assert all(_side_at(before, s) != me for s in sq)
    elif reason.code == "shieldwall":
        assert sq <= caps and any(a.kind == "shieldwall" for a in after.announcements())
    elif reason.code == "blocks_escape":
        assert me == Side.ATTACKERS and sq <= set(before.escape_routes()) and not sq & set(after.escape_routes())
    elif reason.code in ("threatens_escape", "double_escape_threat"):
        routes = set(after.escape_routes())
        assert me == Side.DEFENDERS and sq == routes
        assert (len(routes) == 1) == (reason.code == "threatens_escape")
    elif reason.code == "threatens_king":
        assert me == Side.ATTACKERS and sq == {m.to_sq for m in after.king_capture_threats()}
    elif reason.code == "defends_king":
        assert me == Side.DEFENDERS and before.king_capture_threats() and not after.king_capture_threats()
    elif reason.code == "threatens_capture":
        # Some move of the mover's side, right after this one, captures each of these pieces.
        after.push_null()
        reach = {c for m in after.generate_moves() for c in after.captures_of(m)}
        after.pop_null()
        assert sq <= reach and all(after.piece_at(s) is not None and _side_at(after, s) != me for s in sq)
    elif reason.code == "saves_piece":
        enemy_reach = {c for m in after.generate_moves() for c in after.captures_of(m)}
        assert sq and not sq & enemy_reach and all(_side_at(after, s) == me for s in sq)
    else:
        assert reason.code == "develops" and sq == {move.to_sq}
    assert all(0 <= s < n * n for s in sq)


def _recorded_games(count: int) -> list[tuple[str, list[str]]]:
    """`count` real Copenhagen games spread over /work/shared/data/copenhagen-games.csv (if it is here)."""
    import csv
    from pathlib import Path

    path = Path("/work/shared/data/copenhagen-games.csv")
    if not path.exists():
        return []
    with path.open(encoding="utf-8", errors="replace") as handle:
        rows = [row for row in csv.reader(handle) if row]
    step = max(1, len(rows) // count)
    return [("copenhagen", rows[k][0].split()) for k in range(0, len(rows), step)][:count]


def _demo_boards():
    """Positions along the attract-mode record and, if present, recorded games."""
    from kiosk.ui.attract import DEMO_GAME

    sources = [("copenhagen", list(DEMO_GAME))] + _recorded_games(8)
    for variant, moves in sources:
        b = Board(variant)
        for text in moves[:60]:
            try:
                move = b.parse_move(text)
            except ValueError:
                break
            yield b.copy(), move
            b.push(move)
            if b.is_game_over():
                break


def test_every_reason_given_over_real_games_is_true_in_the_rules_engine():
    seen = set()
    checked = 0
    for board, move in _demo_boards():
        for reason in explain(board, move):
            _check(board, move, reason)
            seen.add(reason.code)
            checked += 1
    assert checked > 30
    assert {"captures", "develops", "escape"} <= seen, seen


def test_capture_targets_asks_either_side_without_changing_the_board():
    b = pos(t="d5 f1", T="e5 j9", K="h8")
    key = b.zobrist_hash()
    assert capture_targets(b, Side.ATTACKERS) == {parse_square("e5", 11)}
    assert capture_targets(b, Side.DEFENDERS) == set()
    assert b.zobrist_hash() == key and b.turn == Side.ATTACKERS


# ----------------------------------------------------------------------------- hints
TACTICS = {
    "escape in one": (dict(t="h1 j9", T="h8", K="d1", turn="defenders"), "d1-a1", "escape"),
    "block the only open corner": (dict(t="a8 e3 j9", T="h8", K="a5"), None, "blocks_escape"),
    "capture the king": (dict(t="b3 d3 c4 h2", T="j9", K="c3"), "h2-c2", "king_captured"),
}


@pytest.mark.parametrize("level", LEVEL_NAMES)
@pytest.mark.parametrize("tactic", sorted(TACTICS))
def test_hint_finds_the_obvious_tactic_at_every_level(tactic, level):
    setup, move, code = TACTICS[tactic]
    b = pos(**setup)
    result = hint(b, level, time_s=2.0)
    if move is not None:
        assert result.move.split("x")[0] == move
    assert result.reasons[0].code == code, result


def test_an_easy_hint_does_not_walk_its_piece_into_a_capture():
    """The hint at Easy sees the reply (reasons.HINT_MIN_DEPTH): at Easy's own one ply it was f7-b7,
    between the attackers on a7 and c6, taken at once by c6-c7 (a museum demo, York)."""
    from engine.search import build_board

    b = build_board("york", {}, moves=["b6-c6", "e7-e9", "d1-c1"])
    found = hint(b.copy(), "easy")
    b.push(b.parse_move(found.move))
    for reply in b.legal_moves:
        after = b.copy()
        after.push(reply)
        assert after.pieces().get(parse_square(found.move.split("-")[1].split("x")[0], 11)) is not None, \
            f"hint {found.move} is taken by {b.move_to_otn(reply)}"


# ------------------------------------------------------------------- the command line
def _cli(capsys, *args: str) -> tuple[int, str, str]:
    code = cli_main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def test_explain_command_prints_the_contract_json(capsys):
    b = pos(**GIVEN["shieldwall"][0])
    code, out, err = _cli(capsys, "explain", "--variant", V, "--position", b.position_otn(), "--turn", "attackers",
                          "--move", "c5-c1", "--json")
    assert code == 0, err
    data = json.loads(out)
    assert list(data) == ["move", "reasons"]
    assert data["move"] == "c5-c1"   # the captures are the reasons' business
    assert {"code": "shieldwall", "squares": ["d1", "e1"]} in data["reasons"]
    assert all(set(r) == {"code", "squares"} for r in data["reasons"])


def test_hint_command_prints_the_move_and_reasons_for_the_side_to_move(capsys):
    b = pos(**TACTICS["capture the king"][0])
    code, out, err = _cli(capsys, "hint", "--variant", V, "--position", b.position_otn(), "--turn", "attackers",
                          "--level", "easy", "--json")
    assert code == 0, err
    data = json.loads(out)
    assert data["move"].startswith("h2-c2") and data["reasons"][0] == {"code": "king_captured", "squares": ["c3"]}


@pytest.mark.parametrize("args", [
    ["explain", "--variant", V, "--move", "e5-e9", "--json"],                        # illegal at the start
    ["explain", "--variant", V, "--move", "zz", "--json"],                           # malformed
    ["explain", "--variant", V, "--position", "/bad/", "--turn", "attackers", "--move", "a4-b4"],
    ["explain", "--variant", "chess", "--move", "a4-b4"],
    ["hint", "--variant", V, "--level", "impossible", "--json"],
    ["hint", "--variant", V, "--position", "/11/11/11/11/11/11/11/11/11/11/K10/", "--turn", "defenders"],  # over
    ["explain", "--variant", V, "--option", "nokey", "--move", "d1-d3"],
])
def test_bad_input_is_one_line_and_exit_2(capsys, args):
    code, out, err = _cli(capsys, *args)
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1, err


def test_the_installed_command_answers_in_a_subprocess():
    proc = subprocess.run([sys.executable, "-m", "engine", "explain", "--variant", V, "--move", "d1-d3", "--json"],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == {"move": "d1-d3", "reasons": [{"code": "develops", "squares": ["d3"]}]}


@pytest.mark.parametrize("variant", ["copenhagen", "york", "tablut", "tawlbwrdd"])
def test_every_reason_over_random_games_of_every_variant_is_true(variant):
    import random

    rng = random.Random(7)
    seen = set()
    for _game in range(3):
        b = Board(variant)
        for _ in range(80):
            moves = b.legal_moves
            capturing = [m for m in moves if b.captures_of(m)]
            move = rng.choice(capturing if capturing and rng.random() < 0.5 else moves)
            for reason in explain(b, move):
                _check(b, move, reason)
                seen.add(reason.code)
            b.push(move)
            if b.is_game_over():
                break
    assert {"captures", "develops"} <= seen, seen
