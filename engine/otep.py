"""OpenTafl Engine Protocol (OTEP): lets OpenTafl, and its tournaments, use this engine.

The protocol (opentafl-engine-protocol.txt in jslater89/OpenTafl) is
line-based US-ASCII text over the engine's stdin/stdout. The engine says
``hello`` when it starts; OpenTafl sends ``rules <OTN rules record>``,
``side``, ``start``, then for each of our turns ``opponent-move <moves>
<position>`` (when the opponent moved), ``clock`` and ``play <side>`` (the
spec puts ``clock`` right after ``play``; OpenTafl's ExternalEngineHost sends
it just before: both orders work here); we answer ``move <from-to>`` in
simple notation, and OpenTafl confirms with ``move <position>`` or refuses
with ``error <1-4>``, then re-sends ``opponent-move`` and ``play``. Clock
times are milliseconds, a trailing ``*`` meaning "left of the current
overtime period"; overtime lengths are seconds. An analysis engine gets
``position``, ``side <side to move>``, ``clock``, ``analyze <n> <seconds>``
and answers ``analysis <n> <move|move|...> <evaluation> ...``. ``finish``
ends a game and ``goodbye`` the engine. A position record lists rank 1
first (OpenTafl's row y=0 is named ``a1``), as our own OTN does.

Rules records (opentafl-notation-spec.txt, section 3) are matched, after
filling in the spec's defaults, against the records of our own variants
(``VARIANT_RECORDS``); OpenTafl's own Copenhagen record is one of them. The
entries OTN uses for rules our variants have as options (``tfr`` repetition,
``sw`` / ``swf`` shieldwall) become those options (``HOST_OPTIONS``), read as
OpenTafl's RulesSerializer and GameState read them, so the Board referees the
game as the host does. Every other entry must be one we know and equal to
ours. A record we cannot play exactly gets ``error -1 rules not supported:
...`` (a critical error: OpenTafl ends the game rather than let us play wrong
rules); nothing is ever silently replaced by our own rule.

Design: ``OtepSession`` is pure (a line in, lines out, the search injected) so
tests can drive it without pipes; ``run_stdio`` wraps it with a reader thread
and is the only function that touches stdin/stdout. A ``play`` is searched at
once: OpenTafl sends ``clock`` before ``play`` in timed games and none at all
in untimed ones, so there is nothing to wait for (a ``clock`` already read
right after ``play``, in the spec text's order, is still taken first).
"""
from __future__ import annotations

import queue
import re
import sys
import threading
from dataclasses import dataclass
from typing import Any, Callable, Iterable, TextIO

from .levels import Level, get_level
from .timecontrol import GameClock, budget_from_clock, parse_otep_clock

# --------------------------------------------------------------------------- rules records

#: the spec's defaults (notation spec section 3, "Explanatory notes").
RULES_DEFAULTS: dict[str, str] = {
    "esc": "c", "surf": "y", "atkf": "y", "tfr": "d",
    "ka": "y", "ks": "s", "kj": "n", "nj": "c", "cj": "j",
    "cor": "default", "cen": "default", "afor": "", "dfor": "",
    "corh": "tcnkTCNK", "cenh": "tcnk", "cenhe": "tcnkTCNK", "aforh": "TCNK", "dforh": "tcnk",
    "corp": "K", "cenp": "tcnkTCNK", "aforp": "tcnkTCNK", "dforp": "TCNK",
    "cors": "K", "cens": "K", "afors": "tcnkTCNK", "dfors": "TCNK",
    "sw": "n", "swf": "y", "efe": "n", "ber": "n", "linc": "n",
    # not in the spec text but written by OpenTafl's RulesSerializer when not at
    # these defaults: speed limits (-1 = none) and who may re-enter a special space
    "spd": "-1", "corre": "tcnkTCNK", "cenre": "tcnkTCNK", "aforre": "tcnkTCNK", "dforre": "tcnkTCNK",
}
#: entries compared when matching a record to a variant (``tfr``, ``sw`` and
#: ``swf`` become rule options instead, see HOST_OPTIONS; ``name`` is a label).
COMPARED_KEYS: tuple[str, ...] = (
    "dim", "esc", "surf", "atkf", "ka", "ks", "kj", "cor", "cen", "afor", "dfor",
    "corh", "cenh", "cenhe", "aforh", "dforh", "corp", "cenp", "aforp", "dforp",
    "cors", "cens", "afors", "dfors", "corre", "cenre", "aforre", "dforre",
    "efe", "ber", "linc", "spd", "start",
)
_PIECE_TYPES = "tTK"      # the only piece kinds our variants have
_PIECE_LIST_KEYS = frozenset({
    "corh", "cenh", "cenhe", "aforh", "dforh", "corp", "cenp", "aforp", "dforp",
    "cors", "cens", "afors", "dfors", "corre", "cenre", "aforre", "dforre"})
