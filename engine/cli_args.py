"""The arguments every ``tafl-engine`` command reads the same way: plain ASCII numbers and the board.

The rules commands (engine/cli.py), the search commands (engine/cli_search.py)
and the teaching commands (engine/cli_explain.py) all take --variant,
--option K=V, --position OTN and --turn SIDE and turn them into a Board here,
so the three halves of the command line read positions one way.
"""
from __future__ import annotations

import argparse

from .board import Board
from .rules import VARIANTS
from .types import Side


def ascii_int(text: str) -> int:
    """An argparse type: a plain ASCII integer (`12`, `-3`); not `١٢`, `1_0`, ` 12`, `+12`, 5000 digits."""
    body = text[1:] if text.startswith("-") else text
    if not body or len(body) > 18 or not body.isascii() or not body.isdigit():
        raise argparse.ArgumentTypeError(f"bad integer {text[:30]!r}")
    return int(text)


def ascii_float(text: str) -> float:
    """An argparse type: a finite ASCII decimal number (`0.5`, `2`, `1e-3`); not nan, inf, `٣`."""
    if not text or len(text) > 40 or not text.isascii() or "_" in text or text != text.strip():
        raise argparse.ArgumentTypeError(f"bad number {text[:30]!r}")
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"bad number {text[:30]!r}") from None
    if value != value or value in (float("inf"), float("-inf")):
        raise argparse.ArgumentTypeError(f"bad number {text!r} (must be finite)")
    return value


def option_pair(text: str) -> tuple[str, str]:
    """An argparse type: ``KEY=VALUE`` of --option, both sides stripped."""
    key, sep, value = text.partition("=")
    if not sep or not key.strip():
        raise argparse.ArgumentTypeError(f"bad --option {text!r} (expected KEY=VALUE)")
    return key.strip(), value.strip()


def add_board_arguments(parser: argparse.ArgumentParser, *, position: bool = True) -> None:
    """--variant, --option K=V (repeatable), and optionally --position OTN / --turn SIDE."""
    parser.add_argument("--variant", required=True, help=f"one of: {', '.join(VARIANTS)}")
    parser.add_argument("--option", action="append", default=[], type=option_pair,
                        metavar="KEY=VALUE", help="a rules option of the variant (repeatable)")
    if position:
        parser.add_argument("--position", help="OTN position, first rank first "
                                               "(default: the variant's start)")
        parser.add_argument("--turn", choices=[s.value for s in Side],
                            help="side to move (default: who starts the variant)")


def options_from_args(args: argparse.Namespace) -> dict[str, str]:
    """The --option pairs as a dict; ValueError if a key is given twice."""
    options: dict[str, str] = {}
    for key, value in getattr(args, "option", []) or []:
        if key in options:
            raise ValueError(f"option {key} given twice")
        options[key] = value
    return options


def board_from_args(args: argparse.Namespace) -> Board:
    """The Board that --variant/--option/--position/--turn describe; ValueError (one line) if bad."""
    return Board(args.variant, options_from_args(args),
                 position=getattr(args, "position", None), turn=getattr(args, "turn", None))
