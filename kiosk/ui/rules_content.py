"""The rule steps of each variant: a text key and up to two small animated board diagrams.

Each capture rule is a pair: the left diagram shows a capture (tick), the
right one the look-alike that is NOT a capture (cross). Diagrams are small
crops of a board written as text rows, top rank first:

    .  empty      t  attacker     T  defender     K  king
    #  a marked square (throne, corner, castle, camp), empty

``move`` slides a piece (local square names, a1 = bottom-left of the crop);
``removed`` fade out after it; ``dots`` show where a piece may go. A diagram
with ``start`` set shows the variant's whole start position from the engine.
Which rules apply follows the engine's rule records (engine/rules.py, and
docs/rules.md where the texts are open); the texts are in kiosk/i18n.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from engine import Board, Side


@dataclass(frozen=True)
class Diagram:
    rows: tuple[str, ...] = ()
    move: tuple[str, str] | None = None
    removed: tuple[str, ...] = ()
    dots: tuple[str, ...] = ()
    verdict: bool | None = None        # True: tick (captured / allowed), False: cross
    caption: str = ""                  # i18n key
    start: str | None = None           # variant whose start position to show instead of rows
    edges: str = ""                    # crop sides that are the board's edge: subset of "nesw"

    @property
    def size(self) -> int:
        return len(self.rows)


@dataclass(frozen=True)
class RuleStep:
    key: str                           # i18n prefix: rules.<variant>.<key>.title / .text
    diagrams: tuple[Diagram, ...] = field(default_factory=tuple)
    texts: str = ""                    # another i18n prefix, for steps every variant shares

    def prefix(self, variant: str) -> str:
        """Where the step's title and text are: rules.<variant>.<key>, or its own `texts`."""
        return self.texts or f"rules.{variant}.{self.key}"


#: the rule text's "Playing here" section, for the kiosk: how to move here, the sides, what to do with
#: a captured piece on the real board (kiosk/ui/rules.py fills in the variant's words); then the
#: levels with their rewards and hints, and Resign versus End game. The last two steps of every variant.
PLAYING_KEYS = ("playing", "levels")


def _cap(variant: str, step: str, side: str) -> str:
    return f"rules.{variant}.{step}.{side}"


def D(rows: str, caption: str, move: str | None = None, removed: str = "", dots: str = "",
      verdict: bool | None = None, edges: str = "") -> Diagram:
    """Compact spelling: rows separated by '/', squares separated by spaces."""
    frm, _, to = (move or "").partition("-")
    return Diagram(rows=tuple(rows.split("/")), move=(frm, to) if move else None,
                   removed=tuple(removed.split()), dots=tuple(dots.split()), verdict=verdict, caption=caption,
                   edges=edges)


def _move_a(v: str) -> Diagram:
    """The first move diagram, the same in every variant."""
    return D("...../...../..t.T/...../.....", _cap(v, "move", "a"), "c3-c5", dots="c5 c4 c2 c1 a3 b3 d3")


def _common(v: str) -> dict[str, RuleStep]:
    """Steps that read the same in every variant (their texts still differ per variant)."""
    return {
        "sides": RuleStep("sides", (Diagram(start=v, caption=_cap(v, "sides", "a")),)),
        "playing": RuleStep("playing", (D("...../...../..t.T/...../.....", "teach.playing.a",
                                          dots="c5 c4 c2 c1 a3 b3 d3"),), texts="teach.playing"),
        "levels": RuleStep("levels", (), texts="teach.levels"),
        "capture": RuleStep("capture", (
            D("...../...../.tT../...../...t.", _cap(v, "capture", "a"), "d1-d3", "c3", verdict=True),
            D("...../...../.t.t./...../..T..", _cap(v, "capture", "b"), "c1-c3", verdict=False))),
    }


