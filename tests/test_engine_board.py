"""The engine API contract (docs/architecture.md): squares, OTN, Board methods, push/pop integrity."""
from __future__ import annotations

import random
import zlib

import pytest

import engine
from engine import (VARIANTS, Announcement, Board, Move, Outcome, Piece, Rules, Side, parse_square,
                    square_name)
from engine.otn import build_position, format_position, parse_move_text, parse_position

ALL_CONFIGS = [
    ("copenhagen", {}),
    ("york", {}),
    ("york", {"king_armed": "yes", "corner_escape": "true"}),
    ("york", {"king_armed": "hammer"}),
    ("tablut", {}),
    ("tawlbwrdd", {}),
    ("tawlbwrdd", {"layout": "lewis", "throne_restricted": "true", "corners_king_only": "true",
                   "corners_hostile": "true", "king_four_sided": "true", "corner_escape": "true"}),
]


def test_exports_named_in_the_contract() -> None:
    for name in ("Board", "Move", "Side", "Piece", "Outcome", "Announcement", "VARIANTS",
                 "square_name", "parse_square", "Rules"):
        assert hasattr(engine, name)
    assert list(VARIANTS) == ["copenhagen", "york", "tablut", "tawlbwrdd"]
    assert isinstance(Board("york").rules, Rules)


def test_squares_are_rank_times_size_plus_file() -> None:
    assert parse_square("a1", 11) == 0
    assert parse_square("k11", 11) == 120
    assert parse_square("b1", 11) == 1 and parse_square("a2", 11) == 11
    assert square_name(120, 11) == "k11" and square_name(80, 9) == "i9"
    for bad in ("l1", "a12", "a0", "", "11", "aa"):
        with pytest.raises(ValueError):
            parse_square(bad, 11)
    with pytest.raises(ValueError):
        parse_square("j1", 9)


def test_sides_and_pieces_are_str_enums() -> None:
    # (equal to their strings at run time, which a type checker calls non-overlapping)
    assert Side.ATTACKERS == "attackers" and Side("defenders") is Side.DEFENDERS  # type: ignore[comparison-overlap]
    assert Side.ATTACKERS.other is Side.DEFENDERS
    assert Piece.ATTACKER == "t" and Piece.DEFENDER == "T" and Piece.KING == "K"  # type: ignore[comparison-overlap]
    assert Piece.KING.side is Side.DEFENDERS


def test_move_is_frozen_and_prints_with_the_size() -> None:
    m = Move(parse_square("e5", 11), parse_square("e8", 11))
    assert m.otn(11) == "e5-e8"
    assert m == Move(m.from_sq, m.to_sq) and hash(m) == hash(Move(m.from_sq, m.to_sq))
    with pytest.raises(AttributeError):
        m.to_sq = 3  # type: ignore[misc]


def test_position_otn_is_first_rank_first_and_round_trips() -> None:
    b = Board("copenhagen")
    text = b.position_otn()
    assert text.startswith("/3ttttt3/5t5/11/")
    assert format_position(parse_position(text, 11), 11) == text
    assert Board.from_otn("copenhagen", text).pieces() == b.pieces()
    t = Board("tablut").position_otn()
    assert t == "/3ttt3/4t4/4T4/t3T3t/ttTTKTTtt/t3T3t/4T4/4t4/3ttt3/"