#: piece lists that only mean something when the fort list they qualify is not empty
#: (the spec and OpenTafl's code disagree on dforp's default, which is moot without forts)
_FORT_KEYS = {"afor": ("aforh", "aforp", "afors", "aforre"),
              "dfor": ("dforh", "dforp", "dfors", "dforre")}
_KS_ALIASES = {"y": "s", "n": "w"}   # older records wrote king strength as yes/no
#: entries that need no check: jump modes of piece kinds no variant of ours has
#: (knights, commanders, mercenaries, guards; a start holding one matches no variant)
_MOOT_KEYS = frozenset({"nj", "cj", "mj", "gj"})
KNOWN_KEYS = frozenset(RULES_DEFAULTS) | {"dim", "name", "start", "starti"} | _MOOT_KEYS

#: OTN entry -> (our rules option, OTN value -> option value), as OpenTafl means them:
#: tfr (GameState.checkVictory): w = the side to move after the third occurrence wins
#: (whoever made it loses), l = the side that made it wins, d = draw, i = no result.
#: OpenTafl's RulesSerializer reads any other tfr value as d; it never writes "n", so
#: "n" is read as it reads it (a draw), any other value is refused.
#: sw: s = strong (a corner closes an end), w = weak, n = none; swf (flanking
#: required): y = only a piece moving onto the edge to close an end captures,
#: n = any move that leaves a closed row captures (OpenTafl reads every value but y as n;
#: values other than y and n are refused here).
HOST_OPTIONS: dict[str, tuple[str, dict[str, str]]] = {
    "tfr": ("repetition", {"w": "mover_loses", "l": "mover_wins", "d": "draw", "i": "ignored",
                           "n": "draw"}),
    "sw": ("shieldwall", {"s": "strong", "w": "weak", "n": "none"}),
    "swf": ("shieldwall_flank", {"y": "true", "n": "false"}),
}


def parse_rules_record(text: str) -> dict[str, str]:
    """The entries of an OTN rules record (``key:value`` separated by spaces).

    Raises ValueError when ``dim`` or ``start`` is missing or an entry has no colon.
    """
    entries: dict[str, str] = {}
    for token in text.split():
        key, sep, value = token.partition(":")
        if not sep:
            raise ValueError(f"rules entry {token!r} has no ':'")
        entries[key.strip().lower()] = value.strip()
    if "dim" not in entries:
        raise ValueError("rules record has no dim: entry")
    if "start" not in entries and "starti" not in entries:
        raise ValueError("rules record has no start: entry")
    return entries


def _normalize_position(text: str, size: int) -> str:
    """An OTN position re-written by our writer (so '11' and '5 6' compare equal); the
    parser's checks apply (ValueError), so a hostile record cannot make us allocate much."""
    from .otn import format_position, parse_position

    return format_position(parse_position(text, size), size)


def _dimension(text: str) -> int:
    from .otn import MAX_SIZE, MIN_SIZE

    if not (text.isascii() and text.isdigit() and len(text) <= 2 and MIN_SIZE <= int(text) <= MAX_SIZE):
        raise ValueError(f"dim:{text[:20]} is not a board size ({MIN_SIZE} to {MAX_SIZE})")
    return int(text)


