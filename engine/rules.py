"""Rules as data: one `Rules` record per variant and options, read by the one move generator.

Every rule the four texts state, and every decision taken where they are
ambiguous (docs/rules.md), is a field here. `board.py` never asks "is this
Copenhagen?"; it asks "is the king armed?", "is this square hostile to an
attacker?". That keeps the variants honest: two variants that differ in a
rule differ in a field, and a test can flip that field.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache

from .otn import build_position
from .types import FILES, Side, parse_square


@dataclass(frozen=True)
class OptionSpec:
    """One `--option KEY=VALUE`: its allowed values (first is the default) and what it means."""

    key: str
    values: tuple[str, ...]
    help: str

    @property
    def default(self) -> str:
        return self.values[0]


@dataclass(frozen=True)
class VariantSpec:
    """A named rule set: board size, who starts, its source text and its options."""

    name: str
    title: str
    size: int
    source: str
    options: tuple[OptionSpec, ...] = ()

    def option(self, key: str) -> OptionSpec | None:
        for spec in self.options:
            if spec.key == key:
                return spec
        return None


_BOOL = ("false", "true")

#: What a third occurrence of a position does. The first value of each variant's
#: option is its own rule (docs/rules.md); the others exist so that a host's
#: rules record (OpenTafl's ``tfr``) can be played as the host referees it.
REPETITION_RULES = ("defenders_lose", "forbidden", "draw", "mover_loses", "mover_wins", "ignored")


def _repetition_option(own: str) -> OptionSpec:
    others = tuple(v for v in REPETITION_RULES if v not in (own, "defenders_lose", "forbidden"))
    return OptionSpec("repetition", (own,) + others,
                      "third occurrence of a position: the variant's own rule first; for hosts' "
                      "records (OpenTafl tfr): draw (d), mover_loses (w: the side that repeats "
                      "loses), mover_wins (l), ignored (i)")


#: Copenhagen's shieldwall as the user's text has it (first values), and as OpenTafl's
#: ``sw`` / ``swf`` entries can ask for it.
_SHIELDWALL_OPTIONS = (
    OptionSpec("shieldwall", ("strong", "weak", "none"),
               "strong: a corner may close an end of the row (the text); weak: only pieces "
               "close it (OpenTafl sw:w); none: no shieldwall (sw:n)"),
    OptionSpec("shieldwall_flank", ("true", "false"),
               "true: only the move that closes an end captures (the text; OpenTafl swf:y); "
               "false: any move that leaves a closed row captures (swf:n)"),
)

VARIANTS: dict[str, VariantSpec] = {
    "copenhagen": VariantSpec(
        "copenhagen", "Copenhagen hnefatafl 11x11", 11, "docs/rule-texts/copenhagen.txt",
        (_repetition_option("defenders_lose"),) + _SHIELDWALL_OPTIONS),
    "york": VariantSpec(
        "york", "Hnefatafl after David Brown (York 1980), 11x11", 11,
        "docs/rule-texts/york-brown.txt",
        (
            OptionSpec("king_armed", ("no", "yes", "hammer"),
                       "option a: the king takes part in captures (hammer: only as the moving piece)"),
            OptionSpec("corner_escape", _BOOL,
                       "option b: the king wins only on a corner; corners closed to others, "
                       "hostile to attackers"),
            _repetition_option("draw"),
        )),
    "tablut": VariantSpec(
        "tablut", "Tablut (Linnaeus, reconstructed), 9x9", 9, "docs/rule-texts/tablut.txt",
        (_repetition_option("forbidden"),)),
    "tawlbwrdd": VariantSpec(
        "tawlbwrdd", "Throw Board (tawlbwrdd), 11x11", 11, "docs/rule-texts/throw-board.txt",
        (
            OptionSpec("throne_restricted", _BOOL, "variation 1: only the king may stop on the throne"),
            OptionSpec("corners_king_only", _BOOL, "variation 2: only the king may enter a corner"),
            OptionSpec("corners_hostile", _BOOL, "variation 3: a corner captures like an enemy piece"),
            OptionSpec("king_four_sided", _BOOL,
                       "variation 4: the king is captured on four sides (or three and the throne)"),
            OptionSpec("corner_escape", _BOOL, "variation 5: the king wins only on a corner"),
            OptionSpec("layout", ("bell", "lewis"),
                       "start layout: bell (OpenTafl's Tawlbwrdd record) or lewis (the cross)"),
            _repetition_option("draw"),
        )),
}

_TRUE_WORDS = {"true": "true", "yes": "true", "1": "true", "on": "true",
               "false": "false", "no": "false", "0": "false", "off": "false"}


def normalize_options(variant: str, options: Mapping[str, object] | None) -> dict[str, str]:
    """Check `options` against the variant's specs; returns every option with its value.

    Raises ValueError with one line naming the unknown variant, key or value.
    """
    if variant not in VARIANTS:
        raise ValueError(f"unknown variant {variant!r} (known: {', '.join(VARIANTS)})")
    spec = VARIANTS[variant]
    out = {o.key: o.default for o in spec.options}
    for key, raw in (options or {}).items():
        ospec = spec.option(key)
        if ospec is None:
            known = ", ".join(o.key for o in spec.options) or "none"
            raise ValueError(f"unknown option {key!r} for variant {variant} (known: {known})")
        if isinstance(raw, bool):
            value = "true" if raw else "false"
        else:
            value = str(raw).strip().lower()
        if ospec.values == _BOOL:
            value = _TRUE_WORDS.get(value, value)
        if value not in ospec.values:
            raise ValueError(f"bad value {raw!r} for option {key} of {variant} "
                             f"(allowed: {', '.join(ospec.values)})")
        out[key] = value
    return out


@dataclass(frozen=True)
class Rules:
    """Everything the move generator, capture code and game-end code need to know.

    Square sets are frozensets of square indices (`rank * size + file`).
    "Hostile" sets list squares that, while EMPTY, count as an enemy piece
    when capturing a piece of the named kind; an occupied square always
    counts as its occupant.
    """

    variant: str
    options: tuple[tuple[str, str], ...]
    size: int
    first: Side
    start: str                                   # OTN position, first rank first
    throne: int | None
    corners: frozenset[int]
    camps: tuple[frozenset[int], ...] = ()       # Tablut: off limits except to a muscovite on its own camp
    nonking_no_stop: frozenset[int] = frozenset()  # may pass over (when empty), never stop
    nonking_blocked: frozenset[int] = frozenset()  # may neither stop on nor pass
    king_blocked: frozenset[int] = frozenset()
    escape: str = "corner"                       # "corner" | "edge"
    king_armed: str = "yes"                      # "yes" | "no" | "hammer" (only as the moving piece)
    hostile_to_attackers: frozenset[int] = frozenset()
    hostile_to_defenders: frozenset[int] = frozenset()
    king_capture: str = "four"                   # "four" (every on-board side) | "custodial"
    hostile_to_king: frozenset[int] = frozenset()
    king_sandwich: bool = False                  # York rule 10
    shieldwall: bool = False
    shieldwall_corners: bool = True              # an empty corner closes an end of the row
    shieldwall_flank_only: bool = True           # only a move closing an end captures
    edge_fort: bool = False
    encirclement: bool = False                   # Copenhagen; York rule 9
    repetition: str = "draw"                     # one of REPETITION_RULES
    stop_between_dies: bool = False              # Throw Board rule 4 (the king may rest, rule 5)
    no_move_loses: bool = True
    raichi: bool = True                          # announce free paths to an escape square

    @property
    def options_dict(self) -> dict[str, str]:
        return dict(self.options)

    @property
    def escape_squares(self) -> frozenset[int]:
        if self.escape == "corner":
            return self.corners
        n = self.size
        edge = {sq for sq in range(n * n) if sq // n in (0, n - 1) or sq % n in (0, n - 1)}
        blocked = set(self.king_blocked).union(*self.camps) if self.camps else set(self.king_blocked)
        return frozenset(edge - blocked)


def _squares(size: int, names: str) -> frozenset[int]:
    return frozenset(parse_square(n, size) for n in names.split())


def _otn_from(size: int, attackers: str, defenders: str, king: str) -> str:
    return build_position(size, attackers, defenders, king)


# The usual 11x11 layout: T-shaped attacker groups at each edge, the defenders' diamond.
_HNEFATAFL_ATTACKERS = ("d1 e1 f1 g1 h1 f2 a4 a5 a6 a7 a8 b6 k4 k5 k6 k7 k8 j6 "
                        "d11 e11 f11 g11 h11 f10")
_HNEFATAFL_DEFENDERS = "f4 e5 f5 g5 d6 e6 g6 h6 e7 f7 g7 f8"
HNEFATAFL_START = _otn_from(11, _HNEFATAFL_ATTACKERS, _HNEFATAFL_DEFENDERS, "f6")

_TABLUT_CAMPS = ("d1 e1 f1 e2", "a4 a5 a6 b5", "i4 i5 i6 h5", "d9 e9 f9 e8")
TABLUT_START = _otn_from(9, " ".join(_TABLUT_CAMPS), "e3 e4 e6 e7 c5 d5 f5 g5", "e5")

# Bell's layout as OpenTafl records its Tawlbwrdd 11x11; the Lewis cross as cyningstan.com gives it.
TAWLBWRDD_LAYOUTS = {
    "bell": _otn_from(
        11,
        "e1 f1 g1 e2 g2 f3 a5 a6 a7 b5 b7 c6 k5 k6 k7 j5 j7 i6 e11 f11 g11 e10 g10 f9",
        "e5 f5 g5 e6 g6 e7 f7 g7 f4 d6 h6 f8", "f6"),
    "lewis": _otn_from(
        11,
        "e1 f1 g1 e2 f2 g2 a5 a6 a7 b5 b6 b7 k5 k6 k7 j5 j6 j7 e11 f11 g11 e10 f10 g10",
        "f3 f4 f5 f7 f8 f9 c6 d6 e6 g6 h6 i6", "f6"),
}


@lru_cache(maxsize=64)
def _build(variant: str, options: tuple[tuple[str, str], ...]) -> Rules:
    opt = dict(options)
    if variant == "copenhagen":
        n = 11
        throne, corners = parse_square("f6", n), _squares(n, "a1 k1 a11 k11")
        special = corners | {throne}
        return Rules(
            variant, options, n, Side.ATTACKERS, HNEFATAFL_START, throne, corners,
            nonking_no_stop=special, escape="corner", king_armed="yes",
            hostile_to_attackers=special, hostile_to_defenders=special,
            king_capture="four", hostile_to_king=frozenset({throne}),
            shieldwall=opt["shieldwall"] != "none", shieldwall_corners=opt["shieldwall"] == "strong",
            shieldwall_flank_only=opt["shieldwall_flank"] == "true",
            edge_fort=True, encirclement=True, repetition=opt["repetition"])
    if variant == "york":
        n = 11
        centre, corners = parse_square("f6", n), _squares(n, "a1 k1 a11 k11")
        corner_escape = opt["corner_escape"] == "true"
        return Rules(
            variant, options, n, Side.ATTACKERS, HNEFATAFL_START, centre, corners,
            nonking_no_stop=frozenset({centre}),
            nonking_blocked=corners if corner_escape else frozenset(),
            escape="corner" if corner_escape else "edge",
            king_armed=opt["king_armed"],
            hostile_to_attackers=corners if corner_escape else frozenset(),
            king_capture="four", hostile_to_king=frozenset({centre}),
            king_sandwich=True, encirclement=True, repetition=opt["repetition"])
    if variant == "tablut":
        n = 9
        castle = parse_square("e5", n)
        camps = tuple(_squares(n, c) for c in _TABLUT_CAMPS)
        all_camps = frozenset().union(*camps)
        return Rules(
            variant, options, n, Side.DEFENDERS, TABLUT_START, castle,
            _squares(n, "a1 i1 a9 i9"), camps=camps,
            nonking_blocked=frozenset({castle}), king_blocked=frozenset({castle}),
            escape="edge", king_armed="yes",
            king_capture="four", hostile_to_king=all_camps | {castle},
            repetition=opt["repetition"])
    if variant == "tawlbwrdd":
        n = 11
        throne, corners = parse_square("f6", n), _squares(n, "a1 k1 a11 k11")
        hostile_corners = corners if opt["corners_hostile"] == "true" else frozenset()
        four = opt["king_four_sided"] == "true"
        return Rules(
            variant, options, n, Side.DEFENDERS, TAWLBWRDD_LAYOUTS[opt["layout"]], throne, corners,
            nonking_no_stop=frozenset({throne}) if opt["throne_restricted"] == "true" else frozenset(),
            nonking_blocked=corners if opt["corners_king_only"] == "true" else frozenset(),
            escape="corner" if opt["corner_escape"] == "true" else "edge",
            king_armed="yes",
            hostile_to_attackers=hostile_corners, hostile_to_defenders=hostile_corners,
            king_capture="four" if four else "custodial",
            hostile_to_king=frozenset({throne}) if four else hostile_corners,
            stop_between_dies=True, repetition=opt["repetition"])
    raise ValueError(f"unknown variant {variant!r} (known: {', '.join(VARIANTS)})")


def rules_for(variant: str, options: Mapping[str, object] | None = None) -> Rules:
    """The Rules record of `variant` with `options` (validated; unknown ones raise ValueError)."""
    norm = normalize_options(variant, options)
    return _build(variant, tuple(sorted(norm.items())))


__all__ = ["Rules", "VARIANTS", "REPETITION_RULES", "VariantSpec", "OptionSpec", "rules_for", "normalize_options",
           "HNEFATAFL_START", "TABLUT_START", "TAWLBWRDD_LAYOUTS", "FILES"]
