"""The teaching commands of ``tafl-engine``: ``explain`` and ``hint`` (engine/reasons.py).

``engine.cli.build_parser`` calls ``add_commands(subparsers)``; the board
arguments and their parsing are engine/cli_args.py's (``add_board_arguments`` /
``board_from_args``), so every command reads positions the same way.

    tafl-engine explain --variant V [--option K=V ...] --position OTN --turn T --move M --json
        prints {"move": M, "reasons": [{"code": C, "squares": ["e5", ...]}, ...]} (M as given)
    tafl-engine hint --variant V [--option K=V ...] --position OTN --turn T [--level L] --json
        prints the same for the best move of the side to move at level L (default medium),
        the move in OTN with its captures ("c5-c1xd1xe1") as `bestmove` writes it

Without --json both print the move, then one line per reason ("captures e5 e7").
Bad input (position, option, move, level, a game already over): one line on
stderr, exit 2.
"""
from __future__ import annotations

import argparse
import json

from .cli_args import add_board_arguments, board_from_args
from .levels import LEVEL_NAMES
from .reasons import Explained, explain_text, hint


def add_commands(subparsers: "argparse._SubParsersAction") -> None:
    """Registers ``explain`` and ``hint`` on the ``tafl-engine`` subparsers."""
    p = subparsers.add_parser("explain", help="why a move is good: reason codes with squares")
    add_board_arguments(p)
    p.add_argument("--move", required=True, help="the move in OTN, e.g. e5-e8")
    p.add_argument("--json", action="store_true", help='{"move": ..., "reasons": [...]}')
    p.set_defaults(func=_cmd_explain)

    p = subparsers.add_parser("hint", help="the best move for the side to move, with its reasons")
    add_board_arguments(p)
    p.add_argument("--level", default="medium", choices=LEVEL_NAMES)
    p.add_argument("--seed", type=int, default=0, help=argparse.SUPPRESS)
    p.add_argument("--json", action="store_true", help='{"move": ..., "reasons": [...]}')
    p.set_defaults(func=_cmd_hint)


def _print(result: Explained, size: int, as_json: bool) -> None:
    if as_json:
        print(json.dumps(result.to_json(size)))
        return
    print(result.move)
    for reason in result.to_json(size)["reasons"]:
        print(" ".join([reason["code"], *reason["squares"]]))


def _cmd_explain(args: argparse.Namespace) -> int:
    board = board_from_args(args)
    result = explain_text(board, args.move)
    # The move is echoed as given (M in, M out); hint writes its own with the captures, as bestmove does.
    _print(Explained(args.move.strip(), result.reasons), board.size, args.json)
    return 0


def _cmd_hint(args: argparse.Namespace) -> int:
    board = board_from_args(args)
    _print(hint(board, args.level, seed=args.seed), board.size, args.json)
    return 0