@pytest.mark.parametrize("text, message", [
    ("/3ttttt3/", "ranks"),
    ("/3ttttt3/5t5/11/t4T4t/t3TTT3t/tt1TTKTT1tt/t3TTT3t/t4T4t/11/5t5/3ttttx3/", "bad character"),
    ("/3ttttt3/5t5/11/t4T4t/t3TTT3t/tt1TTKTT1tt/t3TTT3t/t4T4t/11/5t5/3tttt3/", "squares long"),
    ("/3ttttt3/5t5/11/t4T4t/t3TTT3t/tt1TTKTT1tt/t3TTT3t/t4K4t/11/5t5/3ttttt3/", "kings"),
    ("", "empty"),
])
def test_bad_positions_name_what_is_wrong(text: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        Board.from_otn("copenhagen", text)


def test_move_texts_parse_with_captures() -> None:
    assert parse_move_text("e5-e8xe9xf8", 11) == (
        parse_square("e5", 11), parse_square("e8", 11), (parse_square("e9", 11), parse_square("f8", 11)))
    assert parse_move_text("k4-k3xk2xk2", 11)[2] == (parse_square("k2", 11),)
    for bad in ("e5e8", "e5-", "e5-e8x", "z1-z2", "e5-e8-e9"):
        with pytest.raises(ValueError):
            parse_move_text(bad, 11)


def test_parse_move_checks_legality_and_written_captures() -> None:
    b = Board.from_otn("copenhagen", build_position(11, "a3 c5", "b3", "h8"))
    assert b.parse_move("c5-c3") == Move(parse_square("c5", 11), parse_square("c3", 11))
    assert b.parse_move("c5-c3xb3") == b.parse_move("c5-c3")
    with pytest.raises(ValueError, match="captures differently"):
        b.parse_move("c5-c3xb4")
    with pytest.raises(ValueError, match="malformed"):
        b.parse_move("c5c3")
    with pytest.raises(ValueError, match="in the way|occupied|not along"):
        b.parse_move("a3-c3")


def test_legal_moves_are_sorted_by_otn_text_and_match_generate_moves() -> None:
    b = Board("copenhagen")
    texts = [b.move_to_otn(m) for m in b.legal_moves]
    assert texts == sorted(texts)
    assert set(b.legal_moves) == set(b.generate_moves())
    assert all(b.is_legal(m) for m in b.legal_moves)


def test_captures_of_and_move_to_otn_do_not_change_the_board() -> None:
    b = Board.from_otn("copenhagen", build_position(11, "a3 c5", "b3", "h8"))
    before = (b.position_otn(), b.zobrist_hash(), b.ply)
    m = b.parse_move("c5-c3")
    assert b.captures_of(m) == (parse_square("b3", 11),)
    assert b.move_to_otn(m) == "c5-c3xb3"
    assert (b.position_otn(), b.zobrist_hash(), b.ply) == before


def test_push_returns_captures_and_pop_restores_everything() -> None:
    b = Board.from_otn("copenhagen", build_position(11, "a3 c5", "b3", "h8"))
    before = (b.position_otn(), b.zobrist_hash(), b.turn, b.pieces())
    m = b.parse_move("c5-c3")
    assert b.push(m) == (parse_square("b3", 11),)
    assert b.move_stack == [m] and b.turn is Side.DEFENDERS
    assert b.pop() == m
    assert (b.position_otn(), b.zobrist_hash(), b.turn, b.pieces()) == before
    assert b.move_stack == []


def test_push_refuses_an_illegal_move_with_the_reason() -> None:
    b = Board("copenhagen")
    with pytest.raises(ValueError, match="no piece on e5|holds a piece"):
        b.push(Move(parse_square("e5", 11), parse_square("e4", 11)))
    with pytest.raises(ValueError, match="defenders"):
        b.push(Move(parse_square("f4", 11), parse_square("c4", 11)))


def test_copy_is_independent() -> None:
    b = Board("york")
    c = b.copy()
    c.push(c.legal_moves[0])
    assert b.ply == 0 and c.ply == 1
    assert b.position_otn() != c.position_otn()
    c.pop()
    assert c.position_otn() == b.position_otn() and c.zobrist_hash() == b.zobrist_hash()


@pytest.mark.parametrize("variant, options", ALL_CONFIGS)
def test_random_games_keep_incremental_state_exact(variant: str, options: dict) -> None:
    """Hash, pieces and position after every push and pop equal a board built from scratch."""
    rng = random.Random(zlib.crc32(repr((variant, sorted(options.items()))).encode()))
    for _game in range(6):
        b = Board(variant, options)
        history = []
        for _ in range(120):
            moves = b.legal_moves
            if not moves:
                break
            history.append((b.position_otn(), b.zobrist_hash(), b.turn))
            b.push(rng.choice(moves))
            fresh = Board.from_otn(variant, b.position_otn(), turn=b.turn, options=options)
            assert fresh.zobrist_hash() == b.zobrist_hash()
            assert fresh.pieces() == b.pieces()
            assert b.king_square == fresh.king_square
            # The encirclement shortcut (a remembered path to the edge) never changes the answer.
            assert b._is_encircled() == fresh._is_encircled()
        while history:
            b.pop()
            assert (b.position_otn(), b.zobrist_hash(), b.turn) == history.pop()
        assert b.repetitions() == 1


def test_outcome_and_game_over() -> None:
    b = Board("copenhagen")
    assert b.outcome() is None and not b.is_game_over()
    won = Board.from_otn("copenhagen", build_position(11, "c3", "", "a1"))
    assert won.outcome() == Outcome(Side.DEFENDERS, "king_escaped")
    assert won.is_game_over() and won.legal_moves == []
    assert Outcome(None, "repetition").describe() == "draw (repetition)"
    kingless = Board.from_otn("copenhagen", build_position(11, "c3 d4", "e5"))
    assert kingless.outcome() == Outcome(Side.ATTACKERS, "king_captured")


def test_announcements_report_captures_and_the_game_end() -> None:
    b = Board.from_otn("copenhagen", build_position(11, "a3 c9", "b3", "h8"))
    b.push(b.parse_move("c9-c3"))
    first = b.announcements()
    assert first[0] == Announcement("capture", Side.ATTACKERS, (parse_square("b3", 11),),
                                    "attackers capture b3")
    b2 = Board.from_otn("copenhagen", build_position(11, "d4 d6 c5 e8", "a9", "d5"))
    b2.push(b2.parse_move("e8-e5"))
    kinds = [a.kind for a in b2.announcements()]
    assert kinds == ["capture", "game_end"]
    assert b2.announcements()[-1].side is Side.ATTACKERS


def test_king_threatened_is_announced() -> None:
    b = Board.from_otn("copenhagen", build_position(11, "d4 d6 e9", "a2", "d5"), turn="defenders")
    b.push(b.parse_move("a2-a3"))
    assert not [a for a in b.announcements() if a.kind == "king_threatened"], "two sides only"
    b = Board.from_otn("copenhagen", build_position(11, "d4 d6 c5 e9", "a2", "d5"), turn="defenders")
    b.push(b.parse_move("a2-a3"))
    threats = [a for a in b.announcements() if a.kind == "king_threatened"]
    assert threats and threats[0].squares == (parse_square("e5", 11),)
    assert [m.otn(11) for m in b.king_capture_threats()] == ["e9-e5"]


def test_str_shows_the_board_rank_11_on_top() -> None:
    lines = str(Board("copenhagen")).splitlines()
    assert lines[0].startswith("11 . . . t t t t t")
    assert lines[-1].strip().startswith("a b c")


@pytest.mark.parametrize("variant, options", ALL_CONFIGS)
def test_generator_agrees_with_the_move_checker(variant: str, options: dict) -> None:
    """Two code paths decide legality: the generator's loops and why_illegal's walk."""
    rng = random.Random(zlib.crc32(variant.encode()) + len(options))
    b = Board(variant, options)
    n = b.size
    for _ in range(30):
        generated = set(b.generate_moves())
        own = [s for s, p in b.pieces().items() if p.side is b.turn]
        for f in own:
            r, c = divmod(f, n)
            for t in [r * n + x for x in range(n)] + [y * n + c for y in range(n)]:
                if t != f:
                    m = Move(f, t)
                    assert (b.why_illegal(m) is None) == (m in generated), (b.position_otn(), m.otn(n))
        moves = b.legal_moves
        if not moves:
            break
        b.push(rng.choice(moves))


def test_board_pickles_small_and_whole() -> None:
    import pickle
    b = Board("tablut")
    b.push(b.legal_moves[3])
    data = pickle.dumps(b)
    c = pickle.loads(data)
    assert len(data) < 5_000
    assert c.position_otn() == b.position_otn() and c.zobrist_hash() == b.zobrist_hash()
    assert c.pop() == b.move_stack[0] and c.ply == 0
    assert set(c.legal_moves) == set(Board("tablut").legal_moves)