def normalize_rules(entries: dict[str, str]) -> dict[str, Any]:
    """Entries with the spec's defaults filled in, in comparable form."""
    full = dict(RULES_DEFAULTS)
    full.update(entries)
    dim = _dimension(full["dim"])
    out: dict[str, Any] = {}
    for key in COMPARED_KEYS:
        value = full.get(key, "")
        if key == "dim":
            out[key] = dim
        elif key == "start":
            if "starti" in entries and "start" not in entries:
                # inverted record: last rank first
                rows = [r for r in entries["starti"].split("/") if r]
                value = "/" + "/".join(reversed(rows)) + "/"
            out[key] = _normalize_position(value, dim)
        elif key in ("cor", "cen", "afor", "dfor"):
            out[key] = _space_list(key, value, dim)
        elif key in _PIECE_LIST_KEYS:
            out[key] = frozenset(c for c in value if c in _PIECE_TYPES)
        elif key == "ks":
            out[key] = _KS_ALIASES.get(value, value)
        elif key == "spd":
            out[key] = value.strip(",") or "-1"
        else:
            out[key] = value
    for fort, keys in _FORT_KEYS.items():
        if not out[fort]:
            for k in keys:
                out[k] = frozenset()
    return out


def _space_list(key: str, value: str, dim: int) -> frozenset[str]:
    if value == "default":
        if key == "cor":
            last = _square(dim - 1, dim - 1)
            return frozenset({"a1", _square(dim - 1, 0), _square(0, dim - 1), last})
        if key == "cen":
            c = (dim - 1) // 2
            return frozenset({_square(c, c)})
        return frozenset()
    return frozenset(s.strip().lower() for s in value.split(",") if s.strip())


def _square(file: int, rank: int) -> str:
    return f"{'abcdefghijklmnopqrs'[file]}{rank + 1}"


#: OTN rules records of our variants. Copenhagen's is OpenTafl's own record,
#: entry for entry (its tfr:w is played as repetition=mover_loses: OTN cannot
#: write the text's "the defenders lose"). The others are the records this
#: engine writes for its variants (``tafl-engine otep`` accepts them back); rules
#: OTN cannot express (Tablut's camps, Throw Board's stop-between rule, York's
#: rules 9-10) are implied by the ``name:`` entry, which must then be present.
#: Repetition and shieldwall are always read from the record's own entries
#: (``host_options``): a Tablut record without tfr is a draw on repetition, as
#: OpenTafl referees it, not the eternity rule.
VARIANT_RECORDS: dict[str, str] = {
    "copenhagen": "dim:11 name:Copenhagen atkf:y tfr:w sw:s efe:y "
                  "start:/3ttttt3/5t5/11/t4T4t/t3TTT3t/tt1TTKTT1tt/t3TTT3t/t4T4t/11/5t5/3ttttt3/",
}
#: variants whose record needs the name (OTN cannot tell them from others by rules alone)
_NAMED_ONLY = {"york", "tablut", "tawlbwrdd"}


def variant_record(variant: str) -> str:
    """The OTN rules record this engine writes for ``variant`` (default options)."""
    if variant in VARIANT_RECORDS:
        return VARIANT_RECORDS[variant]
    from .rules import rules_for

    rules = rules_for(variant)
    parts = [f"dim:{rules.size}", f"name:{variant}"]
    if rules.escape == "edge":
        parts.append("esc:e")
    if rules.first.value == "defenders":
        parts.append("atkf:n")
    if rules.king_armed == "no":
        parts.append("ka:n")
    if rules.king_capture == "custodial":
        parts.append("ks:w")
    corners = {s for s in rules.corners}
    if not rules.nonking_blocked & corners and not rules.hostile_to_attackers & corners:
        parts.append("cor:")
    parts.append(f"start:{rules.start}")
    return " ".join(parts)


