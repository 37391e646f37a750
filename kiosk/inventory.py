"""The kiosk's hand on the robot's ledger: what storage holds, read and corrected by the kiosk.

WHY no book of its own: where a piece stands (a board square, a storage
slot, the magnet, the tray or lost) has one owner, the robot's ledger
(robot/ledger.py, `gantry-ledger-<board>.json`, the file `tafl-robot` uses
too). The gantry writes it around every carry, which is what makes it right
after a power cut. The kiosk opens it (so it can name a damaged file on the
staff screen before anything moves), hands the same object to the gantry
(`GantryPort.use_ledger`), and changes it only for what the gantry cannot
know: a fresh install's first count, staff's "pieces are back", and steps the
camera shows did or did not happen.

Old installs kept storage in `inventory.json` as well. That file is read once
when a board's ledger is opened, merged into every board's ledger it names,
and moved aside (`inventory.json.merged-<time>`) with one log line; a damaged
one is set aside (`.damaged-<time>`) with a WARNING, and storage must then be
checked (`storage_check_needed`).
"""
from __future__ import annotations

import json
import logging
import os
import time
from pathlib import Path

from calibration.config import Config
from calibration.durable import fsync_dir, set_aside
from engine import Board, Piece
from robot.layout import Slot, TableLayout, side_of
from robot.ledger import Ledger, LedgerError, ledger_path, load_or_set_aside

from kiosk import notices

#: the storage book of old installs, merged into the ledger once
LEGACY_INVENTORY = "inventory.json"

log = logging.getLogger("kiosk.inventory")


class InventoryError(ValueError):
    """A legacy inventory file that cannot be trusted (unreadable, or against its schema)."""


def variant_pieces(variant: str) -> dict[str, int]:
    """Piece letter -> how many a game of `variant` uses."""
    pieces = list(Board(variant).pieces().values())
    return {p.value: pieces.count(p) for p in set(pieces)}


def storage_for(layout: TableLayout, variant: str, on_board: dict[int, Piece]) -> dict[Slot, str]:
    """Storage holding every piece of `variant` the board does not show: the king in his own
    slot (defenders 0), the others in order."""
    left = variant_pieces(variant)
    for p in on_board.values():
        if left.get(p.value, 0) > 0:
            left[p.value] -= 1
    slots: dict[Slot, str] = {}
    if left.get(Piece.KING.value, 0) > 0:
        slots[Slot("defenders", 0)] = Piece.KING.value
    for letter in (Piece.ATTACKER.value, Piece.DEFENDER.value):
        side = side_of(letter)
        free = [s for s in layout.slots(side) if s not in slots and not (side == "defenders" and s.index == 0)]
        for slot in free[:left.get(letter, 0)]:
            slots[slot] = letter
    return slots