def _steps() -> dict[str, tuple[RuleStep, ...]]:
    v: dict[str, tuple[RuleStep, ...]] = {}
    c = "copenhagen"
    k = _common(c)
    v[c] = (
        k["sides"],
        RuleStep("move", (_move_a(c),
                          D("...../...../T.#../...../.....", _cap(c, "move", "b"), dots="b3 d3 e3 a1 a2 a4 a5"))),
        k["capture"],
        RuleStep("corner", (D("...../...../..t../...../#T...", _cap(c, "corner", "a"), "c3-c1", "b1", verdict=True,
                              edges="sw"),
                            D("...../...../.T.../...../#.t..", _cap(c, "corner", "b"), "b3-b1", verdict=False,
                              edges="sw"))),
        RuleStep("king", (D("...../..t../.tK../..t../...t.", _cap(c, "king", "a"), "d1-d3", "c3", verdict=True),
                          D("T..../...../...../..t../.tK.t", _cap(c, "king", "b"), "e1-d1", verdict=False,
                            edges="s"))),
        RuleStep("shieldwall", (D("...../t..../...../.tt../.TTt.", _cap(c, "shieldwall", "a"), "a4-a1", "b1 c1",
                                  verdict=True, edges="s"),
                                D("...../t..../...../.t.../.TTt.", _cap(c, "shieldwall", "b"), "a4-a1",
                                  verdict=False, edges="s"))),
        RuleStep("win", (D("#..K./...../...../...../.....", _cap(c, "win", "a"), "d5-a5", verdict=True, edges="nw"),
                         D("...../...../..TT./.T..T/.TK.T", _cap(c, "win", "b"), verdict=True, edges="s"))),
        RuleStep("end", ()),
    )
    y = "york"
    k = _common(y)
    v[y] = (
        k["sides"],
        RuleStep("move", (_move_a(y),
                          D("...../...../T.#../...../.....", _cap(y, "move", "b"), dots="b3 d3 e3 a1 a2 a4 a5"))),
        k["capture"],
        RuleStep("king", (D("...../..t../.tK../..t../...t.", _cap(y, "king", "a"), "d1-d3", "c3", verdict=True),
                          D("...../..t../.tK#./...../..t..", _cap(y, "king", "b"), "c1-c2", "c3", verdict=True))),
        RuleStep("sandwich", (D("...../..t../.tKT./..t../....t", _cap(y, "sandwich", "a"), "e1-e3", "d3",
                                verdict=True),)),
        RuleStep("win", (D("...../...../.K.../...../.....", _cap(y, "win", "a"), "b3-b5", verdict=True,
                           edges="n"),)),
    )
    tb = "tablut"
    k = _common(tb)
    v[tb] = (
        k["sides"],
        RuleStep("move", (_move_a(tb),
                          D("...../#..../##.T#/#..../.....", _cap(tb, "move", "b"), "d3-c3",
                            dots="c3 d4 d5 d2 d1", edges="w"))),
        k["capture"],
        RuleStep("king", (D("...../..t../.tK../..t../...t.", _cap(tb, "king", "a"), "d1-d3", "c3", verdict=True),
                          D("...../...../.tK../...../...t.", _cap(tb, "king", "b"), "d1-d3", verdict=False))),
        RuleStep("win", (D("...##/....#/..K../...../.....", _cap(tb, "win", "a"), "c3-c5", verdict=True,
                           edges="nw"),)),
    )
    tw = "tawlbwrdd"
    k = _common(tw)
    v[tw] = (
        k["sides"],
        RuleStep("move", (_move_a(tw),)),
        RuleStep("capture", (k["capture"].diagrams[0],
                             D("...../...../.t.t./...../..T..", _cap(tw, "capture", "b"), "c1-c5", verdict=False))),
        RuleStep("stop", (D("...../...../.t.t./...../..T..", _cap(tw, "stop", "a"), "c1-c3", "c3", verdict=True),
                          D("...../...../.t.t./...../..K..", _cap(tw, "stop", "b"), "c1-c3", verdict=False))),
        RuleStep("king", (D("...../...../.tK../...../...t.", _cap(tw, "king", "a"), "d1-d3", "c3", verdict=True),)),
        RuleStep("win", (D("...../...../..K../...../.....", _cap(tw, "win", "a"), "c3-c1", verdict=True,
                           edges="s"),)),
    )
    return v


def _with_playing_here() -> dict[str, tuple[RuleStep, ...]]:
    return {v: steps + tuple(_common(v)[key] for key in PLAYING_KEYS) for v, steps in _steps().items()}


STEPS: dict[str, tuple[RuleStep, ...]] = _with_playing_here()


def _special(variant: str) -> tuple[int, set[int]]:
    rules = Board(variant).rules
    size = rules.size
    special = set(rules.corners) if rules.throne is None else {rules.throne} | set(rules.corners)
    for camp in getattr(rules, "camps", ()) or ():
        special |= set(camp)
    return size, special


