"""The Board: position, legal moves, push/pop with captures, game end, announcements.

One generator serves all four rule sets; it reads the Rules record through the
precomputed Tables. push/pop are incremental (captured pieces are restored
from the undo record, the Zobrist hash and the bitboards are updated by xor,
repetitions are a counter of hashes) because the search plays millions of them.

Squares are ints `rank * size + file` (a1 = 0). Piece codes inside: 0 empty,
1 attacker, 2 defender, 3 king; side codes: 1 attackers, 2 defenders.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from . import otn as _otn
from .rules import Rules, rules_for
from .tables import ZOBRIST, ZOBRIST_SIDE, Tables, tables_for
from .types import (ATT, DEF, EMPTY, KING, PIECE_OF_CODE, SIDE_CODE,
                    SIDE_OF_CODE, SIDE_OF_SIDE_CODE, Announcement, Move, Outcome, Piece,
                    Side, square_name)

_ATT_WIN_CAPTURE = Outcome(Side.ATTACKERS, "king_captured")
_DEF_WIN_ESCAPE = Outcome(Side.DEFENDERS, "king_escaped")
_DEF_WIN_FORT = Outcome(Side.DEFENDERS, "edge_fort")
_ATT_WIN_ENCIRCLE = Outcome(Side.ATTACKERS, "encirclement")
_ATT_WIN_REPEAT = Outcome(Side.ATTACKERS, "repetition")
_DRAW_REPEAT = Outcome(None, "repetition")
_DEF_WIN_REPEAT = Outcome(Side.DEFENDERS, "repetition")
#: Rules.repetition -> mover's side code -> the end a third occurrence makes (None: play on;
#: "forbidden" moves are never generated). mover_loses is OpenTafl's tfr:w, mover_wins tfr:l.
_REPETITION_ENDS: dict[str, tuple[Outcome | None, ...]] = {
    "defenders_lose": (None, _ATT_WIN_REPEAT, _ATT_WIN_REPEAT),
    "draw": (None, _DRAW_REPEAT, _DRAW_REPEAT),
    "mover_loses": (None, _DEF_WIN_REPEAT, _ATT_WIN_REPEAT),
    "mover_wins": (None, _ATT_WIN_REPEAT, _DEF_WIN_REPEAT),
    "forbidden": (None, None, None),
    "ignored": (None, None, None),
}



@dataclass(frozen=True)
class BitMasks:
    """The masks a bitboard reader needs (bit ``sq`` = square ``sq``, a1 = bit 0).

    ``full``: every square; ``edge``: the edge squares; ``not_file_a`` /
    ``not_file_last``: every square but the first / last file, to mask a shift
    by one file so a line does not wrap onto the next rank.
    """

    size: int
    full: int
    edge: int
    not_file_a: int
    not_file_last: int


# Undo record fields (a tuple, for speed): move, piece code, captures ((sq, code), ...),
# previous hash, previous recorded end, events (tuple of str).


class Board:
    """A game position with its history, modelled on python-chess's Board.

    `Board("copenhagen")` is the start position; `Board.from_otn(...)` any
    position. `legal_moves` is sorted by OTN text (for people and JSON);
    `generate_moves()` is the same set unsorted, for the search.
    """

    def __init__(self, variant: str = "copenhagen", options: Mapping[str, object] | None = None,
                 *, position: str | None = None, turn: Side | str | None = None) -> None:
        self.rules: Rules = rules_for(variant, options)
        self._t: Tables = tables_for(self.rules)
        cells = _otn.parse_position(position if position is not None else self.rules.start,
                                    self.rules.size)
        if turn is None:
            side = self.rules.first
        else:
            try:
                side = Side(turn)
            except ValueError:
                raise ValueError(f"bad side {turn!r} (use attackers or defenders)") from None
        self._setup(cells, SIDE_CODE[side])

    # ----------------------------------------------------------------- setup
    @classmethod
    def from_otn(cls, variant: str, position: str, turn: Side | str | None = None,
                 options: Mapping[str, object] | None = None) -> "Board":
        """A board at an OTN position (rank 1 first), `turn` to move (default: who starts)."""
        return cls(variant, options, position=position, turn=turn)

    def _setup(self, cells: list[int], turn: int) -> None:
        t = self._t
        self._sq: list[int] = list(cells)
        self._pieces: list[set[int]] = [set(), set(), set()]
        self._bb = [0, 0, 0]
        self._king = -1
        h = 0
        for s, code in enumerate(cells):
            if code:
                side = SIDE_OF_CODE[code]
                self._pieces[side].add(s)
                self._bb[side] |= t.bit[s]
                h ^= ZOBRIST[code][s]
                if code == KING:
                    self._king = s
        if turn == 2:
            h ^= ZOBRIST_SIDE
        self._turn = turn
        self._hash = h
        self._rep: dict[int, int] = {h: 1}
        self._twice = 0
        self._stack: list[tuple] = []
        self._witness = 0       # encirclement hint: a defender's path to the edge (see _is_encircled)
        self._nulls = 0         # passes on the board (push_null), the search's null moves
        self._end: Outcome | None = self._static_end()

    def _static_end(self) -> Outcome | None:
        """A set-up position can already be over: the king on an escape square, or no king
        (a position written after his capture)."""
        if self._king < 0:
            return _ATT_WIN_CAPTURE
        if self._t.escape[self._king]:
            return _DEF_WIN_ESCAPE
        return None

    # ------------------------------------------------------------ properties
    @property
    def variant(self) -> str:
        return self.rules.variant

    @property
    def options(self) -> dict[str, str]:
        return self.rules.options_dict

    @property
    def size(self) -> int:
        return self.rules.size

    @property
    def turn(self) -> Side:
        return SIDE_OF_SIDE_CODE[self._turn]

    @property
    def king_square(self) -> int | None:
        return self._king if self._king >= 0 else None

    @property
    def move_stack(self) -> list[Move]:
        return [rec[0] for rec in self._stack]

    @property
    def ply(self) -> int:
        return len(self._stack)

    @property
    def game_end(self) -> Outcome | None:
        """The end the last move caused, without the (costly) no-legal-move test; for the search."""
        return self._end

    def piece_at(self, sq: int) -> Piece | None:
        return PIECE_OF_CODE[self._sq[sq]]

    def pieces(self) -> dict[int, Piece]:
        return {s: p for s, c in enumerate(self._sq) if c and (p := PIECE_OF_CODE[c]) is not None}

    def count(self, side: Side) -> int:
        """Pieces of `side` on the board (the king included for the defenders)."""
        return len(self._pieces[SIDE_CODE[side]])

    def captured_counts(self) -> dict[Side, int]:
        """Pieces each side has captured so far in this game (the king included)."""
        out = {Side.ATTACKERS: 0, Side.DEFENDERS: 0}
        for move, p, caps, *_ in self._stack:
            mover = SIDE_OF_SIDE_CODE[SIDE_OF_CODE[p]]
            for c, _code in caps:
                out[mover.other if c == move.to_sq else mover] += 1
        return out

    def zobrist_hash(self) -> int:
        return self._hash

    def repetitions(self) -> int:
        """How often the current position (with side to move) has occurred, this time included."""
        return self._rep.get(self._hash, 0)

    def copy(self) -> "Board":
        b = Board.__new__(Board)
        b.rules = self.rules
        b._t = self._t
        b._sq = list(self._sq)
        b._pieces = [set(p) for p in self._pieces]
        b._bb = list(self._bb)
        b._king = self._king
        b._turn = self._turn
        b._hash = self._hash
        b._rep = dict(self._rep)
        b._twice = self._twice
        b._stack = list(self._stack)
        b._end = self._end
        b._witness = self._witness
        b._nulls = self._nulls
        return b

    # ------------------------------------------------------ search interface
    # The search reads the position millions of times per move; these give it
    # the board's own state without copies, and without reaching into fields.

    @property
    def cells(self) -> Sequence[int]:
        """The square codes (0 empty, 1 attacker, 2 defender, 3 king), index = square.

        A live, read-only view: the same list is updated in place by push/pop
        (no copy per call, which the search could not afford). Never write to it.
        """
        return self._sq

    def repetitions_of(self, key: int) -> int:
        """How often the position with Zobrist hash `key` has occurred in this game so far."""
        return self._rep.get(key, 0)

    def push_null(self) -> None:
        """The side to move passes (the search's null move; no tafl rule allows it).

        Only the side to move and the hash change; moves pushed on top are
        taken back with pop() as usual, then the pass with pop_null().
        """
        if self._end is not None:
            raise ValueError("the game is over: there is no move to pass")
        self._turn = 3 - self._turn
        self._hash ^= ZOBRIST_SIDE
        self._nulls += 1

    def pop_null(self) -> None:
        """Takes back the last push_null (the moves pushed after it must be popped first)."""
        if not self._nulls:
            raise ValueError("no null move to take back")
        self._turn = 3 - self._turn
        self._hash ^= ZOBRIST_SIDE
        self._nulls -= 1

    def bitboard(self, side: Side) -> int:
        """The squares of `side`'s pieces as a bitboard (the king counts for the defenders)."""
        return self._bb[SIDE_CODE[side]]

    @property
    def bit_masks(self) -> BitMasks:
        """The masks to read and shift this board's bitboards."""
        t = self._t
        return BitMasks(t.n, t.full, t.edge_mask, t.not_file_a, t.not_file_last)

    def defender_edge_reach(self) -> int:
        """Edge squares the defenders (king included) could reach through squares free of attackers.

        The encirclement measure: Copenhagen's and York's encirclement win is
        this number being zero (with every defender inside).
        """
        t = self._t
        region = self._flood(self._bb[2], t.full & ~self._bb[1])
        return (region & t.edge_mask).bit_count()

    def __getstate__(self) -> dict:
        """Pickles without the lookup tables (they are rebuilt from the rules, and are big)."""
        state = dict(self.__dict__)
        del state["_t"]
        return state

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self._t = tables_for(self.rules)

    def __repr__(self) -> str:
        return f"Board({self.variant!r}, position={self.position_otn()!r}, turn={self.turn.value!r})"

    def __str__(self) -> str:
        n = self.size
        rows = []
        for r in range(n - 1, -1, -1):
            cells = []
            for c in range(n):
                code = self._sq[r * n + c]
                cells.append(".tTK"[code])
            rows.append(f"{r + 1:>2} " + " ".join(cells))
        rows.append("   " + " ".join("abcdefghijklmnopqrs"[:n]))
        return "\n".join(rows)

    # ------------------------------------------------------- move generation
    def generate_moves(self) -> list[Move]:
        """Every legal move of the side to move, unsorted (ignores whether the game is over).

        This is the search's entry point: no sorting, cached Move objects.
        """
        moves = self._pseudo_moves()
        if self._twice and self.rules.repetition == "forbidden":
            moves = [m for m in moves if not self._eternity_forbids(m)]
        return moves

    def _pseudo_moves(self) -> list[Move]:
        t = self._t
        sq = self._sq
        rays = t.rays
        table = t.moves
        n2 = t.n2
        camp_of = t.camp_of
        blocked_k = t.blocked
        nostop_k = t.nostop
        out: list[Move] = []
        append = out.append
        for f in self._pieces[self._turn]:
            kind = sq[f]
            blocked = blocked_k[kind][camp_of[f]]
            nostop = nostop_k[kind]
            base = f * n2
            for ray in rays[f]:
                for s in ray:
                    if sq[s] or blocked[s]:
                        break
                    if nostop[s]:
                        continue
                    append(table[base + s])
        return out

    def _eternity_forbids(self, move: Move) -> bool:
        """Tablut rule 13: the offensive player may not bring about a position a third time.

        "Offensive" is judged on the position the move makes: the Swedes' move
        is offensive when the king then has a free path to the edge (the exit
        threat of the text's example), the Muscovites' when they then threaten
        to capture the king (the "surrounding" deadlock). docs/rules.md.
        """
        side = self._turn
        self.push_unchecked(move)
        try:
            if self._rep[self._hash] < 3 or self._end is not None:
                return False
            if side == DEF:
                return bool(self.escape_routes())
            return bool(self.king_capture_threats())
        finally:
            self.pop()

    @property
    def legal_moves(self) -> list[Move]:
        """Legal moves sorted by their OTN text; empty once the game is over."""
        if self._end is not None:
            return []
        key = self._t.otn.__getitem__
        return sorted(self.generate_moves(), key=key)

    def why_illegal(self, move: Move) -> str | None:
        """None if `move` is legal here, else a short reason naming squares."""
        n = self.size
        f, to = move.from_sq, move.to_sq
        n2 = n * n
        if not (0 <= f < n2 and 0 <= to < n2):
            return "square off the board"
        name_f, name_t = square_name(f, n), square_name(to, n)
        if self._end is not None:
            return f"the game is over ({self._end.describe()})"
        code = self._sq[f]
        if not code:
            return f"no piece on {name_f}"
        if SIDE_OF_CODE[code] != self._turn:
            return (f"{name_f} holds a piece of the {SIDE_OF_SIDE_CODE[SIDE_OF_CODE[code]].value}, "
                    f"it is the {self.turn.value}' turn")
        if f == to:
            return "the piece does not move"
        fr, fc = divmod(f, n)
        tr, tc = divmod(to, n)
        if fr != tr and fc != tc:
            return f"{name_f}-{name_t} is not along a rank or file"
        step = (1 if tc > fc else -1) if fr == tr else (n if tr > fr else -n)
        t = self._t
        blocked = t.blocked[code][t.camp_of[f]]
        s = f + step
        while True:
            if self._sq[s]:
                return f"{square_name(s, n)} is in the way" if s != to else f"{name_t} is occupied"
            if blocked[s]:
                return self._blocked_reason(code, s, s == to)
            if s == to:
                break
            s += step
        if t.nostop[code][to]:
            return f"only the king may stop on {name_t}"
        if self._twice and self.rules.repetition == "forbidden" and self._eternity_forbids(move):
            return "it would repeat a position a third time (the eternity rule)"
        return None

    def _blocked_reason(self, code: int, s: int, stop: bool) -> str:
        name = square_name(s, self.size)
        t = self._t
        if t.camp_of[s]:
            return f"{name} is a camp square, off limits to this piece"
        if s == self.rules.throne:
            return f"no piece may {'stop on' if stop else 'pass through'} the castle {name}"
        return f"only the king may {'enter' if stop else 'pass'} {name}"

    def is_legal(self, move: Move) -> bool:
        return self.why_illegal(move) is None

    # ------------------------------------------------------------ push / pop
    def push(self, move: Move) -> tuple[int, ...]:
        """Plays a legal move and returns the squares it emptied by capture.

        Raises ValueError (with the reason) for an illegal move; the search,
        which only plays generated moves, uses `push_unchecked`.
        """
        why = self.why_illegal(move)
        if why is not None:
            raise ValueError(f"illegal move {move.otn(self.size)}: {why}")
        return self.push_unchecked(move)

    def push_unchecked(self, move: Move) -> tuple[int, ...]:
        """Plays `move` without checking it (it must come from generate_moves or be legal)."""
        t = self._t
        sq = self._sq
        f = move.from_sq
        to = move.to_sq
        p = sq[f]
        side = self._turn
        bit = t.bit
        sq[f] = EMPTY
        sq[to] = p
        own = self._pieces[side]
        own.discard(f)
        own.add(to)
        self._bb[side] ^= bit[f] | bit[to]
        zp = ZOBRIST[p]
        h = self._hash ^ zp[f] ^ zp[to] ^ ZOBRIST_SIDE
        if p == KING:
            self._king = to
        caps, events = self._find_captures(to, p, side)
        if caps:
            enemy = 3 - side
            epieces = self._pieces[enemy]
            ebb = self._bb[enemy]
            for (c, code) in caps:
                sq[c] = EMPTY
                epieces.discard(c)
                ebb ^= bit[c]
                h ^= ZOBRIST[code][c]
                if code == KING:
                    self._king = -1
            self._bb[enemy] = ebb
        rules = self.rules
        if rules.stop_between_dies and p != KING and self._stops_between(to, side):
            # Throw Board rule 4: the mover's own captures are made first (docs/rules.md).
            sq[to] = EMPTY
            own.discard(to)
            self._bb[side] ^= bit[to]
            h ^= zp[to]
            caps = caps + ((to, p),)
            events = events + ("stopped_between",)
        prev_end = self._end
        self._stack.append((move, p, caps, self._hash, prev_end, events))
        self._hash = h
        self._turn = 3 - side
        rep = self._rep
        count = rep.get(h, 0) + 1
        rep[h] = count
        if count == 2:
            self._twice += 1
        # Game end, most decisive first.
        end = None
        if caps and self._king < 0:
            end = _ATT_WIN_CAPTURE
        elif p == KING and t.escape[to]:
            end = _DEF_WIN_ESCAPE
        elif side == 2:
            if rules.edge_fort and self._king >= 0 and t.is_edge[self._king] and self._is_edge_fort():
                end = _DEF_WIN_FORT
        elif rules.encirclement and self._is_encircled():
            end = _ATT_WIN_ENCIRCLE
        if end is None and count >= 3:
            end = _REPETITION_ENDS[rules.repetition][side]
        self._end = end
        return tuple(c for c, _ in caps) if caps else ()

    def pop(self) -> Move:
        """Takes back the last move, restoring captured pieces, hash and history."""
        move, p, caps, prev_hash, prev_end, _events = self._stack.pop()
        t = self._t
        bit = t.bit
        sq = self._sq
        h = self._hash
        rep = self._rep
        count = rep[h]
        if count == 2:
            self._twice -= 1
        if count == 1:
            del rep[h]
        else:
            rep[h] = count - 1
        side = 3 - self._turn
        f, to = move.from_sq, move.to_sq
        for (c, code) in caps:
            s = SIDE_OF_CODE[code]
            sq[c] = code
            self._pieces[s].add(c)
            self._bb[s] |= bit[c]
            if code == KING:
                self._king = c
        # The mover (possibly just restored by the loop above if it died) goes home.
        own = self._pieces[side]
        own.discard(to)
        own.add(f)
        self._bb[side] = (self._bb[side] & ~bit[to]) | bit[f]
        sq[to] = EMPTY
        sq[f] = p
        if p == KING:
            self._king = f
        self._hash = prev_hash
        self._turn = side
        self._end = prev_end
        return move

    # -------------------------------------------------------------- captures
    def captures_of(self, move: Move) -> tuple[int, ...]:
        """The squares `move` would empty by capture here (the move is not played)."""
        caps = self.push_unchecked(move)
        self.pop()
        return caps

    def _find_captures(self, to: int, p: int, side: int) -> tuple[tuple, tuple]:
        """Captures made by piece `p` of `side` that just arrived on `to` (board already updated)."""
        t = self._t
        sq = self._sq
        rules = self.rules
        caps: list[tuple[int, int]] = []
        pawns_ok = p != KING or rules.king_armed != "no"
        partner_king = rules.king_armed == "yes"
        hostile = t.hostile[3 - side]
        for n, b in t.nbrs[to]:
            v = sq[n]
            if not v or SIDE_OF_CODE[v] == side:
                continue
            if v == KING:
                if self._king_taken(n, to):
                    caps.append((n, KING))
                continue
            if not pawns_ok or b < 0:
                continue
            w = sq[b]
            if w:
                if SIDE_OF_CODE[w] == side:
                    if w != KING or partner_king:
                        caps.append((n, v))
                elif rules.king_sandwich and w == KING and side == ATT and self._king_boxed_by_three(b, n):
                    caps.append((n, v))
            elif hostile[b]:
                caps.append((n, v))
        events: tuple[str, ...] = ()
        if rules.shieldwall and (t.along[to] or not rules.shieldwall_flank_only):
            wall = (self._shieldwall(to, side) if rules.shieldwall_flank_only
                    else self._closed_walls(side))
            if wall:
                events = ("shieldwall",)
                have = {c for c, _ in caps}
                caps.extend((c, sq[c]) for c in wall if c not in have)
        return tuple(caps), events

    def _king_taken(self, k: int, mover_sq: int) -> bool:
        """Does the attacker that just arrived on `mover_sq`, next to the king on `k`, capture him?"""
        t = self._t
        sq = self._sq
        hk = t.hostile_king
        if self.rules.king_capture == "custodial":
            b = 2 * k - mover_sq
            n = t.n
            # `b` must be the square beyond the king on the same line, on the board.
            if mover_sq // n == k // n:
                if b // n != k // n or not 0 <= b < t.n2:
                    return False
            elif not 0 <= b < t.n2:
                return False
            w = sq[b]
            return w == ATT or (w == EMPTY and hk[b])
        nb = t.neighbours[k]
        if len(nb) < 4:
            return False      # on the edge: four sides do not exist
        for s in nb:
            w = sq[s]
            if w != ATT and not (w == EMPTY and hk[s]):
                return False
        return True

    def _king_boxed_by_three(self, k: int, defender: int) -> bool:
        """York rule 10: the king has attackers on his three sides other than `defender`'s."""
        nb = self._t.neighbours[k]
        if len(nb) < 4:
            return False
        sq = self._sq
        return all(sq[s] == ATT for s in nb if s != defender)

    def _shieldwall(self, to: int, side: int) -> list[int]:
        """Copenhagen shieldwall: the mover on `to` closes an end of an enemy row along the edge."""
        out: list[int] = []
        for d in self._t.along[to]:
            out.extend(self._closed_row(to, d, side))
        return out

    def _closed_walls(self, side: int) -> list[int]:
        """Every enemy row along any edge that `side` holds closed now (``shieldwall_flank``
        false, OpenTafl's ``swf:n``: any move that leaves a row closed captures it)."""
        t = self._t
        n = t.n
        corner = t.corner
        ends = self._bb[side] & t.edge_mask
        found: set[int] = set()
        while ends:
            low = ends & -ends
            ends ^= low
            e = low.bit_length() - 1
            for d in t.along[e]:
                found.update(self._closed_row(e, d, side))
        if self.rules.shieldwall_corners:
            for c in self.rules.corners:          # rows from corner to corner have no piece end
                if not self._sq[c]:
                    for d in (1, -1, n, -n):
                        if self._on_line(c, c + d, d, n) and t.is_edge[c + d] and not corner[c + d]:
                            found.update(self._closed_row(c, d, side))
        return sorted(found)

    def _closed_row(self, end: int, d: int, side: int) -> list[int]:
        """The enemy pieces (king left out) of a row that starts next to `end` in step `d`
        along the edge, when it is two or more long, closed at its far end by a piece of
        `side` (or an empty corner, unless shieldwall corners are off) and has a piece of
        `side` in front of each of its squares; else []."""
        t = self._t
        sq = self._sq
        n = t.n
        corner = t.corner
        enemy = 3 - side
        row = []
        s = end + d
        while self._on_line(end, s, d, n) and not corner[s] and sq[s] and SIDE_OF_CODE[sq[s]] == enemy:
            row.append(s)
            s += d
        if len(row) < 2 or not self._on_line(end, s, d, n):
            return []
        far = sq[s]
        if far:
            if SIDE_OF_CODE[far] != side:
                return []
        elif not (corner[s] and self.rules.shieldwall_corners):
            return []
        inward = t.inward[row[0]]
        if all(sq[r + inward] and SIDE_OF_CODE[sq[r + inward]] == side for r in row):
            return [r for r in row if sq[r] != KING]
        return []

    @staticmethod
    def _on_line(origin: int, s: int, d: int, n: int) -> bool:
        if d in (1, -1):
            return 0 <= s < n * n and s // n == origin // n
        return 0 <= s < n * n

    def _stops_between(self, to: int, side: int) -> bool:
        """Throw Board rule 4: does the piece on `to` stand between two enemies (or hostile squares)?"""
        t = self._t
        sq = self._sq
        hostile = t.hostile[side]
        for a, b in t.axis_pairs[to]:
            va, vb = sq[a], sq[b]
            ea = (va and SIDE_OF_CODE[va] != side) or (not va and hostile[a])
            eb = (vb and SIDE_OF_CODE[vb] != side) or (not vb and hostile[b])
            if ea and eb:
                return True
        return False

    # -------------------------------------------------------------- game end
    def _flood(self, seed: int, open_: int, stop: int = 0) -> int:
        """Squares reachable from `seed` orthogonally through `open_`; stops early on `stop`."""
        t = self._t
        n = t.n
        na, nl = t.not_file_a, t.not_file_last
        region = seed
        while True:
            grown = (region | ((region << 1) & na) | ((region >> 1) & nl)
                     | (region << n) | (region >> n)) & open_
            if grown & stop or grown == region:
                return grown
            region = grown

    def _is_encircled(self) -> bool:
        """Copenhagen / York rule 9: no defender (king included) can reach the edge.

        Checked after every attackers' move, so it must be cheap: the last
        path found from a defender to the edge is kept as a witness, and while
        no attacker stands on it and a defender still does, the answer is
        "no" without a flood fill. The witness is only a hint (not undone by
        pop); it is re-validated every time.
        """
        t = self._t
        dfd = self._bb[2]
        if not dfd or dfd & t.edge_mask:
            return False
        att = self._bb[1]
        w = self._witness
        if w and not w & att and w & dfd:
            return False
        open_ = t.full & ~att
        n = t.n
        na, nl = t.not_file_a, t.not_file_last
        layers = [dfd]
        region = dfd
        while True:
            grown = (region | ((region << 1) & na) | ((region >> 1) & nl)
                     | (region << n) | (region >> n)) & open_
            hit = grown & t.edge_mask
            if hit:
                low = hit & -hit
                cur = low.bit_length() - 1
                path = low
                nbmask = t.nbmask
                bit = t.bit
                for layer in reversed(layers):
                    if bit[cur] & layer:
                        continue
                    cand = nbmask[cur] & layer
                    low = cand & -cand
                    cur = low.bit_length() - 1
                    path |= low
                self._witness = path
                return False
            if grown == region:
                return True
            layers.append(grown)
            region = grown

    def _is_edge_fort(self) -> bool:
        """Copenhagen edge fort: king on the edge, able to move, walled in by uncapturable defenders.

        "Can never capture" is decided by a fixed point (docs/rules.md, Edge fort): begin
        with every defender as a candidate, drop each one that attackers could ever take,
        judging that with the candidates still standing and the fort's inside closed to
        attackers, and repeat until nothing drops; the fort stands if every wall piece
        survives. So a defender just outside the wall that is itself beyond capture
        protects the wall piece next to it, but a helper that can fall protects nothing.
        """
        t = self._t
        k = self._king
        kbit = t.bit[k]
        att = self._bb[1]
        dfd = self._bb[2] & ~kbit
        region = self._flood(kbit, t.full & ~(att | dfd))
        if region == kbit:
            return False          # the king cannot move
        n = t.n
        around = (((region << 1) & t.not_file_a) | ((region >> 1) & t.not_file_last)
                  | (region << n) | (region >> n)) & t.full & ~region
        if around & att:
            return False
        wall = around & dfd
        keep = self._uncapturable_defenders(region, dfd, wall)
        return not wall & ~keep

    def _uncapturable_defenders(self, region: int, dfd: int, wall: int) -> int:
        """The defenders (a subset of `dfd`) that attackers can never capture while the
        squares of `region` stay closed to them; stops early once a piece of `wall` falls.

        A square is attackable unless it is inside the fort or holds a defender still
        kept; the empty corners and the empty throne always are (they capture like an
        attacker). A kept defender falls if, on one rank or file, both neighbours are
        attackable, or if it is in a row of two or more kept pieces along the edge whose
        two ends and every front square are attackable (a shieldwall). The king, on his
        own square inside the fort, is never attackable and so ends any such row.
        """
        t = self._t
        bit = t.bit
        hostile = t.hostile[2]
        axis_pairs = t.axis_pairs
        k = self._king
        keep = dfd
        shieldwall = self.rules.shieldwall
        while True:
            closed = region | keep

            def attackable(s: int, closed: int = closed) -> bool:
                return s != k and (hostile[s] or not closed & bit[s])

            # Wall pieces first: one of them falling settles the question at once.
            fallen = 0
            for w in (keep & wall, keep & ~wall):
                while w:
                    low = w & -w
                    w ^= low
                    s = low.bit_length() - 1
                    for a, b in axis_pairs[s]:
                        if attackable(a) and attackable(b):
                            fallen |= low
                            break
                if fallen & wall:
                    return keep & ~fallen
            if not fallen and shieldwall:
                fallen = self._shieldwall_prey(keep, attackable)
            if not fallen:
                return keep
            keep &= ~fallen
            if fallen & wall:
                return keep

    def _shieldwall_prey(self, keep: int, attackable: Callable[[int], bool]) -> int:
        """The kept defenders along the edge that a shieldwall could take (see above)."""
        t = self._t
        bit = t.bit
        n = t.n
        along = t.along
        inward = t.inward
        corner = t.corner
        corners_close = self.rules.shieldwall_corners

        def closes(s: int) -> bool:       # an end attackers can close (a corner only when it counts)
            return attackable(s) and (corners_close or not corner[s])

        prey = 0
        w = keep & t.edge_mask
        while w:
            low = w & -w
            w ^= low
            s = low.bit_length() - 1
            for d in along[s]:
                if not self._on_line(s, s - d, d, n) or not closes(s - d):
                    continue          # not the start of a row in this direction, or that end is safe
                row = low
                front_open = attackable(s + inward[s])
                e = s + d
                while self._on_line(s, e, d, n) and keep & bit[e]:
                    row |= bit[e]
                    front_open = front_open and attackable(e + inward[s])
                    e += d
                if (front_open and row != low and self._on_line(s, e, d, n)
                        and closes(e)):
                    prey |= row
        return prey

    def outcome(self) -> Outcome | None:
        """How the game ended, or None while it goes on (a side without a move loses)."""
        if self._end is not None:
            return self._end
        if self.rules.no_move_loses and not self.generate_moves():
            return Outcome(SIDE_OF_SIDE_CODE[3 - self._turn], "no_moves")
        return None

    def is_game_over(self) -> bool:
        return self.outcome() is not None

    # ---------------------------------------------------------- announcements
    def escape_routes(self) -> list[int]:
        """Escape squares the king reaches in one move from here (raichi: one, tuichu: two or more)."""
        k = self._king
        if k < 0:
            return []
        t = self._t
        sq = self._sq
        blocked = t.blocked[KING][0]
        out = []
        for ray in t.rays[k]:
            for s in ray:
                if sq[s] or blocked[s]:
                    break
                if t.escape[s]:
                    out.append(s)
        return sorted(out)

    def king_capture_threats(self) -> list[Move]:
        """Attacker moves that would capture the king if the attackers were to move now."""
        if self._king < 0:
            return []
        b = self.copy()
        if b._turn != 1:
            b._turn = 1
            b._hash ^= ZOBRIST_SIDE
        b._end = None
        near = set(b._t.neighbours[b._king])
        out = []
        for m in b._pseudo_moves():
            if m.to_sq in near:
                b.push_unchecked(m)
                if b._king < 0:
                    out.append(m)
                b.pop()
        return sorted(out, key=self._t.otn.__getitem__)

    def announcements(self) -> list[Announcement]:
        """What to tell the players after the last move: captures, threats, game end."""
        out: list[Announcement] = []
        if self._stack:
            move, p, caps, _h, _e, events = self._stack[-1]
            mover = SIDE_OF_SIDE_CODE[SIDE_OF_CODE[p]]
            n = self.size
            if "shieldwall" in events:
                out.append(Announcement("shieldwall", mover, tuple(c for c, _ in caps),
                                        "shieldwall captured"))
            own_death = tuple(c for c, _ in caps if c == move.to_sq)
            taken = tuple(c for c, _ in caps if c != move.to_sq)
            if taken:
                names = ", ".join(square_name(c, n) for c in taken)
                out.append(Announcement("capture", mover, taken, f"{mover.value} capture {names}"))
            if own_death:
                out.append(Announcement("capture", mover.other, own_death,
                                        f"the piece stopped between two enemies on "
                                        f"{square_name(move.to_sq, n)} and is captured"))
            if p == KING and self.rules.stop_between_dies and self._stops_between(move.to_sq, 2):
                out.append(Announcement("resting", Side.DEFENDERS, (move.to_sq,), "Resting"))
        end = self.outcome()
        if end is not None:
            squares = (self._king,) if self._king >= 0 else ()
            if end.reason == "edge_fort":
                out.append(Announcement("edge_fort", Side.DEFENDERS, squares, "edge fort"))
            out.append(Announcement("game_end", end.winner, squares, end.describe()))
            return out
        if self.rules.raichi:
            routes = tuple(self.escape_routes())
            if len(routes) == 1:
                out.append(Announcement("raichi", Side.DEFENDERS, routes, "Raichi"))
            elif len(routes) > 1:
                out.append(Announcement("tuichu", Side.DEFENDERS, routes, "Tuichu"))
        threats = self.king_capture_threats()
        if threats:
            out.append(Announcement("king_threatened", Side.ATTACKERS,
                                    tuple(sorted({m.to_sq for m in threats})),
                                    "the king can be captured next move"))
        if self.repetitions() == 2 and self.rules.repetition not in ("draw", "ignored"):
            out.append(Announcement("repetition_warning", None, (),
                                    "this position has occurred twice"))
        return out

    # ------------------------------------------------------------------ OTN
    def position_otn(self) -> str:
        return _otn.format_position(self._sq, self.size)

    def move_to_otn(self, move: Move) -> str:
        """`e5-e8xe9`: the move with the captures it makes in this position."""
        caps = self.captures_of(move)
        return _otn.format_move(move.from_sq, move.to_sq, caps, self.size)

    def parse_move(self, text: str) -> Move:
        """A legal Move from `e5-e8` (captures written after it must match); else ValueError."""
        f, to, written = _otn.parse_move_text(text, self.size)
        move = self._t.moves[f * self._t.n2 + to] or Move(f, to)
        why = self.why_illegal(move)
        if why is not None:
            raise ValueError(f"illegal move {text.strip()}: {why}")
        if written:
            caps = set(self.captures_of(move))
            if not set(written) <= caps or not caps - {self._king} <= set(written) | {self._king}:
                actual = _otn.format_move(f, to, tuple(sorted(caps)), self.size)
                raise ValueError(f"move {text.strip()} captures differently here: {actual}")
        return move

    def resume(self) -> None:
        """Forgets the end the last move caused, so play can go on (replays of records that
        continue past a won position). The undo record keeps it: pop() restores it."""
        self._end = None


def perft(board: Board, depth: int) -> int:
    """Leaf count of the move tree; moves that end the game are leaves, not expanded."""
    if depth <= 0:
        return 1
    if board.outcome() is not None:
        return 0
    return _perft(board, depth)


def _perft(board: Board, depth: int) -> int:
    moves = board.generate_moves()
    if depth == 1:
        return len(moves)
    total = 0
    push = board.push_unchecked
    pop = board.pop
    for m in moves:
        push(m)
        if board._end is not None:
            total += 1
        else:
            sub = _perft(board, depth - 1)
            # A move that leaves the opponent without a move ends the game (no_moves).
            total += sub if sub or not board.rules.no_move_loses or board.generate_moves() else 1
        pop()
    return total
