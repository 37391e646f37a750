"""The rules engine: the four rule sets, OTN notation, move generation, game end.

Pure Python, no I/O (only `engine.cli` and `engine.otep` touch stdin/stdout).
The API is modelled on python-chess; docs/architecture.md holds the contract
and docs/rules.md every rules decision.

Beyond the contract, `Board` offers what the search and the kiosk need:
`generate_moves()` (legal moves unsorted, cached Move objects),
`push_unchecked(move)` (no legality check), `game_end` (the end the last move
caused, without the no-legal-move test), `why_illegal(move)` (a one-line
reason or None), `escape_routes()`, `king_capture_threats()`,
`captured_counts()`, `repetitions()`, `king_square`, `ply`, and `resume()`
(play on after an end, for replays); for the search: `cells`,
`repetitions_of(hash)`, `push_null()`/`pop_null()`, `bitboard(side)`,
`bit_masks()` and `defender_edge_reach()`. `engine.perft(board, depth)` counts
leaves; `engine.replay` checks recorded games; `engine.match` holds York's
options c and d.
"""
from .board import Board, perft
from .otn import pieces_from_position, position_from_pieces
from .rules import VARIANTS, Rules, rules_for
from .types import Announcement, Move, Outcome, Piece, Side, parse_square, square_name

__all__ = [
    "Board", "Move", "Side", "Piece", "Outcome", "Announcement", "VARIANTS", "Rules",
    "square_name", "parse_square", "rules_for", "perft", "position_from_pieces", "pieces_from_position",
]