@dataclass(frozen=True)
class HostRules:
    """What a host's rules record asks for: one of our variants, with rule options."""

    variant: str
    options: tuple[tuple[str, str], ...] = ()

    @property
    def options_dict(self) -> dict[str, str]:
        return dict(self.options)

    def describe(self) -> str:
        """``copenhagen`` plus the options that differ from the variant's own rules."""
        from .rules import VARIANTS

        spec = VARIANTS[self.variant]
        changed = [f"{k}={v}" for k, v in self.options
                   if (opt := spec.option(k)) is None or opt.default != v]
        return self.variant + (f" ({' '.join(changed)})" if changed else "")


def host_options(entries: dict[str, str], variant: str) -> dict[str, str]:
    """The rules options of ``variant`` that the record's tfr / sw / swf entries ask for.

    Raises ValueError when a value is not one OpenTafl defines, or when the
    variant has no such option and the record asks for something other than
    what the variant plays.
    """
    from .rules import VARIANTS

    spec = VARIANTS[variant]
    full = dict(RULES_DEFAULTS)
    full.update(entries)
    if full["sw"] == "n":
        full.pop("swf")        # flanking means nothing without shieldwalls
    out: dict[str, str] = {}
    for key, (option, values) in HOST_OPTIONS.items():
        if key not in full:
            continue
        raw = full[key]
        if raw not in values:
            raise ValueError(f"{key}:{raw} is not a value OpenTafl defines "
                             f"(known: {', '.join(sorted(values))})")
        ospec = spec.option(option)
        wanted = values[raw]
        if ospec is None:
            if (key, raw) not in (("sw", "n"), ("swf", "y")):
                raise ValueError(f"{key}:{raw}: {variant} has no {option} rule to set")
            continue
        if wanted not in ospec.values:
            raise ValueError(f"{key}:{raw} ({option} {wanted}) is not a rule {variant} can play")
        out[option] = wanted
    return out


def match_rules(text: str) -> HostRules:
    """Our variant and options for an OTN rules record; ValueError (with the reason) when none plays it."""
    entries = parse_rules_record(text)
    unknown = sorted(set(entries) - KNOWN_KEYS)
    if unknown:
        raise ValueError(f"unknown rules entr{'y' if len(unknown) == 1 else 'ies'} "
                         f"{', '.join(unknown)}")
    name = entries.get("name", "").strip().lower()
    for key, bad in (("ber", "n"), ("kj", "n")):
        if entries.get(key, bad) != bad:
            raise ValueError(f"{key}:{entries[key]} (berserk/jumping pieces) is not supported")
    wanted = normalize_rules(entries)
    for variant in ("copenhagen", "york", "tablut", "tawlbwrdd"):
        if variant in _NAMED_ONLY and name != variant:
            continue
        if normalize_rules(parse_rules_record(variant_record(variant))) == wanted:
            options = host_options(entries, variant)
            return HostRules(variant, tuple(sorted(options.items())))
    diffs = []
    ours = normalize_rules(parse_rules_record(VARIANT_RECORDS["copenhagen"]))
    for key in COMPARED_KEYS:
        if ours[key] != wanted[key] and key != "start":
            diffs.append(key)
    hint = f" (differs from Copenhagen in {', '.join(diffs)})" if diffs else ""
    raise ValueError(f"no variant of this engine has these rules{hint}")


# --------------------------------------------------------------------------- moves

_SIMPLE = re.compile(r"^[tTkKnNcC]?([a-s][1-9][0-9]?)[-=^]+([a-s][1-9][0-9]?)")


def simple_move(text: str) -> str:
    """``a4-a1`` from any OTN move record (piece letter, captures, +/- marks dropped)."""
    m = _SIMPLE.match(text.strip())
    if not m:
        raise ValueError(f"malformed move record {text!r}")
    return f"{m.group(1).lower()}-{m.group(2).lower()}"


# --------------------------------------------------------------------------- the session

SearchFn = Callable[[Any, Level, float, int], Any]   # (board, level, seconds, seed) -> SearchResult


def default_search(board: Any, level: Level, seconds: float, seed: int) -> Any:
    from .search import search_board

    return search_board(board, level, seed=seed, time_s=seconds)


