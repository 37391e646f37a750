"""`tafl-engine` (also `python -m engine`): the engine's command line, a contract other tools use.

    tafl-engine variants
    tafl-engine moves  --variant V [--option K=V ...] [--position OTN] [--turn T] [--json]
    tafl-engine perft  --variant V --depth N [--option K=V ...] [--position OTN] [--turn T]
    tafl-engine replay --variant V [--option K=V ...] [--continue-past-end] FILE|-
    tafl-engine explain / hint ...   why a move is good, the best move with why (engine/cli_explain.py)

Exit codes: 0 fine; 1 an illegal move in a replay (the message names the ply
and why); 2 bad input (position string, option, malformed move, usage), always
as ONE line on stderr. The search commands (`bestmove`, `otep`) are added by
`engine.cli_search.add_commands`, which reuses `add_board_arguments` and
`board_from_args` from here.
"""
from __future__ import annotations

import argparse
import json
import sys
from typing import Sequence

from . import cli_explain, cli_search
from .board import Board, perft
from .replay import ReplayError, replay, summary_lines, tokenize
from .rules import VARIANTS
from .types import Side, square_name

EXIT_ILLEGAL = 1
EXIT_BAD_INPUT = 2


class UsageError(Exception):
    """Bad command-line input: reported as one line, exit code 2."""


class _Parser(argparse.ArgumentParser):
    """argparse, but errors are one line (no usage dump) and exit with code 2."""

    def error(self, message: str) -> None:  # type: ignore[override]
        raise UsageError(message)


def _option_pair(text: str) -> tuple[str, str]:
    key, sep, value = text.partition("=")
    if not sep or not key.strip():
        raise argparse.ArgumentTypeError(f"bad --option {text!r} (expected KEY=VALUE)")
    return key.strip(), value.strip()


def add_board_arguments(parser: argparse.ArgumentParser, *, position: bool = True) -> None:
    """--variant, --option K=V (repeatable), and optionally --position OTN / --turn SIDE."""
    parser.add_argument("--variant", required=True, help=f"one of: {', '.join(VARIANTS)}")
    parser.add_argument("--option", action="append", default=[], type=_option_pair,
                        metavar="KEY=VALUE", help="a rules option of the variant (repeatable)")
    if position:
        parser.add_argument("--position", help="OTN position, first rank first "
                                               "(default: the variant's start)")
        parser.add_argument("--turn", choices=[s.value for s in Side],
                            help="side to move (default: who starts the variant)")


def options_from_args(args: argparse.Namespace) -> dict[str, str]:
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


# ----------------------------------------------------------------- commands
def _cmd_variants(args: argparse.Namespace) -> int:
    for name, spec in VARIANTS.items():
        if args.verbose:
            opts = "; ".join(f"{o.key}={'|'.join(o.values)}" for o in spec.options) or "no options"
            print(f"{name}\t{spec.size}x{spec.size}\t{spec.title}\t{opts}")
        else:
            print(name)
    return 0


def move_records(board: Board) -> list[dict]:
    """`moves --json` rows: every legal move, its captured squares and the winner if it ends the game."""
    rows = []
    n = board.size
    for move in board.legal_moves:
        caps = board.push(move)
        end = board.outcome()
        board.pop()
        rows.append({
            "move": move.otn(n),
            "captures": [square_name(c, n) for c in sorted(caps)],
            "result": end.winner.value if end is not None and end.winner is not None else None,
        })
    return rows


def _cmd_moves(args: argparse.Namespace) -> int:
    board = board_from_args(args)
    rows = move_records(board)
    if args.json:
        print(json.dumps(rows))
    else:
        for r in rows:
            text = r["move"] + "".join("x" + c for c in r["captures"])
            print(text + (f"  ({r['result']} win)" if r["result"] else ""))
    return 0


def _cmd_perft(args: argparse.Namespace) -> int:
    board = board_from_args(args)
    if args.depth < 0:
        raise ValueError(f"bad depth {args.depth} (must be 0 or more)")
    if args.divide and args.depth >= 1:
        total = 0
        for move in board.legal_moves:
            board.push(move)
            count = 1 if board.game_end is not None else perft(board, args.depth - 1)
            if board.game_end is None and args.depth > 1 and count == 0:
                count = 1      # the move leaves the opponent without a move: it ends the game
            board.pop()
            total += count
            print(f"{move.otn(board.size)} {count}")
        print(total)
        return 0
    print(perft(board, args.depth))
    return 0


def _cmd_replay(args: argparse.Namespace) -> int:
    if args.file == "-":
        text = sys.stdin.read()
    else:
        try:
            with open(args.file, encoding="utf-8") as fh:
                text = fh.read()
        except OSError as exc:
            raise ValueError(f"cannot read {args.file}: {exc.strerror}") from None
    options = options_from_args(args)
    try:
        result = replay(args.variant, tokenize(text), options, position=args.position,
                        turn=args.turn, continue_past_end=args.continue_past_end)
    except ReplayError as exc:
        print(f"tafl-engine: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT if exc.malformed else EXIT_ILLEGAL
    for line in summary_lines(result):
        print(line)
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="tafl-engine", description="The tafl engine: rules, notation, perft, replays and (bestmove, otep) the search.")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    p = sub.add_parser("variants", help="list the variant names")
    p.add_argument("--verbose", "-v", action="store_true", help="also size, title and options")
    p.set_defaults(func=_cmd_variants)

    p = sub.add_parser("moves", help="the legal moves of a position")
    add_board_arguments(p)
    p.add_argument("--json", action="store_true", help="a JSON array of {move, captures, result}")
    p.set_defaults(func=_cmd_moves)

    p = sub.add_parser("perft", help="count the leaves of the move tree")
    add_board_arguments(p)
    p.add_argument("--depth", type=int, required=True)
    p.add_argument("--divide", action="store_true", help="also the count below each root move")
    p.set_defaults(func=_cmd_perft)

    p = sub.add_parser("replay", help="check a game written in OTN moves")
    add_board_arguments(p)
    p.add_argument("--continue-past-end", action="store_true",
                   help="play on after the game is over (counts the moves after the end)")
    p.add_argument("file", help="game file, or - for stdin")
    p.set_defaults(func=_cmd_replay)

    cli_search.add_commands(sub)
    cli_explain.add_commands(sub)      # explain, hint (engine/reasons.py)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    try:
        args = build_parser().parse_args(argv)
        return int(args.func(args) or 0)
    except UsageError as exc:
        print(f"tafl-engine: error: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except ValueError as exc:
        print(f"tafl-engine: error: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    sys.exit(main())
