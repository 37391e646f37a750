"""The search commands of ``tafl-engine``: ``bestmove`` and ``otep``.

``engine.cli.build_parser`` calls ``add_commands(subparsers)``; the board
arguments (--variant, --option, --position, --turn) and their parsing are the
rules CLI's (``engine.cli.add_board_arguments`` / ``board_from_args``), so both
halves of the command line read positions the same way.

    tafl-engine bestmove --variant V [--option K=V ...] [--position OTN --turn T]
                         [--moves "e1-e3 f4-f2 ..."] --level easy|medium|hard
                         [--time SECONDS] [--seed N] [--nodes N]
        prints one ``info`` line (depth, score, nodes, time, principal variation)
        and then the chosen move in OTN (with its captures) as the LAST line.

    tafl-engine otep [--level hard] [--time SECONDS] [--seed N]
        speaks the OpenTafl Engine Protocol on stdin/stdout (engine/otep.py).
"""
from __future__ import annotations

import argparse
import sys
from dataclasses import replace

from .levels import LEVEL_NAMES, get_level


#: the longest think a command line may ask for (a museum's slowest level is seconds)
MAX_THINK_S = 600.0


def _think_seconds(text: str) -> float:
    from .cli import ascii_float

    value = ascii_float(text)
    if not 0 < value <= MAX_THINK_S:
        raise argparse.ArgumentTypeError(f"must be more than 0 and at most {MAX_THINK_S:g} s, got {text}")
    return value


def _non_negative_int(text: str) -> int:
    from .cli import ascii_int

    value = ascii_int(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be 0 or more, got {text}")
    return value


def add_commands(subparsers: "argparse._SubParsersAction") -> None:
    """Registers ``bestmove`` and ``otep`` on the ``tafl-engine`` subparsers."""
    from .cli import add_board_arguments, ascii_int

    p = subparsers.add_parser("bestmove", help="the engine's move for a position (last line)")
    add_board_arguments(p)
    p.add_argument("--moves", default="",
                   help="moves already played from --position (or the start), space separated; "
                        "they give the repetition history")
    p.add_argument("--level", default="medium", choices=LEVEL_NAMES)
    p.add_argument("--time", type=_think_seconds, default=None,
                   help="seconds to think (default: the level's time)")
    p.add_argument("--seed", type=ascii_int, default=0, help="seed of the level's randomness")
    p.add_argument("--nodes", type=_non_negative_int, default=None,
                   help="stop after this many nodes (reproducible; 0 = no cap)")
    p.set_defaults(func=_cmd_bestmove)

    p = subparsers.add_parser("otep", help="speak the OpenTafl Engine Protocol on stdin/stdout")
    p.add_argument("--level", default="hard", choices=LEVEL_NAMES)
    p.add_argument("--time", type=_think_seconds, default=None,
                   help="seconds per move at most (default: the level's; a game clock can lower it)")
    p.add_argument("--seed", type=ascii_int, default=0)
    p.set_defaults(func=_cmd_otep)


def _cmd_bestmove(args: argparse.Namespace) -> int:
    from .cli import board_from_args
    from .search import search_board

    board = board_from_args(args)
    for i, text in enumerate(args.moves.split()):
        try:
            board.push(board.parse_move(text))
        except ValueError as exc:
            raise ValueError(f"--moves, move {i + 1}: {exc}") from None
    if (end := board.outcome()) is not None:
        raise ValueError(f"the game is over ({end.describe()}): no move to make")
    level = get_level(args.level)
    if args.nodes is not None:
        level = replace(level, max_nodes=args.nodes)
    result = search_board(board, level, seed=args.seed, time_s=args.time)
    print(f"info depth {result.depth} score {result.score} nodes {result.nodes} "
          f"time {result.elapsed_s:.3f} stop {result.stopped_by} pv {' '.join(result.pv)}")
    print(result.move_text)
    return 0


def _cmd_otep(args: argparse.Namespace) -> int:
    from .otep import OtepSettings, run_stdio

    settings = OtepSettings(level=args.level, think_s=args.time, seed=args.seed)
    return run_stdio(settings, sys.stdin, sys.stdout)