@dataclass
class OtepSettings:
    """What the command line fixes for the whole session."""

    level: str = "hard"
    think_s: float | None = None      # a fixed think time; None = the level's, bounded by the clock
    seed: int = 0


class OtepSession:
    """The protocol state machine: ``handle(line)`` returns the lines to send back."""

    def __init__(self, settings: OtepSettings | None = None, search: SearchFn = default_search) -> None:
        self.settings = settings or OtepSettings()
        self.level = get_level(self.settings.level)
        self.search = search
        self.variant: str | None = None
        self.options: dict[str, str] = {}     # the rules options the host's record asks for
        self.board: Any = None
        self.side: str | None = None
        self.clocks: tuple[GameClock, GameClock] | None = None
        self.last_sent: str | None = None
        self.finished = False
        self.done = False
        self.moves_played = 0
        self._pending: Any = None      # our last move, played once OpenTafl confirms it
        #: a ``clock`` arrived since our last ``play``: OpenTafl's own code sends it just
        #: BEFORE ``play`` (the spec text says after), so then there is nothing to wait for
        self.clock_fresh = False
        self._side_follows_position = False   # a 'side' now gives the side to move

    # -- helpers
    def greeting(self) -> list[str]:
        return ["hello"]

    def _new_board(self, position: str | None = None, turn: str | None = None) -> Any:
        from .board import Board

        if self.variant is None:
            raise ValueError("no rules yet: send rules first")
        if position is None:
            return Board(self.variant, self.options)
        return Board.from_otn(self.variant, position, turn=turn, options=self.options)

    def _positions_equal(self, a: str, b: str) -> bool:
        size = self._need_board().size
        return _normalize_position(a, size) == _normalize_position(b, size)

    # -- the commands
    def handle(self, line: str) -> list[str]:
        """One line from OpenTafl; returns the lines to send (maybe none)."""
        text = line.strip()
        if not text:
            return []
        cmd, _, rest = text.partition(" ")
        cmd = cmd.lower()
        rest = rest.strip()
        handler = getattr(self, "_cmd_" + cmd.replace("-", "_"), None)
        if handler is None:
            return [f"status ignored unknown command {cmd[:40]!r}"]
        if cmd not in ("position", "side"):
            self._side_follows_position = False
        try:
            return handler(rest)
        except ValueError as exc:
            return [f"error 0 {str(exc)[:300]}"]
        except Exception as exc:   # noqa: BLE001 - a bug must not end the engine while OpenTafl waits on it
            return [f"error 0 internal error on {cmd}: {type(exc).__name__}: {str(exc)[:200]}"]

    def _cmd_hello(self, rest: str) -> list[str]:
        return []

    def _cmd_rules(self, rest: str) -> list[str]:
        try:
            host = match_rules(rest)
        except ValueError as exc:
            self.variant = None
            self.board = None
            return [f"error -1 rules not supported: {exc}"]
        self.variant, self.options = host.variant, host.options_dict
        self.board = self._new_board()
        self.finished = False
        return [f"status playing {host.describe()}"]

    def _need_board(self) -> Any:
        if self.board is None:
            raise ValueError("no rules yet: send rules first")
        return self.board

    def _cmd_start(self, rest: str) -> list[str]:
        self._need_board()
        return []

    def _cmd_side(self, rest: str) -> list[str]:
        """Our side before the game; right after a ``position``, the side to move in it.

        OpenTafl follows every ``position`` with ``side <side to move>``
        (analysis, or the user stepping through the game); before a game
        ``side`` names the side we will play, and ``play`` names it again.
        """
        side = rest.lower()
        if side not in ("attackers", "defenders"):
            raise ValueError(f"bad side {rest!r}")
        self.side = side
        if self._side_follows_position and self.board is not None and self.board.turn.value != side:
            self.board = self._new_board(self.board.position_otn(), side)
        self._side_follows_position = False
        return []

    def _cmd_position(self, rest: str) -> list[str]:
        board = self._need_board()
        self._side_follows_position = True
        if not self._positions_equal(board.position_otn(), rest):
            turn = self.side or board.turn.value
            self.board = self._new_board(rest, turn)
        return []

    def _cmd_clock(self, rest: str) -> list[str]:
        self.clocks = parse_otep_clock(rest.split())
        self.clock_fresh = True
        return []

    def _apply(self, move_text: str) -> None:
        board = self._need_board()
        mv = board.parse_move(simple_move(move_text))
        board.push(mv)

    def _cmd_opponent_move(self, rest: str) -> list[str]:
        board = self._need_board()
        parts = rest.split()
        if not parts:
            raise ValueError("opponent-move without a move")
        moves = parts[0].split("|")
        position = parts[1] if len(parts) > 1 else None
        if position is not None and self._positions_equal(board.position_otn(), position):
            return []   # already known (OpenTafl repeats the move after an error)
        before = len(board.move_stack)
        try:
            for m in moves:
                self._apply(m)
        except ValueError:
            while len(board.move_stack) > before:
                board.pop()
        if position is not None and not self._positions_equal(self.board.position_otn(), position):
            # out of step: trust OpenTafl's position (the repetition history is lost);
            # the side to move is the one whose piece did not just arrive
            turn = self._turn_after(moves[-1], position)
            self.board = self._new_board(position, turn)
            return ["status resynchronised the position from OpenTafl"]
        return []

    def _turn_after(self, move_text: str, position: str) -> str:
        from .otn import parse_position
        from .types import ATT, parse_square

        size = self._need_board().size
        try:
            to = parse_square(simple_move(move_text).split("-")[1], size)
            mover_attacker = parse_position(position, size)[to] == ATT
        except (ValueError, IndexError):
            return self.side or self.board.turn.value
        return "defenders" if mover_attacker else "attackers"

    def _cmd_play(self, rest: str) -> list[str]:
        """Answer with ``move <from-to>``: always, since OpenTafl waits for it with our clock running.

        When our board says the game is already over (after a resynchronised
        position lost the history, or where our edge-fort reading and the
        host's differ) OpenTafl still wants a
        move, so we search the same position without its history; only a
        position with no move at all gets a critical error (OpenTafl then
        resigns for us) instead of a silence that would hang the game.
        """
        board = self._need_board()
        side = rest.strip().lower() or (self.side or board.turn.value)
        if side not in ("attackers", "defenders"):
            raise ValueError(f"bad side {rest!r}")
        self.clock_fresh = False
        if board.turn.value != side:
            self.board = board = self._new_board(board.position_otn(), side)
        target = board
        if board.outcome() is not None:
            target = self._new_board(board.position_otn(), side)
            if not target.generate_moves():
                return [f"error -1 no legal move for the {side} in this position"]
        seconds = self._budget(side)
        notes: list[str] = []
        try:
            result = self.search(target, self.level, seconds, self.settings.seed + self.moves_played)
            if result.move is None:
                raise RuntimeError("the search returned no move")
            move, move_text = result.move, result.move_text
            notes.append(f"status depth {result.depth} score {result.score} nodes {result.nodes} "
                         f"time {result.elapsed_s:.2f}s")
        except Exception as exc:   # noqa: BLE001 - a search failure must not leave OpenTafl waiting
            move = target.legal_moves[0] if target.legal_moves else target.generate_moves()[0]
            move_text = target.move_to_otn(move)
            notes.append(f"status search failed ({type(exc).__name__}: {exc}); playing {move_text}")
        self.moves_played += 1
        self.last_sent = move_text
        self.board = target            # the history-less board when ours thought the game over
        self._pending = move
        return notes + [f"move {simple_move(move_text)}"]

    def _budget(self, side: str) -> float:
        cap = self.settings.think_s if self.settings.think_s is not None else self.level.time_s
        if self.clocks is None:
            return cap
        clock = self.clocks[0] if side == "attackers" else self.clocks[1]
        if clock.main_s < 0 and clock.overtime_s <= 0:
            return cap
        return budget_from_clock(clock, cap_s=cap)

    def _cmd_move(self, rest: str) -> list[str]:
        """OpenTafl accepted our move; ``rest`` is the position after it."""
        board = self._need_board()
        if self._pending is not None:
            board.push(self._pending)
            self._pending = None
        if rest and not self._positions_equal(board.position_otn(), rest):
            turn = board.turn.value
            self.board = self._new_board(rest, turn)
            return ["status resynchronised the position from OpenTafl"]
        return []

    def _cmd_error(self, rest: str) -> list[str]:
        self._pending = None   # our move was refused; OpenTafl re-sends opponent-move and play
        return [f"status OpenTafl refused {self.last_sent}: error {rest}"]

    def _cmd_analyze(self, rest: str) -> list[str]:
        """``analyze <number> <seconds>`` -> ``analysis 1 <move|move|...> <evaluation>``.

        OpenTafl sends ``position`` and then ``side`` (the side to move) before
        ``analyze``; ``_cmd_side`` applies that side to the position. We
        return one line (the spec allows fewer than ``number``), finish well
        inside ``seconds``, and write the evaluation as a plain integer
        (OpenTafl reads it with Double.parseDouble), from the side to move's view.
        """
        board = self._need_board()
        parts = rest.split()
        try:
            seconds = float(parts[1]) if len(parts) > 1 else self.level.time_s
        except ValueError:
            raise ValueError(f"bad analyze time {parts[1]!r}") from None
        seconds = max(0.05, min(0.9 * seconds, self.settings.think_s or seconds))
        if board.outcome() is not None:
            return ["analysis 0"]
        result = self.search(board, self.level, seconds, self.settings.seed)
        if result.move is None or not result.move_text:
            return ["analysis 0"]
        pv = "|".join(simple_move(m) for m in (result.pv or [result.move_text]))
        return [f"analysis 1 {pv} {int(result.score)}"]

    def _cmd_finish(self, rest: str) -> list[str]:
        self.finished = True
        return []

    def _cmd_goodbye(self, rest: str) -> list[str]:
        self.done = True
        return []

    # simple-moves and status go from the engine to OpenTafl only.


