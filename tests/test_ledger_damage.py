"""The robot's ledger is checked against its schema when read; a damaged one is set aside,
named in one WARNING, and replaced by a fresh ledger that says storage must be checked."""
from __future__ import annotations

import json
import logging
from typing import Callable

import pytest

from calibration.config import Config
from robot.layout import Slot, TableLayout
from robot.ledger import Ledger, LedgerError, load_or_set_aside

from kiosk import notices
from kiosk.inventory import StorageBook
from kiosk.robot_adapter import GantryMover


@pytest.fixture
def layout() -> TableLayout:
    return TableLayout(Config())


def good(layout: TableLayout) -> dict:
    return Ledger.in_storage(layout).to_json()


def with_places(data: dict, places: list) -> dict:
    return {**data, "places": places}


def step(src, dst, piece="t") -> dict:
    return {"src": src, "dst": dst, "piece": piece, "kind": "move", "path": [[0.0, 0.0], [40.0, 0.0]]}


IMPOSSIBLE: dict[str, tuple[Callable[[dict], object], str]] = {
    "null": (lambda d: None, "null"),
    "[]": (lambda d: [], "a list"),
    "{}": (lambda d: {}, "format"),
    "garbage pending": (lambda d: {**d, "pending": {"what": "ever"}}, "pending"),
    "pending with a NaN path": (lambda d: {**d, "pending": {**step(["attackers", 0], 40),
                                                            "path": [[float("nan"), 0.0]]}}, "path"),
    "pending from an empty place": (lambda d: {**d, "pending": step(60, 61)}, "nothing"),
    "slot -1": (lambda d: with_places(d, [[["attackers", -1], "t"]] + d["places"][1:]), "no storage slot"),
    "slot past the last": (lambda d: with_places(d, [[["attackers", 99], "t"]] + d["places"][1:]), "no storage slot"),
    "square off the board": (lambda d: with_places(d, [[121, "t"]] + d["places"][1:]), "off the 11x11"),
    "5 kings": (lambda d: with_places(d, [[sq, "K"] for sq in (0, 1, 2, 3, 4)]), "5 kings"),
    "no pieces": (lambda d: with_places(d, []), "no pieces"),
    "too many attackers": (lambda d: with_places(d, d["places"] + [[sq, "t"] for sq in range(30)]), "more than"),
    "a bad piece": (lambda d: with_places(d, d["places"][:-1] + [[60, "Q"]]), "bad piece"),
    "size as text": (lambda d: {**d, "size": "11"}, "size"),
    "steps_done negative": (lambda d: {**d, "steps_done": -3}, "steps_done"),
}


@pytest.mark.parametrize("case", list(IMPOSSIBLE))
def test_impossible_ledgers_are_refused_with_the_reason(layout, case):
    change, words = IMPOSSIBLE[case]
    data = change(good(layout))
    with pytest.raises(LedgerError, match=words):
        Ledger.from_json(data)


def test_a_good_ledger_with_a_pending_step_loads(layout, tmp_path):
    data = good(layout)
    data["pending"] = step(["attackers", 0], 60)
    ledger = Ledger.from_json(data)
    assert ledger.pending["src"] == ["attackers", 0] and ledger.piece_at(Slot("attackers", 0)) == "t"


@pytest.mark.parametrize("content", [b"", b"\xff\xfe\x00garbage", bytes(range(256)), b"[" * 5000,
                                     b'{"format": 1, "board": "board-11"', b"null", b"[]"])
def test_unreadable_ledgers_are_set_aside_and_storage_must_be_checked(layout, tmp_path, content):
    path = tmp_path / "gantry-ledger-board-11.json"
    path.write_bytes(content)
    loaded = load_or_set_aside(path, layout)
    assert loaded.damage and loaded.kept_as is not None and loaded.kept_as.read_bytes() == content
    assert loaded.kept_as.name.startswith(path.name + ".damaged-") and not path.exists()
    assert loaded.ledger.storage_check_needed and loaded.ledger.places == Ledger.in_storage(layout).places


def test_the_storage_check_flag_survives_a_restart_until_cleared(layout, tmp_path):
    path = tmp_path / "ledger.json"
    path.write_text("null")
    ledger = load_or_set_aside(path, layout).ledger
    ledger.save(path)
    again = load_or_set_aside(path, layout)
    assert again.damage is None and again.ledger.storage_check_needed
    again.ledger.storage_checked()
    again.ledger.save(path)
    assert not load_or_set_aside(path, layout).ledger.storage_check_needed


def test_a_ledger_for_another_board_is_set_aside(layout, tmp_path):
    path = tmp_path / "ledger.json"
    Ledger.in_storage(TableLayout(Config(), "board-9")).save(path)
    loaded = load_or_set_aside(path, layout)
    assert "board-9" in loaded.damage and loaded.ledger.storage_check_needed


