"""The storage book (inventory.json) damaged in every way: set aside, named in a WARNING, never a crash."""
from __future__ import annotations

import json
import logging

import pytest

from engine import Piece
from kiosk import notices
from kiosk.inventory import InventoryFile, StorageInventory, check_rows
from kiosk.ports import Slot

GOOD = StorageInventory.full_for("copenhagen")


def write(tmp_path, content: bytes):
    book = InventoryFile(tmp_path)
    book.path.write_bytes(content)
    return book


def good_rows() -> list:
    return GOOD.to_json()


DAMAGE = {
    "zero bytes": b"",
    "random bytes": bytes(range(7, 250, 3)),
    "truncated": json.dumps({"eleven": good_rows()}).encode()[:200],
    "null": b"null",
    "list": b"[]",
    "invalid utf-8": b'{"eleven": [["attackers", 0, "t\xff"]]}',
    "deep nesting": b"[" * 5000,
    "board not a list": json.dumps({"eleven": {"a": 1}}).encode(),
    "slot -1": json.dumps({"eleven": [["attackers", -1, "t"]]}).encode(),
    "slot beyond the board": json.dumps({"eleven": [["attackers", 99, "t"]]}).encode(),
    "five kings": json.dumps({"eleven": [["defenders", i, "K"] for i in range(5)]}).encode(),
    "king in an attackers slot": json.dumps({"eleven": [["attackers", 0, "K"]]}).encode(),
    "a slot twice": json.dumps({"eleven": [["attackers", 0, "t"], ["attackers", 0, None]]}).encode(),
    "unknown piece": json.dumps({"eleven": [["attackers", 0, "x"]]}).encode(),
}


@pytest.mark.parametrize("kind", sorted(DAMAGE))
def test_a_damaged_storage_book_is_set_aside_and_named(tmp_path, caplog, kind):
    book = write(tmp_path, DAMAGE[kind])
    before = len(notices.current())
    with caplog.at_level(logging.WARNING):
        assert book.load("eleven", 11) is None
    assert not book.path.exists(), "the damaged file should be moved aside"
    kept = list(tmp_path.glob("inventory.json.damaged-*"))
    assert len(kept) == 1 and kept[0].read_bytes() == DAMAGE[kind], "the damaged file must be kept for staff"
    warnings = [r for r in caplog.records if r.levelno == logging.WARNING and str(book.path) in r.getMessage()]
    assert len(warnings) == 1, [r.getMessage() for r in caplog.records]
    assert len(notices.current()) == before + 1
    book.save("eleven", GOOD)                      # and the kiosk can go on writing its book
    assert book.load("eleven", 11) == GOOD


def test_a_good_book_loads_and_an_absent_board_is_none(tmp_path):
    book = InventoryFile(tmp_path)
    book.save("eleven", GOOD)
    assert book.load("eleven", 11) == GOOD
    assert book.load("nine", 9) is None
    assert not list(tmp_path.glob("*.damaged-*"))


def test_counts_above_the_set_are_refused():
    rows = [["attackers", i, "t"] for i in range(24)]
    assert check_rows(rows, 11).count(Piece.ATTACKER) == 24
    with pytest.raises(ValueError, match="does not exist"):
        check_rows(rows + [["attackers", 24, "t"]], 11)
    with pytest.raises(ValueError, match="defender"):
        check_rows([["attackers", 0, "T"]], 11)
    assert check_rows([["defenders", 0, "K"]], 11).slots == {Slot("defenders", 0): Piece.KING}