# --------------------------------------------------------------------------- stdio

def _ascii(text: str) -> str:
    """OpenTafl reads our output as US-ASCII (protocol preamble): replace anything else."""
    return text.encode("ascii", "replace").decode("ascii")


def run_stdio(settings: OtepSettings, stdin: TextIO | None = None, stdout: TextIO | None = None,
              search: SearchFn = default_search) -> int:
    """Speak OTEP on stdin/stdout until ``goodbye`` or end of input.

    Only protocol lines go to stdout, one per ``\n``, flushed at once; nothing
    is ever logged there. A ``play`` is answered at once, with no wait for a
    ``clock`` (OpenTafl sends its clock before ``play``, and none in untimed
    games); a ``clock`` line that has already arrived right after ``play`` (the
    spec text's order) is taken first, without waiting for one.
    """
    inp = stdin if stdin is not None else sys.stdin
    out = stdout if stdout is not None else sys.stdout
    lines: "queue.Queue[str | None]" = queue.Queue()

    def reader() -> None:
        for raw in inp:
            lines.put(raw)
        lines.put(None)

    session = OtepSession(settings, search)

    def send(msgs: Iterable[str]) -> None:
        for m in msgs:
            out.write(_ascii(m.replace("\n", " ").replace("\r", " ")) + "\n")
        out.flush()

    send(session.greeting())
    threading.Thread(target=reader, name="otep-reader", daemon=True).start()
    if search is default_search:
        from . import search as _warm  # noqa: F401  (import now, not on our first play)
    held: "list[str | None]" = []         # a line read ahead after a play, handled next
    while not session.done:
        raw = held.pop() if held else lines.get()
        if raw is None:
            break
        if raw.strip().lower().startswith("play") and not session.clock_fresh:
            try:
                nxt = lines.get_nowait()          # never waits: only what is already here
            except queue.Empty:
                nxt = ""
            if nxt is not None and nxt.strip().lower().startswith("clock"):
                send(session.handle(nxt))
            elif nxt != "":
                held.append(nxt)
        send(session.handle(raw))
    return 0