def _used_squares(diagram: Diagram) -> set[tuple[int, int]]:
    """Crop (file, rank) squares the diagram relies on: pieces, the move's path, dots, captures."""
    n = diagram.size
    used = {(f, n - 1 - r) for r, row in enumerate(diagram.rows) for f, ch in enumerate(row) if ch in "tTK"}
    names = list(diagram.dots) + list(diagram.removed)
    if diagram.move is not None:
        (f0, r0), (f1, r1) = (_local(diagram.move[0]), _local(diagram.move[1]))
        for k in range(max(abs(f1 - f0), abs(r1 - r0)) + 1):
            step = max(abs(f1 - f0), abs(r1 - r0)) or 1
            used.add((f0 + (f1 - f0) * k // step, r0 + (r1 - r0) * k // step))
    used |= {_local(name) for name in names}
    return used


def _local(name: str) -> tuple[int, int]:
    return "abcdefghijklmnopqrstuvwxyz".index(name[0]), int(name[1:]) - 1


def placement(diagram: Diagram, variant: str) -> tuple[int, int]:
    """(file, rank) offset where the crop sits on the real board.

    Its '#' squares must be special squares there, the squares it uses
    (pieces, the move's path, dots, captures) must be ordinary ones, and the
    sides named in ``edges`` must be the board's edge. Among those, a place
    whose other sides do not touch the edge and that covers the fewest
    special squares is preferred.
    """
    size, special = _special(variant)
    n = diagram.size
    used = _used_squares(diagram)
    best: tuple[tuple[int, int], tuple[int, int]] | None = None
    for rank_off in range(size - n + 1):
        for file_off in range(size - n + 1):
            touches = {"s": rank_off == 0, "n": rank_off + n == size, "w": file_off == 0, "e": file_off + n == size}
            if any(not touches[side] for side in diagram.edges):
                continue
            ok = True
            covered = 0
            for r, row in enumerate(diagram.rows):
                for f, char in enumerate(row):
                    sq = (rank_off + n - 1 - r) * size + file_off + f
                    if char == "#" and sq not in special:
                        ok = False
                    if sq in special:
                        covered += 1
                        if (f, n - 1 - r) in used and char != "#":
                            ok = False
            if not ok:
                continue
            extra = sum(1 for side in "nesw" if touches[side] and side not in diagram.edges)
            score = (extra, covered)
            if best is None or score < best[0]:
                best = (score, (file_off, rank_off))
    if best is None:
        raise ValueError(f"diagram {diagram.caption!r} fits nowhere on the {variant} board")
    return best[1]


def local_square(name: str, diagram: Diagram, offset: tuple[int, int], size: int) -> int:
    """A crop square name ('c3') as a square of the real board."""
    file = "abcdefghijklmnopqrstuvwxyz".index(name[0]) + offset[0]
    rank = int(name[1:]) - 1 + offset[1]
    return rank * size + file


def embed(diagram: Diagram, variant: str):
    """The real engine Board with the crop placed on it, the mover's side to move; and the offset."""
    size, _ = _special(variant)
    offset = placement(diagram, variant)
    n = diagram.size
    cells = [["" for _ in range(size)] for _ in range(size)]
    for r, row in enumerate(diagram.rows):
        for f, char in enumerate(row):
            if char in "tTK":
                cells[offset[1] + n - 1 - r][offset[0] + f] = char
    if not any("K" in row for row in diagram.rows):
        size_, special = _special(variant)
        far = max((sq for sq in range(size * size) if sq not in special and 0 < sq // size < size - 1
                   and 0 < sq % size < size - 1),
                  key=lambda sq: min(abs(sq % size - (offset[0] + f)) + abs(sq // size - (offset[1] + r))
                                     for f in range(n) for r in range(n)))
        cells[far // size][far % size] = "K"
    ranks = []
    for rank in cells:
        text, run = "", 0
        for cell in rank:
            if cell:
                text += (str(run) if run else "") + cell
                run = 0
            else:
                run += 1
        ranks.append(text + (str(run) if run else ""))
    turn = Side.ATTACKERS
    if diagram.move is not None:
        mover = diagram.rows[n - int(diagram.move[0][1:])]["abcdefghijklmnopqrstuvwxyz".index(diagram.move[0][0])]
        turn = Side.ATTACKERS if mover == "t" else Side.DEFENDERS
    elif diagram.dots:
        first = next(ch for row in diagram.rows for ch in row if ch in "tTK")
        turn = Side.ATTACKERS if first == "t" else Side.DEFENDERS
    board = Board.from_otn(variant, "/" + "/".join(ranks) + "/", turn=turn)
    return board, offset