class StorageBook:
    """The ledger of the board in play, as the kiosk's robot jobs use it (see the module docstring)."""

    def __init__(self, state_dir: str | os.PathLike[str], config: Config) -> None:
        self.state_dir = Path(state_dir)
        self.config = config
        self.layout: TableLayout | None = None
        self.ledger: Ledger | None = None
        self.path: Path | None = None
        self.count_at_first_look = False    # no ledger, or a damaged one: storage is counted from the board
        self.confirmed: set[Slot] = set()   # slots the robot's carries confirmed (`confirm_by_use`)

    def open(self, board_name: str) -> Ledger:
        """Read (or start) the ledger of `board_name`; a damaged file is named and set aside."""
        if self.ledger is not None and self.layout is not None and self.layout.board_name == board_name:
            return self.ledger
        self.layout = TableLayout(self.config, board_name)
        self.path = ledger_path(self.state_dir, board_name)
        self.confirmed = set()
        merge_legacy_inventory(self.state_dir, self.config)
        loaded = load_or_set_aside(self.path, self.layout)
        self.ledger = loaded.ledger
        self.count_at_first_look = loaded.ledger.fresh or loaded.damage is not None
        if loaded.damage is not None:
            kept = f"; the damaged file is kept as {loaded.kept_as.name}" if loaded.kept_as else ""
            notices.post(str(self.path), f"damaged ledger, {loaded.damage}",
                         f"a fresh ledger assumes every piece in storage: storage must be checked{kept}",
                         logger=logging.getLogger("kiosk.robot"))
            self.save()
        elif self.ledger.fresh:
            log.info("%s: no ledger yet: storage is counted from the first look at the board", self.path)
        return self.ledger

    # -- reading -------------------------------------------------------------
    def storage(self) -> dict[Slot, Piece]:
        return {} if self.ledger is None else {s: Piece(p) for s, p in self.ledger.storage().items()}

    def missing(self, on_board: dict[int, Piece] | None, variant: str) -> dict[str, int]:
        """Pieces of `variant` neither seen on the board nor booked in storage (the tray, lost)."""
        if on_board is None or self.ledger is None:
            return {}
        return self.ledger.off_table(variant_pieces(variant), {sq: p.value for sq, p in on_board.items()})

    @property
    def storage_check_needed(self) -> bool:
        return self.ledger is not None and self.ledger.storage_check_needed

    # -- changes (each saved at once) ------------------------------------------
    def first_look(self, on_board: dict[int, Piece], variant: str) -> None:
        """A fresh install, or a ledger rebuilt from a damaged file: until counted, storage is
        assumed to hold every piece of `variant` the camera does not see (a damaged ledger
        stays `storage_check_needed` until staff confirm it)."""
        if self.count_at_first_look and self.ledger is not None and self.layout is not None:
            self.count_at_first_look = False
            self.ledger.replace_board({sq: p.value for sq, p in on_board.items()})
            self.ledger.replace_storage(storage_for(self.layout, variant, on_board))
            self.save()

    def recount(self, on_board: dict[int, Piece], variant: str) -> None:
        """Staff counted storage ("pieces are back", "count storage again"): it holds every
        piece of `variant` not on the board, and the ledger is trusted again."""
        if self.ledger is None or self.layout is None:
            return
        self.ledger.replace_board({sq: p.value for sq, p in on_board.items()})
        self.ledger.replace_storage(storage_for(self.layout, variant, on_board))
        if self.ledger.storage_check_needed:
            log.info("%s: storage confirmed by staff: the ledger is trusted again", self.path)
        self.ledger.storage_checked()
        self.count_at_first_look = False
        self.save()

    def confirm_by_use(self, slots: set[Slot]) -> None:
        """The robot's own check, while storage must be checked: slots the robot drew a piece
        from, or parked one in, and the camera saw the piece arrive or leave, are known. Once
        every slot is known this way (a set-up from a full storage draws them all), storage
        is confirmed without staff."""
        if self.ledger is None or self.layout is None or not self.ledger.storage_check_needed:
            return
        self.confirmed |= set(slots)
        if self.confirmed >= set(self.layout.slots()):
            log.info("%s: every storage slot confirmed by the robot's own carries: the ledger is trusted again",
                     self.path)
            self.ledger.storage_checked()
            self.save()

    def put(self, slot: Slot, piece: Piece | None) -> None:
        """The camera showed a booked step did not happen (or did): correct one slot."""
        if self.ledger is not None:
            self.ledger.put(slot, piece.value if piece is not None else None)

    def save(self) -> None:
        if self.ledger is not None and self.path is not None:
            self.ledger.save(self.path)


# ----------------------------------------------------------------------------- old installs