def test_no_ledger_is_a_fresh_install_not_damage(layout, tmp_path):
    loaded = load_or_set_aside(tmp_path / "none.json", layout)
    assert loaded.damage is None and not loaded.ledger.storage_check_needed


def test_the_kiosk_names_a_damaged_ledger_once_and_says_storage_must_be_checked(tmp_path, caplog):
    notices.clear()
    path = tmp_path / "gantry-ledger-board-11.json"
    data = good(TableLayout(Config()))
    data["pending"] = {"src": "garbage"}
    path.write_text(json.dumps(data))
    book = StorageBook(tmp_path, Config())
    with caplog.at_level(logging.WARNING):
        ledger = book.open("board-11")
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 1 and str(path) in warnings[0] and "pending" in warnings[0]
    assert book.storage_check_needed and ledger.pending is None
    assert Ledger.load(path).storage_check_needed          # the flag is on disk before anything moves
    assert [n.file for n in notices.current()] == [str(path)]
    notices.clear()


def test_staffs_count_clears_the_storage_check_and_the_gantry_books_into_the_same_ledger(tmp_path):
    from engine import Board, Piece

    path = tmp_path / "gantry-ledger-board-11.json"
    path.write_text("null")
    book = StorageBook(tmp_path, Config())
    ledger = book.open("board-11")
    assert book.storage_check_needed
    mover = GantryMover(Config())
    mover.use_ledger(ledger, str(book.path))
    assert mover.ledger is ledger                            # one object, one file: no second book
    start = Board("copenhagen").pieces()
    book.recount(start, "copenhagen")                        # "count storage again" with the board set up
    assert not book.storage_check_needed and not Ledger.load(path).storage_check_needed
    assert book.storage() == {} and Ledger.load(path).board() == {sq: p.value for sq, p in start.items()}
    assert book.missing(start, "copenhagen") == {}
    taken = dict(start)
    del taken[next(sq for sq, p in start.items() if p == Piece.ATTACKER)]
    assert book.missing(taken, "copenhagen") == {"t": 1}    # one attacker in the tray (or lost)


def test_the_robots_own_carries_confirm_storage_after_a_damaged_ledger(tmp_path):
    from engine import Side

    from tests.helpers.rig import Rig

    state = tmp_path / "state"
    state.mkdir()
    (state / "gantry-ledger-board-11.json").write_text("[]")          # damaged: storage is a guess
    rig = Rig(tmp_path, seed=2)
    book = rig.ctrl.jobs.book
    assert book.storage_check_needed
    rig.ctrl.start_game("copenhagen", {}, Side.DEFENDERS, "easy")     # the set-up draws every slot
    rig.run_until({"visitor_turn"}, limit=5000)
    assert rig.world.square_pieces() == rig.ctrl.view().board.pieces()
    assert not book.storage_check_needed
    assert not Ledger.load(state / "gantry-ledger-board-11.json").storage_check_needed


def test_a_storage_slot_the_guessed_ledger_has_full_and_that_gives_nothing_twice_asks_a_person(tmp_path):
    """After a damaged ledger storage is a guess (every piece not on the board in its slot), and a visitor may
    have put a piece in the tray: the set-up's draw from that empty slot brings nothing. It is drawn once more
    (the magnet may have missed), then a person is asked for the piece, not nine times (a hard-light museum
    day, seed 52); their "pieces are back" counts storage again and the game begins on a board the game
    believes."""
    from engine import Piece, Side

    from kiosk.journal import read_records
    from robot.layout import Slot
    from tests.helpers.rig import Rig

    state = tmp_path / "state"
    state.mkdir()
    (state / "gantry-ledger-board-11.json").write_text("[]")          # damaged: storage is a guess
    rig = Rig(tmp_path, seed=2)
    assert rig.world.take_from_square(Slot("defenders", 5)) is not None   # into the tray
    rig.step(40)                                                       # (the hand is gone)
    rig.ctrl.start_game("copenhagen", {}, Side.DEFENDERS, "easy")
    assert rig.run_until({"visitor_turn", "place_piece"}, limit=5000) == "place_piece"
    journal = read_records(state / "journal.jsonl")
    asks = [r for r in journal if r.kind == "place_piece"]
    assert [r.get("message") for r in asks] == ["place_piece.missing_pieces"]
    assert len([r for r in journal if r.kind == "plan"]) <= 3             # the set-up and two draws, not ten
    rig.world.put_on(next(iter(rig.ctrl.fix_squares)), Piece.DEFENDER)   # staff bring the piece from the tray
    rig.world.tray.clear()
    rig.ctrl.pieces_back()
    assert rig.run_until({"visitor_turn"}, limit=5000) == "visitor_turn"
    assert rig.world.square_pieces() == rig.ctrl.view().board.pieces()
