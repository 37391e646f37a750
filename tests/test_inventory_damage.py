"""An old install's storage book (inventory.json): merged into the robot's ledger once and moved
aside with a log line; damaged in any way, set aside, named in one WARNING, storage to be checked."""
from __future__ import annotations

import json
import logging

import pytest

from calibration.config import Config
from engine import Piece
from kiosk import notices
from kiosk.inventory import LEGACY_INVENTORY, StorageBook, check_rows
from robot.layout import Slot, TableLayout
from robot.ledger import Ledger, ledger_path

BOARD = "board-11"


def good_rows() -> list:
    """The old format: [side, index, piece or null] for every slot; copenhagen all in storage."""
    rows = [["attackers", i, "t"] for i in range(24)]
    rows += [["defenders", 0, "K"]] + [["defenders", i, "T"] for i in range(1, 13)]
    return rows


DAMAGE = {
    "zero bytes": b"",
    "random bytes": bytes(range(7, 250, 3)),
    "truncated": json.dumps({BOARD: good_rows()}).encode()[:200],
    "null": b"null",
    "list": b"[]",
    "invalid utf-8": b'{"board-11": [["attackers", 0, "t\xff"]]}',
    "deep nesting": b"[" * 5000,
    "board not a list": json.dumps({BOARD: {"a": 1}}).encode(),
    "slot -1": json.dumps({BOARD: [["attackers", -1, "t"]]}).encode(),
    "slot beyond the board": json.dumps({BOARD: [["attackers", 99, "t"]]}).encode(),
    "five kings": json.dumps({BOARD: [["defenders", i, "K"] for i in range(5)]}).encode(),
    "king in an attackers slot": json.dumps({BOARD: [["attackers", 0, "K"]]}).encode(),
    "a slot twice": json.dumps({BOARD: [["attackers", 0, "t"], ["attackers", 0, None]]}).encode(),
    "unknown piece": json.dumps({BOARD: [["attackers", 0, "x"]]}).encode(),
}


@pytest.mark.parametrize("kind", sorted(DAMAGE))
def test_a_damaged_old_storage_book_is_set_aside_named_and_storage_must_be_checked(tmp_path, caplog, kind):
    legacy = tmp_path / LEGACY_INVENTORY
    legacy.write_bytes(DAMAGE[kind])
    before = len(notices.current())
    book = StorageBook(tmp_path, Config())
    with caplog.at_level(logging.INFO):
        book.open(BOARD)
    assert not legacy.exists(), "the damaged file should be moved aside"
    kept = list(tmp_path.glob(LEGACY_INVENTORY + ".damaged-*"))
    assert len(kept) == 1 and kept[0].read_bytes() == DAMAGE[kind], "the damaged file must be kept for staff"
    warnings = [r for r in caplog.records if r.levelno == logging.WARNING and str(legacy) in r.getMessage()]
    assert len(warnings) == 1, [r.getMessage() for r in caplog.records]
    assert len(notices.current()) == before + 1
    assert book.storage_check_needed and Ledger.load(book.path).storage_check_needed
    book.recount({}, "copenhagen")                    # staff counted: trusted again, on disk too
    assert not Ledger.load(book.path).storage_check_needed


def test_an_old_storage_book_is_merged_into_the_ledger_once_and_moved_aside(tmp_path, caplog):
    config = Config()
    layout = TableLayout(config, BOARD)
    # the old ledger said storage was full; the old book knows two attackers went to the board since
    old = Ledger.in_storage(layout)
    old.save(ledger_path(tmp_path, BOARD))
    rows = good_rows()
    rows[0][2] = rows[1][2] = None
    (tmp_path / LEGACY_INVENTORY).write_text(json.dumps({BOARD: rows, "no-such-board": []}))
    with caplog.at_level(logging.INFO):
        ledger = StorageBook(tmp_path, config).open(BOARD)
    assert Slot("attackers", 0) not in ledger.storage() and ledger.storage()[Slot("attackers", 2)] == "t"
    assert Ledger.load(ledger_path(tmp_path, BOARD)).storage() == ledger.storage()
    assert not (tmp_path / LEGACY_INVENTORY).exists()
    assert len(list(tmp_path.glob(LEGACY_INVENTORY + ".merged-*"))) == 1
    lines = [r.getMessage() for r in caplog.records if "merged into the robot's ledger" in r.getMessage()]
    assert len(lines) == 1 and str(tmp_path / LEGACY_INVENTORY) in lines[0]
    assert not ledger.storage_check_needed


def test_a_ledger_with_a_step_pending_keeps_its_own_storage_over_the_old_book(tmp_path):
    config = Config()
    layout = TableLayout(config, BOARD)
    old = Ledger.in_storage(layout)
    old.pending = {"src": ["attackers", 0], "dst": 60, "piece": "t", "kind": "setup",
                   "path": [[0.0, 0.0], [40.0, 0.0]]}
    old.save(ledger_path(tmp_path, BOARD))
    rows = [r for r in good_rows() if r[0] == "defenders"]
    (tmp_path / LEGACY_INVENTORY).write_text(json.dumps({BOARD: rows}))
    ledger = StorageBook(tmp_path, config).open(BOARD)
    assert ledger.pending is not None and ledger.storage()[Slot("attackers", 0)] == "t"


def test_old_rows_above_the_set_are_refused():
    layout = TableLayout(Config(), BOARD)
    rows = [["attackers", i, "t"] for i in range(24)]
    assert list(check_rows(rows, layout).values()).count(Piece.ATTACKER.value) == 24
    with pytest.raises(ValueError, match="does not exist"):
        check_rows(rows + [["attackers", 24, "t"]], layout)
    with pytest.raises(ValueError, match="defender"):
        check_rows([["attackers", 0, "T"]], layout)
    assert check_rows([["defenders", 0, "K"], ["defenders", 1, None]], layout) == {Slot("defenders", 0): "K"}