def check_rows(rows: object, layout: TableLayout) -> dict[Slot, str]:
    """A board's storage from a legacy inventory's rows ``[side, slot index, piece or null]``,
    checked: slots that exist on this board, none twice, each piece of its slot's side, one
    king at most. Empty slots are left out (the ledger books only what stands somewhere)."""
    if not isinstance(rows, list):
        raise InventoryError(f"expected a list of slots, found {type(rows).__name__}")
    slots: dict[Slot, str] = {}
    seen: set[Slot] = set()
    for row in rows:
        if not (isinstance(row, list) and len(row) == 3):
            raise InventoryError(f"a slot must be [side, index, piece], not {row!r:.60}")
        side, index, value = row
        if side not in ("attackers", "defenders"):
            raise InventoryError(f"unknown storage side {side!r:.30}")
        if isinstance(index, bool) or not isinstance(index, int) or not 0 <= index < layout.piece_set.count(side):
            raise InventoryError(f"slot {side} {index!r:.20} does not exist on this board")
        slot = Slot(side, index)
        if slot in seen:
            raise InventoryError(f"slot {side} {index} is booked twice")
        seen.add(slot)
        if value is None:
            continue
        try:
            piece = Piece(value)
        except ValueError:
            raise InventoryError(f"unknown piece {value!r:.20} in slot {side} {index}") from None
        if side_of(piece.value) != side:
            raise InventoryError(f"a {piece.name.lower()} cannot be in an {side} slot ({side} {index})")
        slots[slot] = piece.value
    if sum(1 for p in slots.values() if p == Piece.KING.value) > 1:
        raise InventoryError("more than one king in storage")
    return slots


def _read_legacy(path: Path) -> dict:
    try:
        data = json.loads(path.read_bytes().decode("utf-8"))
    except UnicodeDecodeError:
        raise InventoryError("not UTF-8 text") from None
    except (ValueError, RecursionError) as exc:
        raise InventoryError(f"not JSON ({str(exc)[:60]})") from None
    if not isinstance(data, dict):
        raise InventoryError(f"expected an object of boards, found {type(data).__name__}")
    return data


def merge_legacy_inventory(state_dir: Path, config: Config) -> None:
    """Fold an old install's `inventory.json` into the boards' ledgers, once, and move it aside.

    Which storage wins: the inventory's, because the old kiosk wrote the
    ledger's storage from it before every job and corrected only the
    inventory afterwards; except for a ledger with a step pending (a power cut
    during a carry), whose storage is newer than anything the kiosk heard of.
    """
    path = state_dir / LEGACY_INVENTORY
    if not path.exists():
        return
    try:
        data = _read_legacy(path)
        for name, rows in data.items():
            if not isinstance(rows, list):
                raise InventoryError(f"board {name!r:.30}: expected a list of slots, found {type(rows).__name__}")
        boards = {name: check_rows(rows, TableLayout(config, name)) for name, rows in data.items()
                  if name in config.boards}
    except (InventoryError, OSError, ValueError) as exc:
        kept = set_aside(path)
        for name in config.boards:
            _flag_for_check(state_dir, config, name)
        notices.post(str(path), f"damaged storage book of an old install: {exc}",
                     f"storage must be checked: press 'Count storage again' in staff mode; "
                     f"the damaged file is kept as {kept.name}", logger=log)
        return
    for name, slots in boards.items():
        target = ledger_path(state_dir, name)
        try:
            ledger = Ledger.load_or_new(target, TableLayout(config, name))
        except (LedgerError, OSError, ValueError):
            continue            # a damaged ledger: opening it names it and sets it aside
        if ledger.pending is None:
            ledger.replace_storage(slots)
        ledger.save(target)
    stamp = time.strftime("%Y%m%d-%H%M%S", time.gmtime())
    moved = path.with_name(f"{path.name}.merged-{stamp}")
    os.replace(path, moved)
    fsync_dir(state_dir)
    log.info("%s: the old storage book was merged into the robot's ledger (%s) and moved aside as %s",
                path, ", ".join(ledger_path(state_dir, n).name for n in boards) or "no board of this kiosk",
                moved.name)


def _flag_for_check(state_dir: Path, config: Config, board_name: str) -> None:
    """A board whose storage the old book held: the ledger's storage is a guess until checked."""
    target = ledger_path(state_dir, board_name)
    if not target.exists() and board_name != config.board:
        return
    try:
        ledger = Ledger.load_or_new(target, TableLayout(config, board_name))
    except (LedgerError, OSError, ValueError):
        return                  # a damaged ledger: opening it names it and asks for the check
    ledger.storage_check_needed = True
    ledger.save(target)
