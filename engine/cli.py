"""`tafl-engine` (also `python -m engine`): the engine's command line, a contract other tools use.

    tafl-engine variants
    tafl-engine moves  --variant V [--option K=V ...] [--position OTN] [--turn T] [--json]
    tafl-engine perft  --variant V --depth N [--option K=V ...] [--position OTN] [--turn T]
    tafl-engine replay --variant V [--option K=V ...] [--continue-past-end] FILE|-
    tafl-engine explain / hint ...   why a move is good, the best move with why (engine/cli_explain.py)

Exit codes: 0 fine; 1 an illegal move in a replay (the message names the ply
and why); 2 bad input (position string, option, malformed move, usage), always
as ONE line on stderr, for any input, in bounded time and memory (input is
checked against the rules' limits before anything is built from it). The
search commands (`bestmove`, `otep`) are added by
`engine.cli_search.add_commands`; every subcommand reads the board with
`add_board_arguments` / `board_from_args` and numbers with `ascii_int` /
`ascii_float` (engine/cli_args.py), and reports bad input with
`report_bad_input` (here).
"""
from __future__ import annotations

import argparse
import json
import sys
from typing import Sequence

from . import cli_explain, cli_search
from .board import Board, perft
from .cli_args import add_board_arguments, ascii_int, board_from_args, options_from_args
from .replay import ReplayError, replay, summary_lines, tokenize
from .rules import VARIANTS
from .types import square_name

EXIT_ILLEGAL = 1
EXIT_BAD_INPUT = 2
#: perft's tree grows ~100-fold per ply: deeper than this is never a real question
MAX_PERFT_DEPTH = 20
#: a game record is a few kilobytes; more than this is not one (and /dev/zero never ends)
MAX_RECORD_BYTES = 1 << 20
#: the longest message line, so a huge bad input gives a short message
_MAX_MESSAGE = 300


def report_bad_input(message: object, prefix: str = "tafl-engine: error: ",
                     code: int = EXIT_BAD_INPUT) -> int:
    """The CLI contract for bad input: ONE line on stderr, whatever the message holds
    (newlines and runs of whitespace folded, cut to a bounded length); returns the exit code."""
    text = " ".join(str(message).split()) or type(message).__name__
    if len(text) > _MAX_MESSAGE:
        text = text[:_MAX_MESSAGE] + "..."
    print(prefix + text, file=sys.stderr)
    return code


def read_record(path: str, limit: int = MAX_RECORD_BYTES) -> str:
    """The text of a game file (``-``: stdin), UTF-8, at most ``limit`` bytes; ValueError else."""
    try:
        if path == "-":
            stream = getattr(sys.stdin, "buffer", None)
            if stream is None:                       # a text stream put in place (tests, embedding)
                text = sys.stdin.read(limit + 1)
                if len(text) > limit:
                    raise ValueError(f"stdin holds more than {limit} characters: not a game record")
                return text
            data = stream.read(limit + 1)
        else:
            with open(path, "rb") as fh:
                data = fh.read(limit + 1)
    except OSError as exc:
        raise ValueError(f"cannot read {path}: {exc.strerror or exc}") from None
    name = "stdin" if path == "-" else path
    if len(data) > limit:
        raise ValueError(f"{name} is larger than {limit} bytes: not a game record")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ValueError(f"{name} is not UTF-8 text (byte {exc.start})") from None


class UsageError(Exception):
    """Bad command-line input: reported as one line, exit code 2."""


class _Parser(argparse.ArgumentParser):
    """argparse, but errors are one line (no usage dump) and exit with code 2."""

    def error(self, message: str) -> None:  # type: ignore[override]
        raise UsageError(message)


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
    if not 0 <= args.depth <= MAX_PERFT_DEPTH:
        raise ValueError(f"bad depth {args.depth} (must be 0 to {MAX_PERFT_DEPTH})")
    board = board_from_args(args)
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
    text = read_record(args.file)
    options = options_from_args(args)
    try:
        result = replay(args.variant, tokenize(text), options, position=args.position,
                        turn=args.turn, continue_past_end=args.continue_past_end)
    except ReplayError as exc:
        return report_bad_input(exc, "tafl-engine: ", EXIT_BAD_INPUT if exc.malformed else EXIT_ILLEGAL)
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
    p.add_argument("--depth", type=ascii_int, required=True)
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
    except (UsageError, ValueError) as exc:
        return report_bad_input(exc)
    except (RecursionError, OverflowError, MemoryError) as exc:   # a limit missed above: still one line
        return report_bad_input(f"input too large ({type(exc).__name__})")
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    sys.exit(main())
